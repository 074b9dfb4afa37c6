/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { client, type Client } from './kit/http';
import { deployRegistered, newKey, type DeployedContract } from './kit/flows';
import { login, type LoggedIn } from './kit/login';
import { spawnSibling, type ServiceProcess } from './kit/process';
import { COUNTER_SOURCE, TOKEN_SOURCE } from './kit/solidity';
import { startStack, type Stack, sqlRows } from './kit/stack';
import { onOneUtcDay } from './kit/utc-day';

// Key policies and rotation (docs/api.md, "API keys": policies, refusals, rotation), on the
// gateway's REST and GraphQL faces and the JSON-RPC door, against a real PostgreSQL and anvil.

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let token: DeployedContract;
let counter: DeployedContract;
let other: DeployedContract;

const rows = <T>(text: string, params: unknown[] = []) => sqlRows<T>(stack, text, params);
const keysUrl = () => `/api/devportal/developers/${dev.developerId}/api-keys`;
const patch = (keyId: string, body: unknown, token = dev.token) =>
  api.call('PATCH', `/api/devportal/api-keys/${keyId}`, body, { token });
const rotate = (keyId: string, body: unknown = {}) =>
  api.post(`/api/devportal/api-keys/${keyId}/rotate`, body, { token: dev.token });
const query = (contractId: string, method: string, apiKey: string, headers?: Record<string, string>) =>
  api.post(`/api/devportal/contracts/${contractId}/query/${encodeURIComponent(method)}`, {}, { apiKey, headers });
const gqlQuery = (contractId: string, method: string, apiKey: string, headers?: Record<string, string>) =>
  api.graphql(
    `mutation($id: ID!, $m: String!) { queryContract(id: $id, method: $m) { result } }`,
    { id: contractId, m: method },
    { apiKey, headers },
  );
