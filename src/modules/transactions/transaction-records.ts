import type { DataSource, EntityManager } from 'typeorm';
import type { Network } from '../../kernel/network';
import type { Logger } from '../../kernel/logger';
import type {
  RecordedCall,
  StoredHistoryEntry,
  TransactionRecordKind,
  TransactionRecordStatus,
} from './transaction-record.entity';
import { hasLiveTransaction, noLiveTransaction, recordOfTransaction } from './record-of-transaction.query';

/** A transaction record as the API shows it, plus its developer (for routing notifications only). */
export interface TransactionRecordView {
  id: string;
  kind: 'invoke' | 'deploy' | 'faucet';
  network: string;
  contractId: string | null;
  method: string | null;
  status: 'queued' | 'pending' | 'success' | 'reverted' | 'failed' | 'cancelled';
  txHash: string | null;
  nonce: number | null;
  blockNumber: number | null;
  gasUsed: string | null;
  revertReason: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  /** Every change of its status, oldest first (docs/api.md, "Transactions": history). */
  history: StoredHistoryEntry[];
  developerId: string;
}

/**
 * Told of every status change of a record (its creation included), inside the database transaction
 * that makes it: a failure rolls the change back, so no notification is lost or invented.
 */
export interface TransactionStatusSink {
  transactionStatusChanged(manager: EntityManager, record: TransactionRecordView): Promise<void>;
}

/** A sink that does nothing (no subscriber). */
export const NO_SINK: TransactionStatusSink = { transactionStatusChanged: async () => undefined };

export interface NewRecord {
  kind: TransactionRecordKind;
  network: Network;
  developerId: string;
  apiKeyId?: string | null;
  contractId?: string | null;
  method?: string | null;
  /** What it asks to send, kept so that it can be retried (invokes). */
  call?: RecordedCall | null;
}

/** What a mined receipt says. */
export interface MinedOutcome {
  status: 'success' | 'reverted';
  blockNumber: number;
  gasUsed: string;
  revertReason?: string | null;
}

interface Row {
  id: string;
  kind: TransactionRecordKind;
  network: string;
  developer_id: string;
  api_key_id: string | null;
  contract_id: string | null;
  method: string | null;
  status: TransactionRecordStatus;
  tx_hash: string | null;
  nonce: string | null;
  block_number: string | null;
  gas_used: string | null;
  revert_reason: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  history: StoredHistoryEntry[];
  call: RecordedCall | null;
}

/** A stored record with who may read it, and what it asked to send. */
export interface StoredRecord extends TransactionRecordView {
  apiKeyId: string | null;
  call: RecordedCall | null;
}

const COLUMNS = `id, kind, network, developer_id, api_key_id, contract_id, method, status, tx_hash, nonce::text AS nonce,
  block_number::text AS block_number, gas_used::text AS gas_used, revert_reason, error, created_at, updated_at, history, call`;

/**
 * SQL of a one-entry history array `{status, at, txHash?, reason?}` stamped with the database
 * transaction's time (the `updated_at` it writes beside it); the arguments are SQL expressions.
 */
function entry(status: string, txHash = 'NULL::text', reason = 'NULL::text'): string {
  return `jsonb_build_array(jsonb_strip_nulls(jsonb_build_object('status', ${status},
    'at', to_char(now() AT TIME ZONE 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'txHash', ${txHash}, 'reason', ${reason})))`;
}

/** Why a record left queued by a stopped sender ended failed. */
const NOT_SENT = 'not sent: the service stopped before sending it';

/** Longest reason kept in a history entry or an error. */
const MAX_REASON = 1000;

/** A queued record not sent after this long will never be (its sender stopped): it is ended failed. */
export const QUEUED_TIMEOUT = '2 minutes';

function view(row: Row): StoredRecord {
  return {
    id: row.id,
    kind: row.kind,
    network: row.network,
    contractId: row.contract_id,
    method: row.method,
    status: row.status,
    txHash: row.tx_hash,
    nonce: row.nonce === null ? null : Number(row.nonce),
    blockNumber: row.block_number === null ? null : Number(row.block_number),
    gasUsed: row.gas_used,
    revertReason: row.revert_reason,
    error: row.error,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    history: row.history,
    developerId: row.developer_id,
    apiKeyId: row.api_key_id,
    call: row.call,
  };
}

/** The rows of an UPDATE ... RETURNING (TypeORM's pg driver answers `[rows, count]` for it). */
function updated(result: unknown): Row[] {
  return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as Row[];
}

/** The notification payload: the record without who may read it and what it sends. */
function notified(record: StoredRecord): TransactionRecordView {
  const { apiKeyId: _apiKeyId, call: _call, ...rest } = record;
  return rest;
}

/**
 * The transaction records' only writer. Every method that changes a status takes the entity
 * manager of the database transaction it belongs to and tells the sink inside it; a change that
 * finds the record already past the expected status does nothing (and tells nobody).
 */
