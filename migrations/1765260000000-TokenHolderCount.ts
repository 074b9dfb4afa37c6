import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An ERC-1155 token's `holderCount` counts holders with a positive balance of any id, each once
 * (docs/api.md, "Tokens"); it counted holder and id pairs. The counters of the ERC-1155 tokens
 * already indexed are counted again from their balances (one pass over their balance rows).
 */
export class TokenHolderCount1765260000000 implements MigrationInterface {
  name = 'TokenHolderCount1765260000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE tokens t
         SET holder_count = (SELECT count(DISTINCT b.holder) FROM token_balances b
                              WHERE b.network = t.network AND b.token = t.address AND b.value > 0)
       WHERE t.type = 'ERC-1155'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE tokens t
         SET holder_count = (SELECT count(*) FROM token_balances b
                              WHERE b.network = t.network AND b.token = t.address AND b.value > 0)
       WHERE t.type = 'ERC-1155'`);
  }
}
