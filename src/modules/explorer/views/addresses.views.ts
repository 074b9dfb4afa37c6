import { checksum, checksumOrNull } from '../../../kernel/address';
import { ActivityDirection, type AddressActivity } from './addresses.types';
import type { StoredActivity } from './sources';
import { statusOf } from './transactions.views';

function directionOf(tx: { from: string; to: string | null }, address: string): ActivityDirection {
  const self = address.toLowerCase();
  if (tx.to === null) return ActivityDirection.create;
  const from = tx.from.toLowerCase();
  const to = tx.to.toLowerCase();
  if (from === self && to === self) return ActivityDirection.self;
  return from === self ? ActivityDirection.out : ActivityDirection.in;
}

/** One transaction of `address`'s activity; `method` is the name of the function called, when known. */
export function activityFromStored(row: StoredActivity, address: string, method: string | null): AddressActivity {
  return {
    txHash: row.hash,
    blockNumber: row.blockNumber,
    timestamp: row.timestamp,
    from: checksum(row.from),
    to: checksumOrNull(row.to),
    value: row.value,
    direction: directionOf(row, address),
    status: statusOf(row.status),
    method,
  };
}