export class TransactionRecords {
  constructor(
    private readonly ds: DataSource,
    private readonly logger: Logger,
    private sink: TransactionStatusSink = NO_SINK,
  ) {}

  /** Replaces the sink (the composition root wires the webhooks once they exist). */
  useSink(sink: TransactionStatusSink): void {
    this.sink = sink;
  }

  /** Runs `work` in a database transaction: the caller's when given, else a new one. */
  inTransaction<T>(manager: EntityManager | undefined, work: (m: EntityManager) => Promise<T>): Promise<T> {
    return manager ? work(manager) : this.ds.transaction(work);
  }

  /** A new record, queued (accepted, not yet signed). */
  async create(manager: EntityManager | undefined, rec: NewRecord): Promise<StoredRecord> {
    return this.inTransaction(manager, async (m) => {
      const [row] = (await m.query(
        `INSERT INTO transaction_records (kind, network, developer_id, api_key_id, contract_id, method, call, status, history)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', ${entry(`'queued'`)}) RETURNING ${COLUMNS}`,
        [
          rec.kind,
          rec.network,
          rec.developerId,
          rec.apiKeyId ?? null,
          rec.contractId ?? null,
          rec.method ?? null,
          rec.call ? JSON.stringify(rec.call) : null,
        ],
      )) as Row[];
      return this.changed(m, row!);
    });
  }

  async find(id: string): Promise<StoredRecord | undefined> {
    const [row] = (await this.ds.query(`SELECT ${COLUMNS} FROM transaction_records WHERE id = $1`, [id])) as Row[];
    return row ? view(row) : undefined;
  }

