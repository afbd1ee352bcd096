// The WebMCP tool index: sites submitted by URL are fetched by a background job (through the SSRF-guarded
// client), their manifests checked and their tools indexed for full-text search; a site submitted again is
// indexed anew. Submissions are claimed from the database with a lease, so instances share them and a
// crash neither loses nor repeats one. The marketplace's own tools are in the index from start-up.
import { NotFound, ValidationFailed } from '../../platform/errors';
import { OutboundError } from '../../platform/outbound';
import { Checks } from '../../platform/validate';
import { idleUntilDue, Worker } from '../../platform/worker';
import type { Ctx, Services } from '../context';
import { readManifest, type Manifest, type ManifestTool } from './manifest';

declare module '../context' {
  interface Services {
    /** Fetches and indexes submitted WebMCP sites; set once the services exist. */
    webmcpIndexer?: Worker;
    /**
     * The marketplace's own tools as a WebMCP manifest lists them (`manifest`: the spec's eight; `all`: every
     * MCP tool, indexed beside other sites'); set by the composition from the tool table.
     */
    ownTools?: { name: string; description: string; manifest: ManifestTool[]; all: ManifestTool[] };
  }
}

export const WELL_KNOWN_MANIFEST = '/.well-known/webmcp.json';
const CLAIM_BATCH = 5;
/** A claim lasts this long; a fetch cut off by a crash is tried again after it. */
const LEASE_MS = 60_000;
const FETCH_TIMEOUT_MS = 10_000;
const MAX_MANIFEST_BYTES = 1024 * 1024;
/** Fetches that failed for a passing reason (a timeout, a refused connection, a 5xx) are tried this often. */
const MAX_ATTEMPTS = 3;
const RETRY_MS = [5_000, 30_000];

export interface Submission {
  id: string;
  url: string;
  state: 'queued' | 'indexed' | 'failed';
  toolCount: number | null;
  error: string | null;
  site: { origin: string; name: string | null } | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** Where a submitted URL's manifest is: the URL itself when it names a .json document, else the site's well-known one. */
export function manifestUrlOf(url: URL): string {
  return /\.json$/i.test(url.pathname) ? url.toString() : `${url.origin}${WELL_KNOWN_MANIFEST}`;
}

/** Queues a site for indexing (202): the URL must be one the outbound guard accepts. */
export async function submitSite(ctx: Ctx, input: { url?: unknown }): Promise<Submission> {
  const checks = new Checks();
  const url = checks.receiverUrl('url', input.url, ctx.services.config.outboundAllowPrivate, true);
  checks.done();
  const row = await ctx.db.webmcpSubmission.create({ data: { url: url!, runAt: ctx.services.clock.now() } });
  ctx.services.webmcpIndexer?.wake();
  return { id: row.id, url: row.url, state: 'queued', toolCount: null, error: null, site: null, createdAt: row.createdAt, finishedAt: null };
}

export async function getSubmission(ctx: Ctx, id: string): Promise<Submission> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new NotFound('WebMCP submission', id);
  const [row] = await ctx.services.sql.query<{
    id: string;
    url: string;
    state: Submission['state'];
    tool_count: number | null;
    error: string | null;
    origin: string | null;
    name: string | null;
    created_at: Date;
    finished_at: Date | null;
  }>(
    `SELECT s.id, s.url, s.state, s.tool_count, s.error, w.origin, w.name, s.created_at, s.finished_at
     FROM webmcp_submissions s LEFT JOIN webmcp_sites w ON w.id = s.site_id WHERE s.id = $1::uuid`,
    [id],
  );
  if (!row) throw new NotFound('WebMCP submission', id);
  return {
    id: row.id,
    url: row.url,
    state: row.state,
    toolCount: row.tool_count,
    error: row.error,
    site: row.origin ? { origin: row.origin, name: row.name } : null,
    createdAt: new Date(row.created_at),
    finishedAt: row.finished_at ? new Date(row.finished_at) : null,
  };
}

/** The indexer of one instance: a round at once after a submission, else every two seconds. */
export function webmcpIndexer(services: Services): Worker {
  return new Worker({
    name: 'webmcp-indexer',
    round: () => indexDueSubmissions(services),
    log: services.log,
    pollMs: 2_000,
    fullBatch: CLAIM_BATCH,
    // A submission wakes the indexer; its own rounds move run_at.
    ...idleUntilDue(services.sql, services.clock, () => nextSubmissionDue(services)),
  });
}

