import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { startApp, type App } from '../../src/app';
import { createDataSource, runMigrations } from '../../src/database/data-source';
import { loadConfig } from '../../src/kernel/config';
import { createLogger } from '../../src/kernel/logger';
import { createDevCa, type DevCa } from '../../src/modules/accounts/eds/dev-ca';
import { LOCAL_NODE_FUNDED_KEY } from '../../src/chain/local-node';
import { CHAIN_IDS, NETWORKS, type Network } from '../../src/kernel/network';
import { startBesuChain, type BesuChain, type BesuFrontOptions } from './besu-node';

/** PostgreSQL every machine runs for tests (trust auth). */
export const TEST_PG = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/**
 * Compiled outputs shared by every test stack and service process of the machine (the service's
 * COMPILE_CACHE_DIR): each distinct source runs through solc once, not once per test file. One
 * directory per user (the service creates it 0700).
 */
export const TEST_COMPILE_CACHE_DIR = path.join(tmpdir(), `devportal-test-compile-cache-${process.getuid?.() ?? 0}`);
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';
export const TEST_WALLET_KEY = '11'.repeat(32);

export interface Stack {
  app: App;
  url: string;
  /** The CA in the service's trust bundle. */
  ca: DevCa;
  databaseUrl: string;
  dataDir: string;
  /** The Besu-faithful fronts before each chain, when the stack runs against them. */
  besu?: Record<Network, BesuChain>;
  /** The service's RPC variables for the Besu fronts (headers, gas price), for sibling instances. */
  rpcEnv: Record<string, string>;
  stop(): Promise<void>;
}

/** Options of the Besu-faithful fronts (tests/kit/besu-node.ts), and anvil's free-gas mode. */
export type BesuStackOptions = Omit<BesuFrontOptions, 'upstream'> & { freeGas?: boolean };

/** Minimum gas price of the fronts when the whole suite runs against them (TEST_RPC_FRONT=besu). */
export const BESU_MIN_GAS_PRICE = 2_000_000_000n;

/** Whether this run's stacks stand behind the Besu-faithful fronts (the `besu` project, jest.config.js). */
export const BEHIND_BESU_FRONTS = process.env.TEST_RPC_FRONT === 'besu';

/**
 * Starts an anvil chain per network with a Besu front before it and returns the service's env for
 * them: the front's JWT header, the faucet key, a gas price floor at the front's minimum.
 */
async function startBesuChains(
  opts: BesuStackOptions,
): Promise<{ chains: Record<Network, BesuChain>; env: Record<string, string> }> {
  const token = opts.token ?? `test-jwt-${Math.random().toString(36).slice(2)}`;
  const started = await Promise.all(
    NETWORKS.map((n) => startBesuChain(CHAIN_IDS[n], { validators: 'proposer', revertReasons: true, ...opts, token })),
  );
  const chains = { testnet: started[0]!, mainnet: started[1]! };
  const env: Record<string, string> = { FAUCET_PRIVATE_KEY: LOCAL_NODE_FUNDED_KEY };
  for (const n of NETWORKS) {
    const prefix = n.toUpperCase();
    env[`${prefix}_RPC_URL`] = chains[n].front.url;
    env[`${prefix}_RPC_HEADERS`] = JSON.stringify(chains[n].front.headers);
    env[`${prefix}_WS_URL`] = chains[n].front.wsUrl;
    if (opts.minGasPrice !== undefined) env[`${prefix}_GAS_PRICE_WEI`] = opts.minGasPrice.toString();
  }
  return { chains, env };
}

