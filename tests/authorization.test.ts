import jwt from 'jsonwebtoken';
import { REST_ROUTES, AREA_BASE, type RestRoute } from '../src/rest/routes';
import { client, type Client } from './kit/http';
import { deployRegistered, newKey } from './kit/flows';
import { login, type LoggedIn } from './kit/login';
import { COUNTER_SOURCE } from './kit/solidity';
import { startStack, TEST_JWT_SECRET, type Stack } from './kit/stack';

/**
 * The authorization matrix: every REST route of src/rest/routes.ts, tried with every kind of
 * wrong credential. `OTHER` says what another developer's valid credential gets on each
 * credential-protected route; a route without a row here fails the test.
 */
const OTHER: Record<string, { status: number; code: string }> = {
  'Query.me': { status: 200, code: '' },
  'Mutation.logout': { status: 201, code: '' },
  'Query.developer': { status: 403, code: 'FORBIDDEN' },
  'Mutation.createProject': { status: 201, code: '' },
  'Mutation.faucetDrip': { status: 201, code: '' },
  'Query.walletHistory': { status: 403, code: 'FORBIDDEN' },
  'Mutation.deployContract': { status: 201, code: '' },
  'Query.developerContracts': { status: 403, code: 'FORBIDDEN' },
  'Mutation.registerContractMiddleware': { status: 403, code: 'FORBIDDEN' },
  'Query.adminContracts': { status: 403, code: 'FORBIDDEN' },
  'Mutation.approveContract': { status: 403, code: 'FORBIDDEN' },
  'Mutation.rejectContract': { status: 403, code: 'FORBIDDEN' },
  'Mutation.createApiKey': { status: 403, code: 'FORBIDDEN' },
  'Query.apiKeys': { status: 403, code: 'FORBIDDEN' },
  'Mutation.revokeApiKey': { status: 404, code: 'NOT_FOUND' },
  'Mutation.updateApiKey': { status: 404, code: 'NOT_FOUND' },
  'Mutation.rotateApiKey': { status: 404, code: 'NOT_FOUND' },
  'Query.analytics': { status: 403, code: 'FORBIDDEN' },
  'Mutation.queryContract': { status: 403, code: 'FORBIDDEN' },
  'Mutation.invokeContract': { status: 403, code: 'FORBIDDEN' },
  'Query.contractEvents': { status: 403, code: 'FORBIDDEN' },
  // Transaction records are not revealed to those who may not read them.
  'Query.gatewayTransaction': { status: 404, code: 'NOT_FOUND' },
  'Mutation.cancelTransaction': { status: 404, code: 'NOT_FOUND' },
  'Mutation.retryTransaction': { status: 404, code: 'NOT_FOUND' },
  'Query.developerTransactions': { status: 403, code: 'FORBIDDEN' },
  'Mutation.createWebhook': { status: 403, code: 'FORBIDDEN' },
  'Query.webhooks': { status: 403, code: 'FORBIDDEN' },
  'Mutation.deleteWebhook': { status: 404, code: 'NOT_FOUND' },
  'Query.webhookDeliveries': { status: 404, code: 'NOT_FOUND' },
  'Mutation.testWebhook': { status: 403, code: 'FORBIDDEN' },
  'Mutation.redeliverWebhookDelivery': { status: 403, code: 'FORBIDDEN' },
  'Mutation.rotateWebhookSecret': { status: 403, code: 'FORBIDDEN' },
};

const WEBHOOK_BODY = { url: 'http://127.0.0.1:9/hook', events: ['transaction.status'] };

