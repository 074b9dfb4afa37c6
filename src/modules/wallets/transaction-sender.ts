import {
  keccak256,
  type FeeData,
  type Interface,
  type JsonRpcProvider,
  type TransactionReceipt,
  type Wallet,
} from 'ethers';
import { LRUCache } from 'lru-cache';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { nodeUnreachableError, type ChainRegistry } from '../../chain/chain-registry';
import { decodeRevert, decodeRevertData, isInsufficientFunds } from '../../chain/revert-decoder';
import { classifySendError, type SendOutcome } from '../../chain/send-outcome';
import {
  applyFeeOverrides,
  applyFeePolicy,
  type FeeFields,
  type FeeFloor,
  type FeeOverrides,
} from '../../chain/fee-policy';
import { waitForReceipt } from '../../chain/receipt-wait';
import { CHAIN_IDS, type Network } from '../../config';
import { AppError } from '../../errors/app-error';
import type { Logger } from '../../logger';
import type { TransactionRecords } from '../transactions';
import type { ChainTransactionKind } from './chain-transaction.entity';
import { LOCK_KEYS } from '../../kernel/lock-keys';
import type { SpendCaps } from '../../auth/authority';

/** Who signs: an address, and a way to open its key only when signing. */
export interface TransactionSigner {
  address: string;
  open(provider: JsonRpcProvider): Promise<Wallet>;
}

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
  /** Runs in the database transaction that records the signed transaction (e.g. to link an idempotency key). */
  onRecorded?: (manager: EntityManager, txHash: string) => Promise<void>;
}

/** What became of one broadcast. */
export type BroadcastOutcome = { kind: 'sent' } | { kind: 'refused-locally'; error: AppError } | SendOutcome;

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

/**
 * Margin on estimated gas: state can change between estimate and inclusion (another transaction
 * may zero a storage slot, making the next write cost 20k instead of 5k). Unused gas is not paid.
 */
const GAS_MARGIN_PERCENT = 30n;
const GAS_MARGIN_MIN = 30_000n;

/** Signing again with a fresh nonce after the node said the nonce was taken (someone else used the key). */
const NONCE_RETRIES = 2;

/** Gas every transaction pays before running any code (yellow paper G_transaction, G_txcreate, calldata). */
export function intrinsicGas(to: string | null | undefined, data: string | undefined): bigint {
  let gas = to ? 21_000n : 53_000n;
  const bytes = Buffer.from((data ?? '0x').replace(/^0x/, ''), 'hex');
  for (const byte of bytes) gas += byte === 0 ? 4n : 16n;
  return gas;
}

/** A replacement must raise every price by at least 10% (geth, GoQuorum and Besu's price bump). */
export function bumped(price: bigint): bigint {
  return (price * 1125n) / 1000n + 1n;
}

/** The fee per gas a transaction offers at most: maxFeePerGas (EIP-1559) or gasPrice. */
export function feePerGasOf(fees: FeeFields): bigint {
  return fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice;
}

/** 422 SPEND_LIMIT_EXCEEDED naming the cap, its size and what is left of it. */
export function spendLimitError(limit: keyof SpendCaps, max: bigint, left: bigint, requested: bigint): AppError {
  return new AppError(
    'SPEND_LIMIT_EXCEEDED',
    `The API key's spend cap ${limit} of ${max} allows ${left} more; this transaction needs ${requested}`,
    { limit, max: max.toString(), left: left.toString(), requested: requested.toString() },
  );
}

/** The caps one transaction meets on its own: its value, its fee per gas. */
export function checkSpendPerTx(caps: SpendCaps, value: bigint, feePerGas: bigint): void {
  if (caps.maxValueWeiPerTx !== null && value > caps.maxValueWeiPerTx) {
    throw spendLimitError('maxValueWeiPerTx', caps.maxValueWeiPerTx, caps.maxValueWeiPerTx, value);
  }
  if (caps.maxFeePerGasWei !== null && feePerGas > caps.maxFeePerGasWei) {
    throw spendLimitError('maxFeePerGasWei', caps.maxFeePerGasWei, caps.maxFeePerGasWei, feePerGas);
  }
}

