import 'reflect-metadata';
import cluster from 'node:cluster';
import { runPrimary, workerConfig } from './app/cluster';
import { startApp } from './app/index'; // not './app': a dist/ built before src/app.ts moved may still hold a stale app.js
import { ConfigError, loadConfig } from './kernel/config';
import { createLogger } from './kernel/logger';

/** Entry point: parse the configuration, start everything, stop everything on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  let logger = createLogger(config.logLevel);
  const failed = (err: unknown): never => {
    logger.fatal({ err }, 'start-up failed');
    // One readable sentence for whoever started the service, beside the JSON log line.
    const reason = err instanceof Error ? err.message : String(err);
    process.stderr.write(`Start-up failed: ${reason.replace(/\.?\s*$/, '')}.\n`);
    process.exit(1);
  };
  // WEB_CONCURRENCY > 1: this process forks the HTTP workers (docs/api.md, "Operations").
  if (cluster.isPrimary && config.webConcurrency > 1) return runPrimary(config, logger).catch(failed);
  if (cluster.isWorker) {
    config = await workerConfig(config);
    logger = logger.child({ worker: cluster.worker!.id, pid: process.pid });
  }
  const app = await startApp(config, logger).catch(failed);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    void app.close().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (cluster.isWorker) {
    // A primary that is gone (killed) leaves no worker behind.
    process.on('disconnect', () => stop('primary gone'));
    process.send?.({ type: 'ready' });
  }
  logger.info({ url: app.url }, 'service ready');
}

void main();
