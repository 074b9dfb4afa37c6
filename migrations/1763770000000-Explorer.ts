import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The explorer's block index: blocks, transactions (with their receipts) and logs per network, the
 * indexer's progress, and the verification results of portal contracts. Hashes and addresses are
 * lowercase hex in the "C" collation: compared byte-wise, which is what an index of hex needs.
 */
export class Explorer1763770000000 implements MigrationInterface {
  name = 'Explorer1763770000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE explorer_blocks (
        network text NOT NULL CHECK (network IN ('testnet', 'mainnet')),
        number bigint NOT NULL,
        hash text COLLATE "C" NOT NULL,
        parent_hash text COLLATE "C" NOT NULL,
        timestamp bigint NOT NULL,
        miner text COLLATE "C" NOT NULL,
        transaction_count integer NOT NULL,
        gas_used numeric(78, 0) NOT NULL,
        gas_limit numeric(78, 0) NOT NULL,
        extra_data text NOT NULL,
        PRIMARY KEY (network, number)
      )`);
    await q.query(`CREATE UNIQUE INDEX explorer_blocks_hash_idx ON explorer_blocks (network, hash)`);

    await q.query(`
      CREATE TABLE explorer_transactions (
        network text NOT NULL,
        hash text COLLATE "C" NOT NULL,
        block_number bigint NOT NULL,
        transaction_index integer NOT NULL,
        timestamp bigint NOT NULL,
        from_address text COLLATE "C" NOT NULL,
        to_address text COLLATE "C",
        contract_address text COLLATE "C",
        value numeric(78, 0) NOT NULL,
        nonce bigint NOT NULL,
        gas_limit numeric(78, 0) NOT NULL,
        gas_price numeric(78, 0) NOT NULL,
        gas_used numeric(78, 0) NOT NULL,
        status smallint NOT NULL,
        method_id text COLLATE "C",
        input text NOT NULL,
        PRIMARY KEY (network, hash)
      )`);
    // Transactions of a block, in order (block view).
    await q.query(
      `CREATE INDEX explorer_transactions_block_idx ON explorer_transactions (network, block_number, transaction_index)`,
    );
    // Address activity, newest first: one index per side, merged by the query.
    await q.query(`
      CREATE INDEX explorer_transactions_from_idx
        ON explorer_transactions (network, from_address, block_number DESC, transaction_index DESC)`);
    await q.query(`
      CREATE INDEX explorer_transactions_to_idx
        ON explorer_transactions (network, to_address, block_number DESC, transaction_index DESC)
        WHERE to_address IS NOT NULL`);
    await q.query(`
      CREATE INDEX explorer_transactions_created_idx
        ON explorer_transactions (network, contract_address)
        WHERE contract_address IS NOT NULL`);

    await q.query(`
      CREATE TABLE explorer_logs (
        network text NOT NULL,
        block_number bigint NOT NULL,
        log_index integer NOT NULL,
        transaction_hash text COLLATE "C" NOT NULL,
        address text COLLATE "C" NOT NULL,
        topics text[] NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (network, block_number, log_index)
      )`);

    await q.query(`
      CREATE TABLE explorer_index_state (
        network text PRIMARY KEY CHECK (network IN ('testnet', 'mainnet')),
        first_block bigint NOT NULL,
        last_block bigint NOT NULL,
        last_hash text COLLATE "C" NOT NULL,
        halted_reason text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE explorer_contract_checks (
        contract_id uuid PRIMARY KEY REFERENCES contracts(id) ON DELETE CASCADE,
        network text NOT NULL,
        address text NOT NULL,
        code_matches boolean NOT NULL,
        standard text CHECK (standard IN ('ERC-20', 'ERC-721', 'ERC-1155')),
        token_name text,
        token_symbol text,
        token_decimals integer,
        checked_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE INDEX explorer_contract_checks_assets_idx
        ON explorer_contract_checks (checked_at DESC)
        WHERE code_matches AND standard IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE explorer_contract_checks`);
    await q.query(`DROP TABLE explorer_index_state`);
    await q.query(`DROP TABLE explorer_logs`);
    await q.query(`DROP TABLE explorer_transactions`);
    await q.query(`DROP TABLE explorer_blocks`);
  }
}
