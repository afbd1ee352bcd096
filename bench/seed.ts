// Seeds the benchmark's providers before our server starts (the server holds the PGlite lock once it
// runs): ten provider agents of different reputations with 100,000 services between them, 1,000 offering
// the resolve scenario's capability and the rest a hundred others (from a few hundred offers to ten
// thousand each), with varied prices, languages and statistics so that rankings and their limits have work
// to do and differ from one query to the next; plus one service for sub-keys; and 100,000 published skills
// over the five runtimes and twenty categories, with varied install counts, for the marketplace.
// The catalog scenario's million services are seeded apart (seedCatalog), only when it runs.
import { randomUUID } from 'node:crypto';
import { openDatabase } from '../src/db/database';

export const RESOLVE_CAPABILITY = 'bench-resolve';
export const SERVICES = 100_000;
export const OFFERING = 1_000;
export const SKILLS = 100_000;
/** The runtime the marketplace scenario filters by: one skill in five. */
export const SKILL_RUNTIME = 'python';
/** The skills' categories: one skill in twenty each, independent of the runtime. */
export const SKILL_CATEGORIES = Array.from({ length: 20 }, (_, k) => `cat-${k}`);

/** The providers' reputations: each seeded service belongs to one of these ten agents. */
export const PROVIDER_REPUTATIONS = [15, 25, 35, 45, 55, 65, 70, 80, 90, 95];
/** The other capabilities, `bench-cap-00` … `bench-cap-99`: one of them per service not offering RESOLVE_CAPABILITY. */
export const BENCH_CAPABILITIES = Array.from({ length: 100 }, (_, k) => `bench-cap-${String(k).padStart(2, '0')}`);
/** The languages services declare (a third of them declare none, so match any language). */
export const LANGUAGES = ['en', 'de', 'fr', 'ja'];

/**
 * SQL of a service's columns from its number `i` (a bigint), shared by both seeds: which provider of
 * `$1::uuid[]` owns it (PROVIDER_REPUTATIONS' order), which of BENCH_CAPABILITIES it offers (skewed: the
 * k-th gets a share of about (2k+1)/10,000, so from 10% of the services down to 0.5%), its languages
 * (none, en, en+de, fr, de+ja, none in turn), and its price and statistics.
 */
const SERVICE_COLUMNS = {
  provider: `($1::uuid[])[1 + (i / 7) % ${PROVIDER_REPUTATIONS.length}]`,
  otherCapability: `'bench-cap-' || lpad(floor(100 * power(((i * 2654435761) % 4294967296)::float8 / 4294967296, 2))::int::text, 2, '0')`,
  languages: `(CASE (i * 37 + i / 100) % 6 WHEN 1 THEN ARRAY['en'] WHEN 2 THEN ARRAY['en', 'de'] WHEN 3 THEN ARRAY['fr'] WHEN 4 THEN ARRAY['de', 'ja'] ELSE ARRAY[]::text[] END)`,
  statistics: `'per_call', (i * 7919) % 200, 'whsec_bench', (i * 31) % 500, (i * 17) % 40, 20 + (i * 13) % 900, now() - ((i % 1000) || ' minutes')::interval, now()`,
};

/** The catalog scenario: a provider with a million services, every 100th offering CATALOG_CAPABILITY. */
export const CATALOG_SERVICES = 1_000_000;
export const CATALOG_CAPABILITY = 'bench-resolve-1m';
/** The same scenario's baseline: 1% of the first 10,000 of those services offer SLICE_CAPABILITY. */
export const SLICE_SERVICES = 10_000;
export const SLICE_CAPABILITY = 'bench-resolve-10k';
/** Both capabilities are offered by one service in a hundred of their catalog. */
const CATALOG_SHARE = 100;
/** Services per INSERT: each statement's trigger writes its offers, and PGlite holds its transition tables. */
const CATALOG_CHUNK = 100_000;

export interface Seeded {
  /** The agent owning the verify service (the first of providerIds). */
  providerId: string;
  /** Every provider agent seeded, in PROVIDER_REPUTATIONS' order. */
  providerIds: string[];
  verifyServiceId: string;
  verifyServiceKey: string;
}

