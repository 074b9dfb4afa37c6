import { Client } from 'pg';
import type { Logger } from '../../logger';

/** PostgreSQL channel on which every instance hears of revoked API keys. */
export const REVOCATION_CHANNEL = 'api_key_revoked';
const RECONNECT_MS = 1000;

/**
 * A dedicated LISTEN connection. While it is connected, instances may cache keys; when it drops,
 * `onReset` empties the cache (notifications may have been missed) until it is back.
 */
export class RevocationChannel {
  private client?: Client;
  private stopped = false;
  private connected = false;
  private readonly waiters = new Map<string, Set<() => void>>();

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
    const client = new Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: 5000 });
    client.on('notification', (msg) => {
      if (msg.channel !== REVOCATION_CHANNEL || !msg.payload) return;
      this.onRevoked(msg.payload);
      const waiting = this.waiters.get(msg.payload);
      this.waiters.delete(msg.payload);
      waiting?.forEach((resolve) => resolve());
    });
    const lost = (err?: unknown) => {
      if (this.client !== client) return;
      this.connected = false;
      this.client = undefined;
      this.onReset();
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ err }, 'API key revocation channel lost; keys are checked in the database until it is back');
      setTimeout(() => void this.connect(), RECONNECT_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
      this.connected = true;
    } catch (err) {
      lost(err);
    }
  }

  /** Resolves once this instance has heard the revocation of `keyHash` (or after `timeoutMs`). */
  waitFor(keyHash: string, timeoutMs: number): { done: Promise<void> } {
    if (!this.connected) return { done: Promise.resolve() };
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const set = this.waiters.get(keyHash) ?? new Set();
      set.add(() => {
        clearTimeout(timer);
        resolve();
      });
      this.waiters.set(keyHash, set);
    });
    return { done };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.connected = false;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
