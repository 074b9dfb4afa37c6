/**
 * What the explorer's views are built from: blocks, transactions and receipts as a node's JSON-RPC
 * returns them (the chain reader's answers) and the block index's rows (numbers converted).
 */

/** A block as JSON-RPC returns it (hex quantities); `transactions` per the `full` flag. */
export interface RpcBlock<Tx = RpcTransaction | string> {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  miner: string;
  gasUsed: string;
  gasLimit: string;
  extraData: string;
  transactions: Tx[];
}

export interface RpcTransaction {
  hash: string;
  blockNumber: string | null;
  blockHash: string | null;
  transactionIndex: string | null;
  from: string;
  to: string | null;
  value: string;
  nonce: string;
  gas: string;
  gasPrice?: string;
  input: string;
}

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
  transactionHash: string;
}

export interface RpcReceipt {
  transactionHash: string;
  blockHash: string;
  status?: string;
  gasUsed: string;
  effectiveGasPrice?: string;
  contractAddress: string | null;
  logs: RpcLog[];
}

/** A JSON-RPC hex quantity as a number (block numbers, indexes, nonces, timestamps). */
export const hexToNumber = (h: string): number => Number(BigInt(h));
/** A JSON-RPC hex quantity as a decimal string (wei, gas); absent is 0. */
export const hexToDecimal = (h: string | null | undefined): string => (h ? BigInt(h).toString() : '0');

/** A block row, numbers converted. */
export interface StoredBlock {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  miner: string;
  transactionCount: number;
  gasUsed: string;
  gasLimit: string;
  extraData: string;
}

/** A transaction row as the activity list needs it (no input). */
export interface StoredActivity {
  hash: string;
  blockNumber: number;
  transactionIndex: number;
  timestamp: number;
  from: string;
  to: string | null;
  contractAddress: string | null;
  value: string;
  status: number;
  methodId: string | null;
}

/** A full transaction row with its block hash. */
export interface StoredTransaction extends StoredActivity {
  blockHash: string;
  nonce: number;
  gasLimit: string;
  gasPrice: string;
  gasUsed: string;
  input: string;
}

export interface StoredLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: number;
}
