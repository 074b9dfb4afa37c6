import cluster, { type Worker } from 'node:cluster';
import type { AppConfig } from '../kernel/config';
import type { Logger } from '../kernel/logger';
import { loadOrCreateDevCa } from '../modules/accounts/eds/dev-ca';
import { aggregateWorkerMetrics } from '../server/instance-metrics';
import { startDependencies, type Dependencies } from './index';

/**
 * WEB_CONCURRENCY (docs/api.md, "Operations"): the primary process starts what the service runs
 * on (embedded PostgreSQL, dev chains: once) and forks the HTTP workers, which share the port
 * (Node's cluster module). One worker runs the background work (indexer, transaction tracker,
 * webhook deliveries); should it die, its replacement takes the role. On SIGTERM/SIGINT the
 * primary stops every worker, waits for them, then stops what it started, and exits 0. /metrics,
 * answered by any worker, adds up all of them through the primary.
 */

/** What the primary tells a worker before it starts (not through the environment: it holds URLs and a key). */
export interface WorkerSetup {
  type: 'setup';
  dependencies: Dependencies;
  backgroundWork: boolean;
}

/** How long the primary waits for its workers to stop before it kills them. */
const WORKER_STOP_MS = 25_000;

const isSetup = (message: unknown): message is WorkerSetup =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'setup';

/** In a worker: the configuration the primary completed (its database, nodes and role). */
export function workerConfig(config: AppConfig): Promise<AppConfig> {
  return new Promise((resolve) => {
    // Other messages (a metrics request) may come first: wait for the setup itself.
    const onMessage = (message: unknown) => {
      if (!isSetup(message)) return;
      process.off('message', onMessage);
      const { dependencies: d, backgroundWork } = message;
      resolve({
        ...config,
        databaseUrl: d.databaseUrl,
        rpcUrls: { testnet: d.rpcUrls.testnet, mainnet: d.rpcUrls.mainnet },
        faucetPrivateKey: d.faucetPrivateKey,
        localNetworks: d.localNetworks,
        backgroundWork,
      });
    };
    process.on('message', onMessage);
  });
}

/** Runs the primary: forks the workers and resolves; rejects when what it starts fails to start. */
export async function runPrimary(config: AppConfig, logger: Logger): Promise<void> {
  const cleanups: Array<{ name: string; run: () => Promise<void> }> = [];
  const closeDependencies = async () => {
    while (cleanups.length > 0) {
      const step = cleanups.pop()!;
      await step.run().catch((err: unknown) => logger.error({ err, step: step.name }, 'error while shutting down'));
      logger.info({ step: step.name }, 'stopped');
    }
  };
  let dependencies: Dependencies;
  try {
    // Made once here: workers making it at once would each write their own.
    if (!config.edsTrustedCaFile) await loadOrCreateDevCa(config.dataDir);
    dependencies = await startDependencies(config, logger, (name, run) => cleanups.push({ name, run }));
  } catch (err) {
    // What was started is stopped; main.ts reports the failure as for one process.
    await closeDependencies();
    throw err;
  }

  let stopping = false;
  const workers = new Set<Worker>();
  const ready = new Set<Worker>();
  let background: Worker | undefined;

  const fork = (backgroundWork: boolean) => {
    const worker = cluster.fork();
    workers.add(worker);
    if (backgroundWork) background = worker;
    worker.once('online', () => worker.send({ type: 'setup', dependencies, backgroundWork } satisfies WorkerSetup));
    worker.on('message', (message: unknown) => {
      if ((message as { type?: unknown } | null)?.type !== 'ready') return;
      ready.add(worker);
      if (ready.size === config.webConcurrency) logger.info({ workers: ready.size }, 'all workers ready');
    });
    worker.once('exit', (code, signal) => {
      workers.delete(worker);
      const wasReady = ready.delete(worker);
      if (worker === background) background = undefined;
      if (stopping) return;
      // Exit 0: the worker was stopped by a signal sent to the whole group (Ctrl-C in a terminal) before this one.
      if (code === 0) return void stop('a worker stopped');
      logger.error({ worker: worker.id, code, signal, backgroundWork }, 'worker exited');
      // A worker that never started means the next would not either: stop rather than loop.
      if (!wasReady) return void stop('worker start-up failed', 1);
      fork(backgroundWork);
    });
  };

  const stop = async (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, workers: workers.size }, 'shutting down');
    const force = setTimeout(() => {
      for (const w of workers) w.process.kill('SIGKILL');
    }, WORKER_STOP_MS);
    force.unref();
    await Promise.all(
      [...workers].map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );
    clearTimeout(force);
    await closeDependencies();
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  // A scrape of /metrics reaches one worker; the primary adds up every worker's (instance-metrics.ts).
  aggregateWorkerMetrics((worker) => ready.has(worker));
  for (let i = 0; i < config.webConcurrency; i++) fork(i === 0);
}
