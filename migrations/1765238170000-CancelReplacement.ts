import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cancel of a pending transaction (docs/api.md, "Transactions": cancel): the 0-value transfer to
 * itself that replaces it at its nonce is a signed transaction of kind `cancel`, naming the record
 * it cancels.
 */
export class CancelReplacement1765238170000 implements MigrationInterface {
  name = 'CancelReplacement1765238170000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE chain_transactions
        DROP CONSTRAINT chain_transactions_kind_check,
        ADD CONSTRAINT chain_transactions_kind_check
          CHECK (kind IN ('faucet', 'deploy', 'invoke', 'nonce-filler', 'cancel'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE chain_transactions SET kind = 'nonce-filler' WHERE kind = 'cancel'`);
    await q.query(`
      ALTER TABLE chain_transactions
        DROP CONSTRAINT chain_transactions_kind_check,
        ADD CONSTRAINT chain_transactions_kind_check
          CHECK (kind IN ('faucet', 'deploy', 'invoke', 'nonce-filler'))`);
  }
}
