import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The gateway read cache's counts since start (its ReadCacheStats). */
export interface ReadCacheCounts {
  hits: number;
  misses: number;
  coalesced: number;
  bypassed: number;
  immediate: number;
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

  /** Every exchange with a node, by network and node host (never its URL). */
  readonly nodeRequests = new Histogram({
    name: 'rpc_node_request_duration_seconds',
    help: 'Exchanges with the RPC nodes (one HTTP request, a batch counting once) by network and node host',
    labelNames: ['network', 'host'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly nodeErrors = new Counter({
    name: 'rpc_node_errors_total',
    help: 'Exchanges with an RPC node that got no usable answer (timeout, connection refused, HTTP error)',
    labelNames: ['network', 'host'] as const,
    registers: [this.registry],
  });

  /**
   * The text /metrics serves: this process's metrics, or with WEB_CONCURRENCY > 1 the whole
   * instance's, added up by the primary (instance-metrics.ts).
   */
  instanceText: () => Promise<string> = () => this.registry.metrics();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Records one exchange with a node (ChainRegistry.observeNodes). */
  nodeExchange(network: string, host: string, seconds: number, failed: boolean): void {
    this.nodeRequests.observe({ network, host }, seconds);
    if (failed) this.nodeErrors.inc({ network, host });
  }

  /**
   * Serves the background work's state, read at each scrape: how far each network's explorer index
   * is behind the head the service follows, and the webhook outbox's backlog. A source that fails
   * (the database away) leaves the lag series out and the backlog NaN in that scrape, rather than
   * failing /metrics.
   */
  observeBackgroundWork(sources: {
    indexLag: () => Promise<Record<string, number | null>>;
    webhookBacklog: () => Promise<{ pending: number; oldestPendingSeconds: number }>;
  }): void {
    new Gauge({
      name: 'explorer_index_lag_blocks',
      help: 'Blocks between the head the service follows and the last block the explorer has indexed, by network',
      labelNames: ['network'] as const,
      registers: [this.registry],
      // Every worker reads the same index: the instance's lag is the largest any of them sees.
      aggregator: 'max',
      async collect() {
        this.reset();
        const lags = await sources.indexLag().catch(() => ({}) as Record<string, number | null>);
        for (const [network, lag] of Object.entries(lags)) if (lag !== null) this.set({ network }, lag);
      },
    });
    let backlog: Promise<{ pending: number; oldestPendingSeconds: number } | null> | null = null;
    // Both gauges of one scrape share one query.
    const readBacklog = () => {
      backlog ??= sources
        .webhookBacklog()
        .catch(() => null)
        .finally(() => setImmediate(() => (backlog = null)));
      return backlog;
    };
    new Gauge({
      name: 'webhook_deliveries_pending',
      aggregator: 'max', // every worker reads the same outbox
      help: 'Webhook messages waiting to be delivered (all developers, all instances)',
      registers: [this.registry],
      async collect() {
        const b = await readBacklog();
        this.set(b ? b.pending : NaN);
      },
    });
    new Gauge({
      name: 'webhook_oldest_pending_seconds',
      aggregator: 'max', // every worker reads the same outbox
      help: 'Age of the oldest webhook message waiting to be delivered (0 when none waits)',
      registers: [this.registry],
      async collect() {
        const b = await readBacklog();
        this.set(b ? b.oldestPendingSeconds : NaN);
      },
    });
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

  /** Serves each compile lane's running and waiting compiles, read at each scrape. */
  observeCompileLanes(lanes: readonly string[], loadOf: (lane: string) => { running: number; waiting: number }): void {
    const gauge = (name: string, help: string, pick: (l: { running: number; waiting: number }) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['lane'] as const,
        registers: [this.registry],
        collect() {
          for (const lane of lanes) this.set({ lane }, pick(loadOf(lane)));
        },
      });
    gauge(
      'compile_queue_depth',
      'Compiles waiting for a solc worker, by lane (developer, anonymous)',
      (l) => l.waiting,
    );
    gauge('compile_running', 'Compiles running in a solc worker, by lane', (l) => l.running);
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
    counter(
      'gateway_read_cache_immediate_total',
      'Gateway queries and JSON-RPC door eth_calls answered from the read cache without waiting: key, contract and method known to this instance',
      (c) => c.immediate,
    );
    gauge('gateway_read_cache_entries', 'Answers held by the gateway read cache', (c) => c.entries);
    gauge('gateway_read_cache_bytes', 'Estimated size of the answers held by the gateway read cache', (c) => c.bytes);
  }
}
