import { keccak256, type Interface, type JsonRpcProvider, type TransactionReceipt, type Wallet } from 'ethers';
import type { DataSource, EntityManager } from 'typeorm';
import type { ChainRegistry } from '../../chain/chain-registry';
import type { FeeFields } from '../../chain/fee-policy';
import { CHAIN_IDS, type Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import type { Logger } from '../../kernel/logger';
import type { NewRecord, StoredRecord, TransactionRecords } from '../transactions';
import { broadcastOnce } from './broadcast';
import { FeeQuote, feePerGasOf } from './fee-quote';
import { NonceLanes, type Lane } from './nonce-lanes';
import { Receipts } from './receipts';
import { refusalError, translateSendError, type BroadcastOutcome } from './send-errors';
import type { MinedTransaction, PreparedTransaction, SendRequest, SentTransaction } from './send-request';
import { checkSpendPerTx, reserveSpend } from './spend-caps';

/** Signing again with a fresh nonce after the node said the nonce was taken (someone else used the key). */
const NONCE_RETRIES = 2;

/** A send under a transaction record (docs/api.md, "Transactions"): the one door for it is `sendRecorded`. */
export interface RecordedSend {
  request: SendRequest;
  /** Gas and fees already settled (the caller ran its checks); else they are settled here. */
  prepared?: PreparedTransaction;
  /**
   * The record to create (queued), or a function building it inside the database transaction that
   * creates it, to store first what the record names (a deployment's contract).
   */
  record: NewRecord | ((m: EntityManager) => Promise<NewRecord>);
  /** Runs in that database transaction once the record exists (an idempotent answer naming it). */
  withRecord?: (m: EntityManager, record: StoredRecord) => Promise<void>;
  /** Prefer: respond-async: answer once the record is queued; the send runs after (202). */
  respondAsync?: boolean;
}

/** Sent under its record (the answer waits for it). */
export interface RecordedSent {
  status: 'sent';
  recordId: string;
  sent: SentTransaction;
}

/** Accepted for later: the record is queued and `sending` runs after the answer. */
export interface RecordedQueued {
  status: 'queued';
  recordId: string;
  record: StoredRecord;
  /** The send, begun once the record was committed; a failure has already ended the record failed. */
  sending: Promise<SentTransaction>;
}

/**
 * Signs and sends transactions for the service's wallets, stage by stage: the fee quote
 * (fee-quote.ts: gas, fees, funds), the nonce lane (nonce-lanes.ts: a PostgreSQL advisory lock
 * per (network, address)), the record and broadcast (here: each transaction is recorded with its
 * raw bytes in the database transaction that takes its nonce, then broadcast, broadcast.ts), and
 * the receipts (receipts.ts: outcome and revert reason). Concurrent senders on one or several
 * instances never collide and nothing sent is forgotten.
 */
export class TransactionSender {
  private readonly quote: FeeQuote;
  private readonly lanes: NonceLanes;
  private readonly receipts: Receipts;

  constructor(
    ds: DataSource,
    private readonly chains: ChainRegistry,
    private readonly logger: Logger,
    /** The transaction records that sends name (`recordId`) follow. */
    readonly records: TransactionRecords,
  ) {
    this.quote = new FeeQuote(chains);
    this.lanes = new NonceLanes(ds);
    this.receipts = new Receipts(ds, chains, logger, records);
  }

  /** Estimates gas, turning a revert into 422 EXECUTION_REVERTED and no money into 422 INSUFFICIENT_FUNDS. */
  estimateGas(req: SendRequest): Promise<bigint> {
    return this.quote.estimateGas(req);
  }

  /** Turns a node error into the domain error the caller should see. */
  translate(e: unknown, req: Pick<SendRequest, 'network' | 'iface' | 'signer'>): Promise<unknown> {
    return translateSendError(e, req);
  }

  /**
   * Everything that can refuse a transaction before it is signed: the gas estimate (a revert is
   * 422 EXECUTION_REVERTED) and the balance check (422 INSUFFICIENT_FUNDS says how much is needed).
   */
  prepare(req: SendRequest): Promise<PreparedTransaction> {
    return this.quote.prepare(req);
  }

  /** Fees of the network's policy (FEE_MODE, GAS_PRICE_WEI, MAX_FEE_PER_GAS_WEI), checked against the balance. */
  fees(req: SendRequest, gasLimit: bigint): Promise<FeeFields> {
    return this.quote.fees(req, gasLimit);
  }

  /** The record a signed transaction was sent for. */
  recordIdOf(network: Network, txHash: string): Promise<string | undefined> {
    return this.records.idOfTransaction(network, txHash);
  }

  /**
   * The one door for "record, then send": creates the transaction record (queued) with whatever
   * must be stored beside it, then sends under it. With `respondAsync` the answer comes once the
   * record is committed (status queued: 202) and the send runs after it; without, once the
   * transaction is signed, recorded and broadcast. Either way a send that fails ends the record
   * failed (docs/api.md, "Transactions").
   */
  sendRecorded(spec: RecordedSend & { respondAsync: true }): Promise<RecordedQueued>;
  sendRecorded(spec: RecordedSend & { respondAsync?: false }): Promise<RecordedSent>;
  sendRecorded(spec: RecordedSend): Promise<RecordedSent | RecordedQueued>;
  async sendRecorded(spec: RecordedSend): Promise<RecordedSent | RecordedQueued> {
    const record = await this.records.inTransaction(undefined, async (m) => {
      const created = await this.records.create(
        m,
        typeof spec.record === 'function' ? await spec.record(m) : spec.record,
      );
      await spec.withRecord?.(m, created);
      return created;
    });
    // The signed transaction names the record, and the contract the record names.
    const request: SendRequest = {
      ...spec.request,
      recordId: record.id,
      contractId: spec.request.contractId ?? record.contractId,
    };
    if (!spec.respondAsync) {
      return { status: 'sent', recordId: record.id, sent: await this.send(request, spec.prepared) };
    }
    const sending = this.send(request, spec.prepared);
    // The caller follows it; this only keeps a failure nobody awaited from being unhandled.
    sending.catch(() => undefined);
    return { status: 'queued', recordId: record.id, record, sending };
  }

  /**
   * Signs with the next nonce, records and broadcasts one transaction. The record (with the raw
   * bytes, and whatever `onRecorded` adds in the same database transaction) is committed before the
   * broadcast, so a crash can never leave a sent transaction unrecorded: at worst a recorded one
   * was not broadcast, and the tracker broadcasts it. A broadcast the node refuses marks the record
   * dropped while the wallet's lock is still held, so its nonce is simply used again.
   */
  async send(req: SendRequest, prepared?: PreparedTransaction): Promise<SentTransaction> {
    try {
      return await this.sendOnce(req, prepared);
    } catch (e) {
      // Failed before anything was signed for it (a refusal by the node has already ended it).
      if (req.recordId) {
        const reason = e instanceof AppError ? e.message : 'the transaction could not be sent';
        await this.records.failed(undefined, req.recordId, reason, { onlyQueued: true }).catch((err: unknown) => {
          this.logger.error({ err, recordId: req.recordId }, 'could not end a transaction record that was not sent');
        });
      }
      throw e;
    }
  }

  private async sendOnce(req: SendRequest, prepared?: PreparedTransaction): Promise<SentTransaction> {
    const provider = this.chains.provider(req.network);
    const { gasLimit, fees } = prepared ?? (await this.prepare(req));
    if (req.apiKey?.spend) checkSpendPerTx(req.apiKey.spend, req.value ?? 0n, feePerGasOf(fees));
    const wallet = await req.signer.open(provider);
    return this.lanes.run(req.network, req.signer.address, (lane) =>
      this.sendUnderLock(req, lane, wallet, provider, gasLimit, fees),
    );
  }

  private async sendUnderLock(
    req: SendRequest,
    lane: Lane,
    wallet: Wallet,
    provider: JsonRpcProvider,
    gasLimit: bigint,
    fees: FeeFields,
  ): Promise<SentTransaction> {
    const runner = lane.runner;
    for (let attempt = 0; ; attempt++) {
      const known = req.fixedNonce === undefined ? lane.next : undefined;
      // Whatever happens below, the nonce after it is read anew unless this send goes out.
      lane.next = undefined;
      const nonce =
        req.fixedNonce ??
        known ??
        (await this.lanes.nextNonce(runner.manager, req.network, req.signer.address, provider, (e) =>
          this.translate(e, req),
        ));
      const raw = await wallet.signTransaction({
        chainId: CHAIN_IDS[req.network],
        nonce,
        to: req.to ?? null,
        data: req.data ?? '0x',
        value: req.value ?? 0n,
        gasLimit,
        ...fees,
      });
      const txHash = keccak256(raw);
      const record = (manager: EntityManager) =>
        manager.query(
          `INSERT INTO chain_transactions
             (network, from_address, to_address, nonce, tx_hash, raw_tx, kind, value_wei, developer_id, contract_id,
              method, status, record_id, api_key_id, gas_limit, fee_per_gas_wei, timeout_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending', $12, $13, $14, $15,
                   now() + make_interval(secs => $16::int))
           ON CONFLICT (network, tx_hash) DO UPDATE
             SET status = 'pending', kind = EXCLUDED.kind, developer_id = EXCLUDED.developer_id,
                 contract_id = EXCLUDED.contract_id, method = EXCLUDED.method, record_id = EXCLUDED.record_id,
                 api_key_id = EXCLUDED.api_key_id, timeout_at = EXCLUDED.timeout_at, created_at = now()
             WHERE chain_transactions.status = 'dropped'`,
          [
            req.network,
            req.signer.address,
            req.to ?? null,
            nonce,
            txHash,
            raw,
            req.kind,
            (req.value ?? 0n).toString(),
            req.developerId ?? null,
            req.contractId ?? null,
            req.method ?? null,
            req.recordId ?? req.cancels?.recordId ?? null,
            req.apiKey?.keyId ?? null,
            gasLimit.toString(),
            feePerGasOf(fees).toString(),
            req.timeoutSeconds ?? null,
          ],
        );
      if (req.onRecorded || req.recordId || req.apiKey?.spend || req.cancels) {
        await runner.startTransaction();
        try {
          // The replaced transaction leaves the nonce (and the key's spend) to its replacement.
          if (req.cancels && !(await this.setAside(runner.manager, req.network, req.cancels.txHash))) {
            throw new AppError('INVALID_STATE', 'The transaction to cancel is no longer pending');
          }
          if (req.apiKey?.spend) {
            await reserveSpend(runner.manager, req.apiKey.keyId, req.apiKey.spend, req.value ?? 0n, gasLimit);
          }
          await record(runner.manager);
          if (req.recordId && !(await this.records.signed(runner.manager, req.recordId, txHash, nonce))) {
            throw new AppError('INVALID_STATE', 'The transaction was ended before it could be sent');
          }
          await req.onRecorded?.(runner.manager, txHash);
          await runner.commitTransaction();
        } catch (e) {
          await runner.rollbackTransaction();
          throw e;
        }
      } else {
        // One statement commits on its own: one round trip instead of three.
        await record(runner.manager);
      }
      const outcome = await this.broadcastOnce(req.network, raw);
      if (outcome.kind === 'unknown') {
        // Maybe sent (timeout, reset): the record stays pending and the tracker follows it by hash.
        this.logger.warn({ network: req.network, txHash, nonce }, 'broadcast outcome unknown; will retry');
      }
      if (outcome.kind === 'sent' || outcome.kind === 'unknown' || outcome.kind === 'already-known') {
        if (req.fixedNonce === undefined) lane.next = nonce + 1;
        return { txHash, nonce, from: req.signer.address };
      }
      // Not taken by the node: forget it while the lock is held, so its nonce is simply used again.
      const retry = outcome.kind === 'nonce-taken' && req.fixedNonce === undefined && attempt < NONCE_RETRIES;
      const error = retry ? undefined : refusalError(req, outcome);
      const drop = (manager: EntityManager) =>
        manager.query(`UPDATE chain_transactions SET status = 'dropped' WHERE network = $1 AND tx_hash = $2`, [
          req.network,
          txHash,
        ]);
      if (error && (req.recordId || req.cancels)) {
        // The record ends failed (or the replaced transaction comes back) in the database transaction that frees the nonce.
        await runner.startTransaction();
        try {
          await drop(runner.manager);
          if (req.cancels) await this.restore(runner.manager, req.network, req.cancels.txHash);
          if (req.recordId) {
            await this.records.failed(runner.manager, req.recordId, error.message, { unsent: true });
          }
          await runner.commitTransaction();
        } catch (e) {
          await runner.rollbackTransaction();
          throw e;
        }
      } else {
        await drop(runner.manager);
      }
      const reason = outcome.kind === 'refused-locally' ? outcome.error.message : outcome.reason;
      this.logger.warn(
        { network: req.network, txHash, nonce, outcome: outcome.kind, reason },
        'transaction refused by the node',
      );
      if (!error) continue;
      throw error;
    }
  }

  /** Sets a pending transaction aside for its replacement (dropped); false when it is no longer pending. */
  private async setAside(m: EntityManager, network: Network, txHash: string): Promise<boolean> {
    const [rows] = (await m.query(
      `UPDATE chain_transactions SET status = 'dropped'
        WHERE network = $1 AND tx_hash = $2 AND status = 'pending' RETURNING tx_hash`,
      [network, txHash],
    )) as [unknown[], number];
    return rows.length > 0;
  }

  /** Brings back a transaction set aside for a replacement the node refused: pending again. */
  private async restore(m: EntityManager, network: Network, txHash: string): Promise<void> {
    await m.query(
      `UPDATE chain_transactions SET status = 'pending'
        WHERE network = $1 AND tx_hash = $2 AND status = 'dropped'`,
      [network, txHash],
    );
  }

  /** One eth_sendRawTransaction, its failure read by the one taxonomy of node answers (src/chain/send-outcome). */
  broadcastOnce(network: Network, raw: string): Promise<BroadcastOutcome> {
    return broadcastOnce(this.chains, network, raw);
  }

  /**
   * Waits for the receipt (QBFT blocks are final on inclusion) and records the outcome; null on
   * timeout, or as soon as the record `recordId` ends without it (cancelled by replacement, failed).
   */
  waitForReceipt(
    network: Network,
    txHash: string,
    timeoutMs: number,
    iface?: Interface,
    recordId?: string,
  ): Promise<MinedTransaction | null> {
    return this.receipts.waitForReceipt(network, txHash, timeoutMs, iface, recordId);
  }

  /** Why a mined transaction reverted (receipts.ts). */
  revertReason(network: Network, txHash: string, blockNumber: number, iface?: Interface): Promise<string | undefined> {
    return this.receipts.revertReason(network, txHash, blockNumber, iface);
  }

  /** Stores a receipt's outcome on the transaction's record. */
  recordReceipt(network: Network, receipt: TransactionReceipt, iface?: Interface): Promise<MinedTransaction> {
    return this.receipts.recordReceipt(network, receipt, iface);
  }

  /**
   * Ends a pending signed transaction as dropped (never mined, never will be) and its record as
   * failed with `reason`, in one database transaction. False when it was no longer pending.
   */
  recordDropped(network: Network, txHash: string, reason: string, verbatim = false): Promise<boolean> {
    return this.receipts.recordDropped(network, txHash, reason, verbatim);
  }
}
