import { randomUUID } from 'node:crypto';
import { client, type ApiResponse, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { startStack, type Stack } from './kit/stack';

/**
 * Compile fairness (docs/api.md, "Compile") as clients see it over REST and GraphQL: one compile queued
 * or running per client address (IPv6 by /64, IPv4-mapped as IPv4) or developer, and an honest
 * compile served within 5 s while other clients' pathological sources run.
 */

/** Constants each using the previous one twice: solc's constant evaluation doubles at every step. */
function pathological(seed: number): string {
  const lines = [`uint constant A0 = ${seed};`];
  for (let i = 1; i <= 60; i++) lines.push(`uint constant A${i} = A${i - 1} + A${i - 1};`);
  return `pragma solidity ^0.8.20;\n${lines.join('\n')}\ncontract P { uint public x = A60; }\n`;
}

/** A small contract never compiled before (no cache or disk store answers it). */
const honest = (name: string) =>
  `pragma solidity ^0.8.20;\n// ${randomUUID()}\ncontract ${name} { uint256 public count; function inc() external { count += 1; } }`;

const COMPILE = '/api/devportal/contracts/compile';
const GRAPHQL_COMPILE =
  'mutation ($source: String!) { compileContract(input: { source: $source }) { contracts { name } } }';

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('compile fairness per client', () => {
  let stack: Stack;
  let api: Client;
  let dev: LoggedIn;
  let other: LoggedIn;
  const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
  /** Compiles that are left running when a test ends: awaited before the stack stops. */
  const pending: Array<Promise<unknown>> = [];

  const expectRefused = (res: ApiResponse) => {
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.body.error.details.retryAfterSeconds).toBe(Number(res.headers.get('retry-after')));
  };
  const expectGraphqlRefused = (res: ApiResponse) => {
    expect(res.status).toBe(200);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  };
  /** Starts a pathological compile and waits until the service has it running; `done` is its answer. */
  const startPathological = async (seed: number, opts: { headers?: Record<string, string>; token?: string }) => {
    const done = api.post(COMPILE, { source: pathological(seed) }, opts);
    pending.push(done);
    await new Promise((r) => setTimeout(r, 500));
    return { done };
  };

  beforeAll(async () => {
    stack = await startStack({ TRUST_PROXY: '1' });
    api = client(stack.url);
    dev = await login(api, stack.ca);
    other = await login(api, stack.ca);
    // Both lanes warm: what is measured is waiting, not soljson's start.
    await api.post(COMPILE, { source: honest('WarmA') }, from('192.0.2.200'));
    await api.post(COMPILE, { source: honest('WarmD') }, { token: dev.token });
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled(pending);
    await stack?.stop();
  }, 60_000);

  it("refuses an anonymous client's second compile while its first runs (REST and GraphQL), by address, IPv6 /64 and IPv4-mapped", async () => {
    const first = await startPathological(1001, from('203.0.113.20'));
    expectRefused(await api.post(COMPILE, { source: honest('Second') }, from('203.0.113.20')));
    expectRefused(await api.post(COMPILE, { source: honest('Mapped') }, from('::ffff:203.0.113.20')));
    expectGraphqlRefused(
      await api.post(
        '/graphql',
        { query: GRAPHQL_COMPILE, variables: { source: honest('Gql') } },
        from('203.0.113.20'),
      ),
    );
    // The same through Apollo (a body with `extensions` does not take the fast path).
    expectGraphqlRefused(
      await api.post(
        '/graphql',
        { query: GRAPHQL_COMPILE, variables: { source: honest('Apollo') }, extensions: {} },
        from('203.0.113.20'),
      ),
    );
    // Another address is served meanwhile, within 5 s.
    const started = performance.now();
    const served = await api.post(COMPILE, { source: honest('OtherAddress') }, from('203.0.113.21'));
    expect(served.status).toBe(201);
    expect(served.body.contracts[0].name).toBe('OtherAddress');
    expect(performance.now() - started).toBeLessThan(5000);
    // The pathological source ends at the anonymous time limit; then the address compiles again.
    const ended = await first.done;
    expect(ended.status).toBe(422);
    expect(ended.body.error.code).toBe('COMPILATION_FAILED');
    expect((await api.post(COMPILE, { source: honest('Again') }, from('203.0.113.20'))).status).toBe(201);

    // IPv6: one /64 is one client; the next /64 is another.
    const v6 = await startPathological(1002, from('2001:db8:5:6::1'));
    expectRefused(await api.post(COMPILE, { source: honest('SamePrefix') }, from('2001:db8:5:6:ffff::2')));
    expect((await api.post(COMPILE, { source: honest('NextPrefix') }, from('2001:db8:5:7::1'))).status).toBe(201);
    expect((await v6.done).status).toBe(422);
  }, 60_000);

  it("refuses a developer's second compile while the first runs (REST and GraphQL); other developers compile within 5 s", async () => {
    await startPathological(1003, { token: dev.token });
    expectRefused(await api.post(COMPILE, { source: honest('DevSecond') }, { token: dev.token }));
    expectGraphqlRefused(
      await api.post(
        '/graphql',
        { query: GRAPHQL_COMPILE, variables: { source: honest('DevGql') } },
        { token: dev.token },
      ),
    );
    const started = performance.now();
    const served = await api.post(COMPILE, { source: honest('OtherDev') }, { token: other.token });
    expect(served.status).toBe(201);
    expect(performance.now() - started).toBeLessThan(5000);
    // An anonymous client from the developer's address is another client, in the other lane.
    expect((await api.post(COMPILE, { source: honest('Anonymous') })).status).toBe(201);
  }, 60_000);

  it('serves an honest anonymous compile within 5 s while one client sends 4 pathological sources and 6 others one each', async () => {
    const attack = [1, 2, 3, 4].map((n) => api.post(COMPILE, { source: pathological(2000 + n) }, from('198.51.100.9')));
    const crowd = [1, 2, 3, 4, 5, 6].map((n) =>
      api.post(COMPILE, { source: pathological(3000 + n) }, from(`198.51.100.${100 + n}`)),
    );
    pending.push(...attack, ...crowd);
    // The honest compile comes once the service holds all seven (running or waiting).
    const load = () => stack.app.services.compiler.loadOf('anonymous');
    await until(() => load().running + load().waiting === 7);
    const started = performance.now();
    const served = await api.post(COMPILE, { source: honest('Honest') }, from('192.0.2.50'));
    const waited = performance.now() - started;
    console.log(`honest anonymous compile served in ${Math.round(waited)} ms behind 7 pathological clients`);
    const [attacked, crowded] = await Promise.all([Promise.all(attack), Promise.all(crowd)]);
    expect(served.status).toBe(201);
    expect(waited).toBeLessThan(5000);
    // Of the one client's four, three were refused at once.
    expect(attacked.filter((r) => r.status === 429)).toHaveLength(3);
    attacked.filter((r) => r.status === 429).forEach(expectRefused);
    // The others were stopped for waiting compiles (503 with Retry-After) or ran to their limit (422).
    for (const r of [...attacked.filter((r) => r.status !== 429), ...crowded]) {
      expect([422, 503]).toContain(r.status);
      if (r.status === 503) {
        expect(r.body.error.code).toBe('SERVICE_UNAVAILABLE');
        expect(r.headers.get('retry-after')).toBe('5');
      }
    }
  }, 90_000);
});
