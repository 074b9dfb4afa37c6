import type { DataSource } from 'typeorm';
import type { Network } from '../../kernel/network';

// Read model of a wallet's history (docs/architecture.md, "Tables: one owner each"): the wallet's
// own sends, the records that ended them and the explorer's index of the wallet's other
// transactions, in one query: newest first, pending first.

/** One item of a wallet's history, as the query answers it. */
export interface HistoryRow {
  hash: string;
  kind: 'faucet' | 'deploy' | 'invoke' | 'transfer-in' | 'transfer-out';
  from_address: string;
  to_address: string | null;
  value_wei: string;
  gas_used: string | null;
  status: string;
  block_number: string | null;
  ts: string;
  contract_id: string | null;
  method: string | null;
  pending: 0 | 1;
  at: string;
  position: number;
}

/** Where the next page starts: the last item's place, from the page cursor. */
export interface HistoryPosition {
  pending: 0 | 1;
  at: number;
  position: number;
  hash: string;
}

/** Up to `limit` items of the wallet at `address`, after `after`. */
export async function walletHistoryRows(
  ds: DataSource,
  q: { network: Network; address: string; after: HistoryPosition | null; limit: number },
): Promise<HistoryRow[]> {
  const { network, address, after, limit } = q;
  return (await ds.query(
    `WITH items AS (
       -- A nonce filler (the tracker's self-transfer in place of a transaction that can never
       -- land) and a cancel's replacement are, on chain, transfers the wallet sent.
       SELECT c.tx_hash AS hash,
              CASE WHEN c.kind IN ('nonce-filler', 'cancel') THEN 'transfer-out' ELSE c.kind END AS kind,
              c.from_address AS from_address, c.to_address,
              c.value_wei::text AS value_wei, c.gas_used::text AS gas_used,
              CASE WHEN c.status = 'dropped' THEN 'failed' ELSE c.status END AS status, c.block_number,
              -- A failed one is placed just before the first mined transaction at or after its nonce.
              CASE WHEN c.status = 'dropped'
                   THEN (SELECT min(o.block_number) FROM chain_transactions o
                          WHERE o.network = c.network AND o.from_address = c.from_address
                            AND o.nonce >= c.nonce AND o.status <> 'dropped')
                   ELSE c.block_number END AS order_block,
              coalesce(c.block_timestamp, extract(epoch FROM c.created_at)::bigint) AS ts,
              CASE WHEN c.status = 'dropped' THEN -1 ELSE coalesce(c.tx_index, x.transaction_index, -1) END AS tx_index,
              c.contract_id, c.method
         FROM chain_transactions c
         LEFT JOIN explorer_transactions x ON x.network = c.network AND x.hash = c.tx_hash
        WHERE c.network = $1 AND (c.from_address = $2 OR c.to_address = $2)
          -- Of the dropped signed transactions, those that ended their record failed (not a re-signed one).
          AND (c.status <> 'dropped' OR EXISTS (
                SELECT 1 FROM transaction_records r
                 WHERE r.id = c.record_id AND r.status = 'failed' AND r.tx_hash = c.tx_hash))
       UNION ALL
       SELECT e.hash, CASE WHEN e.from_address = $3 THEN 'transfer-out' ELSE 'transfer-in' END,
              e.from_address, e.to_address, e.value::text, e.gas_used::text,
              CASE WHEN e.status = 1 THEN 'success' ELSE 'reverted' END, e.block_number, e.block_number,
              e.timestamp, e.transaction_index, NULL, NULL
         FROM explorer_transactions e
        WHERE e.network = $1 AND (e.from_address = $3 OR e.to_address = $3)
          AND NOT EXISTS (SELECT 1 FROM chain_transactions c WHERE c.network = $1 AND c.tx_hash = e.hash)
     )
     SELECT * FROM (
       -- Pending first, by the time they were sent; then mined ones by block and position in it.
       SELECT *, (order_block IS NULL)::int AS pending,
              coalesce(order_block, ts) AS at, CASE WHEN order_block IS NULL THEN 0 ELSE tx_index END AS position
         FROM items) i
      WHERE $4::bigint IS NULL OR (pending, at, position, hash) < ($7::int, $4::bigint, $8::int, $5::text)
      ORDER BY pending DESC, at DESC, position DESC, hash DESC
      LIMIT $6`,
    [
      network,
      address,
      address.toLowerCase(),
      after?.at ?? null,
      after?.hash ?? null,
      limit,
      after?.pending ?? 0,
      after?.position ?? 0,
    ],
  )) as HistoryRow[];
}
