import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { JsonRpcProvider } from 'ethers';
import { client } from './kit/http';

// These tests run the built service (`npm test` builds first) as a user would: `node dist/src/main.js`.
const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const NODE = process.execPath;

const cleanEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return { ...env, ...extra };
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('configuration errors at start', () => {
  it('prints every problem at once and exits 1', async () => {
    const run = promisify(execFile);
    const err = await run(NODE, [MAIN], {
      env: cleanEnv({ NODE_ENV: 'production', PORT: 'not-a-port', DATABASE_URL: 'mysql://x', JWT_SECRET: 'short' }),
    }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    const stderr = (err as { stderr: string }).stderr;
    expect(stderr).toContain('PORT');
    expect(stderr).toContain('DATABASE_URL');
    expect(stderr).toContain('JWT_SECRET');
    expect(stderr).not.toContain('short');
  });

  it('refuses to start in production without the secrets', async () => {
    const run = promisify(execFile);
    const err = await run(NODE, [MAIN], { env: cleanEnv({ NODE_ENV: 'production' }) }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((err as { code: number }).code).toBe(1);
    for (const name of ['JWT_SECRET', 'WALLET_ENCRYPTION_KEY', 'EDS_TRUSTED_CA_FILE']) {
      expect((err as { stderr: string }).stderr).toMatch(new RegExp(`${name}: required in production`));
    }
  });
});

describe('zero-configuration start', () => {
  let dataDir: string;
  let proc: ChildProcess;
  let output = '';

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'devportal-zero-'));
  });
  afterAll(() => {
    if (proc?.pid && alive(proc.pid)) proc.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts embedded PostgreSQL and both dev chains, serves the API, and stops everything on SIGTERM', async () => {
    // Two HTTP workers (WEB_CONCURRENCY): PostgreSQL and the dev chains are still started, and stopped, once.
    proc = spawn(NODE, [MAIN], {
      env: cleanEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WEB_CONCURRENCY: '2' }),
    });
    proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const lines = () => output.split('\n').flatMap((l) => (l.startsWith('{') ? [JSON.parse(l)] : []));
    const url = await waitFor('service ready', () => lines().find((l) => l.msg === 'service ready')?.url as string);

    const api = client(url);
    const ready = await api.get('/readyz');
    expect(ready.body).toMatchObject({
      ready: true,
      networks: { testnet: { healthy: true, chainId: 17991 }, mainnet: { healthy: true, chainId: 1991 } },
    });
    const nodes = lines().filter((l) => l.msg === 'local anvil node started');
    expect(nodes.map((n) => n.chainId).sort((a, b) => a - b)).toEqual([1991, 17991]);
    for (const n of nodes) {
      const chain = await new JsonRpcProvider(`http://127.0.0.1:${n.port}`).send('eth_chainId', []);
      expect(Number(chain)).toBe(n.chainId);
    }
    expect(existsSync(path.join(dataDir, 'postgres'))).toBe(true);
    expect(lines().filter((l) => l.msg === 'DATABASE_URL unset: started the embedded PostgreSQL')).toHaveLength(1);
    expect(existsSync(path.join(dataDir, 'eds', 'dev-ca.crt.pem'))).toBe(true);

    // The newcomer's first minute: dev:login against the running service, then a protected call.
    const run = promisify(execFile);
    const login = await run(
      NODE,
      [path.join(ROOT, 'dist/scripts/dev-login.js'), '--name', 'Ada Lovelace', '--url', url, '--quiet'],
      {
        env: cleanEnv({ DATA_DIR: dataDir }),
      },
    );
    const token = login.stdout.trim();
    const me = await api.get('/api/devportal/auth/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.displayName).toBe('Ada Lovelace');

    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const n of nodes) await waitFor(`anvil ${n.pid} to exit`, () => (alive(n.pid) ? undefined : true), 5000);
    const stopped = lines()
      .filter((l) => l.msg === 'stopped')
      .map((l) => l.step);
    expect(stopped).toEqual(
      expect.arrayContaining(['HTTP server', 'testnet dev chain', 'mainnet dev chain', 'embedded PostgreSQL']),
    );
    // Each worker stopped its HTTP server; the primary stopped each dependency once.
    expect(stopped.filter((s) => s === 'HTTP server')).toHaveLength(2);
    for (const step of ['testnet dev chain', 'mainnet dev chain', 'embedded PostgreSQL']) {
      expect(stopped.filter((s) => s === step)).toHaveLength(1);
    }
  }, 90_000);
});
