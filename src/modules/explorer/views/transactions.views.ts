import { checksum, checksumOrNull } from '../../../kernel/address';
import {
  hexToDecimal,
  hexToNumber,
  type RpcBlock,
  type RpcReceipt,
  type RpcTransaction,
  type StoredLog,
  type StoredTransaction,
} from './sources';
import { TransactionStatus, type Transaction } from './transactions.types';

/** The index's status column (1 or 0) as a transaction status. */
export const statusOf = (code: number): TransactionStatus =>
  code === 1 ? TransactionStatus.success : TransactionStatus.reverted;

/** A transaction from the index, with its logs; `method` is decoded by the caller. */
export function transactionFromStored(stored: StoredTransaction, logs: StoredLog[]): Transaction {
  return {
    hash: stored.hash,
    blockNumber: stored.blockNumber,
    blockHash: stored.blockHash,
    transactionIndex: stored.transactionIndex,
    timestamp: stored.timestamp,
    from: checksum(stored.from),
    to: checksumOrNull(stored.to),
    contractAddress: checksumOrNull(stored.contractAddress),
    value: stored.value,
    nonce: stored.nonce,
    gasLimit: stored.gasLimit,
    gasPrice: stored.gasPrice,
    gasUsed: stored.gasUsed,
    status: statusOf(stored.status),
    input: stored.input,
    logs: logs.map((l) => ({
      address: checksum(l.address),
      topics: l.topics,
      data: l.data,
      logIndex: l.logIndex,
      decoded: null,
    })),
    method: null,
    tokenTransfers: [],
  };
}

/**
 * A transaction from the node: pending unless both its block number and its receipt are known;
 * `block` gives the timestamp. `method` is decoded by the caller.
 */
export function transactionFromRpc(
  raw: RpcTransaction,
  receipt: RpcReceipt | null,
  block: RpcBlock | null,
): Transaction {
  const blockNumber = raw.blockNumber ? hexToNumber(raw.blockNumber) : null;
  const mined = blockNumber !== null && receipt !== null;
  return {
    hash: raw.hash.toLowerCase(),
    blockNumber: mined ? blockNumber : null,
    blockHash: mined ? (raw.blockHash?.toLowerCase() ?? null) : null,
    transactionIndex: mined && raw.transactionIndex ? hexToNumber(raw.transactionIndex) : null,
    timestamp: block ? hexToNumber(block.timestamp) : null,
    from: checksum(raw.from),
    to: checksumOrNull(raw.to),
    contractAddress: checksumOrNull(receipt?.contractAddress),
    value: hexToDecimal(raw.value),
    nonce: hexToNumber(raw.nonce),
    gasLimit: hexToDecimal(raw.gas),
    gasPrice: hexToDecimal(receipt?.effectiveGasPrice ?? raw.gasPrice),
    gasUsed: receipt ? hexToDecimal(receipt.gasUsed) : null,
    status: !mined
      ? TransactionStatus.pending
      : receipt.status === undefined || BigInt(receipt.status) === 1n
        ? TransactionStatus.success
        : TransactionStatus.reverted,
    input: raw.input ?? '0x',
    logs: (receipt?.logs ?? []).map((l) => ({
      address: checksum(l.address),
      topics: l.topics.map((t) => t.toLowerCase()),
      data: l.data,
      logIndex: hexToNumber(l.logIndex),
      decoded: null,
    })),
    method: null,
    tokenTransfers: [],
  };
}
