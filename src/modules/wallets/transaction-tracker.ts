import { Transaction } from 'ethers';
import type { DataSource } from 'typeorm';
import { feeCapOf, tipOf, type FeeFields } from '../../chain/fee-policy';
import type { ChainRegistry } from '../../chain/chain-registry';
import type { Network } from '../../kernel/network';
import type { Logger } from '../../kernel/logger';
import type { ChainTransactionKind } from './chain-transaction.entity';
import { bumped } from './fee-quote';
import type { MinedTransaction, TransactionSigner } from './send-request';
import type { TransactionSender } from './transaction-sender';
import { LOCK_KEYS } from '../../kernel/lock-keys';
import { settleDoorSends } from './door-sends';
import { pendingSendsToCheck, type PendingSendRow as Row } from './pending-sends.query';

/** A transaction still pending after this long is checked by the tracker (the sender waits for the rest). */
const CHECK_AFTER = '3 seconds';
/** Least time between two broadcasts of the same bytes: a handful of attempts before replacement. */
const REBROADCAST_EVERY_MS = 10_000;
/** Not mined after this long: replaced by a no-op transfer to self with its nonce and higher fees. */
const REPLACE_AFTER_S = 50;
/** A replacement not mined after this long is given up: marked failed, its nonce free again. */
const GIVE_UP_AFTER_S = 50;
const TICK_MS = 2000;
/** The reason of a record whose invoke's timeoutSeconds passed. */
const TIMED_OUT = 'timed out';
const LOCK_KEY = LOCK_KEYS.transactionTracker;

export interface PendingTransaction {
  network: Network;
  txHash: string;
  fromAddress: string;
  nonce: number;
  kind: ChainTransactionKind;
  contractId: string | null;
  /** A cancel's replacement: the transaction it replaces and its record's kind; null for any other. */
  replaces: { txHash: string; kind: ChainTransactionKind } | null;
}

export interface TrackerHooks {
  /** The signer of one of the service's own addresses (to fill a nonce gap), if it has it. */
  signerFor(address: string): Promise<TransactionSigner | undefined>;
  onMined(tx: PendingTransaction, mined: MinedTransaction): Promise<void>;
  onDropped(tx: PendingTransaction): Promise<void>;
}

/**
 * Follows every transaction the service sent until it is mined: records late receipts,
 * re-broadcasts transactions a node lost (or never got), and fills the nonce of one that can
 * never land, so the wallet never stalls. One instance at a time does it (advisory lock).
 */
export class TransactionTracker {
  private timer?: NodeJS.Timeout;
  /** When each pending transaction was last broadcast by this tracker, and how often. */
  private readonly broadcasts = new Map<string, { at: number; attempt: number }>();
  private running?: Promise<void>;

