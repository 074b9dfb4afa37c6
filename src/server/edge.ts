import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import cors from 'cors';
import helmet from 'helmet';
import proxyAddr from 'proxy-addr';

type Next = (err?: unknown) => void;
type Middleware = (req: http.IncomingMessage, res: http.ServerResponse, next: Next) => void;

/**
 * The client's address: the socket's peer, or with TRUST_PROXY the address X-Forwarded-For names
 * behind the trusted proxies (proxy-addr, as express reads it): `true` trusts every hop, a number
 * that many hops, anything else a comma-separated list of addresses, subnets or proxy-addr's names.
 */
export function clientAddressOf(trustProxy: string | undefined): (req: http.IncomingMessage) => string {
  let trust: (addr: string, i: number) => boolean;
  if (trustProxy === undefined || trustProxy === 'false') trust = () => false;
  else if (trustProxy === 'true') trust = () => true;
  else if (/^\d+$/.test(trustProxy)) {
    const hops = Number(trustProxy);
    trust = (_addr, i) => i < hops;
  } else {
    trust = proxyAddr.compile(
      trustProxy
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }
  return (req) => proxyAddr(req, trust) || 'unknown';
}

/** Request headers a browser app may send (API.md §1), and response headers it may read. */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'x-api-key',
  'idempotency-key',
  'prefer',
  'x-request-id',
  'apollo-require-preflight',
];
const EXPOSED_HEADERS = ['Retry-After', 'X-Request-Id', 'X-Block-Number'];
/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Headers of every response: CORS (the `cors` package; preflights answered 204 here), helmet's
 * hygiene headers (nosniff among them; no CSP, which the GraphiQL and docs pages would trip on),
 * and `Cache-Control: no-store` on answers that may hold a secret: any request with credentials,
 * and any write (a login or a key creation holds a token or a key).
 */
export function responseHygiene(corsOrigins: string[] | undefined): Middleware {
  const corsMiddleware = cors({
    origin: corsOrigins && corsOrigins.length > 0 ? corsOrigins : '*',
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    credentials: false,
    optionsSuccessStatus: 204,
  }) as unknown as Middleware;
  const helmetMiddleware = helmet({
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: false,
    strictTransportSecurity: false,
  }) as unknown as Middleware;
  const full: Middleware = (req, res, next) => {
    helmetMiddleware(req, res, () => {
      noStoreWhenDue(req, res);
      corsMiddleware(req, res, next);
    });
  };
  // What helmet and cors write on a request that sends no Origin and is not a preflight depends on
  // nothing in the request: their answer to one such request, kept, is replayed on the others
  // (about 30 µs a request less than running both middleware chains each time).
  const plain = recordHeaders(full);
  return (req, res, next) => {
    if (req.method === 'OPTIONS' || req.headers.origin !== undefined) return full(req, res, next);
    for (const [name, value] of plain) res.setHeader(name, value);
    noStoreWhenDue(req, res);
    next();
  };
}

/** `Cache-Control: no-store` on answers that may hold a secret (credentials sent, or a write). */
function noStoreWhenDue(req: http.IncomingMessage, res: http.ServerResponse): void {
  const credentials = req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined;
  if (credentials || (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS')) {
    res.setHeader('cache-control', 'no-store');
  }
}

/** The headers `middleware` writes for a GET without Origin or credentials, as name/value pairs. */
function recordHeaders(middleware: Middleware): Array<[string, string | number | string[]]> {
  const written = new Map<string, string | number | string[]>();
  const res = {
    statusCode: 200,
    setHeader: (name: string, value: string | number | string[]) => written.set(name.toLowerCase(), value),
    getHeader: (name: string) => written.get(name.toLowerCase()),
    removeHeader: (name: string) => written.delete(name.toLowerCase()),
    end: () => {
      throw new Error('the hygiene middleware ended a plain GET');
    },
  };
  const req = { method: 'GET', url: '/', headers: {} };
  let passed = false;
  middleware(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse, () => {
    passed = true;
  });
  if (!passed) throw new Error('the hygiene middleware did not pass a plain GET on synchronously');
  return [...written];
}

/** Whether a request presents METRICS_TOKEN as its bearer token (constant time). */
export function hasMetricsToken(req: http.IncomingMessage, token: string): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!presented) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(token));
}
