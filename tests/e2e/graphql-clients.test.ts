import { deployRegistered, newKey } from '../kit/flows';
import { client, type Client } from '../kit/http';
import { login, type LoggedIn } from '../kit/login';
import { TOKEN_SOURCE } from '../kit/solidity';
import { sqlRows, startStack, type Stack } from '../kit/stack';

/*
 * GraphQL for every client (docs/api.md, "Three faces of one schema" and "GraphQL specifics"): the
 * clients integrators use, each with its defaults, against the running service. urql sends queries
 * over GET without a content-type (preferGetMethod 'within-url-limit'); graphql-request and Apollo
 * Client with theirs send POST with application/json, and over GET (graphql-request's
 * `method: 'GET'`, Apollo's useGETForQueries) likewise without a content-type; contract reads
 * travel as the query readContract and are cached by the clients.
 */

// Apollo Client and graphql-request are ECMAScript modules: loaded with import() (jest gives it their
// CommonJS builds), typed as such.
let apolloClient: typeof import('@apollo/client', { with: { 'resolution-mode': 'import' } });
let urqlCore: typeof import('@urql/core', { with: { 'resolution-mode': 'import' } });
let graphqlRequest: typeof import('graphql-request', { with: { 'resolution-mode': 'import' } });

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let token: { id: string };
let apiKey: string;
let holder: string;

/** What a client sent: method, URL and headers of each request, seen through its `fetch` option. */
interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
}
const sent: Sent[] = [];
const recordingFetch: typeof fetch = (input, init) => {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
  sent.push({ method: (init?.method ?? 'GET').toUpperCase(), url: String(input), headers });
  return fetch(input, init);
};
/** The requests a call made. */
async function requestsOf<T>(call: () => PromiseLike<T> | T): Promise<{ result: Awaited<T>; requests: Sent[] }> {
  const before = sent.length;
  const result = await call();
  return { result, requests: sent.slice(before) };
}

const READ = `query Read($id: ID!, $method: String!, $args: JSON) {
  readContract(id: $id, method: $method, args: $args) { result blockNumber }
}`;
const QUERY = `mutation Query($id: ID!, $method: String!, $args: JSON) {
  queryContract(id: $id, method: $method, args: $args) { result blockNumber }
}`;

beforeAll(async () => {
  [apolloClient, urqlCore, graphqlRequest] = await Promise.all([
    import('@apollo/client'),
    import('@urql/core'),
    import('graphql-request'),
  ]);
  stack = await startStack();
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000000000000000000']);
  apiKey = (await newKey(api, dev, { scopes: ['read'] })).apiKey;
  holder = dev.walletAddress;
});
afterAll(async () => {
  await stack?.stop();
});

/**
 * What a read must answer given queryContract's answer: the same result, at a block (that one or a
 * later one: a block may be mined between the two reads).
 */
const sameRead = (reference: { result: unknown; blockNumber: number | null }) => ({
  result: reference.result,
  blockNumber: reference.blockNumber === null ? null : expect.any(Number),
});

/** queryContract over POST, as the reference answer. */
async function queryContract(method: string, args?: unknown[]) {
  const res = await api.graphql(QUERY, { id: token.id, method, args }, { apiKey });
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.queryContract as { result: unknown; blockNumber: number | null };
}

const urql = (headers: Record<string, string> = {}) =>
  new urqlCore.Client({
    url: `${stack.url}/graphql`,
    exchanges: [urqlCore.cacheExchange, urqlCore.fetchExchange],
    fetch: recordingFetch,
    fetchOptions: { headers },
  });

