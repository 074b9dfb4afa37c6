import { DataSource } from 'typeorm';
import { ENTITIES } from '../entities';
import { MIGRATIONS } from '../../migrations';
import { LOCK_KEYS } from '../kernel/lock-keys';

/** The one TypeORM DataSource factory: schema only through migrations, never synchronize. */
export function createDataSource(url: string, opts: { poolSize?: number } = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    uuidExtension: 'pgcrypto',
    logging: false,
    // Fail fast rather than hang when PostgreSQL is down; the pool reconnects on its own.
    extra: { max: opts.poolSize ?? 20, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30000 },
  });
}

/** Applies pending migrations; several instances starting at once apply them exactly once. */
export async function runMigrations(ds: DataSource): Promise<string[]> {
  const lock = ds.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [LOCK_KEYS.migrations]);
    const applied = await ds.runMigrations({ transaction: 'all' });
    return applied.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [LOCK_KEYS.migrations]).catch(() => undefined);
    await lock.release();
  }
}

/** True when the database answers and no migration is pending. */
export async function isDatabaseReady(ds: DataSource): Promise<boolean> {
  try {
    if (!ds.isInitialized) return false;
    return !(await ds.showMigrations());
  } catch {
    return false;
  }
}
