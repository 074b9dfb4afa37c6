import type http from 'node:http';

/** Answers whose status and headers are set, waiting for the end of this turn of the event loop. */
let pending: Array<{ res: http.ServerResponse; text: string }> = [];

function flush(): void {
  const batch = pending;
  pending = [];
  // An answer the connection no longer takes (closed by the client, or cut short) is dropped.
  for (const { res, text } of batch) if (!res.writableEnded && !res.destroyed) res.end(text);
}

/**
 * Ends `res` with `text` once the requests read in this turn of the event loop have run (Node's
 * check phase, the same turn): answers go out together instead of one between each request read.
 * A socket write that wakes a waiting client costs several times one that finds it awake, so on a
 * loaded server each answer then costs less system time (BENCHMARKS.md, "Answers written
 * together"). Status and headers must be set already; nothing else may write to `res` after this.
 */
export function endTogether(res: http.ServerResponse, text: string): void {
  if (pending.length === 0) setImmediate(flush);
  pending.push({ res, text });
}
