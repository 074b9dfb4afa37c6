import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface ReceivedRequest {
  path: string;
  /** The Webhook-Id header. */
  id: string;
  body: string;
  headers: Record<string, string>;
  /** When it arrived (Date.now()). */
  at: number;
}

/** How to answer a request: a status and a body, after `delayMs`; `hang` never answers. */
export type Answer = { status: number; body?: string; delayMs?: number } | 'hang';

/**
 * A real webhook receiver on 127.0.0.1. `answer` decides each request's fate; the receiver counts
 * the requests open at once per group (`groupOf(path)`, the path's first segment by default).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  answer: (req: ReceivedRequest) => Answer = () => ({ status: 200 });
  groupOf: (path: string) => string = (path) => path.split('/')[1] ?? '';
  private readonly open = new Map<string, number>();
  /** The most requests of each group ever open at once. */
  readonly maxOpen = new Map<string, number>();
  private server!: http.Server;
  url = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        const seen: ReceivedRequest = {
          path: req.url ?? '',
          id: headers['webhook-id'] ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
          headers,
          at: Date.now(),
        };
        this.requests.push(seen);
        const group = this.groupOf(seen.path);
        const now = (this.open.get(group) ?? 0) + 1;
        this.open.set(group, now);
        this.maxOpen.set(group, Math.max(this.maxOpen.get(group) ?? 0, now));
        res.on('close', () => this.open.set(group, (this.open.get(group) ?? 1) - 1));
        const answer = this.answer(seen);
        if (answer === 'hang') return;
        setTimeout(() => {
          if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
        }, answer.delayMs ?? 0);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Requests of `group` open right now. */
  openNow(group: string): number {
    return this.open.get(group) ?? 0;
  }

  on(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** A loopback URL nothing listens on (a port taken, then freed): connections to it are refused. */
export async function refusingUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` every 50 ms until it returns something other than undefined. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
