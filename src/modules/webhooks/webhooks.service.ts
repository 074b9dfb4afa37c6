import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { ChainRegistry } from '../../chain/chain-registry';
import { AppError } from '../../kernel/errors/app-error';
import { decodeCursorWith, encodeCursor, isUuid, pageLimit } from '../../kernel/pagination';
import type { Logger } from '../../kernel/logger';
import type { Session } from '../../auth/session';
import type { ContractService } from '../contracts';
import { findEvent, listEvents } from '../../chain/abi';
import type { ContractEventItem } from '../events';
import type { TransactionRecordView } from '../transactions';
import type { WebhookEventType } from './webhook.entity';
import { generateWebhookSecret, openWebhookSecret, sealWebhookSecret, webhookSecretKey } from './webhook-secret';
import { checkWebhookUrl, systemResolver, type Resolver, type TargetPolicy } from './webhook-target';
import type {
  CreateWebhookInput,
  CreatedWebhook,
  RotatedWebhookSecret,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookInfo,
  WebhookList,
} from './webhooks.types';
import { LOCK_KEYS } from '../../kernel/lock-keys';

/** Position of an event in the chain: after it comes the next one. */
export interface EventPosition {
  blockNumber: number;
  logIndex: number;
}

/** The events module, as the webhooks see it: indexed events of a contract after a position, oldest first. */
export interface ContractEventSource {
  eventsAfter(
    contractId: string,
    event: string | null,
    after: EventPosition | null,
    limit: number,
  ): Promise<ContractEventItem[]>;
}

/** Webhooks one developer may have active at once. */
export const MAX_WEBHOOKS = 20;
/** Log index written with the head block at creation: every event of that block counts as before. */
const END_OF_BLOCK = 2_147_483_647;

/** How long a secret replaced by a rotation still signs (docs/api.md, "Test, redeliver, rotate"). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000;

interface WebhookRow {
  id: string;
  developer_id: string;
  url: string;
  events: WebhookEventType[];
  contract_id: string | null;
  event: string | null;
  status: string;
  created_at: Date;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
}

const toInfo = (w: WebhookRow): WebhookInfo => ({
  id: w.id,
  url: w.url,
  events: w.events,
  contractId: w.contract_id,
  event: w.event,
  status: w.status,
  createdAt: w.created_at,
  lastAttemptAt: w.last_attempt_at,
  lastResponseStatus: w.last_response_status,
  lastError: w.last_error,
});

const WEBHOOK_COLUMNS =
  'id, developer_id, url, events, contract_id, event, status, created_at, last_attempt_at, last_response_status, last_error';

interface DeliveryRow {
  id: string;
  position: string;
  type: string;
  status: string;
  attempts: number;
  last_response_status: number | null;
  last_error: string | null;
  next_attempt_at: Date;
  created_at: Date;
}

const DELIVERY_COLUMNS =
  'id, seq::text AS position, type, status, attempts, last_response_status, last_error, next_attempt_at, created_at';

const toDelivery = (d: DeliveryRow): WebhookDelivery => ({
  id: d.id,
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  lastResponseStatus: d.last_response_status,
  lastError: d.last_error,
  nextAttemptAt: d.status === 'pending' ? d.next_attempt_at : null,
  createdAt: d.created_at,
});

/** What a delivery can carry: a subscribed event type, or the test message sent on request. */
export type DeliveryType = WebhookEventType | 'webhook.test';

export interface WebhookServiceOptions {
  /** The service's encryption key (WALLET_ENCRYPTION_KEY); webhook secrets are sealed under a key derived from it. */
  encryptionKey: Buffer;
  policy: TargetPolicy;
  resolve?: Resolver;
}

/** One message to insert into the outbox. */
export interface OutboxMessage {
  webhookId: string;
  type: DeliveryType;
  data: unknown;
}

/** Creates, lists and deletes webhooks, and writes their messages into the outbox. */
export class WebhookService {
  private readonly sealingKey: Buffer;
  readonly policy: TargetPolicy;
  readonly resolve: Resolver;

  constructor(
    private readonly ds: DataSource,
    private readonly contracts: ContractService,
    private readonly chains: ChainRegistry,
    options: WebhookServiceOptions,
    private readonly logger: Logger,
  ) {
    this.sealingKey = webhookSecretKey(options.encryptionKey);
    this.policy = options.policy;
    this.resolve = options.resolve ?? systemResolver;
  }

