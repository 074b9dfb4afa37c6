import { boundedFeed } from './bounded-feed';

/** A source whose items are pushed by the test; `stopped()` tells whether return() was called. */
function pushSource<T>() {
  const items: T[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  let stopped = false;
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      while (items.length === 0 && !ended && !stopped) await new Promise<void>((r) => (wake = r));
      if (items.length > 0) return { value: items.shift()!, done: false };
      return { value: undefined, done: true };
    },
    async return() {
      stopped = true;
      wake?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return {
    source: iterator,
    push: (v: T) => {
      items.push(v);
      wake?.();
    },
    stop: () => {
      ended = true;
      wake?.();
    },
    stopped: () => stopped,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('boundedFeed', () => {
  it('delivers items in order to a waiting and to a lagging consumer', async () => {
    const s = pushSource<number>();
    const feed = boundedFeed(s.source, { max: 10, overflowError: () => new Error('slow') });
    const first = feed.next();
    await tick();
    s.push(1);
    expect(await first).toEqual({ value: 1, done: false });
    s.push(2);
    s.push(3);
    await tick();
    expect(await feed.next()).toEqual({ value: 2, done: false });
    expect(await feed.next()).toEqual({ value: 3, done: false });
    await feed.return();
  });

  it('ends a consumer that falls more than max items behind with an error, and frees the source', async () => {
    const s = pushSource<number>();
    let ended = 0;
    const feed = boundedFeed(s.source, { max: 3, overflowError: () => new Error('too slow'), onEnd: () => ended++ });
    await tick();
    for (let i = 0; i < 5; i++) s.push(i);
    await tick();
    await tick();
    expect(s.stopped()).toBe(true);
    await expect(feed.next()).rejects.toThrow('too slow');
    expect(await feed.next()).toEqual({ value: undefined, done: true });
    expect(ended).toBe(1);
  });

  it('return() ends a pending next() at once and stops the source', async () => {
    const s = pushSource<number>();
    let ended = 0;
    const feed = boundedFeed(s.source, { max: 3, overflowError: () => new Error('slow'), onEnd: () => ended++ });
    const pending = feed.next();
    await feed.return();
    expect(await pending).toEqual({ value: undefined, done: true });
    await tick();
    expect(s.stopped()).toBe(true);
    expect(ended).toBe(1);
  });

  it('passes on the end of the source', async () => {
    const s = pushSource<number>();
    const feed = boundedFeed(s.source, { max: 3, overflowError: () => new Error('slow') });
    const pending = feed.next();
    await tick();
    s.stop();
    expect(await pending).toEqual({ value: undefined, done: true });
  });
});
