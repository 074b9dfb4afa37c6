import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations } from '../src/database/data-source';
import { BlockIndex, type StoredContractLog } from '../src/modules/explorer';
import { MIGRATIONS } from '../migrations';
import { createEmptyDatabase } from './kit/stack';

/**
 * Migrates a fresh database up to the migration before `name`, runs `seed` on it, then checks with
 * `check` a data source of every migration, given the names it applied (`name` the first); the
 * database is dropped after.
 */
async function upgradeOver(
  name: string,
  seed: (before: DataSource) => Promise<void>,
  check: (after: DataSource, applied: string[]) => Promise<void>,
): Promise<void> {
  const db = await createEmptyDatabase();
  try {
    const upTo = MIGRATIONS.findIndex((m) => new m().name === name);
    if (upTo < 0) throw new Error(`no migration ${name}`);
    const before = createDataSource(db.url);
    before.setOptions({ migrations: MIGRATIONS.slice(0, upTo) });
    await before.initialize();
    try {
      await runMigrations(before);
      await seed(before);
    } finally {
      await before.destroy();
    }
    const after = createDataSource(db.url);
    await after.initialize();
    try {
      await check(after, await runMigrations(after));
    } finally {
      await after.destroy();
    }
  } finally {
    await db.drop();
  }
}

/** Undoes the last migrations, down to and including `name`. */
async function revertThrough(ds: DataSource, name: string): Promise<void> {
  while ((await ds.query(`SELECT 1 FROM migrations WHERE name = $1`, [name])).length) {
    await ds.undoLastMigration({ transaction: 'all' });
  }
}

