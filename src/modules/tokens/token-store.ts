import type { QueryRunner } from 'typeorm';
import type { Network } from '../../kernel/network';
import { NO_TOKEN_ID, ZERO_ADDRESS, type TokenTransferRow } from './token-logs';

type Row = Record<string, unknown>;

/** Transfer items written per statement: a round's work in JS stays a few milliseconds. */
export const ITEMS_PER_WRITE = 5_000;

/**
 * Writes a batch's transfer items, the balance deltas and the tokens' counters on `runner`, inside
 * the transaction that writes the blocks (block-index.ts writeBatch): one statement for each
 * ITEMS_PER_WRITE items, so that a batch built to be heavy never holds the event loop long, and a
 * second one only when balances fell to 0 (their rows go).
 */
export async function writeTokenTransfers(
  runner: QueryRunner,
  network: Network,
  rows: readonly TokenTransferRow[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += ITEMS_PER_WRITE) {
    await writeChunk(runner, network, rows.slice(i, i + ITEMS_PER_WRITE));
  }
}

/** An item's move of a balance: ERC-20 by value, ERC-721 by one token (a holder's count), ERC-1155 by value per id. */
const AMOUNT = `CASE WHEN type = 'ERC-721' THEN 1 ELSE value END`;
const BALANCE_ID = `CASE WHEN type = 'ERC-1155' THEN token_id ELSE ${NO_TOKEN_ID} END`;

/**
 * One statement per chunk (docs/api.md, "Tokens"): the items; the balance deltas of the items that
 * were new (a batch written again after a lost commit answer changes no balance), summed per
 * (token, holder, id) with the zero address never a holder; the tokens, the first item naming the
 * type, counters moved by the chunk. A holder counts once per token whatever its ids (ERC-1155):
 * it appears when its first positive balance row does and leaves with its last, the rows before
 * the statement being what its snapshot reads. Answers the tokens left with balance rows at 0.
 */
const WRITE_CHUNK_SQL = `
  WITH fresh AS (
    INSERT INTO token_transfers (network, block_number, log_index, batch_index, tx_hash, token, type,
      from_address, to_address, value, token_id, timestamp)
    SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[],
                             $9::text[], $10::numeric[], $11::numeric[], $12::bigint[])
    ON CONFLICT DO NOTHING
    RETURNING block_number, log_index, batch_index, token, type, from_address, to_address, value, token_id
  ), moves AS (
    SELECT token, from_address AS holder, ${BALANCE_ID} AS token_id, -(${AMOUNT}) AS amount FROM fresh
    UNION ALL
    SELECT token, to_address, ${BALANCE_ID}, ${AMOUNT} FROM fresh
  ), deltas AS (
    SELECT token, holder, token_id, sum(amount) AS delta FROM moves
     WHERE holder <> '${ZERO_ADDRESS}' GROUP BY token, holder, token_id HAVING sum(amount) <> 0
  ), balances AS (
    INSERT INTO token_balances AS b (network, token, holder, token_id, value)
    SELECT $1, token, holder, token_id, delta FROM deltas
    ON CONFLICT (network, token, holder, token_id) DO UPDATE SET value = b.value + EXCLUDED.value
    RETURNING token, holder, token_id, value
  ), gains AS (
    -- Positive rows each holder gained; none (or as many lost as gained): a holder before and after.
    SELECT n.token, n.holder, sum((n.value > 0)::int - (n.value - d.delta > 0)::int) AS gained
      FROM balances n JOIN deltas d USING (token, holder, token_id)
     GROUP BY n.token, n.holder
    HAVING sum((n.value > 0)::int - (n.value - d.delta > 0)::int) <> 0
  ), holders AS (
    SELECT g.token,
           sum(CASE WHEN h.before = 0 AND g.gained > 0 THEN 1 WHEN h.before > 0 AND h.before + g.gained = 0 THEN -1
                    ELSE 0 END) AS change
      FROM gains g
      CROSS JOIN LATERAL (
        SELECT count(*) AS before FROM token_balances x
         WHERE x.network = $1 AND x.token = g.token AND x.holder = g.holder AND x.value > 0
      ) h
     GROUP BY g.token
  ), counts AS (
    SELECT token, (array_agg(type ORDER BY block_number, log_index, batch_index))[1] AS type,
           min(block_number) AS first_block, count(*) AS transfers
      FROM fresh GROUP BY token
  ), tokens AS (
    INSERT INTO tokens AS t (network, address, type, first_block, transfer_count, holder_count)
    SELECT $1, c.token, c.type, c.first_block, c.transfers, coalesce(h.change, 0)
      FROM counts c LEFT JOIN holders h USING (token)
    ON CONFLICT (network, address) DO UPDATE
      SET transfer_count = t.transfer_count + EXCLUDED.transfer_count,
          holder_count = t.holder_count + EXCLUDED.holder_count
  )
  SELECT coalesce(array_agg(DISTINCT token), '{}') AS emptied FROM balances WHERE value = 0`;

