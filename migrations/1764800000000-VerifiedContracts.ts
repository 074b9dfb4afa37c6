import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contracts verified by recompiling their sources, and the verification requests of the
 * Etherscan-compatible API (docs/api.md, "Verification").
 */
export class VerifiedContracts1764800000000 implements MigrationInterface {
  name = 'VerifiedContracts1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE verified_contracts (
        network text NOT NULL,
        address text COLLATE "C" NOT NULL,
        name text NOT NULL,
        source_file text NOT NULL,
        match text NOT NULL CHECK (match IN ('full', 'partial')),
        compiler_version text NOT NULL,
        evm_version text NOT NULL,
        optimizer boolean NOT NULL,
        runs integer NOT NULL,
        code_format text NOT NULL,
        sources jsonb NOT NULL,
        standard_json text,
        abi jsonb NOT NULL,
        constructor_args text NOT NULL,
        license_type text,
        creation_tx_hash text COLLATE "C",
        creator text COLLATE "C",
        verified_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (network, address)
      )`);
    await q.query(`
      CREATE TABLE verification_jobs (
        guid text COLLATE "C" PRIMARY KEY,
        network text NOT NULL,
        address text COLLATE "C" NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'pass', 'fail', 'already')),
        reason text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX verification_jobs_created_idx ON verification_jobs (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE verification_jobs`);
    await q.query(`DROP TABLE verified_contracts`);
  }
}
