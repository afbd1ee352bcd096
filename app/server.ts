// The process: reads the environment, starts the app, and shuts down gracefully on SIGTERM/SIGINT
// (stop accepting, drain, end streams, stop jobs, close the database) within SHUTDOWN_TIMEOUT_MS.
import '../src/production-mode';
import { loadConfig } from '../src/config';
import type { App } from './app';
import type { Database } from '../src/db/database';
import { DataDirLockedError, startEmbedded } from '../src/db/embedded';
import { createLogger } from '../src/platform/logger';
import { collectAfterStart } from '../src/platform/settle';

/**
 * WebAssembly compiled from now on stays on V8's baseline compiler (Liftoff). V8 fixes a module's tiers when
 * it compiles it, so this is called once the database is open: the embedded database's PostgreSQL, compiled
 * in its thread before, still tiers up to the optimizing compiler where it runs hot, while Prisma's query
 * compiler, compiled at the first query, does not: its optimizing compiles took malloc that glibc kept, and
 * made no request faster (docs/operations.md, Footprint). The whole process on Liftoff held less still, but
 * its database answered uncached resolves slower.
 */
function baselineWebAssemblyFromNow(): void {
  (require('node:v8') as typeof import('node:v8')).setFlagsFromString('--liftoff-only');
}

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error(`configuration error: ${(err as Error).message}`);
    process.exit(2);
  }
  const log = createLogger(config.logLevel);
  let app: App;
  let database: Promise<Database> | undefined;
  try {
    // The database opens while the server's modules load (../src/db/database, with Prisma's client, and ./app are
    // required after this): the embedded one's thread starts PGlite on the other core, PostgreSQL's pool
    // connects and the migrations are checked, where each waited for the modules before.
    const embedded = config.databaseUrl ? undefined : startEmbedded({ dataDir: config.dataDir, seed: config.embeddedSeed, log: (m) => log.info(m) });
    const { openConfiguredDatabase } = require('../src/db/database') as typeof import('../src/db/database');
    database = openConfiguredDatabase(config, log, { onLost: () => process.exit(1), embedded });
    // Awaited by createApp; a failure to open is reported below, not as an unhandled rejection.
    database.catch(() => {});
    database.then(baselineWebAssemblyFromNow, () => {});
    const { createApp } = require('./app') as typeof import('./app');
    app = await createApp(config, { log, database, validateWhileOpening: true });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      log.fatal(err.message);
      process.exit(3);
    }
    log.fatal({ err }, 'failed to start');
    process.exit(1);
  }
  const port = await app.listen();
  // The signals are taken before the port is announced: a supervisor may signal as soon as it reads that
  // line, and a signal with no handler ends the process undrained, its data directory still locked.
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
  // What the start made and dropped is collected once it is done, here and in the embedded database's thread.
  collectAfterStart();
  void database?.then((db) => db.settle());
  log.info({ port, host: config.host, database: app.services.dbKind, redis: Boolean(config.redisUrl) }, `marketplace listening on ${config.publicBaseUrl}`);
}

void main();
