import { createHmac, randomBytes } from 'node:crypto';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { LOCAL_NODE_FUNDED_KEY } from '../../src/chain/local-node';
import { openPrivateKey } from '../../src/modules/wallets/wallet-key-cipher';
import { client, type ApiResponse, type CallOptions } from '../kit/http';
import { login } from '../kit/login';
import type { ServiceProcess } from '../kit/process';
import { COUNTER_SOURCE, TOKEN_SOURCE } from '../kit/solidity';
import { TEST_JWT_SECRET, TEST_WALLET_KEY } from '../kit/stack';
import { sql, startFaultEnv, type FaultEnv } from './fault-env';

// A full flow against a service process logging at debug level: no log line and no response
// body may carry a wallet key, the faucet key, an API key (but in the one answer that creates
// it), a JWT (but in login answers), the wallet encryption key, the JWT secret or the database password.

let env: FaultEnv;
let service: ServiceProcess;
/** Everything the process printed, from its first line. */
let output = '';
const DATABASE_PASSWORD = `db-${randomBytes(12).toString('hex')}`;

interface Seen {
  what: string;
  status: number;
  text: string;
}
const responses: Seen[] = [];
const apiKeys: string[] = [];
const jwts: string[] = [];

beforeAll(async () => {
  env = await startFaultEnv();
  // The machine's PostgreSQL trusts local connections: the password is never asked, but it must never show.
  const databaseUrl = new URL(env.databaseUrl);
  databaseUrl.password = DATABASE_PASSWORD;
  service = await env.spawn({ LOG_LEVEL: 'debug', DATABASE_URL: databaseUrl.toString() });
  // spawnService keeps only the tail of a long output: collect it all from here on.
  output = service.output();
  service.proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  service.proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

/** The kit's client, keeping every response body. */
function recordingClient(url: string) {
  const api = client(url);
  const keep = async (what: string, pending: Promise<ApiResponse>) => {
    const res = await pending;
    responses.push({
      what,
      status: res.status,
      text: typeof res.body === 'string' ? res.body : JSON.stringify(res.body),
    });
    return res;
  };
  return {
    get: (path: string, opts?: CallOptions) => keep(`GET ${path}`, api.get(path, opts)),
    post: (path: string, body?: unknown, opts?: CallOptions) => keep(`POST ${path}`, api.post(path, body, opts)),
    del: (path: string, opts?: CallOptions) => keep(`DELETE ${path}`, api.del(path, opts)),
    graphql: (query: string, variables?: Record<string, unknown>, opts?: CallOptions) =>
      keep(`GraphQL ${query.slice(0, 40)}`, api.graphql(query, variables, opts)),
  };
}

const b64url = (v: object | string) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** Tokens a client may forge: unsigned, signed with another secret, another algorithm, expired. */
function forgedTokens(developerId: string): string[] {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: developerId, iss: 'qbft-devportal', iat: now, exp: now + 3600 };
  const hs256 = (payload: object, secret: string) => {
    const head = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(payload)}`;
    return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
  };
  return [
    `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`,
    hs256(claims, 'another-secret-0123456789abcdef0123456789'),
    `${b64url({ alg: 'HS512', typ: 'JWT' })}.${b64url(claims)}.${createHmac('sha512', TEST_JWT_SECRET).update('x').digest('base64url')}`,
    hs256({ ...claims, iat: now - 7200, exp: now - 3600 }, TEST_JWT_SECRET),
  ];
}

async function flow(): Promise<void> {
  const api = recordingClient(service.url);
  const raw = client(service.url);
  // Login answers carry the token; they are the only ones allowed to.
  const dev = await login(raw, env.ca);
  const poor = await login(raw, env.ca);
  jwts.push(dev.token, poor.token);
  const auth = { token: dev.token };

  await api.get('/api/devportal/auth/me', auth);
  await api.get(`/api/devportal/developers/${dev.developerId}`, auth);
  const project = await api.post('/api/devportal/projects', { name: 'secrets' }, auth);
  expect((await api.post('/api/devportal/faucet/drip', {}, auth)).status).toBe(201);
  await api.get(`/api/devportal/wallets/${dev.walletAddress}/balance?network=testnet`);

  const counter = await api.post(
    '/api/devportal/contracts/deploy',
    { source: COUNTER_SOURCE, projectId: project.body.id },
    auth,
  );
  expect(counter.body.status).toBe('deployed');
  const token = await api.post(
    '/api/devportal/contracts/deploy',
    { source: TOKEN_SOURCE, constructorArgs: ['1000'] },
    auth,
  );
  expect(token.body.status).toBe('deployed');
  await api.post('/api/devportal/contracts/deploy', { source: COUNTER_SOURCE, network: 'mainnet' }, auth);
  // Errors of deployment: no money, bad source.
  expect(
    (await api.post('/api/devportal/contracts/deploy', { source: COUNTER_SOURCE }, { token: poor.token })).body.error
      .code,
  ).toBe('INSUFFICIENT_FUNDS');
  await api.post('/api/devportal/contracts/compile', { source: 'contract {' }, auth);
  for (const c of [counter, token]) {
    expect((await api.post(`/api/devportal/contracts/${c.body.id}/register-middleware`, {}, auth)).status).toBe(201);
    await api.get(`/api/devportal/contracts/${c.body.id}`);
    await api.get(`/api/devportal/contracts/${c.body.id}/openapi.json`);
    await api.get(`/api/devportal/contracts/${c.body.id}/swagger`);
  }

  const keysUrl = `/api/devportal/developers/${dev.developerId}/api-keys`;
  const created = [];
  for (const body of [{ name: 'ci' }, { name: 'read', scopes: ['read'] }]) {
    const res = await raw.post(keysUrl, body, auth);
    expect(res.status).toBe(201);
    // The one answer allowed to carry the key: checked here, kept out of the scan below.
    expect(res.body.apiKey).toMatch(/^svc_/);
    apiKeys.push(res.body.apiKey);
    created.push(res.body as { id: string; apiKey: string });
  }
  const [key, readKey] = created as [{ id: string; apiKey: string }, { id: string; apiKey: string }];
  await api.get(keysUrl, auth);

  const gw = (c: ApiResponse, kind: string, method: string, body: unknown, opts: CallOptions) =>
    api.post(`/api/devportal/contracts/${c.body.id}/${kind}/${method}`, body, opts);
  expect((await gw(counter, 'query', 'count', {}, { apiKey: key.apiKey })).status).toBe(201);
  expect(
    (await gw(counter, 'invoke', 'increment', {}, { apiKey: key.apiKey, headers: { 'Idempotency-Key': 'k-1' } }))
      .status,
  ).toBe(201);
  expect(
    (await gw(counter, 'invoke', 'increment', {}, { apiKey: key.apiKey, headers: { 'Idempotency-Key': 'k-1' } }))
      .status,
  ).toBe(201);
  expect(
    (
      await gw(
        counter,
        'invoke',
        'increment',
        { gasLimit: '1' },
        { apiKey: key.apiKey, headers: { 'Idempotency-Key': 'k-1' } },
      )
    ).status,
  ).toBe(422);
  expect((await gw(token, 'query', 'balanceOf', [dev.walletAddress], { token: key.apiKey })).status).toBe(400);
  expect((await gw(token, 'invoke', 'burnExactly', { args: ['99999'] }, { apiKey: key.apiKey })).body.error.code).toBe(
    'EXECUTION_REVERTED',
  );
  expect(
    (await gw(token, 'invoke', 'transfer', { args: [poor.walletAddress, '5'] }, { apiKey: readKey.apiKey })).status,
  ).toBe(403);
  expect(
    (await gw(counter, 'query', 'count', {}, { apiKey: key.apiKey, headers: { 'x-request-id': 'secrets-1' } })).status,
  ).toBe(201);
  await api.graphql(
    `mutation { invokeContract(id: "${counter.body.id}", method: "increment") { txHash status } }`,
    {},
    { apiKey: key.apiKey },
  );
  await api.graphql(`{ apiKeys(id: "${dev.developerId}") { items { id prefix } } }`, {}, auth);
  await api.get(`/api/devportal/developers/${dev.developerId}/wallet-history?network=testnet`, auth);
  await api.get(`/api/devportal/developers/${dev.developerId}/analytics?days=1`, auth);
  await api.get(`/api/explorer/address/${dev.walletAddress}?network=testnet&scan=50`);

  // Revocation, then the revoked key, unknown and malformed keys, and forged or broken tokens.
  expect((await api.del(`/api/devportal/api-keys/${key.id}`, auth)).status).toBe(200);
  const unknownKey = `svc_${randomBytes(32).toString('base64url')}`;
  const malformedKey = `svc_${randomBytes(20).toString('hex')}!`;
  apiKeys.push(unknownKey, malformedKey);
  for (const k of [key.apiKey, unknownKey, malformedKey]) {
    expect((await gw(counter, 'query', 'count', {}, { apiKey: k })).status).toBe(401);
    expect((await gw(counter, 'invoke', 'increment', {}, { token: k })).status).toBe(401);
    await api.graphql(`{ queryContract(id: "${counter.body.id}", method: "count") }`, {}, { apiKey: k });
  }
  const forged = forgedTokens(dev.developerId);
  const broken = `${dev.token.slice(0, -4)}AAAA`;
  jwts.push(...forged, broken);
  for (const t of [...forged, broken, 'not-a-jwt']) {
    expect((await api.get('/api/devportal/auth/me', { token: t })).status).toBe(401);
    expect((await api.post('/api/devportal/faucet/drip', {}, { token: t })).status).toBe(401);
    await api.graphql('{ me { id } }', {}, { token: t });
    await api.post(keysUrl, {}, { token: t });
  }

  // The same over the WebSocket: a valid and a forged token in connectionParams.
  for (const t of [dev.token, forged[1]!]) {
    const ws = createClient({
      url: `${service.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${t}` },
    });
    try {
      const result = await new Promise<unknown>((resolve) => {
        let last: unknown;
        ws.subscribe(
          { query: '{ me { id walletAddress } }' },
          { next: (v) => (last = v), error: (e) => resolve(e), complete: () => resolve(last) },
        );
      });
      responses.push({ what: 'ws me', status: 0, text: JSON.stringify(result) });
    } finally {
      await ws.dispose();
    }
  }
}

describe('secrets', () => {
  it('never appear in logs or response bodies', async () => {
    await flow();
    // Let the last records and debug lines be written.
    await new Promise((r) => setTimeout(r, 1500));

    const wallets = await sql<{ address: string; encrypted_key: Buffer }>(
      env.databaseUrl,
      'SELECT address, encrypted_key FROM custodial_wallets',
    );
    expect(wallets.length).toBe(2);
    const walletKeys = wallets.map((w) =>
      openPrivateKey(w.encrypted_key, w.address, Buffer.from(TEST_WALLET_KEY, 'hex')),
    );
    const forbidden: Array<[string, string]> = [
      ...walletKeys.map((k, i): [string, string] => [`wallet key ${i}`, k.slice(2)]),
      ['faucet key', LOCAL_NODE_FUNDED_KEY.slice(2)],
      ['WALLET_ENCRYPTION_KEY (hex)', TEST_WALLET_KEY],
      ['WALLET_ENCRYPTION_KEY (base64)', Buffer.from(TEST_WALLET_KEY, 'hex').toString('base64')],
      ['JWT_SECRET', TEST_JWT_SECRET],
      ['database password', DATABASE_PASSWORD],
      ...apiKeys.map((k, i): [string, string] => [`API key ${i}`, k]),
      ...jwts.map((t, i): [string, string] => [`JWT ${i}`, t]),
      ...jwts
        .map((t, i): [string, string] => [`JWT signature ${i}`, t.split('.')[2] ?? ''])
        .filter(([, s]) => s.length > 0),
    ];

    // The scan is not vacuous: the output holds debug lines and a line per request.
    const lines = output.split('\n').filter((l) => l.trim() !== '');
    expect(lines.some((l) => l.includes('"level":20'))).toBe(true);
    expect(lines.filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThan(responses.length);
    expect(responses.length).toBeGreaterThan(60);

    const leaks: string[] = [];
    const scan = (where: string, text: string) => {
      const lower = text.toLowerCase();
      for (const [name, secret] of forbidden) {
        const caseless = /^[0-9a-f]+$/i.test(secret);
        if (caseless ? lower.includes(secret.toLowerCase()) : text.includes(secret)) leaks.push(`${name} in ${where}`);
      }
      // Any JWT-shaped string at all.
      if (/eyJ[\w-]{5,}\.eyJ[\w-]{5,}\./.test(text)) leaks.push(`a JWT in ${where}`);
    };
    // The scan finds what it looks for.
    scan('probe', JSON.stringify({ accessToken: jwts[0], apiKey: apiKeys[0], key: walletKeys[0]!.toUpperCase() }));
    expect(leaks).toEqual([
      'wallet key 0 in probe',
      'API key 0 in probe',
      'JWT 0 in probe',
      'JWT signature 0 in probe',
      'a JWT in probe',
    ]);
    leaks.length = 0;

    lines.forEach((l, i) => scan(`log line ${i}: ${l.slice(0, 200)}`, l));
    for (const r of responses) scan(`response to ${r.what} (${r.status})`, r.text);
    expect(leaks).toEqual([]);
  }, 90_000);
});
