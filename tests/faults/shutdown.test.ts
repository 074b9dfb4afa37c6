import { client } from '../kit/http';
import { login, type LoggedIn } from '../kit/login';
import type { ServiceProcess } from '../kit/process';
import { COUNTER_SOURCE } from '../kit/solidity';
import {
  deployRegistered,
  logLines,
  newKey,
  pauseMining,
  rpc,
  sleep,
  sql,
  startFaultEnv,
  waitFor,
  type FaultEnv,
} from './fault-env';

// SIGTERM while gateway calls are in flight: they are answered, the usage records of every call
// made before the signal reach gateway_calls, and the process exits 0.

let env: FaultEnv;
let service: ServiceProcess;
let dev: LoggedIn;
let counter: { id: string; address: string };
let key: { id: string; apiKey: string };

beforeAll(async () => {
  env = await startFaultEnv();
  service = await env.spawn();
  const api = client(service.url);
  dev = await login(api, env.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  counter = await deployRegistered(api, dev, COUNTER_SOURCE);
  key = await newKey(api, dev);
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

describe('graceful shutdown', () => {
  it('finishes in-flight requests and flushes every usage record before exiting 0', async () => {
    const api = client(service.url);
    const path = (kind: string, method: string) => `/api/devportal/contracts/${counter.id}/${kind}/${method}`;

    // Invokes that cannot finish before the signal: their receipts wait for a block mined after it.
    await pauseMining(env.testnet.url);
    const INVOKES = 3;
    const invokes = Array.from({ length: INVOKES }, () =>
      api.post(path('invoke', 'increment'), {}, { apiKey: key.apiKey }).then(
        (res) => res,
        (err: unknown) => ({ status: 0, body: String(err), headers: new Headers() }),
      ),
    );
    await waitFor('the invokes sent', async () => {
      const [row] = await sql(
        env.databaseUrl,
        `SELECT count(*)::int AS n FROM chain_transactions WHERE kind = 'invoke'`,
      );
      return row.n === INVOKES ? true : undefined;
    });

    // Quick calls right before the signal, successful and failed: all of them count.
    const QUERIES = 20;
    const queries = await Promise.all(
      Array.from({ length: QUERIES }, () => api.post(path('query', 'count'), {}, { apiKey: key.apiKey })),
    );
    expect(queries.every((q) => q.status === 201)).toBe(true);
    const missing = await api.post(path('query', 'noSuchMethod'), {}, { apiKey: key.apiKey });
    expect(missing.status).toBe(404);
    const badArgs = await api.post(path('invoke', 'increment'), { args: ['1'] }, { apiKey: key.apiKey });
    expect(badArgs.status).toBe(400);
    const made = INVOKES + QUERIES + 2;

    const exited = service.stop('SIGTERM');
    await sleep(1000);
    expect(service.proc.exitCode).toBeNull(); // still draining the invokes
    await rpc(env.testnet.url, 'evm_mine');

    const answered = await Promise.all(invokes);
    for (const res of answered) {
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('success');
    }
    expect(await exited).toBe(0);

    const calls = await sql(
      env.databaseUrl,
      `SELECT kind, method, http_status, gas_used FROM gateway_calls WHERE api_key_id = $1`,
      [key.id],
    );
    expect(calls).toHaveLength(made);
    const invokeCalls = calls.filter((c) => c.kind === 'invoke' && c.http_status === 201);
    expect(invokeCalls).toHaveLength(INVOKES);
    for (const c of invokeCalls) expect(Number(c.gas_used)).toBeGreaterThan(0);
    expect(calls.filter((c) => c.kind === 'query' && c.http_status === 201)).toHaveLength(QUERIES);
    expect(calls.map((c) => c.http_status).sort()).toEqual([...Array(INVOKES + QUERIES).fill(201), 400, 404]);
    const [daily] = await sql(
      env.databaseUrl,
      `SELECT sum(requests)::int AS requests, sum(errors)::int AS errors FROM gateway_usage_daily WHERE api_key_id = $1`,
      [key.id],
    );
    expect(daily).toEqual({ requests: made, errors: 2 });

    // Stopped in order: no more requests first, then the records of the last ones, the database last.
    const steps = logLines(service.output())
      .filter((l) => l.msg === 'stopped')
      .map((l) => l.step as string);
    expect(steps.indexOf('HTTP server')).toBeGreaterThanOrEqual(0);
    expect(steps.indexOf('HTTP server')).toBeLessThan(steps.indexOf('gateway usage records'));
    expect(steps.at(-1)).toBe('database pool');
  }, 60_000);
});