export async function seedProviders(target: { dataDir?: string; databaseUrl?: string }): Promise<Seeded> {
  const db = await openDatabase({ dataDir: target.dataDir ?? '', databaseUrl: target.databaseUrl });
  try {
    const providerIds = PROVIDER_REPUTATIONS.map(() => randomUUID());
    for (const [k, id] of providerIds.entries()) await seedProviderAgent(db, id, 'provider', PROVIDER_REPUTATIONS[k]);
    const providerId = providerIds[0];
    const tag = providerId.replace(/-/g, '').slice(0, 8);
    // Every 100th service offers the resolve capability; the rest one of BENCH_CAPABILITIES each.
    await db.sql.query(
      `INSERT INTO services (id, service_key, agent_id, name, description, endpoint, capabilities, languages, pricing_model,
         cost_per_call, signing_secret, success_count, failure_count, latency_p50_ms, last_success_at, updated_at)
       SELECT gen_random_uuid(), 'svc_' || $2 || lpad(i::text, 16, '0'), ${SERVICE_COLUMNS.provider}, 'Bench service ' || i, 'A benchmark service',
         'https://bench.example.com/' || i,
         CASE WHEN i % ${SERVICES / OFFERING} = 0 THEN ARRAY[$3::text] ELSE ARRAY[${SERVICE_COLUMNS.otherCapability}] END,
         ${SERVICE_COLUMNS.languages}, ${SERVICE_COLUMNS.statistics}
       FROM generate_series(1::bigint, ${SERVICES}::bigint) AS i`,
      [providerIds, tag, RESOLVE_CAPABILITY],
    );
    const verifyServiceId = randomUUID();
    const verifyServiceKey = `svc_verify${tag}${'0'.repeat(24 - 6 - tag.length)}`;
    await db.sql.query(
      `INSERT INTO services (id, service_key, agent_id, name, description, endpoint, capabilities, pricing_model, signing_secret, updated_at)
       VALUES ($1, $2, $3, 'Bench verify service', 'The service the benchmark sub-key is for', 'https://bench.example.com/verify', ARRAY['summarize'], 'free', 'whsec_bench', now())`,
      [verifyServiceId, verifyServiceKey, providerId],
    );
    await db.sql.query(
      `INSERT INTO skills (id, agent_id, name, description, runtime, entrypoint, category, version, published, published_version, published_hash,
         published_at, listed_name, listed_description, listed_runtime, listed_category, listed_entrypoint, install_count, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'bench-skill-' || i, 'A benchmark skill number ' || i, r, 'main.run', 'cat-' || ((i / 5) % 20), '1.0.0', true, '1.0.0',
         md5(i::text) || md5((i + 1)::text), now() - (i || ' seconds')::interval, 'bench-skill-' || i, 'A benchmark skill number ' || i, r, 'cat-' || ((i / 5) % 20),
         'main.run', (i * 7919) % 5000, now(), now()
       FROM generate_series(1, ${SKILLS}) AS i, LATERAL (SELECT (ARRAY['python', 'nodejs', 'deno', 'wasm', 'docker'])[1 + i % 5] AS r) AS runtimes`,
      [providerId],
    );
    // As autovacuum would soon after a bulk load: index-only scans need the visibility map.
    await db.sql.query('VACUUM ANALYZE skills', []);
    await db.sql.query('VACUUM ANALYZE services', []);
    await db.sql.query('VACUUM ANALYZE service_offers', []);
    await checkpoint(db);
    return { providerId, providerIds, verifyServiceId, verifyServiceKey };
  } finally {
    await db.close();
  }
}

