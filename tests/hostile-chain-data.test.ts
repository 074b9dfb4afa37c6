/* eslint-disable @typescript-eslint/no-explicit-any -- webhook messages are asserted field by field */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Interface, Wallet, type JsonRpcProvider } from 'ethers';
import { createClient } from 'graphql-ws';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { leastLoopHoldCpuMs } from './kit/cpu-time';
import { deployRegistered, newKey, type DeployedContract } from './kit/flows';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { startStack, type Stack } from './kit/stack';

/**
 * The "inflation bomb": the ABI encoding of a `uint256[][]` whose `outer` offsets all point at one
 * array of `inner` words, so `outer × inner` values come out of `96 + 32 × (outer + inner)` bytes.
 */
const BOMB_FUNCTION = `function bomb(uint256 outer, uint256 inner) pure returns (bytes memory b) {
    b = new bytes(96 + 32 * outer + 32 * inner);
    assembly {
        let p := add(b, 32)
        mstore(p, 32)
        mstore(add(p, 32), outer)
        let heads := add(p, 64)
        for { let i := 0 } lt(i, outer) { i := add(i, 1) } { mstore(add(heads, mul(i, 32)), mul(outer, 32)) }
        let arr := add(heads, mul(outer, 32))
        mstore(arr, inner)
        for { let i := 0 } lt(i, inner) { i := add(i, 1) } { mstore(add(arr, mul(add(i, 1), 32)), i) }
    }
}`;

/** A contract built to hurt whoever decodes what it returns, reverts, logs or is sent. */
const HOSTILE_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

${BOMB_FUNCTION}

