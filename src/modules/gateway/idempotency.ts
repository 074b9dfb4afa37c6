import type { DataSource, EntityManager } from 'typeorm';
import { isAccepted, successStatus } from '../../kernel/success-status';
import { AppError } from '../../kernel/errors/app-error';
import type { GatewayInvokeResult } from './gateway.types';
import { forgetUnsentKey } from './unsent-key.query';

/** Keys are remembered 24 hours per developer (docs/api.md, "Gateway"). */
const RETENTION = '24 hours';
/** An attempt that has not signed anything after this long is presumed dead and may be taken over. */
const STALE_ATTEMPT = '2 minutes';
/** How long a repeat waits for a first attempt that is still in flight before answering 409. */
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 100;

type OnRecorded = (manager: EntityManager, txHash: string) => Promise<void>;

/** What the first attempt gets: the hook of its signed transaction, and the key (for an accepted answer). */
export interface FirstAttempt {
  onRecorded: OnRecorded;
  developerId: string;
  key: string;
}

interface Row {
  request_hash: string;
  state: 'in_progress' | 'sent' | 'done';
  tx_hash: string | null;
  response: GatewayInvokeResult | null;
  expired: boolean;
  stale: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Idempotency-Key for invokes. The key is stored before anything is signed, and linked to the
 * transaction in the same database transaction that records it, so neither a client retry nor a
 * crash between signing and answering can send twice: a repeat returns the first transaction.
 */
export class IdempotencyStore {
  constructor(private readonly ds: DataSource) {}

  async run(
    developerId: string,
    key: string,
    requestHash: string,
    execute: (first: FirstAttempt) => Promise<GatewayInvokeResult>,
    resume: (txHash: string) => Promise<GatewayInvokeResult>,
  ): Promise<GatewayInvokeResult> {
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw new AppError('VALIDATION_FAILED', 'Idempotency-Key must be 1 to 255 visible ASCII characters', {
        field: 'Idempotency-Key',
      });
    }
    const waitUntil = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const inserted = (await this.ds.query(
        `INSERT INTO idempotency_keys (developer_id, key, request_hash, state) VALUES ($1, $2, $3, 'in_progress')
         ON CONFLICT (developer_id, key) DO NOTHING RETURNING key`,
        [developerId, key, requestHash],
      )) as unknown[];
      if (inserted.length > 0) return this.first(developerId, key, execute);

      const [row] = (await this.ds.query(
        `SELECT request_hash, state, tx_hash, response,
                created_at < now() - interval '${RETENTION}' AS expired,
                updated_at < now() - interval '${STALE_ATTEMPT}' AS stale
           FROM idempotency_keys WHERE developer_id = $1 AND key = $2`,
        [developerId, key],
      )) as Row[];
      if (!row) continue;
      if (row.expired) {
        await this.ds.query(
          `DELETE FROM idempotency_keys WHERE developer_id = $1 AND key = $2 AND created_at < now() - interval '${RETENTION}'`,
          [developerId, key],
        );
        continue;
      }
      if (row.request_hash !== requestHash) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request', {
          field: 'Idempotency-Key',
        });
      }
      if (row.state === 'done' && row.response) return row.response;
      if (row.state === 'sent' || (row.state === 'done' && row.tx_hash))
        return this.resumeSent(developerId, key, row.tx_hash!, resume);
      if (row.stale) {
        const [taken] = (await this.ds.query(
          `UPDATE idempotency_keys SET updated_at = now()
            WHERE developer_id = $1 AND key = $2 AND state = 'in_progress' AND updated_at < now() - interval '${STALE_ATTEMPT}'
            RETURNING key`,
          [developerId, key],
        )) as [unknown[], number];
        if (taken.length > 0) return this.first(developerId, key, execute);
      }
      if (Date.now() > waitUntil) {
        throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed', {
          field: 'Idempotency-Key',
        });
      }
      await sleep(POLL_MS);
    }
  }

  /** The attempt that owns the key. */
  private async first(
    developerId: string,
    key: string,
    execute: (first: FirstAttempt) => Promise<GatewayInvokeResult>,
  ): Promise<GatewayInvokeResult> {
    try {
      const result = await execute({
        developerId,
        key,
        onRecorded: async (manager, txHash) => {
          await manager.query(
            `UPDATE idempotency_keys SET state = 'sent', tx_hash = $3, updated_at = now() WHERE developer_id = $1 AND key = $2`,
            [developerId, key, txHash],
          );
        },
      });
      await this.finish(developerId, key, result);
      return result;
    } catch (e) {
      // Nothing sent (or the node refused it): forget the key so that the request can be retried.
      await forgetUnsentKey(this.ds, developerId, key);
      throw e;
    }
  }

  private async resumeSent(
    developerId: string,
    key: string,
    txHash: string,
    resume: (txHash: string) => Promise<GatewayInvokeResult>,
  ): Promise<GatewayInvokeResult> {
    const result = await resume(txHash);
    await this.finish(developerId, key, result);
    return result;
  }

  /** A mined outcome is final and stored; a pending one is looked up again on the next repeat. */
  private async finish(developerId: string, key: string, result: GatewayInvokeResult): Promise<void> {
    if (result.status === 'pending') return;
    await IdempotencyStore.done(this.ds.manager, developerId, key, result);
  }

  /**
   * Stores the answer of a request accepted for later (Prefer: respond-async) in the database
   * transaction that creates its record: every repeat gets the same transactionId.
   */
  static async done(
    manager: EntityManager,
    developerId: string,
    key: string,
    result: GatewayInvokeResult,
  ): Promise<void> {
    await manager.query(
      `UPDATE idempotency_keys SET state = 'done', response = $3, status_code = $4, updated_at = now()
        WHERE developer_id = $1 AND key = $2`,
      [developerId, key, JSON.stringify(result), successStatus('POST', isAccepted(result))],
    );
  }
}
