import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TEST_JWT_SECRET, TEST_WALLET_KEY, type Stack } from './stack';

/** The built service (`npm test` builds first). */
export const MAIN = path.resolve(__dirname, '../../dist/src/main.js');

export interface ServiceProcess {
  url: string;
  proc: ChildProcess;
  /** Everything the process printed. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built service as its own process with `env`, and waits until it is ready. */
export async function spawnService(env: Record<string, string>, timeoutMs = 30_000): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'devportal-proc-'));
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...env },
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), timeoutMs);
    const poll = setInterval(() => {
      const line = out.split('\n').find((l) => l.includes('"service ready"'));
      if (line) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(JSON.parse(line).url as string);
      }
    }, 50);
    void exited.then(() => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`service exited:\n${out}`));
    });
  });
  return {
    url,
    proc,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const code = await exited;
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

/** A second instance of a test stack's service: same database, same chains, same secrets. */
export function spawnSibling(stack: Stack, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return spawnService({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: stack.databaseUrl,
    TESTNET_RPC_URL: stack.app.rpcUrls.testnet!,
    MAINNET_RPC_URL: stack.app.rpcUrls.mainnet!,
    JWT_SECRET: TEST_JWT_SECRET,
    WALLET_ENCRYPTION_KEY: TEST_WALLET_KEY,
    EDS_TRUSTED_CA_FILE: path.join(stack.dataDir, 'trusted-ca.pem'),
    ...env,
  });
}
