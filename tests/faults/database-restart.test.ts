import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JsonRpcProvider } from 'ethers';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/database/embedded-postgres';
import { client, type ApiResponse, type Client } from '../kit/http';
import type { LoggedIn } from '../kit/login';
import { freePort, type ServiceProcess } from '../kit/process';
import { COUNTER_SOURCE } from '../kit/solidity';
import {
  gatewayUser,
  pauseMining,
  resumeMining,
  rpc,
  silent,
  sleep,
  sql,
  startFaultEnv,
  waitFor,
  type FaultEnv,
} from './fault-env';

// The service runs on a PostgreSQL the test stops and starts again while requests flow: it must
// say 503 (never 500, never hang), stay alive, and recover on its own when the database is back.

let pgDir: string;
let pgPort: number;
let pg: EmbeddedPostgres | undefined;
let env: FaultEnv;
let service: ServiceProcess;
let api: Client;
let dev: LoggedIn;
let counter: { id: string; address: string };
let apiKey: string;
let provider: JsonRpcProvider;

const startPostgres = async () => {
  pg = await startEmbeddedPostgres({ dataDir: pgDir, port: pgPort, logger: silent });
  return pg;
};

beforeAll(async () => {
  pgDir = mkdtempSync(path.join(tmpdir(), 'devportal-faults-pg-'));
  pgPort = await freePort();
  const { url } = await startPostgres();
  env = await startFaultEnv({ databaseUrl: url });
  provider = new JsonRpcProvider(env.testnet.url, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
    pollingInterval: 100,
  });
  service = await env.spawn();
  api = client(service.url);
  ({ dev, contract: counter, apiKey } = await gatewayUser(api, env.ca, COUNTER_SOURCE));
}, 90_000);

afterAll(async () => {
  provider?.destroy();
  await env?.stop();
  await pg?.stop();
  if (pgDir) rmSync(pgDir, { recursive: true, force: true });
});

interface Timed {
  what: string;
  res: ApiResponse;
  ms: number;
}

/** Requests that each need the database, timed. */
function databaseRequests(): Array<[string, () => Promise<ApiResponse>]> {
  return [
    ['me', () => api.get('/api/devportal/auth/me', { token: dev.token })],
    ['create project', () => api.post('/api/devportal/projects', { name: 'p' }, { token: dev.token })],
    ['contract', () => api.get(`/api/devportal/contracts/${counter.id}`)],
    ['query', () => api.post(`/api/devportal/contracts/${counter.id}/query/count`, {}, { apiKey })],
    ['key list', () => api.get(`/api/devportal/developers/${dev.developerId}/api-keys`, { token: dev.token })],
    ['graphql me', () => api.graphql('{ me { id } }', {}, { token: dev.token })],
  ];
}

async function timed(what: string, fn: () => Promise<ApiResponse>): Promise<Timed> {
  const started = Date.now();
  const res = await fn();
  return { what, res, ms: Date.now() - started };
}

/** The public error of a REST or GraphQL answer, if any. */
const codeOf = (res: ApiResponse): string | undefined =>
  res.body?.error?.code ?? res.body?.errors?.[0]?.extensions?.code;

