// Shared set-up of the benchmarks: a fresh database, two anvil dev chains, the service as its own
// process (so load generator and server do not share an event loop), a logged-in developer.
import 'reflect-metadata';
import { writeFileSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Wallet } from 'ethers';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { startLocalNode, type LocalNode } from '../src/chain/local-node';
import { createLogger } from '../src/kernel/logger';
import { createDevCa, type DevCa } from '../src/modules/accounts/eds/dev-ca';
import { startBesuChain, type BesuChain } from '../tests/kit/besu-node';
import { client, type Client } from '../tests/kit/http';
import { login, type LoggedIn } from '../tests/kit/login';
import { serviceEnv, spawnService, type ServiceProcess } from '../tests/kit/process';
import { createTestDatabase } from '../tests/kit/stack';

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

/**
 * What production start-up demands (docs/api.md, "Operations"), on local dev chains: their URLs, a faucet key of
 * its own (funded here: anvil's well-known keys are refused in production) and strong secrets.
 */
export async function productionEnvOn(
  testnet: Pick<LocalNode, 'url'>,
  mainnet: Pick<LocalNode, 'url'>,
): Promise<Record<string, string>> {
  const faucet = Wallet.createRandom();
  const res = await fetch(testnet.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'anvil_setBalance',
      params: [faucet.address, `0x${(10n ** 24n).toString(16)}`],
    }),
  });
  if (!res.ok) throw new Error(`could not fund the bench faucet: ${res.status}`);
  return {
    NODE_ENV: 'production',
    TESTNET_RPC_URL: testnet.url,
    MAINNET_RPC_URL: mainnet.url,
    FAUCET_PRIVATE_KEY: faucet.privateKey,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    WALLET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  };
}