async function rpc(key: string, method: string, params: unknown[] = [], headers?: Record<string, string>) {
  const res = await fetch(`${stack.url}/rpc/testnet/${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}
const listItem = async (keyId: string) =>
  ((await api.get(keysUrl(), { token: dev.token })).body.items as any[]).find((k) => k.id === keyId);

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
  counter = await deployRegistered(api, dev, COUNTER_SOURCE);
  other = await deployRegistered(api, dev, COUNTER_SOURCE);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe('policies at creation and by PATCH', () => {
  it('stores every kind, lists it with today’s requests, and answers PATCH with the list item', () =>
    onOneUtcDay(async () => {
      const expiresAt = new Date(Date.now() + 3600_000).toISOString();
      const policies = {
        contractIds: [token.id, counter.id],
        allowedOrigins: ['https://app.example'],
        allowedIps: ['10.0.0.0/8', '2001:db8::/32', '127.0.0.1'],
        allowedMethods: ['balanceOf', 'eth_chainId'],
        expiresAt,
        rateLimitPerSecond: 5,
        dailyQuota: 1000,
      };
      const k = await newKey(api, dev, policies);
      // Listed as given, with today's usage.
      expect(await listItem(k.id)).toMatchObject({
        ...policies,
        contractId: null,
        requestsToday: 0,
        spentTodayWei: '0',
      });
      const changed = await patch(k.id, { allowedOrigins: null, dailyQuota: 10, contractIds: [token.id] });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({
        id: k.id,
        allowedOrigins: null,
        dailyQuota: 10,
        contractIds: [token.id],
        contractId: token.id,
        allowedMethods: ['balanceOf', 'eth_chainId'],
      });
      expect(await listItem(k.id)).toEqual(changed.body);
      const one = await patch(k.id, { contractId: counter.id });
      expect(one.body).toMatchObject({ contractId: counter.id, contractIds: [counter.id] });
      const lifted = await patch(k.id, { contractId: null });
      expect(lifted.body).toMatchObject({ contractId: null, contractIds: null });
      const both = await patch(k.id, { contractId: counter.id, contractIds: [token.id] });
      expect(both.status).toBe(400);
    }));

  it('refuses bad entries, too many entries, a rate above the service’s and unknown fields (400 naming them)', async () => {
    const k = await newKey(api, dev);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ allowedIps: ['10.0.0.0/33'] }, 'allowedIps'],
      [{ allowedIps: ['not-an-ip'] }, 'allowedIps'],
      [{ allowedOrigins: ['https://app.example/'] }, 'allowedOrigins'],
      [{ allowedOrigins: ['app.example'] }, 'allowedOrigins'],
      [{ allowedOrigins: Array.from({ length: 101 }, (_, i) => `https://a${i}.example`) }, 'allowedOrigins'],
      [{ allowedMethods: Array.from({ length: 101 }, (_, i) => `m${i}`) }, 'allowedMethods'],
      [{ rateLimitPerSecond: 101 }, 'rateLimitPerSecond'],
      [{ dailyQuota: 0 }, 'dailyQuota'],
      [{ spend: { maxValueWeiPerTx: '1e18' } }, 'spend.maxValueWeiPerTx'],
      [{ spend: { maxWeiPerYear: '1' } }, 'maxWeiPerYear'],
      [{ colour: 'blue' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      for (const res of [await api.post(keysUrl(), body, { token: dev.token }), await patch(k.id, body)]) {
        expect({ body, status: res.status, code: res.body.error?.code }).toEqual({
          body,
          status: 400,
          code: 'VALIDATION_FAILED',
        });
        expect(JSON.stringify(res.body.error)).toContain(field);
      }
    }
    const rot = await rotate(k.id, { graceSeconds: 10, colour: 'blue' });
    expect(rot.status).toBe(400);
    expect(JSON.stringify(rot.body.error)).toContain('colour');
    expect((await rotate(k.id, { graceSeconds: 604_801 })).status).toBe(400);
    expect((await rotate(k.id, { graceSeconds: -1 })).status).toBe(400);
    // Another developer's key, or none, is 404; an API key is not the owner's token.
    const stranger = await login(api, stack.ca);
    expect((await patch(k.id, { dailyQuota: 5 }, stranger.token)).status).toBe(404);
    expect((await patch('00000000-0000-4000-8000-000000000000', { dailyQuota: 5 })).status).toBe(404);
    expect((await api.call('PATCH', `/api/devportal/api-keys/${k.id}`, {}, { apiKey: k.apiKey })).status).toBe(401);
    // Another developer's contract cannot be named.
    expect((await patch(k.id, { contractIds: [token.id, '00000000-0000-4000-8000-000000000000'] })).status).toBe(404);
  });

  it('is the same over GraphQL: updateApiKey and rotateApiKey', async () => {
    const k = await newKey(api, dev);
    const updated = await api.graphql(
      `mutation($k: ID!) { updateApiKey(keyId: $k, input: { allowedMethods: ["eth_chainId"], dailyQuota: 7 }) {
        id allowedMethods dailyQuota requestsToday spentTodayWei } }`,
      { k: k.id },
      { token: dev.token },
    );
    expect(updated.body.data.updateApiKey).toEqual({
      id: k.id,
      allowedMethods: ['eth_chainId'],
      dailyQuota: 7,
      requestsToday: 0,
      spentTodayWei: '0',
    });
    const unknown = await api.graphql(
      `mutation($k: ID!) { updateApiKey(keyId: $k, input: { colour: "blue" }) { id } }`,
      { k: k.id },
      { token: dev.token },
    );
    expect(unknown.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(unknown.body.errors[0].message).toContain('colour');
    const rotated = await api.graphql(
      `mutation($k: ID!) { rotateApiKey(keyId: $k, input: { graceSeconds: 0 }) { id apiKey prefix previousKeyValidUntil } }`,
      { k: k.id },
      { token: dev.token },
    );
    expect(rotated.body.data.rotateApiKey.id).toBe(k.id);
    expect((await rpc(k.apiKey, 'eth_chainId')).status).toBe(401);
    expect((await rpc(rotated.body.data.rotateApiKey.apiKey, 'eth_chainId')).body.result).toBe('0x4647');
  });

  it('allows PATCH in CORS preflights', async () => {
    const res = await fetch(`${stack.url}/api/devportal/api-keys/x`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'PATCH' },
    });
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
  });
});

