import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startApp, type App } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createDevCa, type DevCa } from '../../src/modules/accounts/eds/dev-ca';

/** PostgreSQL every machine runs for tests (trust auth). */
export const TEST_PG = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';
export const TEST_WALLET_KEY = '11'.repeat(32);

export interface Stack {
  app: App;
  url: string;
  /** The CA in the service's trust bundle. */
  ca: DevCa;
  databaseUrl: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** Creates an empty database with a unique name and returns its URL. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `devportal_test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new Client({ connectionString: TEST_PG });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
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

/**
 * Starts the real service in-process: a fresh database on the machine's PostgreSQL, two real
 * anvil dev chains started by the service itself, and a test CA as the EDS trust bundle.
 */
export async function startStack(env: Record<string, string> = {}): Promise<Stack> {
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
    ...env,
  });
  const app = await startApp(config, createLogger(config.logLevel));
  return {
    app,
    url: app.url,
    ca,
    databaseUrl: db.url,
    dataDir,
    async stop() {
      await app.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