/** Migrations apply on a fresh database, on top of an older one without losing its rows, and revert. */
describe('migrations', () => {
  it('upgrade a database that has only the first migration, keeping its rows, then revert and re-apply', async () => {
    const db = await createEmptyDatabase();
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
    await upgradeOver(
      'TransactionIndex1764000000000',
      async (before) => {
        await before.query(
          `INSERT INTO chain_transactions (network, from_address, nonce, tx_hash, raw_tx, kind, status, block_number)
           VALUES ('testnet', '0xabc', 0, '0x01', '0x', 'faucet', 'success', 7)`,
        );
      },
      async (after, applied) => {
        expect(applied[0]).toBe('TransactionIndex1764000000000');
        expect(
          await after.query(`SELECT tx_hash, block_number::int AS block, tx_index FROM chain_transactions`),
        ).toEqual([{ tx_hash: '0x01', block: 7, tx_index: null }]);
      },
    );
  });

  it('adds transaction records beside an existing chain_transactions table, keeping its rows', async () => {
    await upgradeOver(
      'TransactionRecords1764200000000',
      async (before) => {
        await before.query(
          `INSERT INTO chain_transactions (network, from_address, nonce, tx_hash, raw_tx, kind, status, block_number)
           VALUES ('testnet', '0xabc', 0, '0x01', '0x', 'faucet', 'success', 7),
                  ('testnet', '0xabc', 1, '0x02', '0x', 'invoke', 'dropped', NULL)`,
        );
      },
      async (after, applied) => {
        expect(applied[0]).toBe('TransactionRecords1764200000000');
        expect(await after.query(`SELECT tx_hash, status, record_id FROM chain_transactions ORDER BY tx_hash`)).toEqual(
          [
            { tx_hash: '0x01', status: 'success', record_id: null },
            { tx_hash: '0x02', status: 'dropped', record_id: null },
          ],
        );
        expect(await after.query(`SELECT count(*)::int AS n FROM transaction_records`)).toEqual([{ n: 0 }]);
      },
    );
  });

  it('packs existing gateway call rows, keeping every call, and unpacks them on revert', async () => {
    const NAME = 'PackedGatewayCalls1764400000000';
    const dev = '00000000-0000-4000-8000-000000000001';
    const key = '00000000-0000-4000-8000-000000000002';
    const calls = `SELECT kind, method, http_status, latency_ms, gas_used::text AS gas, to_char(at, 'HH24:MI:SS.MS') AS at
                     FROM gateway_calls ORDER BY at, id`;
    let old: unknown[] = [];
    await upgradeOver(
      NAME,
      async (before) => {
        await before.query(
          `INSERT INTO gateway_calls (developer_id, api_key_id, contract_id, method, kind, http_status, latency_ms, gas_used, at)
           VALUES ($1, $2, NULL, 'balanceOf', 'query', 201, 3, NULL, '2026-11-26 10:00:00.125+00'),
                  ($1, $2, NULL, 'transfer', 'invoke', 201, 40, 51234, '2026-11-26 10:00:00.250+00'),
                  ($1, $2, NULL, 'balanceOf', 'query', 429, 0, NULL, '2026-11-26 10:00:00.375+00'),
                  ($1, $2, NULL, 'balanceOf', 'query', 201, 2, NULL, '2026-11-26 10:05:00.000+00')`,
          [dev, key],
        );
        old = (await before.query(calls)) as unknown[];
      },
      async (after, applied) => {
        expect(applied[0]).toBe(NAME);
        // One stored row per group and minute: the two queries of 10:00 share one.
        expect(await after.query(`SELECT count(*)::int AS n FROM gateway_call_batches`)).toEqual([{ n: 3 }]);
        expect(await after.query(calls)).toEqual(old);
        // Later migrations may follow this one: they are undone too.
        await revertThrough(after, NAME);
        expect(await after.query(calls)).toEqual(old);
      },
    );
  });

  it('gives existing webhooks an empty last state and no previous secret, and takes them away on revert', async () => {
    const NAME = 'WebhookOperations1764560000000';
    await upgradeOver(
      NAME,
      async (before) => {
        const [dev] = (await before.query(
          `INSERT INTO developers (identity_key, display_name, subject) VALUES ('sn:W', 'W', 'CN=W') RETURNING id`,
        )) as Array<{ id: string }>;
        await before.query(
          `INSERT INTO webhooks (id, developer_id, url, events, status, secret_sealed)
           VALUES ('00000000-0000-4000-8000-0000000000aa', $1, 'http://x.test/h', '{transaction.status}', 'active', '\\x01')`,
          [dev!.id],
        );
      },
      async (after, applied) => {
        expect(applied).toContain(NAME);
        const state = `SELECT url, last_attempt_at, last_response_status, last_error, previous_secret_sealed, previous_secret_until
                         FROM webhooks`;
        expect(await after.query(state)).toEqual([
          {
            url: 'http://x.test/h',
            last_attempt_at: null,
            last_response_status: null,
            last_error: null,
            previous_secret_sealed: null,
            previous_secret_until: null,
          },
        ]);
        await revertThrough(after, NAME);
        expect(await after.query(`SELECT url FROM webhooks`)).toEqual([{ url: 'http://x.test/h' }]);
        await expect(after.query(state)).rejects.toThrow(/last_attempt_at/);
      },
    );
  });

  it('replaces the logs address index with the event index on an existing index, keeping its rows; contract logs use it', async () => {
    const A = `0x${'a'.repeat(40)}`;
    const TOPIC = (n: number) => `0x${String(n).repeat(64)}`;
    const indexes = async (ds: DataSource) =>
      (
        (await ds.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'explorer_logs' ORDER BY 1`)) as Array<{
          indexname: string;
        }>
      ).map((r) => r.indexname);
    await upgradeOver(
      'ExplorerLogEvents1765248630000',
      async (before) => {
        await before.query(
          `INSERT INTO explorer_blocks (network, number, hash, parent_hash, timestamp, miner, transaction_count, gas_used,
             gas_limit, extra_data)
           SELECT 'testnet', n, '0xb' || n, '0xb' || (n - 1), n, '0xm', 1, 0, 0, '0x' FROM generate_series(0, 9) n`,
        );
        // Block n: a log of event 1 at index 0; blocks 3 and 7 also one of event 2 at index 1.
        await before.query(
          `INSERT INTO explorer_logs (network, block_number, log_index, transaction_hash, address, topics, data)
           SELECT 'testnet', n, 0, '0xt' || n, $1, ARRAY[$2], '0x' FROM generate_series(0, 9) n
           UNION ALL SELECT 'testnet', n, 1, '0xt' || n, $1, ARRAY[$3, $2], '0x' FROM unnest(ARRAY[3, 7]) n`,
          [A, TOPIC(1), TOPIC(2)],
        );
      },
      async (after, applied) => {
        expect(applied).toContain('ExplorerLogEvents1765248630000');
        expect(await indexes(after)).toEqual(['explorer_logs_event_idx', 'explorer_logs_pkey']);
        expect(await after.query(`SELECT count(*)::int AS n FROM explorer_logs`)).toEqual([{ n: 12 }]);
        // Each event's logs, merged in (block, log index) order, after a position, up to a block, a topic given twice.
        const index = new BlockIndex(after);
        const at = (logs: StoredContractLog[]) => logs.map((l) => [l.blockNumber, l.logIndex]);
        expect(at(await index.contractLogs('testnet', A, [TOPIC(2)], null, null, 10))).toEqual([
          [3, 1],
          [7, 1],
        ]);
        expect(
          at(
            await index.contractLogs(
              'testnet',
              A,
              [TOPIC(2), TOPIC(1), TOPIC(2)],
              { blockNumber: 3, logIndex: 0 },
              7,
              4,
            ),
          ),
        ).toEqual([
          [3, 1],
          [4, 0],
          [5, 0],
          [6, 0],
        ]);
        expect(at(await index.contractLogs('testnet', A, [TOPIC(3)], null, null, 10))).toEqual([]);
        // The rare event is read from the event index, not by walking every log of the address.
        await after.query('SET enable_seqscan = off');
        const plan = (await after.query(
          `EXPLAIN SELECT block_number FROM explorer_logs
            WHERE network = 'testnet' AND address = $1 AND topics[1] = $2`,
          [A, TOPIC(2)],
        )) as Array<{ 'QUERY PLAN': string }>;
        expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/explorer_logs_event_idx/);
        await after.query('RESET enable_seqscan');
        await revertThrough(after, 'ExplorerLogEvents1765248630000');
        expect(await indexes(after)).toEqual(['explorer_logs_address_idx', 'explorer_logs_pkey']);
        expect(await after.query(`SELECT count(*)::int AS n FROM explorer_logs`)).toEqual([{ n: 12 }]);
      },
    );
  });

  it('backfills the history of existing transaction records from their rows, and drops it on revert', async () => {
    const NAME = 'TransactionHistory1765237410000';
    const records = `SELECT method, status, tx_hash, error FROM transaction_records ORDER BY method`;
    let old: unknown[] = [];
    await upgradeOver(
      NAME,
      async (before) => {
        const [dev] = (await before.query(
          `INSERT INTO developers (identity_key, display_name, subject) VALUES ('sn:H', 'H', 'CN=H') RETURNING id`,
        )) as Array<{ id: string }>;
        // One record per status as the table held them, `method` naming each; times in other zones and
        // whole seconds too, to check that every entry is written in UTC with milliseconds.
        await before.query(
          `INSERT INTO transaction_records (kind, network, developer_id, method, status, tx_hash, nonce, block_number,
             gas_used, revert_reason, error, created_at, updated_at)
           VALUES ('invoke', 'testnet', $1, 'a-queued', 'queued', NULL, NULL, NULL, NULL, NULL, NULL,
                   '2026-11-26 10:00:00.125+00', '2026-11-26 10:00:00.125+00'),
                  ('invoke', 'testnet', $1, 'b-pending', 'pending', '0x0b', 3, NULL, NULL, NULL, NULL,
                   '2026-11-26 12:00:01.5+02', '2026-11-26 10:00:02+00'),
                  ('faucet', 'testnet', $1, 'c-success', 'success', '0x0c', 4, 9, 21000, NULL, NULL,
                   '2026-11-26 10:00:03.007+00', '2026-11-26 05:00:04.250-05'),
                  ('invoke', 'testnet', $1, 'd-reverted', 'reverted', '0x0d', 5, 10, 30000, 'Once: already done', NULL,
                   '2026-11-26 10:00:05+00', '2026-11-26 10:00:06+00'),
                  ('invoke', 'testnet', $1, 'e-refused', 'failed', NULL, NULL, NULL, NULL, NULL, 'nonce too low',
                   '2026-11-26 10:00:07+00', '2026-11-26 10:00:08+00'),
                  ('deploy', 'testnet', $1, 'f-dropped', 'failed', '0x0f', 6, NULL, NULL, NULL, 'not mined in time',
                   '2026-11-26 10:00:09+00', '2026-11-26 10:01:09+00'),
                  ('invoke', 'testnet', $1, 'g-cancelled', 'cancelled', NULL, NULL, NULL, NULL, NULL, NULL,
                   '2026-11-26 10:00:10+00', '2026-11-26 10:00:11+00')`,
          [dev!.id],
        );
        old = (await before.query(records)) as unknown[];
      },
      async (after, applied) => {
        expect(applied[0]).toBe(NAME);
        const history = async () =>
          Object.fromEntries(
            (
              (await after.query(`SELECT method, history FROM transaction_records ORDER BY method`)) as Array<{
                method: string;
                history: unknown;
              }>
            ).map((r) => [r.method, r.history]),
          );
        const queued = (at: string) => ({ status: 'queued', at });
        const expected = {
          // Still queued: its acceptance alone.
          'a-queued': [queued('2026-11-26T10:00:00.125Z')],
          // Moved on: its acceptance, then its status at its last update, with its hash and reason when it has them.
          'b-pending': [
            queued('2026-11-26T10:00:01.500Z'),
            { status: 'pending', at: '2026-11-26T10:00:02.000Z', txHash: '0x0b' },
          ],
          'c-success': [
            queued('2026-11-26T10:00:03.007Z'),
            { status: 'success', at: '2026-11-26T10:00:04.250Z', txHash: '0x0c' },
          ],
          'd-reverted': [
            queued('2026-11-26T10:00:05.000Z'),
            { status: 'reverted', at: '2026-11-26T10:00:06.000Z', txHash: '0x0d', reason: 'Once: already done' },
          ],
          'e-refused': [
            queued('2026-11-26T10:00:07.000Z'),
            { status: 'failed', at: '2026-11-26T10:00:08.000Z', reason: 'nonce too low' },
          ],
          'f-dropped': [
            queued('2026-11-26T10:00:09.000Z'),
            { status: 'failed', at: '2026-11-26T10:01:09.000Z', txHash: '0x0f', reason: 'not mined in time' },
          ],
          'g-cancelled': [queued('2026-11-26T10:00:10.000Z'), { status: 'cancelled', at: '2026-11-26T10:00:11.000Z' }],
        };
        expect(await history()).toEqual(expected);
        expect(await after.query(records)).toEqual(old);
        // A record made after it starts with an empty history, which its first statement fills in.
        const [dev] = (await after.query(`SELECT id FROM developers`)) as Array<{ id: string }>;
        await after.query(
          `INSERT INTO transaction_records (kind, network, developer_id, method, status) VALUES ('faucet', 'testnet', $1, 'h-new', 'queued')`,
          [dev!.id],
        );
        expect((await history())['h-new']).toEqual([]);
        await after.query(`DELETE FROM transaction_records WHERE method = 'h-new'`);

        await revertThrough(after, NAME);
        expect(await after.query(records)).toEqual(old);
        await expect(after.query(`SELECT history FROM transaction_records`)).rejects.toThrow(/history/);
        // Applied again, it writes the same histories.
        expect((await runMigrations(after))[0]).toBe(NAME);
        expect(await history()).toEqual(expected);
      },
    );
  });

  it("counts an ERC-1155 token's holders once and gives the transfer indexes type and token, keeping the rows; both revert", async () => {
    const db = await createEmptyDatabase();
    const upTo = MIGRATIONS.findIndex((m) => new m().name === 'TokenHolderCount1765260000000');
    const before = createDataSource(db.url);
    before.setOptions({ migrations: MIGRATIONS.slice(0, upTo) });
    await before.initialize();
    const [T, A, B] = ['7', 'a', 'b'].map((c) => `0x${c.repeat(40)}`);
    try {
      await runMigrations(before);
      // A holds ids 1 and 2, B id 1, C nothing left: three pairs, two holders.
      await before.query(
        `INSERT INTO tokens (network, address, type, first_block, holder_count, transfer_count)
         VALUES ('testnet', $1, 'ERC-1155', 0, 3, 4)`,
        [T],
      );
      await before.query(
        `INSERT INTO token_balances (network, token, holder, token_id, value)
         VALUES ('testnet', $1, $2, 1, 5), ('testnet', $1, $2, 2, 1), ('testnet', $1, $3, 1, 2), ('testnet', $1, $4, 1, 0)`,
        [T, A, B, `0x${'c'.repeat(40)}`],
      );
      await before.query(
        `INSERT INTO token_transfers (network, block_number, log_index, batch_index, tx_hash, token, type, from_address,
           to_address, value, token_id, timestamp)
         SELECT 'testnet', n, 0, -1, '0xt' || n, $1, 'ERC-1155', $2, $3, 1, 1, n FROM generate_series(1, 4) n`,
        [T, A, B],
      );
    } finally {
      await before.destroy();
    }
    const holders = async (ds: typeof before) =>
      ((await ds.query(`SELECT holder_count::int AS n FROM tokens`)) as Array<{ n: number }>)[0]!.n;
    const indexes = async (ds: typeof before) =>
      (
        (await ds.query(
          `SELECT indexdef FROM pg_indexes WHERE tablename = 'token_transfers' ORDER BY indexname`,
        )) as Array<{
          indexdef: string;
        }>
      ).map((r) => r.indexdef.replace(/^.* INDEX (\S+) ON \S+ USING btree /, '$1 '));
    const after = createDataSource(db.url);
    await after.initialize();
    try {
      expect(await runMigrations(after)).toEqual([
        'TokenHolderCount1765260000000',
        'TokenTransferIndexes1765260001000',
      ]);
      expect(await holders(after)).toBe(2);
      expect(await indexes(after)).toEqual([
        'token_transfers_from_idx (network, from_address, block_number DESC, log_index DESC, batch_index DESC) INCLUDE (type, token)',
        'token_transfers_pkey (network, block_number, log_index, batch_index)',
        'token_transfers_to_idx (network, to_address, block_number DESC, log_index DESC, batch_index DESC) INCLUDE (type, token)',
        'token_transfers_token_idx (network, token, block_number DESC, log_index DESC, batch_index DESC)',
      ]);
      expect(await after.query(`SELECT count(*)::int AS n FROM token_transfers`)).toEqual([{ n: 4 }]);
      for (let i = upTo; i < MIGRATIONS.length; i++) await after.undoLastMigration({ transaction: 'all' });
      expect(await holders(after)).toBe(3);
      expect((await indexes(after)).map((i) => i.split(' ')[0])).toEqual([
        'token_transfers_from_idx',
        'token_transfers_pkey',
        'token_transfers_to_idx',
        'token_transfers_token_idx',
        'token_transfers_tx_idx',
      ]);
      expect((await indexes(after))[0]).not.toMatch(/INCLUDE/);
    } finally {
      await after.destroy();
      await db.drop();
    }
  });
});
