// Seeds the benchmark's providers before our server starts (the server holds the PGlite lock once it
// runs): a provider agent with 100,000 services, 1,000 of them offering the resolve scenario's capability,
// with varied prices and statistics so the ranking has work to do; plus one service for sub-keys; and
// 100,000 published skills over the five runtimes, with varied install counts, for the marketplace.
import { randomUUID } from 'node:crypto';
import { openDatabase } from '../src/db/database';

export const RESOLVE_CAPABILITY = 'bench-resolve';
export const SERVICES = 100_000;
export const OFFERING = 1_000;
export const SKILLS = 100_000;
/** The runtime the marketplace scenario filters by: one skill in five. */
export const SKILL_RUNTIME = 'python';

export interface Seeded {
  providerId: string;
  verifyServiceId: string;
  verifyServiceKey: string;
}

export async function seedProviders(target: { dataDir?: string; databaseUrl?: string }): Promise<Seeded> {
  const db = await openDatabase({ dataDir: target.dataDir ?? '', databaseUrl: target.databaseUrl });
  try {
    const providerId = randomUUID();
    const tag = providerId.replace(/-/g, '').slice(0, 8);
    await db.sql.query(
      `INSERT INTO agents (id, agent_key, name, description, owner_email, reputation, updated_at)
       VALUES ($1, $2, $3, 'Benchmark provider (npm run bench)', 'bench@example.com', 70, now())`,
      [providerId, `ag_bench${tag}${'0'.repeat(24 - 5 - tag.length)}`, `bench-provider-${tag}`],
    );
    // Every 100th service offers the resolve capability; the rest spread over 50 others.
    await db.sql.query(
      `INSERT INTO services (id, service_key, agent_id, name, description, endpoint, capabilities, languages, pricing_model,
         cost_per_call, signing_secret, success_count, failure_count, latency_p50_ms, last_success_at, updated_at)
       SELECT gen_random_uuid(), 'svc_' || $2 || lpad(i::text, 16, '0'), $1, 'Bench service ' || i, 'A benchmark service',
         'https://bench.example.com/' || i,
         CASE WHEN i % ${SERVICES / OFFERING} = 0 THEN ARRAY[$3::text] ELSE ARRAY['bench-other-' || (i % 50)] END,
         CASE WHEN i % 3 = 0 THEN ARRAY['en'] ELSE ARRAY[]::text[] END,
         'per_call', (i * 7919) % 200, 'whsec_bench', (i * 31) % 500, (i * 17) % 40, 20 + (i * 13) % 900,
         now() - ((i % 1000) || ' minutes')::interval, now()
       FROM generate_series(1, ${SERVICES}) AS i`,
      [providerId, tag, RESOLVE_CAPABILITY],
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
       SELECT gen_random_uuid(), $1, 'bench-skill-' || i, 'A benchmark skill number ' || i, r, 'main.run', 'cat-' || (i % 20), '1.0.0', true, '1.0.0',
         md5(i::text) || md5((i + 1)::text), now() - (i || ' seconds')::interval, 'bench-skill-' || i, 'A benchmark skill number ' || i, r, 'cat-' || (i % 20),
         'main.run', (i * 7919) % 5000, now(), now()
       FROM generate_series(1, ${SKILLS}) AS i, LATERAL (SELECT (ARRAY['python', 'nodejs', 'deno', 'wasm', 'docker'])[1 + i % 5] AS r) AS runtimes`,
      [providerId],
    );
    // As autovacuum would soon after a bulk load: index-only scans need the visibility map.
    await db.sql.query('VACUUM ANALYZE skills', []);
    await db.sql.query('VACUUM ANALYZE services', []);
    await db.sql.query('VACUUM ANALYZE service_offers', []);
    return { providerId, verifyServiceId, verifyServiceKey };
  } finally {
    await db.close();
  }
}