describe('refusals on REST, GraphQL and the JSON-RPC door', () => {
  it('origins: exact origins only, a request without Origin refused once they are set', async () => {
    const k = await newKey(api, dev, { allowedOrigins: ['https://app.example', 'http://localhost:3000'] });
    for (const headers of [undefined, { origin: 'https://evil.example' }, { origin: 'https://app.example:443x' }]) {
      const rest = await query(token.id, 'totalSupply', k.apiKey, headers);
      expect(rest.status).toBe(403);
      expect(rest.body.error).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'origin' } });
      const gql = await gqlQuery(token.id, 'totalSupply', k.apiKey, headers);
      expect(gql.body.errors[0].extensions).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'origin' } });
      const door = await rpc(k.apiKey, 'eth_chainId', [], headers);
      expect(door.status).toBe(403);
      expect(door.body.error.code).toBe(-32003);
    }
    for (const origin of ['https://app.example', 'http://localhost:3000']) {
      expect((await query(token.id, 'totalSupply', k.apiKey, { origin })).status).toBe(201);
      expect((await gqlQuery(token.id, 'totalSupply', k.apiKey, { origin })).body.data.queryContract.result).toBe(
        '1000000',
      );
      expect((await rpc(k.apiKey, 'eth_chainId', [], { origin })).body.result).toBe('0x4647');
    }
  });

  it('origins on the door’s WebSocket: the upgrade without the right Origin is refused 403', async () => {
    const k = await newKey(api, dev, { allowedOrigins: ['https://app.example'] });
    const open = (origin?: string) =>
      new Promise<{ status?: number; result?: string }>((resolve) => {
        const ws = new WebSocket(
          `${stack.url.replace('http', 'ws')}/rpc/testnet/${k.apiKey}`,
          origin ? { origin } : {},
        );
        ws.on('unexpected-response', (_req, res) => {
          resolve({ status: res.statusCode });
          ws.terminate();
        });
        ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })));
        ws.on('message', (data) => {
          resolve({ result: JSON.parse(String(data)).result });
          ws.close();
        });
        ws.on('error', () => undefined);
      });
    expect(await open()).toEqual({ status: 403 });
    expect(await open('https://evil.example')).toEqual({ status: 403 });
    expect(await open('https://app.example')).toEqual({ result: '0x4647' });
  });

  it('addresses: the client’s address in one of the blocks (parsed by ipaddr.js)', async () => {
    const outside = await newKey(api, dev, { allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
    const rest = await query(token.id, 'totalSupply', outside.apiKey);
    expect(rest.status).toBe(403);
    expect(rest.body.error).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'ip' } });
    const gql = await gqlQuery(token.id, 'totalSupply', outside.apiKey);
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'ip' } });
    const door = await rpc(outside.apiKey, 'eth_chainId');
    expect(door.status).toBe(403);
    expect(door.body.error.code).toBe(-32003);
    for (const allowedIps of [['10.0.0.0/8', '127.0.0.0/8'], ['127.0.0.1'], ['::ffff:127.0.0.1/128']]) {
      const inside = await newKey(api, dev, { allowedIps });
      expect({ allowedIps, status: (await query(token.id, 'totalSupply', inside.apiKey)).status }).toEqual({
        allowedIps,
        status: 201,
      });
      expect((await gqlQuery(token.id, 'totalSupply', inside.apiKey)).body.data.queryContract.result).toBe('1000000');
      expect((await rpc(inside.apiKey, 'eth_chainId')).body.result).toBe('0x4647');
    }
  });

  it('methods: gateway methods by name or signature, JSON-RPC methods by name', async () => {
    const k = await newKey(api, dev, { allowedMethods: ['balanceOf', 'totalSupply()', 'eth_chainId'] });
    const denied = await query(token.id, 'decimals', k.apiKey);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'method' } });
    const gql = await gqlQuery(token.id, 'decimals', k.apiKey);
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'method' } });
    expect((await query(token.id, 'totalSupply', k.apiKey)).status).toBe(201);
    expect((await gqlQuery(token.id, 'totalSupply()', k.apiKey)).body.data.queryContract.result).toBe('1000000');
    expect(
      (
        await api.post(
          `/api/devportal/contracts/${token.id}/query/balanceOf`,
          { args: [dev.walletAddress] },
          { apiKey: k.apiKey },
        )
      ).status,
    ).toBe(201);
    const door = await rpc(k.apiKey, 'eth_blockNumber');
    expect(door.status).toBe(200);
    expect(door.body.error).toMatchObject({ code: -32003, data: { policy: 'method' } });
    expect((await rpc(k.apiKey, 'eth_chainId')).body.result).toBe('0x4647');
  });

  it('invokes meet the same policies: a refused invoke sends nothing and is not counted', async () => {
    const [before] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM chain_transactions');
    const k = await newKey(api, dev, { allowedMethods: ['count'], dailyQuota: 5 });
    const invoke = (key: string) =>
      api.post(`/api/devportal/contracts/${counter.id}/invoke/increment`, {}, { apiKey: key });
    const refused = await invoke(k.apiKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'method' } });
    const gql = await api.graphql(
      `mutation($id: ID!) { invokeContract(id: $id, method: "increment") { status } }`,
      { id: counter.id },
      { apiKey: k.apiKey },
    );
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'method' } });
    const [after] = await rows<{ n: number }>('SELECT count(*)::int AS n FROM chain_transactions');
    expect(after!.n).toBe(before!.n);
    expect((await listItem(k.id)).requestsToday).toBe(0);
    expect((await patch(k.id, { allowedMethods: ['count', 'increment()'] })).status).toBe(200);
    const sent = await invoke(k.apiKey);
    expect(sent.status).toBe(201);
    expect(sent.body.status).toBe('success');
    expect((await listItem(k.id)).requestsToday).toBe(1);
  });

  it('contracts: several, each allowed; any other 403 KEY_NOT_FOR_CONTRACT (-32602 on the door)', async () => {
    const k = await newKey(api, dev, { contractIds: [token.id, counter.id] });
    expect((await query(token.id, 'totalSupply', k.apiKey)).status).toBe(201);
    expect((await query(counter.id, 'count', k.apiKey)).status).toBe(201);
    const refused = await query(other.id, 'count', k.apiKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('KEY_NOT_FOR_CONTRACT');
    expect((await gqlQuery(other.id, 'count', k.apiKey)).body.errors[0].extensions.code).toBe('KEY_NOT_FOR_CONTRACT');
    expect((await gqlQuery(counter.id, 'count', k.apiKey)).body.data.queryContract.result).toMatch(/^\d+$/);
    const data = '0x06661abd'; // count()
    expect((await rpc(k.apiKey, 'eth_call', [{ to: counter.address, data }, 'latest'])).body.result).toMatch(/^0x/);
    expect((await rpc(k.apiKey, 'eth_call', [{ to: other.address, data }, 'latest'])).body.error.code).toBe(-32602);
  });

  it('expiry: 401 INVALID_API_KEY saying expired, at once after a PATCH', async () => {
    const k = await newKey(api, dev, { expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    expect((await query(token.id, 'totalSupply', k.apiKey)).status).toBe(201);
    expect((await gqlQuery(token.id, 'totalSupply', k.apiKey)).body.data.queryContract.result).toBe('1000000');
    expect((await rpc(k.apiKey, 'eth_chainId')).body.result).toBe('0x4647');
    expect((await patch(k.id, { expiresAt: new Date(Date.now() - 1000).toISOString() })).status).toBe(200);
    const rest = await query(token.id, 'totalSupply', k.apiKey);
    expect(rest.status).toBe(401);
    expect(rest.body.error.code).toBe('INVALID_API_KEY');
    expect(rest.body.error.message).toMatch(/expired/);
    const gql = await gqlQuery(token.id, 'totalSupply', k.apiKey);
    expect(gql.body.errors[0].extensions.code).toBe('INVALID_API_KEY');
    expect(gql.body.errors[0].message).toMatch(/expired/);
    const door = await rpc(k.apiKey, 'eth_chainId');
    expect(door.status).toBe(401);
    expect(door.body.error.code).toBe(-32001);
    expect(door.body.error.message).toMatch(/expired/);
    // Lifting the expiry brings it back.
    expect((await patch(k.id, { expiresAt: null })).status).toBe(200);
    expect((await query(token.id, 'totalSupply', k.apiKey)).status).toBe(201);
  });

  it('daily quota: 429 with details.policy and Retry-After to UTC midnight; policy refusals not counted', () =>
    onOneUtcDay(async () => {
      const k = await newKey(api, dev, {
        dailyQuota: 3,
        allowedMethods: ['totalSupply', 'eth_chainId', 'eth_call', 'count'],
        contractIds: [token.id],
      });
      for (let i = 0; i < 4; i++) expect((await query(token.id, 'decimals', k.apiKey)).status).toBe(403);
      for (let i = 0; i < 2; i++) expect((await query(other.id, 'count', k.apiKey)).status).toBe(403);
      const outside = await rpc(k.apiKey, 'eth_call', [{ to: other.address, data: '0x06661abd' }, 'latest']);
      expect(outside.body.error.code).toBe(-32602);
      expect((await rpc(k.apiKey, 'eth_blockNumber')).body.error.code).toBe(-32003);
      expect((await query(token.id, 'totalSupply', k.apiKey)).status).toBe(201);
      expect((await gqlQuery(token.id, 'totalSupply', k.apiKey)).body.data.queryContract.result).toBe('1000000');
      expect((await rpc(k.apiKey, 'eth_chainId')).body.result).toBe('0x4647');
      expect((await listItem(k.id)).requestsToday).toBe(3);
      const over = await query(token.id, 'totalSupply', k.apiKey);
      expect(over.status).toBe(429);
      expect(over.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'dailyQuota' } });
      const now = new Date();
      const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(Math.abs(retryAfter - (midnight - now.getTime()) / 1000)).toBeLessThan(5);
      const gql = await gqlQuery(token.id, 'totalSupply', k.apiKey);
      expect(gql.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'dailyQuota' } });
      const door = await rpc(k.apiKey, 'eth_chainId');
      expect(door.body.error).toMatchObject({ code: -32005, data: { policy: 'dailyQuota' } });
      expect((await listItem(k.id)).requestsToday).toBe(3);
    }));

  it('daily quota: exact under 50 concurrent requests', () =>
    onOneUtcDay(async () => {
      const k = await newKey(api, dev, { dailyQuota: 20 });
      const results = await Promise.all(Array.from({ length: 50 }, () => query(token.id, 'totalSupply', k.apiKey)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(20);
      expect(statuses.filter((s) => s === 429)).toHaveLength(30);
      const [row] = await rows<{ requests: number }>('SELECT requests FROM api_key_daily_requests WHERE key_id = $1', [
        k.id,
      ]);
      expect(row!.requests).toBe(20);
      expect((await listItem(k.id)).requestsToday).toBe(20);
    }));

  it('requestsToday counts the requests of a key without a quota too (added within 5 s)', () =>
    onOneUtcDay(async () => {
      const k = await newKey(api, dev);
      for (let i = 0; i < 3; i++) expect((await query(token.id, 'totalSupply', k.apiKey)).status).toBe(201);
      expect((await rpc(k.apiKey, 'eth_chainId')).body.result).toBe('0x4647');
      const deadline = Date.now() + 10_000;
      while ((await listItem(k.id)).requestsToday !== 4 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
      }
      expect((await listItem(k.id)).requestsToday).toBe(4);
    }));

  it('rateLimitPerSecond: the key’s own per-second budget', async () => {
    const k = await newKey(api, dev, { rateLimitPerSecond: 2 });
    const results = await Promise.all(Array.from({ length: 8 }, () => query(token.id, 'totalSupply', k.apiKey)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(4);
  });
});

describe('the door’s WebSocket: the upgrade and every message meet the key’s policies', () => {
  /** A door WebSocket of `key`: `send` answers each message with the next answer (they come in order). */
  async function door(key: string, origin?: string) {
    const ws = new WebSocket(`${stack.url.replace('http', 'ws')}/rpc/testnet/${key}`, origin ? { origin } : {});
    const answers: any[] = [];
    const waiting: Array<(a: any) => void> = [];
    ws.on('message', (data) => {
      const answer = JSON.parse(String(data));
      const next = waiting.shift();
      if (next) next(answer);
      else answers.push(answer);
    });
    const opened = await new Promise<{ status?: number }>((resolve) => {
      ws.on('open', () => resolve({}));
      ws.on('unexpected-response', (_req, res) => {
        resolve({ status: res.statusCode });
        ws.terminate();
      });
      ws.on('error', () => undefined);
    });
    let id = 0;
    const send = (method: string, params: unknown[] = []) => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
      return new Promise<any>((resolve) => {
        const ready = answers.shift();
        if (ready) resolve(ready);
        else waiting.push(resolve);
      });
    };
    return { status: opened.status, send, close: () => ws.close() };
  }
  const count = '0x06661abd'; // count()

  it('addresses: the upgrade from outside the blocks is refused 403; from inside it opens', async () => {
    const outside = await newKey(api, dev, { allowedIps: ['10.0.0.0/8'] });
    expect((await door(outside.apiKey)).status).toBe(403);
    const inside = await door((await newKey(api, dev, { allowedIps: ['127.0.0.0/8'] })).apiKey);
    expect(inside.status).toBeUndefined();
    expect((await inside.send('eth_chainId')).result).toBe('0x4647');
    inside.close();
  });

  it('methods and contracts: a message outside them is refused in its answer, the others answered', async () => {
    const k = await newKey(api, dev, { allowedMethods: ['eth_chainId', 'eth_call'], contractIds: [counter.id] });
    const ws = await door(k.apiKey);
    expect((await ws.send('eth_blockNumber')).error).toMatchObject({ code: -32003, data: { policy: 'method' } });
    expect((await ws.send('eth_chainId')).result).toBe('0x4647');
    expect((await ws.send('eth_call', [{ to: other.address, data: count }, 'latest'])).error.code).toBe(-32602);
    expect((await ws.send('eth_call', [{ to: counter.address, data: count }, 'latest'])).result).toMatch(/^0x/);
    ws.close();
  });

  it('expiry: an open connection’s next message after the PATCH is refused -32001 (expired)', async () => {
    const k = await newKey(api, dev, { expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    const ws = await door(k.apiKey);
    expect((await ws.send('eth_chainId')).result).toBe('0x4647');
    expect((await patch(k.id, { expiresAt: new Date(Date.now() - 1000).toISOString() })).status).toBe(200);
    const refused = await ws.send('eth_chainId');
    expect(refused.error.code).toBe(-32001);
    expect(refused.error.message).toMatch(/expired/);
    ws.close();
  });

  it('daily quota: each message counts; past it -32005 with data.policy', () =>
    onOneUtcDay(async () => {
      const k = await newKey(api, dev, { dailyQuota: 2 });
      const ws = await door(k.apiKey);
      for (let i = 0; i < 2; i++) expect((await ws.send('eth_chainId')).result).toBe('0x4647');
      expect((await ws.send('eth_chainId')).error).toMatchObject({ code: -32005, data: { policy: 'dailyQuota' } });
      expect((await listItem(k.id)).requestsToday).toBe(2);
      ws.close();
    }));

  it('rateLimitPerSecond: a burst of messages past the key’s budget is refused -32005', async () => {
    const k = await newKey(api, dev, { rateLimitPerSecond: 2 });
    const ws = await door(k.apiKey);
    const answers = await Promise.all(Array.from({ length: 8 }, () => ws.send('eth_chainId')));
    expect(answers.filter((a) => a.result === '0x4647').length).toBeLessThanOrEqual(4);
    expect(answers.filter((a) => a.error?.code === -32005).length).toBeGreaterThanOrEqual(4);
    ws.close();
  });
});

describe('rateLimitPerSecond on GraphQL and the door over HTTP', () => {
  it('a burst past the key’s budget is refused RATE_LIMITED (GraphQL) and 429 -32005 (door)', async () => {
    // A key each, with the same budget: the door's burst does not wait for the GraphQL burst's window to pass.
    const [k, door] = await Promise.all([
      newKey(api, dev, { rateLimitPerSecond: 2 }),
      newKey(api, dev, { rateLimitPerSecond: 2 }),
    ]);
    const gql = await Promise.all(Array.from({ length: 8 }, () => gqlQuery(token.id, 'totalSupply', k.apiKey)));
    expect(gql.filter((r) => r.body.data?.queryContract?.result === '1000000').length).toBeLessThanOrEqual(4);
    expect(gql.filter((r) => r.body.errors?.[0]?.extensions?.code === 'RATE_LIMITED').length).toBeGreaterThanOrEqual(4);
    const rpcs = await Promise.all(Array.from({ length: 8 }, () => rpc(door.apiKey, 'eth_chainId')));
    expect(rpcs.filter((r) => r.body.result === '0x4647').length).toBeLessThanOrEqual(4);
    const limited = rpcs.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(4);
    for (const r of limited) expect(r.body.error.code).toBe(-32005);
  });
});

describe('contract events read with a key', () => {
  const events = (apiKey: string, headers?: Record<string, string>, contractId = counter.id) =>
    api.get(`/api/devportal/contracts/${contractId}/events`, { apiKey, headers });

  it('meet the expiry, origins, addresses and contracts; are not counted toward the daily quota', () =>
    onOneUtcDay(async () => {
      const byOrigin = await newKey(api, dev, { allowedOrigins: ['https://app.example'] });
      const noOrigin = await events(byOrigin.apiKey);
      expect(noOrigin.status).toBe(403);
      expect(noOrigin.body.error).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'origin' } });
      expect((await events(byOrigin.apiKey, { origin: 'https://app.example' })).status).toBe(200);
      const byIp = await events((await newKey(api, dev, { allowedIps: ['10.0.0.0/8'] })).apiKey);
      expect(byIp.body.error).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'ip' } });
      const expired = await events(
        (await newKey(api, dev, { expiresAt: new Date(Date.now() - 1000).toISOString() })).apiKey,
      );
      expect({ status: expired.status, code: expired.body.error.code }).toEqual({
        status: 401,
        code: 'INVALID_API_KEY',
      });
      const narrow = await newKey(api, dev, {
        contractIds: [token.id],
        dailyQuota: 1,
        allowedMethods: ['eth_chainId'],
      });
      expect((await events(narrow.apiKey)).body.error.code).toBe('KEY_NOT_FOR_CONTRACT');
      // Events are not methods, and their reads are not the quota's requests.
      for (let i = 0; i < 3; i++) expect((await events(narrow.apiKey, undefined, token.id)).status).toBe(200);
      expect((await listItem(narrow.id)).requestsToday).toBe(0);
      expect((await rpc(narrow.apiKey, 'eth_chainId')).body.result).toBe('0x4647');
    }));
});