/**
 * The caps of a day, checked under the key's advisory lock (held until the database transaction
 * that records the transaction commits, so every instance counts exactly): the value and the gas
 * (gas used once mined, the gas limit while pending) of the key's transactions of the UTC day that
 * were not dropped; a refused send is dropped, so its spend comes back by itself.
 */
export async function reserveSpend(
  m: EntityManager,
  keyId: string,
  caps: SpendCaps,
  value: bigint,
  gasLimit: bigint,
): Promise<void> {
  if (caps.maxValueWeiPerDay === null && caps.maxGasPerDay === null) return;
  await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK_KEYS.keySpend(keyId)]);
  // The door's raw transactions count their gas limit until their receipt settles them (door-sends.ts).
  const [row] = (await m.query(
    `SELECT coalesce(sum(value), 0)::text AS value, coalesce(sum(gas), 0)::text AS gas FROM (
       SELECT value_wei AS value,
              CASE WHEN status = 'pending' THEN coalesce(gas_limit, 0) ELSE coalesce(gas_used, 0) END AS gas
         FROM chain_transactions
        WHERE api_key_id = $1 AND status <> 'dropped'
          AND created_at >= date_trunc('day', now() AT TIME ZONE 'utc') AT TIME ZONE 'utc'
       UNION ALL
       SELECT value_wei, coalesce(gas_used, gas_limit) FROM api_key_door_sends
        WHERE api_key_id = $1
          AND created_at >= date_trunc('day', now() AT TIME ZONE 'utc') AT TIME ZONE 'utc') AS s`,
    [keyId],
  )) as [{ value: string; gas: string }];
  const spentValue = BigInt(row.value);
  const spentGas = BigInt(row.gas);
  const left = (max: bigint, spent: bigint) => (max > spent ? max - spent : 0n);
  if (caps.maxValueWeiPerDay !== null && spentValue + value > caps.maxValueWeiPerDay) {
    throw spendLimitError('maxValueWeiPerDay', caps.maxValueWeiPerDay, left(caps.maxValueWeiPerDay, spentValue), value);
  }
  if (caps.maxGasPerDay !== null && spentGas + gasLimit > caps.maxGasPerDay) {
    throw spendLimitError('maxGasPerDay', caps.maxGasPerDay, left(caps.maxGasPerDay, spentGas), gasLimit);
  }
}

/** A raw transaction of the JSON-RPC door, as its spend is counted. */
export interface DoorSend {
  network: Network;
  txHash: string;
  value: bigint;
  gasLimit: bigint;
  feePerGas: bigint;
}

/**
 * Reserves the spend of a raw transaction sent through the door with a key (docs/api.md, "API
 * keys": spend caps): its caps checked, then recorded under the key's lock. False when the same
 * transaction was already counted (a repeat is relayed without counting it again).
 */
export async function reserveDoorSend(
  ds: DataSource,
  keyId: string,
  caps: SpendCaps | null,
  send: DoorSend,
): Promise<boolean> {
  if (caps) checkSpendPerTx(caps, send.value, send.feePerGas);
  return ds.transaction(async (m) => {
    if (caps) await reserveSpend(m, keyId, caps, send.value, send.gasLimit);
    const rows = (await m.query(
      `INSERT INTO api_key_door_sends (network, tx_hash, api_key_id, value_wei, gas_limit, fee_per_gas_wei)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING tx_hash`,
      [send.network, send.txHash, keyId, send.value.toString(), send.gasLimit.toString(), send.feePerGas.toString()],
    )) as unknown[];
    return rows.length > 0;
  });
}

/** Gives back what a door transaction reserved: the node refused it. */
export async function refundDoorSend(ds: DataSource, network: Network, txHash: string): Promise<void> {
  await ds.query('DELETE FROM api_key_door_sends WHERE network = $1 AND tx_hash = $2', [network, txHash]);
}

