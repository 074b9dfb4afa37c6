/** Options of boundedFeed. */
export interface BoundedFeedOptions {
  /** Most items kept for a consumer that is not reading; one more ends the feed with `overflowError()`. */
  max: number;
  overflowError: () => Error;
  /** Called once when the feed ends, whichever way. */
  onEnd?: () => void;
}

type Waiter<T> = { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void };

/**
 * An async iterator that drains `source` at once into a queue of at most `max` items. A slow
 * consumer therefore never holds back the source (nor other consumers of it), and its memory is
 * bounded: when it falls `max` items behind it gets an error instead of a silent gap. `return()`
 * ends it at once, even while a `next()` is waiting.
 */
export function boundedFeed<T>(
  source: AsyncIterable<T>,
  opts: BoundedFeedOptions,
): AsyncIterableIterator<T> & {
  return(): Promise<IteratorResult<T>>;
  throw(e?: unknown): Promise<IteratorResult<T>>;
} {
  const iterator = source[Symbol.asyncIterator]();
  const queue: T[] = [];
  let waiter = null as Waiter<T> | null;
  /** The consumer's pending next(), if any, handed over once. */
  const takeWaiter = (): Waiter<T> | null => {
    const w = waiter;
    waiter = null;
    return w;
  };
  let failure: unknown = null;
  let ended = false;
  let closed = false;

  const close = () => {
    if (closed) return;
    closed = true;
    queue.length = 0;
    void iterator.return?.()?.catch(() => undefined);
    opts.onEnd?.();
  };

  /** The source has nothing more to give: wake a waiting consumer with the end or the error. */
  const endSource = (error: unknown) => {
    ended = true;
    failure = error;
    void iterator.return?.()?.catch(() => undefined);
    const w = takeWaiter();
    if (w) {
      if (failure !== null) {
        const e = failure;
        failure = null;
        close();
        w.reject(e);
      } else {
        close();
        w.resolve({ value: undefined, done: true });
      }
    }
  };

  void (async () => {
    try {
      for (;;) {
        const r = await iterator.next();
        if (closed) return;
        if (r.done) return endSource(null);
        const w = takeWaiter();
        if (w) {
          w.resolve({ value: r.value, done: false });
        } else if (queue.length >= opts.max) {
          queue.length = 0;
          return endSource(opts.overflowError());
        } else {
          queue.push(r.value);
        }
      }
    } catch (e) {
      if (!closed) endSource(e);
    }
  })();

  const feed = {
    next(): Promise<IteratorResult<T>> {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
      if (closed) return Promise.resolve({ value: undefined, done: true });
      if (ended) {
        const e = failure;
        failure = null;
        close();
        return e !== null ? Promise.reject(e) : Promise.resolve({ value: undefined, done: true });
      }
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        waiter = { resolve, reject };
      });
    },
    return(): Promise<IteratorResult<T>> {
      close();
      takeWaiter()?.resolve({ value: undefined, done: true });
      return Promise.resolve({ value: undefined, done: true });
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
