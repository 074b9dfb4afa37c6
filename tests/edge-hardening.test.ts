/* eslint-disable @typescript-eslint/no-explicit-any -- responses and protocol messages are asserted field by field */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Interface, Wallet, type JsonRpcProvider } from 'ethers';
import WebSocket from 'ws';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { burstsUntilLimited, deployRegistered, newKey, type DeployedContract } from './kit/flows';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { spawnSibling, type ServiceProcess } from './kit/process';
import { sqlRows, startStack, type Stack } from './kit/stack';

/**
 * docs/api.md, "Hostile chain data", the edge: each attack here got through before (per-address limits dodged by rotating
 * within an IPv6 /64, NUL characters and GraphQL object literals answered 500, /metrics public in
 * production, slow headers held for 30 s, subscriptions outliving their key or token by seconds).
 */

const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A graphql-ws connection by hand, every message kept with the time it arrived. */
async function openWs(
  url: string,
  opts: { headers?: Record<string, string>; params?: Record<string, unknown> } = {},
): Promise<{ socket: WebSocket; messages: Array<{ at: number; msg: any }> }> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', {
    headers: opts.headers,
  });
  const messages: Array<{ at: number; msg: any }> = [];
  socket.on('message', (data) => messages.push({ at: Date.now(), msg: JSON.parse(data.toString()) }));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init', payload: opts.params ?? {} }));
  await until(() => messages.some((m) => m.msg.type === 'connection_ack'));
  return { socket, messages };
}

/** The HTTP status a WebSocket upgrade is answered with (101 when it opens). */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<{ status: number; socket: WebSocket }> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers });
  return new Promise((resolve) => {
    socket.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, socket }));
    socket.on('open', () => resolve({ status: 101, socket }));
  });
}

describe('per-address limits count an IPv6 client by its /64', () => {
  let stack: Stack;
  let api: Client;

  beforeAll(async () => {
    stack = await startStack({
      TRUST_PROXY: '1',
      PUBLIC_RATE_LIMIT: '20',
      LOGIN_RATE_LIMIT: '5',
      WS_CONNECTIONS_PER_IP: '3',
    });
    api = client(stack.url);
  }, 120_000);
  afterAll(() => stack?.stop());

  const expectLimited = (res: { status: number; headers: Headers; body: any }) => {
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  };

  it('limits anonymous requests from addresses rotating within one /64 (PUBLIC_RATE_LIMIT)', async () => {
    // Addresses of one /64 share one budget of 20 a second: bursts of 60 new addresses until one is
    // refused. However long the machine takes, at most 20 a second touched pass, and a burst answered
    // within a second must have had one refused. Counted by full address, none would ever be.
    let n = 0;
    const { results, fastBurst, windows } = await burstsUntilLimited(() => {
      const i = n++;
      return api.get(
        '/api/explorer/network-status?network=testnet',
        from(`2001:db8:a:1:${i.toString(16)}:ab:cd:${i + 1}`),
      );
    }, 60);
    const limited = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(20 * windows);
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    if (fastBurst) expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) expectLimited(r);
    // Another /64 has a budget of its own.
    expect((await api.get('/api/explorer/network-status?network=testnet', from('2001:db8:a:2::1'))).status).toBe(200);
  });

  it('limits EDS challenges from addresses rotating within one /64 (LOGIN_RATE_LIMIT)', async () => {
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post('/api/devportal/auth/eds/challenge', undefined, from(`2001:db8:a:3:${i + 1}:${i}:ab:${i}`)),
      ),
    );
    expect(burst.filter((r) => r.status === 201)).toHaveLength(5);
    expectLimited(burst.find((r) => r.status !== 201)!);
    expect((await api.post('/api/devportal/auth/eds/challenge', undefined, from('2001:db8:a:4::1'))).status).toBe(201);
  });

  it('limits EDS logins from addresses rotating within one /64', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post(
          '/api/devportal/auth/eds/login',
          { challengeId: 'x', certificate: 'y', signature: 'z' },
          from(`2001:db8:a:5::${(i + 1) * 7}`),
        ),
      ),
    );
    expect(attempts.filter((r) => r.status === 429)).toHaveLength(1);
    expectLimited(attempts.find((r) => r.status === 429)!);
  });

  it('counts ::ffff:a.b.c.d and a.b.c.d as one client', async () => {
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post(
          '/api/devportal/auth/eds/challenge',
          undefined,
          from(i % 2 ? '198.51.100.77' : '::ffff:198.51.100.77'),
        ),
      ),
    );
    expect(burst.filter((r) => r.status === 201)).toHaveLength(5);
    expectLimited(burst.find((r) => r.status !== 201)!);
  });

  it('caps WebSocket connections per /64 (WS_CONNECTIONS_PER_IP)', async () => {
    const open = await Promise.all([1, 2, 3].map((i) => openWs(stack.url, from(`2001:db8:a:6::${i}`))));
    try {
      const fourth = await upgradeStatus(stack.url, from('2001:db8:a:6:ffff:ffff:ffff:ffff').headers);
      expect(fourth.status).toBe(429);
      const elsewhere = await upgradeStatus(stack.url, from('2001:db8:a:7::1').headers);
      expect(elsewhere.status).toBe(101);
      elsewhere.socket.close();
    } finally {
      for (const c of open) c.socket.close();
    }
  });

  it('closes a connection whose headers have not arrived within 10 s', async () => {
    const socket = connect(Number(new URL(stack.url).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const started = Date.now();
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    // One header line a second: never a complete request.
    let n = 0;
    const drip = setInterval(() => socket.writable && socket.write(`X-Slow-${n++}: a\r\n`), 1000);
    const closedAfter = await new Promise<number>((resolve) => {
      socket.once('close', () => resolve(Date.now() - started));
      setTimeout(() => resolve(Infinity), 25_000);
    });
    clearInterval(drip);
    socket.destroy();
    expect(closedAfter).toBeGreaterThanOrEqual(9_500);
    expect(closedAfter).toBeLessThanOrEqual(11_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/"code":"VALIDATION_FAILED"/);
  }, 30_000);
});

