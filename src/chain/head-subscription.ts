import WebSocket from 'ws';
import type { Logger } from '../kernel/logger';

/** What a head subscription tells its listener. */
export interface HeadListener {
  /** A node announced block `number` (eth_subscription newHeads). */
  onHead(number: number): void;
  /** At least one node's socket is subscribed (true), or none is any more (false). */
  onLive?(live: boolean): void;
}

export interface HeadSubscriptionOptions {
  /** One WebSocket URL per node (`<NETWORK>_WS_URL`). */
  urls: string[];
  /** Sent with the upgrade request, as with every HTTP request (Besu's JWT); never logged. */
  headers: Record<string, string>;
  logger: Logger;
  /** First reconnect delay; doubled up to `maxBackoffMs` while a node stays away. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A socket that answers no ping within this long is dropped and reconnected. */
  pingMs?: number;
  /** Called once by close(). */
  onClose?: () => void;
}

/**
 * Header notifications are a few hundred bytes (docs/api.md "Hostile chain data": bound before
 * decoding); a bigger frame closes the socket rather than being buffered and parsed.
 */
const MAX_FRAME_BYTES = 64 * 1024;
const OPEN_TIMEOUT_MS = 3_000;
const DEFAULTS = { backoffMs: 200, maxBackoffMs: 5_000, pingMs: 10_000 };

/** Host and port of a URL: the only part of it that may be logged (it may carry credentials). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

/** The block number of a newHeads notification of subscription `id`; undefined for any other message. */
function headOf(message: unknown, id: string | null): number | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const m = message as { method?: unknown; params?: { subscription?: unknown; result?: { number?: unknown } } };
  if (m.method !== 'eth_subscription' || id === null || m.params?.subscription !== id) return undefined;
  const n = m.params.result?.number;
  if (typeof n !== 'string' || !/^0x[0-9a-fA-F]{1,14}$/.test(n)) return undefined;
  return Number.parseInt(n.slice(2), 16);
}

/** One node's socket: subscribed to newHeads, reconnected with backoff until closed. */
class NodeSocket {
  private ws: WebSocket | null = null;
  private subscription: string | null = null;
  private closed = false;
  private backoff: number;
  private retry: NodeJS.Timeout | null = null;
  private pinger: NodeJS.Timeout | null = null;
  private awaitingPong = false;
  private reportedDown = false;
  live = false;

  constructor(
    private readonly url: string,
    private readonly opts: Required<Omit<HeadSubscriptionOptions, 'urls' | 'onClose'>>,
    private readonly listener: HeadListener,
    private readonly onLiveChange: () => void,
  ) {
    this.backoff = opts.backoffMs;
  }

  open(): void {
    if (this.closed) return;
    const ws = new WebSocket(this.url, {
      headers: this.opts.headers,
      maxPayload: MAX_FRAME_BYTES,
      handshakeTimeout: OPEN_TIMEOUT_MS,
      perMessageDeflate: false,
    });
    this.ws = ws;
    ws.on('open', () => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
      this.pinger = setInterval(() => {
        if (this.awaitingPong) {
          ws.terminate();
          return;
        }
        this.awaitingPong = true;
        ws.ping();
      }, this.opts.pingMs);
      this.pinger.unref();
    });
    ws.on('pong', () => {
      this.awaitingPong = false;
    });
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      if (isBinary) return;
      let message: unknown;
      try {
        message = JSON.parse(data.toString());
      } catch {
        return;
      }
      const m = message as { id?: unknown; result?: unknown; error?: { message?: unknown } };
      if (m.id === 1 && this.subscription === null) {
        if (typeof m.result !== 'string') {
          // The node refuses subscriptions (no eth_subscribe over this socket): polling stays in charge.
          if (!this.reportedDown) {
            this.opts.logger.warn({ host: hostOf(this.url) }, 'The node refused eth_subscribe newHeads; polling it');
          }
          this.reportedDown = true;
          ws.close();
          return;
        }
        this.subscription = m.result;
        this.backoff = this.opts.backoffMs;
        this.reportedDown = false;
        this.setLive(true);
        this.opts.logger.info({ host: hostOf(this.url) }, 'Following new heads over the node WebSocket');
        return;
      }
      const head = headOf(message, this.subscription);
      if (head !== undefined) this.listener.onHead(head);
    });
    // Reasons are socket codes and statuses, never the URL (it may carry credentials).
    ws.on('unexpected-response', (_req, res) => {
      this.down(`HTTP ${res.statusCode ?? '?'}`);
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err: Error & { code?: unknown }) => {
      this.down(typeof err.code === 'string' ? err.code : 'socket error');
    });
    ws.on('close', () => {
      if (this.ws === ws) this.reconnect();
    });
  }

  private down(reason: string): void {
    if (this.reportedDown || this.closed) return;
    this.reportedDown = true;
    this.opts.logger.warn({ host: hostOf(this.url), reason }, 'Node WebSocket unavailable; polling until it is back');
  }

  private setLive(live: boolean): void {
    if (this.live === live) return;
    this.live = live;
    this.onLiveChange();
  }

  private reconnect(): void {
    if (this.pinger) clearInterval(this.pinger);
    this.pinger = null;
    this.awaitingPong = false;
    this.subscription = null;
    this.ws = null;
    this.setLive(false);
    if (this.closed) return;
    this.down('closed');
    const delay = this.backoff + Math.random() * this.opts.backoffMs;
    this.backoff = Math.min(this.opts.maxBackoffMs, this.backoff * 2);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.open();
    }, delay);
    this.retry.unref();
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.pinger) clearInterval(this.pinger);
    const ws = this.ws;
    this.ws = null;
    this.live = false;
    ws?.removeAllListeners('close');
    ws?.on('error', () => undefined);
    ws?.terminate();
  }
}

/**
 * Follows the new heads of one network's nodes over their WebSockets (eth_subscribe newHeads), each
 * socket reconnected with backoff. Only the block number is read from a notification: the block
 * itself is fetched over HTTP by whoever listens, so a node's socket cannot feed it anything the
 * HTTP reads do not check.
 */
export class HeadSubscription {
  private readonly sockets: NodeSocket[];
  private wasLive = false;
  private closed = false;

  constructor(
    private readonly opts: HeadSubscriptionOptions,
    listener: HeadListener,
  ) {
    const full = {
      headers: opts.headers,
      logger: opts.logger,
      backoffMs: opts.backoffMs ?? DEFAULTS.backoffMs,
      maxBackoffMs: opts.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
      pingMs: opts.pingMs ?? DEFAULTS.pingMs,
    };
    const changed = () => {
      const live = this.isLive();
      if (live === this.wasLive) return;
      this.wasLive = live;
      listener.onLive?.(live);
    };
    this.sockets = opts.urls.map((url) => new NodeSocket(url, full, listener, changed));
    for (const socket of this.sockets) socket.open();
  }

  /** Whether at least one node's socket is subscribed now. */
  isLive(): boolean {
    return this.sockets.some((s) => s.live);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const socket of this.sockets) socket.close();
    this.opts.onClose?.();
  }
}
