import WebSocket from 'ws';
import { client, type Client } from '../kit/http';
import { login } from '../kit/login';
import type { ServiceProcess } from '../kit/process';
import { startRedis, type TestRedis } from '../kit/redis';
import { logLines, newKey, startFaultEnv, type FaultEnv } from './fault-env';

// Three service processes with one Redis (docs/api.md, "Several instances"): a key's per-second
// limit, an address's anonymous limit and the WebSocket cap hold across them; with Redis down each
// instance counts alone, warns once, and refuses nothing it would not refuse alone.

const PUBLIC_LIMIT = 30;
const KEY_LIMIT = 30;
const WS_CAP = 6;
/** A contract id nobody has: the gateway counts the key's call, then answers 404. */
const NO_CONTRACT = '00000000-0000-4000-8000-000000000000';

let redis: TestRedis;
let env: FaultEnv;
let instances: ServiceProcess[];
let apis: Client[];
let address = 0;
/** A client address of its own for each burst (TRUST_PROXY is this machine). */
const freshAddress = () => `198.51.100.${++address}`;

beforeAll(async () => {
  redis = await startRedis();
  env = await startFaultEnv();
  const extra = {
    REDIS_URL: redis.url,
    TRUST_PROXY: '127.0.0.1',
    PUBLIC_RATE_LIMIT: String(PUBLIC_LIMIT),
    API_KEY_RATE_LIMIT: String(KEY_LIMIT),
    WS_CONNECTIONS_PER_IP: String(WS_CAP),
  };
  instances = await Promise.all([env.spawn(extra), env.spawn(extra), env.spawn(extra)]);
  apis = instances.map((p) => client(p.url));
}, 120_000);

afterAll(async () => {
  await env?.stop();
  await redis?.stop();
});

/**
 * `count` requests sent at once, spread over the three instances; their statuses, and whether all
 * were answered within one second (one window of a per-second limit).
 */
async function burst(
  count: number,
  send: (api: Client, i: number) => Promise<{ status: number; headers: Headers }>,
): Promise<{ admitted: number; limited: number; other: number[]; withinOneWindow: boolean; retryAfter: string[] }> {
  const started = Date.now();
  const results = await Promise.all(Array.from({ length: count }, (_, i) => send(apis[i % 3]!, i)));
  const withinOneWindow = Date.now() - started < 1000;
  const limited = results.filter((r) => r.status === 429);
  return {
    admitted: results.length - limited.length,
    limited: limited.length,
    other: results.map((r) => r.status).filter((s) => s !== 429),
    withinOneWindow,
    retryAfter: limited.map((r) => r.headers.get('retry-after') ?? ''),
  };
}

/** A burst tried again (a fresh key or address) until it fits in one window, at most 5 times. */
async function burstInOneWindow(
  count: number,
  send: (api: Client, i: number, attempt: number) => Promise<{ status: number; headers: Headers }>,
) {
  for (let attempt = 0; ; attempt++) {
    const outcome = await burst(count, (api, i) => send(api, i, attempt));
    if (outcome.withinOneWindow || attempt >= 4) return outcome;
  }
}

