// Analytics with a million recorded gateway calls: the rollup-based answer (what the service
// serves) against a single scan of the raw calls (the baseline), measured in one run.
// Run: npm run bench:analytics
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createDataSource, runMigrations } from '../src/database/data-source';
import { createLogger } from '../src/kernel/logger';
import { AccessTokens } from '../src/auth/access-token';
import { Authority } from '../src/auth/authority';
import { AnalyticsService } from '../src/modules/analytics/analytics.service';
import { UsageRecorder } from '../src/modules/analytics/usage-recorder';
import { createTestDatabase, TEST_JWT_SECRET } from '../tests/kit/stack';
import { machine } from './kit';
import { Session } from '../src/auth/session';

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000_000);
const RUNS = 15;

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times;
}

async function main(): Promise<void> {
  const logger = createLogger('silent');
  const db = await createTestDatabase();
  const ds = createDataSource(db.url);
  await ds.initialize();
  try {
    await runMigrations(ds);
    const developerId = randomUUID();
    await ds.query(
      `INSERT INTO developers (id, identity_key, display_name, subject) VALUES ($1, $2, 'Bench', 'CN=Bench')`,
      [developerId, `sn:${developerId}`],
    );
    const keys = Array.from({ length: 5 }, () => randomUUID());
    const contracts = Array.from({ length: 3 }, () => randomUUID());
    const recorder = new UsageRecorder(ds, logger);
    const started = Date.now();
    const now = Date.now();
    for (let i = 0; i < CALLS; i++) {
      recorder.record({
        developerId,
        apiKeyId: keys[i % keys.length]!,
        contractId: contracts[i % contracts.length]!,
        method: `m${i % 7}()`,
        kind: i % 4 === 0 ? 'invoke' : 'query',
        httpStatus: i % 50 === 0 ? 422 : 201,
        latencyMs: (i % 97) + 0.5,
        gasUsed: i % 4 === 0 ? '51234' : null,
        at: now - (i % (14 * 86_400)) * 1000,
      });
      if (i % 50_000 === 49_999) await recorder.flush();
    }
    await recorder.close();
    const loadSeconds = (Date.now() - started) / 1000;

    const auth = new Authority(ds, new AccessTokens(TEST_JWT_SECRET), { adminSubjects: [] });
    const analytics = new AnalyticsService(ds, new UsageRecorder(ds, logger));
    const token = new AccessTokens(TEST_JWT_SECRET).issue(developerId, 0).accessToken;
    const noKeys = {
      authenticate: () => Promise.reject(new Error('no API keys in this benchmark')),
      countDaily: () => Promise.resolve(),
      authenticateNow: () => undefined,
      countDailyNow: () => false,
    };
    // A session per call, as each request has its own.
    const session = () => new Session({ bearer: token }, '127.0.0.1', auth, noKeys);
    const served = await analytics.analytics(session(), developerId, 14);
    if (served.totals.requests !== CALLS)
      throw new Error(`expected ${CALLS} requests, analytics counted ${served.totals.requests}`);

    const service = await time(() => analytics.analytics(session(), developerId, 14));
    const scan = await time(() =>
      ds.query(
        `SELECT GROUPING(date_trunc('day', at), contract_id, api_key_id, method) AS g, date_trunc('day', at) AS d,
                contract_id, api_key_id, method, count(*) AS requests,
                count(*) FILTER (WHERE kind = 'query') AS queries, count(*) FILTER (WHERE kind = 'invoke') AS invokes,
                count(*) FILTER (WHERE http_status >= 400) AS errors, coalesce(sum(gas_used), 0) AS gas, avg(latency_ms) AS avg,
                percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
           FROM gateway_calls WHERE developer_id = $1 AND at >= now() - interval '14 days'
          GROUP BY GROUPING SETS ((date_trunc('day', at)), (contract_id), (api_key_id), (contract_id, method), ())`,
        [developerId],
      ),
    );
    const p50s = percentile(service, 0.5);
    const p50b = percentile(scan, 0.5);
    console.log(`\nMachine: ${machine()}\n`);
    console.log(`${CALLS} calls recorded through UsageRecorder in ${loadSeconds.toFixed(1)} s\n`);
    console.log('| analytics over 14 days | p50 ms | p99 ms |');
    console.log('|---|---|---|');
    console.log(`| service (daily rollup) | ${p50s.toFixed(1)} | ${percentile(service, 0.99).toFixed(1)} |`);
    console.log(`| baseline: one scan of the raw calls | ${p50b.toFixed(1)} | ${percentile(scan, 0.99).toFixed(1)} |`);
    console.log(`\nservice / baseline at p50: ${(p50s / p50b).toFixed(4)} (${(p50b / p50s).toFixed(0)}x faster)`);
  } finally {
    await ds.destroy();
    await db.drop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