contract Hostile {
    error Boom(uint256[][] data);
    event Blast(uint256[][] data);
    uint256 public writes;

    function values(uint256 outer, uint256 inner) external pure returns (uint256[][] memory) {
        bytes memory b = bomb(outer, inner);
        assembly { return(add(b, 32), mload(b)) }
    }

    function blob(uint256 n) external pure returns (bytes memory) {
        return new bytes(n);
    }

    function raise(uint256 outer, uint256 inner) internal pure {
        bytes memory data = abi.encodePacked(Boom.selector, bomb(outer, inner));
        assembly { revert(add(data, 32), mload(data)) }
    }

    function failView(uint256 outer, uint256 inner) external pure {
        raise(outer, inner);
    }

    function failWrite(uint256 outer, uint256 inner) external {
        writes += 1;
        raise(outer, inner);
    }

    /// revert(string) of n letters A (n a multiple of 32), built in place.
    function longReason(uint256 n) external pure {
        assembly {
            let p := mload(0x40)
            mstore(p, shl(224, 0x08c379a0))
            mstore(add(p, 4), 32)
            mstore(add(p, 36), n)
            for { let i := 0 } lt(i, n) { i := add(i, 32) } {
                mstore(add(add(p, 68), i), 0x4141414141414141414141414141414141414141414141414141414141414141)
            }
            revert(p, add(68, n))
        }
    }

    function blast(uint256 outer, uint256 inner) external {
        writes += 1;
        bytes memory b = bomb(outer, inner);
        bytes32 topic = Blast.selector;
        assembly { log1(add(b, 32), mload(b), topic) }
    }

    function blastTwice(uint256 outer, uint256 inner) external {
        writes += 1;
        bytes memory b = bomb(outer, inner);
        bytes32 topic = Blast.selector;
        assembly {
            log1(add(b, 32), mload(b), topic)
            log1(add(b, 32), mload(b), topic)
        }
    }

    function take(uint256[][] calldata data) external {
        writes += data.length;
    }
}
`;

/** The bomb as calldata of take(uint256[][]), built here as the contract builds it. */
function bombCalldata(outer: number, inner: number): string {
  const word = (n: number) => n.toString(16).padStart(64, '0');
  const selector = new Interface(['function take(uint256[][])']).getFunction('take')!.selector;
  const body =
    word(32) +
    word(outer) +
    word(outer * 32).repeat(outer) +
    word(inner) +
    Array.from({ length: inner }, (_, i) => word(i)).join('');
  return selector + body;
}

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let hostile: DeployedContract;
let key: string;
let provider: JsonRpcProvider;

/** The revert of a 2 × 3 bomb, within the budget: the custom error decoded as ever. */
function expectSmallBoom(res: { status: number; body: any }): void {
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('EXECUTION_REVERTED');
  expect(res.body.error.details.error).toEqual({
    name: 'Boom',
    signature: 'Boom(uint256[][])',
    args: [
      [
        ['0', '1', '2'],
        ['0', '1', '2'],
      ],
    ],
  });
}

const query = (method: string, args: unknown[]) =>
  api.post(`/api/devportal/contracts/${hostile.id}/query/${method}`, { args }, { apiKey: key });
const invoke = (method: string, args: unknown[]) =>
  api.post(`/api/devportal/contracts/${hostile.id}/invoke/${method}`, { args }, { apiKey: key });

/** The request, and the longest it held the service's event loop (best of up to 3 tries, as elsewhere). */
async function held<T>(what: string, run: () => Promise<T>): Promise<{ result: T; maxHoldMs: number }> {
  const measured = await leastLoopHoldCpuMs(run, 100);
  // For the record (docs/api.md cites the figures).
  process.stdout.write(`hostile chain data: ${what}: event loop held ${measured.maxHoldMs.toFixed(1)} ms at most\n`);
  return measured;
}

/** Waits until the explorer index holds `block` of testnet. */
async function indexed(block: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const status = await api.get('/api/explorer/network-status?network=testnet');
    if ((status.body.indexer?.lastIndexedBlock ?? -1) >= block) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`block ${block} was not indexed`);
}

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  hostile = await deployRegistered(api, dev, HOSTILE_SOURCE);
  key = (await newKey(api, dev, { name: 'hostile' })).apiKey;
  provider = providerOf(stack, 'testnet');
}, 180_000);
afterAll(async () => {
  provider?.destroy();
  await stack?.stop();
});

describe('return data', () => {
  it('refuses a nested-offset bomb with 422 RESULT_TOO_LARGE, holding the event loop < 100 ms', async () => {
    // 400 offsets to one array of 400 words: 25,696 bytes that would decode to 160,000 values.
    const { result: res, maxHoldMs } = await held('query, 400 × 400 return bomb', () =>
      query('values', ['400', '400']),
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('RESULT_TOO_LARGE');
    expect(res.body.error.details).toMatchObject({ bytes: 25_696, limit: 262_144, elementLimit: 100_000 });
    expect(res.body.error.details.elements).toBeGreaterThan(100_000);
    expect(maxHoldMs).toBeLessThan(100);
  });

  it('decodes the same shape within the budget (300 × 300: 90,301 elements), holding the event loop < 100 ms', async () => {
    const { result: res, maxHoldMs } = await held('query, 300 × 300 return within budget', () =>
      query('values', ['300', '300']),
    );
    expect(res.status).toBe(201);
    expect(res.body.result).toHaveLength(300);
    for (const inner of [res.body.result[0], res.body.result[299]]) {
      expect(inner).toEqual(Array.from({ length: 300 }, (_, i) => String(i)));
    }
    expect(maxHoldMs).toBeLessThan(100);
  });

  it('refuses return data over 256 KiB with 422 RESULT_TOO_LARGE {bytes, limit}, and decodes data just under it', async () => {
    const over = await query('blob', ['300000']);
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({
      code: 'RESULT_TOO_LARGE',
      details: { bytes: 64 + 300_000, limit: 262_144 },
    });
    // 64 + 262,080 bytes: exactly 256 KiB.
    const exact = await query('blob', ['262080']);
    expect(exact.status).toBe(201);
    expect(exact.body.result).toBe(`0x${'00'.repeat(262_080)}`);
  });
});

describe('several values of one request', () => {
  it('gives a GraphQL operation 100,000 decoded elements in all: a second alias of 90,301 is refused, < 100 ms of the loop', async () => {
    const field = (alias: string) =>
      `${alias}: queryContract(id: "${hostile.id}", method: "values", args: ["300", "300"]) { result }`;
    const { result: res, maxHoldMs } = await held('GraphQL, two aliases of a 300 × 300 result', () =>
      api.graphql(`mutation { ${field('a')} ${field('b')} }`, undefined, { apiKey: key }),
    );
    expect(res.status).toBe(200);
    // queryContract is non-null: its error nulls the whole operation's data, which keeps the answer small.
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].path).toEqual(['b']);
    expect(res.body.errors[0].extensions.code).toBe('RESULT_TOO_LARGE');
    expect(maxHoldMs).toBeLessThan(100);
    // A smaller second value fits beside the first.
    const small = `b: queryContract(id: "${hostile.id}", method: "values", args: ["3", "3"]) { result }`;
    const fits = await api.graphql(`mutation { ${field('a')} ${small} }`, undefined, { apiKey: key });
    expect(fits.body.errors).toBeUndefined();
    expect(fits.body.data.b.result).toEqual([
      ['0', '1', '2'],
      ['0', '1', '2'],
      ['0', '1', '2'],
    ]);
  });
});

describe('revert data', () => {
  it('refuses a custom error holding a bomb with 422 RESULT_TOO_LARGE, on query and on invoke, < 100 ms of the loop', async () => {
    const viaQuery = await held('query, custom error bomb', () => query('failView', ['400', '400']));
    expect(viaQuery.result.status).toBe(422);
    expect(viaQuery.result.body.error.code).toBe('RESULT_TOO_LARGE');
    expect(viaQuery.maxHoldMs).toBeLessThan(100);

    const viaInvoke = await held('invoke, custom error bomb', () => invoke('failWrite', ['400', '400']));
    expect(viaInvoke.result.status).toBe(422);
    expect(viaInvoke.result.body.error.code).toBe('RESULT_TOO_LARGE');
    expect(viaInvoke.maxHoldMs).toBeLessThan(100);

    // Within the budget the custom error is decoded as before.
    const small = await query('failView', ['2', '3']);
    expectSmallBoom(small);
  });

  it('answers a 1 MB revert(string) with a short 422 RESULT_TOO_LARGE, and cuts a 192 KiB reason to 4 KiB', async () => {
    const huge = await held('query, 1 MB revert(string)', () => query('longReason', ['1000000']));
    expect(huge.result.status).toBe(422);
    expect(huge.result.body.error).toMatchObject({
      code: 'RESULT_TOO_LARGE',
      details: { bytes: 68 + 1_000_000, limit: 262_144 },
    });
    expect(JSON.stringify(huge.result.body).length).toBeLessThan(2_000);
    expect(huge.maxHoldMs).toBeLessThan(100);

    const { result: long, maxHoldMs } = await held('query, 192 KiB revert(string)', () =>
      query('longReason', ['196608']),
    );
    expect(maxHoldMs).toBeLessThan(100);
    expect(long.status).toBe(422);
    expect(long.body.error.code).toBe('EXECUTION_REVERTED');
    const reason: string = long.body.error.details.reason;
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(4096);
    expect(reason).toMatch(/^A+…$/);
    expect(long.body.error.details.error.args[0]).toBe(reason);
    expect(Buffer.byteLength(long.body.error.message)).toBeLessThan(4096 + 100);
    // The whole body stays small: the message, the reason and the argument, about 4 KiB each.
    expect(JSON.stringify(long.body).length).toBeLessThan(16 * 1024);
  });
});

/** A constructor that reverts with the bomb as a custom error: refused by the deployment's simulation. */
const HOSTILE_CONSTRUCTOR_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

${BOMB_FUNCTION}

contract HostileConstructor {
    error Boom(uint256[][] data);

    constructor(uint256 outer, uint256 inner) {
        bytes memory b = bomb(outer, inner);
        bytes memory data = abi.encodePacked(Boom.selector, b);
        assembly { revert(add(data, 32), mload(data)) }
    }
}
`;

