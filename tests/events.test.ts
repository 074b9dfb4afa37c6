/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { ContractFactory, Interface, JsonRpcProvider, Wallet, getAddress, id as keccakId } from 'ethers';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { deployRegistered, newKey, type DeployedContract } from './kit/flows';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { COUNTER_SOURCE, TOKEN_SOURCE } from './kit/solidity';
import { startStack, type Stack } from './kit/stack';
import { Session } from '../src/auth/session';
import { startApp, type App } from '../src/app';
import { loadConfig } from '../src/kernel/config';
import { createLogger } from '../src/kernel/logger';
import { serviceEnv } from './kit/process';
import path from 'node:path';

/** Emits events of every shape: indexed values, an overloaded name, a tuple and bytes. */
const EMITTER_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Emitter {
    struct Note { address who; uint256 amount; }
    uint256 public seq;
    event Ping(address indexed from, uint256 indexed n, string text);
    event Moved(uint256 value);
    event Moved(uint256 value, address to);
    event Noted(Note note, bytes blob);

    function ping(string calldata text) external { seq += 1; emit Ping(msg.sender, seq, text); }
    function move(uint256 v) external { emit Moved(v); emit Moved(v, msg.sender); }
    function note(uint256 amount) external { emit Noted(Note(msg.sender, amount), hex"beef"); }
}
`;
const emitter = new Interface([
  'function ping(string text)',
  'function move(uint256 v)',
  'function note(uint256 amount)',
]);

let stack: Stack;
let api: Client;
let owner: LoggedIn;
let other: LoggedIn;
let contract: DeployedContract;
let readKey: string;
let writeOnlyKey: string;
let restrictedKey: string;
let otherKey: string;
let sender: Wallet;
let nonce: number;
let provider: JsonRpcProvider;

const eventsPath = (id: string, query = '') => `/api/devportal/contracts/${id}/events${query}`;
const list = (query: string, opts: { apiKey?: string; token?: string } = { apiKey: readKey }) =>
  api.get(eventsPath(contract.id, query), opts);

/** Sends `calls` to the emitter at once from one funded account (many per block) and waits for the last. */
async function send(calls: string[]): Promise<number> {
  const { gasPrice } = await provider.getFeeData();
  const raw = await Promise.all(
    calls.map((data, i) =>
      sender.signTransaction({
        to: contract.address,
        data,
        nonce: nonce + i,
        gasLimit: 200_000,
        gasPrice: gasPrice! * 2n,
        chainId: 17991,
        type: 0,
      }),
    ),
  );
  nonce += calls.length;
  const hashes: string[] = [];
  for (let i = 0; i < raw.length; i += 100) {
    hashes.push(...(await Promise.all(raw.slice(i, i + 100).map((r) => provider.send('eth_sendRawTransaction', [r])))));
  }
  const receipt = await provider.waitForTransaction(hashes[hashes.length - 1]!, 1, 60_000);
  expect(receipt!.status).toBe(1);
  return receipt!.blockNumber;
}

/** Waits until the explorer index holds `block`. */
async function indexed(block: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const status = await api.get('/api/explorer/network-status?network=testnet');
    if ((status.body.indexer?.lastIndexedBlock ?? -1) >= block) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`block ${block} was not indexed`);
}

/** Every page of the list, following nextCursor. */
async function allPages(query: string, limit: number): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await list(`${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

const wsClient = (connectionParams: Record<string, unknown>, url = stack.url): WsClient =>
  createClient({
    url: url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams,
  });

const EVENT_FIELDS = 'event signature args address blockNumber blockHash transactionHash logIndex timestamp';

/** A subscription that collects what it receives; `until` resolves once `count` events arrived. */
function subscribe(ws: WsClient, variables: Record<string, unknown>) {
  const got: any[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let failure: any = null;
  let failed!: (e: any) => void;
  const failedPromise = new Promise<never>((_, reject) => (failed = reject));
  failedPromise.catch(() => undefined);
  const unsubscribe = ws.subscribe(
    {
      query: `subscription($id: ID!, $event: String, $from: Int) {
        contractEvents(contractId: $id, event: $event, fromBlock: $from) { ${EVENT_FIELDS} } }`,
      variables,
    },
    {
      next: (msg) => {
        if (msg.errors) {
          failure = msg.errors;
          failed(msg.errors);
          return;
        }
        got.push((msg.data as any).contractEvents);
        for (const w of waiters) if (got.length >= w.count) w.resolve();
      },
      error: (e) => {
        failure = e;
        failed(e);
      },
      complete: () => undefined,
    },
  );
  return {
    got,
    failure: () => failure,
    until: (count: number, ms = 60_000) =>
      Promise.race([
        new Promise<void>((resolve, reject) => {
          if (got.length >= count) return resolve();
          const timer = setTimeout(
            () => reject(new Error(`only ${got.length} of ${count} events within ${ms} ms`)),
            ms,
          );
          waiters.push({
            count,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          });
        }),
        failedPromise,
      ]),
    errorCode: async () => {
      try {
        await failedPromise;
      } catch (e: any) {
        return (Array.isArray(e) ? e[0] : e)?.extensions?.code;
      }
      return undefined;
    },
    stop: () => unsubscribe(),
  };
}

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  owner = await login(api, stack.ca);
  other = await login(api, stack.ca);
  for (const dev of [owner, other]) {
    expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  }
  contract = await deployRegistered(api, owner, EMITTER_SOURCE);
  const second = await deployRegistered(api, owner, COUNTER_SOURCE);
  readKey = (await newKey(api, owner, { scopes: ['read'] })).apiKey;
  writeOnlyKey = (await newKey(api, owner, { scopes: ['write'] })).apiKey;
  restrictedKey = (await newKey(api, owner, { contractId: second.id })).apiKey;
  otherKey = (await newKey(api, other)).apiKey;
  provider = providerOf(stack, 'testnet');
  sender = new Wallet(ANVIL_KEYS[1]!, provider);
  nonce = await provider.getTransactionCount(sender.address, 'pending');
}, 180_000);
afterAll(async () => {
  provider?.destroy();
  await stack?.stop();
});

