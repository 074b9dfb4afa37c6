import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The receipts of raw transactions sent through the JSON-RPC door with a key (docs/api.md, "API
 * keys": spend caps): once mined, a send counts its gas used × effective gas price beside its value,
 * and its gas used instead of its gas limit. `settled_at` is set once, so nothing is counted twice.
 */
export class DoorSendReceipts1765237430000 implements MigrationInterface {
  name = 'DoorSendReceipts1765237430000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_key_door_sends
        ADD COLUMN gas_used numeric(78, 0),
        ADD COLUMN effective_gas_price_wei numeric(78, 0),
        ADD COLUMN block_number bigint,
        ADD COLUMN settled_at timestamptz`);
    await q.query(
      `CREATE INDEX api_key_door_sends_unsettled ON api_key_door_sends (created_at) WHERE settled_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX api_key_door_sends_unsettled`);
    await q.query(`
      ALTER TABLE api_key_door_sends
        DROP COLUMN gas_used, DROP COLUMN effective_gas_price_wei, DROP COLUMN block_number, DROP COLUMN settled_at`);
  }
}
