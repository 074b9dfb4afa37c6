import { keccak256, type Interface, type JsonRpcProvider, type TransactionReceipt, type Wallet } from 'ethers';
import type { DataSource, EntityManager } from 'typeorm';
import { nodeUnreachableError, type ChainRegistry } from '../../chain/chain-registry';
import { decodeRevert, isInsufficientFunds } from '../../chain/revert-decoder';
import { CHAIN_IDS, type Network } from '../../config';
import { AppError } from '../../errors/app-error';
import type { Logger } from '../../logger';
import type { ChainTransactionKind } from './chain-transaction.entity';

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
}

type FeeFields = { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 0; gasPrice: bigint };

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

/** Messages of broadcast failures that mean "not accepted" (safe to forget the transaction). */
const REJECTED =
  /nonce too low|nonce has already been used|replacement|underpriced|insufficient funds|intrinsic gas|exceeds block gas limit|invalid sender|already known/i;

/** Serialises work per key inside this process (other processes are held off by PostgreSQL). */
class KeyedQueue {
  private tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

/**
 * Signs and sends transactions for the service's wallets. Nonces are allocated under a
 * PostgreSQL advisory lock per (network, address), and each transaction is recorded with its raw
 * bytes in the same database transaction, so concurrent senders on one or several instances
 * never collide and nothing sent is forgotten.
 */
export class TransactionSender {
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly ds: DataSource,
    private readonly chains: ChainRegistry,
    private readonly logger: Logger,
  ) {}

  /** Estimates gas, turning a revert into 422 EXECUTION_REVERTED and no money into 422 INSUFFICIENT_FUNDS. */
  async estimateGas(req: SendRequest): Promise<bigint> {
    const provider = this.chains.provider(req.network);
    try {
      const estimate = await provider.estimateGas({
        from: req.signer.address,
        to: req.to ?? undefined,
        data: req.data,
        value: req.value,
      });
      const margin = (estimate * GAS_MARGIN_PERCENT) / 100n;
      return estimate + (margin > GAS_MARGIN_MIN ? margin : GAS_MARGIN_MIN);
    } catch (e) {
      throw this.translate(e, req);
    }
  }

  /** Turns a node error into the domain error the caller should see. */
  translate(e: unknown, req: Pick<SendRequest, 'network' | 'iface' | 'signer'>): unknown {
    if (e instanceof AppError) return e;
    if (isInsufficientFunds(e)) {
      return new AppError('INSUFFICIENT_FUNDS', `The wallet ${req.signer.address} cannot pay for this transaction`, {
        address: req.signer.address,
      });
    }
    const revert = decodeRevert(e, req.iface);
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
    const gasLimit = req.gasLimit ?? (await this.estimateGas(req));
    return { gasLimit, fees: await this.fees(req, gasLimit) };
  }

  private async fees(req: SendRequest, gasLimit: bigint): Promise<FeeFields> {
    const provider = this.chains.provider(req.network);
    const [feeData, balance] = await Promise.all([
      provider.getFeeData(),
      provider.getBalance(req.signer.address),
    ]).catch((e: unknown) => {
      throw this.translate(e, req);
    });
    const eip1559 = feeData.maxFeePerGas !== null && feeData.maxPriorityFeePerGas !== null;
    const pricePerGas = (eip1559 ? feeData.maxFeePerGas : feeData.gasPrice) ?? 0n;
    const required = gasLimit * pricePerGas + (req.value ?? 0n);
    if (balance < required) {
      throw new AppError(
        'INSUFFICIENT_FUNDS',
        `The wallet ${req.signer.address} holds ${balance} wei but this transaction needs up to ${required} wei`,
        { address: req.signer.address, balanceWei: balance.toString(), requiredWei: required.toString() },
      );
    }
    return eip1559
      ? { type: 2, maxFeePerGas: feeData.maxFeePerGas!, maxPriorityFeePerGas: feeData.maxPriorityFeePerGas! }
      : { type: 0, gasPrice: feeData.gasPrice ?? 0n };
  }

