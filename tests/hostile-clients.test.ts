/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { client, type Client } from './kit/http';
import { newKey } from './kit/flows';
import { login, type LoggedIn } from './kit/login';
import { freePort } from './kit/process';
import { startStack, type Stack } from './kit/stack';

/**
 * docs/api.md, "Conventions", §1a and §11 as a hostile client tries them: each attack here stopped or slowed the
 * whole service before these limits.
 */

const ADDRESS = '0x00000000000000000000000000000000000000aa';

/** Opens a graphql-ws connection by hand (the protocol's messages, no client library in between). */
async function openGraphqlWs(url: string): Promise<{ socket: WebSocket; messages: any[]; closed: Promise<number> }> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  const messages: any[] = [];
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
  await until(() => messages.some((m) => m.type === 'connection_ack'));
  return { socket, messages, closed };
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('hostile clients, default limits', () => {
  let stack: Stack;
  let api: Client;
  let dev: LoggedIn;

  beforeAll(async () => {
    stack = await startStack({ METRICS_TOKEN: 'metrics-token-for-tests-0123456789' });
    api = client(stack.url);
    dev = await login(api, stack.ca);
  }, 120_000);
  afterAll(() => stack?.stop());

  it('answers a 352 KB __typename flood within 1 s with an error, while /healthz stays under 100 ms', async () => {
    const flood = `{ ${'__typename '.repeat(32_000)}}`;
    expect(flood.length).toBeGreaterThan(350_000);
    // Test client and service share this process and this machine's cores: what counts is how much
    // slower /healthz is next to the flood than alone, in the median of rounds after a warm-up one.
    const probe = async () => {
      const t = performance.now();
      const res = await api.get('/healthz');
      expect(res.status).toBe(200);
      return performance.now() - t;
    };
    const rounds: Array<{ total: number; delay: number }> = [];
    for (let round = 0; round < 6; round++) {
      const alone = await probe();
      const started = performance.now();
      const [res, beside] = await Promise.all([api.graphql(flood), probe()]);
      rounds.push({ total: performance.now() - started, delay: beside - alone });
      expect(res.status).toBe(200);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
      expect(res.body.errors[0].message).toMatch(/10000 tokens/);
      expect(res.body.errors[0].extensions.requestId).toBe(res.headers.get('x-request-id'));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const measured = rounds.slice(1);
    expect(Math.max(...measured.map((r) => r.total))).toBeLessThan(1000);
    expect(median(measured.map((r) => r.delay))).toBeLessThan(100);
  });

  it('refuses a document of more than 10,000 nodes (fragments) instead of skipping its cost', async () => {
    const numbers = Array.from({ length: 100 }, () => 'number').join(' ');
    const nested = Array.from({ length: 100 }, () => 'blocks { ...B0 }').join(' ');
    const res = await api.graphql(
      `{ liveBlocks { ...B1 } } fragment B0 on BlockSummary { ${numbers} } fragment B1 on LiveBlocks { ${nested} }`,
    );
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors[0].message).toMatch(/cannot be measured/);
  });

  it('refuses 100 aliased address scans (one document may read about 5,000 blocks at most)', async () => {
    const scans = Array.from(
      { length: 100 },
      (_, i) => `a${i}: address(address: "${ADDRESS}", network: testnet, scan: 5000) { __typename }`,
    ).join(' ');
    const started = performance.now();
    const res = await api.graphql(`{ ${scans} }`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors[0].message).toMatch(/blocks/);
    // The REST face measures the same field the same way.
    const rest = await api.get(`/api/explorer/address/${ADDRESS}?network=testnet&scan=5000`);
    expect(rest.status).toBe(200);
  });

  it('measures bodies after decompression: a small gzip upload inflating past 1 MiB is 413', async () => {
    const inflated = JSON.stringify({ query: `{ ${'__typename '.repeat(200_000)}}` });
    const gz = gzipSync(inflated);
    expect(gz.length).toBeLessThan(20_000);
    for (const path of ['/graphql', '/api/devportal/contracts/compile']) {
      const res = await fetch(`${stack.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gz,
      });
      expect(res.status).toBe(413);
      // GraphQL's error body on /graphql, REST's elsewhere.
      const body = (await res.json()) as any;
      expect(path === '/graphql' ? body.errors[0].extensions.code : body.error.code).toBe('PAYLOAD_TOO_LARGE');
    }
  });

  it('closes a WebSocket that sends a 2 MiB message (1009)', async () => {
    const { socket, closed } = await openGraphqlWs(stack.url);
    socket.send(
      JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `{ ${'x'.repeat(2 * 1024 * 1024)} }` } }),
    );
    expect(await closed).toBe(1009);
  });

  it('refuses the 101st subscription on one connection with RATE_LIMITED', async () => {
    const { socket, messages } = await openGraphqlWs(stack.url);
    for (let i = 1; i <= 101; i++) {
      socket.send(
        JSON.stringify({
          id: String(i),
          type: 'subscribe',
          payload: { query: 'subscription { liveBlocks(network: testnet) { number } }' },
        }),
      );
    }
    await until(() => messages.some((m) => m.type === 'error'));
    const errors = messages.filter((m) => m.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].id).toBe('101');
    expect(errors[0].payload[0].extensions.code).toBe('RATE_LIMITED');
    socket.close();
  });

  it('answers CORS preflights from a foreign origin on /graphql, devportal and explorer paths', async () => {
    for (const [path, method] of [
      ['/graphql', 'POST'],
      ['/api/devportal/contracts/compile', 'POST'],
      ['/api/devportal/api-keys/00000000-0000-0000-0000-000000000000', 'DELETE'],
      ['/api/devportal/contracts/00000000-0000-0000-0000-000000000000/query/get', 'POST'],
      ['/api/explorer/live-blocks', 'GET'],
    ] as const) {
      const res = await fetch(`${stack.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.org',
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization, content-type, x-api-key, idempotency-key, prefer',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,PATCH,DELETE,OPTIONS');
      const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase();
      for (const h of ['authorization', 'content-type', 'x-api-key', 'idempotency-key', 'prefer']) {
        expect(allowed).toContain(h);
      }
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    }
  });

  it('serves a browser-like cross-origin GraphQL request, with nosniff and exposed headers', async () => {
    const res = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers: {
        origin: 'https://app.example.org',
        'content-type': 'application/json',
        authorization: `Bearer ${dev.token}`,
      },
      body: JSON.stringify({ query: '{ me { id } }' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.me.id).toBe(dev.developerId);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const explorer = await api.get('/api/explorer/live-blocks?network=testnet');
    expect(explorer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(explorer.headers.get('cache-control')).toBeNull();
  });

  it('refuses tampered, truncated and foreign list cursors with 400', async () => {
    const forge = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const cursors = [
      'not-a-cursor',
      forge({ at: '1', id: '00000000-0000-0000-0000-000000000000' }),
      forge({ at: 'Sat', id: '00000000-0000-0000-0000-000000000000' }),
      forge({ at: '2026-01-01T00:00:00.000Z', id: "x' OR 1=1 --" }),
      forge({ pending: 1, ts: 1, hash: `0x${'a'.repeat(64)}` }).slice(0, 20),
      forge({ pending: 7, ts: 1e300, hash: `0x${'a'.repeat(64)}` }),
    ];
    for (const cursor of cursors) {
      for (const path of [
        `/api/devportal/developers/${dev.developerId}/contracts?cursor=${encodeURIComponent(cursor)}`,
        `/api/devportal/developers/${dev.developerId}/wallet-history?cursor=${encodeURIComponent(cursor)}`,
      ]) {
        const res = await api.get(path, { token: dev.token });
        expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
          path,
          status: 400,
          code: 'VALIDATION_FAILED',
        });
      }
    }
  });

  it('serves /metrics only with the METRICS_TOKEN', async () => {
    expect((await api.get('/metrics')).status).toBe(401);
    expect((await api.get('/metrics', { token: 'wrong' })).status).toBe(401);
    const ok = await api.get('/metrics', { token: 'metrics-token-for-tests-0123456789' });
    expect(ok.status).toBe(200);
    expect(String(ok.body)).toMatch(/unexpected_errors_total/);
  });

  it("refuses an anonymous 717-byte pathological compile while a developer's compile finishes within 5 s", async () => {
    const lines = ['uint constant A0 = 1;'];
    for (let i = 1; i <= 40; i++) lines.push(`uint constant A${i}=A${i - 1}+A${i - 1};`);
    const source = (comment: string) =>
      `// ${comment}\npragma solidity ^0.8.20;\n${lines.join('\n')}\ncontract P { uint public x = A40; }`;
    expect(source('a').length).toBeLessThan(1200);
    const counter =
      'pragma solidity ^0.8.20;\ncontract Counter { uint256 public count; function inc() external { count += 1; } }';
    // Both lanes warm: the developer's compile is measured, not soljson's start.
    await api.post('/api/devportal/contracts/compile', { source: counter });
    await api.post('/api/devportal/contracts/compile', { source: `${counter}\n// warm` }, { token: dev.token });

    const anonymous = api.post('/api/devportal/contracts/compile', { source: source('a') });
    await new Promise((r) => setTimeout(r, 300));
    const started = performance.now();
    const mine = await api.post(
      '/api/devportal/contracts/compile',
      { source: `${counter}\n// mine` },
      { token: dev.token },
    );
    expect(mine.status).toBe(201);
    expect(performance.now() - started).toBeLessThan(5000);
    const refused = await anonymous;
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('COMPILATION_FAILED');
    // The same source with a comment byte changed is answered at once.
    const again = performance.now();
    const remembered = await api.post('/api/devportal/contracts/compile', { source: source('b') });
    expect(remembered.status).toBe(422);
    expect(performance.now() - again).toBeLessThan(500);
  }, 60_000);

  it("answers what Node's HTTP parser refuses (oversized headers, garbage) with the error body, nosniff and a request id", async () => {
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(stack.url).port), '127.0.0.1');
        let answer = '';
        socket.on('data', (d: Buffer) => (answer += d.toString()));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
        socket.write(request);
      });
    const oversized = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`);
    const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
    for (const [answer, status] of [
      [oversized, 431],
      [garbage, 400],
    ] as const) {
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(head).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/);
      expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
      expect(JSON.parse(body!)).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    }
  });

  it('holds GraphQL over GET to the same pipeline as POST (Node caps the URL at 16 KiB before that)', async () => {
    const aliases = Array.from({ length: 150 }, (_, i) => `a${i}: me { id }`).join(' ');
    const res = await api.get(`/graphql?query=${encodeURIComponent(`{ ${aliases} }`)}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/Aliases limit of 100/);
  });

  it('caps a developer at 100 active API keys (the 101st is 409 INVALID_STATE)', async () => {
    const path = `/api/devportal/developers/${dev.developerId}/api-keys`;
    const created = await Promise.all(
      Array.from({ length: 100 }, () => api.post(path, { scopes: ['read'] }, { token: dev.token })),
    );
    expect(created.map((r) => r.status)).toEqual(Array(100).fill(201));
    expect(created[0]!.headers.get('cache-control')).toBe('no-store');
    const over = await api.post(path, { scopes: ['read'] }, { token: dev.token });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('INVALID_STATE');
    expect((await api.del(`/api/devportal/api-keys/${created[0]!.body.id}`, { token: dev.token })).status).toBe(200);
    expect((await api.post(path, { scopes: ['read'] }, { token: dev.token })).status).toBe(201);
  }, 60_000);
});

