import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhooks and their durable outbox of deliveries. */
export class Webhooks1764300000000 implements MigrationInterface {
  name = 'Webhooks1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY,
        developer_id uuid NOT NULL REFERENCES developers(id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL
          CHECK (cardinality(events) > 0 AND events <@ ARRAY['contract.event', 'transaction.status']),
        contract_id uuid REFERENCES contracts(id) ON DELETE CASCADE,
        event text,
        status text NOT NULL CHECK (status IN ('active', 'deleted')),
        secret_sealed bytea NOT NULL,
        event_cursor_block bigint,
        event_cursor_log integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query(`CREATE INDEX webhooks_developer_idx ON webhooks (developer_id, created_at)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        seq bigserial NOT NULL UNIQUE,
        webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        type text NOT NULL,
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
        attempts integer NOT NULL DEFAULT 0,
        last_response_status integer,
        last_error text,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        first_attempt_at timestamptz,
        lease_token uuid,
        lease_until timestamptz,
        finished_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The worker's question: the oldest undelivered delivery of each webhook.
    await q.query(
      `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (webhook_id, seq) WHERE status = 'pending'`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, seq DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
  }
}
