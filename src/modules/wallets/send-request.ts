import type { Interface, JsonRpcProvider, Wallet } from 'ethers';
import type { EntityManager } from 'typeorm';
import type { FeeFields, FeeFloor, FeeOverrides } from '../../chain/fee-policy';
import type { Network } from '../../kernel/network';
import type { SpendCaps } from '../../auth/authority';
import type { ChainTransactionKind } from './chain-transaction.entity';

/** Who signs: an address, and a way to open its key only when signing. */
export interface TransactionSigner {
  address: string;
  open(provider: JsonRpcProvider): Promise<Wallet>;
}

/** One transaction to send, as every stage of the sender reads it. */
export interface SendRequest {
  network: Network;
  signer: TransactionSigner;
  /** Null or absent `to`: contract creation. */
  to?: string | null;
  data?: string;
  value?: bigint;
  gasLimit?: bigint;
  kind: ChainTransactionKind;
  developerId?: string | null;
  contractId?: string | null;
  method?: string | null;
  /** Contract ABI, to decode custom errors of a revert. */
  iface?: Interface;
  /** Use exactly this nonce (to fill a gap) instead of the next free one. */
  fixedNonce?: number;
  /** The caller's fees, within the network's policy (docs/api.md, "Gateway": fee overrides). */
  feeOverrides?: FeeOverrides;
  /** Not mined within this many seconds of being sent: replaced, its record failed "timed out". */
  timeoutSeconds?: number;
  /** Fees at least this high (a replacement must outbid the transaction it replaces). */
  minFees?: FeeFloor;
  /** The transaction record this send is for: it follows the send (pending, then mined or failed). */
  recordId?: string;
  /**
   * The API key the transaction is sent with: its spend is counted, and its caps (if any) checked
   * under the key's advisory lock in the database transaction that records it (docs/api.md,
   * "API keys": spend caps).
   */
  apiKey?: { keyId: string; spend: SpendCaps | null };
  /**
   * This transaction cancels a pending one at its nonce (`fixedNonce`, kind `cancel`): the record
   * it names and the hash it replaces. The replaced transaction is set aside (dropped) in the
   * database transaction that records this one, and comes back should the node refuse it.
   */
  cancels?: { recordId: string; txHash: string };
  /** Runs in the database transaction that records the signed transaction (e.g. to link an idempotency key). */
  onRecorded?: (manager: EntityManager, txHash: string) => Promise<void>;
}

export interface SentTransaction {
  txHash: string;
  nonce: number;
  from: string;
}

export interface MinedTransaction {
  txHash: string;
  blockNumber: number;
  gasUsed: string;
  status: 'success' | 'reverted';
  contractAddress: string | null;
  /** Reverted: the decoded reason or custom error, when it can be known. */
  revertReason?: string;
}

/** Gas and fees settled before signing. */
export interface PreparedTransaction {
  gasLimit: bigint;
  fees: FeeFields;
}
