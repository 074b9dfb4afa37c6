import type { MigrationInterface, QueryRunner } from 'typeorm';

/** API keys (hashes only), idempotency records of invokes, and gateway usage for analytics. */
export class ApiKeys1763767000000 implements MigrationInterface {
  name = 'ApiKeys1763767000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        developer_id uuid NOT NULL REFERENCES developers(id) ON DELETE CASCADE,
        name text,
        prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        scopes text[] NOT NULL CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['read', 'write']),
        contract_id uuid REFERENCES contracts(id) ON DELETE CASCADE,
        project_id uuid REFERENCES projects(id) ON DELETE SET NULL,
        status text NOT NULL CHECK (status IN ('active', 'revoked')),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_developer_idx ON api_keys (developer_id, created_at)`);
    await q.query(`
      CREATE TABLE idempotency_keys (
        developer_id uuid NOT NULL REFERENCES developers(id) ON DELETE CASCADE,
        key text NOT NULL,
        request_hash text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress', 'sent', 'done')),
        tx_hash text,
        network text,
        response jsonb,
        status_code integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (developer_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
    await q.query(`
      CREATE TABLE gateway_calls (
        id bigserial PRIMARY KEY,
        developer_id uuid NOT NULL,
        api_key_id uuid NOT NULL,
        contract_id uuid,
        method text,
        kind text NOT NULL CHECK (kind IN ('query', 'invoke')),
        http_status integer NOT NULL,
        latency_ms integer NOT NULL,
        gas_used numeric(78, 0),
        at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX gateway_calls_developer_at_idx ON gateway_calls (developer_id, at)`);
    // Daily rollup written with each batch of calls: analytics reads this, never the raw calls.
    await q.query(`
      CREATE TABLE gateway_usage_daily (
        developer_id uuid NOT NULL,
        day date NOT NULL,
        api_key_id uuid NOT NULL,
        contract_id uuid,
        method text,
        kind text NOT NULL,
        requests bigint NOT NULL,
        errors bigint NOT NULL,
        gas_used numeric(78, 0) NOT NULL,
        latency_sum_ms bigint NOT NULL,
        latency_histogram bigint[] NOT NULL,
        UNIQUE NULLS NOT DISTINCT (developer_id, day, api_key_id, contract_id, method, kind)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gateway_usage_daily`);
    await q.query(`DROP TABLE gateway_calls`);
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE api_keys`);
  }
}
