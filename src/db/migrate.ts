// Prisma's migration engine (WASM) over our own driver adapter: applies prisma/migrations at start-up,
// creates new migrations offline, and diffs the history against schema.prisma. It writes
// `_prisma_migrations` exactly as `prisma migrate deploy` would.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { bindMigrationAwareSqlAdapterFactory, type SqlDriverAdapter, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm' with { 'resolution-mode': 'import' };
import type { PoolConfig } from 'pg';

export const PRISMA_DIR = path.resolve(__dirname, '../../prisma');
export const SCHEMA_PATH = path.join(PRISMA_DIR, 'schema.prisma');
export const MIGRATIONS_DIR = path.join(PRISMA_DIR, 'migrations');

type EngineModule = typeof import('@prisma/schema-engine-wasm', { with: { 'resolution-mode': 'import' } });
let engineModule: Promise<EngineModule> | undefined;
/**
 * The engine's timers not yet fired. It sets 10 s ones and never clears them (its bindings have no clearTimeout), so
 * a script that migrated and finished lived 10 s longer (the install's seed build among them): an engine released
 * lets go of them (unref), and they fire only if something else keeps the process alive.
 */
const engineTimers = new Set<NodeJS.Timeout>();

/** The package is built for bundlers (it imports its .wasm as a module), so we instantiate it ourselves. */
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= (async () => {
    const bindings = (await import('@prisma/schema-engine-wasm/schema_engine_bg')) as unknown as EngineModule & {
      __wbg_set_wasm(exports: WebAssembly.Exports): void;
    };
    const imports: Record<string, unknown> = { ...bindings };
    for (const name of Object.keys(imports).filter((n) => n.startsWith('__wbg_setTimeout_'))) {
      imports[name] = (run: () => void, ms: number) => {
        const timer = setTimeout(() => {
          engineTimers.delete(timer);
          run();
        }, ms >>> 0);
        engineTimers.add(timer);
        return timer;
      };
    }
    const wasmPath = path.join(path.dirname(require.resolve('@prisma/schema-engine-wasm')), 'schema_engine_bg.wasm');
    const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), { './schema_engine_bg.js': imports as never });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings;
  })();
  return engineModule;
}

export interface EngineLog {
  (message: string): void;
}

/**
 * `@prisma/adapter-pg` runs a migration script by splitting it on every ";", which breaks function and
 * trigger bodies; PostgreSQL's simple query protocol takes the whole script at once, as Prisma's own
 * engine sends it.
 */
function wholeScripts<A extends SqlDriverAdapter>(adapter: A): A {
  const driver = (adapter as { underlyingDriver?: () => unknown }).underlyingDriver?.() as { query?: (sql: string) => Promise<unknown> } | undefined;
  if (adapter.adapterName.includes('pglite') || typeof driver?.query !== 'function') return adapter;
  adapter.executeScript = async (script: string) => {
    await driver.query!(script);
  };
  return adapter;
}

/** The engine, and a release that frees it and disposes every connection it opened. */
async function openEngine(factory: SqlMigrationAwareDriverAdapterFactory, log: EngineLog = () => {}) {
  const mod = await loadEngineModule();
  const schema = fs.readFileSync(SCHEMA_PATH, 'utf8');
  // The engine does not always dispose the adapters it connects, which would leave pools open.
  const opened: { dispose(): Promise<void> }[] = [];
  const tracking: SqlMigrationAwareDriverAdapterFactory = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = await factory.connect();
      opened.push(adapter);
      return wholeScripts(adapter);
    },
    connectToShadowDb: async () => {
      if (factory.adapterName.includes('pglite')) {
        // The PGlite adapter's own shadow database is never closed; use one we can close. Loaded here: the
        // embedded database runs in its own thread, and a start on PostgreSQL needs none of PGlite.
        const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
        const { PrismaPGlite } = require('pglite-prisma-adapter') as typeof import('pglite-prisma-adapter');
        const shadow = await PGlite.create();
        opened.push({ dispose: () => shadow.close() });
        return new PrismaPGlite(shadow).connect();
      }
      const adapter = await factory.connectToShadowDb();
      opened.push(adapter);
      return wholeScripts(adapter);
    },
  };
  const engine: SchemaEngine = await mod.SchemaEngine.new(
    { datamodels: [[SCHEMA_PATH, schema]] },
    (line: string) => log(line),
    bindMigrationAwareSqlAdapterFactory(tracking),
  );
  const release = async () => {
    engine.free();
    for (const timer of engineTimers) timer.unref();
    await Promise.all(opened.map((a) => a.dispose().catch(() => {})));
  };
  return { engine, release };
}

