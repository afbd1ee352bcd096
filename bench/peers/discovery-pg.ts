// Discovery peer: Express 5 answering resolve and the skills marketplace as a developer would write them
// by hand over the same seeded tables and indexes: the caller's key looked up (resolve), the top entries
// by the ranking's order with the same limits, the total counted, JSON out. On PostgreSQL it shares the
// server's database through pg.Pool; on PGlite it opens its own copy of the seeded data directory
// (BENCH_PEER_PGDATA, copied before our server started), in process, as a one-process app would.
import http from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import express from 'express';
import pg from 'pg';
import { bearerSecret, main, serve, sha256Hex } from './common';

interface Db {
  query<T>(text: string, params: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function openDb(): Promise<Db> {
  if (process.env.DATABASE_URL) {
    // The server's pool size (src/db/database.ts).
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    pool.on('error', () => {});
    return { query: async (text, params) => (await pool.query(text, params)).rows, close: () => pool.end() };
  }
  const db = await PGlite.create({ dataDir: required('BENCH_PEER_PGDATA'), extensions: { vector } });
  // The copy was taken before the benchmark's agent registered with our server: the same agent and key hash.
  await db.query(`INSERT INTO agents (id, agent_key, name, description, owner_email, updated_at) VALUES ($1, $2, $3, $4, $5, now())`, [
    required('BENCH_AGENT_ID'),
    required('BENCH_AGENT_KEY'),
    required('BENCH_AGENT_NAME'),
    required('BENCH_AGENT_DESCRIPTION'),
    required('BENCH_OWNER_EMAIL'),
  ]);
  await db.query(`INSERT INTO credentials (id, kind, hash, hint, agent_id) VALUES (gen_random_uuid(), 'master', $1, 'key_master_…', $2)`, [
    sha256Hex(required('BENCH_MASTER_KEY')),
    required('BENCH_AGENT_ID'),
  ]);
  return { query: async (text, params) => (await db.query(text, params)).rows as never, close: () => db.close() };
}

const SCORE_COLUMN = { balanced: 'score_balanced', reputation: 'score_reputation', cost: 'score_cost', latency: 'score_latency' } as const;
type Prefer = keyof typeof SCORE_COLUMN;

/** The listing column's positions (the same table's read model: one row per capability and service). */
type Listing = [string, string, string, string, string[], number, string, number | null, number, number, number, number, string, string, number | null];

main(async () => {
  const db = await openDb();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.post('/api/v1/resolve', express.json({ limit: '1mb' }), async (req, res) => {
    const secret = bearerSecret(req.headers.authorization);
    const [agent] = secret
      ? await db.query<{ id: string }>('SELECT a.id FROM credentials c JOIN agents a ON a.id = c.agent_id WHERE c.hash = $1 AND c.revoked_at IS NULL', [
          sha256Hex(secret),
        ])
      : [];
    if (!agent) {
      res.status(401).json({ code: 'unauthorized' });
      return;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const capability = body.capability;
    const prefer = (body.prefer ?? 'balanced') as Prefer;
    const minReputation = body.min_reputation ?? null;
    const maxCost = body.max_cost ?? null;
    const language = body.language ?? null;
    const limit = body.limit ?? 10;
    if (
      typeof capability !== 'string' ||
      !(prefer in SCORE_COLUMN) ||
      (minReputation !== null && (typeof minReputation !== 'number' || minReputation < 0 || minReputation > 100)) ||
      (maxCost !== null && (typeof maxCost !== 'number' || maxCost < 0)) ||
      (language !== null && typeof language !== 'string') ||
      typeof limit !== 'number' ||
      limit < 1 ||
      limit > 100
    ) {
      res.status(400).json({ code: 'validation_failed' });
      return;
    }
    const params: unknown[] = [capability];
    let where = 'capability = $1 AND active';
    if (minReputation !== null) where += ` AND reputation >= $${params.push(minReputation)}`;
    if (maxCost !== null) where += ` AND cost_per_call <= $${params.push(maxCost)}`;
    if (language !== null) where += ` AND (cardinality(languages) = 0 OR $${params.push(language)} = ANY(languages))`;
    const score = SCORE_COLUMN[prefer];
    const [top, [{ total }]] = await Promise.all([
      db.query<{ score: number; listing: Listing }>(
        `SELECT ${score} AS score, listing FROM service_offers WHERE ${where} ORDER BY ${score} DESC, cost_per_call, service_id LIMIT ${limit}`,
        params,
      ),
      db.query<{ total: number }>(`SELECT count(*)::int AS total FROM service_offers WHERE ${where}`, params),
    ]);
    res.json({
      matches: top.map(
        ({
          score,
          listing: [
            serviceId,
            serviceKey,
            name,
            description,
            capabilities,
            cost,
            pricingModel,
            latencyP50,
            successes,
            failures,
            ,
            reputation,
            providerId,
            providerName,
          ],
        }) => ({
          service_id: serviceId,
          name,
          service_key: serviceKey,
          score: Math.round(score * 100) / 100,
          reputation,
          capabilities,
          description,
          costPerCall: cost,
          pricing_model: pricingModel,
          success_rate: Math.round(((successes + 1) / (successes + failures + 2)) * 100) / 100,
          latency_p50_ms: latencyP50,
          provider_agent_id: providerId,
          provider_name: providerName,
        }),
      ),
      total,
      query: { capability, prefer, min_reputation: minReputation, max_cost: maxCost, language, limit },
    });
  });

  const RUNTIMES = ['python', 'nodejs', 'deno', 'wasm', 'docker'];
  app.get('/api/v1/agent-skills/marketplace', async (req, res) => {
    const { runtime, category, sort = 'popular' } = req.query as Record<string, string | undefined>;
    const limit = Number(req.query.limit ?? 20);
    const offset = Number(req.query.offset ?? 0);
    if (
      (runtime !== undefined && !RUNTIMES.includes(runtime)) ||
      (sort !== 'popular' && sort !== 'newest') ||
      !(limit >= 1 && limit <= 100) ||
      !(offset >= 0)
    ) {
      res.status(400).json({ code: 'validation_failed' });
      return;
    }
    const params: unknown[] = [];
    let where = 'published';
    if (runtime !== undefined) where += ` AND listed_runtime = $${params.push(runtime)}`;
    if (category !== undefined) where += ` AND listed_category = $${params.push(category)}`;
    const order = sort === 'newest' ? 'published_at DESC, id' : 'install_count DESC, id';
    const [skills, [{ total }]] = await Promise.all([
      db.query(
        `SELECT id, listed_name AS name, listed_description AS description, listed_runtime AS runtime, listed_entrypoint AS entrypoint,
           listed_category AS category, published_version AS version, published_hash AS content_hash, install_count, fork_count,
           agent_id AS owner_agent_id, published_at
         FROM skills WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
        params,
      ),
      db.query<{ total: number }>(`SELECT count(*)::int AS total FROM skills WHERE ${where}`, params),
    ]);
    res.json({ total, skills });
  });

  serve(http.createServer(app), () => db.close());
});
