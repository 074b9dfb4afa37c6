import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { DataSource } from 'typeorm';
import type { Logger } from '../../kernel/logger';
import { NETWORKS } from '../../kernel/network';
import type { IndexSignal } from '../explorer';
import { DELIVERY_TIMEOUT_MS, postMessage, type AttemptOutcome } from './webhook-sender';
import type { ContractEventSource, WebhookService } from './webhooks.service';

/** Timings of the worker; the defaults are the documented behaviour, tests shorten them. */
export interface DeliveryWorkerOptions {
  /** Deliveries one instance sends at once. */
  concurrency: number;
  /** Deliveries of one developer (all their webhooks) one instance sends at once (docs/api.md, "Fairness"). */
  perDeveloper: number;
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
  concurrency: 32,
  perDeveloper: 4,
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
  developer_id: string;
  body: string;
  attempts: number;
  url: string;
  secret_sealed: Buffer;
  /** The secret a rotation replaced, while it still signs (24 h); null otherwise. */
  previous_secret_sealed: Buffer | null;
}

/**
 * Sends the outbox. Each pass claims, for up to `concurrency` webhooks, the oldest pending delivery
 * of the webhook (only that one: a failing delivery holds the later ones), with a lease in
 * PostgreSQL that another instance cannot take until it expires; a crashed instance's leases
 * expire and the deliveries are sent again (at least once). Claims go round-robin between
 * developers, at most `perDeveloper` of one developer in flight here, so that one developer's slow
 * or numerous receivers cannot hold the slots another developer's delivery needs. It also fans
 * contract events out into the outbox, one webhook at a time under its row lock.
 */
