import { STATUS_CODES } from 'node:http';
import type { JsonRpcPayload, JsonRpcResult } from 'ethers';
import { Pool } from 'undici';

/** Sockets kept open to one node by default; requests beyond this wait for a free one. */
const DEFAULT_CONNECTIONS = 16;

export interface RpcTransportOptions {
  /** Sent with every request (e.g. Besu's JWT bearer token); never logged. */
  headers?: Record<string, string>;
  /** Most sockets to the node at once (Besu closes connections beyond its own limit, 80 by default). */
  maxConnections?: number;
}

/** An answer of a JSON-RPC node: a result or an error object, as ethers' `_send` returns them. */
export type JsonRpcAnswer = JsonRpcResult | { id: number; error: { code: number; message?: string; data?: unknown } };

/** A node that answered, but not with JSON-RPC: read as ethers' SERVER_ERROR (`code`, `info.responseStatus`). */
export class RpcHttpError extends Error {
  readonly code = 'SERVER_ERROR';
  readonly info: { responseStatus: string };

  constructor(message: string, status: number) {
    super(message);
    this.name = 'RpcHttpError';
    // As ethers words it: "503 Service Unavailable".
    this.info = { responseStatus: `${status} ${STATUS_CODES[status] ?? ''}`.trim() };
  }
}

/** A node's HTTP answer → its JSON-RPC answers; anything but a 2xx JSON answer is an RpcHttpError. */
function parseAnswer(status: number, body: Buffer): JsonRpcAnswer[] {
  if (status < 200 || status >= 300) throw new RpcHttpError(`bad response (HTTP ${status})`, status);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new RpcHttpError('bad response (not JSON)', status);
  }
  return (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcAnswer[];
}

/**
 * HTTP JSON-RPC to one node over a pool of keep-alive sockets (undici). It replaces ethers' own
 * transport under the providers: per call it costs a fraction of the CPU (no request objects, no
 * throttling machinery), which is the gateway's hot path. Failures keep the shapes the rest of
 * src/chain reads: socket errors with their `code`, other answers as RpcHttpError, and never
 * the URL.
 */
export class RpcTransport {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;

  constructor(url: string, timeoutMs: number, opts: RpcTransportOptions = {}) {
    const parsed = new URL(url);
    this.path = `${parsed.pathname}${parsed.search}`;
    this.headers = {};
    for (const [name, value] of Object.entries(opts.headers ?? {})) this.headers[name.toLowerCase()] = value;
    this.headers['content-type'] = 'application/json';
    if (parsed.username || parsed.password) {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.headers.authorization ??= `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    this.pool = new Pool(parsed.origin, {
      connections: opts.maxConnections ?? DEFAULT_CONNECTIONS,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connectTimeout: Math.min(timeoutMs, 10_000),
    });
  }

  /** Sends one payload (or a batch) and returns the answers as a list, like ethers' `_send`. */
  send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcAnswer[]> {
    // undici's low-level dispatch: no response stream or async resource per call, which the
    // request() helper builds and which cost more than the rest of a call here.
    return new Promise((resolve, reject) => {
      let status = 0;
      const chunks: Buffer[] = [];
      this.pool.dispatch(
        { path: this.path, method: 'POST', headers: this.headers, body: JSON.stringify(payload) },
        {
          onRequestStart() {},
          onResponseStart(_controller, statusCode) {
            status = statusCode;
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            try {
              resolve(parseAnswer(status, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
            } catch (e) {
              reject(e);
            }
          },
          onResponseError(_controller, error) {
            reject(error);
          },
        },
      );
    });
  }

  /** Closes every socket; pending and later requests fail. */
  close(): void {
    void this.pool.destroy().catch(() => undefined);
  }
}