  async create(session: Session, developerId: string, input: CreateWebhookInput): Promise<CreatedWebhook> {
    const caller = await session.self(developerId);
    const events = [...new Set(input.events)] as string[] as WebhookEventType[];
    const wantsEvents = events.includes('contract.event');
    if (wantsEvents && !input.contractId) {
      throw new AppError('VALIDATION_FAILED', 'contract.event needs a contractId', { field: 'contractId' });
    }
    if (input.event !== undefined && input.event !== null) {
      if (input.event.trim() === '')
        throw new AppError('VALIDATION_FAILED', 'event must not be empty', { field: 'event' });
      if (!input.contractId) throw new AppError('VALIDATION_FAILED', 'event needs a contractId', { field: 'event' });
      if (!wantsEvents) {
        throw new AppError('VALIDATION_FAILED', 'event filters contract.event, which events does not name', {
          field: 'event',
        });
      }
    }
    const url = await checkWebhookUrl(input.url, this.policy, this.resolve);
    let event: string | null = null;
    let cursor: { block: number; log: number } | null = null;
    const contractId = input.contractId ?? null;
    if (contractId) {
      const contract = await this.contracts.require(contractId);
      if (contract.ownerId !== caller.id) throw new AppError('NOT_FOUND', 'No such contract');
      if (input.event) event = findEvent(listEvents(contract.abi), input.event.trim()).signature;
      // Events are sent from the chain's head at creation on: earlier ones are history, not news.
      if (wantsEvents) {
        const head = await this.chains.withRetry(contract.network, (p) => p.getBlockNumber());
        cursor = { block: head, log: END_OF_BLOCK };
      }
    }
    const id = randomUUID();
    const secret = generateWebhookSecret();
    const sealed = sealWebhookSecret(secret, id, this.sealingKey);
    const row = await this.ds.transaction(async (tx) => {
      // One developer's creations are serialized so that concurrent requests cannot pass the cap together.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK_KEYS.webhooks(caller.id)]);
      const [{ active }] = (await tx.query(
        `SELECT count(*)::int AS active FROM webhooks WHERE developer_id = $1 AND status = 'active'`,
        [caller.id],
      )) as [{ active: number }];
      if (active >= MAX_WEBHOOKS) {
        throw new AppError(
          'INVALID_STATE',
          `A developer has at most ${MAX_WEBHOOKS} webhooks; delete one before creating another`,
          { activeWebhooks: active, limit: MAX_WEBHOOKS },
        );
      }
      const [created] = (await tx.query(
        `INSERT INTO webhooks (id, developer_id, url, events, contract_id, event, status, secret_sealed,
           event_cursor_block, event_cursor_log)
         VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $8, $9) RETURNING ${WEBHOOK_COLUMNS}`,
        [id, caller.id, url.href, events, contractId, event, sealed, cursor?.block ?? null, cursor?.log ?? null],
      )) as WebhookRow[];
      return created!;
    });
    this.logger.info({ developerId: caller.id, webhookId: id, events }, 'webhook created');
    return { ...toInfo(row), secret };
  }

