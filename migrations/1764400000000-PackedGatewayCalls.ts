import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The columns `gateway_calls` has always shown, one row per call. */
const CALL_COLUMNS = 'developer_id, api_key_id, contract_id, method, kind, http_status, latency_ms, gas_used, at';

/**
 * Gateway call records packed: one row per group of calls written together (same developer, key,
 * contract, method and kind), their status, latency, gas and time side by side in arrays, instead
 * of one row per call. PostgreSQL inserted and indexed a row for every gateway call, 7.7 µs of
 * its CPU per call on the cores the service runs on (BENCHMARKS.md, "Call records packed").
 * `gateway_calls` stays, as a view with a row per call and the same columns.
 */
export class PackedGatewayCalls1764400000000 implements MigrationInterface {
  name = 'PackedGatewayCalls1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway_call_batches (
        id bigserial PRIMARY KEY,
        developer_id uuid NOT NULL,
        api_key_id uuid NOT NULL,
        contract_id uuid,
        method text,
        kind text NOT NULL CHECK (kind IN ('query', 'invoke')),
        first_at timestamptz NOT NULL,
        http_status integer[] NOT NULL,
        latency_ms integer[] NOT NULL,
        gas_used numeric(78, 0)[] NOT NULL,
        at_ms bigint[] NOT NULL,
        CHECK (
          cardinality(http_status) > 0
          AND cardinality(latency_ms) = cardinality(http_status)
          AND cardinality(gas_used) = cardinality(http_status)
          AND cardinality(at_ms) = cardinality(http_status)
        )
      )`);
    await q.query(
      `CREATE INDEX gateway_call_batches_developer_at_idx ON gateway_call_batches (developer_id, first_at)`,
    );
    // The rows so far, a batch per group and minute.
    await q.query(`
      INSERT INTO gateway_call_batches
        (developer_id, api_key_id, contract_id, method, kind, first_at, http_status, latency_ms, gas_used, at_ms)
      SELECT developer_id, api_key_id, contract_id, method, kind, min(at),
             array_agg(http_status ORDER BY at, id), array_agg(latency_ms ORDER BY at, id),
             array_agg(gas_used ORDER BY at, id), array_agg(round(extract(epoch FROM at) * 1000)::bigint ORDER BY at, id)
        FROM gateway_calls
       GROUP BY developer_id, api_key_id, contract_id, method, kind, date_trunc('minute', at)
       ORDER BY min(at)`);
    await q.query(`DROP TABLE gateway_calls`);
    // A call's id: its batch's id, then its place in the batch (a batch holds far fewer than 2^24).
    await q.query(`
      CREATE VIEW gateway_calls AS
      SELECT (b.id << 24) + c.n AS id, b.developer_id, b.api_key_id, b.contract_id, b.method, b.kind,
             c.http_status, c.latency_ms, c.gas_used, to_timestamp(c.at_ms / 1000.0) AS at
        FROM gateway_call_batches b,
             unnest(b.http_status, b.latency_ms, b.gas_used, b.at_ms) WITH ORDINALITY AS c(http_status, latency_ms, gas_used, at_ms, n)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER VIEW gateway_calls RENAME TO gateway_calls_packed`);
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
    await q.query(
      `INSERT INTO gateway_calls (${CALL_COLUMNS}) SELECT ${CALL_COLUMNS} FROM gateway_calls_packed ORDER BY at, id`,
    );
    await q.query(`DROP VIEW gateway_calls_packed`);
    await q.query(`DROP TABLE gateway_call_batches`);
  }
}
