// `npm run migrate`: applies pending migrations to DATABASE_URL, or to the embedded database.
import 'reflect-metadata';
import { ConfigError, loadConfig } from '../kernel/config';
import { createLogger } from '../kernel/logger';
import { createDataSource, runMigrations } from './data-source';
import { startEmbeddedPostgres } from './embedded-postgres';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir, logger });
  const ds = createDataSource(config.databaseUrl ?? embedded!.url, { poolSize: 2 });
  try {
    await ds.initialize();
    const applied = await runMigrations(ds);
    logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'database is up to date');
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await embedded?.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof ConfigError ? e.message : `migration failed: ${String(e)}`}\n`);
  process.exit(1);
});