/** A test database's URL and how to drop it. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates a database with a unique name (from template0 when `template` is not given) and returns its URL. */
async function createDatabase(template?: string): Promise<TestDatabase> {
  const name = `devportal_test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new Client({ connectionString: TEST_PG });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_PG);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: TEST_PG });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Creates an empty database with a unique name (no migration run: the migration tests start here). */
export function createEmptyDatabase(): Promise<TestDatabase> {
  return createDatabase();
}

/**
 * Creates a database with every migration already applied, as a copy of the machine's template
 * database for this set of migrations (built once by the first test that needs it): a copy costs
 * PostgreSQL a fraction of running the migrations. The service's own `runMigrations` then finds
 * nothing to apply.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  return createDatabase(await migratedTemplate());
}

let template: Promise<string> | undefined;

/** The migrated template's name, built under an advisory lock when missing; one lookup per process. */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `devportal_template_${migrationsDigest()}`;
    const admin = new Client({ connectionString: TEST_PG });
    await admin.connect();
    try {
      const exists = async () => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount;
      if (await exists()) return name;
      await admin.query(`SELECT pg_advisory_lock(hashtext('devportal-test-template'))`);
      try {
        if (await exists()) return name;
        // Built under another name and renamed when complete: no copy is ever taken of a half-made template.
        const building = await createDatabase();
        try {
          const ds = createDataSource(building.url);
          await ds.initialize();
          try {
            await runMigrations(ds);
          } finally {
            await ds.destroy();
          }
        } catch (e) {
          await building.drop().catch(() => undefined);
          throw e;
        }
        await admin.query(`ALTER DATABASE ${new URL(building.url).pathname.slice(1)} RENAME TO ${name}`);
        // Templates of other migration sets (an older checkout's) go when nothing copies them.
        const stale = await admin.query<{ datname: string }>(
          `SELECT datname FROM pg_database WHERE datname LIKE 'devportal\\_template\\_%' AND datname <> $1`,
          [name],
        );
        for (const { datname } of stale.rows)
          await admin.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
        return name;
      } finally {
        await admin.query(`SELECT pg_advisory_unlock(hashtext('devportal-test-template'))`);
      }
    } finally {
      await admin.end();
    }
  })();
  template.catch(() => (template = undefined));
  return template;
}

/** A digest of the repository's migration files: another set of migrations gets another template. */
function migrationsDigest(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  const migrations = path.join(dir, 'migrations');
  const hash = createHash('sha256');
  for (const file of readdirSync(migrations)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    hash.update(file).update(readFileSync(path.join(migrations, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** A fresh test database with every migration run, and a DataSource on it (the caller destroys it and drops the database). */
export async function createMigratedDatabase(): Promise<{ db: TestDatabase; ds: DataSource }> {
  const db = await createTestDatabase();
  const ds = createDataSource(db.url);
  await ds.initialize();
  return { db, ds };
}

/**
 * Starts the real service in-process: a fresh database on the machine's PostgreSQL, two real
 * anvil dev chains started by the service itself, and a test CA as the EDS trust bundle.
 */
export async function startStack(
  env: Record<string, string> = {},
  besuOptions?: BesuStackOptions | false,
  /** When given, the service's log lines (JSON) are collected here instead of printed. */
  logLines?: string[],
): Promise<Stack> {
  const besu =
    besuOptions === undefined && process.env.TEST_RPC_FRONT === 'besu'
      ? await startBesuChains({ minGasPrice: BESU_MIN_GAS_PRICE })
      : besuOptions
        ? await startBesuChains(besuOptions)
        : undefined;
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'devportal-test-'));
  const ca = await createDevCa({ commonName: 'Test EDS Root CA' });
  const bundle = path.join(dataDir, 'trusted-ca.pem');
  writeFileSync(bundle, ca.certificatePem);
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    WALLET_ENCRYPTION_KEY: TEST_WALLET_KEY,
    EDS_TRUSTED_CA_FILE: bundle,
    // Suites burst requests from 127.0.0.1; the limit tests set low values explicitly.
    PUBLIC_RATE_LIMIT: '100000',
    LOGIN_RATE_LIMIT: '100000',
    DEVELOPER_RATE_LIMIT: '100000',
    WS_CONNECTIONS_PER_IP: '10000',
    // Parallel test workers share one PostgreSQL (max_connections 100): each stack takes a few.
    DATABASE_POOL_SIZE: '8',
    COMPILE_CACHE_DIR: TEST_COMPILE_CACHE_DIR,
    ...besu?.env,
    ...env,
  });
  const destination = logLines ? { write: (line: string) => void logLines.push(line) } : undefined;
  const app = await startApp(config, createLogger(config.logLevel, destination));
  return {
    app,
    url: app.url,
    ca,
    databaseUrl: db.url,
    dataDir,
    besu: besu?.chains,
    rpcEnv: besu?.env ?? {},
    async stop() {
      await app.close();
      if (besu) await Promise.all(NETWORKS.map((n) => besu.chains[n].stop()));
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One transaction-tracker pass of the test's own, with the tracker's timer stopped meanwhile: a
 * pass of the timer's own would hold the tracker's lock and make this one return without looking.
 */
export async function trackerPass(stack: Stack): Promise<void> {
  const tracker = stack.app.services.tracker;
  await tracker.stop();
  try {
    await tracker.tick();
  } finally {
    tracker.start();
  }
}

/** One SQL statement on a fresh connection to a stack's database (works whatever state the service's pool is in). */
export async function sqlRows<T>(target: { databaseUrl: string }, text: string, params: unknown[] = []): Promise<T[]> {
  const pg = new Client({ connectionString: target.databaseUrl, connectionTimeoutMillis: 3000 });
  await pg.connect();
  try {
    return (await pg.query(text, params)).rows as T[];
  } finally {
    await pg.end();
  }
}