/**
 * Events enough to cross every page boundary that matters: more than 10 REST pages of 25, and more
 * than two of the subscription's internal pages of 100 (docs/api.md, "Contract events").
 */
const MANY = 300;
/** Sent while a subscriber replays the first MANY: more than one internal page again. */
const MORE = 120;

describe(`${MANY} transactions of events`, () => {
  let lastBlock: number;

  beforeAll(async () => {
    lastBlock = await send(Array.from({ length: MANY }, (_, i) => emitter.encodeFunctionData('ping', [`t${i + 1}`])));
    await indexed(lastBlock);
  }, 180_000);

  it('lists them through REST pages, oldest first, without gap or duplicate', async () => {
    const { items, pages } = await allPages('?event=Ping', 25);
    expect(pages).toBeGreaterThanOrEqual(10);
    expect(items.map((e) => e.args.n)).toEqual(Array.from({ length: MANY }, (_, i) => String(i + 1)));
    expect(new Set(items.map((e) => e.transactionHash)).size).toBe(MANY);
    // The largest page (100) lists the same.
    const largest = await allPages('?event=Ping', 100);
    expect(largest.pages).toBeGreaterThanOrEqual(3);
    expect(largest.items).toEqual(items);
    // Many per block (5 on average at least): (blockNumber, logIndex) strictly increases.
    const blocks = new Set(items.map((e) => e.blockNumber));
    expect(blocks.size).toBeLessThan(MANY / 5);
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1], items[i]];
      expect(b.blockNumber > a.blockNumber || (b.blockNumber === a.blockNumber && b.logIndex > a.logIndex)).toBe(true);
    }
    expect(items[0]).toEqual({
      event: 'Ping',
      signature: 'Ping(address,uint256,string)',
      args: { from: sender.address, n: '1', text: 't1' },
      address: getAddress(contract.address),
      blockNumber: expect.any(Number),
      blockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      logIndex: expect.any(Number),
      timestamp: expect.any(Number),
    });
    const block = await api.get(`/api/explorer/block/${items[0].blockNumber}?network=testnet`);
    expect(items[0].blockHash).toBe(block.body.block.hash);
    expect(items[0].timestamp).toBe(block.body.block.timestamp);
    // The default page is 25, and the owner's token reads the same list.
    const first = await list('', { token: owner.token });
    expect(first.body.items).toHaveLength(25);
    expect(first.body.items).toEqual(items.slice(0, 25));
  });

  it('replays them over the subscription from fromBlock 0, then follows new ones in order', async () => {
    const ws = wsClient({ 'x-api-key': readKey });
    try {
      const sub = subscribe(ws, { id: contract.id, event: 'Ping', from: 0 });
      await sub.until(MANY);
      const more = send(Array.from({ length: MORE }, (_, i) => emitter.encodeFunctionData('ping', [`m${i + 1}`])));
      await sub.until(MANY + MORE);
      await more;
      // A moment for anything extra (a repeat) to arrive.
      await new Promise((r) => setTimeout(r, 1500));
      sub.stop();
      expect(sub.failure()).toBeNull();
      expect(sub.got.map((e) => e.args.n)).toEqual(Array.from({ length: MANY + MORE }, (_, i) => String(i + 1)));
      const rest = await allPages('?event=Ping', 100);
      expect(sub.got).toEqual(rest.items);
    } finally {
      await ws.dispose();
    }
  }, 120_000);

  it('replays from any fromBlock again, as a client re-subscribing after a restart does', async () => {
    const rest = await allPages('?event=Ping', 100);
    const from = rest.items[Math.floor(MANY / 2)].blockNumber;
    const expected = rest.items.filter((e) => e.blockNumber >= from);
    const ws = wsClient({ authorization: `Bearer ${owner.token}` });
    try {
      const sub = subscribe(ws, { id: contract.id, event: 'Ping(address,uint256,string)', from });
      await sub.until(expected.length);
      sub.stop();
      expect(sub.got).toEqual(expected);
    } finally {
      await ws.dispose();
    }
  }, 60_000);

  it('paces a subscriber that does not read by reading the index, not by buffering', async () => {
    const { services } = stack.app;
    const reads = jest.spyOn(services.explorer.index, 'contractLogs');
    try {
      const session = new Session({ apiKey: readKey }, '127.0.0.1', services.auth, services.keys);
      const feed = services.events.follow({ session, contractId: contract.id, event: 'Ping', fromBlock: 0 });
      expect((await feed.next()).value.args.n).toBe('1');
      await new Promise((r) => setTimeout(r, 1500));
      // One page of 100 read for the first event, nothing more while the subscriber takes nothing.
      expect(reads.mock.calls.length).toBeLessThanOrEqual(2);
      for (let n = 2; n <= 250; n++) expect((await feed.next()).value.args.n).toBe(String(n));
      expect(reads.mock.calls.length).toBeLessThanOrEqual(4);
      const started = Date.now();
      await feed.return!();
      expect(Date.now() - started).toBeLessThan(500);
      expect((await feed.next()).done).toBe(true);
    } finally {
      reads.mockRestore();
    }
  });

  it('without fromBlock, pushes only events of blocks indexed after it subscribed, within a second of indexing', async () => {
    const ws = wsClient({ authorization: `Bearer ${owner.token}` });
    try {
      const sub = subscribe(ws, { id: contract.id, event: 'Moved(uint256)' });
      await new Promise((r) => setTimeout(r, 500));
      let arrived = 0;
      const received = sub.until(1).then(() => (arrived = Date.now()));
      const block = await send([emitter.encodeFunctionData('move', [42])]);
      // When the index took the block in, as seen by polling its progress.
      let indexedAt = 0;
      while (indexedAt === 0) {
        const status = await api.get('/api/explorer/network-status?network=testnet');
        if (status.body.indexer.lastIndexedBlock >= block) indexedAt = Date.now();
        else await new Promise((r) => setTimeout(r, 20));
      }
      await received;
      sub.stop();
      expect(sub.got).toHaveLength(1);
      expect(sub.got[0]).toMatchObject({ event: 'Moved', signature: 'Moved(uint256)', args: { value: '42' } });
      expect(sub.got[0].blockNumber).toBe(block);
      expect(arrived - indexedAt).toBeLessThan(1_000);
    } finally {
      await ws.dispose();
    }
  }, 60_000);
});

