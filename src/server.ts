// The process: reads the environment, starts the app, and shuts down gracefully on SIGTERM/SIGINT
// (stop accepting, drain, end streams, stop jobs, close the database) within SHUTDOWN_TIMEOUT_MS.
import './production-mode';
import { loadConfig } from './config';
import { createApp } from './app';
import { DataDirLockedError } from './db/database';
import { createLogger } from './platform/logger';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error(`configuration error: ${(err as Error).message}`);
    process.exit(2);
  }
  const log = createLogger(config.logLevel);
  let app;
  try {
    app = await createApp(config, { log, onDatabaseLost: () => process.exit(1) });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      log.fatal(err.message);
      process.exit(3);
    }
    log.fatal({ err }, 'failed to start');
    process.exit(1);
  }
  const port = await app.listen();
  log.info({ port, host: config.host, database: app.services.dbKind, redis: Boolean(config.redisUrl) }, `marketplace listening on ${config.publicBaseUrl}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    app.close().then(
      () => {
        log.info('stopped cleanly');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