  async list(session: Session, developerId: string): Promise<WebhookList> {
    const caller = await session.self(developerId);
    const rows = (await this.ds.query(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE developer_id = $1 AND status = 'active'
        ORDER BY created_at, id`,
      [caller.id],
    )) as WebhookRow[];
    return { items: rows.map(toInfo) };
  }

  /**
   * Deletes a webhook of the caller: it stops at once (its pending deliveries are cancelled; one in
   * flight is recorded as delivered if it succeeds) and is no longer listed; its delivery log stays readable. Deleting twice
   * answers the same.
   */
  async delete(session: Session, webhookId: string): Promise<WebhookInfo> {
    const caller = await session.developer();
    const row = await this.ds.transaction(async (tx) => {
      const [updated] = (await tx.query(
        `UPDATE webhooks SET status = 'deleted', deleted_at = coalesce(deleted_at, now())
          WHERE id = $1 AND developer_id = $2 RETURNING ${WEBHOOK_COLUMNS}`,
        [isUuid(webhookId) ? webhookId : null, caller.id],
      )) as [WebhookRow[], number];
      const found = updated[0];
      if (!found) throw new AppError('NOT_FOUND', 'No such webhook');
      await tx.query(
        `UPDATE webhook_deliveries SET status = 'cancelled', finished_at = now()
          WHERE webhook_id = $1 AND status = 'pending'`,
        [webhookId],
      );
      return found;
    });
    this.logger.info({ developerId: caller.id, webhookId }, 'webhook deleted');
    return toInfo(row);
  }

  /** A page of a webhook's deliveries, newest first (the caller's webhooks only, deleted ones included). */
  async deliveries(
    session: Session,
    webhookId: string,
    limit: number | null | undefined,
    cursor: string | null | undefined,
  ): Promise<WebhookDeliveryPage> {
    const caller = await session.developer();
    const size = pageLimit(limit);
    const [owned] = isUuid(webhookId)
      ? ((await this.ds.query('SELECT 1 FROM webhooks WHERE id = $1 AND developer_id = $2', [
          webhookId,
          caller.id,
        ])) as unknown[])
      : [];
    if (!owned) throw new AppError('NOT_FOUND', 'No such webhook');
    // A cursor names its webhook: one from another webhook's log is refused like a tampered one.
    const before = decodeCursorWith(cursor, (p) =>
      p.webhook === webhookId && typeof p.seq === 'string' && /^[1-9]\d{0,18}$/.test(p.seq) ? p.seq : undefined,
    );
    const rows = (await this.ds.query(
      `SELECT ${DELIVERY_COLUMNS}
         FROM webhook_deliveries WHERE webhook_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint)
        ORDER BY seq DESC LIMIT $3`,
      [webhookId, before ?? null, size + 1],
    )) as DeliveryRow[];
    const page = rows.slice(0, size);
    const items = page.map(toDelivery);
    const last = page[page.length - 1];
    return {
      items,
      nextCursor: rows.length > size && last ? encodeCursor({ webhook: webhookId, seq: last.position }) : null,
    };
  }

  /**
   * Called by the transactions module inside the transaction of each status change: one message per
   * active webhook of the developer subscribed to transaction.status (and to this contract, when
   * the webhook names one), committed or rolled back with the change itself.
   */
  async transactionStatusChanged(manager: EntityManager, record: TransactionRecordView): Promise<void> {
    const webhooks = (await manager.query(
      `SELECT id FROM webhooks
        WHERE developer_id = $1 AND status = 'active' AND 'transaction.status' = ANY(events)
          AND (contract_id IS NULL OR contract_id = $2)
        ORDER BY id FOR NO KEY UPDATE`,
      [record.developerId, record.contractId],
    )) as Array<{ id: string }>;
    if (webhooks.length === 0) return;
    const { developerId: _owner, ...data } = record;
    await this.enqueue(
      manager,
      webhooks.map((w) => ({ webhookId: w.id, type: 'transaction.status', data })),
    );
  }

  /**
   * Inserts messages into the outbox in `manager`'s transaction. The caller holds each webhook's row
   * lock (FOR NO KEY UPDATE) until commit, so a webhook's messages are numbered in commit order.
   */
  async enqueue(manager: EntityManager, messages: OutboxMessage[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const ids: string[] = [];
    const webhookIds: string[] = [];
    const types: string[] = [];
    const bodies: string[] = [];
    const times: string[] = [];
    for (const m of messages) {
      const id = randomUUID();
      const createdAt = new Date().toISOString();
      ids.push(id);
      webhookIds.push(m.webhookId);
      types.push(m.type);
      bodies.push(JSON.stringify({ id, type: m.type, createdAt, data: m.data }));
      times.push(createdAt);
    }
    await manager.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, type, body, status, created_at)
       SELECT id, webhook_id, type, body, 'pending', created_at
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[])
           WITH ORDINALITY AS m(id, webhook_id, type, body, created_at, n)
        ORDER BY n`,
      [ids, webhookIds, types, bodies, times],
    );
    return ids;
  }

