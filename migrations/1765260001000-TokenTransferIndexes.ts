import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An address's token transfers filtered by type or token (docs/api.md, "Tokens") walked the
 * sender's and the recipient's index reading every transfer of the address from the table to
 * check the filter: a page of the type of 100 of a busy address's 200,000 transfers, all in the
 * oldest tenth, took 330 ms (p50; BENCHMARKS.md, "Token transfers in the index"). The two indexes
 * now carry type and token, so the page's positions are found in the index alone (20 ms). A
 * transaction's transfers are read by its block (the primary key), so the index by transaction
 * hash goes: one index fewer to write for each item.
 *
 * On an existing index the builds hold writes to token_transfers while they run (the indexer
 * waits; reads go on): about 3 s each for 1,000,000 transfers on a 2-core machine.
 */
export class TokenTransferIndexes1765260001000 implements MigrationInterface {
  name = 'TokenTransferIndexes1765260001000';

  async up(q: QueryRunner): Promise<void> {
    for (const side of ['from', 'to']) {
      await q.query(`DROP INDEX token_transfers_${side}_idx`);
      await q.query(
        `CREATE INDEX token_transfers_${side}_idx ON token_transfers
           (network, ${side}_address, block_number DESC, log_index DESC, batch_index DESC) INCLUDE (type, token)`,
      );
    }
    await q.query(`DROP INDEX token_transfers_tx_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX token_transfers_tx_idx ON token_transfers (network, tx_hash)`);
    for (const side of ['from', 'to']) {
      await q.query(`DROP INDEX token_transfers_${side}_idx`);
      await q.query(
        `CREATE INDEX token_transfers_${side}_idx ON token_transfers
           (network, ${side}_address, block_number DESC, log_index DESC, batch_index DESC)`,
      );
    }
  }
}
