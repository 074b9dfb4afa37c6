import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/kernel/ports';
import { TEST_COMPILE_CACHE_DIR, TEST_JWT_SECRET, TEST_WALLET_KEY, type Stack } from './stack';

export { freePort };

/** Project root, whether this file runs from tests/kit (jest) or dist/tests/kit (benchmarks). */
const ROOT = path.resolve(__dirname, __dirname.split(path.sep).includes('dist') ? '../../..' : '../..');
/** The built service (`npm test` builds first). */
export const MAIN = path.join(ROOT, 'dist/src/main.js');

export interface ServiceProcess {
  url: string;
  proc: ChildProcess;
  /** Everything the process printed. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Keeps the last part of a process's output (enough to explain a failure, bounded in memory). */
const OUTPUT_KEPT = 256 * 1024;

/**
 * Starts the built service as its own process with `env`, and waits until /readyz answers 200. A
 * start that fails because its port was taken in the meantime is tried again on another port.
 * `onSpawn` is handed the process as soon as it exists (a test that kills it while it starts).
 */
export async function spawnService(
  env: Record<string, string>,
  timeoutMs = 30_000,
  onSpawn?: (proc: ChildProcess) => void,
): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnServiceOnce(env, timeoutMs, onSpawn);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof PortTaken)) throw e;
    }
  }
}

/** The service exited at start-up because another process took its port first. */
class PortTaken extends Error {}

async function spawnServiceOnce(
  env: Record<string, string>,
  timeoutMs: number,
  onSpawn: ((proc: ChildProcess) => void) | undefined,
): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'devportal-proc-'));
  const port = await freePort();
  const proc = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      COMPILE_CACHE_DIR: TEST_COMPILE_CACHE_DIR,
      // One process unless a test asks for workers (WEB_CONCURRENCY's default is the number of cores).
      WEB_CONCURRENCY: '1',
      // Node's on-disk code cache (jest.config.js): every service process after the first compiles less.
      ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
      ...env,
      PORT: String(port),
    },
  });
  onSpawn?.(proc);
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > OUTPUT_KEPT * 2) out = out.slice(-OUTPUT_KEPT);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  // 'exit' may come before the last of the output is read: stop() waits for both pipes to close too
  // (at most 2 s, should a process the service started still hold them).
  const outputRead = Promise.all(
    [proc.stdout!, proc.stderr!].map((stream) => new Promise<void>((resolve) => stream.once('close', resolve))),
  );
  const outputDrained = () => Promise.race([outputRead, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) {
      await outputDrained();
      rmSync(dataDir, { recursive: true, force: true });
      if (/"msg":"start-up failed"/.test(out) && out.includes(`EADDRINUSE: address already in use 127.0.0.1:${port}`)) {
        throw new PortTaken(`port ${port} was taken:\n${out}`);
      }
      throw new Error(`service exited:\n${out}`);
    }
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > until) {
      proc.kill('SIGKILL');
      throw new Error(`service did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    proc,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const code = await exited;
      await outputDrained();
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

/** A second instance of a test stack's service: same database, same chains, same secrets. */
export interface ServiceTarget {
  databaseUrl: string;
  testnetUrl: string;
  mainnetUrl: string;
  /** EDS trust bundle; the development CA when absent. */
  trustedCaFile?: string;
  faucetPrivateKey?: string;
}

/** Environment of a service process on one database and pair of chains, with the test secrets. */
export function serviceEnv(target: ServiceTarget, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: target.databaseUrl,
    TESTNET_RPC_URL: target.testnetUrl,
    MAINNET_RPC_URL: target.mainnetUrl,
    JWT_SECRET: TEST_JWT_SECRET,
    WALLET_ENCRYPTION_KEY: TEST_WALLET_KEY,
    // Suites burst requests from 127.0.0.1; the limit tests set low values explicitly.
    PUBLIC_RATE_LIMIT: '100000',
    LOGIN_RATE_LIMIT: '100000',
    DEVELOPER_RATE_LIMIT: '100000',
    WS_CONNECTIONS_PER_IP: '10000',
    // Parallel test workers share one PostgreSQL (max_connections 100), as test stacks do.
    DATABASE_POOL_SIZE: '8',
    ...(target.trustedCaFile ? { EDS_TRUSTED_CA_FILE: target.trustedCaFile } : {}),
    ...(target.faucetPrivateKey ? { FAUCET_PRIVATE_KEY: target.faucetPrivateKey } : {}),
    ...extra,
  };
}

export function spawnSibling(stack: Stack, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return spawnService(
    serviceEnv(
      {
        databaseUrl: stack.databaseUrl,
        testnetUrl: stack.app.rpcUrls.testnet!,
        mainnetUrl: stack.app.rpcUrls.mainnet!,
        trustedCaFile: path.join(stack.dataDir, 'trusted-ca.pem'),
        // The same faucet account as the in-process service (a funded dev-chain key when it started the chains).
        faucetPrivateKey: stack.app.faucetPrivateKey,
      },
      { ...stack.rpcEnv, ...env },
    ),
  );
}
