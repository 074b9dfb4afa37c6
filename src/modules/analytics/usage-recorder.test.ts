import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { capturingLogger } from '../../../tests/kit/logs';
import { createTestDatabase } from '../../../tests/kit/stack';
import { createDataSource, runMigrations } from '../../database/data-source';
import { BUCKET_COUNT, bucketOf } from './latency-histogram';
import { UsageRecorder, type GatewayCall } from './usage-recorder';

// The recorder against a real PostgreSQL: every call becomes one row of the gateway_calls view
// (packed with the calls written with it in one gateway_call_batches row) and counts in its daily
// rollup row, whatever order calls of different rows come in; calls the database could
// not take are written later, once; past the buffer's bound the oldest are dropped.

let db: { url: string; drop(): Promise<void> };
let ds: DataSource;

beforeAll(async () => {
  db = await createTestDatabase();
  ds = createDataSource(db.url, { poolSize: 2 });
  await ds.initialize();
  await runMigrations(ds);
}, 60_000);

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

beforeEach(async () => {
  await ds.query('TRUNCATE gateway_call_batches, gateway_usage_daily');
});

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 25, 23, 59, 59, 500);

function call(overrides: Partial<GatewayCall> & Pick<GatewayCall, 'developerId' | 'apiKeyId'>): GatewayCall {
  return {
    contractId: null,
    method: 'balanceOf',
    kind: 'query',
    httpStatus: 201,
    latencyMs: 2.4,
    gasUsed: null,
    at: T0,
    ...overrides,
  };
}

const rows = (apiKeyId: string) =>
  ds.query(
    `SELECT method, kind, http_status, latency_ms, gas_used::text AS gas, (extract(epoch FROM at) * 1000)::bigint::text AS at
       FROM gateway_calls WHERE api_key_id = $1 ORDER BY at, id`,
    [apiKeyId],
  ) as Promise<Array<Record<string, unknown>>>;

const batchesOf = async (apiKeyId: string): Promise<number> => {
  const [row] = (await ds.query(`SELECT count(*)::int AS n FROM gateway_call_batches WHERE api_key_id = $1`, [
    apiKeyId,
  ])) as Array<{ n: number }>;
  return row!.n;
};

