import { boundedQueue } from './bounded-feed';

const tick = () => new Promise((r) => setImmediate(r));

describe('boundedQueue', () => {
  it('delivers items in order to a waiting and to a lagging consumer', async () => {
    const feed = boundedQueue<number>({ max: 10, overflowError: () => new Error('slow') });
    const first = feed.next();
    feed.push(1);
    expect(await first).toEqual({ value: 1, done: false });
    feed.push(2);
    feed.push(3);
    expect(await feed.next()).toEqual({ value: 2, done: false });
    expect(await feed.next()).toEqual({ value: 3, done: false });
    await feed.return();
  });

  it('ends a consumer that falls more than max items behind with an error, and frees its producer', async () => {
    let ended = 0;
    let stopped = 0;
    const feed = boundedQueue<number>({
      max: 3,
      overflowError: () => new Error('too slow'),
      onEnd: () => ended++,
      onStop: () => stopped++,
    });
    for (let i = 0; i < 5; i++) feed.push(i);
    expect(stopped).toBe(1);
    await expect(feed.next()).rejects.toThrow('too slow');
    expect(await feed.next()).toEqual({ value: undefined, done: true });
    feed.push(9);
    expect(await feed.next()).toEqual({ value: undefined, done: true });
    expect(ended).toBe(1);
    expect(stopped).toBe(1);
  });

  it('return() ends a pending next() at once and frees its producer', async () => {
    let ended = 0;
    let stopped = 0;
    const feed = boundedQueue<number>({
      max: 3,
      overflowError: () => new Error('slow'),
      onEnd: () => ended++,
      onStop: () => stopped++,
    });
    const pending = feed.next();
    await feed.return();
    expect(await pending).toEqual({ value: undefined, done: true });
    await tick();
    feed.push(1);
    expect(await feed.next()).toEqual({ value: undefined, done: true });
    expect(ended).toBe(1);
    expect(stopped).toBe(1);
  });
});
