import http from 'node:http';
import type { Duplex } from 'node:stream';
import express from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Credentials } from '../auth/credentials';
import type { LiveCredentials } from '../auth/live-credentials';
import type { SessionFactory } from '../auth/session';
import type { RequestLimit } from '../kernel/rate-limit';
import { memoryLimitStore, type LimitStore } from '../kernel/limit-store';
import type { Logger } from '../kernel/logger';
import { createGraphQLPipeline } from '../schema/limits';
import { docsPages } from './docs-pages';
import { httpDrain } from './drain';
import { clientAddressOf, isLoopbackClientOf } from './edge';
import { errorFaces } from './error-faces';
import { graphqlHttp } from './graphql-http';
import { graphqlWs } from './graphql-ws';
import type { Metrics } from './metrics';
import { opsRoutes, startMetricsServer, type ReadinessReport } from './ops-routes';
import { requestContexts } from './request-contexts';
import type { HotReads, ServedDocuments } from '../rest/rest-api';
import { restAreas, withDirectRoutes } from './rest';
import { withRpcDoor, type RpcHttpOptions } from './rpc-http';
import { withEtherscan, type EtherscanHttpOptions } from './etherscan-http';
import { rpcWs, type RpcWsOpen } from './rpc-ws';
import { inOrder, pathOf } from './step';
import { answerParserErrors, notFound, withErrors } from './with-errors';
import { withHygieneHeaders } from './with-hygiene-headers';
import { withLimits } from './with-limits';
import { requestBookkeeping, withRequestId } from './with-request-id';

export type { ReadinessReport } from './ops-routes';
export { MAX_SUBSCRIPTIONS_PER_CONNECTION } from './graphql-ws';

export interface HttpServerOptions {
  host: string;
  port: number;
  schema: GraphQLSchema;
  /**
   * Who the edge charges a request to: the developer of a credential that verifies without the
   * database (a signed developer token, an API key this instance has accepted), else nobody.
   */
  chargeableDeveloper: (credentials: Credentials) => string | undefined;
  /** PUBLIC_RATE_LIMIT per client address, DEVELOPER_RATE_LIMIT per developer. */
  limits: { public: RequestLimit; developer: RequestLimit };
  /** Where the WebSocket connection caps count (REDIS_URL: Redis); none: this process's memory. */
  limitStore?: LimitStore;
  /** The JSON-RPC door (docs/api.md, "JSON-RPC door"): its HTTP answers and its WebSocket connections. */
  rpc?: { answer: RpcHttpOptions['answer']; open: RpcWsOpen };
  /** The Etherscan-compatible API's answers (docs/api.md, "Etherscan-compatible API"); without it, 404. */
  etherscan?: EtherscanHttpOptions['answer'];
  /** Builds the session (who is calling) of each request and WebSocket operation. */
  sessionFor: SessionFactory;
  /** The open subscriptions of each credential, ended when it is revoked. */
  liveCredentials: LiveCredentials;
  logger: Logger;
  metrics: Metrics;
  readiness: () => Promise<ReadinessReport>;
  servers: string[];
  /** Sources of the REST documents the service keeps built (contracts' openapi.json and swagger). */
  documents?: ServedDocuments;
  /** Direct routes' answers decided without waiting, by field (src/rest/direct-route.ts, HotRead). */
  hotReads?: HotReads;
  /** TRUST_PROXY, CORS_ORIGINS, WS_CONNECTIONS_PER_IP, METRICS_TOKEN and METRICS_PORT. */
  edge: {
    trustProxy?: string;
    corsOrigins?: string[];
    wsConnectionsPerIp: number;
    metricsToken?: string;
    metricsPort?: number;
    /** Production with neither METRICS_TOKEN nor METRICS_PORT: /metrics for loopback clients only. */
    metricsLoopbackOnly?: boolean;
  };
}

/** Node's server timeouts (SECURITY.md): slow clients cannot hold sockets open indefinitely. */
export const SERVER_TIMEOUTS = {
  /** The request line and headers must arrive within this (slowloris; docs/api.md, "Operations"). */
  headersTimeout: 10_000,
  /** The whole request, body included, must arrive within this (a slow 1 MiB upload still fits). */
  requestTimeout: 60_000,
  /** An idle keep-alive socket is closed after this. */
  keepAliveTimeout: 5_000,
} as const;

/**
 * How often Node looks for requests past headersTimeout and requestTimeout: it checks only then
 * (default every 30 s), so a slow client would otherwise keep its socket up to 30 s past the limit.
 */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 500;

export interface RunningHttpServer {
  server: http.Server;
  url: string;
  close(): Promise<void>;
}