describe('database outage', () => {
  it('answers 503 while PostgreSQL is down, keeps no half-made deployment, and recovers on its own', async () => {
    // Background traffic through the whole outage: every answer is recorded.
    const seen: Timed[] = [];
    let flowing = true;
    const traffic = (async () => {
      while (flowing) {
        for (const [what, fn] of databaseRequests()) seen.push(await timed(what, fn));
        await sleep(100);
      }
    })();

    // A deployment in flight: sent, its receipt held back until the database is gone.
    await pauseMining(env.testnet.url);
    const deploying = api.post(
      '/api/devportal/contracts/deploy',
      { source: COUNTER_SOURCE, name: 'in-flight' },
      { token: dev.token },
    );
    const [inFlight] = await waitFor('the deployment sent', async () => {
      const rows = await sql(
        env.databaseUrl,
        `SELECT id, deploy_tx_hash FROM contracts WHERE name = 'in-flight' AND deploy_tx_hash IS NOT NULL`,
      );
      return rows.length > 0 ? rows : undefined;
    });

    await pg!.stop();
    await rpc(env.testnet.url, 'evm_mine');
    await resumeMining(env.testnet.url);
    const deployAnswer = await deploying;
    // The database could not record the outcome: no "deployed" answer, no 500.
    expect({ status: deployAnswer.status, code: codeOf(deployAnswer) }).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });

    const notReady = await waitFor('readyz 503', async () => {
      const res = await api.get('/readyz');
      return res.status === 503 ? res : undefined;
    });
    expect(notReady.body).toMatchObject({ ready: false, database: { ready: false } });
    expect((await api.get('/healthz')).status).toBe(200);

    // Each request that needs the database: a clear 503 within a few seconds.
    for (const [what, fn] of databaseRequests()) {
      const { res, ms } = await timed(what, fn);
      expect({ what, status: res.status, code: codeOf(res) }).toEqual({
        what,
        status: what.startsWith('graphql') ? 200 : 503,
        code: 'SERVICE_UNAVAILABLE',
      });
      if (!what.startsWith('graphql')) expect(res.headers.get('retry-after')).toBe('5');
      expect(ms).toBeLessThan(7_000);
    }
    const drip = await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    expect({ status: drip.status, code: codeOf(drip) }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    await sleep(2000);

    await startPostgres();
    await waitFor('readyz 200', async () => ((await api.get('/readyz')).status === 200 ? true : undefined), 30_000);
    flowing = false;
    await traffic;

    // Everything works again without a restart.
    for (const [what, fn] of databaseRequests()) {
      const res = await fn();
      expect({ what, status: res.status, code: codeOf(res) }).toEqual({
        what,
        status: what === 'create project' || what === 'query' ? 201 : 200,
        code: undefined,
      });
    }
    const invoked = await api.post(`/api/devportal/contracts/${counter.id}/invoke/increment`, {}, { apiKey });
    expect(invoked.status).toBe(201);
    expect(invoked.body.status).toBe('success');

    // The outage traffic saw only successes and 503s, never a 500 nor a hang.
    const unexpected = seen.filter((t) => t.res.status >= 500 && codeOf(t.res) !== 'SERVICE_UNAVAILABLE');
    if (unexpected.length > 0) {
      // What the service logged about them: the error behind the 500, for whoever reads the failure.
      const errors = service
        .output()
        .split('\n')
        .filter((l) => l.includes('"level":50') || l.includes('"level":"error"'));
      console.error(
        `unexpected answers during the outage: ${JSON.stringify(unexpected.map((t) => [t.what, t.res.status, t.res.body]))}\n${errors.join('\n')}`,
      );
    }
    const outcomes = new Set(seen.map((t) => `${t.res.status} ${codeOf(t.res) ?? ''}`.trim()));
    for (const o of outcomes) expect(['200', '201', '503 SERVICE_UNAVAILABLE', '200 SERVICE_UNAVAILABLE']).toContain(o);
    expect(seen.some((t) => codeOf(t.res) === 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(Math.max(...seen.map((t) => t.ms))).toBeLessThan(7_000);

    // The deployment whose outcome could not be written is settled by the tracker once the database is back.
    const settled = await waitFor('the in-flight deployment settled', async () => {
      const [row] = await sql(env.databaseUrl, `SELECT status, address, deploy_tx_hash FROM contracts WHERE id = $1`, [
        inFlight.id,
      ]);
      return row.status === 'deploying' ? undefined : row;
    });
    expect(settled.status).toBe('deployed');
    const receipt = await provider.getTransactionReceipt(settled.deploy_tx_hash);
    expect(receipt?.status).toBe(1);
    expect(receipt!.contractAddress).toBe(settled.address);

    // No phantom: every deployed contract has a mined deployment transaction that created it.
    const deployed = await sql(
      env.databaseUrl,
      `SELECT address, deploy_tx_hash FROM contracts WHERE status = 'deployed'`,
    );
    for (const c of deployed) {
      const r = await provider.getTransactionReceipt(c.deploy_tx_hash);
      expect(r?.contractAddress).toBe(c.address);
      expect(await provider.getCode(c.address)).not.toBe('0x');
    }
  }, 90_000);
});
