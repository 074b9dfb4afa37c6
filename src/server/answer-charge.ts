import type http from 'node:http';
import type { RequestLimit } from '../kernel/rate-limit';

/**
 * Bytes of answer a request's one point pays for: each further 64 KiB, or part of it, costs one
 * point more, charged once the answer is sent (docs/api.md, "Conventions": size-aware charging).
 */
export const ANSWER_BYTES_PER_POINT = 64 * 1024;

/** Points beyond the request's own one that an answer of `bytes` costs. */
export function answerSurcharge(bytes: number): number {
  return bytes > ANSWER_BYTES_PER_POINT ? Math.ceil(bytes / ANSWER_BYTES_PER_POINT) - 1 : 0;
}

/** The budget a request was charged to, kept on its response until the answer is sent. */
const CHARGED = Symbol('charged budget');
type Charged = http.ServerResponse & { [CHARGED]?: { limit: RequestLimit; key: string } };

/** Remembers which budget paid for the request (the limits step), for its answer's surcharge. */
export function rememberCharge(res: http.ServerResponse, limit: RequestLimit, key: string): void {
  (res as Charged)[CHARGED] = { limit, key };
}

/**
 * Charges a sent answer's surcharge to the budget that paid for its request. Called from the one
 * `finish` listener every request already has (the access log's), so that the charge adds no
 * listener per request.
 */
export function chargeAnswer(res: http.ServerResponse): void {
  const charged = (res as Charged)[CHARGED];
  if (!charged) return;
  const surcharge = answerSurcharge(Number(res.getHeader('content-length')) || 0);
  // The memory limiter cannot fail; a shared one that does leaves the answer uncharged.
  if (surcharge > 0) charged.limit.charge(charged.key, surcharge).catch(() => undefined);
}