describe('an instance that does not index', () => {
  let second: App;

  beforeAll(async () => {
    const config = loadConfig({
      ...serviceEnv(
        {
          databaseUrl: stack.databaseUrl,
          testnetUrl: stack.app.rpcUrls.testnet!,
          mainnetUrl: stack.app.rpcUrls.mainnet!,
          trustedCaFile: path.join(stack.dataDir, 'trusted-ca.pem'),
        },
        stack.rpcEnv,
      ),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATA_DIR: stack.dataDir,
      INDEXER_ENABLED: 'false',
    });
    second = await startApp(config, createLogger(config.logLevel));
  }, 60_000);
  afterAll(async () => {
    await second?.close();
  });

  it('follows the index another instance writes, within a second of indexing', async () => {
    expect(second.services.explorer.runtime.isIndexing('testnet')).toBe(false);
    const ws = wsClient({ 'x-api-key': readKey }, second.url);
    try {
      const sub = subscribe(ws, { id: contract.id, event: 'Moved(uint256,address)' });
      await new Promise((r) => setTimeout(r, 500));
      let arrived = 0;
      const received = sub.until(2).then(() => (arrived = Date.now()));
      const block = await send([emitter.encodeFunctionData('move', [1]), emitter.encodeFunctionData('move', [2])]);
      let indexedAt = 0;
      while (indexedAt === 0) {
        const status = await api.get('/api/explorer/network-status?network=testnet');
        if (status.body.indexer.lastIndexedBlock >= block) indexedAt = Date.now();
        else await new Promise((r) => setTimeout(r, 20));
      }
      await received;
      sub.stop();
      expect(sub.got.map((e) => e.args.value)).toEqual(['1', '2']);
      expect(arrived - indexedAt).toBeLessThan(1_000);
    } finally {
      await ws.dispose();
    }
  }, 60_000);
});

