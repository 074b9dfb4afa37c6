import { AppError } from '../kernel/errors/app-error';
import { revocable } from './revocable-stream';

/** A feed that yields what is pushed to it and otherwise waits, as a subscription's does. */
function feed<T>() {
  const queue: T[] = [];
  let wake: (() => void) | undefined;
  let returned = false;
  async function* gen(): AsyncGenerator<T> {
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        await new Promise<void>((r) => (wake = r));
      }
    } finally {
      returned = true;
    }
  }
  return {
    source: gen(),
    push: (v: T) => {
      queue.push(v);
      wake?.();
    },
    returned: () => returned,
  };
}

describe('revocable', () => {
  it('rejects a waiting next() at once when revoked, hands on nothing more and stops the feed', async () => {
    const f = feed<number>();
    let revoke!: (e: AppError) => void;
    let unwatched = 0;
    const stream = revocable(f.source, (end) => {
      revoke = end;
      return () => (unwatched += 1);
    });
    f.push(1);
    expect(await stream.next()).toEqual({ value: 1, done: false });
    const waiting = stream.next();
    revoke(new AppError('INVALID_API_KEY', 'The API key was revoked'));
    await expect(waiting).rejects.toMatchObject({ code: 'INVALID_API_KEY', extensions: { code: 'INVALID_API_KEY' } });
    f.push(2);
    await expect(stream.next()).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    expect(stream.revokedError()?.code).toBe('INVALID_API_KEY');
    await new Promise((r) => setImmediate(r));
    expect(f.returned()).toBe(true);
    expect(unwatched).toBeGreaterThanOrEqual(1);
  });

  it('passes the feed through and stops watching when the client completes it', async () => {
    const f = feed<string>();
    let unwatched = 0;
    const stream = revocable(f.source, () => () => (unwatched += 1));
    f.push('a');
    expect(await stream.next()).toEqual({ value: 'a', done: false });
    expect(await stream.return(undefined)).toEqual({ value: undefined, done: true });
    expect(unwatched).toBe(1);
    expect(stream.revokedError()).toBeUndefined();
  });
});
