import type { DataSource } from 'typeorm';
import { AppError } from '../../kernel/errors/app-error';
import type { Session } from '../../auth/session';
import type { Analytics, ApiKeyUsage, ContractUsage, DailyUsage, MethodUsage, UsageStats } from './analytics.types';
import { BUCKET_COUNT, quantile } from './latency-histogram';
import type { UsageKind, UsageRecorder } from './usage-recorder';
import { contractNames, keyNames } from './usage-names.query';

/** docs/api.md, "Conventions": analytics window 1 to 90 days, default 14. */
export const DEFAULT_DAYS = 14;
export const MAX_DAYS = 90;

interface RollupRow {
  day: string;
  api_key_id: string;
  contract_id: string | null;
  method: string | null;
  kind: UsageKind;
  requests: string;
  errors: string;
  gas_used: string;
  latency_sum_ms: string;
  latency_histogram: string[];
}

class Tally {
  requests = 0;
  queries = 0;
  invokes = 0;
  rpc = 0;
  errors = 0;
  gas = 0n;
  latency = 0;
  histogram = new Array<number>(BUCKET_COUNT).fill(0);

  add(r: RollupRow): void {
    const n = Number(r.requests);
    this.requests += n;
    if (r.kind === 'query') this.queries += n;
    else if (r.kind === 'invoke') this.invokes += n;
    else this.rpc += n;
    this.errors += Number(r.errors);
    this.gas += BigInt(r.gas_used);
    this.latency += Number(r.latency_sum_ms);
    r.latency_histogram.forEach((v, i) => (this.histogram[i]! += Number(v)));
  }

  stats(): UsageStats {
    return {
      requests: this.requests,
      queries: this.queries,
      invokes: this.invokes,
      rpc: this.rpc,
      errors: this.errors,
      gasUsed: this.gas.toString(),
      avgLatencyMs: this.requests === 0 ? 0 : Math.round((this.latency / this.requests) * 100) / 100,
    };
  }
}

function tallyBy<K>(rows: RollupRow[], keyOf: (r: RollupRow) => K | null): Map<K, Tally> {
  const map = new Map<K, Tally>();
  for (const r of rows) {
    const k = keyOf(r);
    if (k === null) continue;
    let t = map.get(k);
    if (!t) map.set(k, (t = new Tally()));
    t.add(r);
  }
  return map;
}

/** Gateway usage analytics, computed from the daily rollup in SQL-sized pieces. */
export class AnalyticsService {
  constructor(
    private readonly ds: DataSource,
    private readonly usage: UsageRecorder,
  ) {}

  async analytics(session: Session, developerId: string, days?: number | null): Promise<Analytics> {
    const caller = await session.self(developerId);
    const window = days ?? DEFAULT_DAYS;
    if (!Number.isInteger(window) || window < 1 || window > MAX_DAYS) {
      throw new AppError('VALIDATION_FAILED', `days must be an integer from 1 to ${MAX_DAYS}`, { field: 'days' });
    }
    // Calls still buffered on this instance count too.
    await this.usage.flush();
    const to = new Date();
    const from = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate() - (window - 1)));
    const fromDay = from.toISOString().slice(0, 10);
    const rows = (await this.ds.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, api_key_id, contract_id, method, kind, requests, errors, gas_used,
              latency_sum_ms, latency_histogram
         FROM gateway_usage_daily WHERE developer_id = $1 AND day >= $2::date`,
      [caller.id, fromDay],
    )) as RollupRow[];

    const total = new Tally();
    rows.forEach((r) => total.add(r));
    const byDay = tallyBy(rows, (r) => r.day);
    const daily: DailyUsage[] = [];
    for (let i = 0; i < window; i++) {
      const date = new Date(from.getTime() + i * 86_400_000).toISOString().slice(0, 10);
      daily.push({ date, ...(byDay.get(date) ?? new Tally()).stats() });
    }

    const byContractTally = tallyBy(rows, (r) => r.contract_id);
    const byKeyTally = tallyBy(rows, (r) => r.api_key_id);
    const byMethodTally = tallyBy(rows, (r) => (r.contract_id && r.method ? `${r.contract_id}|${r.method}` : null));
    const [contracts, keys] = await Promise.all([
      contractNames(this.ds, [...byContractTally.keys()]),
      keyNames(this.ds, [...byKeyTally.keys()]),
    ]);
    const contractName = new Map(contracts.map((c) => [c.id, c.name]));
    const keyInfo = new Map(keys.map((k) => [k.id, k]));
    const busiest = <T extends { requests: number }>(a: T, b: T) => b.requests - a.requests;

    const byContract: ContractUsage[] = [...byContractTally].map(([contractId, t]) => {
      const s = t.stats();
      return {
        contractId,
        name: contractName.get(contractId) ?? null,
        requests: s.requests,
        queries: s.queries,
        invokes: s.invokes,
        errors: s.errors,
        gasUsed: s.gasUsed,
      };
    });
    const byApiKey: ApiKeyUsage[] = [...byKeyTally].map(([keyId, t]) => ({
      keyId,
      name: keyInfo.get(keyId)?.name ?? null,
      prefix: keyInfo.get(keyId)?.prefix ?? '',
      requests: t.requests,
      errors: t.errors,
    }));
    const byMethod: MethodUsage[] = [...byMethodTally].map(([k, t]) => {
      const [contractId, method] = k.split('|') as [string, string];
      return { contractId, method, requests: t.requests, errors: t.errors, avgLatencyMs: t.stats().avgLatencyMs };
    });
    return {
      days: window,
      from,
      to,
      totals: { ...total.stats(), p95LatencyMs: quantile(total.histogram, 0.95) ?? 0 },
      daily,
      byContract: byContract.sort(busiest),
      byApiKey: byApiKey.sort(busiest),
      byMethod: byMethod.sort(busiest),
    };
  }
}
