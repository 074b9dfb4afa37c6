/**
 * The gateway's block-scoped read cache against a real anvil. The service reaches the node through
 * a TEST DOUBLE in this file: a JSON-RPC proxy that only counts the eth_calls it forwards (and the
 * block each names) and passes every request and answer through unchanged; on command it answers
 * 503 instead, as a node that is down.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import { LOCAL_NODE_FUNDED_KEY, startLocalNode, type LocalNode } from '../src/chain/local-node';
import { CHAIN_IDS } from '../src/kernel/network';
import { createLogger } from '../src/kernel/logger';
import { ANVIL_KEYS } from './kit/chain';
import { burstsUntilLimited, deployRegistered, newKey } from './kit/flows';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { COUNTER_SOURCE, TOKEN_SOURCE } from './kit/solidity';
import { sqlRows, startStack, type Stack } from './kit/stack';

interface CountingProxy {
  url: string;
  /** Block tags of the eth_calls forwarded, in order. */
  calls: string[];
  /** When true, every request is answered 503 without reaching the node. */
  down: boolean;
  close(): Promise<void>;
}

async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const proxy: Omit<CountingProxy, 'url' | 'close'> = { calls: [], down: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (proxy.down) {
        res.writeHead(503).end();
        return;
      }
      const parsed = JSON.parse(body) as
        { id: unknown; method: string; params?: unknown[] } | Array<{ method: string; params?: unknown[] }>;
      for (const p of Array.isArray(parsed) ? parsed : [parsed]) {
        if (p.method === 'eth_call') proxy.calls.push(String(p.params?.[1]));
      }
      fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()))
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

let node: LocalNode;
let proxy: CountingProxy;
let stack: Stack;
let api: Client;
let dev: LoggedIn;
let token: { id: string; address: string };
let counter: { id: string; address: string; abi: unknown[] };
let key: string;
let chain: JsonRpcProvider;

const rpc = (method: string, params: unknown[] = []) => chain.send(method, params);
const head = async () => Number(await rpc('eth_blockNumber'));
const query = (contractId: string, method: string, args: unknown[] = [], apiKey = key) =>
  api.post(`/api/devportal/contracts/${contractId}/query/${method}`, { args }, { apiKey });
