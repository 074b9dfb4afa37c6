import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Contracts compiled and deployed through the portal. */
export class Contracts1763765000000 implements MigrationInterface {
  name = 'Contracts1763765000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contracts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        network text NOT NULL CHECK (network IN ('testnet', 'mainnet')),
        chain_id integer NOT NULL,
        status text NOT NULL CHECK (status IN ('compiled', 'deploying', 'deployed', 'failed', 'rejected')),
        address text,
        deploy_tx_hash text,
        block_number bigint,
        owner_id uuid NOT NULL REFERENCES developers(id) ON DELETE CASCADE,
        project_id uuid REFERENCES projects(id) ON DELETE SET NULL,
        contract_name text NOT NULL,
        source_file text NOT NULL,
        abi jsonb NOT NULL,
        bytecode text NOT NULL,
        deployed_bytecode text NOT NULL,
        immutable_references jsonb NOT NULL DEFAULT '{}',
        bytecode_hash text NOT NULL,
        source_hash text NOT NULL,
        sources jsonb NOT NULL,
        constructor_args text,
        compiler jsonb NOT NULL,
        middleware_registered boolean NOT NULL DEFAULT false,
        registered_at timestamptz,
        status_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        deployed_at timestamptz,
        approved_at timestamptz
      )`);
    await q.query(`CREATE INDEX contracts_owner_idx ON contracts (owner_id, created_at)`);
    await q.query(`CREATE INDEX contracts_address_idx ON contracts (network, address)`);
    await q.query(`CREATE INDEX contracts_status_idx ON contracts (status, created_at)`);
    await q.query(`CREATE INDEX contracts_name_idx ON contracts (lower(name) text_pattern_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contracts`);
  }
}
