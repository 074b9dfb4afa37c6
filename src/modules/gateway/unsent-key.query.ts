import type { DataSource } from 'typeorm';

// Read model of whether an idempotency key's transaction was sent (docs/architecture.md, "Tables:
// one owner each"): the wallets' signed transaction behind the key, dropped or not.

/** Forgets an idempotency key whose request sent nothing: still in progress, or its transaction dropped. */
export async function forgetUnsentKey(ds: DataSource, developerId: string, key: string): Promise<void> {
  await ds.query(
    `DELETE FROM idempotency_keys k WHERE developer_id = $1 AND key = $2
       AND (state = 'in_progress'
            OR EXISTS (SELECT 1 FROM chain_transactions t WHERE t.tx_hash = k.tx_hash AND t.status = 'dropped'))`,
    [developerId, key],
  );
}
