import type { DataSource } from 'typeorm';
import type { Network } from '../../kernel/network';

// Read model of the transactions signed for a record (docs/architecture.md, "Tables: one owner
// each"): the wallets' signed transaction names the record it was sent for, and whether it was
// dropped or may still be (or was) mined.

/** The id of the record a signed transaction was sent for. */
export async function recordOfTransaction(
  ds: DataSource,
  network: Network,
  txHash: string,
): Promise<string | undefined> {
  const [row] = (await ds.query(`SELECT record_id FROM chain_transactions WHERE network = $1 AND tx_hash = $2`, [
    network,
    txHash,
  ])) as Array<{ record_id: string | null }>;
  return row?.record_id ?? undefined;
}

/**
 * SQL condition: no transaction signed for the record `recordId` (an SQL expression) is pending or
 * mined, so it may be sent again. A condition, not a query, so that the update it guards reads and
 * writes in one statement (of two retries at once, one wins).
 */
export function noLiveTransaction(recordId: string): string {
  return `NOT EXISTS (SELECT 1 FROM chain_transactions WHERE record_id = ${recordId} AND status <> 'dropped')`;
}

/** Whether a transaction signed for the record is pending or mined (it cannot be sent again). */
export async function hasLiveTransaction(ds: DataSource, recordId: string): Promise<boolean> {
  const rows = (await ds.query(
    `SELECT 1 FROM chain_transactions WHERE record_id = $1 AND status <> 'dropped' LIMIT 1`,
    [recordId],
  )) as unknown[];
  return rows.length > 0;
}
