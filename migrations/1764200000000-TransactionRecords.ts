import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Transaction records: one per invoke, deploy and faucet drip, from the moment it is accepted to
 * its end (queued, pending, success, reverted or failed), whether or not it ever reached the chain.
 * Each signed transaction (chain_transactions) names the record it was sent for.
 */
export class TransactionRecords1764200000000 implements MigrationInterface {
  name = 'TransactionRecords1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE transaction_records (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('invoke', 'deploy', 'faucet')),
        network text NOT NULL CHECK (network IN ('testnet', 'mainnet')),
        developer_id uuid NOT NULL REFERENCES developers(id) ON DELETE CASCADE,
        api_key_id uuid REFERENCES api_keys(id) ON DELETE SET NULL,
        contract_id uuid REFERENCES contracts(id) ON DELETE SET NULL,
        method text,
        status text NOT NULL CHECK (status IN ('queued', 'pending', 'success', 'reverted', 'failed')),
        tx_hash text,
        nonce bigint,
        block_number bigint,
        gas_used numeric(78, 0),
        revert_reason text,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX transaction_records_queued_idx ON transaction_records (created_at) WHERE status = 'queued'`,
    );
    await q.query(
      `ALTER TABLE chain_transactions ADD COLUMN IF NOT EXISTS record_id uuid REFERENCES transaction_records(id) ON DELETE SET NULL`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS chain_transactions_record_idx ON chain_transactions (record_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS chain_transactions_record_idx`);
    await q.query(`ALTER TABLE chain_transactions DROP COLUMN IF EXISTS record_id`);
    await q.query(`DROP TABLE transaction_records`);
  }
}
