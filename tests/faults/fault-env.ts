/* eslint-disable @typescript-eslint/no-explicit-any -- API responses are asserted field by field */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LOCAL_NODE_FUNDED_KEY, startLocalNode, type LocalNode } from '../../src/chain/local-node';
import { createLogger } from '../../src/kernel/logger';
import { createDevCa, type DevCa } from '../../src/modules/accounts/eds/dev-ca';
import { serviceEnv as serviceEnvOf, spawnService, type ServiceProcess } from '../kit/process';
import { createTestDatabase, sqlRows } from '../kit/stack';

// Fault tests own everything the service depends on (database, chain nodes, processes) so that
// they can stop, kill and restart each piece on its own.

export const silent = createLogger('silent');

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  ms = 20_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One SQL statement on a fresh connection (works while the service's pool is in any state). */
export const sql = <T = any>(databaseUrl: string, text: string, params: unknown[] = []): Promise<T[]> =>
  sqlRows<T>({ databaseUrl }, text, params);

/** A bare JSON-RPC call to a node (anvil's evm_* controls included). */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).catch((err: unknown) => {
    throw new Error(`${method} to ${url} failed: ${String((err as { cause?: unknown }).cause ?? err)}`);
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Stops anvil's block production: transactions wait in the pool until `evm_mine`. */
export async function pauseMining(url: string): Promise<void> {
  await rpc(url, 'evm_setAutomine', [false]);
  await rpc(url, 'evm_setIntervalMining', [0]);
}

export async function resumeMining(url: string, seconds = 1): Promise<void> {
  await rpc(url, 'evm_setIntervalMining', [seconds]);
}

export interface FaultEnv {
  dir: string;
  ca: DevCa;
  databaseUrl: string;
  testnet: LocalNode;
  mainnet: LocalNode;
  /** The testnet node's port, kept across restarts. */
  testnetPort: number;
  /** Environment of a service process on this database and these nodes (secrets as in spawnSibling). */
  serviceEnv(extra?: Record<string, string>): Record<string, string>;
  /** Starts a service process; every process started here is killed by stop(). */
  spawn(extra?: Record<string, string>): Promise<ServiceProcess>;
  stopTestnet(): Promise<void>;
  /** Starts the testnet node again on the same port with the same state file. */
  startTestnet(): Promise<void>;
  stop(): Promise<void>;
}

export interface FaultEnvOptions {
  /** Use this database instead of a fresh one on the machine's PostgreSQL. */
  databaseUrl?: string;
  blockTime?: number;
}

/** A fresh database (unless given), a testnet node with a state file, a mainnet node and a test CA. */
export async function startFaultEnv(opts: FaultEnvOptions = {}): Promise<FaultEnv> {
  const dir = mkdtempSync(path.join(tmpdir(), 'devportal-faults-'));
  const ca = await createDevCa({ commonName: 'Test EDS Root CA' });
  const bundle = path.join(dir, 'trusted-ca.pem');
  writeFileSync(bundle, ca.certificatePem);
  const db = opts.databaseUrl ? undefined : await createTestDatabase();
  const blockTime = opts.blockTime ?? 1;
  const stateDir = path.join(dir, 'chain');
  let testnet = await startLocalNode({ chainId: 17991, blockTime, logger: silent, stateDir });
  const testnetPort = Number(new URL(testnet.url).port);
  const mainnet = await startLocalNode({ chainId: 1991, blockTime, logger: silent });
  const processes = new Set<ServiceProcess>();
  const databaseUrl = opts.databaseUrl ?? db!.url;

  const serviceEnv = (extra: Record<string, string> = {}) =>
    serviceEnvOf(
      {
        databaseUrl,
        testnetUrl: testnet.url,
        mainnetUrl: mainnet.url,
        trustedCaFile: bundle,
        faucetPrivateKey: LOCAL_NODE_FUNDED_KEY,
      },
      extra,
    );

  return {
    dir,
    ca,
    databaseUrl,
    get testnet() {
      return testnet;
    },
    mainnet,
    testnetPort,
    serviceEnv,
    async spawn(extra) {
      const proc = await spawnService(serviceEnv(extra), 45_000);
      processes.add(proc);
      return proc;
    },
    async stopTestnet() {
      await testnet.stop();
    },
    async startTestnet() {
      testnet = await startLocalNode({ chainId: 17991, blockTime, logger: silent, stateDir, port: testnetPort });
    },
    async stop() {
      for (const p of processes) await p.stop('SIGKILL').catch(() => undefined);
      await testnet.stop().catch(() => undefined);
      await mainnet.stop().catch(() => undefined);
      await db?.drop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { deployRegistered, gatewayUser, newKey } from '../kit/flows';

/** Parsed JSON log lines of a service process. */
export function logLines(output: string): Array<Record<string, any>> {
  return output.split('\n').flatMap((l) => {
    if (!l.startsWith('{')) return [];
    try {
      return [JSON.parse(l) as Record<string, any>];
    } catch {
      return [];
    }
  });
}
