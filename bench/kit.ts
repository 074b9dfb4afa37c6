// Shared set-up of the benchmarks: a fresh database, two anvil dev chains, the service as its own
// process (so load generator and server do not share an event loop), a logged-in developer.
import 'reflect-metadata';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execSync } from 'node:child_process';
import autocannon from 'autocannon';
import { startLocalNode, type LocalNode } from '../src/chain/local-node';
import { createLogger } from '../src/logger';
import { createDevCa, type DevCa } from '../src/modules/accounts/eds/dev-ca';
import { client, type Client } from '../tests/kit/http';
import { login, type LoggedIn } from '../tests/kit/login';
import { spawnService, type ServiceProcess } from '../tests/kit/process';
import { createTestDatabase, TEST_JWT_SECRET, TEST_WALLET_KEY } from '../tests/kit/stack';

export interface BenchStack {
  url: string;
  api: Client;
  ca: DevCa;
  dev: LoggedIn;
  nodes: { testnet: LocalNode; mainnet: LocalNode };
  service: ServiceProcess;
  databaseUrl: string;
  stop(): Promise<void>;
}

export async function startBenchStack(env: Record<string, string> = {}): Promise<BenchStack> {
  const logger = createLogger('silent');
  const db = await createTestDatabase();
  const dir = mkdtempSync(path.join(tmpdir(), 'devportal-bench-'));
  const ca = await createDevCa({ commonName: 'Bench CA' });
  writeFileSync(path.join(dir, 'ca.pem'), ca.certificatePem);
  const testnet = await startLocalNode({ chainId: 17991, blockTime: 1, logger });
  const mainnet = await startLocalNode({ chainId: 1991, blockTime: 1, logger });
  const service = await spawnService({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: db.url,
    TESTNET_RPC_URL: testnet.url,
    MAINNET_RPC_URL: mainnet.url,
    JWT_SECRET: TEST_JWT_SECRET,
    WALLET_ENCRYPTION_KEY: TEST_WALLET_KEY,
    EDS_TRUSTED_CA_FILE: path.join(dir, 'ca.pem'),
    FAUCET_PRIVATE_KEY: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    ...env,
  });
  const api = client(service.url);
  const dev = await login(api, ca);
  return {
    url: service.url,
    api,
    ca,
    dev,
    nodes: { testnet, mainnet },
    service,
    databaseUrl: db.url,
    async stop() {
      await service.stop();
      await testnet.stop();
      await mainnet.stop();
      await db.drop();
    },
  };
}

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** One autocannon run: `connections` concurrent clients for `seconds`. */
export async function load(
  name: string,
  opts: { url: string; body: string; headers?: Record<string, string>; connections?: number; seconds?: number },
): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: 'POST',
    body: opts.body,
    headers: { 'content-type': 'application/json', ...opts.headers },
    connections: opts.connections ?? 50,
    duration: opts.seconds ?? 10,
  });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** Machine facts for BENCHMARKS.md. */
export function machine(): string {
  const run = (c: string) => execSync(c).toString().trim();
  return `${run('date -u +%Y-%m-%dT%H:%MZ')}, ${run('nproc')} cores, ${run("free -g | awk '/Mem:/ {print $2}'")} GiB, ${run('uname -sr')}, Node ${process.version}`;
}
