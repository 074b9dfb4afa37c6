import type { DataSource } from 'typeorm';
import type { ChainRegistry } from '../../chain/chain-registry';
import type { Network } from '../../kernel/network';
import type { Logger } from '../../kernel/logger';

/** Door sends looked up on one pass, at most. */
const SETTLE_BATCH = 200;
/** Older unsettled sends are no longer looked for: they count in no day's spend any more. */
const SETTLE_WITHIN = '2 days';

/**
 * Settles the raw transactions a key sent through the JSON-RPC door against their receipts
 * (docs/api.md, "API keys": spend caps): once mined (reverted ones too, which pay their gas), a
 * send counts its gas used × effective gas price beside its value, and its gas used instead of its
 * gas limit. A row is settled once (`settled_at` is set only where it was null), so nothing is
 * counted twice. Returns how many were settled.
 */
export async function settleDoorSends(ds: DataSource, chains: ChainRegistry, logger: Logger): Promise<number> {
  const rows = (await ds.query(
    `SELECT network, tx_hash FROM api_key_door_sends
      WHERE settled_at IS NULL AND created_at > now() - interval '${SETTLE_WITHIN}'
      ORDER BY created_at LIMIT ${SETTLE_BATCH}`,
  )) as Array<{ network: Network; tx_hash: string }>;
  const settled = await Promise.all(
    rows.map(async (row) => {
      if (!chains.isAvailable(row.network)) return 0;
      try {
        const receipt = await chains.provider(row.network).getTransactionReceipt(row.tx_hash);
        if (!receipt) return 0;
        const [updated] = (await ds.query(
          `UPDATE api_key_door_sends
              SET gas_used = $3, effective_gas_price_wei = $4, block_number = $5, settled_at = now()
            WHERE network = $1 AND tx_hash = $2 AND settled_at IS NULL
            RETURNING tx_hash`,
          [row.network, row.tx_hash, receipt.gasUsed.toString(), receipt.gasPrice.toString(), receipt.blockNumber],
        )) as [unknown[], number];
        return updated.length;
      } catch (err) {
        logger.debug({ err, network: row.network, txHash: row.tx_hash }, 'a door send’s receipt could not be read');
        return 0;
      }
    }),
  );
  return settled.reduce<number>((a, b) => a + b, 0);
}
