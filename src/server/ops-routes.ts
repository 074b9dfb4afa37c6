import http from 'node:http';
import express from 'express';
import type { PublicError } from '../kernel/errors/error-map';
import type { ErrorFaces } from './error-faces';
import { hasMetricsToken } from './edge';
import type { Metrics } from './metrics';
import { pathOf } from './step';

export interface ReadinessReport {
  ready: boolean;
  database: { ready: boolean };
  /** Where the per-second limits and WebSocket caps count: across instances (Redis) or per instance. */
  limits: { store: 'redis' | 'memory' };
  /** WEB_CONCURRENCY: which worker answered (0: no workers) and whether it runs the background work. */
  worker: { id: number; backgroundWork: boolean };
  networks: Record<
    string,
    { healthy: boolean; chainId: number; latencyMs: number | null; error?: string; explorerIndexHalted?: string }
  >;
}

export interface OpsOptions {
  metrics: Metrics;
  readiness: () => Promise<ReadinessReport>;
  /** METRICS_TOKEN: /metrics wants it as a bearer token. METRICS_PORT: /metrics is served there instead. */
  metricsToken?: string;
  metricsPort?: number;
  /** In production with neither METRICS_TOKEN nor METRICS_PORT: /metrics answers loopback clients only. */
  metricsLoopbackOnly?: boolean;
  /** Whether the request comes from this machine (edge.ts, isLoopbackClient). */
  isLoopbackClient: (req: http.IncomingMessage) => boolean;
  errors: ErrorFaces;
}

async function serveMetrics(metrics: Metrics, errors: ErrorFaces, res: http.ServerResponse): Promise<void> {
  let text: string;
  try {
    text = await metrics.instanceText();
  } catch {
    // WEB_CONCURRENCY > 1 and the primary did not answer in time.
    errors.http(res, { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'The instance metrics are not available' });
    return;
  }
  res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  res.end(text);
}

/** Routes (express): /healthz, /readyz and /metrics (never rate limited: see with-limits.ts). */
export function opsRoutes(opts: OpsOptions): express.Router {
  const { metrics, metricsToken, metricsPort, errors } = opts;
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const report = await opts.readiness();
    res.status(report.ready ? 200 : 503).json(report);
  });
  router.get('/metrics', async (req, res) => {
    // docs/api.md, "Operations": the token, else the metrics port, else (production) loopback clients only.
    if (metricsToken === undefined && metricsPort === undefined && opts.metricsLoopbackOnly) {
      if (!opts.isLoopbackClient(req)) {
        errors.http(res, { status: 404, code: 'NOT_FOUND', message: 'The metrics are served to this machine only' });
        return;
      }
    } else if (metricsToken ? !hasMetricsToken(req, metricsToken) : metricsPort !== undefined) {
      res.setHeader('www-authenticate', 'Bearer');
      const e: PublicError = metricsToken
        ? { status: 401, code: 'UNAUTHENTICATED', message: 'The metrics need Authorization: Bearer <METRICS_TOKEN>' }
        : { status: 404, code: 'NOT_FOUND', message: 'The metrics are served on METRICS_PORT' };
      errors.http(res, e);
      return;
    }
    await serveMetrics(metrics, errors, res);
  });
  return router;
}

/** METRICS_PORT: the metrics alone, on a port kept off the public network. */
export async function startMetricsServer(opts: OpsOptions & { host: string; port: number }): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && pathOf(req) === '/metrics') {
      serveMetrics(opts.metrics, opts.errors, res).catch(() => res.destroy());
      return;
    }
    opts.errors.http(res, { status: 404, code: 'NOT_FOUND', message: 'Only GET /metrics here' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return server;
}