/** Reads prisma/migrations into the engine's MigrationList, in name order as Prisma does. */
export function readMigrations(dir = MIGRATIONS_DIR): MigrationList {
  const lockPath = path.join(dir, 'migration_lock.toml');
  const names = fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort()
    : [];
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: names.map((name) => {
      const file = path.join(dir, name, 'migration.sql');
      return {
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: fs.existsSync(file) ? { tag: 'ok' as const, value: fs.readFileSync(file, 'utf8') } : { tag: 'error' as const, value: `missing ${file}` },
        },
      };
    }),
  };
}

const noFilter = { externalTables: [], externalEnums: [] };

/** Applies every migration not yet recorded in `_prisma_migrations`; returns the names applied. */
export async function applyMigrations(factory: SqlMigrationAwareDriverAdapterFactory, log?: EngineLog): Promise<string[]> {
  const migrations = readMigrations();
  if (migrations.migrationDirectories.length === 0) throw new Error(`no migrations found in ${MIGRATIONS_DIR}`);
  const { engine, release } = await openEngine(factory, log);
  try {
    const out = await engine.applyMigrations({ migrationsList: migrations, filters: noFilter });
    return out.appliedMigrationNames;
  } finally {
    await release();
  }
}

/** What the migrations' thread (migrate-worker.ts) answers: the migrations it applied, or its failure. */
export type FromMigrations = { applied: string[] } | { error: { message: string; stack?: string } };

/**
 * applyMigrations in a worker thread of its own, over its own connections: the engine (WebAssembly) and what it
 * allocated end with the thread rather than staying resident in the server's (docs/operations.md, Footprint: a
 * first start). A failure is thrown here with the engine's own message.
 */
export function applyMigrationsInThread(connection: PoolConfig): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(path.join(__dirname, 'migrate-worker.boot.cjs'), { workerData: connection });
    let answer: FromMigrations | undefined;
    worker.once('message', (message: FromMigrations) => (answer = message));
    worker.once('error', (err) => reject(new Error(`applying migrations failed: ${err.message}`)));
    worker.once('exit', (code) => {
      if (!answer) return reject(new Error(`applying migrations failed: their thread exited (code ${code}) without an answer`));
      if ('applied' in answer) return resolve(answer.applied);
      const err = new Error(`applying migrations failed: ${answer.error.message}`);
      if (answer.error.stack) err.stack = `${err.message}\n  in the migrations' thread: ${answer.error.stack}`;
      reject(err);
    });
  });
}

/**
 * Whether applying would do nothing: every migration in prisma/migrations recorded in `_prisma_migrations` as
 * finished, not rolled back, with Prisma's checksum (SHA-256 of its migration.sql), none failed. Then a start need
 * not load the engine (docs/operations.md, Footprint: Migrations); anything else is the engine's to apply or report.
 */
export async function migrationsUpToDate(query: (sql: string) => Promise<unknown[]>): Promise<boolean> {
  let rows: { migration_name: string; checksum: string; finished: boolean; rolled_back: boolean }[];
  try {
    rows = (await query(
      'SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back FROM _prisma_migrations',
    )) as typeof rows;
  } catch {
    return false; // no history yet
  }
  if (rows.some((r) => !r.finished && !r.rolled_back)) return false;
  const applied = new Set(rows.filter((r) => r.finished && !r.rolled_back).map((r) => `${r.migration_name}\0${r.checksum}`));
  const local = readMigrations().migrationDirectories;
  return (
    local.length > 0 &&
    local.every(
      (m) =>
        m.migrationFile.content.tag === 'ok' && applied.has(`${m.path}\0${crypto.createHash('sha256').update(m.migrationFile.content.value).digest('hex')}`),
    )
  );
}

/**
 * The SQL that would take a database built from the migration history to schema.prisma
 * (empty when the history already produces exactly the schema). Uses the factory's shadow database.
 */
export async function diffMigrationsToSchema(factory: SqlMigrationAwareDriverAdapterFactory): Promise<string> {
  const { engine, release } = await openEngine(factory);
  try {
    const result = await engine.diff({
      from: { tag: 'migrations', ...readMigrations() },
      to: { tag: 'schemaDatamodel', files: [{ path: SCHEMA_PATH, content: fs.readFileSync(SCHEMA_PATH, 'utf8') }] },
      script: true,
      exitCode: true,
      filters: noFilter,
    });
    const sql = (result.stdout ?? '').trim();
    return sql === '-- This is an empty migration.' ? '' : sql;
  } finally {
    await release();
  }
}