describe('deployment simulation', () => {
  it('refuses a constructor reverting with a bomb with 422 RESULT_TOO_LARGE, nothing stored, < 100 ms of the loop', async () => {
    const deploy = (constructorArgs: string[]) =>
      api.post(
        '/api/devportal/contracts/deploy',
        { source: HOSTILE_CONSTRUCTOR_SOURCE, constructorArgs },
        { token: dev.token },
      );
    // Compiled once before anything is measured: what is measured is the simulation's revert.
    const small = await deploy(['2', '3']);
    expectSmallBoom(small);
    const { result: res, maxHoldMs } = await held('deploy, constructor reverting with a bomb', () =>
      deploy(['400', '400']),
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('RESULT_TOO_LARGE');
    expect(res.body.error.details).toMatchObject({ limit: 262_144, elementLimit: 100_000 });
    expect(maxHoldMs).toBeLessThan(100);
    const mine = await api.get(`/api/devportal/developers/${dev.developerId}/contracts`, { token: dev.token });
    expect(JSON.stringify(mine.body)).not.toContain('HostileConstructor');
  });
});

describe('chain data anyone can write: calldata and logs', () => {
  let takeHash: string;
  let blastHash: string;
  let blastBlock: number;
  /** Webhook messages received, by the receiver below. */
  const messages: any[] = [];
  let receiver: http.Server;
  let fanOutHoldMs: number;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        messages.push(JSON.parse(body));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = await api.post(
      `/api/devportal/developers/${dev.developerId}/webhooks`,
      {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        events: ['contract.event'],
        contractId: hostile.id,
        event: 'Blast',
      },
      { token: dev.token },
    );
    expect(hook.status).toBe(201);

    // A transaction sent by anyone (no key) to a portal contract, its input a 24,740-byte bomb.
    const wallet = new Wallet(ANVIL_KEYS[2]!, provider);
    const sent = await wallet.sendTransaction({
      to: hostile.address,
      data: bombCalldata(385, 385),
      gasLimit: 3_000_000,
    });
    const mined = await sent.wait();
    takeHash = sent.hash;
    await indexed(mined!.blockNumber);

    // An event whose data is the bomb (385 × 385: 148,611 elements), followed until its webhook
    // message arrives: the invoke, the indexing and the fan-out all count against the loop.
    const run = await held('invoke emitting a log bomb, its indexing and webhook fan-out', async () => {
      const blasted = await invoke('blast', ['385', '385']);
      expect(blasted.status).toBe(201);
      expect(blasted.body.status).toBe('success');
      await indexed(blasted.body.blockNumber);
      for (let i = 0; i < 300 && !messages.some((m) => m.data?.transactionHash === blasted.body.txHash); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      return { hash: blasted.body.txHash as string, block: blasted.body.blockNumber as number };
    });
    blastHash = run.result.hash;
    blastBlock = run.result.block;
    fanOutHoldMs = run.maxHoldMs;
  }, 120_000);

  afterAll(async () => {
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('delivers the webhook message of a log bomb undecoded (decoded: false, raw data), < 100 ms of the loop', () => {
    const message = messages.find((m) => m.data?.transactionHash === blastHash);
    expect(message).toMatchObject({
      type: 'contract.event',
      data: { event: 'Blast', signature: 'Blast(uint256[][])', args: {}, decoded: false },
    });
    expect((message.data.data.length - 2) / 2).toBe(96 + 32 * 770);
    expect(fanOutHoldMs).toBeLessThan(100);
  });

  it('shows a transaction whose input is a bomb undecoded, with its raw input, < 100 ms of the loop', async () => {
    const input = bombCalldata(385, 385);
    expect((input.length - 2) / 2).toBe(24_740);
    const { result: res, maxHoldMs } = await held('explorer tx, 24,740-byte calldata bomb', () =>
      api.get(`/api/explorer/tx/${takeHash}?network=testnet`),
    );
    expect(res.status).toBe(200);
    expect(res.body.found).toBe(true);
    expect(res.body.transaction.input).toBe(input);
    expect(res.body.transaction.method ?? null).toBeNull();
    expect(maxHoldMs).toBeLessThan(100);
  });

  it('shows the calldata bomb to 100 GraphQL aliases of the transaction without multiplying the loop hold', async () => {
    // Each alias decodes the call on its own, and stops at its 100,000 elements.
    const fields = Array.from(
      { length: 100 },
      (_, i) => `t${i}: transaction(hash: $h, network: testnet) { transaction { input method { name } } }`,
    ).join(' ');
    const document = `query($h: String!) { ${fields} }`;
    // The answer's 4.9 MB read as bytes: parsing them is this client's work on the loop, not the service's.
    const ask = async () => {
      const res = await fetch(`${stack.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ query: document, variables: { h: takeHash } }),
      });
      return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
    };
    // Admitted and compiled before it is measured: what is measured is the decoding.
    for (let i = 0; i < 2; i++) expect((await ask()).status).toBe(200);
    const { result: res, maxHoldMs } = await held('GraphQL, 100 aliases of the calldata bomb transaction', ask);
    expect(res.status).toBe(200);
    const body = JSON.parse(res.bytes.toString('utf8'));
    expect(body.errors).toBeUndefined();
    const answers = Object.values(body.data) as Array<{ transaction: { input: string; method: unknown } }>;
    expect(answers).toHaveLength(100);
    for (const a of answers) expect(a.transaction).toEqual({ input: bombCalldata(385, 385), method: null });
    expect(maxHoldMs).toBeLessThan(100);
  });

  it('shows a log whose data is a bomb undecoded, with its raw data, < 100 ms of the loop', async () => {
    const { result: res, maxHoldMs } = await held('explorer tx, log bomb', () =>
      api.get(`/api/explorer/tx/${blastHash}?network=testnet`),
    );
    expect(res.status).toBe(200);
    const [log] = res.body.transaction.logs;
    expect((log.data.length - 2) / 2).toBe(96 + 32 * 770);
    expect(log.decoded ?? null).toBeNull();
    expect(maxHoldMs).toBeLessThan(100);
  });

  it('lists the event undecoded (decoded: false, raw data) without failing the page, < 100 ms of the loop', async () => {
    const path = `/api/devportal/contracts/${hostile.id}/events?event=Blast`;
    const { result: res, maxHoldMs } = await held('events list, log bomb', () => api.get(path, { apiKey: key }));
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({
      event: 'Blast',
      signature: 'Blast(uint256[][])',
      args: {},
      decoded: false,
      transactionHash: blastHash,
    });
    expect((res.body.items[0].data.length - 2) / 2).toBe(96 + 32 * 770);
    expect(maxHoldMs).toBeLessThan(100);
  });

  it('pushes the log bomb to a contractEvents subscription undecoded (decoded: false, raw data), < 100 ms of the loop', async () => {
    const ws = createClient({
      url: `${stack.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { 'x-api-key': key },
    });
    try {
      const { result: pushed, maxHoldMs } = await held('contractEvents subscription, log bomb', async () => {
        const events = ws.iterate<{ contractEvents: Record<string, unknown> }>({
          query: `subscription($id: ID!, $from: Int) {
            contractEvents(contractId: $id, event: "Blast", fromBlock: $from) { event signature args decoded data transactionHash } }`,
          variables: { id: hostile.id, from: blastBlock },
        });
        const first = await events.next();
        await events.return?.();
        return first.value;
      });
      expect(pushed.errors).toBeUndefined();
      expect(pushed.data!.contractEvents).toMatchObject({
        event: 'Blast',
        signature: 'Blast(uint256[][])',
        args: {},
        decoded: false,
        transactionHash: blastHash,
      });
      expect(((pushed.data!.contractEvents.data as string).length - 2) / 2).toBe(96 + 32 * 770);
      expect(maxHoldMs).toBeLessThan(100);
    } finally {
      await ws.dispose();
    }
  });

  it('gives a page 100,000 decoded elements in all: of two logs of 90,301 elements the second is shown undecoded', async () => {
    const twice = await invoke('blastTwice', ['300', '300']);
    expect(twice.status).toBe(201);
    expect(twice.body.status).toBe('success');
    await indexed(twice.body.blockNumber);

    const tx = await held('explorer tx, two logs of 90,301 elements', () =>
      api.get(`/api/explorer/tx/${twice.body.txHash}?network=testnet`),
    );
    const [first, second] = tx.result.body.transaction.logs;
    expect(first.decoded).toMatchObject({ name: 'Blast', signature: 'Blast(uint256[][])' });
    expect(first.decoded.args.data).toHaveLength(300);
    expect(second.decoded ?? null).toBeNull();
    expect(second.data).toBe(first.data);
    expect(tx.maxHoldMs).toBeLessThan(100);

    const path = `/api/devportal/contracts/${hostile.id}/events?event=Blast&fromBlock=${twice.body.blockNumber}`;
    const list = await held('events list, two logs of 90,301 elements', () => api.get(path, { apiKey: key }));
    const [a, b] = list.result.body.items;
    expect(a.decoded).toBeUndefined();
    expect(a.args.data).toHaveLength(300);
    expect(b).toMatchObject({ decoded: false, args: {}, data: first.data });
    expect(list.maxHoldMs).toBeLessThan(100);
  });
});
