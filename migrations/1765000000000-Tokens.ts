import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Token transfers, balances and tokens, written by the explorer's indexer in the block's own
 * transaction (docs/api.md, "Tokens"). Balances are kept by deltas, never by scanning.
 */
export class Tokens1765000000000 implements MigrationInterface {
  name = 'Tokens1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE token_transfers (
        network text NOT NULL,
        block_number bigint NOT NULL,
        log_index integer NOT NULL,
        batch_index integer NOT NULL DEFAULT -1,
        tx_hash text COLLATE "C" NOT NULL,
        token text COLLATE "C" NOT NULL,
        type text NOT NULL CHECK (type IN ('ERC-20', 'ERC-721', 'ERC-1155')),
        from_address text COLLATE "C" NOT NULL,
        to_address text COLLATE "C" NOT NULL,
        value numeric(78, 0),
        token_id numeric(78, 0),
        timestamp bigint NOT NULL,
        PRIMARY KEY (network, block_number, log_index, batch_index)
      )`);
    await q.query(
      `CREATE INDEX token_transfers_from_idx ON token_transfers (network, from_address, block_number DESC, log_index DESC, batch_index DESC)`,
    );
    await q.query(
      `CREATE INDEX token_transfers_to_idx ON token_transfers (network, to_address, block_number DESC, log_index DESC, batch_index DESC)`,
    );
    await q.query(
      `CREATE INDEX token_transfers_token_idx ON token_transfers (network, token, block_number DESC, log_index DESC, batch_index DESC)`,
    );
    await q.query(`CREATE INDEX token_transfers_tx_idx ON token_transfers (network, tx_hash)`);
    await q.query(`
      CREATE TABLE token_balances (
        network text NOT NULL,
        token text COLLATE "C" NOT NULL,
        holder text COLLATE "C" NOT NULL,
        token_id numeric(78, 0) NOT NULL DEFAULT -1,
        value numeric(78, 0) NOT NULL,
        PRIMARY KEY (network, token, holder, token_id)
      )`);
    await q.query(`CREATE INDEX token_balances_holder_idx ON token_balances (network, holder)`);
    await q.query(
      `CREATE INDEX token_balances_value_idx ON token_balances (network, token, value DESC, holder DESC, token_id DESC)`,
    );
    await q.query(`
      CREATE TABLE tokens (
        network text NOT NULL,
        address text COLLATE "C" NOT NULL,
        type text NOT NULL CHECK (type IN ('ERC-20', 'ERC-721', 'ERC-1155')),
        first_block bigint NOT NULL,
        name text,
        symbol text,
        decimals integer,
        total_supply numeric(78, 0),
        metadata_read_at timestamptz,
        holder_count bigint NOT NULL DEFAULT 0,
        transfer_count bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (network, address)
      )`);
    await q.query(`CREATE INDEX tokens_name_idx ON tokens (network, lower(name) text_pattern_ops)`);
    await q.query(`CREATE INDEX tokens_symbol_idx ON tokens (network, lower(symbol) text_pattern_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE tokens`);
    await q.query(`DROP TABLE token_balances`);
    await q.query(`DROP TABLE token_transfers`);
  }
}