/** Serialises work per key inside this process (other processes are held off by PostgreSQL). */
class KeyedQueue {
  private tails = new Map<string, Promise<unknown>>();
  private counts = new Map<string, number>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    const previous = this.tails.get(key) ?? Promise.resolve();
    const counted = () => {
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left === 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
    const result = previous.then(task, task).finally(counted);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Tasks of `key` queued or running. */
  size(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

/**
 * A wallet's advisory lock, held by this process across a burst of sends (at most LANE_MAX_MS and
 * LANE_MAX_SENDS, then handed over so that other instances get their turn). While it is held no
 * other sender can use the wallet, so the nonce after a sent transaction is known without asking.
 */
interface Lane {
  readonly runner: QueryRunner;
  readonly since: number;
  sends: number;
  /** The nonce after the last one this hold sent; undefined: read it from the records and the node. */
  next?: number;
}

/** Fee data is shared by the sends of one network for this long (about a block). */
const FEE_DATA_TTL_MS = 1000;
const LANE_MAX_MS = 2000;
const LANE_MAX_SENDS = 200;

/**
 * Signs and sends transactions for the service's wallets. Nonces are allocated under a
 * PostgreSQL advisory lock per (network, address), and each transaction is recorded with its raw
 * bytes in the same database transaction, so concurrent senders on one or several instances
 * never collide and nothing sent is forgotten.
 */
export class TransactionSender {
  private readonly queue = new KeyedQueue();
  private readonly lanes = new Map<string, Lane>();
  private readonly feeData = new Map<Network, { at: number; data: Promise<FeeData> }>();
  private readonly balances = new Map<string, Promise<bigint>>();
  private readonly blockTimestamps = new LRUCache<string, Promise<number | null>>({ max: 256 });

  constructor(
    private readonly ds: DataSource,
    private readonly chains: ChainRegistry,
    private readonly logger: Logger,
    /** The transaction records that sends name (`recordId`) follow. */
    readonly records: TransactionRecords,
  ) {}

  /** Estimates gas, turning a revert into 422 EXECUTION_REVERTED and no money into 422 INSUFFICIENT_FUNDS. */
  async estimateGas(req: SendRequest): Promise<bigint> {
    const estimate = await this.nodeEstimate(req);
    const margin = (estimate * GAS_MARGIN_PERCENT) / 100n;
    return estimate + (margin > GAS_MARGIN_MIN ? margin : GAS_MARGIN_MIN);
  }

  /** The node's own estimate, without margin. */
  private async nodeEstimate(req: SendRequest): Promise<bigint> {
    const provider = this.chains.provider(req.network);
    try {
      return await provider.estimateGas({
        from: req.signer.address,
        to: req.to ?? undefined,
        data: req.data,
        value: req.value,
      });
    } catch (e) {
      throw await this.translate(e, req);
    }
  }

  /**
   * A caller's gas limit below what the transaction needs would be refused or dropped by the node,
   * or revert out of gas: 400 naming both numbers, before anything is signed.
   */
  private async checkGasLimit(req: SendRequest, gasLimit: bigint): Promise<void> {
    const intrinsic = intrinsicGas(req.to, req.data);
    const needed = gasLimit < intrinsic ? intrinsic : await this.nodeEstimate(req);
    const required = needed > intrinsic ? needed : intrinsic;
    if (gasLimit < required) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `gasLimit ${gasLimit} is below the ${required} gas this transaction needs`,
        { field: 'gasLimit', gasLimit: gasLimit.toString(), requiredGas: required.toString() },
      );
    }
  }

  /** Turns a node error into the domain error the caller should see. */
  async translate(e: unknown, req: Pick<SendRequest, 'network' | 'iface' | 'signer'>): Promise<unknown> {
    if (e instanceof AppError) return e;
    if (isInsufficientFunds(e)) {
      return new AppError('INSUFFICIENT_FUNDS', `The wallet ${req.signer.address} cannot pay for this transaction`, {
        address: req.signer.address,
      });
    }
    // The bounded decoder (docs/api.md "Hostile chain data"): over its bounds → 422 RESULT_TOO_LARGE.
    const revert = await decodeRevert(e, req.iface);
    if (revert) {
      return new AppError('EXECUTION_REVERTED', `Execution reverted: ${revert.reason}`, {
        reason: revert.reason,
        ...(revert.error ? { error: revert.error } : {}),
        ...(revert.panicCode !== undefined ? { panicCode: revert.panicCode } : {}),
      });
    }
    return nodeUnreachableError(req.network, e) ?? e;
  }

  /**
   * Everything that can refuse a transaction before it is signed: the gas estimate (a revert is
   * 422 EXECUTION_REVERTED) and the balance check (422 INSUFFICIENT_FUNDS says how much is needed).
   */
  async prepare(req: SendRequest): Promise<PreparedTransaction> {
    if (req.gasLimit !== undefined) await this.checkGasLimit(req, req.gasLimit);
    const gasLimit = req.gasLimit ?? (await this.estimateGas(req));
    return { gasLimit, fees: await this.fees(req, gasLimit) };
  }

  /** Fees of the network's policy (FEE_MODE, GAS_PRICE_WEI, MAX_FEE_PER_GAS_WEI), checked against the balance. */
  async fees(req: SendRequest, gasLimit: bigint): Promise<FeeFields> {
    const [feeData, balance] = await Promise.all([
      this.currentFeeData(req.network),
      this.currentBalance(req.network, req.signer.address),
    ]).catch(async (e: unknown) => {
      throw await this.translate(e, req);
    });
    const policy = this.chains.feePolicy(req.network);
    const fees = applyFeeOverrides(
      req.network,
      policy,
      applyFeePolicy(req.network, policy, feeData, req.minFees),
      req.feeOverrides ?? {},
    );
    const pricePerGas = fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice;
    const required = gasLimit * pricePerGas + (req.value ?? 0n);
    if (balance < required) {
      throw new AppError(
        'INSUFFICIENT_FUNDS',
        `The wallet ${req.signer.address} holds ${balance} wei but this transaction needs up to ${required} wei`,
        { address: req.signer.address, balanceWei: balance.toString(), requiredWei: required.toString() },
      );
    }
    return fees;
  }

  /** The node's fee data, one request shared by every send of the network within FEE_DATA_TTL_MS. */
  private currentFeeData(network: Network): Promise<FeeData> {
    const cached = this.feeData.get(network);
    if (cached && Date.now() - cached.at < FEE_DATA_TTL_MS) return cached.data;
    const data = this.chains.provider(network).getFeeData();
    const entry = { at: Date.now(), data };
    this.feeData.set(network, entry);
    data.catch(() => {
      if (this.feeData.get(network) === entry) this.feeData.delete(network);
    });
    return data;
  }

  /** A wallet's balance; concurrent checks of one wallet share one request (nothing is kept after it). */
  private currentBalance(network: Network, address: string): Promise<bigint> {
    const key = `${network}:${address}`;
    let balance = this.balances.get(key);
    if (!balance) {
      balance = this.chains
        .provider(network)
        .getBalance(address)
        .finally(() => this.balances.delete(key));
      this.balances.set(key, balance);
    }
    return balance;
  }

  /** Next nonce: after every transaction this service recorded and every one the node has seen. */
  private async nextNonce(manager: EntityManager, req: SendRequest, provider: JsonRpcProvider): Promise<number> {
    const [row] = (await manager.query(
      `SELECT max(nonce) AS last FROM chain_transactions
        WHERE network = $1 AND from_address = $2 AND status <> 'dropped'`,
      [req.network, req.signer.address],
    )) as Array<{ last: string | null }>;
    const recorded = row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
    const onChain = await provider.getTransactionCount(req.signer.address, 'pending').catch(async (e: unknown) => {
      throw await this.translate(e, req);
    });
    return Math.max(recorded, onChain);
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
    const key = `${req.network}:${req.signer.address}`;
    return this.queue.run(key, async () => {
      const lane = await this.enterLane(key);
      let keep = false;
      try {
        const sent = await this.sendUnderLock(req, lane, wallet, provider, gasLimit, fees);
        keep = true;
        return sent;
      } finally {
        await this.leaveLane(key, lane, keep);
      }
    });
  }

  /** The wallet's lane: the one this process already holds, or a new hold of its advisory lock. */
  private async enterLane(key: string): Promise<Lane> {
    const held = this.lanes.get(key);
    if (held) return held;
    const runner = this.ds.createQueryRunner();
    await runner.connect();
    try {
      // Session lock: held across commit and broadcast, released even if this process dies.
      await runner.query('SELECT pg_advisory_lock(hashtext($1))', [LOCK_KEYS.nonce(key)]);
    } catch (e) {
      await runner.release();
      throw e;
    }
    const lane: Lane = { runner, since: Date.now(), sends: 0 };
    this.lanes.set(key, lane);
    return lane;
  }

  /**
   * Keeps the lock for the next send queued in this process, unless the hold is long enough (or
   * ended in an error): then unlocks, and the next send takes it anew, reading its nonce again.
   */
  private async leaveLane(key: string, lane: Lane, ok: boolean): Promise<void> {
    lane.sends += 1;
    const more = this.queue.size(key) > 1;
    if (ok && more && lane.sends < LANE_MAX_SENDS && Date.now() - lane.since < LANE_MAX_MS) return;
    this.lanes.delete(key);
    try {
      await lane.runner.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEYS.nonce(key)]).catch(() => undefined);
    } finally {
      await lane.runner.release();
    }
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
      const nonce = req.fixedNonce ?? known ?? (await this.nextNonce(runner.manager, req, provider));
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
            req.recordId ?? null,
            req.apiKey?.keyId ?? null,
            gasLimit.toString(),
            feePerGasOf(fees).toString(),
            req.timeoutSeconds ?? null,
          ],
        );
      if (req.onRecorded || req.recordId || req.apiKey?.spend) {
        await runner.startTransaction();
        try {
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
      const error = retry ? undefined : this.refusalError(req, outcome);
      const drop = (manager: EntityManager) =>
        manager.query(`UPDATE chain_transactions SET status = 'dropped' WHERE network = $1 AND tx_hash = $2`, [
          req.network,
          txHash,
        ]);
      if (error && req.recordId) {
        // The record ends failed in the same database transaction that frees the nonce.
        await runner.startTransaction();
        try {
          await drop(runner.manager);
          await this.records.failed(runner.manager, req.recordId, error.message, { unsent: true });
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

  /** One eth_sendRawTransaction, its failure read by the one taxonomy of node answers (src/chain/send-outcome). */
  async broadcastOnce(network: Network, raw: string): Promise<BroadcastOutcome> {
    try {
      await this.chains.broadcast(network, raw);
      return { kind: 'sent' };
    } catch (e) {
      // The registry refused before sending (network not available, wrong chain id).
      if (e instanceof AppError) return { kind: 'refused-locally', error: e };
      return classifySendError(e);
    }
  }

  /** The error a caller sees for a transaction the node did not take. */
  private refusalError(
    req: SendRequest,
    outcome: Exclude<BroadcastOutcome, { kind: 'sent' | 'unknown' | 'already-known' }>,
  ): AppError {
    switch (outcome.kind) {
      case 'refused-locally':
        return outcome.error;
      case 'unauthorized':
        return new AppError('UPSTREAM_RPC_ERROR', `The ${req.network} node refused the service's credentials`, {
          network: req.network,
        });
      case 'refused':
        if (outcome.insufficientFunds) {
          return new AppError(
            'INSUFFICIENT_FUNDS',
            `The wallet ${req.signer.address} cannot pay for this transaction (${outcome.reason})`,
            { address: req.signer.address, reason: outcome.reason },
          );
        }
        return this.refused(req.network, outcome.reason);
      case 'nonce-taken':
        return this.refused(req.network, outcome.reason);
    }
  }

  private refused(network: Network, reason: string): AppError {
    return new AppError('TRANSACTION_REFUSED', `The ${network} node refused the transaction: ${reason}`, {
      network,
      reason,
    });
  }

  /** Waits for the receipt (QBFT blocks are final on inclusion) and records the outcome; null on timeout. */
  async waitForReceipt(
    network: Network,
    txHash: string,
    timeoutMs: number,
    iface?: Interface,
  ): Promise<MinedTransaction | null> {
    const provider = this.chains.provider(network);
    let receipt: TransactionReceipt | null;
    try {
      receipt = await waitForReceipt(provider, txHash, { timeoutMs, pollMs: provider.pollingInterval });
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
      const [rows] = (await m.query(
        `UPDATE chain_transactions
            SET status = $3, block_number = $4, gas_used = $5, contract_address = $6,
                block_timestamp = $7, tx_index = $8, mined_at = now(), effective_gas_price_wei = $9
          WHERE network = $1 AND tx_hash = $2
          RETURNING record_id`,
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
      )) as [Array<{ record_id: string | null }>, number];
      const recordId = rows[0]?.record_id;
      if (recordId) {
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