describe('GraphQL subscriptions with a key', () => {
  /** The first outcome of a contractEvents subscription of `counter` opened with `key` (and an Origin). */
  async function firstOutcome(key: string, origin?: string): Promise<{ code?: string; event?: string }> {
    class OriginSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, origin ? { headers: { origin } } : {});
      }
    }
    const ws = createClient({
      url: stack.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: OriginSocket,
      retryAttempts: 0,
      connectionParams: { 'x-api-key': key },
    });
    try {
      return await new Promise((settle) => {
        let sending = false;
        // An accepted subscription hears the next event: one increment a second until it does.
        const poke = setInterval(() => {
          if (sending) return;
          sending = true;
          void api
            .post(`/api/devportal/contracts/${counter.id}/invoke/increment`, {}, { apiKey: writer })
            .finally(() => (sending = false));
        }, 1000);
        const timer = setTimeout(() => resolve({}), 30_000);
        function resolve(outcome: { code?: string; event?: string }) {
          clearInterval(poke);
          clearTimeout(timer);
          settle(outcome);
        }
        ws.subscribe(
          {
            query: `subscription($id: ID!) { contractEvents(contractId: $id, event: "Incremented") { event } }`,
            variables: { id: counter.id },
          },
          {
            next: (msg) => {
              if (msg.errors) resolve({ code: msg.errors[0]?.extensions?.code as string });
              else resolve({ event: (msg.data as any).contractEvents.event });
            },
            error: (e: any) => resolve({ code: (Array.isArray(e) ? e[0] : e)?.extensions?.code ?? String(e) }),
            complete: () => undefined,
          },
        );
      });
    } finally {
      await ws.dispose();
    }
  }
  let writer: string;
  beforeAll(async () => {
    writer = (await newKey(api, dev)).apiKey;
  });

  it('refuses outside origins and addresses, an expired key and another contract; allows the rest', async () => {
    const byOrigin = await newKey(api, dev, { allowedOrigins: ['https://app.example'] });
    expect(await firstOutcome(byOrigin.apiKey)).toEqual({ code: 'KEY_POLICY_DENIED' });
    expect(await firstOutcome(byOrigin.apiKey, 'https://evil.example')).toEqual({ code: 'KEY_POLICY_DENIED' });
    expect(await firstOutcome(byOrigin.apiKey, 'https://app.example')).toEqual({ event: 'Incremented' });
    const byIp = await newKey(api, dev, { allowedIps: ['10.0.0.0/8'] });
    expect(await firstOutcome(byIp.apiKey)).toEqual({ code: 'KEY_POLICY_DENIED' });
    const expired = await newKey(api, dev, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(await firstOutcome(expired.apiKey)).toEqual({ code: 'INVALID_API_KEY' });
    const elsewhere = await newKey(api, dev, { contractIds: [token.id, other.id] });
    expect(await firstOutcome(elsewhere.apiKey)).toEqual({ code: 'KEY_NOT_FOR_CONTRACT' });
    const several = await newKey(api, dev, { contractIds: [token.id, counter.id], allowedIps: ['127.0.0.0/8'] });
    expect(await firstOutcome(several.apiKey)).toEqual({ event: 'Incremented' });
  }, 120_000);
});