describe('filters', () => {
  let moveBlock: number;
  let noteBlock: number;

  beforeAll(async () => {
    moveBlock = await send([emitter.encodeFunctionData('move', [7])]);
    noteBlock = await send([emitter.encodeFunctionData('note', [5])]);
    await indexed(noteBlock);
  }, 60_000);

  it('filters by signature, and lists every declared event without a filter', async () => {
    const moved = await list(`?event=${encodeURIComponent('Moved(uint256, address)')}&fromBlock=${moveBlock}`);
    expect(moved.status).toBe(200);
    expect(moved.body.items).toEqual([
      expect.objectContaining({
        event: 'Moved',
        signature: 'Moved(uint256,address)',
        args: { value: '7', to: sender.address },
        blockNumber: moveBlock,
      }),
    ]);
    const all = await list(`?fromBlock=${moveBlock}&toBlock=${noteBlock}`);
    expect(all.body.items.map((e: any) => e.signature)).toEqual([
      'Moved(uint256)',
      'Moved(uint256,address)',
      'Noted((address,uint256),bytes)',
    ]);
    expect(all.body.items[2].args).toEqual({ note: { who: sender.address, amount: '5' }, blob: '0xbeef' });
    expect(all.body.nextCursor).toBeNull();
  });

  it('keeps to fromBlock and toBlock, both inclusive', async () => {
    const only = await list(`?fromBlock=${noteBlock}&toBlock=${noteBlock}`);
    expect(only.body.items.map((e: any) => e.event)).toEqual(['Noted']);
    const before = await list(`?event=Noted&toBlock=${noteBlock - 1}`);
    expect(before.body.items).toEqual([]);
    const pings = await list(`?event=Ping&fromBlock=${moveBlock}`);
    expect(pings.body.items).toEqual([]);
  });

  it('over GraphQL too', async () => {
    const res = await api.graphql(
      `query($id: ID!, $from: Int) { contractEvents(id: $id, event: "Noted", fromBlock: $from) { items { ${EVENT_FIELDS} } nextCursor } }`,
      { id: contract.id, from: noteBlock },
      { apiKey: readKey },
    );
    expect(res.body.data.contractEvents.items).toHaveLength(1);
    expect(res.body.data.contractEvents.items[0].args.blob).toBe('0xbeef');
  });
});

