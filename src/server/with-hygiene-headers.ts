import type http from 'node:http';
import cors from 'cors';
import helmet from 'helmet';
import type { Step } from './step';

/** Request headers a browser app may send (docs/api.md, "Conventions"), and response headers it may read. */
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
 * What every answer carries (SECURITY.md, "Response headers"): what an API answer needs by the
 * OWASP REST Security cheat sheet, `X-Content-Type-Options: nosniff` and `X-Frame-Options: DENY`.
 * The rest of helmet's set protects a browser page and is written by `pageHeaders` on the HTML
 * documents alone.
 */
const apiHeaders = (): Step =>
  helmet({
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    strictTransportSecurity: false,
    xContentTypeOptions: true,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });

/**
 * helmet's headers for the HTML documents (the start page, GraphiQL, /docs): frame, referrer,
 * opener and the others a page in a browser needs. No CSP (GraphiQL and Swagger UI would trip on
 * one), no CORP/COEP (the documents load only this service's own assets), no HSTS (TLS ends at
 * the proxy in front).
 */
export const pageHeaders = (): Step =>
  helmet({
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: false,
    strictTransportSecurity: false,
  });

/**
 * Step: the headers of every response. CORS (the `cors` package; preflights answered 204 here),
 * the API's hygiene headers (helmet), and `Cache-Control: no-store` on answers that may hold a
 * secret: any request with credentials, and any write (a login or a key creation holds a token
 * or a key).
 */
export function withHygieneHeaders(corsOrigins: string[] | undefined): Step {
  const corsMiddleware = cors({
    origin: corsOrigins && corsOrigins.length > 0 ? corsOrigins : '*',
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    credentials: false,
    optionsSuccessStatus: 204,
  }) as unknown as Step;
  const helmetMiddleware = apiHeaders();
  const full: Step = (req, res, next) => {
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
function recordHeaders(middleware: Step): Array<[string, string | number | string[]]> {
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
