import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The gateway read cache's counts since start (its ReadCacheStats). */
export interface ReadCacheCounts {
  hits: number;
  misses: number;
  coalesced: number;
  bypassed: number;
  entries: number;
  bytes: number;
}

/** Prometheus metrics of one process (served at /metrics). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by area, method and status',
    labelNames: ['area', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly unexpectedErrors = new Counter({
    name: 'unexpected_errors_total',
    help: 'Errors answered as 500 INTERNAL',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Serves how many GraphQL documents the admission pipeline remembers, read at each scrape. */
  observeAdmittedDocuments(count: () => number): void {
    new Gauge({
      name: 'graphql_admitted_documents',
      help: 'GraphQL documents the admission pipeline remembers (parsed once, compiled from their second use)',
      registers: [this.registry],
      collect() {
        this.set(count());
      },
    });
  }

  /** Serves the gateway read cache's counts, read from `counts` at each scrape. */
  observeReadCache(counts: () => ReadCacheCounts): void {
    const counter = (name: string, help: string, pick: (c: ReadCacheCounts) => number) =>
      new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(pick(counts()));
        },
      });
    const gauge = (name: string, help: string, pick: (c: ReadCacheCounts) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(pick(counts()));
        },
      });
    counter('gateway_read_cache_hits_total', 'Gateway queries answered from the read cache', (c) => c.hits);
    counter('gateway_read_cache_misses_total', 'Gateway queries sent to the node (one eth_call each)', (c) => c.misses);
    counter(
      'gateway_read_cache_coalesced_total',
      'Gateway queries that joined an identical eth_call already in flight',
      (c) => c.coalesced,
    );
    counter(
      'gateway_read_cache_bypassed_total',
      'Gateway queries sent to the node at latest, uncached, because the head was not known or stale',
      (c) => c.bypassed,
    );
    gauge('gateway_read_cache_entries', 'Answers held by the gateway read cache', (c) => c.entries);
    gauge('gateway_read_cache_bytes', 'Estimated size of the answers held by the gateway read cache', (c) => c.bytes);
  }
}
