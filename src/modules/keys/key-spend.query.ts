import type { DataSource } from 'typeorm';

// Read models of the keys' policies (docs/architecture.md, "Tables: one owner each"): a key's spend
// of the day from the wallets' transactions and door sends made with it, and the contracts a key
// may be limited to, from the contracts' table.

/**
 * Wei spent today (UTC) by each key: value plus gas of its transactions not dropped, and its door
 * sends (their gas once their receipt has settled them).
 */
export async function spentTodayByKey(ds: DataSource, keyIds: string[]): Promise<Map<string, string>> {
  const rows = (await ds.query(
    `SELECT api_key_id, sum(spent)::text AS spent FROM (
       SELECT api_key_id, value_wei + coalesce(gas_used * effective_gas_price_wei, 0) AS spent
         FROM chain_transactions
        WHERE api_key_id = ANY($1::uuid[]) AND status <> 'dropped'
          AND created_at >= date_trunc('day', now() AT TIME ZONE 'utc') AT TIME ZONE 'utc'
       UNION ALL
       SELECT api_key_id, value_wei + coalesce(gas_used * effective_gas_price_wei, 0) FROM api_key_door_sends
        WHERE api_key_id = ANY($1::uuid[])
          AND created_at >= date_trunc('day', now() AT TIME ZONE 'utc') AT TIME ZONE 'utc') AS s
      GROUP BY api_key_id`,
    [keyIds],
  )) as Array<{ api_key_id: string; spent: string }>;
  return new Map(rows.map((r) => [r.api_key_id, r.spent]));
}

/** How many of these contracts the developer owns. */
export async function ownedContractCount(ds: DataSource, ids: string[], developerId: string): Promise<number> {
  const [{ owned }] = (await ds.query(
    'SELECT count(*)::int AS owned FROM contracts WHERE id = ANY($1::uuid[]) AND owner_id = $2',
    [ids, developerId],
  )) as [{ owned: number }];
  return owned;
}
