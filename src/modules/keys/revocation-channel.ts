import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Logger } from '../../kernel/logger';

/** PostgreSQL channel on which every instance hears of revoked API keys. */
export const REVOCATION_CHANNEL = 'api_key_revoked';
/** Channel on which every instance answers `<instance id> <key hash>` once it has forgotten the key. */
export const REVOCATION_ACK_CHANNEL = 'api_key_revoked_ack';
/** `application_name` prefix of the listening connections: how the revoker counts the instances. */
export const LISTENER_APPLICATION_PREFIX = 'devportal-revocations:';
const RECONNECT_MS = 1000;
const LIST_REFRESH_MS = 200;

/** Something that can run one SQL query (the service's DataSource). */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

interface AckWaiter {
  readonly acked: Set<string>;
  wake(): void;
}

/** The outcome of waiting for every instance: the instances that did not answer in time. */
export interface RevocationSettled {
  readonly missing: string[];
}

/**
 * A dedicated LISTEN connection. While it is connected, instances may cache keys; when it drops,
 * `onReset` empties the cache (notifications may have been missed) until it is back.
 *
 * Every instance answers each revocation it hears on REVOCATION_ACK_CHANNEL after forgetting the
 * key, so the revoking instance can wait until every instance listening on this database (seen
 * in `pg_stat_activity` by the application name of its LISTEN connection) has forgotten it. An
 * instance that is not listening caches nothing, so it needs no answer.
 */
export class RevocationChannel {
  readonly instanceId = randomUUID();
  private client?: Client;
  private stopped = false;
  private connected = false;
  private reconnectTimer?: NodeJS.Timeout;
  private readonly waiters = new Map<string, Set<AckWaiter>>();

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
    private readonly onRevoked: (keyHash: string) => void,
    private readonly onReset: () => void,
  ) {}

  get isListening(): boolean {
    return this.connected;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  private async connect(): Promise<void> {
    this.reconnectTimer = undefined;
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.databaseUrl,
      connectionTimeoutMillis: 5000,
      application_name: `${LISTENER_APPLICATION_PREFIX}${this.instanceId}`,
    });
    client.on('notification', (msg) => {
      if (!msg.payload) return;
      if (msg.channel === REVOCATION_CHANNEL) {
        this.onRevoked(msg.payload);
        client
          .query('SELECT pg_notify($1, $2)', [REVOCATION_ACK_CHANNEL, `${this.instanceId} ${msg.payload}`])
          .catch((err: unknown) => this.logger.warn({ err }, 'Could not acknowledge an API key revocation'));
      } else if (msg.channel === REVOCATION_ACK_CHANNEL) {
        const [instance, keyHash] = msg.payload.split(' ');
        if (!instance || !keyHash) return;
        for (const waiter of this.waiters.get(keyHash) ?? []) {
          waiter.acked.add(instance);
          waiter.wake();
        }
      }
    });
    const lost = (err?: unknown) => {
      if (this.client !== client) return;
      this.connected = false;
      this.client = undefined;
      this.onReset();
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ err }, 'API key revocation channel lost; keys are checked in the database until it is back');
      this.reconnectTimer = setTimeout(() => void this.connect(), RECONNECT_MS);
      this.reconnectTimer.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
      await client.query(`LISTEN ${REVOCATION_ACK_CHANNEL}`);
      this.connected = true;
    } catch (err) {
      lost(err);
    }
  }

  /**
   * Starts collecting acknowledgements for `keyHash`; call it before the revocation commits.
   * `settled(db, timeoutMs, notifiedAt)`, called after the commit, resolves once every instance
   * that was listening on the database at `notifiedAt` (the revoking transaction's `now()`) has
   * acknowledged, or after `timeoutMs`, naming the ones that did not. An instance whose listening
   * connection began later holds nothing cached from before (its cache was emptied when its
   * previous connection was lost), so it is not waited for.
   */
  expect(keyHash: string): {
    settled(db: Queryable, timeoutMs: number, notifiedAt: Date): Promise<RevocationSettled>;
    cancel(): void;
  } {
    let wake: () => void = () => undefined;
    const waiter: AckWaiter = { acked: new Set(), wake: () => wake() };
    const set = this.waiters.get(keyHash) ?? new Set<AckWaiter>();
    set.add(waiter);
    this.waiters.set(keyHash, set);
    const release = () => {
      set.delete(waiter);
      if (set.size === 0 && this.waiters.get(keyHash) === set) this.waiters.delete(keyHash);
    };
    return {
      cancel: release,
      settled: async (db, timeoutMs, notifiedAt) => {
        const deadline = Date.now() + timeoutMs;
        try {
          for (;;) {
            const listening = await this.listeningInstances(db, notifiedAt);
            const missing = listening.filter((id) => !waiter.acked.has(id));
            if (missing.length === 0) return { missing };
            const left = deadline - Date.now();
            if (left <= 0) return { missing };
            // Woken by the next acknowledgement, or re-reads the list (an instance may have gone).
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, Math.min(LIST_REFRESH_MS, left));
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            wake = () => undefined;
          }
        } finally {
          release();
        }
      },
    };
  }

  /**
   * Tells every instance `payload` on REVOCATION_CHANNEL (each hands it to its `onRevoked`) and
   * waits, `timeoutMs` at most, until every listening instance has acknowledged it. A logout uses
   * it to end the subscriptions of its tokens everywhere before it answers.
   */
  async announce(db: Queryable, payload: string, timeoutMs: number): Promise<RevocationSettled> {
    const acks = this.expect(payload);
    try {
      const [row] = (await db.query('SELECT pg_notify($1, $2), now() AS notified_at', [
        REVOCATION_CHANNEL,
        payload,
      ])) as Array<{ notified_at: Date }>;
      return await acks.settled(db, timeoutMs, row!.notified_at);
    } catch (err) {
      acks.cancel();
      throw err;
    }
  }

  /** The instances whose LISTEN connection is open on this database and began by `since`. */
  private async listeningInstances(db: Queryable, since: Date): Promise<string[]> {
    const rows = (await db.query(
      `SELECT substr(application_name, $1) AS id FROM pg_stat_activity
        WHERE datname = current_database() AND starts_with(application_name, $2) AND backend_start <= $3`,
      [LISTENER_APPLICATION_PREFIX.length + 1, LISTENER_APPLICATION_PREFIX, since],
    )) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.connected = false;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
