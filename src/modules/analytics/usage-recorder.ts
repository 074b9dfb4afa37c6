import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from '../../kernel/logger';
import { BUCKET_COUNT, bucketOf } from './latency-histogram';

/** What a call was: a gateway query or invoke, or a call of the JSON-RPC door (docs/api.md, "JSON-RPC door"). */
export type UsageKind = 'query' | 'invoke' | 'rpc';

/** One gateway call, as analytics counts it. */
export interface GatewayCall {
  developerId: string;
  apiKeyId: string;
  contractId: string | null;
  method: string | null;
  kind: UsageKind;
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
/** Calls written in one transaction at most. */
const BATCH_CALLS = 5000;

/**
 * The calls waiting for one rollup row (developer, UTC day, key, contract, method, kind): what they
 * share once, and per call four values side by side, in the order they came. No object is kept
 * per call: hot reads record thousands of calls a second, and objects held for up to a second
 * outlive the young generation (BENCHMARKS.md, "Usage recorded without an object per call").
 */
interface CallGroup {
  key: string;
  developerId: string;
  apiKeyId: string;
  contractId: string | null;
  method: string | null;
  kind: UsageKind;
  /** UTC day: epoch milliseconds divided by one day. */
  dayIndex: number;
  statuses: number[];
  /** Milliseconds as measured (rounded when written). */
  latencies: number[];
  gas: Array<string | null>;
  /** Epoch milliseconds. */
  ats: number[];
  /** Calls before this index were dropped (the buffer was full) and not yet cut out of the arrays. */
  dropped: number;
}

/** Cuts the dropped calls out of `g`'s arrays. */
function compact(g: CallGroup): void {
  if (g.dropped === 0) return;
  g.statuses.splice(0, g.dropped);
  g.latencies.splice(0, g.dropped);
  g.gas.splice(0, g.dropped);
  g.ats.splice(0, g.dropped);
  g.dropped = 0;
}

/** Calls of `g` still buffered. */
const sizeOf = (g: CallGroup) => g.statuses.length - g.dropped;

/** The first `n` calls of `g` (compacted), taken out of it into a group of their own. */
function takeFront(g: CallGroup, n: number): CallGroup {
  return {
    ...g,
    statuses: g.statuses.splice(0, n),
    latencies: g.latencies.splice(0, n),
    gas: g.gas.splice(0, n),
    ats: g.ats.splice(0, n),
  };
}

/** Gas used as receipts give it: a decimal integer. */
const GAS = /^[0-9]{1,78}$/;

/**
 * A group's calls as PostgreSQL array literals of integers (`{201,201,400}`), one per column. Every
 * element is a number this process measured or an integer string checked here (anything else
 * would be NULL), so a plain join is the literal; the literals travel as elements of a text[]
 * parameter, which pg escapes.
 */
function packedOf(g: CallGroup): {
  firstAt: number;
  statuses: string;
  latencies: string;
  gas: string;
  ats: string;
} {
  let firstAt = g.ats[0]!;
  for (const at of g.ats) if (at < firstAt) firstAt = at;
  const gas = g.gas.map((used) => (used !== null && GAS.test(used) ? used : 'NULL'));
  return {
    firstAt,
    statuses: `{${g.statuses.map((s) => Math.trunc(s)).join(',')}}`,
    latencies: `{${g.latencies.map((l) => Math.round(l)).join(',')}}`,
    gas: `{${gas.join(',')}}`,
    ats: `{${g.ats.map((a) => Math.round(a)).join(',')}}`,
  };
}

/** What a group adds to its rollup row. */
function rollupOf(g: CallGroup): { errors: number; gas: bigint; latency: number; histogram: number[] } {
  let errors = 0;
  let gas = 0n;
  let latency = 0;
  const histogram = new Array<number>(BUCKET_COUNT).fill(0);
  for (let i = 0; i < g.statuses.length; i++) {
    if (g.statuses[i]! >= 400) errors += 1;
    const used = g.gas[i];
    if (used !== null && GAS.test(used)) gas += BigInt(used);
    latency += Math.round(g.latencies[i]!);
    histogram[bucketOf(g.latencies[i]!)]! += 1;
  }
  return { errors, gas, latency, histogram };
}

/**
 * Records gateway calls off the hot path: calls are buffered and written once a second, a row per
 * group of calls (plus the daily rollup analytics reads), so a crash loses at most the last
 * second of records.
 */
export class UsageRecorder {
  private readonly groups = new Map<string, CallGroup>();
  /** Calls buffered, all groups together. */
  private buffered = 0;
  /** The group of the last call: a busy client records into the same one call after call. */
  private last?: CallGroup;
  private readonly maxBuffered: number;
  private readonly timer: NodeJS.Timeout;
  private flushing?: Promise<void>;
  /** The buffer-full warning was logged since the last successful write. */
  private warnedFull = false;