  /**
   * A developer's records, newest first (creation time, then id), after `after` and narrowed by
   * the filters given; `limit + 1` rows, so the caller knows whether a next page exists.
   */
  async listOf(
    developerId: string,
    filters: { network?: Network; status?: string; kind?: string; contractId?: string },
    limit: number,
    after?: { at: string; id: string },
  ): Promise<StoredRecord[]> {
    const where = ['developer_id = $1'];
    const params: unknown[] = [developerId];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filters.network) add('network = ?', filters.network);
    if (filters.status) add('status = ?', filters.status);
    if (filters.kind) add('kind = ?', filters.kind);
    if (filters.contractId) add('contract_id = ?', filters.contractId);
    if (after) {
      params.push(after.at, after.id);
      // Cursors carry milliseconds: compared and ordered at that precision, so no record is skipped.
      where.push(
        `(date_trunc('milliseconds', created_at), id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`,
      );
    }
    params.push(limit + 1);
    const rows = (await this.ds.query(
      `SELECT ${COLUMNS} FROM transaction_records WHERE ${where.join(' AND ')}
        ORDER BY date_trunc('milliseconds', created_at) DESC, id DESC LIMIT $${params.length}`,
      params,
    )) as Row[];
    return rows.map(view);
  }

  /** The record a signed transaction was sent for. */
  async idOfTransaction(network: Network, txHash: string): Promise<string | undefined> {
    return recordOfTransaction(this.ds, network, txHash);
  }

  /**
   * Signed and recorded: pending with its hash and nonce (again pending when signed anew with
   * another nonce). False when the record is no longer queued or pending (ended by the sweep of
   * stale queued records): the caller must not broadcast.
   */
  async signed(m: EntityManager, id: string, txHash: string, nonce: number): Promise<boolean> {
    const [current] = (await m.query(`SELECT status, tx_hash FROM transaction_records WHERE id = $1 FOR UPDATE`, [
      id,
    ])) as Array<{ status: TransactionRecordStatus; tx_hash: string | null }>;
    if (current?.status !== 'queued' && current?.status !== 'pending') return false;
    // Signed anew while pending: the node gave its nonce to another transaction, so it went out again.
    const again = current.status === 'pending' && current.tx_hash !== txHash;
    const note = again ? `'signed again: its nonce was taken by another transaction'` : 'NULL::text';
    const [row] = updated(
      await m.query(
        `UPDATE transaction_records SET status = 'pending', tx_hash = $2, nonce = $3, updated_at = now()
                ${current.status === 'queued' || again ? `, history = history || ${entry(`'pending'`, '$2::text', note)}` : ''}
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, txHash, nonce],
      ),
    );
    if (current.status === 'queued') await this.changed(m, row!);
    return true;
  }

  /** Mined: success or reverted, with block, gas and the revert's reason. */
  async mined(m: EntityManager, id: string, outcome: MinedOutcome): Promise<void> {
    const [row] = updated(
      await m.query(
        `UPDATE transaction_records
            SET status = $2, block_number = $3, gas_used = $4, revert_reason = $5, error = NULL, updated_at = now(),
                history = history || ${entry('$2::text', 'tx_hash', '$5::text')}
          WHERE id = $1 AND status IN ('queued', 'pending')
          RETURNING ${COLUMNS}`,
        [id, outcome.status, outcome.blockNumber, outcome.gasUsed, outcome.revertReason ?? null],
      ),
    );
    if (row) await this.changed(m, row);
  }

  /**
   * Ended without being mined (refused by the node, dropped, replaced, never sent), with the reason.
   * `onlyQueued`: only if nothing was signed for it yet (a failure before the send). `unsent`: the
   * node refused it, so its hash and nonce name nothing on chain (the nonce goes to the next send,
   * maybe with the very same bytes) and are cleared.
   */
  async failed(
    m: EntityManager | undefined,
    id: string,
    error: string,
    opts: { onlyQueued?: boolean; unsent?: boolean } = {},
  ): Promise<boolean> {
    return this.inTransaction(m, async (tm) => {
      const [row] = updated(
        await tm.query(
          `UPDATE transaction_records SET status = 'failed', error = $2, updated_at = now(),
                  history = history || ${entry(`'failed'`, opts.unsent ? 'NULL::text' : 'tx_hash', '$2::text')}
                  ${opts.unsent ? ', tx_hash = NULL, nonce = NULL' : ''}
            WHERE id = $1 AND status IN (${opts.onlyQueued ? `'queued'` : `'queued', 'pending'`})
            RETURNING ${COLUMNS}`,
          [id, error.slice(0, MAX_REASON)],
        ),
      );
      if (row) await this.changed(tm, row);
      return row !== undefined;
    });
  }

  /**
   * Cancelled by replacement: the 0-value transfer that replaced its pending transaction at its
   * nonce was mined (docs/api.md, "Transactions": cancel). Only a pending record moves; it keeps
   * the hash of the transaction it sent, and its `cancelled` entry names the replacement mined.
   */
  async cancelledByReplacement(m: EntityManager, id: string, replacementHash: string): Promise<void> {
    const [row] = updated(
      await m.query(
        `UPDATE transaction_records SET status = 'cancelled', updated_at = now(),
                history = history || ${entry(`'cancelled'`, '$2::text', `'replaced at its nonce'`)}
          WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
        [id, replacementHash],
      ),
    );
    if (row) await this.changed(m, row);
  }

  /**
   * Puts a failed record back in the queue to be sent again (docs/api.md, "Transactions": retry):
   * queued, its error, hash, nonce and receipt cleared, `retried` in its history. Undefined when it
   * is not failed, or when a transaction signed for it may still be mined or was (a row of
   * chain_transactions not dropped): only what never mined is sent again.
   */
  async requeue(id: string): Promise<StoredRecord | undefined> {
    return this.ds.transaction(async (m) => {
      const [row] = updated(
        await m.query(
          `UPDATE transaction_records
              SET status = 'queued', error = NULL, tx_hash = NULL, nonce = NULL, block_number = NULL, gas_used = NULL,
                  revert_reason = NULL, updated_at = now(),
                  history = history || ${entry(`'queued'`, 'NULL::text', `'retried'`)}
            WHERE id = $1 AND status = 'failed'
              AND ${noLiveTransaction('$1')}
            RETURNING ${COLUMNS}`,
          [id],
        ),
      );
      return row ? this.changed(m, row) : undefined;
    });
  }

  /** Whether a transaction signed for the record is pending or mined (it cannot be sent again). */
  async hasLiveTransaction(id: string): Promise<boolean> {
    return hasLiveTransaction(this.ds, id);
  }

  /** Cancels a queued record (nothing signed for it): false when it is no longer queued. */
  async cancelQueued(id: string): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const [row] = updated(
        await m.query(
          `UPDATE transaction_records
              SET status = 'cancelled', updated_at = now(),
                  history = history || ${entry(`'cancelled'`, 'NULL::text', `'cancelled before it was signed'`)}
            WHERE id = $1 AND status = 'queued' RETURNING ${COLUMNS}`,
          [id],
        ),
      );
      if (row) await this.changed(m, row);
      return row !== undefined;
    });
  }

  /**
   * Ends as failed every record queued longer than QUEUED_TIMEOUT: its sender stopped (a crash, a
   * restart) before signing it, and nothing else will. Returns how many.
   */
  async expireQueued(): Promise<number> {
    return this.ds.transaction(async (m) => {
      const expired = updated(
        await m.query(
          `UPDATE transaction_records
              SET status = 'failed', error = '${NOT_SENT}', updated_at = now(),
                  history = history || ${entry(`'failed'`, 'NULL::text', `'${NOT_SENT}'`)}
            WHERE id IN (SELECT id FROM transaction_records
                          WHERE status = 'queued' AND created_at < now() - interval '${QUEUED_TIMEOUT}'
                          ORDER BY created_at LIMIT 500 FOR UPDATE SKIP LOCKED)
            RETURNING ${COLUMNS}`,
        ),
      );
      for (const row of expired) await this.changed(m, row);
      if (expired.length > 0)
        this.logger.warn({ count: expired.length }, 'queued transactions never sent: ended failed');
      return expired.length;
    });
  }

  private async changed(m: EntityManager, row: Row): Promise<StoredRecord> {
    const record = view(row);
    await this.sink.transactionStatusChanged(m, notified(record));
    return record;
  }
}
