import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { startStack, type Stack } from './kit/stack';

// REST speaks REST: its errors name body fields and parameters, never GraphQL variables or
// types, and JSON types are taken as sent.

let stack: Stack;
let api: Client;
let dev: LoggedIn;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  dev = await login(api, stack.ca);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

const GRAPHQL_WORDS = /\$input|Variable "|String!|Int!|required type|GraphQL|Input"/;

describe('REST validation errors', () => {
  it('names a missing body field', async () => {
    const res = await api.post('/api/devportal/projects', {}, { token: dev.token });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'name is required',
      details: { field: 'name' },
    });
  });

  it('names a body field of the wrong JSON type, and an unknown one', async () => {
    const wrong = await api.post('/api/devportal/projects', { name: 5 }, { token: dev.token });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details).toEqual({ field: 'name' });
    expect(wrong.body.error.message).toBe('name must be a string');
    const unknown = await api.post('/api/devportal/projects', { name: 'p', colour: 'red' }, { token: dev.token });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual({ field: 'colour' });
    for (const res of [wrong, unknown]) expect(res.body.error.message).not.toMatch(GRAPHQL_WORDS);
  });

  it('names a query parameter that is not a number', async () => {
    const res = await api.get('/api/explorer/live-blocks?network=testnet&limit=abc');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details).toMatchObject({ field: 'limit' });
    expect(res.body.error.message).toMatch(/^limit /);
    expect(res.body.error.message).not.toMatch(GRAPHQL_WORDS);
  });

  it('names a query parameter out of range or given twice, in its own words', async () => {
    for (const query of ['limit=99999999999', 'limit=-99999999999', 'limit=1&limit=2']) {
      const res = await api.get(`/api/explorer/live-blocks?network=testnet&${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'limit' } });
      expect(res.body.error.message).toMatch(/^limit must be (an integer within the allowed range|given once)$/);
      expect(JSON.stringify(res.body)).not.toMatch(GRAPHQL_WORDS);
    }
  });

  it('refuses a network that is empty or unknown, naming the parameter without GraphQL words', async () => {
    for (const path of [
      '/api/explorer/network-status?network=',
      '/api/explorer/network-status?network=foo',
      '/api/explorer/live-blocks?network=',
      '/api/explorer/live-blocks?network=Testnet',
      '/api/explorer/network-status?network=testnet&network=mainnet',
    ]) {
      const res = await api.get(path);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
        path,
        status: 400,
        code: 'INVALID_NETWORK',
      });
      expect(res.body.error.details).toEqual({ field: 'network' });
      expect(JSON.stringify(res.body)).not.toMatch(GRAPHQL_WORDS);
    }
  });

  it('takes JSON types as sent: a string is not a list', async () => {
    const res = await api.post(
      `/api/devportal/developers/${dev.developerId}/api-keys`,
      { name: 'one scope', scopes: 'read' },
      { token: dev.token },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'scopes must be an array',
      details: { field: 'scopes' },
    });
    const listed = await api.post(
      `/api/devportal/developers/${dev.developerId}/api-keys`,
      { name: 'one scope', scopes: ['read'] },
      { token: dev.token },
    );
    expect(listed.status).toBe(201);
    expect(listed.body.scopes).toEqual(['read']);
  });
});