export async function startBenchStack(env: Record<string, string> = {}): Promise<BenchStack> {
  const logger = createLogger('silent');
  const db = await createTestDatabase();
  const dir = mkdtempSync(path.join(tmpdir(), 'devportal-bench-'));
  const ca = await createDevCa({ commonName: 'Bench CA' });
  writeFileSync(path.join(dir, 'ca.pem'), ca.certificatePem);
  const testnet = await startLocalNode({ chainId: 17991, blockTime: 1, logger });
  const mainnet = await startLocalNode({ chainId: 1991, blockTime: 1, logger });
  const service = await spawnService(
    serviceEnv(
      {
        databaseUrl: db.url,
        testnetUrl: testnet.url,
        mainnetUrl: mainnet.url,
        trustedCaFile: path.join(dir, 'ca.pem'),
      },
      { ...(await productionEnvOn(testnet, mainnet)), LOG_LEVEL: 'warn', ...env },
    ),
  );
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

/** The Besu-faithful fronts' minimum gas price in the benchmarks (2 gwei). */
export const BESU_BENCH_MIN_GAS_PRICE = 2_000_000_000n;

export interface BesuBenchStack {
  url: string;
  api: Client;
  ca: DevCa;
  dev: LoggedIn;
  testnet: BesuChain;
  mainnet: BesuChain;
  service: ServiceProcess;
  stop(): Promise<void>;
}

/**
 * The service as its own process in production mode behind two Besu-faithful fronts (JWT,
 * `--min-gas-price` 2 gwei, 80 sockets, 1-second blocks), with a logged-in developer; `env` is
 * added to the service's environment.
 */
export async function startBesuBenchStack(env: Record<string, string> = {}): Promise<BesuBenchStack> {
  const db = await createTestDatabase();
  const dir = mkdtempSync(path.join(tmpdir(), 'devportal-bench-'));
  const ca = await createDevCa({ commonName: 'Bench CA' });
  writeFileSync(path.join(dir, 'ca.pem'), ca.certificatePem);
  const front = { token: 'bench-jwt', minGasPrice: BESU_BENCH_MIN_GAS_PRICE, maxConnections: 80 };
  const testnet = await startBesuChain(17991, front);
  const mainnet = await startBesuChain(1991, front);
  const headers = JSON.stringify(testnet.front.headers);
  const service = await spawnService(
    serviceEnv(
      {
        databaseUrl: db.url,
        testnetUrl: testnet.front.url,
        mainnetUrl: mainnet.front.url,
        trustedCaFile: path.join(dir, 'ca.pem'),
      },
      {
        // Production start-up: a faucet key of its own (funded on the anvil behind the front), strong secrets.
        ...(await productionEnvOn({ url: testnet.anvilUrl }, { url: mainnet.anvilUrl })),
        TESTNET_RPC_URL: testnet.front.url,
        MAINNET_RPC_URL: mainnet.front.url,
        LOG_LEVEL: 'warn',
        TESTNET_RPC_HEADERS: headers,
        MAINNET_RPC_HEADERS: headers,
        TESTNET_WS_URL: testnet.front.wsUrl,
        MAINNET_WS_URL: mainnet.front.wsUrl,
        TESTNET_GAS_PRICE_WEI: BESU_BENCH_MIN_GAS_PRICE.toString(),
        MAINNET_GAS_PRICE_WEI: BESU_BENCH_MIN_GAS_PRICE.toString(),
        ...env,
      },
    ),
  );
  const stop = async () => {
    await service.stop();
    await testnet.stop();
    await mainnet.stop();
    await db.drop();
  };
  const api = client(service.url);
  const dev = await login(api, ca).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url: service.url, api, ca, dev, testnet, mainnet, service, stop };
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
  opts: {
    url: string;
    body: string;
    headers?: Record<string, string>;
    connections?: number;
    seconds?: number;
    /** A body per request (e.g. distinct arguments each call) instead of `body` every time. */
    bodyFor?: (n: number) => string;
  },
): Promise<LoadResult> {
  let sent = 0;
  const bodyFor = opts.bodyFor;
  const result = await autocannon({
    url: opts.url,
    method: 'POST',
    body: opts.body,
    headers: { 'content-type': 'application/json', ...opts.headers },
    connections: opts.connections ?? 50,
    duration: opts.seconds ?? 10,
    ...(bodyFor ? { requests: [{ setupRequest: (req) => ({ ...req, body: bodyFor(sent++) }) }] } : {}),
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

/** CPU seconds a process has used so far (user and system, all its threads), from /proc (Linux). */
export function processCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0; // the process has ended
  }
}

/**
 * CPU seconds used so far by the machine's PostgreSQL server: its live processes, and the backends
 * that have exited (counted in their parent's children's time once reaped).
 */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith('postgres')) continue;
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
    } catch {
      // gone in the meantime
    }
  }
  return total;
}

/** Machine facts for BENCHMARKS.md. */
export function machine(): string {
  const run = (c: string) => execSync(c).toString().trim();
  return `${run('date -u +%Y-%m-%dT%H:%MZ')}, ${run('nproc')} cores, ${run("free -g | awk '/Mem:/ {print $2}'")} GiB, ${run('uname -sr')}, Node ${process.version}`;
}

export interface LatencyResult {
  name: string;
  requests: number;
  p50: number;
  p99: number;
}

/**
 * Latency with one request at a time over one keep-alive connection (after `warmup` unmeasured
 * ones), in milliseconds with microsecond resolution: what a layer adds to a call, without the
 * queueing a saturating load adds.
 */
export async function sequentialLatency(
  name: string,
  opts: { url: string; body: string; headers?: Record<string, string>; requests?: number; warmup?: number },
): Promise<LatencyResult> {
  const target = new URL(opts.url);
  const pool = new Pool(target.origin, { connections: 1 });
  const requests = opts.requests ?? 2000;
  const times: number[] = [];
  try {
    for (let i = 0; i < (opts.warmup ?? 500) + requests; i++) {
      const started = performance.now();
      const res = await pool.request({
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...opts.headers },
        body: opts.body,
      });
      await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${name}: HTTP ${res.statusCode}`);
      if (i >= (opts.warmup ?? 500)) times.push(performance.now() - started);
    }
  } finally {
    await pool.close();
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 1000) / 1000;
  return { name, requests, p50: at(0.5), p99: at(0.99) };
}
