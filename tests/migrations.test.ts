import { createDataSource, runMigrations } from '../src/database/data-source';
import { BlockIndex, type StoredContractLog } from '../src/modules/explorer';
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
    const upTo = MIGRATIONS.findIndex((m) => new m().name === 'TransactionIndex1764000000000');
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
      expect((await runMigrations(after))[0]).toBe('TransactionIndex1764000000000');
      expect(await after.query(`SELECT tx_hash, block_number::int AS block, tx_index FROM chain_transactions`)).toEqual(
        [{ tx_hash: '0x01', block: 7, tx_index: null }],
      );
    } finally {
      await after.destroy();
      await db.drop();
    }
  });

  it('adds transaction records beside an existing chain_transactions table, keeping its rows', async () => {
    const db = await createTestDatabase();
    const upTo = MIGRATIONS.findIndex((m) => new m().name === 'TransactionRecords1764200000000');
    const before = createDataSource(db.url);
    before.setOptions({ migrations: MIGRATIONS.slice(0, upTo) });
    await before.initialize();
    try {
      await runMigrations(before);
      await before.query(
        `INSERT INTO chain_transactions (network, from_address, nonce, tx_hash, raw_tx, kind, status, block_number)
         VALUES ('testnet', '0xabc', 0, '0x01', '0x', 'faucet', 'success', 7),
                ('testnet', '0xabc', 1, '0x02', '0x', 'invoke', 'dropped', NULL)`,
      );
    } finally {
      await before.destroy();
    }
    const after = createDataSource(db.url);
    await after.initialize();
    try {
      expect((await runMigrations(after))[0]).toBe('TransactionRecords1764200000000');
      expect(await after.query(`SELECT tx_hash, status, record_id FROM chain_transactions ORDER BY tx_hash`)).toEqual([
        { tx_hash: '0x01', status: 'success', record_id: null },
        { tx_hash: '0x02', status: 'dropped', record_id: null },
      ]);
      expect(await after.query(`SELECT count(*)::int AS n FROM transaction_records`)).toEqual([{ n: 0 }]);
    } finally {
      await after.destroy();
      await db.drop();
    }
  });

  it('packs existing gateway call rows, keeping every call, and unpacks them on revert', async () => {
    const db = await createTestDatabase();
    const upTo = MIGRATIONS.findIndex((m) => new m().name === 'PackedGatewayCalls1764400000000');
    const before = createDataSource(db.url);
    before.setOptions({ migrations: MIGRATIONS.slice(0, upTo) });
    await before.initialize();
    const dev = '00000000-0000-4000-8000-000000000001';
    const key = '00000000-0000-4000-8000-000000000002';
    const calls = `SELECT kind, method, http_status, latency_ms, gas_used::text AS gas, to_char(at, 'HH24:MI:SS.MS') AS at
                     FROM gateway_calls ORDER BY at, id`;
    let old: unknown[];
    try {
      await runMigrations(before);
      await before.query(
        `INSERT INTO gateway_calls (developer_id, api_key_id, contract_id, method, kind, http_status, latency_ms, gas_used, at)
         VALUES ($1, $2, NULL, 'balanceOf', 'query', 201, 3, NULL, '2026-11-26 10:00:00.125+00'),
                ($1, $2, NULL, 'transfer', 'invoke', 201, 40, 51234, '2026-11-26 10:00:00.250+00'),
                ($1, $2, NULL, 'balanceOf', 'query', 429, 0, NULL, '2026-11-26 10:00:00.375+00'),
                ($1, $2, NULL, 'balanceOf', 'query', 201, 2, NULL, '2026-11-26 10:05:00.000+00')`,
        [dev, key],
      );
      old = (await before.query(calls)) as unknown[];
    } finally {
      await before.destroy();
    }
    const after = createDataSource(db.url);
    await after.initialize();
    try {
      // Later migrations may follow this one; all of them are undone below, down to and including it.
      const applied = await runMigrations(after);
      expect(applied[0]).toBe('PackedGatewayCalls1764400000000');
      // One stored row per group and minute: the two queries of 10:00 share one.
      expect(await after.query(`SELECT count(*)::int AS n FROM gateway_call_batches`)).toEqual([{ n: 3 }]);
      expect(await after.query(calls)).toEqual(old);
      for (let i = 0; i < applied.length; i++) await after.undoLastMigration({ transaction: 'all' });
      expect(await after.query(calls)).toEqual(old);
    } finally {
      await after.destroy();
      await db.drop();
    }
  });

  it('gives existing webhooks an empty last state and no previous secret, and takes them away on revert', async () => {
    const db = await createTestDatabase();
    const upTo = MIGRATIONS.findIndex((m) => new m().name === 'WebhookOperations1764560000000');
    const before = createDataSource(db.url);
    before.setOptions({ migrations: MIGRATIONS.slice(0, upTo) });
    await before.initialize();
    try {
      await runMigrations(before);
      const [dev] = (await before.query(
        `INSERT INTO developers (identity_key, display_name, subject) VALUES ('sn:W', 'W', 'CN=W') RETURNING id`,
      )) as Array<{ id: string }>;
      await before.query(
        `INSERT INTO webhooks (id, developer_id, url, events, status, secret_sealed)
         VALUES ('00000000-0000-4000-8000-0000000000aa', $1, 'http://x.test/h', '{transaction.status}', 'active', '\\x01')`,
        [dev!.id],
      );
    } finally {
      await before.destroy();
    }
    const after = createDataSource(db.url);
    await after.initialize();
    try {
      expect(await runMigrations(after)).toContain('WebhookOperations1764560000000');
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
      while ((await after.query(`SELECT 1 FROM migrations WHERE name = 'WebhookOperations1764560000000'`)).length) {
        await after.undoLastMigration({ transaction: 'all' });
      }
      expect(await after.query(`SELECT url FROM webhooks`)).toEqual([{ url: 'http://x.test/h' }]);
      await expect(after.query(state)).rejects.toThrow(/last_attempt_at/);
    } finally {
      await after.destroy();
      await db.drop();
    }
  });

  it('replaces the logs address index with the event index on an existing index, keeping its rows; contract logs use it', async () => {
    const db = await createTestDatabase();
    const upTo = MIGRATIONS.findIndex((m) => new m().name === 'ExplorerLogEvents1765248630000');
    const before = createDataSource(db.url);
    before.setOptions({ migrations: MIGRATIONS.slice(0, upTo) });
    await before.initialize();
    const A = `0x${'a'.repeat(40)}`;
    const TOPIC = (n: number) => `0x${String(n).repeat(64)}`;
    try {
      await runMigrations(before);
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
    } finally {
      await before.destroy();
    }
    const indexes = async (ds: typeof before) =>
      (
        (await ds.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'explorer_logs' ORDER BY 1`)) as Array<{
          indexname: string;
        }>
      ).map((r) => r.indexname);
    const after = createDataSource(db.url);
    await after.initialize();
    try {
      expect(await runMigrations(after)).toContain('ExplorerLogEvents1765248630000');
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
          await index.contractLogs('testnet', A, [TOPIC(2), TOPIC(1), TOPIC(2)], { blockNumber: 3, logIndex: 0 }, 7, 4),
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
      // Undone with the migrations that came after it.
      for (let i = upTo; i < MIGRATIONS.length; i++) await after.undoLastMigration({ transaction: 'all' });
      expect(await indexes(after)).toEqual(['explorer_logs_address_idx', 'explorer_logs_pkey']);
      expect(await after.query(`SELECT count(*)::int AS n FROM explorer_logs`)).toEqual([{ n: 12 }]);
    } finally {
      await after.destroy();
      await db.drop();
    }
  });

  it("counts an ERC-1155 token's holders once and gives the transfer indexes type and token, keeping the rows; both revert", async () => {
    const db = await createTestDatabase();
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
