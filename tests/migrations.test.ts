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

  it('adds the receipt index to an existing chain_transactions table, keeping its rows', async () => {
    const db = await createTestDatabase();
    const before = createDataSource(db.url);
    // Everything before the receipt index (later migrations are applied with it below).
    const upTo = MIGRATIONS.findIndex((m) => m.name === 'TransactionIndex1764000000000');
    before.setOptions({ migrations: MIGRATIONS.slice(0, upTo) });
    await before.initialize();
    try {
      await runMigrations(before);
      await before.query(
        `INSERT INTO chain_transactions (network, from_address, nonce, tx_hash, raw_tx, kind, status, block_number)
         VALUES ('testnet', '0xabc', 0, '0x01', '0x', 'faucet', 'success', 7)`,
      );
    } finally {
      await before.destroy();
    }
    const after = createDataSource(db.url);
    await after.initialize();
    try {
      expect(await runMigrations(after)).toEqual(MIGRATIONS.slice(upTo).map((m) => m.name));
      expect(await after.query(`SELECT tx_hash, block_number::int AS block, tx_index FROM chain_transactions`)).toEqual(
        [{ tx_hash: '0x01', block: 7, tx_index: null }],
      );
    } finally {
      await after.destroy();
      await db.drop();
    }
  });
});