const blockOf = (res: { headers: Headers }) => {
  const value = res.headers.get('x-block-number');
  return value === null ? null : Number(value);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Queries until the answer names a block at least `atLeast` (the watcher has seen it). */
async function queryAtBlock(atLeast: number, contractId: string, method: string, args: unknown[] = []) {
  for (let i = 0; i < 100; i++) {
    const res = await query(contractId, method, args);
    const block = blockOf(res);
    if (res.status === 201 && block !== null && block >= atLeast) return res;
    await sleep(50);
  }
  throw new Error(`no answer at block ${atLeast} within 5 s`);
}

beforeAll(async () => {
  node = await startLocalNode({ chainId: CHAIN_IDS.testnet, blockTime: 1, logger: createLogger('silent') });
  chain = new JsonRpcProvider(node.url, undefined, { cacheTimeout: -1, pollingInterval: 100 });
  proxy = await startCountingProxy(node.url);
  stack = await startStack({ TESTNET_RPC_URL: proxy.url, FAUCET_PRIVATE_KEY: LOCAL_NODE_FUNDED_KEY }, false);
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
  counter = await deployRegistered(api, dev, COUNTER_SOURCE);
  key = (await newKey(api, dev)).apiKey;
  // From here on the tests make every block themselves.
  await rpc('evm_setIntervalMining', [0]);
  await rpc('evm_setAutomine', [false]);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await proxy?.close();
  chain?.destroy();
  await node?.stop();
});

describe('gateway read cache', () => {
  it('answers a burst of identical queries with one eth_call at the known head, and repeats with none', async () => {
    const current = await head();
    await queryAtBlock(current, token.id, 'totalSupply');
    const holder = Wallet.createRandom().address;
    const before = proxy.calls.length;
    const burst = await Promise.all(Array.from({ length: 50 }, () => query(token.id, 'balanceOf', [holder])));
    for (const res of burst) {
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ result: '0' });
      expect(blockOf(res)).toBe(current);
    }
    expect(proxy.calls.slice(before)).toEqual([`0x${current.toString(16)}`]);
    for (let i = 0; i < 10; i++) expect(blockOf(await query(token.id, 'balanceOf', [holder]))).toBe(current);
    expect(proxy.calls.length).toBe(before + 1);

    // The next block ends the answer: one more call, at that block.
    await rpc('evm_mine');
    await queryAtBlock(current + 1, token.id, 'balanceOf', [holder]);
    expect(proxy.calls.slice(before + 1)).toEqual([`0x${(current + 1).toString(16)}`]);

    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1]);
    expect(value('gateway_read_cache_hits_total')).toBeGreaterThanOrEqual(10);
    expect(value('gateway_read_cache_coalesced_total') + value('gateway_read_cache_hits_total')).toBeGreaterThanOrEqual(
      59,
    );
    expect(value('gateway_read_cache_misses_total')).toBeGreaterThanOrEqual(2);
  });

  it('serves the background work’s state and every node’s exchanges on /metrics', async () => {
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    const lag = /^explorer_index_lag_blocks\{network="testnet"\} (\d+)$/m.exec(metrics);
    expect(Number(lag?.[1])).toBeLessThan(5);
    expect(metrics).toMatch(/^webhook_deliveries_pending 0$/m);
    expect(metrics).toMatch(/^webhook_oldest_pending_seconds 0$/m);
    expect(metrics).toMatch(/^compile_queue_depth\{lane="anonymous"\} 0$/m);
    const exchanges = /^rpc_node_request_duration_seconds_count\{network="testnet",host="[^"]+"\} (\d+)$/m.exec(
      metrics,
    );
    expect(Number(exchanges?.[1])).toBeGreaterThan(0);
    expect(metrics).not.toMatch(/https?:\/\//);
  });

  it('shows an invoke’s change to the next query after its block, never before', async () => {
    const start = await head();
    const first = await queryAtBlock(start, counter.id, 'count');
    const old = first.body.result as string;
    const pending = api.post(`/api/devportal/contracts/${counter.id}/invoke/increment`, {}, { apiKey: key });
    // The transaction waits in the pool: no block has it yet, so queries still answer the old value.
    for (let i = 0; i < 100 && Number((await rpc('txpool_status')).pending) === 0; i++) await sleep(50);
    expect(Number((await rpc('txpool_status')).pending)).toBeGreaterThan(0);
    const before = await query(counter.id, 'count');
    expect(before.body).toEqual({ result: old });
    expect(blockOf(before)).toBe(start);

    await rpc('evm_mine');
    // Answered once its block exists; should it not be, say what the node still holds instead of hanging.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void rpc('txpool_content').then(
          (pool) =>
            reject(
              new Error(`the invoke was not answered 20 s after block ${start + 1}; pool: ${JSON.stringify(pool)}`),
            ),
          reject,
        );
      }, 20_000);
    });
    const invoked = await Promise.race([pending, late]).finally(() => clearTimeout(timer));
    expect(invoked.status).toBe(201);
    expect(invoked.body).toMatchObject({ status: 'success', blockNumber: start + 1 });
    // At once, whether or not the watcher has seen the block yet.
    const after = await query(counter.id, 'count');
    expect(after.body).toEqual({ result: String(BigInt(old) + 1n) });
    expect(blockOf(after)).toBeGreaterThanOrEqual(start + 1);
  });

  it('shows a change made elsewhere within one poll of the block, and never an old block after a newer one', async () => {
    const start = await head();
    const old = (await queryAtBlock(start, counter.id, 'count')).body.result as string;
    const outsider = new Wallet(ANVIL_KEYS[2]!, chain);
    const c = new Contract(counter.address, counter.abi as never[], outsider);
    const tx = await c.getFunction('increment')();
    await rpc('evm_mine');
    const mined = await tx.wait();
    expect(mined!.blockNumber).toBe(start + 1);
    const minedAt = Date.now();
    let seenAt: number | null = null;
    let lastBlock = start;
    while (Date.now() - minedAt < 3_000) {
      const res = await query(counter.id, 'count');
      const block = blockOf(res)!;
      // Every answer is the value at the block it names; blocks never go back.
      expect(res.body.result).toBe(block > start ? String(BigInt(old) + 1n) : old);
      expect(block).toBeGreaterThanOrEqual(lastBlock);
      lastBlock = block;
      if (block > start) {
        seenAt ??= Date.now();
        break;
      }
      await sleep(20);
    }
    expect(seenAt).not.toBeNull();
    // The watcher polls every 250 ms while the gateway reads; a loaded machine gets some slack.
    expect(seenAt! - minedAt).toBeLessThan(1_500);
  });

  it('says the block in x-block-number on the direct and express paths alike, and in GraphQL', async () => {
    const current = await head();
    await queryAtBlock(current, token.id, 'totalSupply');
    const path = `/api/devportal/contracts/${token.id}/query/totalSupply`;
    const send = (url: string, body: string | Uint8Array<ArrayBuffer>, extra: Record<string, string> = {}) =>
      fetch(`${stack.url}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, ...extra },
        body,
      }).then(async (res) => ({
        status: res.status,
        block: res.headers.get('x-block-number'),
        body: await res.json(),
      }));
    const body = JSON.stringify({ args: [] });
    const answers = await Promise.all([
      send(path, body),
      send(`${path}/`, body),
      send(path, new Uint8Array(gzipSync(body)), { 'content-encoding': 'gzip' }),
    ]);
    for (const a of answers) expect(a).toEqual({ status: 201, block: String(current), body: { result: '1000000' } });

    const gql = await api.graphql(
      `mutation { queryContract(id: "${token.id}", method: "totalSupply") { result blockNumber } }`,
      undefined,
      { apiKey: key },
    );
    expect(gql.body).toEqual({ data: { queryContract: { result: '1000000', blockNumber: current } } });
    // Existing selections are answered as before.
    const plain = await api.graphql(
      `mutation { queryContract(id: "${token.id}", method: "totalSupply") { result } }`,
      undefined,
      {
        apiKey: key,
      },
    );
    expect(plain.body).toEqual({ data: { queryContract: { result: '1000000' } } });

    // A refused query names no block.
    const refused = await query(token.id, 'balanceOf', ['0x1234']);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('x-block-number')).toBeNull();
  });

  it('checks the key on every call: a cached answer is not served to a revoked key', async () => {
    const k = await newKey(api, dev);
    const current = await head();
    const ok = await queryAtBlock(current, token.id, 'totalSupply');
    expect((await query(token.id, 'totalSupply', [], k.apiKey)).status).toBe(201);
    expect((await api.del(`/api/devportal/api-keys/${k.id}`, { token: dev.token })).status).toBe(200);
    const refused = await query(token.id, 'totalSupply', [], k.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('INVALID_API_KEY');
    expect(refused.headers.get('x-block-number')).toBeNull();
    expect(blockOf(ok)).toBe(current);
  });

  it('records every answered query for analytics, from the cache or not', async () => {
    const k = await newKey(api, dev);
    const current = await head();
    await queryAtBlock(current, token.id, 'totalSupply');
    const burst = await Promise.all(Array.from({ length: 30 }, () => query(token.id, 'totalSupply', [], k.apiKey)));
    for (const res of burst) expect(blockOf(res)).toBe(current);
    let recorded = 0;
    for (let i = 0; i < 40 && recorded < 30; i++) {
      await sleep(100);
      const [row] = await sqlRows<{ n: string }>(
        stack,
        "SELECT count(*) AS n FROM gateway_calls WHERE api_key_id = $1 AND kind = 'query' AND http_status = 201",
        [k.id],
      );
      recorded = Number(row!.n);
    }
    expect(recorded).toBe(30);
  });

  it('holds a key to its rate limit on cached answers too', async () => {
    const k = await newKey(api, dev);
    const current = await head();
    await queryAtBlock(current, token.id, 'totalSupply');
    // API_KEY_RATE_LIMIT is 100 per second here: bursts of 250 until one is limited. At most 100
    // per second touched pass, cached or not; a burst answered within a second must have had one refused.
    const {
      results: burst,
      fastBurst,
      windows,
    } = await burstsUntilLimited(() => query(token.id, 'totalSupply', [], k.apiKey));
    const limited = burst.filter((r) => r.status === 429);
    expect(burst.filter((r) => r.status === 201).length).toBeLessThanOrEqual(100 * windows);
    if (fastBurst) expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) {
      expect(r.body.error.code).toBe('RATE_LIMITED');
      expect(r.headers.get('retry-after')).not.toBeNull();
      expect(r.headers.get('x-block-number')).toBeNull();
    }
    for (const r of burst.filter((x) => x.status !== 429)) {
      expect(r.status).toBe(201);
      // On a machine loaded enough that the watcher's head goes unconfirmed for 2 s, a read goes to
      // `latest` uncached and carries no header (docs/api.md, "Head unknown"); never an older block.
      const block = blockOf(r);
      if (block !== null) expect(block).toBeGreaterThanOrEqual(current);
    }
  });

  it('lets a browser on another origin read x-block-number', async () => {
    const browserQuery = () =>
      fetch(`${stack.url}/api/devportal/contracts/${token.id}/query/totalSupply`, {
        method: 'POST',
        headers: { origin: 'https://app.example.org', 'content-type': 'application/json', 'x-api-key': key },
        body: '{}',
      });
    // After the previous test's floods a loaded machine may leave the head unconfirmed for 2 s
    // (then a read carries no header, as documented): ask until the head is known again.
    let res = await browserQuery();
    for (let i = 0; i < 50 && res.headers.get('x-block-number') === null; i++) {
      await sleep(100);
      res = await browserQuery();
    }
    expect(res.status).toBe(201);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/X-Block-Number/);
    expect(res.headers.get('x-block-number')).toMatch(/^\d+$/);
  });

  it('documents x-block-number in the REST OpenAPI document, outside the body', async () => {
    const doc = (await api.get('/api/devportal/openapi.json')).body;
    const created = doc.paths['/api/devportal/contracts/{id}/query/{method}'].post.responses['201'];
    expect(created.headers['x-block-number'].schema).toEqual({ type: 'integer', minimum: 0 });
    const ref: string = created.content['application/json'].schema.$ref;
    const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')];
    expect(Object.keys(schema.properties)).toEqual(['result']);
  });

  it('never keeps a node failure: the same query answers once the node is back, and no stale head is used', async () => {
    const holder = Wallet.createRandom().address;
    proxy.down = true;
    try {
      const failed = await query(token.id, 'balanceOf', [holder]);
      expect(failed.status).toBe(502);
      expect(failed.body.error.code).toBe('UPSTREAM_RPC_ERROR');
      // Identical reads at once share the failure: each gets it, none hangs.
      const burst = await Promise.all(Array.from({ length: 10 }, () => query(token.id, 'balanceOf', [holder])));
      for (const res of burst) expect(res.body.error.code).toBe('UPSTREAM_RPC_ERROR');
      // Once the head is stale, reads are not pinned to it.
      await sleep(2_500);
    } finally {
      proxy.down = false;
    }
    const before = proxy.calls.length;
    const res = await query(token.id, 'balanceOf', [holder]);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ result: '0' });
    // The head was stale (the watcher could not poll): a plain latest call, no block named.
    if (blockOf(res) === null) expect(proxy.calls.slice(before)).toEqual(['latest']);
    const current = await head();
    expect(blockOf(await queryAtBlock(current, token.id, 'balanceOf', [holder]))).toBe(current);
  });
});
