import { Writable } from 'node:stream';
import pino from 'pino';
import { startRedis, type TestRedis } from '../../tests/kit/redis';
import { AppError } from './errors/app-error';
import { createLimitStore, memoryLimitStore, type LimitStore } from './limit-store';
import { RequestLimit } from './rate-limit';

// docs/api.md, "Several instances": with REDIS_URL the per-second limits and WebSocket caps count
// across instances; while Redis is down each instance counts alone, with one warning.

/** A logger whose lines are kept, to see what was warned. */
function recordingLogger() {
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

async function outcomes(limit: RequestLimit, key: string, n: number): Promise<{ ok: number; limited: number }> {
  let ok = 0;
  let limited = 0;
  for (let i = 0; i < n; i++) {
    try {
      await limit.consume(key);
      ok++;
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== 'RATE_LIMITED') throw e;
      limited++;
    }
  }
  return { ok, limited };
}

describe('limit store', () => {
  let redis: TestRedis;
  const stores: LimitStore[] = [];
  const store = (url: string, logger = recordingLogger().logger) => {
    const s = createLimitStore(url, logger);
    stores.push(s);
    return s;
  };
  /** Until the store's client is connected (before, its limits count in memory). */
  const ready = async (s: LimitStore) => {
    for (let i = 0; i < 200 && !s.connected(); i++) await new Promise((r) => setTimeout(r, 25));
    if (!s.connected()) throw new Error('Redis client never became ready');
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await redis?.stop();
  });

  it('says where it counts', async () => {
    expect(memoryLimitStore().kind).toBe('memory');
    expect(createLimitStore(undefined, recordingLogger().logger).kind).toBe('memory');
    expect(store(redis.url).kind).toBe('redis');
  });

  it('counts one key over three instances: 10 of 30 requests in a second pass, with Retry-After', async () => {
    const three = [store(redis.url), store(redis.url), store(redis.url)];
    for (const s of three) await ready(s);
    const limits = three.map(
      (s) => new RequestLimit(10, 1, 'requests for this API key', { store: s, keyPrefix: 'key' }),
    );
    let ok = 0;
    let refused: AppError | undefined;
    for (let i = 0; i < 30; i++) {
      try {
        await limits[i % 3]!.consume('key-1');
        ok++;
      } catch (e) {
        refused = e as AppError;
      }
    }
    expect(ok).toBe(10);
    expect(refused?.code).toBe('RATE_LIMITED');
    expect(Number(refused?.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    // Another key has its own budget.
    expect((await outcomes(limits[0]!, 'key-2', 3)).ok).toBe(3);
  });

  it('caps WebSocket connections of one address over three instances, and gives slots back', async () => {
    const three = [store(redis.url), store(redis.url), store(redis.url)];
    for (const s of three) await ready(s);
    const caps = three.map((s) => s.connectionCap('graphql', 5));
    const held: Array<() => void> = [];
    let refused = 0;
    for (let i = 0; i < 15; i++) {
      const release = await caps[i % 3]!.acquire('203.0.113.7');
      if (release) held.push(release);
      else refused++;
    }
    expect(held).toHaveLength(5);
    expect(refused).toBe(10);
    // Another address is not counted with this one.
    expect(await caps[0]!.acquire('203.0.113.8')).toBeDefined();
    held.pop()!();
    // The slot given back on one instance is free for another (the release reaches Redis first).
    let again: (() => void) | undefined;
    for (let i = 0; i < 50 && !again; i++) {
      again = await caps[2]!.acquire('203.0.113.7');
      if (!again) await new Promise((r) => setTimeout(r, 20));
    }
    expect(again).toBeDefined();
    expect(await caps[1]!.acquire('203.0.113.7')).toBeUndefined();
  });

  it('counts in each instance alone while Redis is down, warns once, and counts together again after', async () => {
    const recorded = [recordingLogger(), recordingLogger()];
    const two = recorded.map((r) => store(redis.url, r.logger));
    for (const s of two) await ready(s);
    await redis.stop();
    try {
      const limits = two.map((s) => new RequestLimit(10, 1, 'anonymous requests', { store: s, keyPrefix: 'public' }));
      // Nothing is refused wrongly: each instance lets its own 10 through, not fewer.
      const a = await outcomes(limits[0]!, '198.51.100.9', 15);
      const b = await outcomes(limits[1]!, '198.51.100.9', 15);
      expect(a).toEqual({ ok: 10, limited: 5 });
      expect(b).toEqual({ ok: 10, limited: 5 });
      const caps = two.map((s) => s.connectionCap('rpc', 2));
      const slots = await Promise.all([0, 0, 0, 1, 1, 1].map((i) => caps[i]!.acquire('198.51.100.9')));
      expect(slots.map((s) => s !== undefined)).toEqual([true, true, false, true, true, false]);
      for (const r of recorded) {
        const warnings = r.lines.filter((l) => l.level === 40 && /Redis does not answer/.test(l.msg));
        expect(warnings).toHaveLength(1);
        // The URL (which may carry a password) is not in the log.
        expect(JSON.stringify(r.lines)).not.toContain(redis.url);
      }
    } finally {
      await redis.start();
    }
    for (const s of two) await ready(s);
    expect(recorded[0]!.lines.some((l) => /Redis answers again/.test(l.msg))).toBe(true);
  }, 30_000);

  it('answers within about a second while Redis hangs, counting in memory, and never refuses for it', async () => {
    const recorded = recordingLogger();
    const s = store(redis.url, recorded.logger);
    await ready(s);
    const limit = new RequestLimit(3, 1, 'anonymous requests', { store: s, keyPrefix: 'public' });
    redis.pause();
    try {
      const started = Date.now();
      const outcome = await outcomes(limit, '192.0.2.44', 5);
      // The first command waits out its 1 s timeout, then the connection is made again and the
      // instance's memory answers the others at once (measured: 1.03 s for the five).
      expect(outcome).toEqual({ ok: 3, limited: 2 });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(recorded.lines.filter((l) => /Redis does not answer/.test(l.msg))).toHaveLength(1);
    } finally {
      redis.resume();
    }
    await ready(s);
  }, 30_000);
});
