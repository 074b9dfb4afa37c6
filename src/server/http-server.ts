import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { AppError } from '../errors/app-error';
import { errorBody, toPublicError, type PublicError } from '../errors/error-map';
import type { Logger } from '../logger';
import { directDispatcher, type DirectEndpoint } from '../rest/direct-route';
import { createRestApi, MAX_BODY, MAX_BODY_BYTES } from '../rest/rest-api';
import { AREA_BASE, REST_ROUTES, type RestArea } from '../rest/routes';
import { createGraphQLPipeline } from '../schema/limits';
import type { SessionFactory, Session } from '../auth/session';
import type { RequestLimit } from '../kernel/rate-limit';
import { clientAddressOf, hasMetricsToken, responseHygiene } from './edge';
import { docsPages } from './docs-pages';
import { credentialsFrom, credentialsFromHttpHeaders, type Credentials } from '../auth/credentials';
import { type RequestContext } from '../auth/request-context';
import type { Metrics } from './metrics';
import { prefersAsync } from './prefer';

export interface ReadinessReport {
  ready: boolean;
  database: { ready: boolean };
  networks: Record<
    string,
    { healthy: boolean; chainId: number; latencyMs: number | null; error?: string; explorerIndexHalted?: string }
  >;
}

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
  /** Builds the session (who is calling) of each request and WebSocket operation. */
  sessionFor: SessionFactory;
  logger: Logger;
  metrics: Metrics;
  readiness: () => Promise<ReadinessReport>;
  servers: string[];
  /** TRUST_PROXY, CORS_ORIGINS, WS_CONNECTIONS_PER_IP, METRICS_TOKEN and METRICS_PORT. */
  edge: {
    trustProxy?: string;
    corsOrigins?: string[];
    wsConnectionsPerIp: number;
    metricsToken?: string;
    metricsPort?: number;
  };
}

/** Node's server timeouts (SECURITY.md): slow clients cannot hold sockets open indefinitely. */
export const SERVER_TIMEOUTS = {
  /** The request line and headers must arrive within this (slowloris). */
  headersTimeout: 15_000,
  /** The whole request, body included, must arrive within this (a slow 1 MiB upload still fits). */
  requestTimeout: 60_000,
  /** An idle keep-alive socket is closed after this. */
  keepAliveTimeout: 5_000,
} as const;

/** Subscriptions (and running operations) one WebSocket connection may hold (API.md §1a). */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

/** Paths never rate limited: probes and scrapes must work while a flood is refused. */
const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface RunningHttpServer {
  server: http.Server;
  url: string;
  close(): Promise<void>;
}

/** The request each Apollo error belongs to (Apollo's formatError is not given the context). */
const requestOfError = new WeakMap<object, string>();

/** GraphQL errors carry the API.md code in extensions.code and never anything internal. */
function formatGraphQLError(reportUnexpected: (err: unknown, requestId: string | undefined) => void) {
  return (formatted: GraphQLFormattedError, error: unknown, requestId?: string): GraphQLFormattedError => {
    const request = requestId ?? (typeof error === 'object' && error ? requestOfError.get(error) : undefined);
    const e: PublicError = toPublicError(error, (err) => reportUnexpected(err, request));
    return {
      message: e.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: e.code, ...(e.details ? { details: e.details } : {}) },
    };
  };
}

/** Every GraphQL error names the request it belongs to, as the logs do. */
const withRequestId = (e: GraphQLFormattedError, requestId: string): GraphQLFormattedError => ({
  ...e,
  extensions: { ...e.extensions, requestId },
});

/** Adds the request id to the errors of every Apollo response (and to their log lines). */
const errorsCarryRequestId: ApolloServerPlugin<RequestContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) requestOfError.set(error, contextValue.requestId);
      },
      async willSendResponse({ response, contextValue }) {
        if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
        response.body.singleResult.errors = response.body.singleResult.errors.map((e) =>
          withRequestId(e, contextValue.requestId),
        );
      },
    };
  },
};

/** GraphQL over HTTP answers 200 with errors in the body (API.md §1), as GraphQL clients expect. */
const graphqlStatus200: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.http.status && response.http.status >= 400 && response.http.status < 500) {
          response.http.status = 200;
        }
      },
    };
  },
};

/** Area label for metrics, bounded to a few values. */
function areaOf(path: string): string {
  if (path.startsWith('/graphql')) return 'graphql';
  for (const [area, base] of Object.entries(AREA_BASE)) if (path.startsWith(base)) return area;
  return ['/healthz', '/readyz', '/metrics'].includes(path) ? 'ops' : 'other';
}