const EDGE_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Edge {
    struct P { uint256 a; }
    event Ping(uint256 n);

    function get(P calldata p) external pure returns (uint256) { return p.a; }
    function echo(string calldata s) external pure returns (string memory) { return s; }
    function ping(uint256 n) external { emit Ping(n); }
}
`;
const edge = new Interface(['function ping(uint256 n)']);

describe('text inputs, GraphQL literals, /metrics, and subscriptions on revocation', () => {
  let stack: Stack;
  let api: Client;
  let owner: LoggedIn;
  let contract: DeployedContract;
  let apiKey: string;
  let sibling: ServiceProcess;
  let siblingApi: Client;
  let provider: JsonRpcProvider;
  let sender: Wallet;

  beforeAll(async () => {
    stack = await startStack();
    api = client(stack.url);
    sibling = await spawnSibling(stack);
    siblingApi = client(sibling.url);
    owner = await login(api, stack.ca);
    expect((await api.post('/api/devportal/faucet/drip', {}, { token: owner.token })).status).toBe(201);
    contract = await deployRegistered(api, owner, EDGE_SOURCE);
    apiKey = (await newKey(api, owner)).apiKey;
    provider = providerOf(stack, 'testnet');
    sender = new Wallet(ANVIL_KEYS[1]!, provider);
  }, 180_000);
  afterAll(async () => {
    await sibling?.stop();
    await stack?.stop();
  });

  describe('control characters', () => {
    it('answers NUL and other control characters in a search query with 400 VALIDATION_FAILED', async () => {
      for (const q of ['ab%00cd', '%00', 'a%07b', 'x%1By', 'a%7Fb', 'a%C2%85b']) {
        const res = await api.get(`/api/explorer/search?q=${q}&network=testnet`);
        expect({ q, status: res.status, code: res.body.error?.code }).toEqual({
          q,
          status: 400,
          code: 'VALIDATION_FAILED',
        });
        expect(res.body.error.details).toEqual({ field: 'q', reason: 'control character' });
      }
      const gql = await api.graphql('query { search(q: "ab\\u0000cd", network: testnet) { query } }');
      expect(gql.body.data).toBeNull();
      expect(gql.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
      // Plain text is still searched.
      expect((await api.get('/api/explorer/search?q=abc&network=testnet')).status).toBe(200);
    });

    it('refuses a project name or description with a control character, and stores nothing', async () => {
      for (const body of [
        { name: 'a\u0000b' },
        { name: 'bell\u0007' },
        { name: 'ok', description: 'nul\u0000inside' },
      ]) {
        const res = await api.post('/api/devportal/projects', body, { token: owner.token });
        expect({ body, status: res.status, code: res.body.error?.code }).toEqual({
          body,
          status: 400,
          code: 'VALIDATION_FAILED',
        });
        expect(res.body.error.details.reason).toBe('control character');
      }
      const listed = await api.get(`/api/devportal/developers/${owner.developerId}`, { token: owner.token });
      expect(listed.status).toBe(200);
      expect(listed.body.projects).toEqual([]);
      // Tabs and line breaks are text.
      const ok = await api.post(
        '/api/devportal/projects',
        { name: 'fine', description: 'line one\nline two\tend' },
        { token: owner.token },
      );
      expect(ok.status).toBe(201);
      expect(ok.body.description).toBe('line one\nline two\tend');
    });

    it('refuses a control character inside a contract call argument, nothing decoded or sent', async () => {
      const res = await api.post(
        `/api/devportal/contracts/${contract.id}/query/echo`,
        { args: ['a\u0000b'] },
        { apiKey },
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.field).toBe('args.0');
    });
  });

  describe('a GraphQL literal where JSON is expected', () => {
    const query = (args: string, variables: Record<string, unknown> = {}, decl = '') =>
      api.graphql(
        `mutation($id: ID!${decl}) { queryContract(id: $id, method: "get", args: ${args}) { result } }`,
        { id: contract.id, ...variables },
        { apiKey },
      );

    it('reads a list of object literals as the JSON it spells', async () => {
      const res = await query('[{a: 7}]');
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.queryContract.result).toBe('7');
      const nested = await query('[{a: "0x10"}]');
      expect(nested.body.errors).toBeUndefined();
      expect(nested.body.data.queryContract.result).toBe('16');
      // An integer past 2^53 keeps its digits.
      const big = await query('[{a: 123456789012345678901234567890}]');
      expect(big.body.data.queryContract.result).toBe('123456789012345678901234567890');
      // A variable inside the literal.
      const withVar = await query('[{a: $a}]', { a: '42' }, ', $a: JSON');
      expect(withVar.body.data.queryContract.result).toBe('42');
    });

    it('answers an object literal as args exactly as the same JSON in a variable (a 400, never a 500)', async () => {
      const literal = await query('{a: 1}');
      const variable = await query('$args', { args: { a: 1 } }, ', $args: JSON');
      expect(literal.body.errors[0].extensions.code).toBe(variable.body.errors[0].extensions.code);
      expect(literal.body.errors[0].message).toBe(variable.body.errors[0].message);
      expect(['INVALID_ARGUMENT', 'VALIDATION_FAILED']).toContain(literal.body.errors[0].extensions.code);
      // `__proto__` is a key like any other, never the object's prototype.
      const proto = await query('[{__proto__: {a: 1}}]');
      expect(proto.body.errors[0].extensions.code).toBe('INVALID_ARGUMENT');
      expect(proto.body.errors[0].message).toMatch(/unknown field\(s\) __proto__/);
    });
  });

  describe('/metrics in production', () => {
    let prod: ServiceProcess;
    beforeAll(async () => {
      prod = await spawnSibling(stack, {
        NODE_ENV: 'production',
        HOST: '0.0.0.0',
        FAUCET_PRIVATE_KEY: `0x${randomBytes(32).toString('hex')}`,
        WALLET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      });
    }, 60_000);
    afterAll(() => prod?.stop());

    it('serves /metrics to loopback clients only when neither METRICS_TOKEN nor METRICS_PORT is set', async () => {
      const local = await fetch(`${prod.url}/metrics`);
      expect(local.status).toBe(200);
      expect(await local.text()).toMatch(/unexpected_errors_total/);
      // A request relayed by a proxy on this machine is not a loopback client.
      const relayed = await fetch(`${prod.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.5' } });
      expect(relayed.status).toBe(404);
      expect((await relayed.json()).error.code).toBe('NOT_FOUND');
      // From this machine's own non-loopback address, if it has one.
      const external = Object.values(networkInterfaces())
        .flat()
        .find((i) => i && i.family === 'IPv4' && !i.internal);
      if (external) {
        const res = await fetch(`http://${external.address}:${new URL(prod.url).port}/metrics`);
        expect(res.status).toBe(404);
      }
    });
  });

  describe('subscriptions end on revocation, on every instance', () => {
    /** Waits until both instances' indexes hold `block`. */
    async function indexed(block: number): Promise<void> {
      for (const a of [api, siblingApi]) {
        for (let i = 0; ; i++) {
          const s = await a.get('/api/explorer/network-status?network=testnet');
          if ((s.body.indexer?.lastIndexedBlock ?? -1) >= block) break;
          if (i > 150) throw new Error(`block ${block} not indexed`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    }

    /** After the revoking answer at `answeredAt`: the error arrived within 1 s of it, and nothing else after. */
    async function expectEnded(ws: Awaited<ReturnType<typeof openWs>>, answeredAt: number, code: string) {
      await until(() => ws.messages.some((m) => m.msg.type === 'error'), 5_000);
      const error = ws.messages.find((m) => m.msg.type === 'error')!;
      expect(error.msg.payload[0].extensions.code).toBe(code);
      expect(error.at - answeredAt).toBeLessThanOrEqual(1000);
      // More events, indexed by both instances: none reaches the ended subscription.
      await indexed(await pingOn(contract, 3));
      await new Promise((r) => setTimeout(r, 500));
      const after = ws.messages.filter((m) => m.at > answeredAt && m.msg.type === 'next');
      expect(after).toEqual([]);
      expect(ws.messages.filter((m) => m.msg.type === 'next' && m.at > error.at)).toEqual([]);
    }

    it("ends an API key's subscription on the other instance when the key is revoked", async () => {
      const key = await newKey(api, owner, { scopes: ['read'] });
      const ws = await liveSubscriptionOf(sibling.url, contract, { 'x-api-key': key.apiKey });
      try {
        const revoked = await api.del(`/api/devportal/api-keys/${key.id}`, { token: owner.token });
        const answeredAt = Date.now();
        expect(revoked.status).toBe(200);
        await expectEnded(ws, answeredAt, 'INVALID_API_KEY');
      } finally {
        ws.socket.close();
      }
    }, 90_000);

    it("ends a token's subscriptions on both instances when its developer logs out", async () => {
      const dev = await login(api, stack.ca);
      const ownContract = await deployRegisteredFor(dev);
      const subs = [];
      for (const url of [stack.url, sibling.url]) {
        subs.push(await liveSubscriptionOf(url, ownContract, { authorization: `Bearer ${dev.token}` }));
      }
      try {
        const out = await api.post('/api/devportal/auth/logout', undefined, { token: dev.token });
        const answeredAt = Date.now();
        expect(out.status).toBe(201);
        for (const ws of subs) {
          await until(() => ws.messages.some((m) => m.msg.type === 'error'), 5_000);
          const error = ws.messages.find((m) => m.msg.type === 'error')!;
          expect(error.msg.payload[0].extensions.code).toBe('UNAUTHENTICATED');
          expect(error.at - answeredAt).toBeLessThanOrEqual(1000);
        }
        // A new login's subscription is not touched by the old logout.
        const again = await login(api, stack.ca, dev.credential);
        const fresh = await liveSubscriptionOf(sibling.url, ownContract, { authorization: `Bearer ${again.token}` });
        try {
          const block = await pingOn(ownContract, 5);
          await indexed(block);
          await until(() => fresh.messages.filter((m) => m.msg.type === 'next').length >= 2, 30_000);
          await new Promise((r) => setTimeout(r, 500));
          for (const ws of subs) {
            expect(ws.messages.filter((m) => m.msg.type === 'next' && m.at > answeredAt)).toEqual([]);
          }
        } finally {
          fresh.socket.close();
        }
      } finally {
        for (const ws of subs) ws.socket.close();
      }
    }, 120_000);

    it('ends the subscriptions of an instance that lost its revocation channel (revocations may be missed)', async () => {
      const key = await newKey(api, owner, { scopes: ['read'] });
      const ws = await liveSubscriptionOf(sibling.url, contract, { 'x-api-key': key.apiKey });
      try {
        const cut = Date.now();
        await sqlRows(
          stack,
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND starts_with(application_name, 'devportal-revocations:')`,
        );
        await until(() => ws.messages.some((m) => m.msg.type === 'error'), 5_000);
        const error = ws.messages.find((m) => m.msg.type === 'error')!;
        expect(error.msg.payload[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
        expect(error.at - cut).toBeLessThanOrEqual(1000);
      } finally {
        ws.socket.close();
      }
    }, 60_000);

    async function deployRegisteredFor(dev: LoggedIn): Promise<DeployedContract> {
      expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
      return deployRegistered(api, dev, EDGE_SOURCE);
    }

    async function pingOn(target: DeployedContract, n: number): Promise<number> {
      const tx = await sender.sendTransaction({ to: target.address, data: edge.encodeFunctionData('ping', [n]) });
      return (await tx.wait())!.blockNumber;
    }

    async function liveSubscriptionOf(url: string, target: DeployedContract, params: Record<string, unknown>) {
      const ws = await openWs(url, { params });
      const block = await provider.getBlockNumber();
      ws.socket.send(
        JSON.stringify({
          id: 's1',
          type: 'subscribe',
          payload: {
            query: `subscription($id: ID!, $from: Int) { contractEvents(contractId: $id, event: "Ping", fromBlock: $from) { blockNumber } }`,
            variables: { id: target.id, from: block + 1 },
          },
        }),
      );
      const before = ws.messages.filter((m) => m.msg.type === 'next').length;
      await pingOn(target, 1);
      await until(() => ws.messages.filter((m) => m.msg.type === 'next').length > before, 30_000);
      return ws;
    }
  });
});
