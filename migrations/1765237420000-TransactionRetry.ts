import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an invoke's record asked to send (target, calldata, value, gas limit, fees, timeout), so a
 * failed one can be sent again under the same record (docs/api.md, "Transactions": retry). Records
 * made before it have none and cannot be retried.
 */
export class TransactionRetry1765237420000 implements MigrationInterface {
  name = 'TransactionRetry1765237420000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transaction_records ADD COLUMN call jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transaction_records DROP COLUMN call`);
  }
}
