// `tsx bench/footprint.ts`: the footprint alone (bench/lib/footprint.ts), on the embedded default and on
// PostgreSQL: start to healthy on an existing database, idle resident memory, and resident memory a minute
// after a varied load (registrations, authenticated reads, resolve over distinct queries, GraphQL documents
// each different from the last, oversized documents, unknown paths), against issue 36's targets.
//
// FOOTPRINT_DATABASE_URL names the PostgreSQL database (default postgresql://postgres@127.0.0.1:5432/footprint,
// created if missing); FOOTPRINT_ONLY=pglite or =postgres measures one; FOOTPRINT_REQUESTS sizes the load.
// Run it under the machine's measurement lock: `flock -x /tmp/cpu.lock npx tsx bench/footprint.ts`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { killAllNow, stopAll } from './lib/children';
import { FOOTPRINT_TARGETS, measureFootprint, variedLoad, type Footprint } from './lib/footprint';

const DATABASE_URL = process.env.FOOTPRINT_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/footprint';
const ONLY = process.env.FOOTPRINT_ONLY;
const REQUESTS = Number(process.env.FOOTPRINT_REQUESTS ?? 6_000);

/** The server's environment for a measurement: what the bench gives it, the database aside. */
const BASE_ENV: NodeJS.ProcessEnv = { ...process.env, RATE_LIMIT_DISABLED: '1' };
delete BASE_ENV.DATABASE_URL;
delete BASE_ENV.REDIS_URL;

async function main(): Promise<void> {
  const results: Footprint[] = [];
  if (ONLY !== 'postgres') {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marketplace-footprint-'));
    try {
      results.push(await measureFootprint({ env: { ...BASE_ENV, DATA_DIR: dataDir }, load: (url) => variedLoad(url, REQUESTS) }));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (ONLY !== 'pglite') {
    await ensureDatabase(DATABASE_URL);
    results.push(await measureFootprint({ env: { ...BASE_ENV, DATABASE_URL }, load: (url) => variedLoad(url, REQUESTS) }));
  }
  printTable(results);
}

/** Creates the PostgreSQL database if it does not exist (on the same server, through its `postgres` database). */
async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!found.rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

function printTable(results: Footprint[]): void {
  const mark = (ok: boolean) => (ok ? 'ok' : 'OVER');
  console.log('\n| database | start to healthy | idle RSS | peak RSS | RSS a minute after load | after / idle |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results) {
    const idleTarget = FOOTPRINT_TARGETS.idleMiB[r.database];
    console.log(
      `| ${r.database} | ${(r.startToHealthyMs / 1000).toFixed(2)} s (≤ 2 s, ${mark(r.startToHealthyMs <= FOOTPRINT_TARGETS.startToHealthyMs)}) ` +
        `| ${r.idleMiB.toFixed(0)} MiB (≤ ${idleTarget}, ${mark(r.idleMiB <= idleTarget)}) | ${r.peakMiB.toFixed(0)} MiB ` +
        `| ${r.afterLoadMiB.toFixed(0)} MiB | ${r.afterLoadRatio.toFixed(2)} (≤ 1.2, ${mark(r.afterLoadRatio <= FOOTPRINT_TARGETS.afterLoadRatio)}) |`,
    );
  }
  for (const r of results) console.log(`${r.database} after the load: ${r.samples.map((s) => `${s.afterS}s ${s.mib.toFixed(0)}`).join(', ')} MiB`);
}

process.on('exit', killAllNow);
main().then(
  () => stopAll().then(() => process.exit(0)),
  async (err: Error) => {
    console.error(err.stack ?? err.message);
    await stopAll();
    process.exit(1);
  },
);