async function writeChunk(runner: QueryRunner, network: Network, rows: readonly TokenTransferRow[]): Promise<void> {
  if (rows.length === 0) return;
  const [answer]: Array<{ emptied: string[] }> = await runner.query(WRITE_CHUNK_SQL, [
    network,
    rows.map((r) => r.block),
    rows.map((r) => r.logIndex),
    rows.map((r) => r.batchIndex),
    rows.map((r) => r.txHash),
    rows.map((r) => r.token),
    rows.map((r) => r.type),
    rows.map((r) => r.from),
    rows.map((r) => r.to),
    rows.map((r) => r.value),
    rows.map((r) => r.tokenId),
    rows.map((r) => r.timestamp),
  ]);
  const emptied = answer?.emptied ?? [];
  if (emptied.length > 0) {
    await runner.query(`DELETE FROM token_balances WHERE network = $1 AND token = ANY($2::text[]) AND value = 0`, [
      network,
      emptied,
    ]);
  }
}

/**
 * Undoes the token rows of blocks from `fromBlock` on, in the transaction of block-index.ts
 * forgetFrom: balances lose the deltas of the forgotten transfers, counters are recounted for the
 * tokens touched, tokens first seen there go.
 */
export async function forgetTokenTransfers(runner: QueryRunner, network: Network, fromBlock: number): Promise<void> {
  const touched: Row[] = await runner.query(
    `SELECT DISTINCT token FROM token_transfers WHERE network = $1 AND block_number >= $2`,
    [network, fromBlock],
  );
  if (touched.length === 0) return;
  await runner.query(
    `WITH moves AS (
       SELECT token, from_address AS holder,
              CASE WHEN type = 'ERC-1155' THEN token_id ELSE -1 END AS token_id,
              CASE WHEN type = 'ERC-721' THEN 1 ELSE value END AS amount
         FROM token_transfers WHERE network = $1 AND block_number >= $2
       UNION ALL
       SELECT token, to_address,
              CASE WHEN type = 'ERC-1155' THEN token_id ELSE -1 END,
              -(CASE WHEN type = 'ERC-721' THEN 1 ELSE value END)
         FROM token_transfers WHERE network = $1 AND block_number >= $2
     ), sums AS (
       SELECT token, holder, token_id, sum(amount) AS delta FROM moves
        WHERE holder <> '${ZERO_ADDRESS}' GROUP BY token, holder, token_id
     )
     INSERT INTO token_balances AS b (network, token, holder, token_id, value)
     SELECT $1, token, holder, token_id, delta FROM sums WHERE delta <> 0
     ON CONFLICT (network, token, holder, token_id) DO UPDATE SET value = b.value + EXCLUDED.value`,
    [network, fromBlock],
  );
  const tokens = touched.map((r) => r.token as string);
  await runner.query(`DELETE FROM token_balances WHERE network = $1 AND token = ANY($2::text[]) AND value = 0`, [
    network,
    tokens,
  ]);
  await runner.query(`DELETE FROM token_transfers WHERE network = $1 AND block_number >= $2`, [network, fromBlock]);
  await runner.query(`DELETE FROM tokens WHERE network = $1 AND first_block >= $2`, [network, fromBlock]);
  await runner.query(
    `UPDATE tokens t
        SET transfer_count = (SELECT count(*) FROM token_transfers x WHERE x.network = $1 AND x.token = t.address),
            holder_count = (SELECT count(DISTINCT holder) FROM token_balances b
                             WHERE b.network = $1 AND b.token = t.address AND b.value > 0)
      WHERE t.network = $1 AND t.address = ANY($2::text[])`,
    [network, tokens],
  );
}