  constructor(
    private readonly ds: DataSource,
    private readonly chains: ChainRegistry,
    private readonly sender: TransactionSender,
    private readonly hooks: TrackerHooks,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.tick()
        .catch((err: unknown) => this.logger.warn({ err }, 'transaction tracker tick failed'))
        .finally(() => (this.running = undefined));
    }, TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass over the pending transactions; public so tests can drive it. */
  async tick(): Promise<void> {
    const runner = this.ds.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [LOCK_KEY])) as Array<{
        locked: boolean;
      }>;
      if (!locked) return;
      try {
        // Records whose sender stopped before signing them (a crash): ended, never left queued.
        await this.sender.records.expireQueued();
        // Raw transactions of the JSON-RPC door: charged their fees once their receipt is known.
        await settleDoorSends(this.ds, this.chains, this.logger).catch((err: unknown) =>
          this.logger.warn({ err }, 'door sends were not settled'),
        );
        const rows = await pendingSendsToCheck(runner, CHECK_AFTER);
        for (const row of rows) await this.check(row);
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
      }
    } finally {
      await runner.release();
    }
  }

  private async check(row: Row): Promise<void> {
    const tx: PendingTransaction = {
      network: row.network,
      txHash: row.tx_hash,
      fromAddress: row.from_address,
      nonce: Number(row.nonce),
      kind: row.kind,
      contractId: row.contract_id,
      replaces: row.replaced_hash && row.replaced_kind ? { txHash: row.replaced_hash, kind: row.replaced_kind } : null,
    };
    if (!this.chains.isAvailable(tx.network)) return;
    const provider = this.chains.provider(tx.network);
    try {
      const receipt = await provider.getTransactionReceipt(tx.txHash);
      if (receipt) {
        this.broadcasts.delete(tx.txHash);
        await this.hooks.onMined(tx, await this.sender.recordReceipt(tx.network, receipt));
        return;
      }
      const used = await provider.getTransactionCount(tx.fromAddress, 'latest');
      if (used > tx.nonce && row.replaced_hash) {
        // A cancel beaten to its nonce by the transaction it was to replace: that one's outcome stands.
        const first = await provider.getTransactionReceipt(row.replaced_hash);
        if (first) {
          this.broadcasts.delete(tx.txHash);
          const mined = await this.sender.recordReceipt(tx.network, first);
          await this.hooks.onMined(
            { ...tx, txHash: first.hash, kind: row.replaced_kind ?? tx.kind, replaces: null },
            mined,
          );
          return;
        }
      }
      if (used > tx.nonce) {
        // Another transaction took this nonce: this one can never be mined.
        await this.markDropped(tx, 'its nonce was used by another transaction');
        return;
      }
      if (row.timed_out && tx.kind !== 'nonce-filler') {
        // Its invoke's timeoutSeconds passed: failed "timed out", its nonce taken by a no-op.
        await this.replace(tx, row.raw_tx, TIMED_OUT, true);
        return;
      }
      if (tx.kind === 'nonce-filler' && row.age_s > GIVE_UP_AFTER_S) {
        // Bounded: a replacement is not replaced again; its nonce is free for the next send.
        await this.markDropped(tx, 'the replacement was not mined in time');
        return;
      }
      if (tx.kind !== 'nonce-filler' && row.age_s > REPLACE_AFTER_S) {
        await this.replace(tx, row.raw_tx, 'not mined in time');
        return;
      }
      const last = this.broadcasts.get(tx.txHash);
      if (last && Date.now() - last.at < REBROADCAST_EVERY_MS) return;
      const attempt = (last?.attempt ?? 0) + 1;
      this.broadcasts.set(tx.txHash, { at: Date.now(), attempt });
      const outcome = await this.sender.broadcastOnce(tx.network, row.raw_tx);
      this.logger.info(
        { network: tx.network, txHash: tx.txHash, nonce: tx.nonce, attempt, outcome: outcome.kind },
        're-broadcast a pending transaction',
      );
      if (outcome.kind === 'refused' || outcome.kind === 'nonce-taken') {
        // The node will never take these bytes: free the nonce rather than send them again.
        if (tx.kind === 'nonce-filler') await this.markDropped(tx, outcome.reason);
        else await this.replace(tx, row.raw_tx, outcome.reason);
      }
    } catch (err) {
      this.logger.debug({ err, txHash: tx.txHash }, 'could not check a pending transaction; will retry');
    }
  }

  /** Ends a transaction as failed (status `dropped`): it was never mined and never will be. */
  private async markDropped(tx: PendingTransaction, reason: string, verbatim = false): Promise<void> {
    this.broadcasts.delete(tx.txHash);
    await this.sender.recordDropped(tx.network, tx.txHash, reason, verbatim);
    await this.hooks.onDropped(tx);
    this.logger.warn({ network: tx.network, txHash: tx.txHash, nonce: tx.nonce, reason }, 'transaction failed');
  }

  /**
   * Replaces a transaction that is not landing by a zero-value transfer to self with its nonce,
   * priced above it (a node replaces a pooled transaction only for a 10% higher price).
   */
  private async replace(tx: PendingTransaction, raw: string, reason: string, verbatim = false): Promise<void> {
    const signer = await this.hooks.signerFor(tx.fromAddress);
    await this.markDropped(tx, reason, verbatim);
    if (!signer) {
      this.logger.error({ network: tx.network, txHash: tx.txHash, reason }, 'stuck transaction of an unknown signer');
      return;
    }
    const original = Transaction.from(raw);
    const fees: FeeFields =
      original.type === 2
        ? {
            type: 2,
            maxFeePerGas: original.maxFeePerGas ?? 0n,
            maxPriorityFeePerGas: original.maxPriorityFeePerGas ?? 0n,
          }
        : { type: 0, gasPrice: original.gasPrice ?? 0n };
    try {
      const filler = await this.sender.send({
        network: tx.network,
        signer,
        to: signer.address,
        value: 0n,
        kind: 'nonce-filler',
        fixedNonce: tx.nonce,
        minFees: { feeCap: bumped(feeCapOf(fees)), tip: bumped(tipOf(fees)) },
      });
      this.logger.warn(
        { network: tx.network, dropped: tx.txHash, filler: filler.txHash, nonce: tx.nonce, reason },
        'replaced a transaction that was not landing by a no-op transfer with its nonce',
      );
    } catch (err) {
      // Refused too: the nonce is free again (both records are failed), the next send takes it.
      this.logger.error(
        { err, network: tx.network, txHash: tx.txHash, nonce: tx.nonce },
        'could not replace a transaction',
      );
    }
  }
}
