import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A mined transaction's index in its block, from its receipt: the wallet history orders by it,
 * so a page's position does not move when the explorer index catches up with the block.
 */
export class TransactionIndex1764000000000 implements MigrationInterface {
  name = 'TransactionIndex1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chain_transactions ADD COLUMN IF NOT EXISTS tx_index integer`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chain_transactions DROP COLUMN IF EXISTS tx_index`);
  }
}