describe('key checks', () => {
  it('checks of one key that all miss the cache at once ask the database once', async () => {
    const k = await newKey(api, dev);
    const keys = stack.app.services.keys;
    // As when the cached key of thousands of eth_subscribe subscribers expires for all of them together.
    keys.forgetAll();
    const query = jest.spyOn(stack.app.dataSource, 'query');
    try {
      const checks = await Promise.all(
        Array.from({ length: 50 }, () => keys.authenticate({ apiKey: k.apiKey, recheck: true })),
      );
      expect(new Set(checks.map((p) => p.keyId))).toEqual(new Set([k.id]));
      const lookups = query.mock.calls.filter(([sql]) => /FROM api_keys WHERE key_hash = \$1 OR/.test(String(sql)));
      expect(lookups).toHaveLength(1);
    } finally {
      query.mockRestore();
    }
  });
});

describe('rotation', () => {
  it('without grace: the old secret stops at once, the new one keeps the id, policies and analytics', async () => {
    const k = await newKey(api, dev, { dailyQuota: 100 });
    expect((await query(token.id, 'totalSupply', k.apiKey)).status).toBe(201);
    const rotated = await rotate(k.id, { graceSeconds: 0 });
    expect(rotated.status).toBe(201);
    expect(rotated.headers.get('cache-control')).toContain('no-store');
    expect(rotated.body).toEqual({
      id: k.id,
      apiKey: expect.stringMatching(/^svc_[A-Za-z0-9_-]{43}$/),
      prefix: rotated.body.apiKey.slice(0, 12),
      previousKeyValidUntil: expect.any(String),
    });
    expect(Math.abs(Date.parse(rotated.body.previousKeyValidUntil) - Date.now())).toBeLessThan(5000);
    const old = await query(token.id, 'totalSupply', k.apiKey);
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('INVALID_API_KEY');
    expect((await rpc(k.apiKey, 'eth_chainId')).status).toBe(401);
    expect((await query(token.id, 'totalSupply', rotated.body.apiKey)).status).toBe(201);
    const item = await listItem(k.id);
    expect(item).toMatchObject({ id: k.id, prefix: rotated.body.prefix, dailyQuota: 100, requestsToday: 2 });
    expect(JSON.stringify(item)).not.toContain(rotated.body.apiKey);
  });

  it('with grace: both secrets work until previousKeyValidUntil; a second rotation ends the first secret', async () => {
    const k = await newKey(api, dev);
    const byDefault = await rotate(k.id);
    expect(byDefault.status).toBe(201);
    const validUntil = Date.parse(byDefault.body.previousKeyValidUntil);
    expect(Math.abs(validUntil - (Date.now() + 86_400_000))).toBeLessThan(10_000);
    expect((await query(token.id, 'totalSupply', k.apiKey)).status).toBe(201);
    expect((await query(token.id, 'totalSupply', byDefault.body.apiKey)).status).toBe(201);

    const short = await rotate(k.id, { graceSeconds: 2 });
    expect(short.status).toBe(201);
    // The first secret is two rotations old: gone.
    expect((await query(token.id, 'totalSupply', k.apiKey)).status).toBe(401);
    expect((await query(token.id, 'totalSupply', byDefault.body.apiKey)).status).toBe(201);
    expect((await query(token.id, 'totalSupply', short.body.apiKey)).status).toBe(201);
    await new Promise((r) =>
      setTimeout(r, Math.max(0, Date.parse(short.body.previousKeyValidUntil) - Date.now()) + 300),
    );
    expect((await query(token.id, 'totalSupply', byDefault.body.apiKey)).status).toBe(401);
    expect((await query(token.id, 'totalSupply', short.body.apiKey)).status).toBe(201);
  });

  it('refuses a revoked key and another developer’s key', async () => {
    const k = await newKey(api, dev);
    expect((await api.del(`/api/devportal/api-keys/${k.id}`, { token: dev.token })).status).toBe(200);
    const res = await rotate(k.id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE');
    const stranger = await login(api, stack.ca);
    const mine = await newKey(api, dev);
    const foreign = await api.post(`/api/devportal/api-keys/${mine.id}/rotate`, {}, { token: stranger.token });
    expect(foreign.status).toBe(404);
  });
});

describe('on a second instance', () => {
  let sibling: ServiceProcess;
  beforeAll(async () => {
    sibling = await spawnSibling(stack);
  }, 60_000);
  afterAll(async () => {
    await sibling?.stop();
  });

  it('a PATCH takes effect there from the very next request, and a rotation without grace too', async () => {
    const siblingApi = client(sibling.url);
    const k = await newKey(api, dev);
    const call = (key: string) =>
      siblingApi.post(`/api/devportal/contracts/${token.id}/query/totalSupply`, {}, { apiKey: key });
    expect((await call(k.apiKey)).status).toBe(201);
    expect((await call(k.apiKey)).status).toBe(201);
    expect((await patch(k.id, { allowedMethods: ['balanceOf'] })).status).toBe(200);
    const next = await call(k.apiKey);
    expect(next.status).toBe(403);
    expect(next.body.error).toMatchObject({ code: 'KEY_POLICY_DENIED', details: { policy: 'method' } });
    expect((await patch(k.id, { allowedMethods: null })).status).toBe(200);
    expect((await call(k.apiKey)).status).toBe(201);
    const rotated = await rotate(k.id, { graceSeconds: 0 });
    expect((await call(k.apiKey)).status).toBe(401);
    expect((await call(rotated.body.apiKey)).status).toBe(201);
  });

  it('counts the daily quota exactly across both instances', () =>
    onOneUtcDay(async () => {
      const siblingApi = client(sibling.url);
      const k = await newKey(api, dev, { dailyQuota: 15 });
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? siblingApi : api).post(
            `/api/devportal/contracts/${token.id}/query/totalSupply`,
            {},
            { apiKey: k.apiKey },
          ),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(15);
      expect(results.filter((r) => r.status === 429)).toHaveLength(25);
    }));
});
