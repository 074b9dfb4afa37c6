import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Logger } from '../kernel/logger';
import { AREA_BASE } from '../rest/routes';
import type { Metrics } from './metrics';
import { chargeAnswer } from './answer-charge';
import { loggablePath } from './rpc-path';
import { pathOf, type Step } from './step';

/** Starts a request's bookkeeping once and returns its id (later calls return the same id). */
export type BeginRequest = (req: http.IncomingMessage, res: http.ServerResponse, path: string) => string;

/** The id the edge gave a request (X-Request-Id of its answer). */
export const requestIdOf = (res: http.ServerResponse): string => res.getHeader('x-request-id') as string;

/** Area label for metrics, bounded to a few values. */
function areaOf(path: string): string {
  if (path.startsWith('/graphql')) return 'graphql';
  if (path.startsWith('/rpc/')) return 'rpc';
  for (const [area, base] of Object.entries(AREA_BASE)) if (path.startsWith(base)) return area;
  return ['/healthz', '/readyz', '/metrics'].includes(path) ? 'ops' : 'other';
}

/**
 * Request id (the client's X-Request-Id when it is a plain token, else a new UUID), the request's
 * duration metric and its access log line.
 */
export function requestBookkeeping(metrics: Metrics, logger: Logger): BeginRequest {
  return (req, res, path) => {
    const begun = res.getHeader('x-request-id');
    if (typeof begun === 'string') return begun;
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      chargeAnswer(res);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequests.observe({ area: areaOf(path), method: req.method, status: res.statusCode }, seconds);
      logger.info(
        {
          requestId,
          method: req.method,
          path: loggablePath(path),
          status: res.statusCode,
          ms: Math.round(seconds * 1000),
        },
        'request',
      );
    });
    return requestId;
  };
}

/** Step: every request gets its id, metric and log line first, whichever path then serves it. */
export function withRequestId(begin: BeginRequest): Step {
  return (req, res, next) => {
    begin(req, res, pathOf(req));
    next();
  };
}