describe('usage recorder', () => {
  it('stores a busy key’s calls a few rows at a time, each call still a row of gateway_calls in order', async () => {
    const recorder = new UsageRecorder(ds, capturingLogger().logger);
    const developerId = randomUUID();
    const apiKeyId = randomUUID();
    const made = Array.from({ length: 12_000 }, (_, i) =>
      call({
        developerId,
        apiKeyId,
        httpStatus: i % 7 === 0 ? 429 : 201,
        latencyMs: (i % 50) / 3,
        at: T0 + 2 * DAY + 1000 + i,
      }),
    );
    for (const c of made) recorder.record(c);
    await recorder.close();
    // Written 5,000 calls at a time: three stored rows for 12,000 calls.
    expect(await batchesOf(apiKeyId)).toBe(3);
    const written = await rows(apiKeyId);
    expect(written).toHaveLength(12_000);
    expect(written[0]).toEqual({
      method: 'balanceOf',
      kind: 'query',
      http_status: 429,
      latency_ms: 0,
      gas: null,
      at: String(T0 + 2 * DAY + 1000),
    });
    expect(written.map((r) => `${r.http_status} ${r.latency_ms} ${r.at}`)).toEqual(
      made.map((c) => `${c.httpStatus} ${Math.round(c.latencyMs)} ${c.at}`),
    );
  });

  it('writes each call as a row and adds it to its day, key, contract, method and kind', async () => {
    const recorder = new UsageRecorder(ds, capturingLogger().logger);
    const developerId = randomUUID();
    const apiKeyId = randomUUID();
    const contractId = randomUUID();
    const made: GatewayCall[] = [
      call({ developerId, apiKeyId, contractId, latencyMs: 0.6 }),
      call({
        developerId,
        apiKeyId,
        contractId,
        kind: 'invoke',
        method: 'transfer',
        gasUsed: '51234',
        latencyMs: 14.2,
      }),
      call({ developerId, apiKeyId, contractId, httpStatus: 400, latencyMs: 3.5, at: T0 + 1 }),
      // Across midnight UTC: another day's row.
      call({ developerId, apiKeyId, contractId, latencyMs: 7, at: T0 + 600 }),
      call({ developerId, apiKeyId, contractId, kind: 'invoke', method: 'transfer', gasUsed: '48766', at: T0 + 700 }),
      call({ developerId, apiKeyId, contractId, latencyMs: 2, at: T0 + 800 }),
    ];
    for (const c of made) recorder.record(c);
    await recorder.close();

    expect(await rows(apiKeyId)).toEqual(
      [...made]
        .sort((a, b) => a.at - b.at)
        .map((c) => ({
          method: c.method,
          kind: c.kind,
          http_status: c.httpStatus,
          latency_ms: Math.round(c.latencyMs),
          gas: c.gasUsed,
          at: String(c.at),
        })),
    );
    // Packed: a stored row per rollup row written, not per call.
    expect(await batchesOf(apiKeyId)).toBe(4);
    const daily = (await ds.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, method, kind, requests::int, errors::int, gas_used::text AS gas,
              latency_sum_ms::int AS latency, latency_histogram::int[] AS histogram
         FROM gateway_usage_daily WHERE api_key_id = $1 ORDER BY day, kind DESC`,
      [apiKeyId],
    )) as Array<Record<string, unknown>>;
    const histogram = (...latencies: number[]) => {
      const h = new Array<number>(BUCKET_COUNT).fill(0);
      for (const l of latencies) h[bucketOf(l)]! += 1;
      return h;
    };
    expect(daily).toEqual([
      {
        day: '2026-11-25',
        method: 'balanceOf',
        kind: 'query',
        requests: 2,
        errors: 1,
        gas: '0',
        latency: 5,
        histogram: histogram(0.6, 3.5),
      },
      {
        day: '2026-11-25',
        method: 'transfer',
        kind: 'invoke',
        requests: 1,
        errors: 0,
        gas: '51234',
        latency: 14,
        histogram: histogram(14.2),
      },
      {
        day: '2026-11-26',
        method: 'balanceOf',
        kind: 'query',
        requests: 2,
        errors: 0,
        gas: '0',
        latency: 9,
        histogram: histogram(7, 2),
      },
      {
        day: '2026-11-26',
        method: 'transfer',
        kind: 'invoke',
        requests: 1,
        errors: 0,
        gas: '48766',
        latency: 2,
        histogram: histogram(2.4),
      },
    ]);
  });

  it('keeps the calls the database refused and writes them, once, when it takes them again', async () => {
    const { logger, lines } = capturingLogger();
    const recorder = new UsageRecorder(ds, logger);
    const developerId = randomUUID();
    const apiKeyId = randomUUID();
    for (let i = 0; i < 7000; i++) recorder.record(call({ developerId, apiKeyId, at: T0 + DAY + i }));
    await ds.query('ALTER TABLE gateway_call_batches RENAME TO gateway_call_batches_away');
    try {
      await recorder.flush();
    } finally {
      await ds.query('ALTER TABLE gateway_call_batches_away RENAME TO gateway_call_batches');
    }
    expect(lines.some((l) => l.msg === 'could not write gateway usage records; will retry')).toBe(true);
    // More calls meanwhile, of the same row and of another.
    for (let i = 7000; i < 7500; i++) recorder.record(call({ developerId, apiKeyId, at: T0 + DAY + i }));
    recorder.record(call({ developerId, apiKeyId, method: 'totalSupply', at: T0 + DAY + 7500 }));
    await recorder.close();

    const written = await rows(apiKeyId);
    expect(written).toHaveLength(7501);
    expect(written.map((r) => Number(r.at) - (T0 + DAY))).toEqual(Array.from({ length: 7501 }, (_, i) => i));
    const [daily] = (await ds.query(
      `SELECT sum(requests)::int AS requests FROM gateway_usage_daily WHERE api_key_id = $1`,
      [apiKeyId],
    )) as Array<{ requests: number }>;
    expect(daily!.requests).toBe(7501);
  });

  it('drops the oldest calls past its bound, whichever rows they count in, and says so once', async () => {
    const { logger, lines } = capturingLogger();
    const recorder = new UsageRecorder(ds, logger, { maxBuffered: 10 });
    const developerId = randomUUID();
    const apiKeyId = randomUUID();
    for (let i = 0; i < 15; i++) {
      recorder.record(call({ developerId, apiKeyId, method: i % 2 === 0 ? 'even' : 'odd', at: T0 + DAY + i }));
    }
    expect(lines.filter((l) => String(l.msg).startsWith('usage buffer full'))).toHaveLength(1);
    await recorder.close();
    const written = await rows(apiKeyId);
    expect(written.map((r) => Number(r.at) - (T0 + DAY))).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(written.map((r) => r.method)).toEqual([
      'odd',
      'even',
      'odd',
      'even',
      'odd',
      'even',
      'odd',
      'even',
      'odd',
      'even',
    ]);
  });
  it('under a flood past its bound, keeps exactly the newest calls, in order', async () => {
    const recorder = new UsageRecorder(ds, capturingLogger().logger, { maxBuffered: 100 });
    const developerId = randomUUID();
    const apiKeyId = randomUUID();
    for (let i = 0; i < 1000; i++) {
      recorder.record(call({ developerId, apiKeyId, method: i % 10 === 0 ? 'rare' : 'often', at: T0 + DAY + i }));
    }
    await recorder.close();
    const written = await rows(apiKeyId);
    expect(written.map((r) => Number(r.at) - (T0 + DAY))).toEqual(Array.from({ length: 100 }, (_, i) => 900 + i));
    expect(written.filter((r) => r.method === 'rare')).toHaveLength(10);
  });
});
