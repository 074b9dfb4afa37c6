import type { DataSource } from 'typeorm';
import type { Network } from '../../kernel/network';

// Read model of the record behind a signed transaction (docs/architecture.md, "Tables: one owner
// each"): the wallets' signed transaction names the record it was sent for.

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
