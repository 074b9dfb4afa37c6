import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Transactions signed by the service, and faucet drips. */
export class Transactions1763766000000 implements MigrationInterface {
  name = 'Transactions1763766000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chain_transactions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        network text NOT NULL CHECK (network IN ('testnet', 'mainnet')),
        from_address text NOT NULL,
        to_address text,
        nonce bigint NOT NULL,
        tx_hash text NOT NULL,
        raw_tx text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('faucet', 'deploy', 'invoke', 'nonce-filler')),
        value_wei numeric(78, 0) NOT NULL DEFAULT 0,
        developer_id uuid REFERENCES developers(id) ON DELETE SET NULL,
        contract_id uuid REFERENCES contracts(id) ON DELETE SET NULL,
        method text,
        status text NOT NULL CHECK (status IN ('pending', 'success', 'reverted', 'dropped')),
        block_number bigint,
        gas_used numeric(78, 0),
        contract_address text,
        block_timestamp bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        mined_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX chain_transactions_hash_idx ON chain_transactions (network, tx_hash)`);
    // A dropped transaction's nonce may be used again; two live ones may never share a nonce.
    await q.query(
      `CREATE UNIQUE INDEX chain_transactions_nonce_idx ON chain_transactions (network, from_address, nonce) WHERE status <> 'dropped'`,
    );
    await q.query(
      `CREATE INDEX chain_transactions_to_idx ON chain_transactions (network, to_address, created_at DESC)`,
    );
    await q.query(
      `CREATE INDEX chain_transactions_pending_idx ON chain_transactions (created_at) WHERE status = 'pending'`,
    );
    await q.query(`
      CREATE TABLE faucet_drips (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        developer_id uuid NOT NULL REFERENCES developers(id) ON DELETE CASCADE,
        day date NOT NULL,
        tx_hash text,
        amount_wei numeric(78, 0) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX faucet_drips_day_idx ON faucet_drips (developer_id, day)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE faucet_drips`);
    await q.query(`DROP TABLE chain_transactions`);
  }
}
