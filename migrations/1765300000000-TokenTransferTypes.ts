import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sender's and the recipient's indexes of token transfers hold each transfer's `type` too, so
 * that an address's transfers of one standard (Etherscan's `tokentx`, `tokennfttx`,
 * `token1155tx`; `alchemy_getAssetTransfers`) are found from the index alone: page 100 × 100 of a
 * busy account visited the table for each of the 10,000 entries it passed over (docs/api.md,
 * "Etherscan-compatible API"; BENCHMARKS.md, "Chain-scale index"). The indexes keep their names
 * and keys; each grows by about 10 bytes a transfer.
 *
 * On an existing index each build holds writes to token_transfers while it runs (the indexer
 * waits; reads go on): about a second for 415,000 transfers on the benchmark's 2-core machine.
 */
export class TokenTransferTypes1765300000000 implements MigrationInterface {
  name = 'TokenTransferTypes1765300000000';

  async up(q: QueryRunner): Promise<void> {
    for (const column of ['from', 'to']) {
      await q.query(
        `CREATE INDEX token_transfers_${column}_type_idx ON token_transfers
           (network, ${column}_address, block_number DESC, log_index DESC, batch_index DESC) INCLUDE (type)`,
      );
      await q.query(`DROP INDEX token_transfers_${column}_idx`);
      await q.query(`ALTER INDEX token_transfers_${column}_type_idx RENAME TO token_transfers_${column}_idx`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const column of ['from', 'to']) {
      await q.query(
        `CREATE INDEX token_transfers_${column}_keys_idx ON token_transfers
           (network, ${column}_address, block_number DESC, log_index DESC, batch_index DESC)`,
      );
      await q.query(`DROP INDEX token_transfers_${column}_idx`);
      await q.query(`ALTER INDEX token_transfers_${column}_keys_idx RENAME TO token_transfers_${column}_idx`);
    }
  }
}
