import type http from 'node:http';

/**
 * Bytes of answers one turn writes at most before it leaves the rest to the next turn: fifty
 * clients answered in one turn with one 5.7 MB contract document held the event loop 170 ms
 * (docs/api.md, "Contracts": the documents are built once and served to every waiting client).
 */
const TURN_BYTES = 4 * 1024 * 1024;

/** An answer's bytes: text, bytes, or bytes in parts (a prebuilt document between its envelope's). */
export type AnswerBody = string | Buffer | readonly Buffer[];

/** Answers whose status and headers are set, waiting for the end of this turn of the event loop. */
let pending: Array<{ res: http.ServerResponse; body: AnswerBody }> = [];

const sizeOf = (body: AnswerBody): number =>
  typeof body === 'string'
    ? body.length
    : Buffer.isBuffer(body)
      ? body.byteLength
      : body.reduce((n, part) => n + part.byteLength, 0);

function end(res: http.ServerResponse, body: AnswerBody): void {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  // Parts go out in one write (the answer's Content-Length is set), not copied into one buffer first.
  res.cork();
  for (let i = 0; i < body.length - 1; i++) res.write(body[i]);
  res.end(body[body.length - 1]);
  res.uncork();
}

function flush(): void {
  const batch = pending;
  pending = [];
  let written = 0;
  let i = 0;
  for (; i < batch.length && written < TURN_BYTES; i++) {
    const { res, body } = batch[i]!;
    // An answer the connection no longer takes (closed by the client, or cut short) is dropped.
    if (res.writableEnded || res.destroyed) continue;
    end(res, body);
    written += sizeOf(body);
  }
  if (i < batch.length) {
    // Past the turn's bytes: the rest goes first in the next turn, before answers queued since.
    pending = batch.slice(i).concat(pending);
    setImmediate(flush);
  }
}

/**
 * Ends `res` with `body` once the requests read in this turn of the event loop have run (Node's
 * check phase, the same turn): answers go out together instead of one between each request read.
 * A socket write that wakes a waiting client costs several times one that finds it awake, so on a
 * loaded server each answer then costs less system time (BENCHMARKS.md, "Answers written
 * together"). One turn writes at most TURN_BYTES; large answers beyond go in the next turns.
 * Status and headers must be set already; nothing else may write to `res` after this.
 */
export function endTogether(res: http.ServerResponse, body: AnswerBody): void {
  if (pending.length === 0) setImmediate(flush);
  pending.push({ res, body });
}
