/**
 * The status of a successful HTTP answer, decided here and nowhere else (docs/api.md,
 * "Conventions"): 201 for a POST, 200 for GET, PATCH and DELETE; 202 for a request accepted for
 * later (`Prefer: respond-async`: its transaction record queued, nothing sent yet; docs/api.md,
 * "Gateway" and "Contracts").
 */
export function successStatus(method: string): 200 | 201;
export function successStatus(method: string, accepted: boolean): 200 | 201 | 202;
export function successStatus(method: string, accepted = false): 200 | 201 | 202 {
  if (accepted) return 202;
  return method === 'POST' ? 201 : 200;
}

/** An answer accepted for later: the transaction record it names is still queued. */
export function isAccepted(answer: { status?: unknown }): boolean {
  return answer.status === 'queued';
}
