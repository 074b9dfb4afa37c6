import { Transaction } from 'ethers';
import type { DataSource } from 'typeorm';
import type { SpendCaps } from '../../auth/authority';
import { feeCapOf, tipOf, type FeeFields } from '../../chain/fee-policy';
import type { Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import type { Logger } from '../../kernel/logger';
import type { PendingCanceller } from '../transactions';
import { bumped } from './fee-quote';
import type { PreparedTransaction, SendRequest, TransactionSigner } from './send-request';
import type { TransactionSender } from './transaction-sender';

/** Gas of a 0-value transfer to an account without code: its intrinsic gas, all of it used. */
const TRANSFER_GAS = 21_000n;

/** What the cancel needs from outside the wallets module. */
export interface PendingCancelHooks {
  /** The signer of one of the service's own addresses (the wallet that sent the transaction). */
  signerFor(address: string): Promise<TransactionSigner | undefined>;
  /** The spend caps of the key a transaction was sent with (the replacement meets them too). */
  spendCapsOf(keyId: string): Promise<SpendCaps | null>;
}

interface PendingRow {
  network: Network;
  from_address: string;
  nonce: string;
  tx_hash: string;
  raw_tx: string;
  kind: string;
  api_key_id: string | null;
  developer_id: string | null;
  contract_id: string | null;
}

/** 409 INVALID_STATE: the network cannot replace this pending transaction, and why. */
function cannotReplace(reason: string): AppError {
  return new AppError('INVALID_STATE', `The transaction is pending and cannot be cancelled: ${reason}`, {
    status: 'pending',
    reason,
  });
}

/**
 * Cancels a pending transaction by replacement (docs/api.md, "Transactions": cancel): a 0-value
 * transfer from its wallet to itself at its nonce, every price raised by the bump nodes require.
 * The replacement takes the original's place among the wallet's signed transactions in the
 * database transaction that records it (the original is set aside, dropped, and comes back should
 * the node refuse the replacement), so a key's spend counts one of the two, never both; its record
 * stays pending until one of them is mined: `cancelled` for the replacement, its own outcome for
 * the original.
 */
export class PendingCancels implements PendingCanceller {
  constructor(
    private readonly ds: DataSource,
    private readonly sender: TransactionSender,
    private readonly hooks: PendingCancelHooks,
    private readonly logger: Logger,
  ) {}

  async cancelPending(recordId: string): Promise<boolean> {
    const [row] = (await this.ds.query(
      `SELECT network, from_address, nonce::text AS nonce, tx_hash, raw_tx, kind, api_key_id, developer_id, contract_id
         FROM chain_transactions WHERE record_id = $1 AND status = 'pending'
        ORDER BY created_at DESC LIMIT 1`,
      [recordId],
    )) as PendingRow[];
    if (!row) return false;
    // A replacement is already on its way: cancelling again changes nothing.
    if (row.kind === 'cancel') return true;
    const original = Transaction.from(row.raw_tx);
    const fees: FeeFields =
      original.type === 2
        ? {
            type: 2,
            maxFeePerGas: original.maxFeePerGas ?? 0n,
            maxPriorityFeePerGas: original.maxPriorityFeePerGas ?? 0n,
          }
        : { type: 0, gasPrice: original.gasPrice ?? 0n };
    if (feeCapOf(fees) === 0n) {
      // Nodes take a replacement only for a higher price; 0 raised by a tenth is still 0.
      throw cannotReplace(`the ${row.network} network prices gas at 0, so no replacement can outbid it`);
    }
    const signer = await this.hooks.signerFor(row.from_address);
    if (!signer) throw cannotReplace('its wallet is not one the service signs for');
    const request: SendRequest = {
      network: row.network,
      signer,
      to: signer.address,
      value: 0n,
      gasLimit: TRANSFER_GAS,
      kind: 'cancel',
      developerId: row.developer_id,
      contractId: row.contract_id,
      fixedNonce: Number(row.nonce),
      minFees: { feeCap: bumped(feeCapOf(fees)), tip: bumped(tipOf(fees)) },
      cancels: { recordId, txHash: row.tx_hash },
      ...(row.api_key_id
        ? { apiKey: { keyId: row.api_key_id, spend: await this.hooks.spendCapsOf(row.api_key_id) } }
        : {}),
    };
    let prepared: PreparedTransaction;
    try {
      prepared = await this.sender.prepare(request);
    } catch (e) {
      // The service's fee cap leaves no room for the higher price a replacement must offer.
      if (e instanceof AppError && e.code === 'NETWORK_UNAVAILABLE') throw cannotReplace(e.message);
      throw e;
    }
    try {
      const sent = await this.sender.send(request, prepared);
      this.logger.info(
        { network: row.network, recordId, replaced: row.tx_hash, replacement: sent.txHash, nonce: sent.nonce },
        'a pending transaction is being cancelled by a replacement at its nonce',
      );
    } catch (e) {
      if (e instanceof AppError && e.code === 'TRANSACTION_REFUSED') {
        const reason = (e.details as { reason?: unknown } | undefined)?.reason;
        throw cannotReplace(`the node refused the replacement (${typeof reason === 'string' ? reason : e.message})`);
      }
      throw e;
    }
    return true;
  }
}