describe('urql (@urql/core) with its defaults', () => {
  it('sends a query over GET without a content-type and gets its data', async () => {
    const { result, requests } = await requestsOf(() =>
      urql().query('query Status { networkStatus(network: testnet) { network } }', {}).toPromise(),
    );
    expect(result.error).toBeUndefined();
    // urql adds __typename to every selection (its document cache needs it).
    expect(result.data).toEqual({ networkStatus: { __typename: 'NetworkStatus', network: 'testnet' } });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.method).toBe('GET');
    expect(requests[0]!.headers['content-type']).toBeUndefined();
    expect(requests[0]!.headers['apollo-require-preflight']).toBeUndefined();
  });

  it('reads a contract with readContract over GET: the same result as queryContract, then from its cache', async () => {
    const reference = await queryContract('balanceOf', [holder]);
    expect(reference.result).toBe('1000000000000000000000');
    const c = urql({ 'x-api-key': apiKey });
    const read = () => c.query(READ, { id: token.id, method: 'balanceOf', args: [holder] }).toPromise();
    const first = await requestsOf(read);
    expect(first.result.error).toBeUndefined();
    expect(first.result.data).toEqual({ readContract: { __typename: 'GatewayQueryResult', ...sameRead(reference) } });
    expect(first.requests.map((r) => r.method)).toEqual(['GET']);
    expect(new URL(first.requests[0]!.url).searchParams.get('operationName')).toBe('Read');
    // cache-first, urql's default policy: the same read again is answered by the client.
    const again = await requestsOf(read);
    expect(again.result.data).toEqual(first.result.data);
    expect(again.requests).toEqual([]);
  });

  it('gets INVALID_NETWORK for an unknown network however it is written: inline enum, string or variable', async () => {
    const c = urql();
    const codes = [];
    for (const [query, variables] of [
      ['{ networkStatus(network: foonet) { network } }', {}],
      ['{ networkStatus(network: "testnet") { network } }', {}],
      ['{ liveBlocks(network: foonet) { __typename } }', {}],
      ['query($n: Network!) { networkStatus(network: $n) { network } }', { n: 'foonet' }],
    ] as const) {
      const { result, requests } = await requestsOf(() => c.query(query, variables).toPromise());
      expect(requests.map((r) => r.method)).toEqual(['GET']);
      expect(result.data).toBeUndefined();
      codes.push(result.error?.graphQLErrors[0]?.extensions.code);
    }
    expect(codes).toEqual(['INVALID_NETWORK', 'INVALID_NETWORK', 'INVALID_NETWORK', 'INVALID_NETWORK']);
  });

  it('sends a mutation over POST, as urql always does, and it runs', async () => {
    const { result, requests } = await requestsOf(() =>
      urql({ 'x-api-key': apiKey }).mutation(QUERY, { id: token.id, method: 'symbol' }).toPromise(),
    );
    expect(result.error).toBeUndefined();
    expect(result.data.queryContract.result).toBe('TST');
    expect(requests.map((r) => r.method)).toEqual(['POST']);
  });
});

describe('graphql-request with method GET', () => {
  const gqlGet = (headers: Record<string, string> = {}) =>
    new graphqlRequest.GraphQLClient(`${stack.url}/graphql`, { method: 'GET', headers, fetch: recordingFetch });

  it('runs a query and readContract over GET, with the result queryContract gives', async () => {
    const reference = await queryContract('totalSupply');
    const { result, requests } = await requestsOf(() =>
      gqlGet({ 'x-api-key': apiKey }).request(READ, { id: token.id, method: 'totalSupply' }),
    );
    expect(result).toEqual({ readContract: sameRead(reference) });
    expect(requests.map((r) => r.method)).toEqual(['GET']);
    expect(requests[0]!.headers['content-type']).toBeUndefined();
    const status: unknown = await gqlGet().request('{ networkStatus(network: mainnet) { network } }');
    expect(status).toEqual({ networkStatus: { network: 'mainnet' } });
  });

  it('sends a mutation over POST even so; a mutation sent over GET by hand is refused, 405 with errors, and nothing runs', async () => {
    const challenges = async () =>
      (await sqlRows<{ n: number }>(stack, 'SELECT count(*)::int AS n FROM login_challenges'))[0]!.n;
    const before = await challenges();
    const { result, requests } = await requestsOf(() => gqlGet().request('mutation { edsChallenge { nonce } }'));
    expect(result).toEqual({ edsChallenge: { nonce: expect.any(String) } });
    expect(requests.map((r) => r.method)).toEqual(['POST']);
    expect(await challenges()).toBe(before + 1);

    const variants: Array<Record<string, string>> = [
      {},
      { 'content-type': 'application/json' },
      { 'apollo-require-preflight': 'true' },
    ];
    for (const headers of variants) {
      const res = await fetch(
        `${stack.url}/graphql?query=${encodeURIComponent('mutation { edsChallenge { nonce } }')}`,
        { headers },
      );
      expect({ headers, status: res.status, allow: res.headers.get('allow') }).toEqual({
        headers,
        status: 405,
        allow: 'POST',
      });
      const body = (await res.json()) as { data?: unknown; errors: Array<{ message: string }> };
      expect(body.data).toBeUndefined();
      expect(body.errors[0]!.message).toMatch(/GET requests only support query operations/);
    }
    expect(await challenges()).toBe(before + 1);
  });
});