/**
 * The HTTP edge: one Node server, its steps in the order a request meets them.
 *
 * Which of four paths serves a request:
 * - the direct routes (src/rest/direct-route.ts): the gateway's hot REST routes, exact path and
 *   plain body only, answered before express; they run the fixed operation SOFA generates for
 *   their field, compiled once, because SOFA's and express's per-request layers cost more than the
 *   call itself (BENCHMARKS.md, "Gateway");
 * - GraphQL's fast path (graphql-http.ts): a plain JSON POST (or GET of a query) to exactly /graphql of an admitted
 *   query or mutation, compiled once per document, answered before express, for the same reason;
 * - SOFA (src/rest/rest-api.ts), in express: every other REST route, and any variant of a direct
 *   route the dispatcher leaves alone (trailing slash, letter case, compressed body);
 * - Apollo, in express: every other GraphQL over HTTP request at /graphql (and the fast path's
 *   leftovers); graphql-ws: GraphQL over WebSocket there.
 * All four execute the one schema with the same context, limits and error map.
 */
export async function startHttpServer(opts: HttpServerOptions): Promise<RunningHttpServer> {
  const { logger, metrics, schema } = opts;
  const errors = errorFaces(metrics, logger);
  const clientAddress = clientAddressOf(opts.edge.trustProxy);
  const contexts = requestContexts(opts.sessionFor, clientAddress, logger);
  const pipeline = createGraphQLPipeline(schema);
  metrics.observeAdmittedDocuments(() => pipeline.cachedDocuments);
  const begin = requestBookkeeping(metrics, logger);
  const isLoopbackClient = isLoopbackClientOf(opts.edge.trustProxy, clientAddress);
  const ops = { metrics, readiness: opts.readiness, ...opts.edge, errors, isLoopbackClient };

  const server = http.createServer({ connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS });
  Object.assign(server, SERVER_TIMEOUTS);
  answerParserErrors(server);

  // GraphQL over WebSocket: the upgrade leaves the HTTP steps below at once.
  // One cap for both WebSockets: an address's GraphQL and JSON-RPC connections count together (docs/api.md).
  const wsConnections = (opts.limitStore ?? memoryLimitStore()).connectionCap('ws', opts.edge.wsConnectionsPerIp);
  const ws = graphqlWs({
    schema,
    pipeline,
    clientAddress,
    contexts,
    errors,
    connections: wsConnections,
    liveCredentials: opts.liveCredentials,
  });
  const rpcSockets = opts.rpc
    ? rpcWs({
        open: opts.rpc.open,
        sessionFor: opts.sessionFor,
        clientAddress,
        connections: wsConnections,
      })
    : undefined;
  // Upgrades: GraphQL's on /graphql, the JSON-RPC door's on /rpc/...; any other path is refused.
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = pathOf(req);
    if (path === '/graphql') ws.upgrade(req, socket, head);
    else if (rpcSockets && path.startsWith('/rpc/')) rpcSockets.upgrade(req, socket, head);
    else socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  const drain = httpDrain(server);
  const graphql = await graphqlHttp({
    schema,
    pipeline,
    contexts,
    errors,
    clientAddress,
    drain: async () => {
      await Promise.all([
        drain.drain({
          cutOthers: () => {
            ws.cut();
            rpcSockets?.cut();
          },
        }),
        ws.dispose(),
        rpcSockets?.dispose(),
      ]);
    },
  });
  const rest = restAreas({
    schema,
    logger,
    servers: opts.servers,
    contexts,
    errors,
    documents: opts.documents,
    hotReads: opts.hotReads,
  });

  // Express, the last step: ops routes, docs, GraphQL over HTTP, SOFA's REST, then the errors.
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(opsRoutes(ops));
  app.use(docsPages());
  app.use('/graphql', ...graphql.handlers);
  for (const [base, router] of rest.routers) app.use(base, router);
  app.use(notFound(errors));
  app.use(withErrors(errors));

  // The steps every HTTP request meets, in this order.
  server.on(
    'request',
    inOrder(
      [
        withRequestId(begin),
        drain.step,
        withHygieneHeaders(opts.edge.corsOrigins),
        withLimits({ ...opts, credentialsOf: contexts.credentialsOf, clientAddress, errors }),
        ...(opts.rpc ? [withRpcDoor({ answer: opts.rpc.answer, contexts, errors, begin })] : []),
        ...(opts.etherscan ? [withEtherscan({ answer: opts.etherscan, contexts, errors, begin })] : []),
        withDirectRoutes(rest.direct, { begin, contexts, errors }),
        (req, res, next) => void (graphql.direct(req, res) || next()),
      ],
      app,
    ),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const metricsServer =
    opts.edge.metricsPort !== undefined
      ? await startMetricsServer({ ...ops, host: opts.host, port: opts.edge.metricsPort })
      : undefined;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const url = `http://${opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host}:${port}`;
  logger.info({ url }, 'HTTP server listening (GraphQL at /graphql, REST at /api/devportal and /api/explorer)');

  return {
    server,
    url,
    async close() {
      // Stops accepting connections and waits for in-flight requests (drain.ts), then stops Apollo.
      await graphql.stop();
      server.closeAllConnections();
      if (metricsServer) {
        metricsServer.closeAllConnections();
        await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      }
    },
  };
}
