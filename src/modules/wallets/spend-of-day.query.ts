import type { EntityManager } from 'typeorm';

// Read model of a key's spend of the UTC day (docs/architecture.md, "Tables: one owner each"): the
// wallets' sends and door sends made with the key, and for a pending cancel the transaction it
// replaces, found through the record it was sent for.

/**
 * The value and the gas (gas used once mined, the gas limit while pending) of the key's
 * transactions of the UTC day that were not dropped, and of its door sends. A pending cancel and
 * the transaction it replaces count as the larger of the two, never both. Runs in the caller's
 * database transaction (which holds the key's lock).
 */
export async function spendOfDay(m: EntityManager, keyId: string): Promise<{ value: bigint; gas: bigint }> {
  // The door's raw transactions count their gas limit until their receipt settles them (door-sends.ts).
  const [row] = (await m.query(
    `SELECT coalesce(sum(value), 0)::text AS value, coalesce(sum(gas), 0)::text AS gas FROM (
       SELECT value_wei AS value,
              CASE WHEN status = 'pending' THEN coalesce(gas_limit, 0) ELSE coalesce(gas_used, 0) END AS gas
         FROM chain_transactions
        WHERE api_key_id = $1 AND status <> 'dropped'
          AND created_at >= date_trunc('day', now() AT TIME ZONE 'utc') AT TIME ZONE 'utc'
       UNION ALL
       -- A transaction set aside for its pending cancel may yet be mined instead of the replacement:
       -- its value and the gas beyond the replacement's stay reserved (one of the two is mined).
       SELECT o.value_wei, greatest(coalesce(o.gas_limit, 0) - coalesce(c.gas_limit, 0), 0)
         FROM chain_transactions c
         JOIN transaction_records r ON r.id = c.record_id
         JOIN chain_transactions o ON o.network = c.network AND o.tx_hash = r.tx_hash AND o.status = 'dropped'
        WHERE c.api_key_id = $1 AND c.kind = 'cancel' AND c.status = 'pending'
          AND c.created_at >= date_trunc('day', now() AT TIME ZONE 'utc') AT TIME ZONE 'utc'
       UNION ALL
       SELECT value_wei, coalesce(gas_used, gas_limit) FROM api_key_door_sends
        WHERE api_key_id = $1
          AND created_at >= date_trunc('day', now() AT TIME ZONE 'utc') AT TIME ZONE 'utc') AS s`,
    [keyId],
  )) as [{ value: string; gas: string }];
  return { value: BigInt(row.value), gas: BigInt(row.gas) };
}