describe('hostile clients, per-address limits', () => {
  let stack: Stack;
  let api: Client;
  /** The metrics listener's port: one free right now (a fixed one may be another process's). */
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    stack = await startStack({
      TRUST_PROXY: '1',
      PUBLIC_RATE_LIMIT: '20',
      LOGIN_RATE_LIMIT: '5',
      DEVELOPER_RATE_LIMIT: '10',
      WS_CONNECTIONS_PER_IP: '3',
      METRICS_PORT: String(metricsPort),
    });
    api = client(stack.url);
  }, 120_000);
  afterAll(() => stack?.stop());

  it('serves /metrics on METRICS_PORT, and not on the main port without a token', async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/unexpected_errors_total/);
    expect((await api.get('/metrics')).status).toBe(404);
  });

  const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
  const expectLimited = (res: { status: number; headers: Headers; body: any }) => {
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  };

  it('limits EDS challenges per client address (LOGIN_RATE_LIMIT), others unaffected', async () => {
    const burst = await Promise.all(
      Array.from({ length: 6 }, () => api.post('/api/devportal/auth/eds/challenge', undefined, from('203.0.113.1'))),
    );
    expect(burst.filter((r) => r.status === 201)).toHaveLength(5);
    expectLimited(burst.find((r) => r.status !== 201)!);
    expect((await api.post('/api/devportal/auth/eds/challenge', undefined, from('203.0.113.2'))).status).toBe(201);
  });

  it('limits EDS logins per client address', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 6 }, () =>
        api.post(
          '/api/devportal/auth/eds/login',
          { challengeId: 'x', certificate: 'y', signature: 'z' },
          from('203.0.113.3'),
        ),
      ),
    );
    expect(attempts.filter((r) => r.status === 429)).toHaveLength(1);
    expectLimited(attempts.find((r) => r.status === 429)!);
  });

  it('limits anonymous explorer and compile bursts per client address (PUBLIC_RATE_LIMIT)', async () => {
    const explorer = await Promise.all(
      Array.from({ length: 25 }, () => api.get('/api/explorer/network-status?network=testnet', from('203.0.113.4'))),
    );
    expect(explorer.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(5);
    expectLimited(explorer.find((r) => r.status === 429)!);
    const compile = await Promise.all(
      Array.from({ length: 25 }, () =>
        api.post('/api/devportal/contracts/compile', { source: 'contract C {}' }, from('203.0.113.5')),
      ),
    );
    expectLimited(compile.find((r) => r.status === 429)!);
    const graphql = await Promise.all(
      Array.from({ length: 25 }, () => api.call('POST', '/graphql', { query: '{ __typename }' }, from('203.0.113.6'))),
    );
    const limited = graphql.find((r) => r.body.errors)!;
    expect(limited.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).not.toBeNull();
    // A made-up credential does not lift the limit.
    const forged = await Promise.all(
      Array.from({ length: 25 }, () =>
        api.get('/api/explorer/network-status?network=testnet', {
          headers: {
            'x-forwarded-for': '203.0.113.7',
            authorization: 'Bearer forged.token.value',
            'x-api-key': `svc_${'A'.repeat(43)}`,
          },
        }),
      ),
    );
    expectLimited(forged.find((r) => r.status === 429)!);
    // Probes are never limited.
    const probes = await Promise.all(Array.from({ length: 30 }, () => api.get('/healthz', from('203.0.113.4'))));
    expect(probes.every((r) => r.status === 200)).toBe(true);
  });

  /**
   * A developer of its own for each test, with a whole budget: no waiting for the next window. Logged
   * in from an address of its own, so that the logins do not meet LOGIN_RATE_LIMIT.
   */
  let logins = 0;
  const freshDeveloper = () => login(client(stack.url, from(`198.51.100.${++logins}`)), stack.ca);

  it("limits one developer's requests over all tokens and keys (DEVELOPER_RATE_LIMIT)", async () => {
    const dev = await freshDeveloper();
    const burst = await Promise.all(
      Array.from({ length: 15 }, () => api.get('/api/devportal/auth/me', { token: dev.token })),
    );
    expect(burst.filter((r) => r.status === 200).length).toBeLessThanOrEqual(10);
    expectLimited(burst.find((r) => r.status === 429)!);
  });

  it("charges a developer's token and known key on public routes to that developer, once per request", async () => {
    const explorer = (headers: Record<string, string>) =>
      api.get('/api/explorer/network-status?network=testnet', {
        headers: { 'x-forwarded-for': '203.0.113.8', ...headers },
      });
    // Ten requests fit a developer's budget of ten: the edge and the token check count each once.
    const first = await freshDeveloper();
    const fit = await Promise.all(
      Array.from({ length: 10 }, () => api.get('/api/devportal/auth/me', { token: first.token })),
    );
    expect(fit.map((r) => r.status)).toEqual(Array(10).fill(200));
    // A signed token does not lift the address limit for free: public routes spend its developer's budget.
    // 30 at once: a budget of 10 per second refuses some even when a loaded machine spreads them.
    const second = await freshDeveloper();
    const viaToken = await Promise.all(
      Array.from({ length: 30 }, () => explorer({ authorization: `Bearer ${second.token}` })),
    );
    const limited = viaToken.find((r) => r.status === 429)!;
    expectLimited(limited);
    expect(limited.body.error.message).toMatch(/developer/);
    // So does a key the instance has already accepted (its first use below makes it known).
    const third = await freshDeveloper();
    const { apiKey } = await newKey(api, third, { name: 'edge' });
    const gateway = await api.post(
      '/api/devportal/contracts/00000000-0000-4000-8000-000000000000/query/totalSupply',
      {},
      { apiKey },
    );
    expect(gateway.status).toBe(404);
    const viaKey = await Promise.all(Array.from({ length: 30 }, () => explorer({ 'x-api-key': apiKey })));
    expectLimited(viaKey.find((r) => r.status === 429)!);
  });

  it('caps WebSocket connections per client address', async () => {
    const open = await Promise.all([1, 2, 3].map(() => openGraphqlWs(stack.url)));
    const fourth = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    const status = await new Promise<number>((resolve) => {
      fourth.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      fourth.on('open', () => resolve(101));
    });
    expect(status).toBe(429);
    for (const c of open) c.socket.close();
  });

  it('charges a logged-out token to its developer, never to nobody', async () => {
    const dev = await freshDeveloper();
    expect((await api.post('/api/devportal/auth/logout', undefined, { token: dev.token })).status).toBe(201);
    expect((await api.get('/api/devportal/auth/me', { token: dev.token })).status).toBe(401);
    const burst = await Promise.all(
      Array.from({ length: 30 }, () =>
        api.get('/api/explorer/network-status?network=testnet', {
          headers: { 'x-forwarded-for': '203.0.113.9', authorization: `Bearer ${dev.token}` },
        }),
      ),
    );
    const limited = burst.find((r) => r.status === 429)!;
    expectLimited(limited);
    expect(limited.body.error.message).toMatch(/developer/);
  });
});
