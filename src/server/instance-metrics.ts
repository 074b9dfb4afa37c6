import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, Gauge, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

/**
 * /metrics of an instance with several HTTP workers (docs/api.md, "Many cores: `WEB_CONCURRENCY`"):
 * a scrape reaches one worker, which asks the primary; the primary asks every worker for its own
 * metrics, adds them up (prom-client's aggregation: counters and histograms summed, each metric's
 * `aggregator` otherwise) and hands the text back to the worker that asked. A worker that does
 * not answer in time is left out of that scrape; `instance_workers` says how many were added up.
 */

type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

const ASK = 'metrics:ask'; // worker → primary: the instance's metrics
const ANSWER = 'metrics:answer'; // primary → that worker: the text
const COLLECT = 'metrics:collect'; // primary → every worker: your own metrics
const COLLECTED = 'metrics:collected'; // worker → primary

/** How long the primary waits for each worker's metrics. */
const COLLECT_MS = 3_000;
/** How long a worker waits for the primary's answer. */
const ASK_MS = COLLECT_MS + 2_000;

interface Message {
  type: string;
  id: number;
  metrics?: string;
  text?: string;
  error?: string;
}

const isMessage = (m: unknown, type: string): m is Message =>
  typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type;

// Process messages are JSON: NaN (a gauge whose source failed) and ±Infinity travel as strings.
const encode = (metrics: WorkerMetrics): string =>
  JSON.stringify(metrics, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
const decode = (text: string): WorkerMetrics =>
  JSON.parse(text, (k, v: unknown) =>
    k === 'value' && (v === 'NaN' || v === 'Infinity' || v === '-Infinity') ? Number(v) : v,
  ) as WorkerMetrics;

/**
 * In a worker: answers the primary's requests for this worker's metrics, and returns how this
 * worker gets the instance's (for /metrics).
 */
export function instanceMetricsOfWorker(registry: Registry): () => Promise<string> {
  let next = 0;
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (e: Error) => void }>();
  process.on('message', (message: unknown) => {
    if (isMessage(message, COLLECT)) {
      registry
        .getMetricsAsJSON()
        .then((metrics) => process.send?.({ type: COLLECTED, id: message.id, metrics: encode(metrics) }))
        .catch((e: unknown) =>
          process.send?.({ type: COLLECTED, id: message.id, error: e instanceof Error ? e.message : String(e) }),
        );
    } else if (isMessage(message, ANSWER)) {
      const w = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.text !== undefined) w?.resolve(message.text);
      else w?.reject(new Error(message.error ?? 'no metrics'));
    }
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('The primary did not answer with the instance metrics in time'));
      }, ASK_MS);
      waiting.set(id, {
        resolve: (text) => (clearTimeout(timer), resolve(text)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      process.send?.({ type: ASK, id });
    });
}

/** In the primary: answers each worker's request for the instance's metrics, from the workers `serving`. */
export function aggregateWorkerMetrics(serving: (worker: Worker) => boolean): void {
  let next = 0;
  const collecting = new Map<number, (worker: Worker, message: Message) => void>();
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (isMessage(message, COLLECTED)) collecting.get(message.id)?.(worker, message);
    if (!isMessage(message, ASK)) return;
    const id = next++;
    const workers = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => !!w && w.isConnected() && serving(w),
    );
    const answers: WorkerMetrics[] = [];
    const pending = new Set(workers);
    const finish = () => {
      collecting.delete(id);
      clearTimeout(timer);
      const reply = (m: Omit<Message, 'type' | 'id'>) => {
        if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...m });
      };
      Promise.resolve()
        .then(() => {
          const registry = AggregatorRegistry.aggregate(answers);
          new Gauge({
            name: 'instance_workers',
            help: 'HTTP workers (WEB_CONCURRENCY) whose metrics this scrape adds up',
            registers: [registry],
          }).set(answers.length);
          return registry.metrics();
        })
        .then(
          (text) => reply({ text }),
          (e: unknown) => reply({ error: e instanceof Error ? e.message : String(e) }),
        );
    };
    const timer = setTimeout(finish, COLLECT_MS);
    collecting.set(id, (from, m) => {
      if (!pending.delete(from)) return;
      if (m.metrics !== undefined) answers.push(decode(m.metrics));
      if (pending.size === 0) finish();
    });
    for (const w of workers) w.send({ type: COLLECT, id });
    if (workers.length === 0) finish();
  });
}