describe('errors', () => {
  it('refuses an ambiguous name with the signatures, and an event the ABI does not declare', async () => {
    const ambiguous = await list('?event=Moved');
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error).toMatchObject({
      code: 'AMBIGUOUS_METHOD',
      details: { signatures: ['Moved(uint256)', 'Moved(uint256,address)'] },
    });
    for (const event of ['Nope', 'ping', 'Moved(uint8)']) {
      const res = await list(`?event=${encodeURIComponent(event)}`);
      expect({ event, status: res.status, code: res.body.error?.code }).toEqual({
        event,
        status: 404,
        code: 'METHOD_NOT_FOUND',
      });
    }
  });

  it('refuses bad limits, block numbers and cursors with 400 VALIDATION_FAILED', async () => {
    const page = await list('?event=Ping&limit=2');
    const cursor = page.body.nextCursor as string;
    const tampered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(cursor, 'base64url').toString()), block: -5 }),
    ).toString('base64url');
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?limit=2.5',
      '?fromBlock=-1',
      '?fromBlock=abc',
      '?toBlock=-3',
      '?fromBlock=10&toBlock=9',
      '?cursor=abc',
      `?cursor=${cursor.slice(0, -3)}`,
      `?event=Ping&cursor=${tampered}`,
      // A filter no ABI signature is this long, refused before it is parsed.
      `?event=Ping(${'uint256,'.repeat(200)}uint256)`,
      // A cursor of the Ping list on the list of every event.
      `?cursor=${cursor}`,
    ]) {
      const res = await list(query);
      expect({ query, status: res.status, code: res.body.error?.code }).toEqual({
        query,
        status: 400,
        code: 'VALIDATION_FAILED',
      });
    }
    // REST words: the parameter's name, never a GraphQL variable or type.
    for (const [query, field] of [
      ['?fromBlock=abc', 'fromBlock'],
      ['?toBlock=-3', 'toBlock'],
      ['?limit=abc', 'limit'],
    ]) {
      const res = await list(query!);
      expect(res.body.error.message).toContain(field);
      expect(res.body.error.message).not.toMatch(/\$|Int\b/);
    }
    // The cursor itself works on its own list.
    const next = await list(`?event=Ping&limit=2&cursor=${cursor}`);
    expect(next.body.items.map((e: any) => e.args.n)).toEqual(['3', '4']);
  });

  it('answers 404 for an unknown contract and 409 for one not deployed', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await api.get(eventsPath(id), { token: owner.token });
      expect({ id, status: res.status, code: res.body.error?.code }).toEqual({ id, status: 404, code: 'NOT_FOUND' });
    }
    const pending = await api.post(
      '/api/devportal/contracts/deploy',
      { source: COUNTER_SOURCE, network: 'mainnet' },
      { token: owner.token },
    );
    expect(pending.body.status).not.toBe('deployed');
    const res = await api.get(eventsPath(pending.body.id), { token: owner.token });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONTRACT_NOT_DEPLOYED');
  });
});

describe('authorization', () => {
  it('takes the owner’s token or a key with read on the contract, and refuses everyone else', async () => {
    const cases: Array<[string, { token?: string; apiKey?: string }, number, string | undefined]> = [
      ['the owner’s token', { token: owner.token }, 200, undefined],
      ['a read key', { apiKey: readKey }, 200, undefined],
      ['nothing', {}, 401, 'UNAUTHENTICATED'],
      ['an unknown key', { apiKey: `svc_${'x'.repeat(43)}` }, 401, 'INVALID_API_KEY'],
      ['another developer’s token', { token: other.token }, 403, 'FORBIDDEN'],
      ['another developer’s key', { apiKey: otherKey }, 403, 'FORBIDDEN'],
      ['a key without read', { apiKey: writeOnlyKey }, 403, 'INSUFFICIENT_SCOPE'],
      ['a key for another contract', { apiKey: restrictedKey }, 403, 'KEY_NOT_FOR_CONTRACT'],
    ];
    for (const [label, opts, status, code] of cases) {
      const res = await list('?limit=1', opts);
      expect({ label, status: res.status, code: res.body?.error?.code }).toEqual({ label, status, code });
    }
  });

  it('applies the same rules to the subscription, with credentials in connectionParams', async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
      ['nothing', {}, {}, 'UNAUTHENTICATED'],
      ['another developer’s token', { authorization: `Bearer ${other.token}` }, {}, 'FORBIDDEN'],
      ['a key without read', { 'x-api-key': writeOnlyKey }, {}, 'INSUFFICIENT_SCOPE'],
      ['a key for another contract', { 'x-api-key': restrictedKey }, {}, 'KEY_NOT_FOR_CONTRACT'],
      ['an ambiguous event', { 'x-api-key': readKey }, { event: 'Moved' }, 'AMBIGUOUS_METHOD'],
      ['an unknown contract', { 'x-api-key': readKey }, { id: '00000000-0000-4000-8000-000000000000' }, 'NOT_FOUND'],
      ['a negative fromBlock', { 'x-api-key': readKey }, { from: -1 }, 'VALIDATION_FAILED'],
    ];
    for (const [label, params, variables, code] of cases) {
      const ws = wsClient(params);
      try {
        const sub = subscribe(ws, { id: contract.id, ...variables });
        expect({ label, code: await sub.errorCode() }).toEqual({ label, code });
      } finally {
        await ws.dispose();
      }
    }
  });
});

