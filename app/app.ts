// The composition root: createApp opens the database and builds the server on it in named steps, in the
// order a start needs them, and takes it all down again in order.
import type http from 'node:http';
import type { McpEndpoint } from '../protocols/mcp';
import type { CompiledRoute } from '../rest/runner';
import type { Config } from '../src/config';
import { openConfiguredDatabase, type Database } from '../src/db/database';
import type { InMemory } from '../src/db/pglite-worker';
import type { Services } from '../src/domain/context';
import type { Clock } from '../src/platform/clock';
import { createLogger, type Logger } from '../src/platform/logger';
import { expressApp } from './express';
import { serveHttp } from './http';
import { closeServices, openServices } from './services';
import { buildSurfaces, compileDocuments, ownToolsOf, validateWhileOpening, type Documents } from './surfaces';
import { backgroundWork } from './work';

export interface AppOptions {
  /**
   * The database, already being opened (server.ts opens it while this module's imports load); else it is
   * opened here from the config, `memory`, `skipMigrations` and `onDatabaseLost`.
   */
  database?: Promise<Database>;
  /** An embedded database in memory instead of DATA_DIR (tests: a migrated template). */
  memory?: InMemory;
  /** Told if the embedded database's thread stops while the app runs (server.ts exits: it cannot go on). */
  onDatabaseLost?: (err: Error) => void;
  skipMigrations?: boolean;
  /**
   * Validate the documents while the database opens, on a thread that has nothing else to do until then: a
   * process's start (server.ts). An app made in a process that runs others (a test runner's worker) leaves each
   * to its first run, as every document is anyway: there the time is another app's.
   */
  validateWhileOpening?: boolean;
  clock?: Clock;
  log?: Logger;
}

export interface App {
  services: Services;
  server: http.Server;
  compiled: CompiledRoute[];
  mcp: McpEndpoint;
  /** Starts listening; resolves with the bound port. */
  listen(): Promise<number>;
  /** Stops accepting, drains requests, ends streams, stops jobs, closes Redis and the database. */
  close(): Promise<void>;
}

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.logLevel);
  const opening =
    opts.database ?? openConfiguredDatabase(config, log, { memory: opts.memory, skipMigrations: opts.skipMigrations, onLost: opts.onDatabaseLost });
  // The surfaces' documents are compiled while the database opens (the embedded one's thread starts PGlite).
  let documents: Documents;
  try {
    documents = compileDocuments();
  } catch (err) {
    void opening.then(
      (opened) => opened.close(),
      () => {},
    );
    throw err;
  }
  if (opts.validateWhileOpening) validateWhileOpening(opening, documents);
  const db = await opening;
  const opened = await openServices(config, db, { log, clock: opts.clock, ownTools: ownToolsOf(documents.tools) });
  const { services } = opened;
  const surfaces = buildSurfaces(services, documents);
  const httpServer = serveHttp(services, surfaces, expressApp(services, surfaces, documents));
  const work = backgroundWork(db, services);

  let closing: Promise<void> | undefined;
  return {
    services,
    server: httpServer.server,
    compiled: documents.compiled,
    mcp: surfaces.mcp,
    // Background work starts once the server listens: its first rounds (a claim of every queue, the first
    // samples) no longer come before a start's first requests, on the embedded database's one connection.
    listen: () => httpServer.listen(() => work.start()),
    close() {
      closing ??= (async () => {
        const deadline = Date.now() + config.shutdownTimeoutMs - 1000;
        await httpServer.stopAccepting();
        // Readers of event streams are told to reconnect (to another instance).
        surfaces.streams.close();
        await surfaces.mcp.close();
        await httpServer.ws.close();
        await work.stop();
        await httpServer.finishAnswering(deadline);
        surfaces.metrics.close();
        await closeServices(opened, db);
      })();
      return closing;
    },
  };
}
