import type { Session } from '../../auth/session';
import { AppError } from '../../kernel/errors/app-error';
import { decodeCursor, encodeCursor, isUuid, pageLimit } from '../../kernel/pagination';
import type { Network } from '../../kernel/network';
import type { TransactionRecords } from './transaction-records';
import type { GatewayTransaction, GatewayTransactionPage } from './transactions.types';
import type { StoredRecord } from './transaction-records';

/** Cancels a pending transaction by a replacement at its nonce (the wallets module signs it). */
export interface PendingCanceller {
  /**
   * Sends the replacement; false when the record has no pending transaction any more (mined or
   * ended meanwhile). 409 INVALID_STATE where the network cannot replace it.
   */
  cancelPending(recordId: string): Promise<boolean>;
}

/**
 * Sends a failed record's transaction again under the same record (the gateway, which sent it the
 * first time): checks what a new invoke would meet, puts the record back in the queue
 * (TransactionRecords.requeue) and sends it.
 */
export interface TransactionRetrier {
  retry(session: Session, record: StoredRecord): Promise<void>;
}

/** Reads transaction records for their developer or the API key that sent them. */
export class TransactionRecordsService {
  private retrier?: TransactionRetrier;

  constructor(
    private readonly records: TransactionRecords,
    private readonly pending?: PendingCanceller,
  ) {}

  /** The composition root hands over the gateway once it exists (it depends on this module). */
  useRetrier(retrier: TransactionRetrier): void {
    this.retrier = retrier;
  }

  async get(session: Session, id: string): Promise<GatewayTransaction> {
    // Credentials first: without them nothing, not even whether the id is well formed, is answered.
    await session.developerOrKey();
    if (!isUuid(id)) throw new AppError('VALIDATION_FAILED', 'id must be a UUID', { field: 'id' });
    const record = await this.records.find(id);
    if (!record) throw new AppError('NOT_FOUND', 'No such transaction');
    await session.transactionReader(record);
    return toTransaction(record);
  }

  /**
   * Cancels a record (docs/api.md, "Transactions": cancel). Queued: `cancelled`, no nonce used; its
   * send, should it come, finds it ended and broadcasts nothing. Pending: replaced at its nonce by
   * a 0-value transfer to itself, `cancelled` once that is mined (409 where the network cannot
   * replace it). Any other status → 409.
   */
  async cancel(session: Session, id: string): Promise<GatewayTransaction> {
    await session.developerOrKey();
    if (!isUuid(id)) throw new AppError('VALIDATION_FAILED', 'id must be a UUID', { field: 'id' });
    const record = await this.records.find(id);
    if (!record) throw new AppError('NOT_FOUND', 'No such transaction');
    await session.transactionReader(record);
    if (record.status === 'queued' && (await this.records.cancelQueued(id))) {
      return toTransaction((await this.records.find(id))!);
    }
    if (record.status === 'pending' && this.pending && (await this.pending.cancelPending(id))) {
      return toTransaction((await this.records.find(id))!);
    }
    const now = (await this.records.find(id))!;
    if (now.status === 'pending') {
      throw new AppError('INVALID_STATE', 'The transaction is pending and could not be replaced at its nonce', {
        status: now.status,
      });
    }
    throw new AppError('INVALID_STATE', `The transaction is ${now.status}: only a queued one can be cancelled`, {
      status: now.status,
    });
  }

  /**
   * Sends a failed invoke again under the same record (docs/api.md, "Transactions": retry). Only a
   * `failed` record none of whose transactions is pending or mined; any other status → 409 with it.
   */
  async retry(session: Session, id: string): Promise<GatewayTransaction> {
    await session.developerOrKey();
    if (!isUuid(id)) throw new AppError('VALIDATION_FAILED', 'id must be a UUID', { field: 'id' });
    const record = await this.records.find(id);
    if (!record) throw new AppError('NOT_FOUND', 'No such transaction');
    await session.transactionReader(record);
    if (record.status !== 'failed') {
      throw new AppError('INVALID_STATE', `The transaction is ${record.status}: only a failed one can be retried`, {
        status: record.status,
      });
    }
    if (record.kind !== 'invoke' || !record.call || !this.retrier) {
      throw new AppError(
        'INVALID_STATE',
        record.kind === 'invoke'
          ? 'The transaction cannot be retried: what it sent was not kept'
          : `Only an invoke can be retried: ${record.kind === 'deploy' ? 'deploy the contract' : 'ask the faucet'} again`,
        { status: record.status, kind: record.kind },
      );
    }
    if (await this.records.hasLiveTransaction(id)) {
      throw new AppError(
        'INVALID_STATE',
        'A transaction sent for it may still be mined, or was: it cannot be retried',
        {
          status: record.status,
        },
      );
    }
    await this.retrier.retry(session, record);
    return toTransaction((await this.records.find(id))!);
  }

  /**
   * A developer's transaction records, newest first, narrowed by network, status, kind and
   * contract (docs/api.md, "Transactions": list); the developer's own token only.
   */
  async list(
    session: Session,
    developerId: string,
    filters: { network?: Network | null; status?: string | null; kind?: string | null; contractId?: string | null },
    limit?: number | null,
    cursor?: string | null,
  ): Promise<GatewayTransactionPage> {
    const caller = await session.self(developerId);
    const size = pageLimit(limit);
    const after = decodeCursor(cursor);
    const invalid = (field: string, allowed: readonly string[]) =>
      new AppError('VALIDATION_FAILED', `${field} must be one of ${allowed.join(', ')}`, { field });
    if (filters.status && !STATUSES.includes(filters.status)) throw invalid('status', STATUSES);
    if (filters.kind && !KINDS.includes(filters.kind)) throw invalid('kind', KINDS);
    if (filters.contractId && !isUuid(filters.contractId)) {
      throw new AppError('VALIDATION_FAILED', 'contractId must be a UUID', { field: 'contractId' });
    }
    const rows = await this.records.listOf(
      caller.id,
      {
        network: filters.network ?? undefined,
        status: filters.status ?? undefined,
        kind: filters.kind ?? undefined,
        contractId: filters.contractId ?? undefined,
      },
      size,
      after,
    );
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    return {
      items: page.map(toTransaction),
      nextCursor: rows.length > size && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null,
    };
  }
}

const STATUSES: readonly string[] = ['queued', 'pending', 'success', 'reverted', 'failed', 'cancelled'];
const KINDS: readonly string[] = ['invoke', 'deploy', 'faucet'];

function toTransaction(record: StoredRecord): GatewayTransaction {
  return {
    id: record.id,
    kind: record.kind,
    network: record.network,
    contractId: record.contractId,
    method: record.method,
    status: record.status,
    txHash: record.txHash,
    nonce: record.nonce,
    blockNumber: record.blockNumber,
    gasUsed: record.gasUsed,
    revertReason: record.revertReason,
    error: record.error,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    history: record.history.map((h) => ({
      status: h.status,
      at: h.at,
      txHash: h.txHash ?? null,
      reason: h.reason ?? null,
    })),
  };
}
