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
const dayOf = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

/** At most this many calls wait in memory while the database is away; the oldest go first. */
const MAX_BUFFERED = 100_000;
const FLUSH_MS = 1000;

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
        await this.ds.transaction(async (m) => {
          // One JSON parameter of positional rows: serialised natively, far cheaper than nine
          // escaped array literals, and without repeating field names per row (jsonb: parsed once,
          // where each json ->> would parse the row again).
          await m.query(
            `INSERT INTO gateway_calls (developer_id, api_key_id, contract_id, method, kind, http_status, latency_ms, gas_used, at)
             SELECT (r->>0)::uuid, (r->>1)::uuid, (r->>2)::uuid, r->>3, r->>4, (r->>5)::int, (r->>6)::int,
                    (r->>7)::numeric, to_timestamp((r->>8)::float8 / 1000)
               FROM jsonb_array_elements($1::jsonb) AS r`,
            [
              JSON.stringify(
                batch.map((c) => [
                  c.developerId,
                  c.apiKeyId,
                  c.contractId,
                  c.method,
                  c.kind,
                  c.httpStatus,
                  Math.round(c.latencyMs),
                  c.gasUsed,
                  c.at,
                ]),
              ),
            ],
          );
          await this.rollUp(m, batch);
        });
      } catch (err) {
        // Keep them for the next flush; the database may be back by then.
        this.buffer.unshift(...batch);
        this.logger.warn({ err, buffered: this.buffer.length }, 'could not write gateway usage records; will retry');
        return;
      }
    }
  }

  /** Adds a batch to the daily rollup that analytics reads. */
  private async rollUp(m: EntityManager, batch: GatewayCall[]): Promise<void> {
    const groups = new Map<
      string,
      {
        call: GatewayCall;
        day: string;
        requests: number;
        errors: number;
        gas: bigint;
        latency: number;
        histogram: number[];
      }
    >();
    const days = new Map<number, string>();
    for (const c of batch) {
      const dayNumber = Math.floor(c.at / DAY_MS);
      let day = days.get(dayNumber);
      if (day === undefined) {
        day = dayOf(c.at);
        days.set(dayNumber, day);
      }
      const key = [c.developerId, day, c.apiKeyId, c.contractId, c.method, c.kind].join('|');
      let g = groups.get(key);
      if (!g) {
        g = {
          call: c,
          day,
          requests: 0,
          errors: 0,
          gas: 0n,
          latency: 0,
          histogram: new Array<number>(BUCKET_COUNT).fill(0),
        };
        groups.set(key, g);
      }
      g.requests += 1;
      if (c.httpStatus >= 400) g.errors += 1;
      if (c.gasUsed) g.gas += BigInt(c.gasUsed);
      g.latency += Math.round(c.latencyMs);
      g.histogram[bucketOf(c.latencyMs)]! += 1;
    }
    for (const g of groups.values()) {
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
          g.requests,
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
