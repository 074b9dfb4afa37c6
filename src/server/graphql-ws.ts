import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ExecutionResult, FormattedExecutionResult, GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { credentialsFrom } from '../auth/credentials';
import type { LiveCredentials } from '../auth/live-credentials';
import type { RequestContext } from '../auth/request-context';
import { AppError } from '../kernel/errors/app-error';
import { clientLimitKey } from '../kernel/client-address';
import type { ConnectionCap } from '../kernel/limit-store';
import { MAX_BODY_BYTES } from '../rest/rest-api';
import type { GraphQLPipeline } from '../schema/limits';
import type { ErrorFaces } from './error-faces';
import type { RequestContexts } from './request-contexts';
import { revocable } from './revocable-stream';
import { SharedFanOut } from './shared-fan-out';
import { sharedKeyOf, sharedSubscribe } from './shared-subscription';

/**
 * Subscriptions whose feed hands every subscriber the same event objects and whose answer depends
 * on nothing else (not on credentials): each event is executed once per distinct document and
 * variables, not once per subscriber, and each answer serialised once and written to every
 * subscriber's socket in one pass (shared-fan-out.ts). Each subscriber keeps its order, its bound
 * and its revocation.
 */
const SHARED_FEEDS: ReadonlySet<string> = new Set(['liveBlocks']);

/** Subscriptions (and running operations) one WebSocket connection may hold (docs/api.md, "Conventions"). */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

export interface GraphQLWsOptions {
  schema: GraphQLSchema;
  pipeline: GraphQLPipeline;
  clientAddress: (req: http.IncomingMessage) => string;
  contexts: RequestContexts;
  errors: ErrorFaces;
  /** WS_CONNECTIONS_PER_IP per client address key, counted across instances with REDIS_URL (limit-store.ts). */
  connections: ConnectionCap;
  /** Ends a subscription when its key is revoked or its token logged out, heard from any instance. */
  liveCredentials: LiveCredentials;
  /** The subscriptions served as SHARED_FEEDS are (its default). */
  sharedFeeds?: ReadonlySet<string>;
}

/**
 * GraphQL over WebSocket (graphql-ws) on /graphql of the same server: the upgrade bypasses the
 * HTTP steps, so it meets its own limits here (connections per address, message size,
 * subscriptions per connection) and the same admission pipeline as GraphQL over HTTP.
 * Returns what stops it: `dispose` closes every connection (1001) and resolves once all have
 * closed; `cut` ends at once those that have not.
 */
export function graphqlWs(opts: GraphQLWsOptions): {
  /** Takes an upgrade of /graphql (the server's upgrade dispatcher hands it over). */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  dispose(): Promise<void>;
  cut(): void;
} {
  const { schema, pipeline, clientAddress, contexts, errors } = opts;
  // Over 1 MiB a message closes the connection with 1009 (ws's maxPayload); connections are capped per client address
  // (an IPv6 client's /64: clientLimitKey), across instances with REDIS_URL.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_BODY_BYTES,
    verifyClient: ({ req }, done) => {
      opts.connections.acquire(clientLimitKey(clientAddress(req))).then(
        (release) => {
          if (!release) {
            done(false, 429, 'Too many WebSocket connections from this address', { 'Retry-After': '10' });
            return;
          }
          // Given back when the connection closes (or its handshake fails after this check).
          req.socket.once('close', release);
          done(true);
        },
        () => done(false, 503, 'The connection could not be counted', { 'Retry-After': '1' }),
      );
    },
  });
  const revocables = new WeakMap<RequestContext, ReturnType<typeof revocable>>();
  /** What is sent as a `next` message's payload: the result, its errors in the service's form. */
  const nextPayload = (context: RequestContext, result: ExecutionResult): FormattedExecutionResult => {
    // Revoked between the feed's last item and this send: the item is not sent, the error is.
    const revoked = revocables.get(context)?.revokedError();
    if (revoked) throw revoked;
    if (!result.errors) return result;
    return { ...result, errors: result.errors.map((e) => errors.graphql(e, context.requestId)) };
  };
  const fanOut = new SharedFanOut();
  const server = useServer(
    {
      schema,
      subscribe: sharedSubscribe(opts.sharedFeeds ?? SHARED_FEEDS),
      // Parse, validate and cost-check here so WebSocket operations meet the same limits as HTTP.
      onSubscribe: async (ctx, _id, payload) => {
        const requestId = randomUUID();
        // ctx.subscriptions already holds this one.
        if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
          return [
            errors.ws(
              new AppError(
                'RATE_LIMITED',
                `At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions on one connection; complete one first`,
              ),
              requestId,
            ),
          ];
        }
        try {
          const admission = await pipeline.admit(
            payload.query,
            payload.variables,
            payload.operationName,
            clientLimitKey(clientAddress(ctx.extra.request)),
          );
          if (admission.errors) return admission.errors.map((e) => errors.ws(e, requestId));
          const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
          return {
            schema,
            document: admission.document,
            variableValues: payload.variables,
            operationName: payload.operationName,
            contextValue: contexts.forOperation(
              requestId,
              clientAddress(ctx.extra.request),
              credentialsFrom(params, ctx.extra.request.headers.origin),
              params['idempotency-key'],
            ),
          };
        } catch (error) {
          return [errors.ws(error, requestId)];
        }
      },
      // A subscription ends the moment its credential is revoked (docs/api.md, "Subscriptions and revocation").
      onOperation: (ctx, id, _payload, args, result) => {
        if (!isAsyncGenerator(result)) return undefined;
        const context = args.contextValue as RequestContext;
        // A shared subscription's frames are written by its group, one payload JSON for all its
        // subscribers; graphql-ws still sends the `error` or `complete` that ends each one.
        const shared = sharedKeyOf(result);
        const source = shared
          ? fanOut.join(result, shared.document, shared.variables, {
              socket: ctx.extra.socket,
              id,
              prepare: (r) => nextPayload(context, r),
            })
          : result;
        const stream = revocable(source, (end) => opts.liveCredentials.watch(context.session.credentials, end));
        revocables.set(context, stream);
        return stream;
      },
      onNext: (_ctx, _id, _payload, args, result) => nextPayload(args.contextValue as RequestContext, result),
    },
    wss,
  );
  return {
    upgrade: (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)),
    dispose: async () => server.dispose(),
    cut: () => {
      for (const socket of wss.clients) socket.terminate();
    },
  };
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<ExecutionResult> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Symbol.asyncIterator in value &&
    typeof (value as { return?: unknown }).return === 'function'
  );
}
