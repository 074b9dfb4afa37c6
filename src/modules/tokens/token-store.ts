import type { QueryRunner } from 'typeorm';
import type { Network } from '../../kernel/network';
import { NO_TOKEN_ID, ZERO_ADDRESS, type TokenTransferRow, type TokenType } from './token-logs';

type Row = Record<string, unknown>;

interface BalanceDelta {
  token: string;
  holder: string;
  tokenId: string;
  delta: bigint;
}

/**
 * The balance changes of a batch's transfers, summed per (token, holder, id): ERC-20 by value,
 * ERC-721 by one per token (a holder's count), ERC-1155 by value per id. The zero address is the
 * source of mints and the sink of burns, never a holder. Rows whose sum is 0 (a self-transfer) drop.
 */
export function balanceDeltas(rows: readonly TokenTransferRow[]): BalanceDelta[] {
  const sums = new Map<string, BalanceDelta>();
  const add = (token: string, holder: string, tokenId: string, delta: bigint) => {
    if (holder === ZERO_ADDRESS || delta === 0n) return;
    const key = `${token}|${holder}|${tokenId}`;
    const entry = sums.get(key);
    if (entry) entry.delta += delta;
    else sums.set(key, { token, holder, tokenId, delta });
  };
  for (const r of rows) {
    const amount = r.type === 'ERC-721' ? 1n : BigInt(r.value ?? '0');
    const id = r.type === 'ERC-1155' ? r.tokenId! : NO_TOKEN_ID;
    add(r.token, r.from, id, -amount);
    add(r.token, r.to, id, amount);
  }
  return [...sums.values()].filter((d) => d.delta !== 0n);
}

/** Transfer items written per round of statements: a round's work in JS stays a few milliseconds. */
export const ITEMS_PER_WRITE = 5_000;

/**
 * Writes a batch's transfer items, the balance deltas and the tokens' counters on `runner`, inside
 * the transaction that writes the blocks (block-index.ts writeBatch): one statement per table for
 * each ITEMS_PER_WRITE items, so that a batch built to be heavy never holds the event loop long.
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

async function writeChunk(runner: QueryRunner, network: Network, rows: readonly TokenTransferRow[]): Promise<void> {
  if (rows.length === 0) return;
  const inserted: Row[] = await runner.query(
    `INSERT INTO token_transfers (network, block_number, log_index, batch_index, tx_hash, token, type,
       from_address, to_address, value, token_id, timestamp)
     SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[],
                              $9::text[], $10::numeric[], $11::numeric[], $12::bigint[])
     ON CONFLICT DO NOTHING
     RETURNING block_number, log_index, batch_index`,
    [
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
    ],
  );
  // Rows already there (a batch written again after a lost commit answer) change no balance.
  let fresh = rows;
  if (inserted.length !== rows.length) {
    const keys = new Set(
      inserted.map((r) => `${String(r.block_number)}|${String(r.log_index)}|${String(r.batch_index)}`),
    );
    fresh = rows.filter((r) => keys.has(`${r.block}|${r.logIndex}|${r.batchIndex}`));
    if (fresh.length === 0) return;
  }

  // Tokens: the first transfer names the type; counters move by the batch's items.
  const perToken = new Map<string, { type: TokenType; first: number; transfers: number; holders: number }>();
  for (const r of fresh) {
    const t = perToken.get(r.token);
    if (t) t.transfers += 1;
    else perToken.set(r.token, { type: r.type, first: r.block, transfers: 1, holders: 0 });
  }

  const deltas = balanceDeltas(fresh);
  if (deltas.length > 0) {
    const updated: Row[] = await runner.query(
      `INSERT INTO token_balances AS b (network, token, holder, token_id, value)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::numeric[], $5::numeric[])
       ON CONFLICT (network, token, holder, token_id) DO UPDATE SET value = b.value + EXCLUDED.value
       RETURNING token, holder, token_id::text AS token_id, value::text AS value`,
      [
        network,
        deltas.map((d) => d.token),
        deltas.map((d) => d.holder),
        deltas.map((d) => d.tokenId),
        deltas.map((d) => d.delta.toString()),
      ],
    );
    // A holder appears when its balance goes from 0 (or less: a token that lies) to more, and leaves
    // when it goes back to 0; RETURNING gives the new value, the delta gives the old one.
    const byKey = new Map<string, bigint>();
    deltas.forEach((d) => byKey.set(`${d.token}|${d.holder}|${d.tokenId}`, d.delta));
    for (const u of updated) {
      const token = u.token as string;
      const after = BigInt(u.value as string);
      const before = after - (byKey.get(`${token}|${u.holder as string}|${u.token_id as string}`) ?? 0n);
      const entry = perToken.get(token);
      if (!entry) continue;
      if (before <= 0n && after > 0n) entry.holders += 1;
      else if (before > 0n && after <= 0n) entry.holders -= 1;
    }
    await runner.query(`DELETE FROM token_balances WHERE network = $1 AND token = ANY($2::text[]) AND value = 0`, [
      network,
      [...new Set(deltas.map((d) => d.token))],
    ]);
  }

  const tokens = [...perToken.entries()];
  await runner.query(
    `INSERT INTO tokens AS t (network, address, type, first_block, transfer_count, holder_count)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
     ON CONFLICT (network, address) DO UPDATE
       SET transfer_count = t.transfer_count + EXCLUDED.transfer_count,
           holder_count = t.holder_count + EXCLUDED.holder_count`,
    [
      network,
      tokens.map(([a]) => a),
      tokens.map(([, t]) => t.type),
      tokens.map(([, t]) => t.first),
      tokens.map(([, t]) => t.transfers),
      tokens.map(([, t]) => t.holders),
    ],
  );
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
            holder_count = (SELECT count(*) FROM token_balances b WHERE b.network = $1 AND b.token = t.address AND b.value > 0)
      WHERE t.network = $1 AND t.address = ANY($2::text[])`,
    [network, tokens],
  );
}
