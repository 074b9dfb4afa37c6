import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { GraphQLError, parse, specifiedRules, validate, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { errorBody, toPublicError, type PublicError } from '../errors/error-map';
import type { Logger } from '../logger';
import { directDispatcher, type DirectEndpoint } from '../rest/direct-route';
import { createRestApi, MAX_BODY, MAX_BODY_BYTES } from '../rest/rest-api';
import { AREA_BASE, REST_ROUTES, type RestArea } from '../rest/routes';
import { assertComplexity, complexityPlugin, graphqlValidationRules } from '../schema/limits';
import { credentialsFrom, credentialsFromHttpHeaders, type Credentials, type RequestContext } from './context';
import type { Metrics } from './metrics';
import type { Services } from './services';

export interface ReadinessReport {
  ready: boolean;
  database: { ready: boolean };
  networks: Record<string, { healthy: boolean; chainId: number; latencyMs: number | null; error?: string }>;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  schema: GraphQLSchema;
  services: Services;
  logger: Logger;
  metrics: Metrics;
  readiness: () => Promise<ReadinessReport>;
  servers: string[];
}

export interface RunningHttpServer {
  server: http.Server;
  url: string;
  close(): Promise<void>;
}

/** GraphQL errors carry the API.md code in extensions.code and never anything internal. */
function formatGraphQLError(logger: Logger, metrics: Metrics) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const e: PublicError = toPublicError(error, (err) => {
      metrics.unexpectedErrors.inc();
      logger.error({ err }, 'unexpected error in GraphQL call');
    });
    return {
      message: e.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: e.code, ...(e.details ? { details: e.details } : {}) },
    };
  };
}

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
  const { logger, metrics, services } = opts;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The gateway's hot routes are matched before express (src/rest/direct-route.ts); every other
  // request, and any variant of those the dispatcher leaves alone, goes through express.
  const direct: DirectEndpoint[] = [];
  let serveDirect: (req: http.IncomingMessage, res: http.ServerResponse) => boolean = () => false;
  const server = http.createServer((req, res) => {
    if (!serveDirect(req, res)) app(req, res);
  });

  /** Request context of an HTTP request or a WebSocket operation. */
  class Context implements RequestContext {
    readonly idempotencyKey?: string;
    readonly services = services;
    private requestLogger?: Logger;

    constructor(
      readonly requestId: string,
      readonly credentials: Credentials,
      idempotencyKey: unknown,
    ) {
      if (typeof idempotencyKey === 'string') this.idempotencyKey = idempotencyKey;
    }

    // Made when first used: most requests never log.
    get logger(): Logger {
      this.requestLogger ??= logger.child({ requestId: this.requestId });
      return this.requestLogger;
    }
  }
  const contextFor = (requestId: string, headers: http.IncomingHttpHeaders): RequestContext =>
    new Context(requestId, credentialsFromHttpHeaders(headers), headers['idempotency-key']);

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
  app.get('/metrics', async (_req, res) => {
    res.setHeader('content-type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });

  const wss = new WebSocketServer({ server, path: '/graphql' });
  const format = formatGraphQLError(logger, metrics);
  const wsError = (error: unknown): GraphQLError => {
    const f = format(error instanceof GraphQLError ? error.toJSON() : { message: '' }, error);
    return new GraphQLError(f.message, { extensions: f.extensions });
  };
  const wsCleanup = useServer(
    {
      schema: opts.schema,
      // Parse, validate and cost-check here so WebSocket operations meet the same limits as HTTP.
      onSubscribe: (ctx, _id, payload) => {
        try {
          const document = parse(payload.query);
          const errors = validate(opts.schema, document, [...specifiedRules, ...graphqlValidationRules()]);
          if (errors.length > 0) return errors.map(wsError);
          assertComplexity(opts.schema, document, payload.variables ?? undefined, payload.operationName);
          const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
          return {
            schema: opts.schema,
            document,
            variableValues: payload.variables,
            operationName: payload.operationName,
            contextValue: new Context(randomUUID(), credentialsFrom(params), params['idempotency-key']),
          };
        } catch (error) {
          return [wsError(error)];
        }
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => format(e.toJSON(), e)) } : result,
    },
    wss,
  );

  const apollo = new ApolloServer<RequestContext>({
    schema: opts.schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // main.ts owns SIGINT/SIGTERM and stops everything in order; Apollo must not race it.
    stopOnTerminationSignals: false,
    validationRules: graphqlValidationRules(),
    formatError: format,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer: server }),
      graphqlStatus200,
      complexityPlugin(opts.schema),
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
  app.use(
    '/graphql',
    express.json({ limit: MAX_BODY }),
    expressMiddleware(apollo, {
      context: async ({ req, res }) => contextFor(res.locals.requestId as string, req.headers),
    }),
  );

  for (const area of Object.keys(AREA_BASE) as RestArea[]) {
    // An area without routes yet has nothing to mount; the JSON 404 below answers its paths.
    if (!REST_ROUTES.some((r) => r.area === area)) continue;
    const rest = createRestApi(area, {
      schema: opts.schema,
      logger,
      servers: opts.servers,
      makeContext: (req) => contextFor(req.res?.locals.requestId as string, req.headers),
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
    unexpected: (error) =>
      toPublicError(error, (err) => {
        metrics.unexpectedErrors.inc();
        logger.error({ err }, 'unexpected error');
      }),
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
      e = toPublicError(err, (x) => {
        metrics.unexpectedErrors.inc();
        logger.error({ err: x, requestId: res.locals.requestId }, 'unexpected error');
      });
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
    },
  };
}