describe('a long subscription', () => {
  it('ends with INVALID_API_KEY within seconds of its key being revoked', async () => {
    const key = await newKey(api, owner, { scopes: ['read'] });
    const ws = wsClient({ 'x-api-key': key.apiKey });
    try {
      const sub = subscribe(ws, { id: contract.id, event: 'Ping', from: 0 });
      await sub.until(1);
      expect((await api.del(`/api/devportal/api-keys/${key.id}`, { token: owner.token })).status).toBe(200);
      const code = await Promise.race([
        sub.errorCode(),
        new Promise((r) => setTimeout(() => r('still running'), 15_000)),
      ]);
      expect(code).toBe('INVALID_API_KEY');
    } finally {
      await ws.dispose();
    }
  }, 30_000);
});

describe('explorer transaction view', () => {
  it('decodes the logs of a portal contract with its ABI', async () => {
    const hash = await sender.sendTransaction({
      to: contract.address,
      data: emitter.encodeFunctionData('move', [9]),
      nonce: nonce++,
    });
    await hash.wait();
    const res = await api.get(`/api/explorer/tx/${hash.hash}?network=testnet`);
    expect(res.status).toBe(200);
    expect(res.body.transaction.logs.map((l: any) => l.decoded)).toEqual([
      { name: 'Moved', event: 'Moved', signature: 'Moved(uint256)', args: { value: '9' } },
      { name: 'Moved', event: 'Moved', signature: 'Moved(uint256,address)', args: { value: '9', to: sender.address } },
    ]);
    const gql = await api.graphql(
      `query($h: String!) { transaction(hash: $h, network: testnet) { transaction { logs { decoded { name args } } } } }`,
      { h: hash.hash },
    );
    expect(gql.body.data.transaction.transaction.logs[1].decoded).toEqual({
      name: 'Moved',
      args: { value: '9', to: sender.address },
    });
  });

  it('decodes an ERC-20 Transfer of a token the portal does not know', async () => {
    const compiled = await api.post('/api/devportal/contracts/compile', { source: TOKEN_SOURCE });
    expect(compiled.status).toBe(201);
    const { abi, bytecode } = compiled.body.contracts[0];
    const deployer = new Wallet(ANVIL_KEYS[2]!, provider);
    const token = await new ContractFactory(abi, bytecode, deployer).deploy(1_000_000n);
    await token.waitForDeployment();
    const recipient = Wallet.createRandom().address;
    const tx = await (token as any).transfer(recipient, 1234n);
    await tx.wait();
    const res = await api.get(`/api/explorer/tx/${tx.hash}?network=testnet`);
    expect(res.body.transaction.logs).toEqual([
      {
        address: await token.getAddress(),
        topics: [keccakId('Transfer(address,address,uint256)'), expect.any(String), expect.any(String)],
        data: expect.any(String),
        logIndex: expect.any(Number),
        decoded: {
          name: 'Transfer',
          event: 'Transfer',
          signature: 'Transfer(address,address,uint256)',
          args: { from: deployer.address, to: recipient, value: '1234' },
        },
      },
    ]);
  });
});
