/* eslint-disable @typescript-eslint/no-explicit-any -- API responses are asserted field by field */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { client, type Client } from '../kit/http';
import { spawnService, type ServiceProcess } from '../kit/process';
import { createTestDatabase } from '../kit/stack';
import { logLines, rpc, sql, waitFor } from './fault-env';

// The local dev chains as a developer runs them (state kept in DATA_DIR), stopped uncleanly: the
// service is SIGKILLed, and later a chain's state file is deleted. On each restart the explorer's
// index follows the chain again by itself: no halt, the indexed blocks are the chain's blocks.

let db: { url: string; drop(): Promise<void> };
let dataDir: string;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = mkdtempSync(path.join(tmpdir(), 'dev-chain-restart-'));
});

afterAll(async () => {
  if (service && service.proc.exitCode === null) service.proc.kill('SIGKILL');
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A service with local dev chains whose state lives in dataDir (development mode, the test database). */
const start = () =>
  spawnService({ NODE_ENV: 'development', LOG_LEVEL: 'info', DATABASE_URL: db.url, DATA_DIR: dataDir }, 60_000);

async function status(api: Client): Promise<any> {
  const res = await api.get('/api/explorer/network-status?network=testnet');
  expect(res.status).toBe(200);
  return res.body;
}

/** Waits until the testnet index is at the chain's head, unhalted, and holds the chain's own blocks. */
async function expectLiveExplorer(api: Client): Promise<number> {
  const indexed = await waitFor(
    'the testnet index to follow the chain',
    async () => {
      const s = await status(api);
      const { lastIndexedBlock, lagBlocks, haltedReason } = s.indexer;
      expect(haltedReason).toBeNull();
      const head: number | undefined = s.lastBlock?.number;
      return head !== undefined &&
        lastIndexedBlock !== null &&
        lastIndexedBlock <= head &&
        lagBlocks <= 2 &&
        lastIndexedBlock >= 3
        ? (lastIndexedBlock as number)
        : undefined;
    },
    45_000,
  );
  // The index's blocks are the chain's: every stored block's parent is the stored block before it.
  const breaks = await sql(
    db.url,
    `SELECT b.number FROM explorer_blocks b JOIN explorer_blocks p ON p.network = b.network AND p.number = b.number - 1
      WHERE b.network = 'testnet' AND b.parent_hash <> p.hash`,
  );
  expect(breaks).toEqual([]);
  // ... and they are the node's: the indexed block is the one the dev chain serves under that number.
  const started = logLines(service!.output()).filter((line) => line.msg === 'local anvil node started');
  const testnet = started.find((line) => line.chainId === 17991);
  const onChain = await rpc(`http://127.0.0.1:${testnet!.port}`, 'eth_getBlockByNumber', [
    `0x${indexed.toString(16)}`,
    false,
  ]);
  const stored = await sql(db.url, `SELECT hash FROM explorer_blocks WHERE network = 'testnet' AND number = $1`, [
    indexed,
  ]);
  expect(stored[0]?.hash).toBe(onChain.hash.toLowerCase());
  return indexed;
}

describe('local dev chains after unclean stops', () => {
  it('keeps the explorer live after a SIGKILL and after a chain reset', async () => {
    service = await start();
    let api = client(service.url);
    await expectLiveExplorer(api);
    service.proc.kill('SIGKILL');
    await new Promise((resolve) => service!.proc.once('exit', resolve));

    service = await start();
    api = client(service.url);
    await expectLiveExplorer(api);
    expect(JSON.stringify(await api.get('/readyz').then((r) => r.body))).not.toContain('explorerIndexHalted');

    // The chain's saved state is gone: a new chain from a new genesis under the old index.
    await service.stop('SIGTERM').catch(() => undefined);
    rmSync(path.join(dataDir, 'anvil-17991.json'), { force: true });
    service = await start();
    api = client(service.url);
    await expectLiveExplorer(api);
    const warned = await waitFor('the re-index warning', () =>
      logLines(service!.output()).find((line) => /re-indexing/.test(String(line.msg))),
    );
    expect(warned.network).toBe('testnet');
    await service.stop('SIGTERM');
    service = undefined;
  }, 240_000);
});
