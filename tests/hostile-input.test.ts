/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import fc from 'fast-check';
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { Client as PgClient } from 'pg';
import { AREA_BASE, REST_ROUTES, type RestRoute } from '../src/rest/routes';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { COUNTER_SOURCE } from './kit/solidity';
import { startStack, type Stack } from './kit/stack';

/**
 * Property: whatever arrives (random and adversarial JSON bodies, query strings and path
 * parameters), the service answers within a few seconds, never 5xx, always in the error shape of
 * docs/api.md, "Conventions" when it refuses, and a refused request changes no state.
 */
let stack: Stack;
let api: Client;
let dev: LoggedIn;
let key: string;
let contractId: string;
let pg: PgClient;

const nasty = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    '1.5',
    'NaN',
    '0x',
    '0xzz',
    `0x${'f'.repeat(65)}`,
    `0x${'a'.repeat(39)}`,
    '../../etc/passwd',
    '%2e%2e%2f',
    "'; DROP TABLE contracts; --",
    '__proto__',
    'constructor',
    '\u0000',
    '😀'.repeat(50),
    'x'.repeat(20_000),
    '115792089237316195423570985008687907853269984665640564039457584007913129639936',
    'svc_' + 'A'.repeat(43),
  ),
  fc.string(),
  fc.integer().map(String),
);

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -1, 2 ** 53 + 1, 1e308, -0.5, Number.MAX_SAFE_INTEGER),
    nasty,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'args', 'name', 'network', 'source', 'scopes'),
        fc.string(),
      ),
      tie('value'),
      { maxKeys: 5 },
    ),
  ),
})).value;

