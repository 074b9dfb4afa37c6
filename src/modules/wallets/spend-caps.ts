import type { DataSource, EntityManager } from 'typeorm';
import type { Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import { LOCK_KEYS } from '../../kernel/lock-keys';
import type { SpendCaps } from '../../auth/authority';
import { spendOfDay } from './spend-of-day.query';

/** 422 SPEND_LIMIT_EXCEEDED naming the cap, its size and what is left of it. */
export function spendLimitError(limit: keyof SpendCaps, max: bigint, left: bigint, requested: bigint): AppError {
  return new AppError(
    'SPEND_LIMIT_EXCEEDED',
    `The API key's spend cap ${limit} of ${max} allows ${left} more; this transaction needs ${requested}`,
    { limit, max: max.toString(), left: left.toString(), requested: requested.toString() },
  );
}

/** The caps one transaction meets on its own: its value, its fee per gas. */
export function checkSpendPerTx(caps: SpendCaps, value: bigint, feePerGas: bigint): void {
  if (caps.maxValueWeiPerTx !== null && value > caps.maxValueWeiPerTx) {
    throw spendLimitError('maxValueWeiPerTx', caps.maxValueWeiPerTx, caps.maxValueWeiPerTx, value);
  }
  if (caps.maxFeePerGasWei !== null && feePerGas > caps.maxFeePerGasWei) {
    throw spendLimitError('maxFeePerGasWei', caps.maxFeePerGasWei, caps.maxFeePerGasWei, feePerGas);
  }
}

/**
 * The caps of a day, checked under the key's advisory lock (held until the database transaction
 * that records the transaction commits, so every instance counts exactly): the value and the gas
 * (gas used once mined, the gas limit while pending) of the key's transactions of the UTC day that
 * were not dropped; a refused send is dropped, so its spend comes back by itself. A pending cancel
 * and the transaction it replaces count as the larger of the two, never both.
 */
export async function reserveSpend(
  m: EntityManager,
  keyId: string,
  caps: SpendCaps,
  value: bigint,
  gasLimit: bigint,
): Promise<void> {
  if (caps.maxValueWeiPerDay === null && caps.maxGasPerDay === null) return;
  await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK_KEYS.keySpend(keyId)]);
  const { value: spentValue, gas: spentGas } = await spendOfDay(m, keyId);
  const left = (max: bigint, spent: bigint) => (max > spent ? max - spent : 0n);
  if (caps.maxValueWeiPerDay !== null && spentValue + value > caps.maxValueWeiPerDay) {
    throw spendLimitError('maxValueWeiPerDay', caps.maxValueWeiPerDay, left(caps.maxValueWeiPerDay, spentValue), value);
  }
  if (caps.maxGasPerDay !== null && spentGas + gasLimit > caps.maxGasPerDay) {
    throw spendLimitError('maxGasPerDay', caps.maxGasPerDay, left(caps.maxGasPerDay, spentGas), gasLimit);
  }
}

/** A raw transaction of the JSON-RPC door, as its spend is counted. */
export interface DoorSend {
  network: Network;
  txHash: string;
  value: bigint;
  gasLimit: bigint;
  feePerGas: bigint;
}

/**
 * Reserves the spend of a raw transaction sent through the door with a key (docs/api.md, "API
 * keys": spend caps): its caps checked, then recorded under the key's lock. False when the same
 * transaction was already counted (a repeat is relayed without counting it again).
 */
export async function reserveDoorSend(
  ds: DataSource,
  keyId: string,
  caps: SpendCaps | null,
  send: DoorSend,
): Promise<boolean> {
  if (caps) checkSpendPerTx(caps, send.value, send.feePerGas);
  return ds.transaction(async (m) => {
    if (caps) await reserveSpend(m, keyId, caps, send.value, send.gasLimit);
    const rows = (await m.query(
      `INSERT INTO api_key_door_sends (network, tx_hash, api_key_id, value_wei, gas_limit, fee_per_gas_wei)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING tx_hash`,
      [send.network, send.txHash, keyId, send.value.toString(), send.gasLimit.toString(), send.feePerGas.toString()],
    )) as unknown[];
    return rows.length > 0;
  });
}

/** Gives back what a door transaction reserved: the node refused it. */
export async function refundDoorSend(ds: DataSource, network: Network, txHash: string): Promise<void> {
  await ds.query('DELETE FROM api_key_door_sends WHERE network = $1 AND tx_hash = $2', [network, txHash]);
}