/** Builds the HTTP server: GraphQL (HTTP + WebSocket), REST by SOFA, health and metrics. */
export async function startHttpServer(opts: HttpServerOptions): Promise<RunningHttpServer> {
  const { logger, metrics, limits } = opts;
  /** Every face's errors answered as 500 INTERNAL: counted, and logged with the request id. */
  const reportUnexpected = (err: unknown, requestId: string | undefined): void => {
    metrics.unexpectedErrors.inc();
    logger.error({ err, requestId }, 'unexpected error');
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The gateway's hot routes are matched before express (src/rest/direct-route.ts); every other
  // request, and any variant of those the dispatcher leaves alone, goes through express.
  const direct: DirectEndpoint[] = [];
  let serveDirect: (req: http.IncomingMessage, res: http.ServerResponse) => boolean = () => false;
  const clientAddress = clientAddressOf(opts.edge.trustProxy);
  const hygiene = responseHygiene(opts.edge.corsOrigins);
  const dispatch = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!serveDirect(req, res)) app(req, res);
  };
  /** A request refused at the edge (rate limit): REST's error body, or GraphQL's errors (API.md §1). */
  const refuse = (req: http.IncomingMessage, res: http.ServerResponse, path: string, error: unknown) => {
    const requestId = res.getHeader('x-request-id') as string;
    const e = toPublicError(error, (err) => reportUnexpected(err, requestId));
    const graphql = path === '/graphql';
    const text = JSON.stringify(
      graphql
        ? {
            errors: [
              {
                message: e.message,
                extensions: { code: e.code, ...(e.details ? { details: e.details } : {}), requestId },
              },
            ],
          }
        : errorBody(e),
    );
    for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
    res.writeHead(graphql ? 200 : e.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
    req.resume();
  };
  /** Each request's credentials, read from its headers once (the edge and every face share them). */
  const credentialsAt = new WeakMap<http.IncomingMessage, Credentials>();
  const credentialsOf = (req: http.IncomingMessage): Credentials => {
    let credentials = credentialsAt.get(req);
    if (!credentials) {
      credentials = credentialsFromHttpHeaders(req.headers);
      credentialsAt.set(req, credentials);
    }
    return credentials;
  };
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    begin(req, res, path);
    hygiene(req, res, () => {
      if (OPS_PATHS.has(path)) return dispatch(req, res);
      const credentials = credentialsOf(req);
      // The developer a request is charged to, if any (Authority.chargeableDeveloper).
      const developerId = opts.chargeableDeveloper(credentials);
      const [limit, key] =
        developerId !== undefined ? [limits.developer, developerId] : [limits.public, clientAddress(req)];
      if (!limit.enabled) return dispatch(req, res);
      limit.consume(key).then(
        () => {
          credentials.chargedTo = developerId;
          dispatch(req, res);
        },
        (error: unknown) => refuse(req, res, path, error),
      );
    });
  });
  server.headersTimeout = SERVER_TIMEOUTS.headersTimeout;
  server.requestTimeout = SERVER_TIMEOUTS.requestTimeout;
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveTimeout;

  /** Request context of an HTTP request or a WebSocket operation. */
  class Context implements RequestContext {
    readonly idempotencyKey?: string;
    readonly respondAsync: boolean;
    accepted?: boolean;
    readonly session: Session;
    private requestLogger?: Logger;

    constructor(
      readonly requestId: string,
      clientIp: string,
      credentials: Credentials,
      idempotencyKey: unknown,
      prefer?: unknown,
    ) {
      this.session = opts.sessionFor(credentials, clientIp);
      if (typeof idempotencyKey === 'string') this.idempotencyKey = idempotencyKey;
      this.respondAsync = prefersAsync(prefer);
    }

    // Made when first used: most requests never log.
    get logger(): Logger {
      this.requestLogger ??= logger.child({ requestId: this.requestId });
      return this.requestLogger;
    }
  }
  const contextFor = (requestId: string, req: http.IncomingMessage): RequestContext =>
    new Context(requestId, clientAddress(req), credentialsOf(req), req.headers['idempotency-key'], req.headers.prefer);

  const tooLarge: PublicError = {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: `The request body is larger than ${MAX_BODY}`,
  };
  const badPath: PublicError = {
    status: 400,
    code: 'VALIDATION_FAILED',
    message: 'The request path is not valid percent-encoding',
  };

  /** Request id, metrics and the access log line of every HTTP request. */
  const begin = (req: http.IncomingMessage, res: http.ServerResponse, path: string): string => {
    // Begun once, at the edge; the dispatchers after it read the same id.
    const begun = res.getHeader('x-request-id');
    if (typeof begun === 'string') return begun;
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequests.observe({ area: areaOf(path), method: req.method, status: res.statusCode }, seconds);
      logger.info(
        { requestId, method: req.method, path, status: res.statusCode, ms: Math.round(seconds * 1000) },
        'request',
      );
    });
    return requestId;
  };

  app.use((req, res, next) => {
    res.locals.requestId = begin(req, res, req.path);
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const report = await opts.readiness();
    res.status(report.ready ? 200 : 503).json(report);
  });
  const serveMetrics = async (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const text = await metrics.registry.metrics();
    res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
    res.end(text);
  };
  app.get('/metrics', async (req, res) => {
    const { metricsToken, metricsPort } = opts.edge;
    if (metricsToken ? !hasMetricsToken(req, metricsToken) : metricsPort !== undefined) {
      res.setHeader('www-authenticate', 'Bearer');
      const e: PublicError = metricsToken
        ? { status: 401, code: 'UNAUTHENTICATED', message: 'The metrics need Authorization: Bearer <METRICS_TOKEN>' }
        : { status: 404, code: 'NOT_FOUND', message: 'The metrics are served on METRICS_PORT' };
      res.status(e.status).json(errorBody(e));
      return;
    }
    await serveMetrics(req, res);
  });

  // Over 1 MiB a message closes the connection with 1009 (ws's maxPayload); connections are capped per client address.
  const wsConnections = new Map<string, number>();
  const wss = new WebSocketServer({
    server,
    path: '/graphql',
    maxPayload: MAX_BODY_BYTES,
    verifyClient: ({ req }, done) => {
      if ((wsConnections.get(clientAddress(req)) ?? 0) >= opts.edge.wsConnectionsPerIp) {
        done(false, 429, 'Too many WebSocket connections from this address', { 'Retry-After': '10' });
      } else {
        done(true);
      }
    },
  });
  wss.on('connection', (socket, req) => {
    const address = clientAddress(req);
    wsConnections.set(address, (wsConnections.get(address) ?? 0) + 1);
    socket.once('close', () => {
      const left = (wsConnections.get(address) ?? 1) - 1;
      if (left <= 0) wsConnections.delete(address);
      else wsConnections.set(address, left);
    });
  });
  const format = formatGraphQLError(reportUnexpected);
  const pipeline = createGraphQLPipeline(opts.schema);
  const wsError = (error: unknown, requestId: string): GraphQLError => {
    const f = withRequestId(
      format(error instanceof GraphQLError ? error.toJSON() : { message: '' }, error, requestId),
      requestId,
    );
    return new GraphQLError(f.message, { extensions: f.extensions });
  };
  const wsCleanup = useServer(
    {
      schema: opts.schema,
      // Parse, validate and cost-check here so WebSocket operations meet the same limits as HTTP.
      onSubscribe: (ctx, _id, payload) => {
        const requestId = randomUUID();
        // ctx.subscriptions already holds this one.
        if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
          return [
            wsError(
              new AppError(
                'RATE_LIMITED',
                `At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions on one connection; complete one first`,
              ),
              requestId,
            ),
          ];
        }
        try {
          const admission = pipeline.admit(payload.query, payload.variables, payload.operationName);
          if (admission.errors) return admission.errors.map((e) => wsError(e, requestId));
          const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
          return {
            schema: opts.schema,
            document: admission.document,
            variableValues: payload.variables,
            operationName: payload.operationName,
            contextValue: new Context(
              requestId,
              clientAddress(ctx.extra.request),
              credentialsFrom(params),
              params['idempotency-key'],
            ),
          };
        } catch (error) {
          return [wsError(error, requestId)];
        }
      },
      onNext: (_ctx, _id, _payload, args, result) => {
        if (!result.errors) return result;
        const requestId = (args.contextValue as RequestContext).requestId;
        return {
          ...result,
          errors: result.errors.map((e) => withRequestId(format(e.toJSON(), e, requestId), requestId)),
        };
      },
    },
    wss,
  );

  const apollo = new ApolloServer<RequestContext>({
    schema: opts.schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // main.ts owns SIGINT/SIGTERM and stops everything in order; Apollo must not race it.
    stopOnTerminationSignals: false,
    // Every document reaches Apollo through the pipeline (graphqlAdmission): never an unchecked one.
    persistedQueries: false,
    formatError: format,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer: server }),
      // Apollo's landing page loads Sandbox from Apollo's servers; docsPages serves GraphiQL instead.
      ApolloServerPluginLandingPageDisabled(),
      graphqlStatus200,
      errorsCarryRequestId,
      {
        async serverWillStart() {
          return {
            async drainServer() {
              await wsCleanup.dispose();
            },
          };
        },
      },
    ],
  });
  await apollo.start();

  /** Runs the pipeline before Apollo parses anything; a refused document never reaches Apollo. */
  const graphqlAdmission: express.RequestHandler = (req, res, next) => {
    const input: unknown = req.method === 'GET' ? req.query : req.body;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return next();
    const { query, operationName } = input as Record<string, unknown>;
    let variables = (input as Record<string, unknown>).variables;
    // No document: Apollo answers (the GraphiQL page, or its own error for a missing query).
    if (typeof query !== 'string') return next();
    if (typeof variables === 'string') {
      try {
        variables = JSON.parse(variables) as unknown;
      } catch {
        return next();
      }
    }
    const requestId = res.locals.requestId as string;
    const admission = pipeline.admit(
      query,
      variables !== null && typeof variables === 'object' ? (variables as Record<string, unknown>) : undefined,
      typeof operationName === 'string' ? operationName : undefined,
    );
    if (!admission.errors) return next();
    res
      .status(200)
      .json({ errors: admission.errors.map((e) => withRequestId(format(e.toJSON(), e, requestId), requestId)) });
  };
  app.use(docsPages());
  app.use(
    '/graphql',
    express.json({ limit: MAX_BODY }),
    graphqlAdmission,
    expressMiddleware(apollo, {
      context: async ({ req, res }) => contextFor(res.locals.requestId as string, req),
    }),
  );

  for (const area of Object.keys(AREA_BASE) as RestArea[]) {
    // An area without routes yet has nothing to mount; the JSON 404 below answers its paths.
    if (!REST_ROUTES.some((r) => r.area === area)) continue;
    const rest = createRestApi(area, {
      schema: opts.schema,
      logger,
      servers: opts.servers,
      makeContext: (req) => contextFor(req.res?.locals.requestId as string, req),
      onUnexpected: reportUnexpected,
    });
    app.use(AREA_BASE[area], rest.router);
    direct.push(...rest.direct);
  }
  serveDirect = directDispatcher(direct, {
    maxBody: MAX_BODY_BYTES,
    tooLarge,
    badPath,
    begin,
    context: contextFor,
    unexpected: (error, requestId) => toPublicError(error, (err) => reportUnexpected(err, requestId)),
  });

  app.use((req, res) => {
    res.status(404).json(errorBody({ status: 404, code: 'NOT_FOUND', message: `No route ${req.method} ${req.path}` }));
  });
  // Express calls an error handler by its arity: the unused `next` must stay.
  app.use((err: unknown, req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const type = (err as { type?: string }).type;
    let e: PublicError;
    if (type === 'entity.too.large') {
      e = tooLarge;
    } else if (type === 'entity.parse.failed') {
      e = { status: 400, code: 'VALIDATION_FAILED', message: 'The request body is not valid JSON' };
    } else if (err instanceof URIError) {
      // Express could not decode a path parameter (a stray or truncated %-escape).
      e = badPath;
    } else {
      e = toPublicError(err, (x) => reportUnexpected(x, res.locals.requestId as string | undefined));
    }
    for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
    res.status(e.status).json(errorBody(e));
  });

  // Requests Node's HTTP parser refuses (a request line or headers over 16 KiB, malformed HTTP)
  // never reach Express; they still get the error body of API.md §1.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return;
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      errorBody({
        status: tooLarge ? 431 : 400,
        code: 'VALIDATION_FAILED',
        message: tooLarge ? 'The request line or headers are too large' : 'Malformed HTTP request',
      }),
    );
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  // METRICS_PORT: the metrics alone, on a port kept off the public network.
  let metricsServer: http.Server | undefined;
  if (opts.edge.metricsPort !== undefined) {
    const ms = http.createServer((req, res) => {
      if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
        serveMetrics(req, res).catch(() => res.destroy());
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(errorBody({ status: 404, code: 'NOT_FOUND', message: 'Only GET /metrics here' })));
    });
    await new Promise<void>((resolve, reject) => {
      ms.once('error', reject);
      ms.listen(opts.edge.metricsPort, opts.host, () => resolve());
    });
    metricsServer = ms;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const url = `http://${opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host}:${port}`;
  logger.info({ url }, 'HTTP server listening (GraphQL at /graphql, REST at /api/devportal and /api/explorer)');

  return {
    server,
    url,
    async close() {
      // Apollo's drain plugin stops accepting connections and waits for in-flight requests.
      await apollo.stop();
      server.closeAllConnections();
      if (metricsServer) {
        metricsServer.closeAllConnections();
        await new Promise<void>((resolve) => metricsServer!.close(() => resolve()));
      }
    },
  };
}
