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
  /** Short reason of a failure, safe to store and show (no secrets, no body). */
  error: string | null;
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
        let read = 0;
        const ended = () =>
          finish({
            ok: status >= 200 && status < 300,
            status,
            error: status >= 200 && status < 300 ? null : `the receiver answered ${status}`,
          });
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_RESPONSE_BYTES) ended();
        });
        res.on('end', ended);
        res.on('error', () => finish({ ok: false, status, error: 'the answer was cut' }));
      },
    );
    const timer = setTimeout(
      () => finish({ ok: false, status: null, error: `no complete answer within ${DELIVERY_TIMEOUT_MS / 1000} s` }),
      DELIVERY_TIMEOUT_MS,
    );
    const onAbort = () => finish({ ok: false, status: null, error: 'aborted: the service is stopping' });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({ ok: false, status: null, error: `connection failed (${err.code ?? 'error'})` }),
    );
    req.end(body);
  });
}