describe('three instances with one Redis', () => {
  it('say so in /readyz', async () => {
    for (const api of apis) {
      const ready = await api.get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.limits).toEqual({ store: 'redis' });
    }
  });

  it("hold an address's anonymous per-second limit across them (within 10%)", async () => {
    const outcome = await burstInOneWindow(PUBLIC_LIMIT * 3, async (api, _i, attempt) => {
      const from = `203.0.113.${attempt + 1}`;
      return api.get(`/api/devportal/contracts/${NO_CONTRACT}`, { headers: { 'x-forwarded-for': from } });
    });
    expect(outcome.withinOneWindow).toBe(true);
    // Per instance it would be 3 × 30 admitted; across them, 30 (and at most 10% more).
    expect(outcome.admitted).toBeGreaterThanOrEqual(PUBLIC_LIMIT);
    expect(outcome.admitted).toBeLessThanOrEqual(Math.floor(PUBLIC_LIMIT * 1.1));
    expect(new Set(outcome.other)).toEqual(new Set([404]));
    for (const r of outcome.retryAfter) expect(Number(r)).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it("hold an API key's per-second limit across them (within 10%)", async () => {
    const dev = await login(apis[0]!, env.ca);
    const keys = await Promise.all(Array.from({ length: 5 }, () => newKey(apis[1]!, dev)));
    // Let the developer's own budget (login, key creation) and the window of those requests pass.
    await new Promise((r) => setTimeout(r, 1100));
    const outcome = await burstInOneWindow(KEY_LIMIT * 3, (api, _i, attempt) =>
      api.post(`/api/devportal/contracts/${NO_CONTRACT}/invoke/increment`, {}, { apiKey: keys[attempt]!.apiKey }),
    );
    expect(outcome.withinOneWindow).toBe(true);
    expect(outcome.admitted).toBeGreaterThanOrEqual(KEY_LIMIT);
    expect(outcome.admitted).toBeLessThanOrEqual(Math.floor(KEY_LIMIT * 1.1));
    expect(new Set(outcome.other)).toEqual(new Set([404]));
  }, 60_000);

  it('hold the WebSocket connection cap of an address across them, and free a slot on close', async () => {
    const from = freshAddress();
    const sockets: WebSocket[] = [];
    const open = (api: number) =>
      new Promise<{ ok: boolean; status?: number }>((resolve) => {
        const url = `${instances[api]!.url.replace(/^http/, 'ws')}/graphql`;
        const socket = new WebSocket(url, 'graphql-transport-ws', { headers: { 'x-forwarded-for': from } });
        socket.once('open', () => {
          sockets.push(socket);
          resolve({ ok: true });
        });
        socket.once('unexpected-response', (_req, res) => resolve({ ok: false, status: res.statusCode }));
        socket.once('error', () => resolve({ ok: false }));
      });
    try {
      const results = await Promise.all(Array.from({ length: WS_CAP * 3 }, (_, i) => open(i % 3)));
      expect(results.filter((r) => r.ok)).toHaveLength(WS_CAP);
      expect(results.filter((r) => !r.ok).map((r) => r.status)).toEqual(Array(WS_CAP * 2).fill(429));
      // One closed on an instance: a connection on another instance is let in, and only one.
      const closed = new Promise((r) => sockets[0]!.once('close', r));
      sockets.shift()!.close();
      await closed;
      let again: { ok: boolean } = { ok: false };
      for (let i = 0; i < 50 && !again.ok; i++) {
        again = await open(2);
        if (!again.ok) await new Promise((r) => setTimeout(r, 50));
      }
      expect(again.ok).toBe(true);
      expect((await open(1)).status).toBe(429);
    } finally {
      for (const s of sockets) s.terminate();
    }
  }, 60_000);

  it('count per instance while Redis is down: each lets its own limit through, and each warns once per outage', async () => {
    await redis.stop();
    // Each instance learns it lost Redis (the connection closes): give them a moment.
    await new Promise((r) => setTimeout(r, 500));
    // 4 × 30 requests of one address: each instance admits its own 30 (nothing refused wrongly),
    // and still refuses the rest.
    const outcome = await burstInOneWindow(PUBLIC_LIMIT * 4, (api, _i, attempt) =>
      api.get(`/api/devportal/contracts/${NO_CONTRACT}`, { headers: { 'x-forwarded-for': `10.9.${attempt}.1` } }),
    );
    expect(outcome.withinOneWindow).toBe(true);
    expect(outcome.admitted).toBe(PUBLIC_LIMIT * 3);
    expect(outcome.limited).toBe(PUBLIC_LIMIT);
    expect(new Set(outcome.other)).toEqual(new Set([404]));
    for (const p of instances) {
      // One warning per outage: a Redis slow to exit may answer once more before it is gone, and
      // then says so ("answers again") before the next warning.
      const states = logLines(p.output())
        .filter((l) => /Redis does not answer|Redis answers again/.test(l.msg))
        .map((l) => (l.level === 40 ? 'down' : 'up'));
      expect(states[0]).toBe('down');
      expect(states[states.length - 1]).toBe('down');
      for (let i = 1; i < states.length; i++) expect(states[i]).not.toBe(states[i - 1]);
      expect(p.output()).not.toContain(redis.url);
      expect((await client(p.url).get('/readyz')).body).toMatchObject({ ready: true, limits: { store: 'redis' } });
    }
  }, 60_000);
});