let stack: Stack;
let api: Client;
let owner: LoggedIn;
let other: LoggedIn;
let contract: { id: string; address: string };
let ownerKey: { id: string; apiKey: string };
let revokedKey: string;
let readOnlyKey: string;
let writeOnlyKey: string;
let restrictedKey: string;
let otherKey: string;
let transactionId: string;
let ownerWebhook: string;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  owner = await login(api, stack.ca);
  other = await login(api, stack.ca);
  for (const dev of [owner, other])
    expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  const deploy = (dev: LoggedIn) => deployRegistered(api, dev, COUNTER_SOURCE);
  const key = (dev: LoggedIn, body: Record<string, unknown> = {}) => newKey(api, dev, body);
  contract = await deploy(owner);
  ownerKey = await key(owner);
  const toRevoke = await key(owner);
  expect((await api.del(`/api/devportal/api-keys/${toRevoke.id}`, { token: owner.token })).status).toBe(200);
  revokedKey = toRevoke.apiKey;
  readOnlyKey = (await key(owner, { scopes: ['read'] })).apiKey;
  writeOnlyKey = (await key(owner, { scopes: ['write'] })).apiKey;
  // A key restricted to another of the owner's contracts.
  const second = await deploy(owner);
  restrictedKey = (await key(owner, { contractId: second.id })).apiKey;
  otherKey = (await key(other)).apiKey;
  const sent = await api.post(
    `/api/devportal/contracts/${contract.id}/invoke/increment`,
    {},
    { apiKey: ownerKey.apiKey },
  );
  transactionId = sent.body.transactionId;
  const webhook = await api.post(`/api/devportal/developers/${owner.developerId}/webhooks`, WEBHOOK_BODY, {
    token: owner.token,
  });
  expect(webhook.status).toBe(201);
  ownerWebhook = webhook.body.id;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** A concrete URL and body for a route, acting on `owner`'s resources. */
function request(route: RestRoute): { url: string; body?: unknown } {
  const values: Record<string, string> = {
    id: route.path.startsWith('/developers/')
      ? owner.developerId
      : route.path.startsWith('/transactions/')
        ? transactionId
        : contract.id,
    keyId: ownerKey.id,
    webhookId: ownerWebhook,
    // Any id: another developer is refused on the webhook before the delivery is looked at.
    deliveryId: '00000000-0000-4000-8000-000000000000',
    address: contract.address,
    hash: `0x${'ab'.repeat(32)}`,
    method: route.field === 'Mutation.invokeContract' ? 'increment' : 'count',
  };
  if (route.area === 'explorer' && route.path === '/block/{id}') values.id = '1';
  const url =
    AREA_BASE[route.area] + route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]!));
  const query = route.field === 'Query.search' ? '?q=1' : '';
  const body =
    route.field === 'Mutation.createProject'
      ? { name: 'p' }
      : route.field === 'Mutation.createWebhook'
        ? WEBHOOK_BODY
        : route.method === 'POST' || route.method === 'PATCH'
          ? {}
          : undefined;
  return { url: url + query, body };
}

function call(route: RestRoute, headers: Record<string, string>) {
  const { url, body } = request(route);
  return api.call(route.method, url, body, { headers });
}

const expired = () =>
  jwt.sign(
    {
      sub: owner.developerId,
      iss: 'qbft-devportal',
      iat: Math.floor(Date.now() / 1000) - 50_000,
      exp: Math.floor(Date.now() / 1000) - 10,
    },
    TEST_JWT_SECRET,
    { algorithm: 'HS256' },
  );

