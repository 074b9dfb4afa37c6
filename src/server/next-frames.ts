import type { ExecutionResult, FormattedExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';

/** Each shared payload's JSON, made once for every subscriber that is sent it. */
const payloadTexts = new WeakMap<object, string>();

/** `payload`'s JSON; the same object, handed to many subscribers, is serialised once. */
export function payloadJson(payload: FormattedExecutionResult): string {
  let text = payloadTexts.get(payload);
  if (text === undefined) {
    text = JSON.stringify(payload);
    payloadTexts.set(payload, text);
  }
  return text;
}

/**
 * graphql-ws's `next` message for subscription `id` around a payload's JSON: the same bytes as
 * graphql-ws's own `JSON.stringify({ id, type: 'next', payload })`.
 */
export function nextFrame(id: string, payload: string): string {
  return `{"id":${JSON.stringify(id)},"type":"next","payload":${payload}}`;
}

/** Writes a frame as graphql-ws's ws adapter does: nothing once the socket is not open, else settled when written. */
export function sendFrame(socket: WebSocket, frame: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.readyState !== socket.OPEN) return resolve();
    socket.send(frame, (err) => (err ? reject(err) : resolve()));
  });
}

const DONE: IteratorResult<ExecutionResult> = { value: undefined, done: true };

/**
 * A shared subscription's stream as graphql-ws is handed it: each result of `source` goes straight
 * to the socket as its `next` message (`prepare` gives the payload, or throws to end the
 * subscription, as graphql-ws's `onNext` would), the payload serialised once for all subscribers
 * of the same result, without graphql-ws's per-message chain. The stream itself yields nothing:
 * its one `next()` settles when `source` ends (graphql-ws then sends `complete`) or fails (graphql-ws
 * sends `error`); `return()` (the client's `complete`, the socket's close) ends `source` and sends
 * nothing more. As in graphql-ws, the next result is read only once the last frame is written, so
 * a subscriber that does not read falls behind in its own feed's bounded queue.
 */
export function directNext(
  source: AsyncGenerator<ExecutionResult>,
  send: (frame: string) => Promise<void>,
  id: string,
  prepare: (result: ExecutionResult) => FormattedExecutionResult,
): AsyncGenerator<ExecutionResult> {
  let ended = false;
  const run = async (): Promise<IteratorResult<ExecutionResult>> => {
    try {
      for (;;) {
        const r = await source.next();
        if (r.done || ended) return DONE;
        try {
          await send(nextFrame(id, payloadJson(prepare(r.value))));
        } catch (err) {
          // As graphql-ws's loop does when a send fails: the source is returned, then the error reported.
          await source.return(undefined).catch(() => undefined);
          throw err;
        }
      }
    } finally {
      ended = true;
    }
  };
  let running: Promise<IteratorResult<ExecutionResult>> | undefined;
  const stream: AsyncGenerator<ExecutionResult> = {
    next: () => (ended ? Promise.resolve(DONE) : (running ??= run())),
    async return() {
      ended = true;
      await source.return(undefined);
      return DONE;
    },
    async throw(err: unknown) {
      ended = true;
      await source.return(undefined);
      throw err;
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
    async [Symbol.asyncDispose]() {
      await stream.return(undefined);
    },
  };
  return stream;
}
