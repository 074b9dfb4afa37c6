import { BUCKET_COUNT, bucketOf, quantile } from './latency-histogram';

describe('latency histogram', () => {
  it('puts latencies in the bucket of their upper bound', () => {
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(1)).toBe(0);
    expect(bucketOf(1.5)).toBe(1);
    expect(bucketOf(7)).toBe(6);
    expect(bucketOf(10_000_000)).toBe(BUCKET_COUNT - 1);
  });

  it('reports the p95 as the bound of the bucket reaching 95% of the calls', () => {
    const h = new Array<number>(BUCKET_COUNT).fill(0);
    h[bucketOf(2)] = 90;
    h[bucketOf(45)] = 9;
    h[bucketOf(900)] = 1;
    expect(quantile(h, 0.95)).toBe(50);
    expect(quantile(h, 0.5)).toBe(2);
    expect(quantile(h, 1)).toBe(1000);
    expect(quantile(new Array<number>(BUCKET_COUNT).fill(0), 0.95)).toBeNull();
  });
});
