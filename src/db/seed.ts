// The embedded database's seed: a data directory initialized and migrated once, at install, kept as a tar of
// PGlite's data directory. A start on a data directory with no database loads it instead of running initdb and every
// migration, seconds of WebAssembly each (docs/operations.md, Start); the tests' databases in memory load the same
// file. Run as a script (postinstall), it builds the seed when the migrations have none.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { applyMigrations, MIGRATIONS_DIR, SCHEMA_PATH } from './migrate';
import { createPglite } from './pglite';

const ROOT = path.resolve(__dirname, '../..');
const SEED_DIR = path.join(ROOT, 'node_modules', '.cache', 'marketplace-seed');
const PREFIX = 'embedded-';

/** Changes whenever a migration or the schema changes, so that a stale seed is never loaded. */
export function migrationsHash(): string {
  const h = createHash('sha256');
  for (const name of fs.readdirSync(MIGRATIONS_DIR).sort()) {
    const file = path.join(MIGRATIONS_DIR, name, 'migration.sql');
    if (fs.existsSync(file)) h.update(name).update(fs.readFileSync(file));
  }
  h.update(fs.readFileSync(SCHEMA_PATH));
  return h.digest('hex').slice(0, 12);
}

/** What a seed holds besides the migrations: a seed of another format is another file (2: no template databases). */
const SEED_FORMAT = 2;

/** Where the seed of the current migrations is (or would be). */
export function seedPath(): string {
  return path.join(SEED_DIR, `${PREFIX}${SEED_FORMAT}-${migrationsHash()}.tar`);
}

/**
 * Makes `pgdata` from the seed of the current migrations when it does not exist yet (or is an empty directory) and
 * that seed does: the files are written beside it and the directory renamed into place, so a crash leaves either
 * no database or the whole seed. Answers the seed it planted. PGlite then opens it as any data directory it finds.
 */
export function plantSeed(pgdata: string): string | undefined {
  if (fs.existsSync(pgdata) && fs.readdirSync(pgdata).length > 0) return undefined;
  const seed = seedPath();
  if (!fs.existsSync(seed)) return undefined;
  const staging = `${pgdata}.seeding-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  extractTar(fs.readFileSync(seed), staging);
  fs.rmSync(pgdata, { recursive: true, force: true });
  fs.renameSync(staging, pgdata);
  return seed;
}

/** Writes a ustar archive's directories and regular files (what PGlite's dump holds) under `dir`. */
function extractTar(tar: Buffer, dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const text = (at: number, length: number) => tar.toString('latin1', at, at + length).replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length;) {
    const name = text(at, 100);
    if (!name) break;
    const prefix = tar.toString('latin1', at + 257, at + 263).startsWith('ustar') ? text(at + 345, 155) : '';
    const size = parseInt(text(at + 124, 12).trim() || '0', 8);
    const mode = parseInt(text(at + 100, 8).trim() || '600', 8) & 0o777;
    const type = String.fromCharCode(tar[at + 156]);
    const relative = path.posix.normalize(`${prefix ? `${prefix}/` : ''}${name}`).replace(/^\/+/, '');
    if (relative.split('/').includes('..')) throw new Error(`the seed names a path outside its directory: ${relative}`);
    const target = path.join(dir, relative);
    const body = at + 512;
    if (type === '5') fs.mkdirSync(target, { recursive: true, mode });
    else if (type === '0' || type === '\0') {
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fs.writeFileSync(target, tar.subarray(body, body + size), { mode });
    } else throw new Error(`the seed holds an entry of a type a data directory has not (${type}): ${relative}`);
    at = body + Math.ceil(size / 512) * 512;
  }
}

/**
 * Builds the seed of the current migrations unless it exists: PGlite in memory, every migration applied by the
 * migration engine as a start would, dumped uncompressed (a load takes about half the time of the gzipped one).
 * Seeds of other migrations are removed. Answers its path.
 */
export async function buildSeed(): Promise<string> {
  const target = seedPath();
  if (fs.existsSync(target)) return target;
  const { PrismaPGlite } = require('pglite-prisma-adapter') as typeof import('pglite-prisma-adapter');
  const db = await createPglite();
  try {
    await applyMigrations(new PrismaPGlite(db));
    // initdb's template databases serve CREATE DATABASE, which the embedded database never runs: without them a seed
    // is 40 % fewer files and bytes to plant or load (docs/operations.md, Start).
    for (const template of ['template1', 'template0']) {
      await db.query(`ALTER DATABASE ${template} IS_TEMPLATE false`);
      await db.query(`DROP DATABASE ${template}`);
    }
    // Written out whole: a start on it replays no WAL.
    await db.exec('CHECKPOINT');
    fs.mkdirSync(SEED_DIR, { recursive: true });
    await writeDump(db, target);
  } finally {
    await db.close();
  }
  for (const name of fs.readdirSync(SEED_DIR)) {
    if (name.startsWith(PREFIX) && path.join(SEED_DIR, name) !== target && !name.endsWith('.tmp')) fs.rmSync(path.join(SEED_DIR, name), { force: true });
  }
  return target;
}

/** PGlite's dump of its data directory, uncompressed, written beside `target` and renamed into place. */
export async function writeDump(db: PGlite, target: string): Promise<void> {
  const dump = await db.dumpDataDir('none');
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(tmp, target);
}

if (require.main === module) {
  buildSeed().then(
    (file) => console.log(`embedded database seed: ${path.relative(ROOT, file)}`),
    (err: Error) => {
      console.error(`building the embedded database's seed failed: ${err.message}`);
      process.exit(1);
    },
  );
}
