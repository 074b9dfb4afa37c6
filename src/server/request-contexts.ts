import type http from 'node:http';
import { credentialsFromHttpHeaders, type Credentials } from '../auth/credentials';
import type { RequestContext } from '../auth/request-context';
import type { Session, SessionFactory } from '../auth/session';
import type { Logger } from '../kernel/logger';
import { prefersAsync } from './prefer';
import { withPathKey } from './rpc-path';
import { pathOf } from './step';

/** Where a request's credentials are kept once read (a property: cheaper per request than a WeakMap entry). */
const CREDENTIALS = Symbol('credentials');

/** Request context of an HTTP request or a WebSocket operation. */
class Context implements RequestContext {
  readonly idempotencyKey?: string;
  /** `Prefer: respond-async`: the caller asked to be answered before the work is done (docs/api.md, "Transactions"). */
  readonly respondAsync: boolean;
  accepted?: boolean;
  acceptedBody?: Record<string, unknown>;
  readonly session: Session;
  private requestLogger?: Logger;

  constructor(
    readonly requestId: string,
    private readonly rootLogger: Logger,
    sessionFor: SessionFactory,
    clientIp: string,
    credentials: Credentials,
    idempotencyKey: unknown,
    prefer?: unknown,
  ) {
    this.session = sessionFor(credentials, clientIp);
    if (typeof idempotencyKey === 'string') this.idempotencyKey = idempotencyKey;
    this.respondAsync = prefersAsync(prefer);
  }

  // Made when first used: most requests never log.
  get logger(): Logger {
    this.requestLogger ??= this.rootLogger.child({ requestId: this.requestId });
    return this.requestLogger;
  }
}

export interface RequestContexts {
  /** Each request's credentials, read from its headers once (the edge and every face share them). */
  credentialsOf(req: http.IncomingMessage): Credentials;
  /** The context of an HTTP request, whichever face serves it. */
  forHttp(requestId: string, req: http.IncomingMessage): RequestContext;
  /** The context of one WebSocket operation (credentials from the connection parameters). */
  forOperation(requestId: string, clientIp: string, credentials: Credentials, idempotencyKey: unknown): RequestContext;
}

export function requestContexts(
  sessionFor: SessionFactory,
  clientAddress: (req: http.IncomingMessage) => string,
  logger: Logger,
): RequestContexts {
  const credentialsOf = (req: http.IncomingMessage): Credentials => {
    const held = req as http.IncomingMessage & { [CREDENTIALS]?: Credentials };
    let credentials = held[CREDENTIALS];
    if (!credentials) {
      credentials = credentialsFromHttpHeaders(req.headers);
      // The JSON-RPC door also takes the key in its path (docs/api.md, "JSON-RPC door").
      if (req.url?.startsWith('/rpc/')) credentials = withPathKey(credentials, pathOf(req));
      held[CREDENTIALS] = credentials;
    }
    return credentials;
  };
  return {
    credentialsOf,
    forHttp: (requestId, req) =>
      new Context(
        requestId,
        logger,
        sessionFor,
        clientAddress(req),
        credentialsOf(req),
        req.headers['idempotency-key'],
        req.headers.prefer,
      ),
    forOperation: (requestId, clientIp, credentials, idempotencyKey) =>
      new Context(requestId, logger, sessionFor, clientIp, credentials, idempotencyKey),
  };
}
