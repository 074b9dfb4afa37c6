/** Options of boundedQueue. */
export interface BoundedFeedOptions {
  /** Most items kept for a consumer that is not reading; one more ends the feed with `overflowError()`. */
  max: number;
  overflowError: () => Error;
  /** Called once when the consumer is done with the feed, whichever way. */
  onEnd?: () => void;
  /** Called once when the feed takes no more items (overflow, `return()`): its producer forgets it. */
  onStop?: () => void;
}

/** A consumer's queue, filled by its producer with `push`. */
export interface BoundedQueue<T> extends AsyncIterableIterator<T> {
  /** Hands `item` to the consumer: at once to a waiting `next()`, else queued; one past `max` ends the feed. */
  push(item: T): void;
  return(): Promise<IteratorResult<T>>;
  throw(e?: unknown): Promise<IteratorResult<T>>;
}

type Waiter<T> = { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void };

const DONE = Object.freeze({ value: undefined, done: true }) as IteratorResult<never>;

/**
 * An async iterator its producer pushes to, holding at most `max` items. A slow consumer therefore
 * never holds back the producer (nor other consumers of it), and its memory is bounded: when it
 * falls `max` items behind it gets an error instead of a silent gap. `return()` ends it at once,
 * even while a `next()` is waiting. Pushing is synchronous, so a producer with thousands of
 * consumers hands each item on without a promise per consumer.
 */
export function boundedQueue<T>(opts: BoundedFeedOptions): BoundedQueue<T> {
  const queue: T[] = [];
  let waiter: Waiter<T> | null = null;
  /** The error the consumer is told next (the overflow), once. */
  let failure: Error | null = null;
  /** No more items are taken. */
  let stopped = false;
  /** The consumer is done (told the end or the error, or returned). */
  let closed = false;

  const stop = () => {
    if (stopped) return;
    stopped = true;
    opts.onStop?.();
  };
  const close = () => {
    stop();
    if (closed) return;
    closed = true;
    queue.length = 0;
    opts.onEnd?.();
  };

  const feed: BoundedQueue<T> = {
    push(item: T) {
      if (stopped) return;
      const w = waiter;
      if (w) {
        waiter = null;
        w.resolve({ value: item, done: false });
      } else if (queue.length >= opts.max) {
        queue.length = 0;
        failure = opts.overflowError();
        stop();
      } else {
        queue.push(item);
      }
    },
    next(): Promise<IteratorResult<T>> {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
      if (closed) return Promise.resolve(DONE);
      if (failure !== null) {
        const e = failure;
        failure = null;
        close();
        return Promise.reject(e);
      }
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        waiter = { resolve, reject };
      });
    },
    return(): Promise<IteratorResult<T>> {
      close();
      const w = waiter;
      waiter = null;
      w?.resolve(DONE);
      return Promise.resolve(DONE);
    },
    throw(e?: unknown): Promise<IteratorResult<T>> {
      void feed.return();
      return Promise.reject(e);
    },
    [Symbol.asyncIterator]() {
      return feed;
    },
  };
  return feed;
}
