/* eslint-disable @typescript-eslint/no-explicit-any -- API responses are asserted field by field */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { Client as PgClient } from 'pg';
import { startApp, type App } from '../src/app';
import { LOCAL_NODE_FUNDED_KEY, startLocalNode, type LocalNode } from '../src/chain/local-node';
import { loadConfig } from '../src/kernel/config';
import { createLogger } from '../src/kernel/logger';
import { createDevCa } from '../src/modules/accounts/eds/dev-ca';
import { client } from './kit/http';
import { createTestDatabase, TEST_JWT_SECRET, TEST_WALLET_KEY } from './kit/stack';

// Several service instances share one database and two dev chains that the test owns, so that it can
// stop and restart a node and the instances.

interface Instance {
  app: App;
  logs: Array<Record<string, any>>;
  api: ReturnType<typeof client>;
}

let dir: string;
let caBundle: string;
let db: { url: string; drop(): Promise<void> };
let pg: PgClient;
let testnetNode: LocalNode;
let mainnetNode: LocalNode;
let testnetPort: number;
let testnet: JsonRpcProvider;
const instances = new Set<Instance>();

const silent = createLogger('silent');

async function startInstance(env: Record<string, string> = {}): Promise<Instance> {
  const logs: Array<Record<string, any>> = [];
  const dataDir = mkdtempSync(path.join(dir, 'instance-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    WALLET_ENCRYPTION_KEY: TEST_WALLET_KEY,
    EDS_TRUSTED_CA_FILE: caBundle,
    TESTNET_RPC_URL: testnetNode.url,
    MAINNET_RPC_URL: mainnetNode.url,
    ...env,
  });
  const logger = createLogger('info', { write: (line: string) => void logs.push(JSON.parse(line)) });
  const app = await startApp(config, logger);
  const instance = { app, logs, api: client(app.url) };
  instances.add(instance);
  return instance;
}

async function stopInstance(i: Instance): Promise<void> {
  instances.delete(i);
  await i.app.close();
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

const state = async (network: string) =>
  (await pg.query(`SELECT last_block, halted_reason FROM explorer_index_state WHERE network = $1`, [network]))
    .rows[0] as { last_block: string; halted_reason: string | null } | undefined;

/** Waits until the network's index has reached `block`. */
const indexedTo = (network: string, block: number) =>
  waitFor(`${network} indexed to ${block}`, async () => {
    const s = await state(network);
    return s && Number(s.last_block) >= block ? Number(s.last_block) : undefined;
  });

/** The index holds blocks 0..last with no gap and every parent link intact. */
async function expectContiguous(network: string): Promise<number> {
  const { rows } = await pg.query(
    `SELECT count(*)::int AS n, max(number)::int AS last,
       (SELECT count(*)::int FROM explorer_blocks a JOIN explorer_blocks b
          ON b.network = a.network AND b.number = a.number + 1
        WHERE a.network = $1 AND b.parent_hash <> a.hash) AS broken
     FROM explorer_blocks WHERE network = $1`,
    [network],
  );
  expect(rows[0].broken).toBe(0);
  expect(rows[0].n).toBe(rows[0].last + 1);
  return rows[0].last;
}

const leaders = (network: 'testnet' | 'mainnet') =>
  [...instances].filter((i) => i.app.services.explorer.runtime.isIndexing(network));

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'explorer-resilience-'));
  const ca = await createDevCa({ commonName: 'Test EDS Root CA' });
  caBundle = path.join(dir, 'ca.pem');
  writeFileSync(caBundle, ca.certificatePem);
  db = await createTestDatabase();
  testnetNode = await startLocalNode({
    chainId: 17991,
    blockTime: 1,
    logger: silent,
    stateDir: path.join(dir, 'chain'),
  });
  testnetPort = Number(new URL(testnetNode.url).port);
  mainnetNode = await startLocalNode({ chainId: 1991, blockTime: 1, logger: silent });
  testnet = new JsonRpcProvider(testnetNode.url, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
    pollingInterval: 100,
  });
  pg = new PgClient({ connectionString: db.url });
}, 60_000);

