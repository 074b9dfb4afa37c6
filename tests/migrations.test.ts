import { createDataSource, runMigrations } from '../src/database/data-source';
import { MIGRATIONS } from '../migrations';
import { createTestDatabase } from './kit/stack';

/** Migrations apply on a fresh database, on top of an older one without losing its rows, and revert. */
describe('migrations', () => {
  it('upgrade a database that has only the first migration, keeping its rows, then revert and re-apply', async () => {
    const db = await createTestDatabase();
    const first = createDataSource(db.url);
    first.setOptions({ migrations: [MIGRATIONS[0]!] });
    await first.initialize();
    try {
      expect(await runMigrations(first)).toEqual([MIGRATIONS[0]!.name]);
      const [dev] = (await first.query(
        `INSERT INTO developers (identity_key, display_name, subject) VALUES ('sn:OLD', 'Old', 'CN=Old') RETURNING id`,
      )) as Array<{ id: string }>;
      await first.query(`INSERT INTO projects (owner_id, name) VALUES ($1, 'kept')`, [dev!.id]);
    } finally {
      await first.destroy();
    }

    const all = createDataSource(db.url);
    await all.initialize();
    try {
      expect(await runMigrations(all)).toEqual(MIGRATIONS.slice(1).map((m) => new m().name));
      expect(await runMigrations(all)).toEqual([]);
      expect(await all.query(`SELECT name FROM projects`)).toEqual([{ name: 'kept' }]);
      for (let i = 0; i < MIGRATIONS.length; i++) await all.undoLastMigration({ transaction: 'all' });
      const tables = (await all.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations'`,
      )) as unknown[];
      expect(tables).toEqual([]);
      expect(await runMigrations(all)).toHaveLength(MIGRATIONS.length);
    } finally {
      await all.destroy();
      await db.drop();
    }
  });
});
