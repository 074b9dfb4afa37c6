import type { AppError } from '../kernel/errors/app-error';

/**
 * An error that ends a subscription: graphql-ws keeps only a thrown error's message and
 * `extensions`, so the code goes there.
 */
function asStreamError(err: AppError): AppError {
  return Object.assign(err, { extensions: { code: err.code, ...(err.details ? { details: err.details } : {}) } });
}

/**
 * `source` ended at once when `watch` reports its credential revoked (docs/api.md, "Subscriptions
 * and revocation"): a pending `next()` rejects with the error (graphql-ws sends it as the
 * operation's `error` message), nothing from the source is handed on after it, and the source is
 * returned so that its feed stops reading. `revokedError()` tells the last step before sending
 * whether the stream was revoked meanwhile.
 */
export function revocable<T>(
  source: AsyncGenerator<T>,
  watch: (end: (err: AppError) => void) => () => void,
): AsyncGenerator<T> & { revokedError(): AppError | undefined } {
  let revoked: AppError | undefined;
  let interrupt: ((err: AppError) => void) | undefined;
  const unwatch = watch((err) => {
    revoked = asStreamError(err);
    interrupt?.(revoked);
    void source.return(undefined).catch(() => undefined);
  });
  const stream = {
    async next(): Promise<IteratorResult<T>> {
      if (revoked) {
        unwatch();
        throw revoked;
      }
      try {
        const result = await new Promise<IteratorResult<T>>((resolve, reject) => {
          interrupt = reject;
          source.next().then(resolve, reject);
        });
        if (revoked) throw revoked;
        if (result.done) unwatch();
        return result;
      } catch (err) {
        unwatch();
        throw err;
      } finally {
        interrupt = undefined;
      }
    },
    async return(value?: unknown): Promise<IteratorResult<T>> {
      unwatch();
      return source.return(value as T);
    },
    async throw(err?: unknown): Promise<IteratorResult<T>> {
      unwatch();
      return source.throw(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
    revokedError: () => revoked,
  };
  return stream as unknown as AsyncGenerator<T> & { revokedError(): AppError | undefined };
}
