import type { QueryRunner } from 'typeorm';
import type { Network } from '../../kernel/network';
import type { ChainTransactionKind } from './chain-transaction.entity';

// Read model of the pending sends the tracker checks (docs/architecture.md, "Tables: one owner
// each"): the wallets' own pending transactions, and for a pending cancel the transaction it
// replaces, found through the record it was sent for.

/** A pending send to check, as the query answers it. */
export interface PendingSendRow {
  network: Network;
  tx_hash: string;
  raw_tx: string;
  from_address: string;
  nonce: string;
  kind: ChainTransactionKind;
  contract_id: string | null;
  age_s: number;
  /** Past the timeoutSeconds its invoke gave (docs/api.md, "Gateway": timeoutSeconds). */
  timed_out: boolean;
  /** A cancel's replacement: the transaction it replaces (its record's), and that record's kind. */
  replaced_hash: string | null;
  replaced_kind: ChainTransactionKind | null;
}

/**
 * Up to 200 pending sends older than `checkAfter` (an SQL interval) or past their timeout, by
 * network, sender and nonce; on the caller's connection (the one holding the tracker's lock).
 */
export async function pendingSendsToCheck(
  runner: Pick<QueryRunner, 'query'>,
  checkAfter: string,
): Promise<PendingSendRow[]> {
  return (await runner.query(
    `SELECT c.network, c.tx_hash, c.raw_tx, c.from_address, c.nonce, c.kind, c.contract_id,
            extract(epoch FROM now() - c.created_at)::float AS age_s,
            coalesce(c.timeout_at < now(), false) AS timed_out,
            CASE WHEN c.kind = 'cancel' THEN r.tx_hash END AS replaced_hash,
            CASE WHEN c.kind = 'cancel' THEN r.kind END AS replaced_kind
       FROM chain_transactions c
       LEFT JOIN transaction_records r ON r.id = c.record_id
      WHERE c.status = 'pending' AND (c.created_at < now() - $1::interval OR c.timeout_at < now())
      ORDER BY c.network, c.from_address, c.nonce
      LIMIT 200`,
    [checkAfter],
  )) as PendingSendRow[];
}