export class WebhookDeliveryWorker {
  private readonly options: DeliveryWorkerOptions;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private pass: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries in flight here, by developer. */
  private readonly busy = new Map<string, number>();
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
    for (const delivery of await this.claim(room, lease)) {
      const developer = delivery.developer_id;
      this.busy.set(developer, (this.busy.get(developer) ?? 0) + 1);
      const attempt: Promise<void> = this.attempt(delivery, lease)
        .catch((err: unknown) =>
          this.logger.error({ err, deliveryId: delivery.id, webhookId: delivery.webhook_id }, 'webhook attempt failed'),
        )
        .finally(() => {
          this.inFlight.delete(attempt);
          const left = (this.busy.get(developer) ?? 1) - 1;
          if (left > 0) this.busy.set(developer, left);
          else this.busy.delete(developer);
          // A slot is free: the next pass gives it to whoever's turn it is, at once rather than at the next tick.
          this.wake();
        });
      this.inFlight.add(attempt);
    }
  }

  /**
   * Leases the oldest pending delivery of up to `room` webhooks whose turn it is: due, not leased,
   * the webhook active. Round-robin between developers: a developer's k-th delivery here (counting
   * those already in flight) comes after every other developer's (k−1)-th, and none beyond
   * `perDeveloper`. Rows another instance is claiming at the same moment are skipped (SKIP LOCKED),
   * and the lease is checked again as the row is written, so no delivery is claimed twice.
   */
  private async claim(room: number, lease: string): Promise<Claimed[]> {
    const developers = [...this.busy.keys()];
    const counts = developers.map((d) => this.busy.get(d)!);
    const claimed = (await this.ds.query(
      `WITH heads AS (
         SELECT d.id, d.next_attempt_at, w.developer_id,
                row_number() OVER (PARTITION BY w.developer_id ORDER BY d.next_attempt_at, d.id) AS turn
           FROM webhooks w
          CROSS JOIN LATERAL (
            SELECT id, next_attempt_at, lease_until FROM webhook_deliveries
             WHERE webhook_id = w.id AND status = 'pending' ORDER BY seq LIMIT 1
          ) d
          WHERE w.status = 'active' AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
       ), ranked AS (
         SELECT h.id, h.next_attempt_at, h.turn + coalesce(b.n, 0) AS rank
           FROM heads h
           LEFT JOIN unnest($4::uuid[], $5::int[]) AS b(developer_id, n) ON b.developer_id = h.developer_id
          WHERE h.turn + coalesce(b.n, 0) <= $6
       ), next AS (
         SELECT u.id FROM webhook_deliveries u JOIN ranked r ON r.id = u.id
          WHERE u.status = 'pending' AND (u.lease_until IS NULL OR u.lease_until < now())
          ORDER BY r.rank, r.next_attempt_at, u.id
          LIMIT $1
          FOR UPDATE OF u SKIP LOCKED
       )
       UPDATE webhook_deliveries u
          SET lease_token = $2, lease_until = now() + $3 * interval '1 millisecond',
              first_attempt_at = coalesce(u.first_attempt_at, now())
         FROM next, webhooks w
        WHERE u.id = next.id AND w.id = u.webhook_id AND u.status = 'pending'
          AND (u.lease_until IS NULL OR u.lease_until < now())
       RETURNING u.id, u.webhook_id, w.developer_id, u.body, u.attempts, w.url, w.secret_sealed,
                 CASE WHEN w.previous_secret_until > now() THEN w.previous_secret_sealed END AS previous_secret_sealed`,
      [room, lease, this.options.leaseMs, developers, counts, this.options.perDeveloper],
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
    if (signature && d.previous_secret_sealed) {
      // During a rotation's grace period the message is signed with both secrets, space-separated
      // (Standard Webhooks): a receiver still holding the old one verifies it too.
      try {
        const previous = this.webhooks.previousSigningSecret(d.webhook_id, d.previous_secret_sealed);
        signature = `${signature} ${new Webhook(previous).sign(d.id, sentAt, d.body)}`;
      } catch {
        this.logger.error({ deliveryId: d.id, webhookId: d.webhook_id }, 'previous webhook secret cannot be opened');
      }
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
    // The webhook keeps its last attempt's outcome too (its list shows it), written with the delivery's.
    const lastState = `UPDATE webhooks w SET last_attempt_at = now(), last_response_status = $3, last_error = $4
                         FROM d WHERE w.id = d.webhook_id RETURNING d.status`;
    if (outcome.ok) {
      await this.ds.query(
        `WITH d AS (
           UPDATE webhook_deliveries
              SET status = 'delivered', attempts = attempts + 1, last_response_status = $3, last_error = $4,
                  lease_token = NULL, lease_until = NULL, finished_at = now()
            WHERE id = $1 AND lease_token = $2
            RETURNING webhook_id, status
         ) ${lastState}`,
        [d.id, lease, outcome.status, null],
      );
      this.logger.debug({ deliveryId: d.id, webhookId: d.webhook_id, status: outcome.status }, 'webhook delivered');
      return;
    }
    const delayMs = retryDelayMs(d.attempts + 1, this.options);
    const rows = (await this.ds.query(
      `WITH d AS (
         UPDATE webhook_deliveries
            SET attempts = attempts + 1, last_response_status = $3, last_error = $4,
                lease_token = NULL, lease_until = NULL,
                status = CASE WHEN status <> 'pending' THEN status
                              WHEN now() - first_attempt_at >= $5 * interval '1 millisecond' THEN 'failed'
                              ELSE 'pending' END,
                next_attempt_at = now() + $6 * interval '1 millisecond',
                finished_at = CASE WHEN status = 'pending' AND now() - first_attempt_at >= $5 * interval '1 millisecond'
                                   THEN now() ELSE finished_at END
          WHERE id = $1 AND lease_token = $2
          RETURNING webhook_id, status
       ) ${lastState}`,
      [d.id, lease, outcome.status, outcome.error, this.options.giveUpAfterMs, delayMs],
    )) as [Array<{ status: string }>, number];
    const status = rows[0][0]?.status;
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
