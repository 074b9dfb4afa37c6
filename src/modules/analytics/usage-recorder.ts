import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from '../../logger';
import { BUCKET_COUNT, bucketOf } from './latency-histogram';

/** One gateway call, as analytics counts it. */
export interface GatewayCall {
  developerId: string;
  apiKeyId: string;
  contractId: string | null;
  method: string | null;
  kind: 'query' | 'invoke';
  httpStatus: number;
  latencyMs: number;
  gasUsed: string | null;
  /** When the call was made, in epoch milliseconds. */
  at: number;
}

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` (UTC) of an epoch-millisecond time. */
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** At most this many calls wait in memory while the database is away; the oldest go first. */
const MAX_BUFFERED = 100_000;
const FLUSH_MS = 1000;

/** Calls of one batch that share a rollup row: developer, UTC day, key, contract, method, kind. */
interface CallGroup {
  /** The first call of the group, for what they share. */
  call: GatewayCall;
  day: string;
  /** Per call: [HTTP status, latency ms, gas used, epoch ms]. */
  calls: Array<[number, number, string | null, number]>;
  errors: number;
  gas: bigint;
  latency: number;
  histogram: number[];
}

function groupCalls(batch: GatewayCall[]): CallGroup[] {
  const groups = new Map<string, CallGroup>();
  for (const c of batch) {
    const key = `${c.developerId}|${Math.floor(c.at / DAY_MS)}|${c.apiKeyId}|${c.contractId}|${c.method}|${c.kind}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        call: c,
        day: dayOf(c.at),
        calls: [],
        errors: 0,
        gas: 0n,
        latency: 0,
        histogram: new Array<number>(BUCKET_COUNT).fill(0),
      };
      groups.set(key, g);
    }
    const latency = Math.round(c.latencyMs);
    g.calls.push([c.httpStatus, latency, c.gasUsed, c.at]);
    if (c.httpStatus >= 400) g.errors += 1;
    if (c.gasUsed) g.gas += BigInt(c.gasUsed);
    g.latency += latency;
    g.histogram[bucketOf(c.latencyMs)]! += 1;
  }
  return [...groups.values()];
}

/**
 * Records gateway calls off the hot path: calls are buffered and written once a second with one
 * multi-row INSERT (plus the daily rollup analytics reads), so a crash loses at most the last
 * second of records.
 */
export class UsageRecorder {
  private buffer: GatewayCall[] = [];
  private readonly timer: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly ds: DataSource,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  record(call: GatewayCall): void {
    this.buffer.push(call);
    if (this.buffer.length > MAX_BUFFERED) {
      this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
      this.logger.warn('usage buffer full: dropping the oldest gateway call records');
    }
  }

  /** Writes everything buffered so far; concurrent calls share one write. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async write(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, 5000);
      try {
        const groups = groupCalls(batch);
        await this.ds.transaction(async (m) => {
          // One jsonb parameter: the batch's groups, each with what they share (developer, key,
          // contract, method, kind) once and, per call, only [status, latency, gas, time]. Far
          // fewer bytes and less serialising than a row per call (jsonb is parsed once; with json
          // each ->> would parse the element again).
          await m.query(
            `INSERT INTO gateway_calls (developer_id, api_key_id, contract_id, method, kind, http_status, latency_ms, gas_used, at)
             SELECT (g->>'d')::uuid, (g->>'k')::uuid, (g->>'c')::uuid, g->>'m', g->>'t',
                    (c->>0)::int, (c->>1)::int, (c->>2)::numeric, to_timestamp((c->>3)::float8 / 1000)
               FROM jsonb_array_elements($1::jsonb) AS g, jsonb_array_elements(g->'calls') AS c`,
            [
              JSON.stringify(
                groups.map((g) => ({
                  d: g.call.developerId,
                  k: g.call.apiKeyId,
                  c: g.call.contractId,
                  m: g.call.method,
                  t: g.call.kind,
                  calls: g.calls,
                })),
              ),
            ],
          );
          await this.rollUp(m, groups);
        });
      } catch (err) {
        // Keep them for the next flush; the database may be back by then.
        this.buffer.unshift(...batch);
        this.logger.warn({ err, buffered: this.buffer.length }, 'could not write gateway usage records; will retry');
        return;
      }
    }
  }

  /** Adds a batch's groups to the daily rollup that analytics reads. */
  private async rollUp(m: EntityManager, groups: CallGroup[]): Promise<void> {
    for (const g of groups) {
      await m.query(
        `INSERT INTO gateway_usage_daily AS u
           (developer_id, day, api_key_id, contract_id, method, kind, requests, errors, gas_used, latency_sum_ms, latency_histogram)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::bigint[])
         ON CONFLICT (developer_id, day, api_key_id, contract_id, method, kind) DO UPDATE SET
           requests = u.requests + EXCLUDED.requests,
           errors = u.errors + EXCLUDED.errors,
           gas_used = u.gas_used + EXCLUDED.gas_used,
           latency_sum_ms = u.latency_sum_ms + EXCLUDED.latency_sum_ms,
           latency_histogram = ARRAY(
             SELECT a + b FROM unnest(u.latency_histogram, EXCLUDED.latency_histogram) WITH ORDINALITY AS t(a, b, i) ORDER BY i
           )`,
        [
          g.call.developerId,
          g.day,
          g.call.apiKeyId,
          g.call.contractId,
          g.call.method,
          g.call.kind,
          g.calls.length,
          g.errors,
          g.gas.toString(),
          g.latency,
          g.histogram,
        ],
      );
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
