import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contract events are read by emitting address and event (the log's first topic), in (block, log
 * index) order (docs/api.md, "Contract events, transactions and webhooks"). The address index
 * alone made a page of a rare event of a busy contract walk every log of that contract (seconds
 * with a few hundred thousand: BENCHMARKS.md, "Chain-scale index"); this one goes straight to the
 * event's logs, and replaces it (nothing else reads logs by address).
 *
 * On an existing index the build holds writes to explorer_logs while it runs (the indexer waits;
 * reads go on): 16 s for 820,000 logs on the benchmark's busy 2-core machine, so count minutes
 * for tens of millions. The new index is larger (it holds the topic): about 75 more bytes a log.
 */
export class ExplorerLogEvents1765248630000 implements MigrationInterface {
  name = 'ExplorerLogEvents1765248630000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX explorer_logs_event_idx ON explorer_logs (network, address, (topics[1]), block_number, log_index)`,
    );
    await q.query(`DROP INDEX IF EXISTS explorer_logs_address_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS explorer_logs_address_idx ON explorer_logs (network, address, block_number, log_index)`,
    );
    await q.query(`DROP INDEX explorer_logs_event_idx`);
  }
}
