import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A webhook's last delivery attempt, shown with it, and the previous signing secret kept for 24 h after a rotation. */
export class WebhookOperations1764560000000 implements MigrationInterface {
  name = 'WebhookOperations1764560000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks
        ADD COLUMN last_attempt_at timestamptz,
        ADD COLUMN last_response_status integer,
        ADD COLUMN last_error text,
        ADD COLUMN previous_secret_sealed bytea,
        ADD COLUMN previous_secret_until timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks
        DROP COLUMN last_attempt_at,
        DROP COLUMN last_response_status,
        DROP COLUMN last_error,
        DROP COLUMN previous_secret_sealed,
        DROP COLUMN previous_secret_until`);
  }
}