  constructor(
    private readonly ds: DataSource,
    private readonly logger: Logger,
    opts: { maxBuffered?: number } = {},
  ) {
    this.maxBuffered = opts.maxBuffered ?? MAX_BUFFERED;
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  record(call: GatewayCall): void {
    const g = this.groupOf(call);
    g.statuses.push(call.httpStatus);
    g.latencies.push(call.latencyMs);
    g.gas.push(call.gasUsed);
    g.ats.push(call.at);
    this.buffered += 1;
    if (this.buffered > this.maxBuffered) {
      this.dropOldest(this.buffered - this.maxBuffered);
      if (!this.warnedFull) {
        this.warnedFull = true;
        this.logger.warn(
          { buffered: this.buffered },
          'usage buffer full: dropping the oldest gateway call records until the database is back',
        );
      }
    }
  }

  /** Writes everything buffered so far; concurrent calls share one write. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** The buffered group of `call`'s rollup row, made when it has none. */
  private groupOf(call: GatewayCall): CallGroup {
    const dayIndex = Math.floor(call.at / DAY_MS);
    const last = this.last;
    if (
      last !== undefined &&
      last.dayIndex === dayIndex &&
      last.developerId === call.developerId &&
      last.apiKeyId === call.apiKeyId &&
      last.contractId === call.contractId &&
      last.method === call.method &&
      last.kind === call.kind &&
      this.groups.get(last.key) === last
    ) {
      return last;
    }
    const key = `${call.developerId}|${dayIndex}|${call.apiKeyId}|${call.contractId}|${call.method}|${call.kind}`;
    let g = this.groups.get(key);
    if (!g) {
      g = {
        key,
        developerId: call.developerId,
        apiKeyId: call.apiKeyId,
        contractId: call.contractId,
        method: call.method,
        kind: call.kind,
        dayIndex,
        statuses: [],
        latencies: [],
        gas: [],
        ats: [],
        dropped: 0,
      };
      this.groups.set(key, g);
    }
    this.last = g;
    return g;
  }

  /**
   * Drops the `n` oldest calls, whichever groups hold them (the database has been away a while).
   * A dropped call is only marked; the arrays are cut once a group has dropped as many calls as it
   * holds, so a full buffer costs each new call a scan of the groups, not a copy of the arrays.
   */
  private dropOldest(n: number): void {
    for (let left = n; left > 0 && this.groups.size > 0; left--) {
      let oldest: CallGroup | undefined;
      for (const g of this.groups.values()) if (!oldest || g.ats[g.dropped]! < oldest.ats[oldest.dropped]!) oldest = g;
      const g = oldest!;
      g.dropped += 1;
      this.buffered -= 1;
      if (sizeOf(g) === 0) this.groups.delete(g.key);
      else if (g.dropped * 2 > g.statuses.length) compact(g);
    }
  }

  /** Takes up to `max` calls out of the buffer. */
  private take(max: number): CallGroup[] {
    const taken: CallGroup[] = [];
    let left = max;
    for (const [key, g] of this.groups) {
      if (left === 0) break;
      compact(g);
      if (g.statuses.length <= left) {
        this.groups.delete(key);
        taken.push(g);
        left -= g.statuses.length;
      } else {
        taken.push(takeFront(g, left));
        left = 0;
      }
    }
    this.buffered -= max - left;
    return taken;
  }

  /** Puts calls that could not be written back, ahead of those recorded since. */
  private putBack(groups: CallGroup[]): void {
    for (const g of groups) {
      const now = this.groups.get(g.key);
      if (now) {
        compact(now);
        now.statuses = g.statuses.concat(now.statuses);
        now.latencies = g.latencies.concat(now.latencies);
        now.gas = g.gas.concat(now.gas);
        now.ats = g.ats.concat(now.ats);
      } else {
        this.groups.set(g.key, g);
      }
      this.buffered += g.statuses.length;
    }
  }

  private async write(): Promise<void> {
    while (this.buffered > 0) {
      const batch = this.take(BATCH_CALLS);
      try {
        await this.ds.transaction(async (m) => {
          // One row per group (gateway_call_batches): what its calls share once, and their status,
          // latency, gas and time as four arrays. A row per call cost PostgreSQL 7.7 µs of CPU
          // per call, on the cores the service itself runs on (BENCHMARKS.md, "Call records packed").
          const packed = batch.map(packedOf);
          await m.query(
            `INSERT INTO gateway_call_batches
               (developer_id, api_key_id, contract_id, method, kind, first_at, http_status, latency_ms, gas_used, at_ms)
             SELECT d, k, c, me, t, to_timestamp(f / 1000.0), s::integer[], l::integer[], g::numeric[], a::bigint[]
               FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::float8[],
                           $7::text[], $8::text[], $9::text[], $10::text[])
                    WITH ORDINALITY AS u(d, k, c, me, t, f, s, l, g, a, o)
              ORDER BY o`,
            [
              batch.map((g) => g.developerId),
              batch.map((g) => g.apiKeyId),
              batch.map((g) => g.contractId),
              batch.map((g) => g.method),
              batch.map((g) => g.kind),
              packed.map((p) => p.firstAt),
              packed.map((p) => p.statuses),
              packed.map((p) => p.latencies),
              packed.map((p) => p.gas),
              packed.map((p) => p.ats),
            ],
          );
          await this.rollUp(m, batch);
        });
        this.warnedFull = false;
      } catch (err) {
        // Keep them for the next flush; the database may be back by then.
        this.putBack(batch);
        this.logger.warn({ err, buffered: this.buffered }, 'could not write gateway usage records; will retry');
        return;
      }
    }
  }

  /** Adds a batch's groups to the daily rollup that analytics reads, in one statement. */
  private async rollUp(m: EntityManager, groups: CallGroup[]): Promise<void> {
    const rollups = groups.map(rollupOf);
    // The groups of a batch are distinct rows (one group per row key), so no row is hit twice.
    await m.query(
      `INSERT INTO gateway_usage_daily AS u
         (developer_id, day, api_key_id, contract_id, method, kind, requests, errors, gas_used, latency_sum_ms, latency_histogram)
       SELECT d, day, k, c, me, t, n, e, gas, l, h::bigint[]
         FROM unnest($1::uuid[], $2::date[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::int[], $8::int[],
                     $9::numeric[], $10::bigint[], $11::text[]) AS x(d, day, k, c, me, t, n, e, gas, l, h)
       ON CONFLICT (developer_id, day, api_key_id, contract_id, method, kind) DO UPDATE SET
         requests = u.requests + EXCLUDED.requests,
         errors = u.errors + EXCLUDED.errors,
         gas_used = u.gas_used + EXCLUDED.gas_used,
         latency_sum_ms = u.latency_sum_ms + EXCLUDED.latency_sum_ms,
         latency_histogram = ARRAY(
           SELECT a + b FROM unnest(u.latency_histogram, EXCLUDED.latency_histogram) WITH ORDINALITY AS t(a, b, i) ORDER BY i
         )`,
      [
        groups.map((g) => g.developerId),
        groups.map((g) => dayOf(g.dayIndex * DAY_MS)),
        groups.map((g) => g.apiKeyId),
        groups.map((g) => g.contractId),
        groups.map((g) => g.method),
        groups.map((g) => g.kind),
        groups.map((g) => g.statuses.length),
        rollups.map((r) => r.errors),
        rollups.map((r) => r.gas.toString()),
        rollups.map((r) => r.latency),
        // Each histogram as an array literal of counts (integers this process counted).
        rollups.map((r) => `{${r.histogram.join(',')}}`),
      ],
    );
  }
}
