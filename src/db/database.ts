// Opens the database: PGlite in DATA_DIR (embedded default), in a worker thread behind a private socket, or
// PostgreSQL at DATABASE_URL; both through `pg` and Prisma 7's PrismaPg driver adapter (no Rust engine).
// Applies pending migrations (in a thread of their own, migrate.ts), and closes cleanly.
import { AsyncLocalStorage } from 'node:async_hooks';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { Prisma, PrismaClient } from './generated/prisma/client';
import { applyMigrationsInThread, migrationsUpToDate } from './migrate';
import { startEmbedded, type EmbeddedStart } from './embedded';
import type { PgliteThread } from './pglite-thread';
import type { InMemory } from './pglite-worker';
import type { Config } from '../config';
import type { Logger } from '../platform/logger';

export type Db = PrismaClient;
/** A client usable inside `db.$transaction(async (tx) => …)`. */
export type DbTx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/**
 * The driver itself, for the few reads that run on every request: Prisma 7's driver-adapter path costs
 * a multiple of a plain `pg` query (docs/benchmarks.md, The bare `node:http` reference), so the
 * per-request credential lookup goes straight to the driver. Everything else uses Prisma.
 */
export interface SqlRunner {
  /**
   * `name` makes it a prepared statement, planned once per connection: hot queries of a fixed shape pass one. On PostgreSQL
   * they run on connections with `plan_cache_mode = force_generic_plan` (re-planning the ranking cost more than running it),
   * so they need indexes that serve any parameters; PGlite's one session keeps the default mode (docs/operations.md).
   */
  query<T>(text: string, params: unknown[], name?: string): Promise<T[]>;
  /**
   * No other process writes this database: the embedded one, whose data directory this process holds.
   * Background workers then need not poll for work made elsewhere (platform/worker.ts).
   */
  soleWriter?: boolean;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  prisma: PrismaClient;
  sql: SqlRunner;
  /** A cheap round trip, for /health. */
  ping(): Promise<void>;
  /**
   * LISTENs on `channel` for the life of the database: `onNotify` gets each payload; `onState` is told
   * false whenever notifications may have been missed (the listening connection dropped) and true once
   * they are being received again (PostgreSQL reconnects by itself, with backoff).
   */
  listen(channel: string, onNotify: (payload: string) => void, onState: (listening: boolean) => void): Promise<void>;
  /** The server has started: what the database's own start left in this process is collected (the embedded one's thread; src/platform/settle.ts). */
  settle(): void;
  /**
   * Runs `run` on one connection of its own, held until it ends: for settings that must hold across its
   * statements (the database's maintenance sets vacuum's cost limits for its session). `run` must leave the
   * connection as it found it (RESET what it SET): it goes back to the pool.
   */
  session<T>(run: (sql: SqlRunner) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * A query beside an open transaction of the same request: on PGlite's one connection it and the transaction
 * wait for each other until the transaction times out. DB_TX_GUARD=1 (the tests) fails it at once; off by
 * default, since its AsyncLocalStorage costs every promise (docs/operations.md, One connection, one transaction).
 */
export class QueryBesideTransactionError extends Error {}

const transactionScope = new AsyncLocalStorage<{ open: boolean }>();

function assertNoOpenTransaction(what: string): void {
  if (transactionScope.getStore()?.open) {
    throw new QueryBesideTransactionError(`${what} ran beside an open transaction of the same request: use the transaction's client`);
  }
}

/** A client whose interactive transactions mark their callbacks' async context (see QueryBesideTransactionError). */
function guardTransactions(prisma: PrismaClient): PrismaClient {
  const transaction = ((arg: unknown, opts?: unknown) => {
    assertNoOpenTransaction('a transaction');
    if (typeof arg !== 'function') return (prisma.$transaction as (a: unknown, o?: unknown) => Promise<unknown>)(arg, opts);
    const scope = { open: true };
    return transactionScope.run(scope, async () => {
      try {
        return await prisma.$transaction((tx) => (arg as (tx: DbTx) => Promise<unknown>)(tx), opts as never);
      } finally {
        scope.open = false;
      }
    });
  }) as PrismaClient['$transaction'];
  return new Proxy(prisma, { get: (target, prop) => (prop === '$transaction' ? transaction : Reflect.get(target, prop, target)) });
}

/** The adapter's own queries (not a transaction's) refuse to run inside a guarded transaction's context. */
function guardAdapter<F extends SqlMigrationAwareDriverAdapterFactory>(factory: F): F {
  const guard = (adapter: SqlDriverAdapter): SqlDriverAdapter =>
    new Proxy(adapter, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if ((prop === 'queryRaw' || prop === 'executeRaw') && typeof value === 'function') {
          return (query: { sql: string }) => {
            assertNoOpenTransaction(`the query "${query.sql.slice(0, 80)}"`);
            return value.call(target, query);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return new Proxy(factory, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === 'connect' && typeof value === 'function') return async () => guard(await value.call(target));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export interface OpenOptions {
  dataDir: string;
  /** A new data directory is made from the install's migrated seed (seed.ts) when there is one (unless false). */
  seed?: boolean;
  databaseUrl?: string;
  /** Instead of DATA_DIR, an embedded database in memory: the tests' migrated template. */
  memory?: InMemory;
  /** Skip applying migrations (the caller's database is known to be migrated). */
  skipMigrations?: boolean;
  /** Connections of the pool (on PostgreSQL, of each of its two pools). */
  poolSize?: number;
  /** Fail a query made beside an open transaction of the same request at once (tests). */
  guardTransactions?: boolean;
  log?: (message: string) => void;
  /** Told if the embedded database's thread stops while open (the process cannot go on without it). */
  onLost?: (err: Error) => void;
  /** The embedded database's thread, already starting (app/server.ts starts it first). */
  embedded?: EmbeddedStart;
}

export { DataDirLockedError } from './embedded';

/** A write refused by a unique constraint (two creations racing, or a duplicate). */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

/**
 * A lookup by key that found no row: Prisma's "required record not found" (a findUniqueOrThrow), or a key
 * its column cannot hold (a malformed UUID), which names no row either.
 */
export function isNoSuchRow(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && (err.code === 'P2025' || err.code === 'P2007');
}

/**
 * A statement or transaction the database aborted for another's sake (a deadlock, a serialization
 * failure): nothing of it was written, so running it again is safe.
 */
export function isTransientConflict(err: unknown): boolean {
  if (err instanceof Prisma.PrismaClientKnownRequestError) return err.code === 'P2034';
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/** Runs `write` again, up to `tries` runs in all, while the database aborts it for another's sake. */
export async function retryTransient<T>(write: () => Promise<T>, tries = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= tries || !isTransientConflict(err)) throw err;
    }
  }
}

/**
 * The database a server's configuration names, logging to `log`: what createApp opens, or what server.ts
 * opens ahead of it while the app's modules load. A lost embedded database is logged, then told to `onLost`.
 */
export function openConfiguredDatabase(
  config: Pick<Config, 'dataDir' | 'embeddedSeed' | 'databaseUrl' | 'dbTransactionGuard'>,
  log: Pick<Logger, 'info' | 'fatal'>,
  opts: Pick<OpenOptions, 'memory' | 'skipMigrations' | 'onLost' | 'embedded'> = {},
): Promise<Database> {
  return openDatabase({
    dataDir: config.dataDir,
    seed: config.embeddedSeed,
    databaseUrl: config.databaseUrl,
    embedded: opts.embedded,
    memory: opts.memory,
    skipMigrations: opts.skipMigrations,
    guardTransactions: config.dbTransactionGuard,
    log: (m) => log.info(m),
    onLost: (err) => {
      log.fatal({ err }, 'the embedded database stopped');
      opts.onLost?.(err);
    },
  });
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const log = opts.log ?? (() => {});
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts, log);

  // The embedded database runs in a worker thread behind a private socket (pglite-thread.ts), so that its
  // statements never take the server's event loop, and the server speaks to it as to PostgreSQL. The server
  // starts it before loading the rest of its modules (app/server.ts); anything else starts it here.
  const { unlock, start, first, connection } = opts.embedded ?? startEmbedded({ dataDir: opts.dataDir, seed: opts.seed ?? true, memory: opts.memory, log });
  // One session behind the socket: its settings are every connection's, so named statements keep the
  // default plan mode (the mux keeps each connection's statement names apart).
  let over = overPg(connection, opts, log, undefined);
  let thread: PgliteThread | undefined;
  try {
    thread = await first;
    if (!opts.skipMigrations && (await migratePending(thread.connection, queryOnce(thread.connection), log)) && !opts.memory) {
      // PGlite's WebAssembly memory grew to what applying them took and never shrinks: reopened (on a socket of
      // its own), the database holds what any other start leaves (docs/operations.md, Footprint: a first start).
      await thread.close();
      thread = await start();
      await over.end();
      over = overPg(thread.connection, opts, log, undefined);
    }
  } catch (err) {
    await over.end();
    await thread?.close().catch(() => {});
    unlock();
    throw err;
  }
  let listening: ((up: boolean) => void)[] = [];
  thread.onDeath((err) => {
    log(err.message);
    for (const onState of listening) onState(false);
    listening = [];
    opts.onLost?.(err);
  });
  return openOverPg('pglite', over, { ...opts, skipMigrations: true }, log, {
    async listen(channel, onNotify, onState) {
      // One process owns the data directory, so every change is made here and none can be missed.
      await thread.listen(channel, onNotify);
      listening.push(onState);
      onState(true);
    },
    settle: () => thread.settle(),
    async close() {
      await thread.close();
      unlock();
    },
  });
}

function openPostgres(url: string, opts: OpenOptions, log: (m: string) => void): Promise<Database> {
  const listeners = new Set<pg.Client>();
  const retries = new Set<NodeJS.Timeout>();
  let closing = false;
  return openOverPg('postgres', overPg({ connectionString: url }, opts, log, 'SET plan_cache_mode = force_generic_plan'), opts, log, {
    async listen(channel, onNotify, onState) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new TypeError(`not a channel name: ${channel}`);
      let delayMs = 100;
      const connect = async (): Promise<void> => {
        // A retry due after the database was closed connects nothing.
        if (closing) return;
        const client = new pg.Client({ connectionString: url });
        listeners.add(client);
        let down = false;
        const lost = () => {
          if (down) return;
          down = true;
          listeners.delete(client);
          client.end().catch(() => {});
          onState(false);
          if (closing) return;
          log(`the ${channel} listener lost its connection; reconnecting in ${delayMs} ms`);
          const retry = setTimeout(() => {
            retries.delete(retry);
            void connect().catch(() => lost());
          }, delayMs);
          retry.unref();
          retries.add(retry);
          delayMs = Math.min(delayMs * 2, 10_000);
        };
        client.on('error', lost);
        client.on('end', lost);
        client.on('notification', (n) => {
          if (n.channel === channel) onNotify(n.payload ?? '');
        });
        try {
          await client.connect();
          await client.query(`LISTEN ${channel}`);
        } catch (err) {
          lost();
          throw err;
        }
        delayMs = 100;
        onState(true);
      };
      // A failed first attempt is retried like a dropped connection; until then onState says false.
      await connect().catch(() => {});
    },
    async close() {
      closing = true;
      for (const retry of retries) clearTimeout(retry);
      retries.clear();
      await Promise.all([...listeners].map((c) => c.end().catch(() => {})));
    },
  });
}

interface Flavour {
  listen: Database['listen'];
  settle?: Database['settle'];
  /** After the pools have ended. */
  close(): Promise<void>;
}

/**
 * How long a transaction may wait to start: a burst the rate limits allow queues behind itself on the embedded
 * database's one session or PostgreSQL's pool, and Prisma's default failed part of such a burst on a busy
 * machine. Past this the answer is 503 with Retry-After (isUnavailable), never a 500.
 */
export const TRANSACTION_MAX_WAIT_MS = 10_000;

/** The pools and Prisma's client over a connection, before anything is asked of the database. */
interface OverPg {
  connection: pg.PoolConfig;
  pool: pg.Pool;
  prepared: pg.Pool;
  prisma: PrismaClient;
  end(): Promise<unknown>;
}

/**
 * Made before the database answers: constructing Prisma's client takes a moment of this thread, which the embedded
 * database's start in its own thread then hides (docs/operations.md, Start). `preparedSetup` is what each connection of
 * the named statements' pool runs first (see SqlRunner).
 */
function overPg(connection: pg.PoolConfig, opts: OpenOptions, log: (m: string) => void, preparedSetup: string | undefined): OverPg {
  const pool = new pg.Pool({ ...connection, max: opts.poolSize ?? 10 });
  pool.on('error', (err) => log(`idle database connection failed: ${err.message}`));
  // Named (prepared) statements: their own connections, planned once and generically (see SqlRunner).
  const prepared = new pg.Pool({
    ...connection,
    max: opts.poolSize ?? 10,
    // Awaited before the connection serves its first statement; a failure fails that checkout.
    onConnect: preparedSetup
      ? async (client) => {
          await client.query(preparedSetup);
        }
      : undefined,
  });
  prepared.on('error', (err) => log(`idle database connection failed: ${err.message}`));
  const factory = new PrismaPg(pool);
  const transactionOptions = { maxWait: TRANSACTION_MAX_WAIT_MS };
  const prisma = opts.guardTransactions
    ? guardTransactions(new PrismaClient({ adapter: guardAdapter(factory), transactionOptions }))
    : new PrismaClient({ adapter: factory, transactionOptions });
  return { connection, pool, prepared, prisma, end: () => Promise.all([pool.end().catch(() => {}), prepared.end().catch(() => {})]) };
}

/** The database over `pg` pools and PrismaPg: PostgreSQL, or the embedded database behind its socket. */
async function openOverPg(kind: Database['kind'], over: OverPg, opts: OpenOptions, log: (m: string) => void, flavour: Flavour): Promise<Database> {
  const { connection, pool, prepared, prisma } = over;
  const endPools = over.end;
  try {
    if (!opts.skipMigrations) await migratePending(connection, async (sql) => (await pool.query(sql)).rows, log);
  } catch (err) {
    await endPools();
    await flavour.close().catch(() => {});
    throw err;
  }
  const guarded = !!opts.guardTransactions;
  let closed: Promise<void> | undefined;
  return {
    kind,
    prisma,
    sql: {
      soleWriter: kind === 'pglite',
      query: async <T>(text: string, params: unknown[], name?: string) => {
        if (guarded) assertNoOpenTransaction(`the query "${name ?? text.trim().slice(0, 80)}"`);
        return (await (name ? prepared.query({ name, text, values: params }) : pool.query(text, params))).rows as T[];
      },
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    listen: flavour.listen,
    settle: () => flavour.settle?.(),
    async session(run) {
      const client = await pool.connect();
      let failed: Error | undefined;
      try {
        return await run({
          soleWriter: kind === 'pglite',
          query: async <T>(text: string, params: unknown[]) => (await client.query(text, params)).rows as T[],
        });
      } catch (err) {
        failed = err as Error;
        throw err;
      } finally {
        // A connection whose run failed may hold what the run set: it is closed rather than reused.
        client.release(failed);
      }
    },
    close() {
      closed ??= (async () => {
        await prisma.$disconnect().catch(() => {});
        await endPools();
        await flavour.close();
      })();
      return closed;
    },
  };
}

/**
 * Applies the migrations not yet recorded (`query` reads the history), in a thread of their own that ends when
 * they are (migrate.ts); answers whether the migration engine ran. A start that finds every one recorded
 * loads no engine.
 */
async function migratePending(connection: pg.PoolConfig, query: (sql: string) => Promise<unknown[]>, log: (m: string) => void): Promise<boolean> {
  if (await migrationsUpToDate(query)) return false;
  const applied = await applyMigrationsInThread(connection);
  if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
  return true;
}

/** Runs each statement on a connection of its own, closed after it: for a check made before any pool exists. */
function queryOnce(connection: pg.PoolConfig): (sql: string) => Promise<unknown[]> {
  return async (sql) => {
    const client = new pg.Client(connection);
    try {
      await client.connect();
      return (await client.query(sql)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  };
}
