import { checksum, checksumOrNull } from '../../kernel/address';
import type { NetworkName } from '../../kernel/network-name';
import { ActivityDirection, type AddressActivity } from './queries/addresses/addresses.types';
import type { Block, BlockSummary } from './queries/blocks/blocks.types';
import type { PortalContract } from './queries/portal-contracts/portal-contracts';
import { SearchResultType, type SearchResult } from './queries/search/search.types';
import { TransactionStatus, type Transaction } from './queries/transactions/transactions.types';
import type { StoredActivity, StoredBlock, StoredLog, StoredTransaction } from './runtime/block-index';
import { hexToDecimal, hexToNumber, type RpcBlock, type RpcReceipt, type RpcTransaction } from './runtime/chain-reader';

/** EIP-55 form of a hex address in any case. */

/** A block summary from a node's JSON-RPC block. */
export function summaryFromRpc(block: RpcBlock): BlockSummary {
  return {
    number: hexToNumber(block.number),
    hash: block.hash.toLowerCase(),
    parentHash: block.parentHash.toLowerCase(),
    timestamp: hexToNumber(block.timestamp),
    proposer: checksum(block.miner),
    transactionCount: block.transactions.length,
    gasUsed: hexToDecimal(block.gasUsed),
    gasLimit: hexToDecimal(block.gasLimit),
  };
}

/** A block summary from the index: the same object as from the node. */
export function summaryFromStored(block: StoredBlock): BlockSummary {
  return {
    number: block.number,
    hash: block.hash,
    parentHash: block.parentHash,
    timestamp: block.timestamp,
    proposer: checksum(block.miner),
    transactionCount: block.transactionCount,
    gasUsed: block.gasUsed,
    gasLimit: block.gasLimit,
  };
}

export function blockFromRpc(block: RpcBlock): Block {
  return {
    ...summaryFromRpc(block),
    transactions: block.transactions.map((t) => (typeof t === 'string' ? t : t.hash).toLowerCase()),
    extraData: block.extraData ?? '0x',
  };
}

export function blockFromStored(block: StoredBlock, transactions: string[]): Block {
  return { ...summaryFromStored(block), transactions, extraData: block.extraData };
}

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

/** A portal contract (or verified asset) as a search hit. */
export function contractSearchResult(c: PortalContract): SearchResult {
  return {
    type: SearchResultType.contract,
    address: c.address,
    contractId: c.id,
    name: c.name,
    network: c.network as NetworkName,
  };
}