async function nextSubmissionDue(services: Services): Promise<number | null> {
  const [row] = await services.sql.query<{ due: Date | null }>(`SELECT min(run_at) AS due FROM webmcp_submissions WHERE state = 'queued'`, []);
  return row?.due ? new Date(row.due).getTime() : null;
}

/** Claims queued submissions that are due and indexes each; returns how many it claimed. */
export async function indexDueSubmissions(services: Services): Promise<number> {
  const now = services.clock.now();
  // A submission whose every try was cut off (its instance died mid-fetch, or the round failed) is given up; the claim
  // below never takes one, so one that becomes due between the two statements waits for the next round's.
  await services.sql.query(
    `UPDATE webmcp_submissions SET state = 'failed', error = coalesce(error, 'gave up after ${MAX_ATTEMPTS} tries'), finished_at = $1
     WHERE state = 'queued' AND run_at <= $1 AND attempts >= ${MAX_ATTEMPTS}`,
    [now],
  );
  const claimed = await services.sql.query<{ id: string; url: string; attempts: number }>(
    `UPDATE webmcp_submissions SET run_at = $2, attempts = attempts + 1
     WHERE id IN (SELECT id FROM webmcp_submissions WHERE state = 'queued' AND run_at <= $1 AND attempts < ${MAX_ATTEMPTS}
                  ORDER BY run_at LIMIT ${CLAIM_BATCH} FOR UPDATE SKIP LOCKED)
     RETURNING id, url, attempts`,
    [now, new Date(now.getTime() + LEASE_MS)],
  );
  for (const s of claimed) await indexSubmission(services, s);
  return claimed.length;
}

/** Why a fetch failed, and whether trying again could help. */
type Fetched = { manifest: Manifest; manifestUrl: string } | { error: string; passing: boolean };

async function fetchManifest(services: Services, submitted: string): Promise<Fetched> {
  const manifestUrl = manifestUrlOf(new URL(submitted));
  let res;
  try {
    res = await services.outbound.get(manifestUrl, {
      headers: { accept: 'application/json' },
      timeoutMs: FETCH_TIMEOUT_MS,
      maxResponseBytes: MAX_MANIFEST_BYTES,
    });
  } catch (err) {
    if (err instanceof OutboundError) {
      const passing = err.reason === 'timeout' || err.reason === 'connection';
      const why = err.reason === 'blocked_address' ? `refused by the outbound guard: ${err.message}` : err.message;
      return { error: `GET ${manifestUrl}: ${why.replace(/^(GET|POST) \S+: /, '')}`, passing };
    }
    throw err;
  }
  if (res.status < 200 || res.status > 299) return { error: `GET ${manifestUrl} answered ${res.status}`, passing: res.status >= 500 };
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    return { error: `GET ${manifestUrl}: the manifest is not JSON`, passing: false };
  }
  try {
    return { manifest: readManifest(json), manifestUrl };
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    return { error: `the manifest is not valid: ${err.errors.map((e) => `${e.path || '(document)'} ${e.message}`).join('; ')}`, passing: false };
  }
}

async function indexSubmission(services: Services, s: { id: string; url: string; attempts: number }): Promise<void> {
  const fetched = await fetchManifest(services, s.url);
  const now = services.clock.now();
  if ('error' in fetched) {
    if (fetched.passing && s.attempts < MAX_ATTEMPTS) {
      await services.sql.query(`UPDATE webmcp_submissions SET run_at = $2, error = $3 WHERE id = $1::uuid AND state = 'queued'`, [
        s.id,
        new Date(now.getTime() + RETRY_MS[s.attempts - 1]),
        fetched.error,
      ]);
    } else {
      await services.sql.query(`UPDATE webmcp_submissions SET state = 'failed', error = $2, finished_at = $3 WHERE id = $1::uuid AND state = 'queued'`, [
        s.id,
        fetched.error,
        now,
      ]);
    }
    return;
  }
  const origin = new URL(s.url).origin;
  await services.db.$transaction(async (tx) => {
    const siteId = await writeSite(tx, origin, fetched.manifestUrl, fetched.manifest, now);
    await tx.$executeRaw`UPDATE webmcp_submissions SET state = 'indexed', site_id = ${siteId}::uuid, tool_count = ${fetched.manifest.tools.length}, error = NULL, finished_at = ${now} WHERE id = ${s.id}::uuid`;
  });
}

