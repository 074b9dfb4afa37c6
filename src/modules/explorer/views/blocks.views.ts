import { checksum } from '../../../kernel/address';
import type { Block, BlockSummary } from './blocks.types';
import { hexToDecimal, hexToNumber, type RpcBlock, type StoredBlock } from './sources';

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