describe('graphql-request and Apollo Client with their defaults (POST, application/json)', () => {
  it('graphql-request runs a query, readContract and a mutation', async () => {
    const reference = await queryContract('totalSupply');
    const c = new graphqlRequest.GraphQLClient(`${stack.url}/graphql`, {
      headers: { 'x-api-key': apiKey },
      fetch: recordingFetch,
    });
    const { result, requests } = await requestsOf(() => c.request(READ, { id: token.id, method: 'totalSupply' }));
    expect(result).toEqual({ readContract: sameRead(reference) });
    expect(requests.map((r) => [r.method, r.headers['content-type']])).toEqual([['POST', 'application/json']]);
    const mutated: unknown = await c.request(QUERY, { id: token.id, method: 'symbol' });
    expect(mutated).toEqual({ queryContract: { result: 'TST', blockNumber: expect.any(Number) } });
    // The request error carries the API's code.
    const refused = await new graphqlRequest.GraphQLClient(`${stack.url}/graphql`, { fetch: recordingFetch })
      .request(READ, { id: token.id, method: 'totalSupply' })
      .catch((err: { response?: { errors?: Array<{ extensions?: { code?: string } }> } }) => err);
    expect(
      (refused as { response?: { errors?: Array<{ extensions?: { code?: string } }> } }).response?.errors?.[0]
        ?.extensions?.code,
    ).toBe('INVALID_API_KEY');
  });

  it('Apollo Client reads a contract over POST, then from its cache, and sees INVALID_NETWORK', async () => {
    const reference = await queryContract('balanceOf', [holder]);
    const c = new apolloClient.ApolloClient({
      link: new apolloClient.HttpLink({
        uri: `${stack.url}/graphql`,
        headers: { 'x-api-key': apiKey },
        fetch: recordingFetch,
      }),
      cache: new apolloClient.InMemoryCache(),
    });
    const read = () =>
      c.query({ query: apolloClient.gql(READ), variables: { id: token.id, method: 'balanceOf', args: [holder] } });
    const first = await requestsOf(read);
    expect(first.result.data).toEqual({ readContract: { __typename: 'GatewayQueryResult', ...sameRead(reference) } });
    expect(first.requests.map((r) => [r.method, r.headers['content-type']])).toEqual([['POST', 'application/json']]);
    const again = await requestsOf(read);
    expect(again.result.data).toEqual(first.result.data);
    expect(again.requests).toEqual([]);
    const refused = await c
      .query({ query: apolloClient.gql('{ networkStatus(network: foonet) { network } }') })
      .catch((err: unknown) => err);
    expect((refused as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code).toBe(
      'INVALID_NETWORK',
    );
  });
});

describe('Apollo Client (@apollo/client) with useGETForQueries', () => {
  const apollo = (headers: Record<string, string> = {}) =>
    new apolloClient.ApolloClient({
      link: new apolloClient.HttpLink({
        uri: `${stack.url}/graphql`,
        useGETForQueries: true,
        headers,
        fetch: recordingFetch,
      }),
      cache: new apolloClient.InMemoryCache(),
    });
  const gql = (source: string) => apolloClient.gql(source);

  it('reads a contract over GET with the result queryContract gives, then from its cache', async () => {
    const reference = await queryContract('balanceOf', [holder]);
    const c = apollo({ 'x-api-key': apiKey });
    const read = () => c.query({ query: gql(READ), variables: { id: token.id, method: 'balanceOf', args: [holder] } });
    const first = await requestsOf(read);
    expect(first.result.data).toEqual({
      readContract: { __typename: 'GatewayQueryResult', ...sameRead(reference) },
    });
    expect(first.requests.map((r) => r.method)).toEqual(['GET']);
    const again = await requestsOf(read);
    expect(again.result.data).toEqual(first.result.data);
    expect(again.requests).toEqual([]);
  });

  it('sees the error code of a refused read', async () => {
    let refused: unknown;
    try {
      await apollo().query({ query: gql(READ), variables: { id: token.id, method: 'totalSupply' } });
    } catch (err) {
      refused = err;
    }
    expect((refused as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions?.code).toBe(
      'INVALID_API_KEY',
    );
  });
});

describe('readContract and queryContract are one read', () => {
  it('gives readContract no REST route: the OpenAPI documents know only the query route', async () => {
    for (const area of ['devportal', 'explorer']) {
      const doc = await api.get(`/api/${area}/openapi.json`);
      expect(doc.status).toBe(200);
      expect(JSON.stringify(doc.body)).not.toMatch(/readContract|read-contract/i);
    }
    const devportal = await api.get('/api/devportal/openapi.json');
    expect(devportal.body.paths['/api/devportal/contracts/{id}/query/{method}'].post.operationId).toBe('queryContract');
  });

  it('records readContract in the analytics as a query, like queryContract', async () => {
    const other = await login(api, stack.ca);
    expect((await api.post('/api/devportal/faucet/drip', {}, { token: other.token })).status).toBe(201);
    const counter = await deployRegistered(api, other, TOKEN_SOURCE, ['5']);
    const key = (await newKey(api, other, { scopes: ['read'] })).apiKey;
    const read = await api.get(
      `/graphql?query=${encodeURIComponent(`{ readContract(id: "${counter.id}", method: "totalSupply") { result } }`)}`,
      { apiKey: key },
    );
    expect(read.body).toEqual({ data: { readContract: { result: '5' } } });
    const missing = await api.get(
      `/graphql?query=${encodeURIComponent(`{ readContract(id: "${counter.id}", method: "nope") { result } }`)}`,
      { apiKey: key },
    );
    expect(missing.body.errors[0].extensions.code).toBe('METHOD_NOT_FOUND');
    const queried = await api.graphql(QUERY, { id: counter.id, method: 'totalSupply' }, { apiKey: key });
    expect(queried.body.data.queryContract.result).toBe('5');

    const analytics = await api.get(`/api/devportal/developers/${other.developerId}/analytics`, { token: other.token });
    expect(analytics.body.totals).toMatchObject({ requests: 3, queries: 3, invokes: 0, errors: 1 });
    const recorded = await sqlRows<{ kind: string; http_status: number; method: string | null }>(
      stack,
      'SELECT kind, http_status, method FROM gateway_calls WHERE developer_id = $1 ORDER BY at',
      [other.developerId],
    );
    expect(recorded.map((r) => `${r.kind} ${r.http_status} ${r.method}`)).toEqual([
      'query 201 totalSupply()',
      // An unknown method is recorded without one.
      'query 404 null',
      'query 201 totalSupply()',
    ]);
  });
});
