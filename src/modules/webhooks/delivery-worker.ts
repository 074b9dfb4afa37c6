import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { DataSource } from 'typeorm';
import type { Logger } from '../../logger';
import { NETWORKS } from '../../kernel/network';
import type { IndexSignal } from '../explorer';
import { DELIVERY_TIMEOUT_MS, postMessage, type AttemptOutcome } from './webhook-sender';
import type { ContractEventSource, WebhookService } from './webhooks.service';

/** Timings of the worker; the defaults are the documented behaviour, tests shorten them. */
export interface DeliveryWorkerOptions {
  /** Deliveries one instance sends at once. */
  concurrency: number;
  /** How often the outbox (and the contract events) are looked at. */
  pollMs: number;
  /** How long a claim holds a delivery; longer than an attempt can last, so that it never runs twice at once. */
  leaseMs: number;
  /** Backoff: full jitter over base·2^(attempt−1), capped. */
  retryBaseMs: number;
  retryCapMs: number;
  /** Smallest wait between two attempts. */
  retryMinMs: number;
  /** A delivery still failing this long after its first attempt is given up (`failed`). */
  giveUpAfterMs: number;
  /** Contract events read per webhook and pass. */
  fanOutBatch: number;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryWorkerOptions = {
  concurrency: 16,
  pollMs: 500,
  leaseMs: DELIVERY_TIMEOUT_MS * 2,
  retryBaseMs: 5_000,
  retryCapMs: 3_600_000,
  retryMinMs: 1_000,
  giveUpAfterMs: 24 * 3_600_000,
  fanOutBatch: 100,
};

/** Longest wait between two fan-outs of contract events when the index signal says nothing. */
const FAN_OUT_BACKSTOP_MS = 5_000;

/** Full jitter (AWS's "exponential backoff and jitter"): uniform in [min, min(cap, base·2^(n−1))]. */
export function retryDelayMs(
  attempts: number,
  o: Pick<DeliveryWorkerOptions, 'retryBaseMs' | 'retryCapMs' | 'retryMinMs'>,
) {
  const ceiling = Math.min(o.retryCapMs, o.retryBaseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
  return Math.max(o.retryMinMs, Math.floor(Math.random() * ceiling));
}

interface Claimed {
  id: string;
  webhook_id: string;
  body: string;
  attempts: number;
  url: string;
  secret_sealed: Buffer;
}

/**
 * Sends the outbox. Each pass claims, for up to `concurrency` webhooks, the oldest pending delivery
 * of the webhook (only that one: a failing delivery holds the later ones), with a lease in
 * PostgreSQL that another instance cannot take until it expires; a crashed instance's leases
 * expire and the deliveries are sent again (at least once). It also fans contract events out into
 * the outbox, one webhook at a time under its row lock.
 */
export class WebhookDeliveryWorker {
  private readonly options: DeliveryWorkerOptions;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private pass: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private abort = new AbortController();
  /** A wake-up came during a pass: run the next one at once. */
  private again = false;
  private indexed: Pick<IndexSignal, 'version' | 'wait'> | undefined;
  /** Blocks were indexed since the last fan-out (always true without an index signal to tell). */
  private fanOutDue = true;
  private lastFanOut = 0;

  constructor(
    private readonly ds: DataSource,
    private readonly webhooks: WebhookService,
    private readonly events: ContractEventSource | undefined,
    private readonly logger: Logger,
    options: Partial<DeliveryWorkerOptions> = {},
  ) {
    this.options = { ...DEFAULT_DELIVERY_OPTIONS, ...options };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.schedule(0);
    if (this.indexed) for (const network of NETWORKS) void this.followIndex(this.indexed, network);
  }

  /** Contract events fan out as soon as their blocks are indexed, not at the next poll. */
  wakeOnIndexed(signal: Pick<IndexSignal, 'version' | 'wait'>): void {
    this.indexed = signal;
  }

  /** Runs a pass now (or right after the one running). */
  wake(): void {
    if (!this.running) return;
    if (this.pass) this.again = true;
    else this.schedule(0);
  }

  private async followIndex(signal: Pick<IndexSignal, 'version' | 'wait'>, network: (typeof NETWORKS)[number]) {
    const stopped = new Promise<void>((resolve) => this.abort.signal.addEventListener('abort', () => resolve()));
    while (this.running) {
      const version = signal.version(network);
      await signal.wait(network, version, 60_000, stopped);
      if (signal.version(network) !== version) {
        this.fanOutDue = true;
        this.wake();
      }
    }
  }

  /**
   * Stops claiming, aborts the attempts in flight and gives their deliveries back (not counted as
   * attempts, due at once for the next instance): nothing is lost, at worst a receiver gets a
   * message twice.
   */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.pass;
    await Promise.all([...this.inFlight]);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.pass = this.runPass().finally(() => {
        this.pass = undefined;
        const again = this.again;
        this.again = false;
        this.schedule(again ? 0 : this.options.pollMs);
      });
    }, ms);
  }

  private async runPass(): Promise<void> {
    try {
      // With an index signal, contract events fan out when blocks were indexed (and every few seconds
      // as a backstop), not on every pass: a pass per delivered message would re-read every webhook.
      const due = !this.indexed || this.fanOutDue || Date.now() - this.lastFanOut >= FAN_OUT_BACKSTOP_MS;
      if (this.events && due) {
        this.fanOutDue = false;
        this.lastFanOut = Date.now();
        await this.fanOut(this.events);
      }
      await this.claimAndSend();
    } catch (err) {
      this.logger.warn({ err }, 'webhook delivery pass failed; retrying on the next one');
    }
  }

  /** Claims what this instance has room for and starts sending it. */
  private async claimAndSend(): Promise<void> {
    const room = this.options.concurrency - this.inFlight.size;
    if (room <= 0 || !this.running) return;
    const lease = randomUUID();
    for (const delivery of await this.claim(room, lease, null)) {
      const attempt: Promise<void> = this.attempt(delivery, lease)
        .catch((err: unknown) =>
          this.logger.error({ err, deliveryId: delivery.id, webhookId: delivery.webhook_id }, 'webhook attempt failed'),
        )
        .finally(() => {
          this.inFlight.delete(attempt);
          // A slot is free: look for more at once rather than at the next tick.
          if (this.running && !this.pass) this.schedule(0);
        });
      this.inFlight.add(attempt);
    }
  }

  /**
   * Leases the oldest pending delivery of up to `room` webhooks (of `webhookId` alone when given)
   * whose turn it is: due, not leased, and the webhook active.
   */
  private async claim(room: number, lease: string, webhookId: string | null): Promise<Claimed[]> {
    const claimed = (await this.ds.query(
      `WITH next AS (
         SELECT d.id FROM webhooks w
         CROSS JOIN LATERAL (
           SELECT id, next_attempt_at, lease_until FROM webhook_deliveries
            WHERE webhook_id = w.id AND status = 'pending' ORDER BY seq LIMIT 1
         ) d
         WHERE w.status = 'active' AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
           AND ($4::uuid IS NULL OR w.id = $4::uuid)
         ORDER BY d.next_attempt_at
         LIMIT $1
       )
       UPDATE webhook_deliveries u
          SET lease_token = $2, lease_until = now() + $3 * interval '1 millisecond',
              first_attempt_at = coalesce(u.first_attempt_at, now())
         FROM next, webhooks w
        WHERE u.id = next.id AND w.id = u.webhook_id AND u.status = 'pending'
          AND (u.lease_until IS NULL OR u.lease_until < now())
       RETURNING u.id, u.webhook_id, u.body, u.attempts, w.url, w.secret_sealed`,
      [room, lease, this.options.leaseMs, webhookId],
    )) as [Claimed[], number];
    return claimed[0];
  }

  /** One POST of a claimed delivery, and its outcome written under the claim's lease. */
  private async attempt(d: Claimed, lease: string): Promise<void> {
    const sentAt = new Date();
    let signature: string | undefined;
    try {
      const secret = this.webhooks.signingSecret(d.webhook_id, d.secret_sealed);
      signature = new Webhook(secret).sign(d.id, sentAt, d.body);
    } catch {
      // Counted as a failed attempt (and given up after the window) rather than retried unseen forever.
      this.logger.error({ deliveryId: d.id, webhookId: d.webhook_id }, 'webhook signing secret cannot be opened');
    }
    const headers = {
      'webhook-id': d.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature ?? '',
    };
    const outcome: AttemptOutcome = signature
      ? await postMessage(d.url, d.body, headers, this.webhooks.policy, this.abort.signal, this.webhooks.resolve)
      : { ok: false, status: null, error: 'the signing secret cannot be opened (was WALLET_ENCRYPTION_KEY changed?)' };
    if (this.abort.signal.aborted && !outcome.ok) {
      await this.ds.query(
        `UPDATE webhook_deliveries SET lease_token = NULL, lease_until = NULL WHERE id = $1 AND lease_token = $2`,
        [d.id, lease],
      );
      return;
    }
    if (outcome.ok) {
      await this.ds.query(
        `UPDATE webhook_deliveries
            SET status = 'delivered', attempts = attempts + 1, last_response_status = $3, last_error = NULL,
                lease_token = NULL, lease_until = NULL, finished_at = now()
          WHERE id = $1 AND lease_token = $2`,
        [d.id, lease, outcome.status],
      );
      this.logger.debug({ deliveryId: d.id, webhookId: d.webhook_id, status: outcome.status }, 'webhook delivered');
      // The webhook's next message goes at once in this slot, not at the next pass (a burst of events drains fast).
      if (!this.running) return;
      const nextLease = randomUUID();
      const [next] = await this.claim(1, nextLease, d.webhook_id);
      if (next) return this.attempt(next, nextLease);
      return;
    }
    const delayMs = retryDelayMs(d.attempts + 1, this.options);
    const [rows] = (await this.ds.query(
      `UPDATE webhook_deliveries
          SET attempts = attempts + 1, last_response_status = $3, last_error = $4,
              lease_token = NULL, lease_until = NULL,
              status = CASE WHEN status <> 'pending' THEN status
                            WHEN now() - first_attempt_at >= $5 * interval '1 millisecond' THEN 'failed'
                            ELSE 'pending' END,
              next_attempt_at = now() + $6 * interval '1 millisecond',
              finished_at = CASE WHEN status = 'pending' AND now() - first_attempt_at >= $5 * interval '1 millisecond'
                                 THEN now() ELSE finished_at END
        WHERE id = $1 AND lease_token = $2
        RETURNING status`,
      [d.id, lease, outcome.status, outcome.error, this.options.giveUpAfterMs, delayMs],
    )) as [Array<{ status: string }>, number];
    const status = rows[0]?.status;
    const fields = { deliveryId: d.id, webhookId: d.webhook_id, responseStatus: outcome.status, reason: outcome.error };
    if (status === 'failed') this.logger.warn(fields, 'webhook delivery failed for good after retrying for 24 h');
    else this.logger.info({ ...fields, retryInMs: delayMs }, 'webhook delivery attempt failed; retrying');
  }

  /**
   * Moves new contract events into the outbox: per contract.event webhook, in one transaction under
   * its row lock (SKIP LOCKED: another instance at it skips it), the next events after its cursor
   * become deliveries and the cursor advances past them.
   */
  private async fanOut(source: ContractEventSource): Promise<void> {
    const candidates = (await this.ds.query(
      `SELECT id FROM webhooks
        WHERE status = 'active' AND 'contract.event' = ANY(events) AND contract_id IS NOT NULL ORDER BY id`,
    )) as Array<{ id: string }>;
    for (const { id } of candidates) {
      if (!this.running) return;
      const moved = await this.fanOutOne(source, id).catch((err: unknown) => {
        this.logger.warn({ err, webhookId: id }, 'could not fan contract events out to a webhook; retrying');
        return this.options.fanOutBatch;
      });
      // A full batch (or a failure) may leave events behind: the next pass fans out again.
      if (moved >= this.options.fanOutBatch) this.fanOutDue = this.again = true;
    }
  }

  /** Moves one webhook's next events into the outbox; how many it moved. */
  private async fanOutOne(source: ContractEventSource, id: string): Promise<number> {
    return this.ds.transaction(async (tx) => {
      const [w] = (await tx.query(
        `SELECT contract_id, event, event_cursor_block::text AS block, event_cursor_log AS log FROM webhooks
          WHERE id = $1 AND status = 'active' FOR NO KEY UPDATE SKIP LOCKED`,
        [id],
      )) as Array<{ contract_id: string; event: string | null; block: string | null; log: number | null }>;
      if (!w) return 0;
      const after = w.block === null ? null : { blockNumber: Number(w.block), logIndex: w.log ?? 0 };
      const items = await source.eventsAfter(w.contract_id, w.event, after, this.options.fanOutBatch);
      if (items.length === 0) return 0;
      await this.webhooks.enqueue(
        tx,
        items.map((data) => ({ webhookId: id, type: 'contract.event', data })),
      );
      const last = items[items.length - 1]!;
      await tx.query(`UPDATE webhooks SET event_cursor_block = $2, event_cursor_log = $3 WHERE id = $1`, [
        id,
        last.blockNumber,
        last.logIndex,
      ]);
      return items.length;
    });
  }
}
