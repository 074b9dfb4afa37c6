import type { IncomingHttpHeaders } from 'node:http';

/** Credentials as presented; each domain service decides which it needs and checks them. */
export interface Credentials {
  /** Token from `Authorization: Bearer ...` (a JWT, or an API key starting with `svc_`). */
  bearer?: string;
  /** Key from the `x-api-key` header. */
  apiKey?: string;
  /** An Authorization header was sent but is not of the form `Bearer <token>`. */
  malformedAuthorization?: boolean;
  /**
   * The developer whose request budget (DEVELOPER_RATE_LIMIT) the HTTP edge already charged for
   * this request, so that the service that checks the credentials does not charge it twice.
   */
  chargedTo?: string;
  /**
   * A check again of credentials already admitted (a subscription's notifications, its periodic
   * re-check): not a request, so no request budget is charged for it.
   */
  recheck?: true;
  /**
   * The sha256 of the request's API key, once the key service has computed it: the edge's charge
   * and the key check both need it, and a second hash per request costs more than keeping it here.
   */
  apiKeyHash?: string;
  /** The `Origin` header (of the WebSocket upgrade for subscriptions): keys restricted to origins check it. */
  origin?: string;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Reads credentials from Node's HTTP headers (names already lower case). */
export function credentialsFromHttpHeaders(headers: IncomingHttpHeaders | Record<string, unknown>): Credentials {
  const auth = first(headers['authorization'] as string | string[] | undefined);
  const apiKey = first(headers['x-api-key'] as string | string[] | undefined);
  const match = typeof auth === 'string' ? BEARER.exec(auth) : null;
  const origin = first(headers['origin'] as string | string[] | undefined);
  return {
    origin: typeof origin === 'string' ? origin : undefined,
    bearer: match?.[1],
    malformedAuthorization: typeof auth === 'string' && auth.trim() !== '' && !match,
    apiKey: typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : undefined,
  };
}

/**
 * Reads credentials from graphql-ws connectionParams: the same names as HTTP headers, any letter
 * case. The origin is the WebSocket upgrade's `Origin` header (what a browser sets), never a parameter.
 */
export function credentialsFrom(params: Record<string, unknown>, upgradeOrigin?: string | string[]): Credentials {
  const lower: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) lower[k.toLowerCase()] = v;
  return { ...credentialsFromHttpHeaders(lower), origin: first(upgradeOrigin) };
}

/** The API key a request presents: `x-api-key`, or a Bearer token of the key format (`svc_...`). */
export function apiKeyOf(creds: Credentials): string | undefined {
  return creds.apiKey ?? (creds.bearer?.startsWith('svc_') ? creds.bearer : undefined);
}