type Tx = Parameters<Parameters<Services['db']['$transaction']>[0]>[0];

/**
 * The site's row (created or updated, locked until the transaction ends so that two indexings of one site
 * take turns) and its tools replaced by the manifest's, each with its words for search.
 */
async function writeSite(
  tx: Tx,
  origin: string,
  manifestUrl: string,
  manifest: Pick<Manifest, 'name' | 'description' | 'tools'>,
  now: Date,
  own = false,
): Promise<string> {
  const [site] = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO webmcp_sites (id, origin, manifest_url, name, description, tool_count, own, indexed_at)
    VALUES (gen_random_uuid(), ${origin}, ${manifestUrl}, ${manifest.name}, ${manifest.description}, ${manifest.tools.length}, ${own}, ${now})
    ON CONFLICT (origin) DO UPDATE SET manifest_url = EXCLUDED.manifest_url, name = EXCLUDED.name, description = EXCLUDED.description,
      tool_count = EXCLUDED.tool_count, own = EXCLUDED.own, indexed_at = EXCLUDED.indexed_at
    RETURNING id::text`;
  await tx.$executeRaw`DELETE FROM webmcp_tools WHERE site_id = ${site.id}::uuid`;
  if (manifest.tools.length) {
    await tx.$executeRaw`
      INSERT INTO webmcp_tools (id, site_id, name, description, category, input_schema, search)
      SELECT gen_random_uuid(), ${site.id}::uuid, t.name, t.description, t.category, t.input_schema,
             setweight(to_tsvector('simple', t.words), 'A') || setweight(to_tsvector('simple', t.description), 'B')
      FROM jsonb_to_recordset(${JSON.stringify(manifest.tools.map((t) => ({ ...t, input_schema: t.inputSchema, words: splitName(t.name) })))}::jsonb)
        AS t(name text, description text, category text, input_schema jsonb, words text)`;
  }
  return site.id;
}

/** A tool's name as words, so `searchCapabilities` is found by "search" and "capabilities". */
function splitName(name: string): string {
  return `${name} ${name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_.-]+/g, ' ')}`.toLowerCase();
}

/**
 * Indexes the marketplace's own tools under its public origin (at start-up; idempotent). Under an origin
 * it used before (PUBLIC_BASE_URL changed), they are removed.
 */
export async function indexOwnTools(services: Services, tools: ManifestTool[], name: string, description: string): Promise<void> {
  const base = new URL(services.config.publicBaseUrl);
  const manifestUrl = `${base.origin}${WELL_KNOWN_MANIFEST}`;
  // A start whose tools are the ones indexed already writes nothing, since rewriting them and their search vectors
  // cost every start. jsonb compares the input schemas by value, whatever the order of their keys.
  const listed = tools.map((t) => ({ name: t.name, description: t.description, category: t.category, inputSchema: t.inputSchema }));
  const [current] = await services.sql.query<{ same: boolean }>(
    `SELECT s.manifest_url = $2 AND s.name IS NOT DISTINCT FROM $3 AND s.description IS NOT DISTINCT FROM $4
            AND NOT EXISTS (SELECT 1 FROM webmcp_sites o WHERE o.own AND o.origin <> $1)
            AND (SELECT coalesce(jsonb_agg(jsonb_build_object('name', t.name, 'description', t.description, 'category', t.category, 'inputSchema', t.input_schema) ORDER BY t.name), '[]')
                 FROM webmcp_tools t WHERE t.site_id = s.id)
              = (SELECT coalesce(jsonb_agg(x ORDER BY x->>'name'), '[]') FROM jsonb_array_elements($5::jsonb) x) AS same
     FROM webmcp_sites s WHERE s.origin = $1 AND s.own`,
    [base.origin, manifestUrl, name, description, JSON.stringify(listed)],
  );
  if (current?.same) return;
  await services.db.$transaction(async (tx) => {
    await tx.$executeRaw`DELETE FROM webmcp_sites WHERE own AND origin <> ${base.origin}`;
    await writeSite(tx, base.origin, manifestUrl, { name, description, tools }, services.clock.now(), true);
  });
}

export interface IndexedTool {
  name: string;
  description: string;
  category: string;
  inputSchema: unknown;
  siteOrigin: string;
  siteName: string | null;
  manifestUrl: string;
}

/** Indexed tools matching the words of `q` (full text over name and description, best first) and the category. */
export async function searchTools(
  ctx: Ctx,
  filter: { q?: string | null; category?: string | null },
  page: { offset: number; limit: number },
): Promise<{ items: IndexedTool[]; total: number }> {
  const checks = new Checks();
  const q = checks.text('q', filter.q, { max: 200 }) || null;
  const category = checks.text('category', filter.category, { max: 64 })?.toLowerCase() || null;
  checks.done();
  const params: unknown[] = [q, category, page.limit, page.offset];
  const rows = await ctx.services.sql.query<IndexedTool & { total: number }>(
    `WITH query AS (SELECT CASE WHEN $1::text IS NULL THEN NULL ELSE plainto_tsquery('simple', $1::text) END AS tsq)
     SELECT t.name, t.description, t.category, t.input_schema AS "inputSchema", s.origin AS "siteOrigin", s.name AS "siteName",
            s.manifest_url AS "manifestUrl", count(*) OVER ()::int AS total
     FROM webmcp_tools t JOIN webmcp_sites s ON s.id = t.site_id, query
     WHERE (query.tsq IS NULL OR t.search @@ query.tsq) AND ($2::text IS NULL OR t.category = $2::text)
     ORDER BY CASE WHEN query.tsq IS NULL THEN 0 ELSE ts_rank(t.search, query.tsq) END DESC, s.origin, t.name
     LIMIT $3 OFFSET $4`,
    params,
  );
  if (q && !rows.length && page.offset === 0) {
    // Words that are all stop words or punctuation make an empty query: say so rather than match nothing silently.
    const [{ empty }] = await ctx.services.sql.query<{ empty: boolean }>(`SELECT numnode(plainto_tsquery('simple', $1::text)) = 0 AS empty`, [q]);
    if (empty) throw new ValidationFailed([{ path: 'q', message: 'holds no words to search for' }]);
  }
  const total = rows[0]?.total ?? (page.offset > 0 ? await countTools(ctx, q, category) : 0);
  return { items: rows.map(({ total: _t, ...tool }) => tool), total };
}

async function countTools(ctx: Ctx, q: string | null, category: string | null): Promise<number> {
  const [{ n }] = await ctx.services.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webmcp_tools t WHERE ($1::text IS NULL OR t.search @@ plainto_tsquery('simple', $1::text)) AND ($2::text IS NULL OR t.category = $2::text)`,
    [q, category],
  );
  return n;
}

