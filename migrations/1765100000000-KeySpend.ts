import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Spend caps of API keys (docs/api.md, "API keys": spend caps): the four caps of a key, and on each
 * signed transaction the key it was sent with, its gas limit, its fee per gas and, once mined, its
 * effective gas price, from which a key's spend of the day is counted exactly; and the raw
 * transactions a key sent through the JSON-RPC door.
 */
export class KeySpend1765100000000 implements MigrationInterface {
  name = 'KeySpend1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys
        ADD COLUMN spend_max_value_wei_per_tx numeric(78, 0),
        ADD COLUMN spend_max_value_wei_per_day numeric(78, 0),
        ADD COLUMN spend_max_fee_per_gas_wei numeric(78, 0),
        ADD COLUMN spend_max_gas_per_day numeric(78, 0)`);
    await q.query(`
      ALTER TABLE chain_transactions
        ADD COLUMN api_key_id uuid,
        ADD COLUMN gas_limit numeric(78, 0),
        ADD COLUMN fee_per_gas_wei numeric(78, 0),
        ADD COLUMN effective_gas_price_wei numeric(78, 0),
        ADD COLUMN timeout_at timestamptz`);
    await q.query(
      `CREATE INDEX chain_transactions_api_key_day ON chain_transactions (api_key_id, created_at)
        WHERE api_key_id IS NOT NULL`,
    );
    // A queued record can be cancelled (docs/api.md, "Transactions": cancel).
    await q.query(`
      ALTER TABLE transaction_records
        DROP CONSTRAINT transaction_records_status_check,
        ADD CONSTRAINT transaction_records_status_check
          CHECK (status IN ('queued', 'pending', 'success', 'reverted', 'failed', 'cancelled'))`);
    // Raw transactions sent through the JSON-RPC door with a key: not the service's, not tracked.
    await q.query(`
      CREATE TABLE api_key_door_sends (
        network text NOT NULL,
        tx_hash text NOT NULL,
        api_key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        value_wei numeric(78, 0) NOT NULL,
        gas_limit numeric(78, 0) NOT NULL,
        fee_per_gas_wei numeric(78, 0) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (network, tx_hash)
      )`);
    await q.query(`CREATE INDEX api_key_door_sends_key_day ON api_key_door_sends (api_key_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_key_door_sends`);
    await q.query(`
      ALTER TABLE transaction_records
        DROP CONSTRAINT transaction_records_status_check,
        ADD CONSTRAINT transaction_records_status_check
          CHECK (status IN ('queued', 'pending', 'success', 'reverted', 'failed'))`);
    await q.query(`DROP INDEX chain_transactions_api_key_day`);
    await q.query(`
      ALTER TABLE chain_transactions
        DROP COLUMN api_key_id, DROP COLUMN gas_limit, DROP COLUMN fee_per_gas_wei, DROP COLUMN effective_gas_price_wei,
        DROP COLUMN timeout_at`);
    await q.query(`
      ALTER TABLE api_keys
        DROP COLUMN spend_max_value_wei_per_tx, DROP COLUMN spend_max_value_wei_per_day,
        DROP COLUMN spend_max_fee_per_gas_wei, DROP COLUMN spend_max_gas_per_day`);
  }
}
