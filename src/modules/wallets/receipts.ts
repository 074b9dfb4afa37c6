import type { Interface, TransactionReceipt } from 'ethers';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import { nodeUnreachableError, type ChainRegistry } from '../../chain/chain-registry';
import { waitForReceipt } from '../../chain/receipt-wait';
import { decodeRevert, decodeRevertData } from '../../chain/revert-decoder';
import type { Network } from '../../kernel/network';
import type { Logger } from '../../kernel/logger';
import type { TransactionRecords } from '../transactions';
import type { MinedTransaction } from './send-request';

/**
 * The sender's last stage: receipts and why a transaction reverted, stored on the signed
 * transaction's row and moved on to its record in one database transaction; and the end of a
 * transaction that will never be mined.
 */
export class Receipts {
  private readonly blockTimestamps = new LRUCache<string, Promise<number | null>>({ max: 256 });

  constructor(
    private readonly ds: DataSource,
    private readonly chains: ChainRegistry,
    private readonly logger: Logger,
    private readonly records: TransactionRecords,
  ) {}

  /** Waits for the receipt (QBFT blocks are final on inclusion) and records the outcome; null on timeout. */
  async waitForReceipt(
    network: Network,
    txHash: string,
    timeoutMs: number,
    iface?: Interface,
    recordId?: string,
  ): Promise<MinedTransaction | null> {
    const provider = this.chains.provider(network);
    // A record that ended while its transaction waited (cancelled by replacement, failed) is not waited for.
    const ended = recordId
      ? async () => {
          const status = (await this.records.find(recordId))?.status;
          return status === 'cancelled' || status === 'failed';
        }
      : undefined;
    let receipt: TransactionReceipt | null;
    try {
      receipt = await waitForReceipt(provider, txHash, { timeoutMs, pollMs: provider.pollingInterval, ended });
    } catch (e) {
      throw nodeUnreachableError(network, e) ?? e;
    }
    if (!receipt) return null;
    return this.recordReceipt(network, receipt, iface);
  }

  /**
   * Why a mined transaction reverted: the `revertReason` a node puts in its receipt (Besu, hex
   * revert data), else the error of replaying the call at its block; undefined when unknowable.
   */
  async revertReason(
    network: Network,
    txHash: string,
    blockNumber: number,
    iface?: Interface,
  ): Promise<string | undefined> {
    const provider = this.chains.provider(network);
    try {
      const raw = (await provider.send('eth_getTransactionReceipt', [txHash])) as { revertReason?: unknown } | null;
      if (
        typeof raw?.revertReason === 'string' &&
        /^0x[0-9a-f]*$/i.test(raw.revertReason) &&
        raw.revertReason !== '0x'
      ) {
        return (await decodeRevertData(raw.revertReason, iface)).reason;
      }
      const tx = await provider.getTransaction(txHash);
      if (!tx) return undefined;
      try {
        await provider.call({
          from: tx.from,
          to: tx.to,
          data: tx.data,
          value: tx.value,
          gasLimit: tx.gasLimit,
          blockTag: blockNumber,
        });
      } catch (e) {
        return (await decodeRevert(e, iface))?.reason;
      }
      return undefined;
    } catch (err) {
      this.logger.debug({ err, network, txHash }, 'could not learn why a transaction reverted');
      return undefined;
    }
  }

  /**
   * The timestamp of a block, by hash (immutable, so it stays right across a dev chain's restart);
   * the receipts of one block share one request.
   */
  private blockTimestamp(network: Network, blockHash: string): Promise<number | null> {
    const key = `${network}:${blockHash}`;
    let timestamp = this.blockTimestamps.get(key);
    if (!timestamp) {
      timestamp = this.chains
        .provider(network)
        .getBlock(blockHash)
        .then((block) => block?.timestamp ?? null);
      this.blockTimestamps.set(key, timestamp);
      timestamp.catch(() => this.blockTimestamps.delete(key));
    }
    return timestamp;
  }

  /** Stores a receipt's outcome on the transaction's record. */
  async recordReceipt(network: Network, receipt: TransactionReceipt, iface?: Interface): Promise<MinedTransaction> {
    const timestamp = await this.blockTimestamp(network, receipt.blockHash).catch(() => null);
    const mined: MinedTransaction = {
      txHash: receipt.hash,
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed.toString(),
      status: receipt.status === 1 ? 'success' : 'reverted',
      contractAddress: receipt.contractAddress ?? null,
    };
    if (mined.status === 'reverted') {
      const reason = await this.revertReason(network, receipt.hash, receipt.blockNumber, iface);
      if (reason !== undefined) mined.revertReason = reason;
    }
    // The record (if any) moves on in the same database transaction as the signed transaction's row.
    await this.ds.transaction(async (m) => {
      // Mined though set aside for its cancel: the pending replacement can never be mined, and
      // leaves the nonce to it.
      await m.query(
        `UPDATE chain_transactions c SET status = 'dropped'
           FROM chain_transactions o
          WHERE o.network = $1 AND o.tx_hash = $2 AND o.status = 'dropped' AND o.record_id IS NOT NULL
            AND c.network = o.network AND c.record_id = o.record_id AND c.kind = 'cancel' AND c.status = 'pending'`,
        [network, receipt.hash],
      );
      const [rows] = (await m.query(
        `UPDATE chain_transactions
            SET status = $3, block_number = $4, gas_used = $5, contract_address = $6,
                block_timestamp = $7, tx_index = $8, mined_at = now(), effective_gas_price_wei = $9
          WHERE network = $1 AND tx_hash = $2
          RETURNING record_id, kind`,
        [
          network,
          receipt.hash,
          mined.status,
          mined.blockNumber,
          mined.gasUsed,
          mined.contractAddress,
          timestamp,
          receipt.index,
          receipt.gasPrice.toString(),
        ],
      )) as [Array<{ record_id: string | null; kind: string }>, number];
      const recordId = rows[0]?.record_id;
      if (recordId && rows[0]?.kind === 'cancel') {
        // The replacement took the nonce: the transaction its record named can never be mined.
        await this.records.cancelledByReplacement(m, recordId, receipt.hash);
      } else if (recordId) {
        await this.records.mined(m, recordId, {
          status: mined.status,
          blockNumber: mined.blockNumber,
          gasUsed: mined.gasUsed,
          revertReason: mined.revertReason ?? null,
        });
      }
    });
    return mined;
  }

  /**
   * Ends a pending signed transaction as dropped (never mined, never will be) and its record as
   * failed with `reason`, in one database transaction. False when it was no longer pending.
   */
  async recordDropped(network: Network, txHash: string, reason: string, verbatim = false): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const [rows] = (await m.query(
        `UPDATE chain_transactions SET status = 'dropped'
          WHERE network = $1 AND tx_hash = $2 AND status = 'pending' RETURNING record_id`,
        [network, txHash],
      )) as [Array<{ record_id: string | null }>, number];
      if (rows.length === 0) return false;
      const recordId = rows[0]?.record_id;
      if (recordId) await this.records.failed(m, recordId, verbatim ? reason : `dropped: ${reason}`);
      return true;
    });
  }
}
