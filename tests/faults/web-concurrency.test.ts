import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { client } from '../kit/http';
import { login } from '../kit/login';
import type { ServiceProcess } from '../kit/process';
import { WebhookReceiver } from '../kit/webhook-receiver';
import { logLines, sql, startFaultEnv, waitFor, type FaultEnv } from './fault-env';

// WEB_CONCURRENCY=2 (docs/api.md, "Operations"): two HTTP workers share the port, one of them runs
// the background work (the explorer indexer of each network: once), and SIGTERM to the primary
// stops both workers and exits 0 with no process left.

let env: FaultEnv;
let service: ServiceProcess;

beforeAll(async () => {
  env = await startFaultEnv();
  service = await env.spawn({ WEB_CONCURRENCY: '2' });
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

interface Ready {
  ready: boolean;
  limits: { store: string };
  worker: { id: number; backgroundWork: boolean };
}

/** GET /readyz on a connection of its own (the cluster hands out connections, not requests). */
const readyz = (url: string): Promise<Ready> =>
  new Promise((resolve, reject) => {
    http
      .get(`${url}/readyz`, { agent: false, headers: { connection: 'close' } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(JSON.parse(body) as Ready));
      })
      .on('error', reject);
  });

/** The process ids of `pid`'s children. */
const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there is none
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('WEB_CONCURRENCY=2', () => {
  it('serves from both workers, one of which runs the background work', async () => {
    const seen = new Map<number, boolean>();
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const ready = await readyz(service.url);
      expect(ready).toMatchObject({ ready: true, limits: { store: 'memory' } });
      seen.set(ready.worker.id, ready.worker.backgroundWork);
    }
    expect(seen.size).toBe(2);
    expect([...seen.values()].filter(Boolean)).toHaveLength(1);
    expect(childrenOf(service.proc.pid!)).toHaveLength(2);
  });

  it('answers /metrics for the whole instance: every worker added up, whichever worker is scraped', async () => {
    /** GET on a connection of its own: the cluster hands connections to the workers in turn. */
    const get = (p: string): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        http
          .get(`${service.url}${p}`, { agent: false, headers: { connection: 'close' } }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          })
          .on('error', reject);
      });
    const notFound = (text: string) =>
      Number(
        /^http_request_duration_seconds_count\{area="other",method="GET",status="404"\} (\d+)$/m.exec(text)?.[1] ?? 0,
      );
    const sent = 30;
    for (let i = 0; i < sent; i++) expect((await get(`/no-such-page-${i}`)).status).toBe(404);
    // Both workers answered some of them (connections go round); every scrape, whichever worker
    // takes it, counts all of them and says it added up two workers.
    const scrapes = await Promise.all([get('/metrics'), get('/metrics'), get('/metrics'), get('/metrics')]);
    for (const scrape of scrapes) {
      expect(scrape.status).toBe(200);
      expect(scrape.body).toMatch(/^instance_workers 2$/m);
      expect(notFound(scrape.body)).toBe(sent);
      // One help line per metric: the workers' series are merged, not listed twice.
      expect(scrape.body.match(/^# HELP http_request_duration_seconds /gm)).toHaveLength(1);
    }
    // And no worker alone would have counted them all: each answered a share (its access log lines).
    const shares = new Map<unknown, number>();
    for (const line of logLines(service.output()))
      if (String(line.path).startsWith('/no-such-page-')) shares.set(line.worker, (shares.get(line.worker) ?? 0) + 1);
    expect(shares.size).toBe(2);
    expect([...shares.values()].reduce((a, b) => a + b, 0)).toBe(sent);
  });

  it('runs the explorer indexer once: one worker holds each network lock, and the index advances', async () => {
    const last = async () =>
      Number(
        (await sql(env.databaseUrl, `SELECT last_block FROM explorer_index_state WHERE network = 'testnet'`))[0]
          ?.last_block ?? -1,
      );
    const before = await waitFor('the testnet index', async () => ((await last()) >= 0 ? last() : undefined));
    await waitFor('the index to advance', async () => ((await last()) > before ? true : undefined));
    // Each network's indexer lock (two keys: class 7991002, the chain id) is held by one session.
    const locks = await sql<{ objid: string }>(
      env.databaseUrl,
      `SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = 7991002 AND objsubid = 2 AND granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(locks.map((l) => Number(l.objid)).sort((a, b) => a - b)).toEqual([1991, 17991]);
    // Both networks are indexed by the worker that runs the background work; the other never tried.
    const leaders = logLines(service.output()).filter((l) => String(l.msg).startsWith('This instance indexes'));
    expect(leaders).toHaveLength(2);
    const background = await waitFor('the background worker', async () => {
      const r = await readyz(service.url);
      return r.worker.backgroundWork ? r.worker.id : undefined;
    });
    expect(new Set(leaders.map((l) => l.worker))).toEqual(new Set([background]));
  }, 60_000);

  it('delivers each webhook message once (one worker sends the outbox)', async () => {
    const receiver = new WebhookReceiver();
    await receiver.start();
    try {
      const api = client(service.url);
      const me = await login(api, env.ca);
      const hook = await api.post(
        `/api/devportal/developers/${me.developerId}/webhooks`,
        { url: `${receiver.url}/tx`, events: ['transaction.status'] },
        { token: me.token },
      );
      expect(hook.status).toBe(201);
      const drip = await api.post('/api/devportal/faucet/drip', {}, { token: me.token });
      expect(drip.status).toBeLessThan(300);
      // queued → pending → success: the final status arrives, then a while for any duplicate to show up.
      await waitFor('the success delivery', () =>
        receiver.requests.some((r) => JSON.parse(r.body).data?.status === 'success') ? true : undefined,
      );
      await new Promise((r) => setTimeout(r, 1_500));
      const rows = await sql<{ id: string; attempts: number; status: string }>(
        env.databaseUrl,
        `SELECT id, attempts, status FROM webhook_deliveries WHERE webhook_id = $1`,
        [hook.body.id],
      );
      expect(rows.length).toBeGreaterThanOrEqual(2);
      const ids = receiver.requests.map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(rows.length);
      for (const row of rows) expect(row).toMatchObject({ attempts: 1, status: 'delivered' });
    } finally {
      await receiver.stop();
    }
  }, 60_000);

  it('stops both workers on SIGTERM and exits 0, leaving no process', async () => {
    const workers = childrenOf(service.proc.pid!);
    expect(workers).toHaveLength(2);
    expect(await service.stop('SIGTERM')).toBe(0);
    for (const pid of workers) await waitFor(`worker ${pid} to exit`, () => (alive(pid) ? undefined : true), 5_000);
    const stopped = logLines(service.output()).filter((l) => l.msg === 'stopped' && l.step === 'HTTP server');
    expect(new Set(stopped.map((l) => l.worker)).size).toBe(2);
  }, 60_000);

  it('leaves no worker behind when the primary is killed', async () => {
    const killed = await env.spawn({ WEB_CONCURRENCY: '2' });
    const workers = await waitFor('two workers', () => {
      const c = childrenOf(killed.proc.pid!);
      return c.length === 2 ? c : undefined;
    });
    await killed.stop('SIGKILL');
    for (const pid of workers) await waitFor(`worker ${pid} to exit`, () => (alive(pid) ? undefined : true), 25_000);
  }, 90_000);

  it('forks a dead worker again with its role: the new background worker takes the indexer locks', async () => {
    const group = await env.spawn({ WEB_CONCURRENCY: '2' });
    const indexing = () => logLines(group.output()).filter((l) => String(l.msg).startsWith('This instance indexes'));
    const first = await waitFor('the indexer to start', () => (indexing().length === 2 ? indexing()[0] : undefined));
    const workers = childrenOf(group.proc.pid!);
    expect(workers).toContain(first!.pid);
    process.kill(first!.pid as number, 'SIGKILL');
    // Scrapes of /metrics while the replacement starts: a worker still starting is not asked, and starts.
    let scraping = true;
    const statuses: number[] = [];
    const scrapes = (async () => {
      // Until the new worker indexes, and at least three scrapes were answered.
      while (scraping || statuses.length < 3) {
        // Bounded, as any client's: a connection handed to the worker as it was killed may never be answered.
        const res = await fetch(`${group.url}/metrics`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
        if (res) statuses.push(res.status);
        await res?.text().catch(() => undefined);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    // Its locks go with its connections; a new worker with the background role takes them.
    const next = await waitFor(
      'a new background worker to index',
      () => indexing().find((l) => l.worker !== first!.worker),
      30_000,
    ).finally(() => (scraping = false));
    await scrapes;
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(next.pid).not.toBe(first!.pid);
    const now = childrenOf(group.proc.pid!);
    expect(now).toHaveLength(2);
    expect(now).not.toContain(first!.pid);
    const background = await waitFor('/readyz from the new background worker', async () => {
      const r = await readyz(group.url);
      return r.worker.backgroundWork ? r.worker.id : undefined;
    });
    expect(background).toBe(next.worker);
    expect(await group.stop('SIGTERM')).toBe(0);
    // Its bounded waits (a start, the indexer, the new worker, /readyz) add up past 90 s when the
    // parallel pass loads both cores; each wait still fails on its own bound.
  }, 180_000);

  it('stops all of the service, exit 0, when a worker is told to stop (a signal to the whole group)', async () => {
    const group = await env.spawn({ WEB_CONCURRENCY: '2' });
    const workers = await waitFor('two workers', () => {
      const c = childrenOf(group.proc.pid!);
      return c.length === 2 ? c : undefined;
    });
    // Both workers serving first: a worker stopped while it still starts is a failed start (exit 1).
    const seen = new Set<number>();
    await waitFor('both workers serving', async () => {
      seen.add((await readyz(group.url)).worker.id);
      return seen.size === 2 ? true : undefined;
    });
    process.kill(workers[0]!, 'SIGTERM');
    // The primary stops on its own (no signal to it), exit 0.
    expect(await waitFor('the primary to exit', () => group.proc.exitCode ?? undefined, 30_000)).toBe(0);
    await group.stop();
    for (const pid of workers) await waitFor(`worker ${pid} to exit`, () => (alive(pid) ? undefined : true), 5_000);
  }, 60_000);
});
