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
  at: Date;
}

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
          // One JSON parameter: serialised natively, far cheaper than nine escaped array literals.
          await m.query(
            `INSERT INTO gateway_calls (developer_id, api_key_id, contract_id, method, kind, http_status, latency_ms, gas_used, at)
             SELECT d, k, c, m, t, s, l, g, a
               FROM json_to_recordset($1::json) AS r(d uuid, k uuid, c uuid, m text, t text, s int, l int, g numeric, a timestamptz)`,
            [
              JSON.stringify(
                batch.map((c) => ({
                  d: c.developerId,
                  k: c.apiKeyId,
                  c: c.contractId,
                  m: c.method,
                  t: c.kind,
                  s: c.httpStatus,
                  l: Math.round(c.latencyMs),
                  g: c.gasUsed,
                  a: c.at,
                })),
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
    for (const c of batch) {
      const day = c.at.toISOString().slice(0, 10);
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
