import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Contract events are read from the explorer's logs by emitting address, in (block, log index) order. */
export class ContractEvents1764100000000 implements MigrationInterface {
  name = 'ContractEvents1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS explorer_logs_address_idx ON explorer_logs (network, address, block_number, log_index)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS explorer_logs_address_idx`);
  }
}
