import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { credentialsFromHttpHeaders } from '../auth/credentials';
import type { Session, SessionFactory } from '../auth/session';
import { isAppError } from '../kernel/errors/app-error';
import { jsonRpcCodeOf } from '../kernel/errors/error-codes';
import { MAX_BODY_BYTES } from '../rest/rest-api';
import { clientLimitKey } from '../kernel/client-address';
import type { ConnectionCap } from '../kernel/limit-store';
import { rpcPathOf, withPathKey } from './rpc-path';
import { pathOf } from './step';

/** A notification the door pushes to a connection, serialised (JSON text). */
export type RpcPush = (notification: string) => boolean;

/** One open connection of the door, as the JSON-RPC module serves it. */
export interface RpcWsConnection {
  message(body: unknown, parsed: boolean): Promise<unknown>;
  close(): void;
}

/** Opens a connection for a network and a session (the key's refusal, an AppError, answers the upgrade). */
export type RpcWsOpen = (
  network: string,
  session: Session,
  peer: { push: RpcPush; end(code: number, reason: string): void },
) => Promise<RpcWsConnection>;

export interface RpcWsOptions {
  open: RpcWsOpen;
  sessionFor: SessionFactory;
  clientAddress: (req: http.IncomingMessage) => string;
  /** WS_CONNECTIONS_PER_IP per client address key (as GraphQL's WebSocket), across instances with REDIS_URL. */
  connections: ConnectionCap;
}

/** A connection that has this much unsent is not keeping up: it is closed rather than buffered without end. */
const MAX_BUFFERED = 4 * 1024 * 1024;

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 429: 'Too Many Requests' };

/** Answers an upgrade with an HTTP error and a JSON-RPC error body, then closes the socket. */
function refuse(socket: Duplex, status: number, code: number, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * The JSON-RPC door over WebSocket (docs/api.md, "JSON-RPC door"): `/rpc/{network}` and
 * `/rpc/{network}/{apiKey}` upgrade when the key (in the path, `x-api-key` or `Authorization`)
 * verifies, else HTTP 401. Messages are answered as HTTP requests are; `eth_subscribe` feeds are
 * pushed; a connection that does not read its notifications is closed.
 */
export function rpcWs(opts: RpcWsOptions): {
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  cut(): void;
  dispose(): Promise<void>;
} {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });

  const serve = (ws: WebSocket, connection: RpcWsConnection) => {
    let queue = Promise.resolve();
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? '' : data.toString();
      let body: unknown;
      let parsed = true;
      try {
        body = JSON.parse(text);
      } catch {
        parsed = false;
      }
      // Answers go out in the order the requests came.
      queue = queue.then(async () => {
        const answer = await connection.message(body, parsed).catch(() => ({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32603, message: 'internal error' },
        }));
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(answer));
      });
    });
    ws.once('close', () => connection.close());
  };

  return {
    upgrade(req, socket, head) {
      const path = pathOf(req);
      const door = rpcPathOf(path);
      if (!door) return refuse(socket, 400, -32600, 'not a JSON-RPC path');
      const clientIp = opts.clientAddress(req);
      // Counted as every per-address limit is: an IPv6 client by its /64 (docs/api.md, "Conventions").
      opts.connections.acquire(clientLimitKey(clientIp)).then(
        (release) => {
          if (!release) {
            refuse(socket, 429, -32005, 'Too many WebSocket connections from this address', { 'Retry-After': '10' });
            return;
          }
          // Given back when the connection closes, or at once if it is never opened.
          socket.once('close', release);
          open(req, socket, head, door.network, clientIp, path);
        },
        () => refuse(socket, 503, -32603, 'the connection could not be counted', { 'Retry-After': '1' }),
      );
    },
    cut() {
      for (const socket of wss.clients) socket.terminate();
    },
    async dispose() {
      for (const socket of wss.clients) socket.close(1001, 'the service is stopping');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };

  function open(
    req: http.IncomingMessage,
    socket: Duplex,
    head: Buffer,
    network: string,
    clientIp: string,
    path: string,
  ): void {
    const credentials = withPathKey(credentialsFromHttpHeaders(req.headers), path);
    const session = opts.sessionFor(credentials, clientIp);
    let ws: WebSocket | undefined;
    const peer = {
      push: (notification: string) => {
        if (!ws || ws.readyState !== ws.OPEN) return false;
        if (ws.bufferedAmount > MAX_BUFFERED) {
          ws.close(1008, 'notifications are not being read');
          return false;
        }
        ws.send(notification);
        return true;
      },
      end: (code: number, reason: string) => ws?.close(code, reason),
    };
    opts.open(network, session, peer).then(
      (connection) => {
        wss.handleUpgrade(req, socket, head, (accepted) => {
          ws = accepted;
          serve(accepted, connection);
        });
      },
      (err: unknown) => {
        if (!isAppError(err)) return refuse(socket, 400, -32603, 'the connection could not be opened');
        const status =
          err.code === 'INVALID_API_KEY' || err.code === 'UNAUTHENTICATED'
            ? 401
            : err.code === 'KEY_POLICY_DENIED'
              ? 403
              : err.code === 'RATE_LIMITED'
                ? 429
                : 400;
        refuse(socket, status, jsonRpcCodeOf(err.code), err.message, err.headers);
      },
    );
  }
}
