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
import { FOOTPRINT_TARGETS, measureFootprint, type Footprint } from './lib/footprint';

const DATABASE_URL = process.env.FOOTPRINT_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/footprint';
const ONLY = process.env.FOOTPRINT_ONLY;
const REQUESTS = Number(process.env.FOOTPRINT_REQUESTS ?? 6_000);
const CONCURRENCY = 16;

/** The server's environment for a measurement: what the bench gives it, the database aside. */
const BASE_ENV: NodeJS.ProcessEnv = { ...process.env, RATE_LIMIT_DISABLED: '1' };
delete BASE_ENV.DATABASE_URL;
delete BASE_ENV.REDIS_URL;

async function main(): Promise<void> {
  const results: Footprint[] = [];
  if (ONLY !== 'postgres') {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marketplace-footprint-'));
    try {
      results.push(await measureFootprint({ env: { ...BASE_ENV, DATA_DIR: dataDir }, load: variedLoad }));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (ONLY !== 'pglite') {
    await ensureDatabase(DATABASE_URL);
    results.push(await measureFootprint({ env: { ...BASE_ENV, DATABASE_URL }, load: variedLoad }));
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

/**
 * REQUESTS requests, CONCURRENCY at a time, each of a kind drawn at random, most of them unlike any before
 * (so every cache that keys on a query or a document fills as far as its bound lets it).
 */
async function variedLoad(url: string): Promise<void> {
  const keys: string[] = [];
  for (let i = 0; i < 20; i++) keys.push(await register(url, i));
  let sent = 0;
  let failed = 0;
  const kinds: (() => Promise<Response>)[] = [
    () => fetch(`${url}/api/v1/agents/me`, { headers: auth(pick(keys)) }),
    () =>
      fetch(`${url}/api/v1/resolve`, {
        method: 'POST',
        headers: { ...auth(pick(keys)), 'content-type': 'application/json' },
        body: JSON.stringify({ capability: `capability-${sent % 500}`, prefer: pick(['balanced', 'cheapest', 'fastest', 'reliable']), max_cost: sent % 97 }),
      }),
    () =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...auth(pick(keys)), 'content-type': 'application/json' },
        // A document unlike any before: an alias of its own.
        body: JSON.stringify({ query: `query Varied${sent} { me_${sent}: me { id name } }` }),
      }),
    () =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // Hostile: a large document of many aliases, refused by the operation's cost bounds.
        body: JSON.stringify({ query: `{ ${Array.from({ length: 4_000 }, (_, i) => `a${sent}_${i}: __typename`).join(' ')} }` }),
      }),
    () => fetch(`${url}/api/v1/no-such-path/${sent}`),
  ];
  const worker = async () => {
    while (sent < REQUESTS) {
      sent++;
      const res = await pick(kinds)().catch(() => undefined);
      if (!res) failed++;
      else await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (failed) console.log(`  ${failed} of ${REQUESTS} load requests got no answer`);
}

async function register(url: string, i: number): Promise<string> {
  const res = await fetch(`${url}/api/v1/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `footprint-${Date.now().toString(36)}-${i}`, description: 'Footprint load (bench/footprint.ts)', ownerEmail: 'bench@example.com' }),
  });
  const body = (await res.json()) as { master_key?: string };
  if (res.status !== 201 || !body.master_key) throw new Error(`registration answered ${res.status}`);
  return body.master_key;
}

function auth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

function pick<T>(items: T[]): T {
  return items[Math.floor(Math.random() * items.length)];
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
