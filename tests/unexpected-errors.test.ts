/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { startStack, type Stack } from './kit/stack';

/**
 * A failure the service did not foresee is answered as a bare 500 INTERNAL on every face, counted
 * in unexpected_errors_total, and logged once with the request id the client saw (STYLE.md §3).
 */
describe('unexpected errors on every face', () => {
  const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
  const logs: string[] = [];
  let stack: Stack;
  let api: Client;
  let dev: LoggedIn;

  beforeAll(async () => {
    stack = await startStack({ METRICS_TOKEN, LOG_LEVEL: 'error' }, undefined, logs);
    api = client(stack.url);
    dev = await login(api, stack.ca);
    // Services the resolvers hold: a bug inside them is what this test stands for.
    const boom = () => Promise.reject(new Error('database exploded: SELECT secret FROM vault'));
    stack.app.services.projects.create = boom;
    stack.app.services.gateway.query = boom;
  }, 120_000);
  afterAll(() => stack?.stop());

  const unexpectedCount = async () => {
    const res = await api.get('/metrics', { token: METRICS_TOKEN });
    return Number(/^unexpected_errors_total (\d+)/m.exec(String(res.body))?.[1] ?? NaN);
  };
  const loggedFor = (requestId: string) =>
    logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'unexpected error' && l.requestId === requestId);

  it.each([
    [
      'REST through SOFA',
      () => api.post('/api/devportal/projects', { name: 'p' }, { token: dev.token }),
      (res: any) => res.body.error,
    ],
    [
      "REST on a gateway's direct route",
      () =>
        api.post(
          '/api/devportal/contracts/00000000-0000-4000-8000-000000000000/query/totalSupply',
          {},
          { apiKey: `svc_${'A'.repeat(43)}` },
        ),
      (res: any) => res.body.error,
    ],
    [
      'GraphQL over HTTP',
      () =>
        api.post('/graphql', { query: 'mutation { createProject(input: {name: "p"}) { id } }' }, { token: dev.token }),
      (res: any) => res.body.errors[0].extensions,
    ],
  ])('%s', async (_face, call, errorOf) => {
    const before = await unexpectedCount();
    const res = await call();
    const requestId = res.headers.get('x-request-id')!;
    expect(errorOf(res).code).toBe('INTERNAL');
    expect(JSON.stringify(res.body)).not.toMatch(/exploded|secret/);
    expect(await unexpectedCount()).toBe(before + 1);
    const lines = loggedFor(requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0].err.message).toMatch(/exploded/);
  });
});