  /** Next nonce: after every transaction this service recorded and every one the node has seen. */
  private async nextNonce(manager: EntityManager, req: SendRequest, provider: JsonRpcProvider): Promise<number> {
    const [row] = (await manager.query(
      `SELECT max(nonce) AS last FROM chain_transactions
        WHERE network = $1 AND from_address = $2 AND status <> 'dropped'`,
      [req.network, req.signer.address],
    )) as Array<{ last: string | null }>;
    const recorded = row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
    const onChain = await provider.getTransactionCount(req.signer.address, 'pending').catch((e: unknown) => {
      throw this.translate(e, req);
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
    const provider = this.chains.provider(req.network);
    const { gasLimit, fees } = prepared ?? (await this.prepare(req));
    const wallet = await req.signer.open(provider);
    const key = `${req.network}:${req.signer.address}`;
    return this.queue.run(key, async () => {
      const runner = this.ds.createQueryRunner();
      await runner.connect();
      try {
        // Session lock: held across commit and broadcast, released even if this process dies.
        await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`nonce:${key}`]);
        try {
          const nonce = req.fixedNonce ?? (await this.nextNonce(runner.manager, req, provider));
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
          await runner.startTransaction();
          try {
            await runner.query(
              `INSERT INTO chain_transactions
                 (network, from_address, to_address, nonce, tx_hash, raw_tx, kind, value_wei, developer_id, contract_id, method, status)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending')`,
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
              ],
            );
            await req.onRecorded?.(runner.manager, txHash);
            await runner.commitTransaction();
          } catch (e) {
            await runner.rollbackTransaction();
            throw e;
          }
          try {
            await this.chains.broadcast(req.network, raw);
          } catch (e) {
            const message = e instanceof Error ? e.message : String(e);
            if (e instanceof AppError || REJECTED.test(message) || decodeRevert(e, req.iface)) {
              await runner.query(
                `UPDATE chain_transactions SET status = 'dropped' WHERE network = $1 AND tx_hash = $2`,
                [req.network, txHash],
              );
              throw this.translate(e, req);
            }
            // Outcome unknown (node unreachable, timeout): the record stays pending and is re-broadcast.
            this.logger.warn({ network: req.network, txHash, nonce }, 'broadcast outcome unknown; will retry');
          }
          return { txHash, nonce, from: req.signer.address };
        } finally {
          await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`nonce:${key}`]).catch(() => undefined);
        }
      } finally {
        await runner.release();
      }
    });
  }

  /** Waits for the receipt (QBFT blocks are final on inclusion) and records the outcome; null on timeout. */
  async waitForReceipt(network: Network, txHash: string, timeoutMs: number): Promise<MinedTransaction | null> {
    const provider = this.chains.provider(network);
    let receipt: TransactionReceipt | null;
    try {
      receipt = await provider.waitForTransaction(txHash, 1, timeoutMs);
    } catch (e) {
      if ((e as { code?: string }).code === 'TIMEOUT') return null;
      throw nodeUnreachableError(network, e) ?? e;
    }
    if (!receipt) return null;
    return this.recordReceipt(network, receipt);
  }

  /** Stores a receipt's outcome on the transaction's record. */
  async recordReceipt(network: Network, receipt: TransactionReceipt): Promise<MinedTransaction> {
    const block = await this.chains.provider(network).getBlock(receipt.blockNumber);
    const mined: MinedTransaction = {
      txHash: receipt.hash,
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed.toString(),
      status: receipt.status === 1 ? 'success' : 'reverted',
      contractAddress: receipt.contractAddress ?? null,
    };
    await this.ds.query(
      `UPDATE chain_transactions
          SET status = $3, block_number = $4, gas_used = $5, contract_address = $6,
              block_timestamp = $7, mined_at = now()
        WHERE network = $1 AND tx_hash = $2`,
      [
        network,
        receipt.hash,
        mined.status,
        mined.blockNumber,
        mined.gasUsed,
        mined.contractAddress,
        block?.timestamp ?? null,
      ],
    );
    return mined;
  }
}