export interface IndexStats {
  totalTools: number;
  sites: number;
  byCategory: { category: string; tools: number }[];
  submissions: { queued: number; indexed: number; failed: number };
}

export async function indexStats(ctx: Ctx): Promise<IndexStats> {
  const [row] = await ctx.services.sql.query<{
    tools: number;
    sites: number;
    categories: { category: string; tools: number }[] | null;
    submissions: Record<string, number> | null;
  }>(
    `SELECT (SELECT count(*)::int FROM webmcp_tools) AS tools,
            (SELECT count(*)::int FROM webmcp_sites) AS sites,
            (SELECT json_agg(c ORDER BY c.tools DESC, c.category) FROM (SELECT category, count(*)::int AS tools FROM webmcp_tools GROUP BY category) c) AS categories,
            (SELECT json_object_agg(state, n) FROM (SELECT state, count(*)::int AS n FROM webmcp_submissions GROUP BY state) s) AS submissions`,
    [],
  );
  const subs = row.submissions ?? {};
  return {
    totalTools: row.tools,
    sites: row.sites,
    byCategory: row.categories ?? [],
    submissions: { queued: subs.queued ?? 0, indexed: subs.indexed ?? 0, failed: subs.failed ?? 0 },
  };
}

/** The marketplace's own WebMCP manifest (spec §4.14): version 1.0.0 and the tools of the spec's tool manifest. */
export function ownManifest(ctx: Ctx) {
  const own = ctx.services.ownTools;
  return {
    version: '1.0.0',
    name: own?.name ?? 'Agent Capability Marketplace',
    description: own?.description ?? '',
    url: ctx.services.config.publicBaseUrl,
    tools: (own?.manifest ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
  };
}
