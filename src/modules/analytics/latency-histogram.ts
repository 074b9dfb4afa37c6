/** Upper bounds (ms) of the latency buckets; the last bucket holds everything slower. */
export const LATENCY_BUCKETS_MS = [
  1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 125, 150, 200, 250, 300, 400, 500, 750, 1000, 1500,
  2000, 3000, 5000, 10000, 30000, 60000,
];

/** Number of buckets, the overflow bucket included. */
export const BUCKET_COUNT = LATENCY_BUCKETS_MS.length + 1;

export function bucketOf(latencyMs: number): number {
  const i = LATENCY_BUCKETS_MS.findIndex((upper) => latencyMs <= upper);
  return i === -1 ? LATENCY_BUCKETS_MS.length : i;
}

/** The q-quantile of a histogram, as the upper bound of the bucket that reaches it (never under-reports). */
export function quantile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= rank) return LATENCY_BUCKETS_MS[i] ?? LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1]!;
  }
  return LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1]!;
}