/** A seeded provider's agent, written straight to the database. */
async function seedProviderAgent(db: Awaited<ReturnType<typeof openDatabase>>, id: string, what: string, reputation: number): Promise<void> {
  const tag = id.replace(/-/g, '').slice(0, 8);
  await db.sql.query(
    `INSERT INTO agents (id, agent_key, name, description, owner_email, reputation, updated_at)
     VALUES ($1, $2, $3, $4, 'bench@example.com', $5, now())`,
    [id, `ag_bench${tag}${'0'.repeat(24 - 5 - tag.length)}`, `bench-${what}-${tag}`, `Benchmark ${what} (npm run bench)`, reputation],
  );
}

/**
 * The catalog scenario's providers (ten agents, of PROVIDER_REPUTATIONS): CATALOG_SERVICES services with
 * the owners, languages, prices and statistics formulas of seedProviders, where every 100th offers CATALOG_CAPABILITY (10,000 offers in a catalog of a million) and,
 * among the first SLICE_SERVICES only, every 100th (shifted by 50) offers SLICE_CAPABILITY (100 offers in a
 * catalog slice of 10,000); the others spread over 50 more capabilities. Both capabilities' offers take
 * their prices and statistics from the same formulas, so a ranking of either does the same work per match.
 */
export async function seedCatalog(target: { dataDir?: string; databaseUrl?: string }, providerIds: string[]): Promise<void> {
  const db = await openDatabase({ dataDir: target.dataDir ?? '', databaseUrl: target.databaseUrl });
  try {
    for (const [k, id] of providerIds.entries()) await seedProviderAgent(db, id, 'catalog', PROVIDER_REPUTATIONS[k]);
    const providerId = providerIds[0];
    const tag = providerId.replace(/-/g, '').slice(0, 8);
    // Chunks of CATALOG_CHUNK, each one statement; an aborted run leaves what it committed to the clean-up.
    // i is a bigint: the price formula overflows an integer past 271,000.
    for (let from = 1; from <= CATALOG_SERVICES; from += CATALOG_CHUNK) {
      const to = Math.min(CATALOG_SERVICES, from + CATALOG_CHUNK - 1);
      await db.sql.query(
        `INSERT INTO services (id, service_key, agent_id, name, description, endpoint, capabilities, languages, pricing_model,
           cost_per_call, signing_secret, success_count, failure_count, latency_p50_ms, last_success_at, updated_at)
         SELECT gen_random_uuid(), 'svc_c' || $2 || lpad(i::text, 15, '0'), ${SERVICE_COLUMNS.provider}, 'Bench catalog service ' || i, 'A benchmark catalog service',
           'https://bench.example.com/catalog/' || i,
           CASE WHEN i % ${CATALOG_SHARE} = 0 THEN ARRAY[$3::text]
                WHEN i % ${CATALOG_SHARE} = ${CATALOG_SHARE / 2} AND i <= ${SLICE_SERVICES} THEN ARRAY[$4::text]
                ELSE ARRAY['bench-catalog-' || (i % 50)] END,
           ${SERVICE_COLUMNS.languages}, ${SERVICE_COLUMNS.statistics}
         FROM generate_series($5::bigint, $6::bigint) AS i`,
        [providerIds, tag, CATALOG_CAPABILITY, SLICE_CAPABILITY, from, to],
      );
    }
    await db.sql.query('VACUUM ANALYZE services', []);
    await db.sql.query('VACUUM ANALYZE service_offers', []);
    await checkpoint(db);
  } finally {
    await db.close();
  }
}

/**
 * Writes the seed's pages out before anything is measured. A seed writes hundreds of megabytes; left to
 * PostgreSQL, the checkpoint its WAL starts (past max_wal_size) spreads those writes over the next minutes,
 * and every commit of the scenarios that run meanwhile waits behind them for its WAL flush (seen as
 * `WALSync` waits of 100–600 ms in the execute scenario's p99). Setting up is not what is measured. A role
 * that may not checkpoint (neither superuser nor pg_checkpoint) leaves it to PostgreSQL, with a note.
 */
async function checkpoint(db: Awaited<ReturnType<typeof openDatabase>>): Promise<void> {
  await db.sql.query('CHECKPOINT', []).catch((err: Error) => console.log(`  note: no CHECKPOINT after seeding (${err.message})`));
}
