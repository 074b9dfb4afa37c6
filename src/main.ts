import 'reflect-metadata';
import { startApp } from './app/index'; // not './app': a dist/ built before src/app.ts moved may still hold a stale app.js
import { ConfigError, loadConfig } from './config';
import { createLogger } from './logger';

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
  const logger = createLogger(config.logLevel);
  const app = await startApp(config, logger).catch((err: unknown) => {
    logger.fatal({ err }, 'start-up failed');
    // One readable sentence for whoever started the service, beside the JSON log line.
    const reason = err instanceof Error ? err.message : String(err);
    process.stderr.write(`Start-up failed: ${reason.replace(/\.?\s*$/, '')}.\n`);
    process.exit(1);
  });
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
  logger.info({ url: app.url }, 'service ready');
}

void main();