afterAll(async () => {
  for (const i of [...instances]) await stopInstance(i).catch(() => undefined);
  testnet?.destroy();
  await pg?.end().catch(() => undefined);
  await testnetNode?.stop();
  await mainnetNode?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('several instances on one database', () => {
  it('lets exactly one instance index each network, hands over when it stops, and serves from others', async () => {
    const x = await startInstance();
    const y = await startInstance();
    const reader = await startInstance({ INDEXER_ENABLED: 'false' });
    await pg.connect();
    expect(reader.app.services.explorer.runtime.indexerNetworks()).toEqual([]);

    for (const network of ['testnet', 'mainnet'] as const) {
      await waitFor(`one ${network} leader`, () => (leaders(network).length === 1 ? true : undefined));
    }
    const locks = await pg.query(
      `SELECT count(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND classid = 7991002 AND granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(locks.rows[0].n).toBe(2);

    // The serving-only instance reads the index the leader keeps up to date.
    const sender = new Wallet(LOCAL_NODE_FUNDED_KEY, testnet);
    const sent = await sender.sendTransaction({ to: Wallet.createRandom().address, value: 1n });
    const receipt = (await testnet.waitForTransaction(sent.hash))!;
    await indexedTo('testnet', receipt.blockNumber);
    const activity = await reader.api.get(`/api/explorer/address/${sender.address}?network=testnet`);
    expect(activity.body.activityKind).toBe('indexed');
    expect(activity.body.activity[0].txHash).toBe(receipt.hash);

    const leader = leaders('testnet')[0]!;
    const other = leader === x ? y : x;
    const before = Number((await state('testnet'))!.last_block);
    await stopInstance(leader);
    await waitFor(
      'takeover',
      () => (other.app.services.explorer.runtime.isIndexing('testnet') ? true : undefined),
      10_000,
    );
    await indexedTo('testnet', before + 2);
    expect(leaders('testnet')).toEqual([other]);
    await expectContiguous('testnet');
  }, 60_000);

  it('hands over when the holder dies (its session ends): one new holder, the index stays whole', async () => {
    await startInstance(); // a standby, so that there is someone to take over
    const lockHolders = `
      SELECT pid FROM pg_locks
      WHERE locktype = 'advisory' AND classid = 7991002 AND objid = 17991 AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
    const before = Number((await state('testnet'))!.last_block);
    const [{ pid }] = (await pg.query(lockHolders)).rows;
    // What a crash looks like to PostgreSQL: the session ends, and its advisory locks with it.
    await pg.query('SELECT pg_terminate_backend($1)', [pid]);
    await indexedTo('testnet', before + 3);
    const holders = (await pg.query(lockHolders)).rows;
    expect(holders).toHaveLength(1);
    expect(holders[0].pid).not.toBe(pid);
    await waitFor('one instance believing it indexes', () => (leaders('testnet').length === 1 ? true : undefined));
    await expectContiguous('testnet');
  }, 30_000);
});

describe('INDEXER_START_BLOCK', () => {
  it('starts a new index at the configured block', async () => {
    const other = await createTestDatabase();
    const head = await testnet.getBlockNumber();
    const start = Math.max(1, head - 3);
    const instance = await startInstance({ DATABASE_URL: other.url, INDEXER_START_BLOCK: String(start) });
    const pg2 = new PgClient({ connectionString: other.url });
    await pg2.connect();
    try {
      const row = await waitFor('index started', async () => {
        const r = (
          await pg2.query(`SELECT first_block, last_block FROM explorer_index_state WHERE network = 'testnet'`)
        ).rows[0];
        return r && Number(r.last_block) >= head ? r : undefined;
      });
      expect(Number(row.first_block)).toBe(start);
      const blocks = await pg2.query(`SELECT min(number)::int AS min FROM explorer_blocks WHERE network = 'testnet'`);
      expect(blocks.rows[0].min).toBe(start);
    } finally {
      await pg2.end();
      await stopInstance(instance);
      await other.drop();
    }
  }, 30_000);
});

describe('restarts', () => {
  it('resumes from the stored progress after a restart, without gaps', async () => {
    for (const i of [...instances]) await stopInstance(i);
    const stoppedAt = Number((await state('testnet'))!.last_block);
    await testnet.send('anvil_mine', ['0x1e', '0x1']); // 30 blocks while no instance runs
    const head = await testnet.getBlockNumber();
    const fresh = await startInstance();
    await indexedTo('testnet', head);
    const resumed = fresh.logs.find((l) => l.network === 'testnet' && /resuming/.test(l.msg));
    expect(resumed?.lastIndexedBlock).toBe(stoppedAt);
    await expectContiguous('testnet');
  }, 30_000);
});

describe('node outage', () => {
  it('degrades network-status while the node is down, then recovers; indexer and live blocks lose nothing', async () => {
    const instance = [...instances][0]!;
    const explorer = instance.app.services.explorer;
    const feed = explorer.blocks.subscribeLiveBlocks('testnet' as any)[Symbol.asyncIterator]();
    const received: any[] = [];
    const reading = (async () => {
      for (;;) {
        const next = await feed.next();
        if (next.done) return;
        received.push(next.value);
      }
    })();
    await waitFor('a live block', () => (received.length > 0 ? true : undefined));
    const lastSeen = received[received.length - 1].number;

    await testnetNode.stop();
    const down = await waitFor('degraded status', async () => {
      const res = await instance.api.get('/api/explorer/network-status?network=testnet');
      return res.body.rpc.healthy === false ? res : undefined;
    });
    expect(down.status).toBe(200);
    expect(down.body.rpc).toEqual({ healthy: false, latencyMs: null, error: expect.any(String) });
    expect(down.body.lastBlock.number).toBeGreaterThanOrEqual(lastSeen);
    expect(down.body.validators.length).toBeGreaterThan(0);
    expect(JSON.stringify(down.body)).not.toContain(String(testnetPort));
    const mainnet = await instance.api.get('/api/explorer/network-status?network=mainnet');
    expect(mainnet.body.rpc.healthy).toBe(true);
    // Reads the index can answer still work; reads that need the node say so.
    expect((await instance.api.get(`/api/explorer/block/${lastSeen - 1}?network=testnet`)).body.found).toBe(true);
    const live = await instance.api.get('/api/explorer/live-blocks?network=testnet&limit=3');
    expect(live.status).toBe(200);
    const address = await instance.api.get(
      `/api/explorer/address/${new Wallet(LOCAL_NODE_FUNDED_KEY).address}?network=testnet`,
    );
    expect(address.status).toBe(502);
    expect(address.body.error.code).toBe('UPSTREAM_RPC_ERROR');
    expect(JSON.stringify(address.body)).not.toContain(String(testnetPort));

    testnetNode = await startLocalNode({
      chainId: 17991,
      blockTime: 1,
      logger: silent,
      stateDir: path.join(dir, 'chain'),
      port: testnetPort,
    });
    // A burst faster than the watcher polls: every block must still reach subscribers, in order.
    await testnet.send('anvil_mine', ['0x8', '0x1']);
    const head = await testnet.getBlockNumber();
    await waitFor('recovered status', async () => {
      const res = await instance.api.get('/api/explorer/network-status?network=testnet');
      return res.body.rpc.healthy ? true : undefined;
    });
    await indexedTo('testnet', head);
    await waitFor('live blocks up to the head', () => (received.at(-1)?.number >= head ? true : undefined));
    await feed.return!();
    await reading;
    const numbers = received.map((b) => b.number);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0] + i));
    for (let i = 1; i < received.length; i++) expect(received[i].parentHash).toBe(received[i - 1].hash);
    await expectContiguous('testnet');
  }, 60_000);
});