const deep = fc.integer({ min: 50, max: 3000 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown);

const body = fc.oneof(
  jsonValue,
  deep,
  fc.dictionary(fc.string(), jsonValue, { maxKeys: 6 }),
  fc.record({ args: fc.array(jsonValue, { maxLength: 4 }) }),
);

/** Rows in the tables a request could write. */
async function snapshot(): Promise<string> {
  const { rows } = await pg.query(
    `SELECT (SELECT count(*) FROM projects) AS projects, (SELECT count(*) FROM contracts) AS contracts,
            (SELECT count(*) FROM api_keys) AS keys, (SELECT count(*) FROM api_keys WHERE status = 'revoked') AS revoked,
            (SELECT count(*) FROM faucet_drips) AS drips, (SELECT count(*) FROM chain_transactions) AS txs,
            (SELECT count(*) FROM developers) AS developers`,
  );
  return JSON.stringify(rows[0]);
}

beforeAll(async () => {
  stack = await startStack({ API_KEY_RATE_LIMIT: '0' });
  api = client(stack.url);
  dev = await login(api, stack.ca);
  await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
  const c = (await api.post('/api/devportal/contracts/deploy', { source: COUNTER_SOURCE }, { token: dev.token })).body;
  await api.post(`/api/devportal/contracts/${c.id}/register-middleware`, {}, { token: dev.token });
  contractId = c.id;
  key = (await api.post(`/api/devportal/developers/${dev.developerId}/api-keys`, {}, { token: dev.token })).body.apiKey;
  pg = new PgClient({ connectionString: stack.databaseUrl });
  await pg.connect();
}, 120_000);
afterAll(async () => {
  await pg?.end();
  await stack?.stop();
});

function check(res: { status: number; body: any }, label: string) {
  if (res.status >= 500) throw new Error(`${label} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  if (res.status >= 400) {
    expect(res.body).toEqual({
      error: expect.objectContaining({ code: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) }),
    });
    expect(JSON.stringify(res.body)).not.toMatch(
      /\bat .+\.(ts|js):\d+|node_modules|SELECT |postgres:\/\/|127\.0\.0\.1:\d+/,
    );
  }
}

describe('hostile input', () => {
  const routes = REST_ROUTES.filter((r) => !['Mutation.edsChallenge', 'Mutation.faucetDrip'].includes(r.field));

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s never answers 5xx and refuses cleanly',
    async (_n, route: RestRoute) => {
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), nasty, { maxKeys: 3 }),
          nasty,
          body,
          fc.boolean(),
          // Broken %-escapes sent as they are (the other path values are encoded).
          fc.option(fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF'), { nil: '' }),
          async (query, pathValue, payload, realIds, rawEscape) => {
            const path = route.path.replace(
              /\{(\w+)\}/g,
              (_m, name: string) =>
                encodeURIComponent(
                  realIds
                    ? name === 'id'
                      ? route.path.startsWith('/developers/')
                        ? dev.developerId
                        : contractId
                      : pathValue
                    : pathValue,
                ) + rawEscape || 'x',
            );
            const qs = new URLSearchParams(query as Record<string, string>).toString();
            const url = `${AREA_BASE[route.area]}${path}${qs ? `?${qs}` : ''}`;
            const before = route.method === 'GET' ? '' : await snapshot();
            const res = await api.call(route.method, url, route.method === 'POST' ? payload : undefined, {
              token: dev.token,
              apiKey: key,
            });
            check(res, `${route.method} ${url}`);
            if (res.status >= 400 && route.method !== 'GET') expect(await snapshot()).toBe(before);
          },
        ),
        { numRuns: 15, interruptAfterTimeLimit: 20_000 },
      );
    },
  );

  /** One GraphQL request over HTTP, or over a graphql-ws connection (the same answer shape either way). */
  type Face = 'HTTP' | 'WebSocket';
  const wsClients = new Map<boolean, WsClient>();
  afterAll(async () => {
    for (const c of wsClients.values()) await c.dispose();
  });
  const wsClientFor = (authenticated: boolean): WsClient => {
    let c = wsClients.get(authenticated);
    if (!c) {
      c = createClient({
        url: `${stack.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: authenticated ? { authorization: `Bearer ${dev.token}`, 'x-api-key': key } : {},
      });
      wsClients.set(authenticated, c);
    }
    return c;
  };
  const send = async (
    face: Face,
    query: string,
    variables: Record<string, unknown> | undefined,
    authenticated: boolean,
  ): Promise<{ status: number; body: any }> => {
    if (face === 'HTTP') {
      return api.call('POST', '/graphql', { query, variables }, authenticated ? { token: dev.token, apiKey: key } : {});
    }
    const body = await new Promise<any>((resolve, reject) => {
      // The first result is the answer (a subscription would go on: it is ended there).
      const stop = wsClientFor(authenticated).subscribe(
        { query, variables },
        {
          next: (result) => {
            resolve(result);
            stop();
          },
          error: (errors) =>
            Array.isArray(errors) ? resolve({ errors }) : reject(new Error(`WebSocket failed: ${String(errors)}`)),
          complete: () => resolve({}),
        },
      );
    });
    return { status: 200, body };
  };

  it.each(['HTTP', 'WebSocket'] as const)(
    'GraphQL over %s: random documents and random variables for every root field never cause a 5xx or an unshaped error',
    async (face) => {
      const schema = (
        await api.graphql(
          '{ __schema { queryType { fields { name args { name type { kind name ofType { kind name ofType { kind name } } } } } } mutationType { fields { name args { name type { kind name ofType { kind name ofType { kind name } } } } } } } }',
        )
      ).body.data.__schema;
      const typeRef = (t: any): string =>
        t.kind === 'NON_NULL' ? `${typeRef(t.ofType)}!` : t.kind === 'LIST' ? `[${typeRef(t.ofType)}]` : t.name;
      const operations = [
        ...schema.queryType.fields.map((f: any) => ['query', f] as const),
        ...schema.mutationType.fields.map((f: any) => ['mutation', f] as const),
      ];
      const shaped = (res: { status: number; body: any }) => {
        expect(res.status).toBeLessThan(500);
        for (const e of res.body?.errors ?? []) expect(e.extensions?.code).toMatch(/^[A-Z_]+$/);
      };
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...operations),
          fc.array(jsonValue, { minLength: 3, maxLength: 6 }),
          async ([op, field], values) => {
            const args = field.args as Array<{ name: string; type: unknown }>;
            const decl = args.map((a) => `$${a.name}: ${typeRef(a.type)}`).join(', ');
            const use = args.map((a) => `${a.name}: $${a.name}`).join(', ');
            const query = `${op}${decl ? `(${decl})` : ''} { ${field.name}${use ? `(${use})` : ''} { __typename } }`;
            const variables = Object.fromEntries(args.map((a, i) => [a.name, values[i % values.length]]));
            shaped(await send(face, query, variables, true));
          },
        ),
        { numRuns: 150 },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.string(),
            nasty,
            fc.constantFrom(
              '{',
              '}}}',
              'query {',
              '{ a: __typename, a: __schema }',
              'subscription { serverTime { now } }',
            ),
          ),
          async (query) => {
            shaped(await send(face, query, undefined, false));
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it('refuses malformed bodies of every shape on a write route', async () => {
    for (const raw of [
      '{',
      '{"a":}',
      '[',
      'null',
      '1',
      '"s"',
      '\u0000',
      '{"__proto__": {"polluted": true}}',
      'x'.repeat(100),
    ]) {
      const res = await api.call('POST', '/api/devportal/projects', undefined, { raw, token: dev.token });
      check(res, raw);
      expect(res.status).toBe(400);
    }
    expect(({} as any).polluted).toBeUndefined();
  });
});
