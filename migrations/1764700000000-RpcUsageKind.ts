import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Calls of the JSON-RPC door are recorded with the gateway's, as kind `rpc` (docs/api.md, "JSON-RPC door"). */
export class RpcUsageKind1764700000000 implements MigrationInterface {
  name = 'RpcUsageKind1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE gateway_call_batches DROP CONSTRAINT gateway_call_batches_kind_check`);
    await q.query(
      `ALTER TABLE gateway_call_batches ADD CONSTRAINT gateway_call_batches_kind_check CHECK (kind IN ('query', 'invoke', 'rpc'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM gateway_call_batches WHERE kind = 'rpc'`);
    await q.query(`DELETE FROM gateway_usage_daily WHERE kind = 'rpc'`);
    await q.query(`ALTER TABLE gateway_call_batches DROP CONSTRAINT gateway_call_batches_kind_check`);
    await q.query(
      `ALTER TABLE gateway_call_batches ADD CONSTRAINT gateway_call_batches_kind_check CHECK (kind IN ('query', 'invoke'))`,
    );
  }
}