describe('parent hash check', () => {
  it('stops indexing the network loudly when the node serves a block whose parent is not the indexed one', async () => {
    const instance = [...instances][0]!;
    const snapshot = await testnet.send('evm_snapshot', []);
    const forkPoint = await testnet.getBlockNumber();
    await testnet.send('anvil_mine', ['0x3', '0x1']);
    const indexed = await indexedTo('testnet', forkPoint + 3);
    // Rewrite the chain under the indexed blocks (impossible on QBFT; a misconfigured node could do it).
    await testnet.send('evm_revert', [snapshot]);
    await testnet.send('anvil_mine', [`0x${(indexed - forkPoint + 3).toString(16)}`, '0x2']);

    const halted = await waitFor('halt', async () => (await state('testnet'))?.halted_reason ?? undefined);
    expect(halted).toMatch(/parent hash/);
    const line = instance.logs.find((l) => l.level === 50 && /EXPLORER INDEXER STOPPED for testnet/.test(l.msg));
    expect(line).toMatchObject({ network: 'testnet', block: expect.any(Number) });
    const lastBlock = Number((await state('testnet'))!.last_block);
    await new Promise((res) => setTimeout(res, 2_500));
    expect(Number((await state('testnet'))!.last_block)).toBe(lastBlock);
    // Mainnet keeps indexing; the explorer keeps answering.
    const status = await instance.api.get('/api/explorer/network-status?network=testnet');
    expect(status.status).toBe(200);
    expect(status.body.indexer.lastIndexedBlock).toBe(lastBlock);
    // Both say so: network-status and /readyz name the halt (the service still serves).
    expect(status.body.indexer.haltedReason).toMatch(/parent hash/);
    const ready = await instance.api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.networks.testnet.explorerIndexHalted).toMatch(/parent hash/);
    expect(ready.body.networks.mainnet.explorerIndexHalted).toBeUndefined();
  }, 30_000);
});
