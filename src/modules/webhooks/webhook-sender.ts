import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import {
  hostOf,
  resolveTarget,
  systemResolver,
  TargetRefused,
  type Resolver,
  type TargetPolicy,
} from './webhook-target';

/** A receiver has this long for connect, headers and body together. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** At most this much of a receiver's answer is read, then dropped. */
const MAX_RESPONSE_BYTES = 4096;
export const USER_AGENT = 'qbft-devportal-webhooks/1.0';

/** What one POST to a receiver came to. */
export interface AttemptOutcome {
  ok: boolean;
  /** HTTP status of the answer; null when none came (refused, unreachable, timed out). */
  status: number | null;
  /**
   * Short reason of a failure, safe to store and show to the webhook's owner: no secret, and of the
   * receiver's answer only its first characters, control characters removed (see describeAnswer).
   */
  error: string | null;
}

/** Characters of a receiver's answer quoted in a failure's reason. */
export const QUOTED_ANSWER_CHARS = 200;

/**
 * `status 500: <the answer's first characters>`: control characters (C0, C1, DEL) and the
 * invisible format characters (bidi overrides, zero-width) become spaces, runs of spaces one, and
 * the text is cut to QUOTED_ANSWER_CHARS, so a receiver cannot forge lines or hide text in a log
 * or on a page.
 */
export function describeAnswer(status: number, head: Buffer): string {
  const text = head
    .toString('utf8')
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029\uFFFD]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const quoted = [...text].slice(0, QUOTED_ANSWER_CHARS).join('');
  return quoted ? `status ${status}: ${quoted}` : `status ${status}`;
}

/** A failed connection, in words (Node's error codes of sockets and DNS). */
export function describeConnectionError(code: string | undefined): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset by the receiver';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host does not resolve';
    default:
      return code && /^[A-Z_0-9]{1,40}$/.test(code) ? `connection failed (${code})` : 'connection failed';
  }
}

/**
 * POSTs one signed message. The host is resolved here and, under a strict policy, every address
 * is checked; the connection goes to the checked address (the socket's lookup is pinned to it), so
 * a DNS answer changed between check and connect cannot redirect it. Redirects are not followed.
 */
export async function postMessage(
  target: string,
  body: string,
  headers: Record<string, string>,
  policy: TargetPolicy,
  signal?: AbortSignal,
  resolve: Resolver = systemResolver,
): Promise<AttemptOutcome> {
  const url = new URL(target);
  const host = hostOf(url);
  let address: string;
  try {
    address = policy.allowPrivate
      ? ipaddr.isValid(host)
        ? host
        : ((await resolve(host))[0] ?? '')
      : (await resolveTarget(host, resolve))[0]!;
    if (!address) return { ok: false, status: null, error: `host ${host} has no address` };
  } catch (err) {
    return {
      ok: false,
      status: null,
      error: err instanceof TargetRefused ? err.message : `host ${host} does not resolve`,
    };
  }
  const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4;
  // Node may ask for one address or for all of them (happy eyeballs): either way, only the checked one.
  const pinned = ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptOutcome>((done) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      req.destroy();
      done(outcome);
    };
    const req = client.request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': USER_AGENT,
        },
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        let read = 0;
        // The first bytes of a failing answer are kept for its reason (4 bytes a character at most).
        const head: Buffer[] = [];
        let kept = 0;
        const ended = () => finish({ ok, status, error: ok ? null : describeAnswer(status, Buffer.concat(head)) });
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (!ok && kept < QUOTED_ANSWER_CHARS * 4) {
            const part = chunk.subarray(0, QUOTED_ANSWER_CHARS * 4 - kept);
            head.push(part);
            kept += part.length;
          }
          if (read >= MAX_RESPONSE_BYTES) ended();
        });
        res.on('end', ended);
        res.on('error', () => finish({ ok: false, status, error: `status ${status}: the answer was cut` }));
      },
    );
    const timer = setTimeout(
      () => finish({ ok: false, status: null, error: `timeout after ${DELIVERY_TIMEOUT_MS / 1000} s` }),
      DELIVERY_TIMEOUT_MS,
    );
    const onAbort = () => finish({ ok: false, status: null, error: 'aborted: the service is stopping' });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({ ok: false, status: null, error: describeConnectionError(err.code) }),
    );
    req.end(body);
  });
}