describe('authorization matrix', () => {
  it('has a row for every credential-protected route', () => {
    const protectedFields = REST_ROUTES.filter((r) => r.auth !== 'public')
      .map((r) => r.field)
      .sort();
    expect(Object.keys(OTHER).sort()).toEqual(protectedFields);
  });

  const jwtRoutes = REST_ROUTES.filter((r) => r.auth === 'dev-jwt');
  const keyRoutes = REST_ROUTES.filter((r) => r.auth === 'api-key');
  const publicRoutes = REST_ROUTES.filter((r) => r.auth === 'public');
  const eitherRoutes = REST_ROUTES.filter((r) => r.auth === 'dev-jwt-or-api-key');
  /** Routes of a transaction record: only its developer's token or the key that sent it. */
  const recordRoutes = eitherRoutes.filter((r) =>
    ['Query.gatewayTransaction', 'Mutation.cancelTransaction', 'Mutation.retryTransaction'].includes(r.field),
  );
  /** Routes that read a contract's data: the owner's token or a key allowed on the contract. */
  const contractReadRoutes = eitherRoutes.filter((r) => !recordRoutes.includes(r));

  it('covers every kind of route', () => {
    expect(jwtRoutes.length + keyRoutes.length + publicRoutes.length + eitherRoutes.length).toBe(REST_ROUTES.length);
  });
  it('covers the routes open to a token or a key', () => {
    expect(recordRoutes.map((r) => r.field).sort()).toEqual([
      'Mutation.cancelTransaction',
      'Mutation.retryTransaction',
      'Query.gatewayTransaction',
    ]);
    expect(contractReadRoutes.map((r) => r.field)).toEqual(['Query.contractEvents']);
  });

  it.each(recordRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: refuses every wrong credential, and answers 404 to other principals',
    async (_name, route) => {
      const cells: Array<[string, Record<string, string>, number, string]> = [
        ['nothing', {}, 401, 'UNAUTHENTICATED'],
        ['a malformed token', { authorization: 'Bearer not.a.jwt' }, 401, 'UNAUTHENTICATED'],
        ['a non-Bearer header', { authorization: 'Token abc' }, 401, 'UNAUTHENTICATED'],
        ['an expired token', { authorization: `Bearer ${expired()}` }, 401, 'UNAUTHENTICATED'],
        ['a malformed key', { 'x-api-key': 'svc_short' }, 401, 'INVALID_API_KEY'],
        ['an unknown key', { 'x-api-key': `svc_${'x'.repeat(43)}` }, 401, 'INVALID_API_KEY'],
        ['a revoked key', { 'x-api-key': revokedKey }, 401, 'INVALID_API_KEY'],
        ['another developer', { authorization: `Bearer ${other.token}` }, 404, 'NOT_FOUND'],
        ['a key of another developer', { 'x-api-key': otherKey }, 404, 'NOT_FOUND'],
        ['another key of the owner', { 'x-api-key': readOnlyKey }, 404, 'NOT_FOUND'],
      ];
      for (const [label, headers, status, code] of cells) {
        const res = await call(route, headers);
        expect({ label, status: res.status, code: res.body?.error?.code }).toEqual({ label, status, code });
      }
      // Its developer and the key that sent it may act on it: read it, or find it mined, too late to cancel or retry.
      const allowed = route.field === 'Query.gatewayTransaction' ? 200 : 409;
      expect((await call(route, { authorization: `Bearer ${owner.token}` })).status).toBe(allowed);
      expect((await call(route, { 'x-api-key': ownerKey.apiKey })).status).toBe(allowed);
    },
  );

  it.each(jwtRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: refuses every wrong credential',
    async (_name, route) => {
      const cells: Array<[string, Record<string, string>, number, string]> = [
        ['nothing', {}, 401, 'UNAUTHENTICATED'],
        ['a malformed token', { authorization: 'Bearer not.a.jwt' }, 401, 'UNAUTHENTICATED'],
        ['a non-Bearer header', { authorization: 'Token abc' }, 401, 'UNAUTHENTICATED'],
        ['an expired token', { authorization: `Bearer ${expired()}` }, 401, 'UNAUTHENTICATED'],
        ['an API key in x-api-key', { 'x-api-key': ownerKey.apiKey }, 401, 'UNAUTHENTICATED'],
        ['an API key as Bearer', { authorization: `Bearer ${ownerKey.apiKey}` }, 401, 'UNAUTHENTICATED'],
      ];
      for (const [label, headers, status, code] of cells) {
        const res = await call(route, headers);
        expect({ label, status: res.status, code: res.body?.error?.code }).toEqual({ label, status, code });
      }
      const expectation = OTHER[route.field]!;
      if (expectation.code) {
        const res = await call(route, { authorization: `Bearer ${other.token}` });
        expect({ label: 'another developer', status: res.status, code: res.body?.error?.code }).toEqual({
          label: 'another developer',
          ...expectation,
        });
      }
    },
  );

  it.each(keyRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: refuses every wrong credential',
    async (_name, route) => {
      const isInvoke = route.field === 'Mutation.invokeContract';
      const cells: Array<[string, Record<string, string>, number, string]> = [
        ['nothing', {}, 401, 'INVALID_API_KEY'],
        ['a malformed key', { 'x-api-key': 'svc_short' }, 401, 'INVALID_API_KEY'],
        ['an unknown key', { 'x-api-key': `svc_${'x'.repeat(43)}` }, 401, 'INVALID_API_KEY'],
        ['a revoked key', { 'x-api-key': revokedKey }, 401, 'INVALID_API_KEY'],
        ['a developer token', { authorization: `Bearer ${owner.token}` }, 401, 'INVALID_API_KEY'],
        ['a key of another developer', { 'x-api-key': otherKey }, 403, 'FORBIDDEN'],
        ['a key restricted to another contract', { 'x-api-key': restrictedKey }, 403, 'KEY_NOT_FOR_CONTRACT'],
        ['a key without the scope', { 'x-api-key': isInvoke ? readOnlyKey : writeOnlyKey }, 403, 'INSUFFICIENT_SCOPE'],
      ];
      for (const [label, headers, status, code] of cells) {
        const res = await call(route, headers);
        expect({ label, status: res.status, code: res.body?.error?.code }).toEqual({ label, status, code });
      }
      const ok = await call(route, { 'x-api-key': ownerKey.apiKey });
      expect(ok.status).toBe(201);
    },
  );

  it.each(contractReadRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: takes the owner’s token or a key with the scope, refuses every wrong credential',
    async (_name, route) => {
      const cells: Array<[string, Record<string, string>, number, string]> = [
        ['nothing', {}, 401, 'UNAUTHENTICATED'],
        ['a malformed token', { authorization: 'Bearer not.a.jwt' }, 401, 'UNAUTHENTICATED'],
        ['a non-Bearer header', { authorization: 'Token abc' }, 401, 'UNAUTHENTICATED'],
        ['an expired token', { authorization: `Bearer ${expired()}` }, 401, 'UNAUTHENTICATED'],
        ['a malformed key', { 'x-api-key': 'svc_short' }, 401, 'INVALID_API_KEY'],
        ['an unknown key', { 'x-api-key': `svc_${'x'.repeat(43)}` }, 401, 'INVALID_API_KEY'],
        ['a revoked key', { 'x-api-key': revokedKey }, 401, 'INVALID_API_KEY'],
        ['another developer’s token', { authorization: `Bearer ${other.token}` }, 403, 'FORBIDDEN'],
        ['a key of another developer', { 'x-api-key': otherKey }, 403, 'FORBIDDEN'],
        ['a key restricted to another contract', { 'x-api-key': restrictedKey }, 403, 'KEY_NOT_FOR_CONTRACT'],
        ['a key without the scope', { 'x-api-key': writeOnlyKey }, 403, 'INSUFFICIENT_SCOPE'],
      ];
      for (const [label, headers, status, code] of cells) {
        const res = await call(route, headers);
        expect({ label, status: res.status, code: res.body?.error?.code }).toEqual({ label, status, code });
      }
      const ok = 200;
      expect((await call(route, { authorization: `Bearer ${owner.token}` })).status).toBe(ok);
      expect((await call(route, { 'x-api-key': ownerKey.apiKey })).status).toBe(ok);
      expect((await call(route, { authorization: `Bearer ${readOnlyKey}` })).status).toBe(ok);
    },
  );

  it.each(publicRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: needs no credential and ignores bad ones',
    async (_name, route) => {
      const plain = await call(route, {});
      expect(plain.status).toBeLessThan(500);
      expect(plain.status).not.toBe(401);
      const withJunk = await call(route, { authorization: 'Bearer junk', 'x-api-key': 'svc_junk' });
      expect(withJunk.status).toBe(plain.status);
    },
  );

  it('applies the same rules to the GraphQL fields', async () => {
    const me = await api.graphql('{ me { id } }', {}, { headers: { 'x-api-key': ownerKey.apiKey } });
    expect(me.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const q = `mutation($id: ID!) { queryContract(id: $id, method: "count") { result } }`;
    expect((await api.graphql(q, { id: contract.id })).body.errors[0].extensions.code).toBe('INVALID_API_KEY');
    expect((await api.graphql(q, { id: contract.id }, { token: owner.token })).body.errors[0].extensions.code).toBe(
      'INVALID_API_KEY',
    );
    expect((await api.graphql(q, { id: contract.id }, { apiKey: otherKey })).body.errors[0].extensions.code).toBe(
      'FORBIDDEN',
    );
    expect((await api.graphql(q, { id: contract.id }, { apiKey: restrictedKey })).body.errors[0].extensions.code).toBe(
      'KEY_NOT_FOR_CONTRACT',
    );
    expect((await api.graphql(q, { id: contract.id }, { apiKey: writeOnlyKey })).body.errors[0].extensions.code).toBe(
      'INSUFFICIENT_SCOPE',
    );
    expect(
      (await api.graphql(q, { id: contract.id }, { apiKey: ownerKey.apiKey })).body.data.queryContract.result,
    ).toMatch(/^\d+$/);
    const keys = `query($id: ID!) { apiKeys(id: $id) { items { id } } }`;
    expect(
      (await api.graphql(keys, { id: owner.developerId }, { token: other.token })).body.errors[0].extensions.code,
    ).toBe('FORBIDDEN');
    expect(
      (await api.graphql(keys, { id: owner.developerId }, { token: expired() })).body.errors[0].extensions.code,
    ).toBe('UNAUTHENTICATED');
  });
});
