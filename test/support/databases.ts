// Test databases: on the embedded database, the install's migrated seed (src/db/seed.ts, built here when missing) loaded
// into memory per test file; on PostgreSQL, a migrated template database cloned per test file with CREATE DATABASE …
// TEMPLATE.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { applyMigrations } from '../../src/db/migrate';
import { createPglite } from '../../src/db/pglite';
import { buildSeed, migrationsHash, writeDump } from '../../src/db/seed';

export function databaseUrlFor(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

export const postgresTemplateName = () => `mkt_tpl_${migrationsHash()}`;

async function adminQuery(base: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The migrated template of the current migrations, unless it exists: built under a name of its own and renamed into
 * place, so a template is never half-migrated and a jest run on the same PostgreSQL never drops one another is cloning.
 */
export async function buildPostgresTemplate(base: string): Promise<void> {
  const name = postgresTemplateName();
  if ((await adminQuery(base, `SELECT 1 FROM pg_database WHERE datname = '${name}'`)).length) return;
  const building = `${name}_b${randomBytes(4).toString('hex')}`;
  await adminQuery(base, `CREATE DATABASE ${building}`);
  try {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    await applyMigrations(new PrismaPg({ connectionString: databaseUrlFor(base, building) }));
    await adminQuery(base, `ALTER DATABASE ${building} RENAME TO ${name}`);
  } catch (err) {
    await adminQuery(base, `DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    // Another run renamed its own into place first: that one is as good.
    if (!(err instanceof Error && /already exists/.test(err.message))) throw err;
  }
}

/** A fresh database cloned from the migrated template; drop it with the returned function. */
export async function clonePostgres(base: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mkt_t_${randomBytes(6).toString('hex')}`;
  // Clones of one template cannot run at the same instant: retry while another clone holds it.
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(base, `CREATE DATABASE ${name} TEMPLATE ${postgresTemplateName()}`);
      break;
    } catch (err) {
      if (attempt > 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  return { url: databaseUrlFor(base, name), drop: async () => void (await adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}

/** A blank database's dump (PGlite's initdb, nothing else), by PGlite's version: made once per machine. */
function blankDumpPath(): string {
  const manifest = path.join(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
  return path.join(os.tmpdir(), `marketplace-blank-pglite-${version}.tar`);
}

/**
 * A new PGlite in memory as initdb leaves it, for a test that applies migrations itself: loaded from a dump, as
 * initdb is seconds of WebAssembly each time.
 */
export async function blankPglite(): Promise<PGlite> {
  const file = blankDumpPath();
  if (!fs.existsSync(file)) {
    const db = await PGlite.create();
    try {
      await writeDump(db, file);
    } finally {
      await db.close();
    }
  }
  return PGlite.create({ loadDataDir: new Blob([fs.readFileSync(file)]) });
}

/** A new PGlite in memory with every migration applied: the install's seed (src/db/seed.ts), loaded. */
export async function migratedPglite(): Promise<PGlite> {
  return createPglite(undefined, { loadDataDir: new Blob([fs.readFileSync(await buildSeed())]) });
}
