import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The history of a transaction record (docs/api.md, "Transactions": history): every change of its
 * status, oldest first, each `{status, at, txHash?, reason?}`, appended by the statement that makes
 * the change. Records made before it get what their row still tells: their acceptance and, when it
 * has moved on, their present status at their last update.
 */
export class TransactionHistory1765237410000 implements MigrationInterface {
  name = 'TransactionHistory1765237410000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transaction_records ADD COLUMN history jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await q.query(`
      UPDATE transaction_records SET history =
        jsonb_build_array(jsonb_build_object(
          'status', 'queued',
          'at', to_char(created_at AT TIME ZONE 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
        || CASE WHEN status = 'queued' THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
             'status', status,
             'at', to_char(updated_at AT TIME ZONE 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'txHash', tx_hash,
             'reason', coalesce(error, revert_reason)))) END`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transaction_records DROP COLUMN history`);
  }
}