  /**
   * A webhook the caller may act on, locked (FOR NO KEY UPDATE) in `tx` until it ends: unknown → 404,
   * another developer's → 403, deleted → 409 INVALID_STATE.
   */
  private async activeOwnWebhook(session: Session, tx: EntityManager, webhookId: string): Promise<WebhookRow> {
    const [row] = isUuid(webhookId)
      ? ((await tx.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 FOR NO KEY UPDATE`, [
          webhookId,
        ])) as WebhookRow[])
      : [];
    if (!row) throw new AppError('NOT_FOUND', 'No such webhook');
    await session.webhookOwner({ developerId: row.developer_id });
    if (row.status !== 'active') throw new AppError('INVALID_STATE', 'The webhook was deleted');
    return row;
  }

  /**
   * Queues a `webhook.test` message to the webhook: signed and sent like any other, in its turn
   * after the webhook's pending deliveries, retried the same way.
   */
  async test(session: Session, webhookId: string): Promise<WebhookDelivery> {
    const caller = await session.developer();
    const delivery = await this.ds.transaction(async (tx) => {
      const webhook = await this.activeOwnWebhook(session, tx, webhookId);
      const [id] = await this.enqueue(tx, [
        {
          webhookId: webhook.id,
          type: 'webhook.test',
          data: { webhookId: webhook.id, message: 'A test message, sent on request from the developer portal.' },
        },
      ]);
      const [row] = (await tx.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1`, [
        id,
      ])) as DeliveryRow[];
      return toDelivery(row!);
    });
    this.logger.info({ developerId: caller.id, webhookId, deliveryId: delivery.id }, 'webhook test message queued');
    return delivery;
  }

  /**
   * Queues a delivery again. A settled one (delivered or failed) becomes pending with its same id and
   * body, at the end of the webhook's queue and with a new 24 h retry window; a pending one waiting
   * for its next retry is due at once; one being sent right now is left as it is.
   */
  async redeliver(session: Session, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    const caller = await session.developer();
    const delivery = await this.ds.transaction(async (tx) => {
      await this.activeOwnWebhook(session, tx, webhookId);
      const [current] = isUuid(deliveryId)
        ? ((await tx.query(`SELECT status FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2 FOR UPDATE`, [
            deliveryId,
            webhookId,
          ])) as Array<{ status: string }>)
        : [];
      if (!current) throw new AppError('NOT_FOUND', 'No such delivery');
      if (current.status === 'cancelled') {
        throw new AppError('INVALID_STATE', 'A cancelled delivery cannot be sent again');
      }
      const [[row]] = (await tx.query(
        current.status === 'pending'
          ? `UPDATE webhook_deliveries SET next_attempt_at = least(next_attempt_at, now())
              WHERE id = $1 RETURNING ${DELIVERY_COLUMNS}`
          : `UPDATE webhook_deliveries
                SET status = 'pending', seq = nextval(pg_get_serial_sequence('webhook_deliveries', 'seq')),
                    next_attempt_at = now(), first_attempt_at = NULL, finished_at = NULL,
                    lease_token = NULL, lease_until = NULL
              WHERE id = $1 RETURNING ${DELIVERY_COLUMNS}`,
        [deliveryId],
      )) as [DeliveryRow[], number];
      return toDelivery(row!);
    });
    this.logger.info({ developerId: caller.id, webhookId, deliveryId }, 'webhook delivery queued again');
    return delivery;
  }

  /**
   * Gives the webhook a new signing secret, shown in this answer only. The replaced one keeps
   * signing for 24 h (each message then carries both signatures); one replaced earlier stops at once.
   */
  async rotateSecret(session: Session, webhookId: string): Promise<RotatedWebhookSecret> {
    const caller = await session.developer();
    const secret = generateWebhookSecret();
    const until = await this.ds.transaction(async (tx) => {
      const webhook = await this.activeOwnWebhook(session, tx, webhookId);
      const [{ secret_sealed: sealed }] = (await tx.query(`SELECT secret_sealed FROM webhooks WHERE id = $1`, [
        webhook.id,
      ])) as [{ secret_sealed: Buffer }];
      let previous: Buffer | null = null;
      try {
        previous = sealWebhookSecret(
          openWebhookSecret(sealed, webhook.id, this.sealingKey),
          previousSecretLabel(webhook.id),
          this.sealingKey,
        );
      } catch {
        // A secret that no longer opens (WALLET_ENCRYPTION_KEY changed) signs nothing: the new one replaces it alone.
        this.logger.warn({ webhookId }, 'the replaced webhook secret cannot be opened; it is not kept');
      }
      const [[row]] = (await tx.query(
        `UPDATE webhooks SET secret_sealed = $2, previous_secret_sealed = $3,
                previous_secret_until = CASE WHEN $3::bytea IS NULL THEN NULL
                                             ELSE now() + $4 * interval '1 millisecond' END
          WHERE id = $1 RETURNING previous_secret_until`,
        [webhook.id, sealWebhookSecret(secret, webhook.id, this.sealingKey), previous, PREVIOUS_SECRET_GRACE_MS],
      )) as [Array<{ previous_secret_until: Date | null }>, number];
      return row!.previous_secret_until ?? new Date();
    });
    this.logger.info({ developerId: caller.id, webhookId }, 'webhook secret rotated');
    return { webhookId, secret, previousSecretExpiresAt: until };
  }

  /** The signing secret of a webhook, opened for the moment of signing. */
  signingSecret(webhookId: string, sealed: Buffer): string {
    return openWebhookSecret(sealed, webhookId, this.sealingKey);
  }

  /** The secret a rotation replaced, opened for the moment of signing during its grace period. */
  previousSigningSecret(webhookId: string, sealed: Buffer): string {
    return openWebhookSecret(sealed, previousSecretLabel(webhookId), this.sealingKey);
  }
}

/** Associated data of a replaced secret: the current and the previous blob cannot stand in for each other. */
const previousSecretLabel = (webhookId: string) => `${webhookId}/previous`;
