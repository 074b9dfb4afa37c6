import type { DataSource } from 'typeorm';
import type { Network } from '../../kernel/network';

// Read models of the Etherscan-compatible API over the explorer's index (docs/architecture.md,
// "Tables: one owner each"; docs/api.md, "Etherscan-compatible API"): transactions with their
// block hash, cumulative gas and the indexed head; blocks by time; blocks' timestamps.

type Row = Record<string, unknown>;

/** Transactions from, to or creating `address` in blocks `start` to `end`, with their block hash, cumulative gas and the head. */
export async function accountTransactions(
  ds: DataSource,
  network: Network,
  q: { address: string; start: number; end: number; sort: 'ASC' | 'DESC'; limit: number; skip: number },
): Promise<Row[]> {
  // The page's positions are found first, each branch (from, to, created) reading at most
  // skip + limit (≤ 10,000) positions from its own index alone, in the page's order; PostgreSQL
  // merges them in that order (Merge Append) and DISTINCT ON drops a transaction found twice (to
  // itself), the two copies being neighbours, so it reads skip + limit positions in all (a UNION
  // read every branch whole, hashed and sorted them: 17 → 8 ms for page 100 × 100 of a busy
  // address). The rows, their block hash and cumulative gas are then read for the page only. One
  // OR over the three columns made PostgreSQL walk the block index and read every row skipped by
  // OFFSET: seconds for an address with many transactions (BENCHMARKS.md, "Chain-scale index").
  const order = (t: string) => `${t}block_number ${q.sort}, ${t}transaction_index ${q.sort}`;
  const branch = (column: string) =>
    `(SELECT block_number, transaction_index FROM explorer_transactions
       WHERE network = $1 AND ${column} = $2 AND block_number BETWEEN $3 AND $4
       ORDER BY ${order('')} LIMIT $7)`;
  return (await ds.query(
    `SELECT t.*, b.hash AS block_hash,
       (SELECT sum(c.gas_used) FROM explorer_transactions c WHERE c.network = t.network
          AND c.block_number = t.block_number AND c.transaction_index <= t.transaction_index) AS cumulative_gas_used,
       (SELECT max(number) FROM explorer_blocks WHERE network = t.network) AS head
     FROM (
       SELECT DISTINCT ON (block_number, transaction_index) block_number, transaction_index
         FROM (${branch('from_address')} UNION ALL ${branch('to_address')} UNION ALL ${branch('contract_address')}) matching
       ORDER BY ${order('')} LIMIT $5 OFFSET $6
     ) page
     JOIN explorer_transactions t
       ON t.network = $1 AND t.block_number = page.block_number AND t.transaction_index = page.transaction_index
     LEFT JOIN explorer_blocks b ON b.network = t.network AND b.number = t.block_number
     ORDER BY ${order('t.')}`,
    [network, q.address, q.start, q.end, q.limit, q.skip, q.skip + q.limit],
  )) as Row[];
}

/** The transactions with these hashes, with their block hash, cumulative gas and the head. */
export async function transactionsByHash(ds: DataSource, network: Network, hashes: string[]): Promise<Row[]> {
  return (await ds.query(
    `SELECT t.hash, t.nonce, t.transaction_index, t.gas_limit, t.gas_price, t.gas_used, b.hash AS block_hash,
       (SELECT sum(c.gas_used) FROM explorer_transactions c WHERE c.network = t.network
          AND c.block_number = t.block_number AND c.transaction_index <= t.transaction_index) AS cumulative_gas_used,
       (SELECT max(number) FROM explorer_blocks WHERE network = t.network) AS head
     FROM explorer_transactions t
     LEFT JOIN explorer_blocks b ON b.network = t.network AND b.number = t.block_number
     WHERE t.network = $1 AND t.hash = ANY($2::text[])`,
    [network, hashes],
  )) as Row[];
}

/** The indexed block closest to `timestamp`: the last at or before it, or the first at or after it. */
export async function closestBlock(
  ds: DataSource,
  network: Network,
  timestamp: number,
  before: boolean,
): Promise<unknown> {
  const rows = (await ds.query(
    before
      ? `SELECT number FROM explorer_blocks WHERE network = $1 AND timestamp <= $2 ORDER BY number DESC LIMIT 1`
      : `SELECT number FROM explorer_blocks WHERE network = $1 AND timestamp >= $2 ORDER BY number ASC LIMIT 1`,
    [network, timestamp],
  )) as Row[];
  return rows[0]?.number;
}

/** The timestamps of these indexed blocks. */
export async function blockTimestamps(ds: DataSource, network: Network, numbers: number[]): Promise<Row[]> {
  return (await ds.query(
    `SELECT number, timestamp FROM explorer_blocks WHERE network = $1 AND number = ANY($2::bigint[])`,
    [network, numbers],
  )) as Row[];
}
