// Memory stores (spec §2, §4.7): an agent's persistent key-value, vector or structured-document stores,
// private, shared with its sub-agents, or public. Entries are written in batches, versioned (earlier
// versions stay readable), may expire (gone from reads at once, purged in the background), and are found
// by key prefix and text, by field filters on documents, or by nearest neighbours.
import type { DbTx } from '../../db/database';
import type { Agent, MemoryStore } from '../../db/generated/prisma/client';
import { Conflict, Forbidden, NotFound, ValidationFailed } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import { assertAllowance } from '../agents/agents';
import { recordAudit } from '../audit/audit';
import type { Ctx } from '../context';
import { tierDefinition } from '../reputation/reputation';
import { hybridSearch, textSearch, type RankedEntry } from './hybrid';
import { createStoreIndex, dropStoreIndex, MAX_DIMENSIONS, nearestNeighbours, readEmbedding, type Neighbour } from './vectors';

export const STORE_TYPES = ['kv', 'vector', 'structured'] as const;
export const ACCESS_LEVELS = ['private', 'shared', 'public'] as const;
export type StoreType = (typeof STORE_TYPES)[number];
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/** Versions kept per key (the current one included); older ones are dropped as new ones are written. */
export const VERSIONS_KEPT = 50;
export const KEY_MAX = 512;
/** Ten years. */
export const TTL_MAX_SECONDS = 315_360_000;
export const SEARCH_LIMIT_MAX = 100;
/** A search's page size when none is given. */
export const SEARCH_LIMIT_DEFAULT = 10;
/** How deep a search ranks: its pages reach its best this many results, no further (bounded work per page). */
export const SEARCH_DEPTH = 1000;
const FILTER_CONDITIONS_MAX = 20;

export interface CreateStoreInput {
  name?: unknown;
  storeType?: unknown;
  accessLevel?: unknown;
  description?: unknown;
  dimensions?: unknown;
  defaultTtlSeconds?: unknown;
}

export async function createStore(ctx: Ctx, input: CreateStoreInput): Promise<MemoryStore> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const name = checks.text('name', input.name, { min: 1, max: 100, required: true });
  const storeType = checks.oneOf('storeType', input.storeType, STORE_TYPES);
  const accessLevel = checks.oneOf('accessLevel', input.accessLevel, ACCESS_LEVELS, 'private');
  const description = checks.text('description', input.description, { max: 1000, multiline: true });
  const dimensions = checks.integer('dimensions', input.dimensions, 1, MAX_DIMENSIONS);
  const defaultTtlSeconds = checks.integer('defaultTtlSeconds', input.defaultTtlSeconds, 1, TTL_MAX_SECONDS);
  if (dimensions !== undefined && input.storeType !== 'vector') checks.fail('dimensions', 'is for vector stores only');
  checks.done();
  const limit = tierDefinition(me.reputation);
  const mode = ctx.services.vectorSearch;
  try {
    return await ctx.db.$transaction(async (tx) => {
      await assertAllowance(
        tx,
        me.id,
        limit.memory.stores,
        () => tx.memoryStore.count({ where: { agentId: me.id } }),
        () => new Forbidden(`A ${limit.name} agent may own at most ${limit.memory.stores} memory stores (see GET /tiers); delete one or earn a higher tier`),
      );
      const store = await tx.memoryStore.create({
        data: {
          agentId: me.id,
          name: name!,
          storeType: storeType!,
          accessLevel: accessLevel!,
          description: description || null,
          dimensions: dimensions ?? null,
          defaultTtlSeconds: defaultTtlSeconds ?? null,
        },
      });
      if (store.dimensions) await createStoreIndex(tx, mode, store.id, store.dimensions);
      await recordAudit(tx, ctx, {
        agentId: me.id,
        action: 'memory_store.created',
        targetType: 'memory_store',
        targetId: store.id,
        details: { name: store.name, storeType: store.storeType, accessLevel: store.accessLevel },
      });
      return store;
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new Conflict(`You already have a memory store named ${name}`);
    throw err;
  }
}

type Access = 'read' | 'write';

/** Whether `me` may read or write `store`: the owner always; its sub-agents when shared; anyone reads a public one. */
function mayAccess(me: Agent, store: MemoryStore, access: Access): boolean {
  if (store.agentId === me.id) return true;
  if (store.accessLevel === 'shared' && me.parentId === store.agentId) return true;
  return access === 'read' && store.accessLevel === 'public';
}

/**
 * The store, when the caller may reach it; another agent's private store is not found. A public store that
 * the caller may read but not write answers 403 to a write: its existence is public.
 */
export async function storeInReach(ctx: Ctx, id: string, access: Access): Promise<{ me: Agent; store: MemoryStore }> {
  const me = await requireAgent(ctx);
  const store = isUuid(id) ? await ctx.db.memoryStore.findUnique({ where: { id } }) : null;
  if (!store || !mayAccess(me, store, 'read')) throw new NotFound('memory store', id);
  if (access === 'write' && !mayAccess(me, store, 'write'))
    throw new Forbidden('Only the owner of this public store (and its sub-agents, were it shared) may write to it');
  return { me, store };
}

export async function getStore(ctx: Ctx, id: string): Promise<MemoryStore> {
  return (await storeInReach(ctx, id, 'read')).store;
}

/** The caller's own stores and the shared stores of its parent agent, newest first. */
export async function listStores(ctx: Ctx, page: Page, storeType?: string | null) {
  const me = await requireAgent(ctx);
  const reach = me.parentId ? [{ agentId: me.id }, { agentId: me.parentId, accessLevel: 'shared' }] : [{ agentId: me.id }];
  const where = { OR: reach, ...(storeType ? { storeType } : {}) };
  return pageOf(
    page,
    (q) => ctx.db.memoryStore.findMany({ where, ...q }),
    () => ctx.db.memoryStore.count({ where }),
  );
}

/** Every public store, newest first; no credential needed. */
export async function listPublicStores(ctx: Ctx, page: Page, storeType?: string | null) {
  const where = { accessLevel: 'public', ...(storeType ? { storeType } : {}) };
  return pageOf(
    page,
    (q) => ctx.db.memoryStore.findMany({ where, ...q }),
    () => ctx.db.memoryStore.count({ where }),
  );
}

export interface UpdateStoreInput {
  accessLevel?: unknown;
  description?: unknown;
  defaultTtlSeconds?: unknown;
}

/** The owner changes who may reach the store, its description, or the TTL of entries written from now on. */
export async function updateStore(ctx: Ctx, id: string, input: UpdateStoreInput): Promise<MemoryStore> {
  const { me, store } = await storeInReach(ctx, id, 'read');
  if (store.agentId !== me.id) throw new NotFound('memory store', id);
  const checks = new Checks();
  const accessLevel = input.accessLevel === undefined || input.accessLevel === null ? undefined : checks.oneOf('accessLevel', input.accessLevel, ACCESS_LEVELS);
  const description = checks.text('description', input.description, { max: 1000, multiline: true });
  const ttl = input.defaultTtlSeconds === null ? null : checks.integer('defaultTtlSeconds', input.defaultTtlSeconds, 1, TTL_MAX_SECONDS);
  checks.done();
  return ctx.db.$transaction(async (tx) => {
    const updated = await tx.memoryStore.update({
      where: { id: store.id },
      data: { ...(accessLevel && { accessLevel }), ...(description !== undefined && { description }), ...(ttl !== undefined && { defaultTtlSeconds: ttl }) },
    });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'memory_store.updated',
      targetType: 'memory_store',
      targetId: store.id,
      details: { accessLevel: updated.accessLevel },
    });
    return updated;
  });
}

/** The owner deletes the store with every entry and version. */
export async function deleteStore(ctx: Ctx, id: string): Promise<MemoryStore> {
  const { me, store } = await storeInReach(ctx, id, 'read');
  if (store.agentId !== me.id) throw new NotFound('memory store', id);
  await ctx.db.$transaction(async (tx) => {
    await tx.memoryStore.delete({ where: { id: store.id } });
    await dropStoreIndex(tx, ctx.services.vectorSearch, store.id);
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'memory_store.deleted',
      targetType: 'memory_store',
      targetId: store.id,
      details: { name: store.name },
    });
  });
  return store;
}

export interface EntryInput {
  key?: unknown;
  value?: unknown;
  ttlSeconds?: unknown;
  embedding?: unknown;
}

export interface WrittenEntry {
  key: string;
  version: number;
  expiresAt: Date | null;
  updatedAt: Date;
}

export interface CheckedEntry {
  key: string;
  value: string;
  expiresAt: Date | null;
  embedding: number[] | null;
  norm: number | null;
}

function checkEntries(checks: Checks, store: MemoryStore, entries: unknown, limits: { batch: number; entryBytes: number }, now: Date): CheckedEntry[] {
  if (!Array.isArray(entries) || entries.length === 0) {
    checks.fail('entries', 'must be a non-empty list of { key, value, ttlSeconds?, embedding? }');
    return [];
  }
  if (entries.length > limits.batch) {
    checks.fail('entries', `may hold at most ${limits.batch} entries per write for this agent's tier (see GET /tiers)`);
    return [];
  }
  const seen = new Set<string>();
  let dimensions = store.dimensions;
  const out: CheckedEntry[] = [];
  entries.forEach((raw, i) => {
    const at = `entries.${i}`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      checks.fail(at, 'must be an object { key, value, ttlSeconds?, embedding? }');
      return;
    }
    const e = raw as EntryInput;
    const key = typeof e.key === 'string' ? e.key : undefined;
    if (key === undefined) checks.fail(`${at}.key`, 'is required (a string)');
    else if (key.length < 1 || key.length > KEY_MAX) checks.fail(`${at}.key`, `must be 1 to ${KEY_MAX} characters`);
    else if (/[\u0000-\u001f\u007f]/.test(key)) checks.fail(`${at}.key`, 'must not contain control characters');
    else if (seen.has(key)) checks.fail(`${at}.key`, 'appears twice in this write');
    else seen.add(key);
    if (e.value === undefined) checks.fail(`${at}.value`, 'is required');
    else if (store.storeType === 'structured' && (e.value === null || typeof e.value !== 'object' || Array.isArray(e.value))) {
      checks.fail(`${at}.value`, 'must be a JSON object (a document) in a structured store');
    }
    const value = e.value === undefined ? 'null' : JSON.stringify(e.value);
    if (Buffer.byteLength(value) > limits.entryBytes)
      checks.fail(`${at}.value`, `is ${Buffer.byteLength(value)} bytes as JSON; at most ${limits.entryBytes} for this agent's tier`);
    const ttl = checks.integer(`${at}.ttlSeconds`, e.ttlSeconds, 1, TTL_MAX_SECONDS) ?? store.defaultTtlSeconds ?? undefined;
    let embedding: number[] | null = null;
    let norm: number | null = null;
    if (store.storeType === 'vector') {
      // Stored as float4, as pgvector stores them, so both kinds of search see the same numbers.
      const read = readEmbedding(checks, `${at}.embedding`, e.embedding, dimensions, 'is required in a vector store');
      if (read) {
        ({ embedding, norm } = read);
        dimensions ??= embedding.length;
      }
    } else if (e.embedding !== undefined && e.embedding !== null) {
      checks.fail(`${at}.embedding`, 'is for vector stores only');
    }
    if (key !== undefined) out.push({ key, value, expiresAt: ttl ? new Date(now.getTime() + ttl * 1000) : null, embedding, norm });
  });
  return out;
}

const upsertSql = (withVector: boolean) => `
  WITH up AS (
    INSERT INTO memory_entries AS e (store_id, key, version, value, embedding, norm, expires_at, written_by, created_at, updated_at${withVector ? ', embedding_vec' : ''})
    SELECT $1::uuid, i.key, 1, i.value, i.embedding::real[], i.norm, i.expires_at, $6::uuid, $7, $7${withVector ? ', i.embedding::real[]::vector' : ''}
    FROM unnest($2::text[], $3::jsonb[], $4::timestamptz[], $5::text[], $8::float8[]) AS i(key, value, expires_at, embedding, norm)
    ON CONFLICT (store_id, key) DO UPDATE SET
      version = e.version + 1, value = EXCLUDED.value, embedding = EXCLUDED.embedding, norm = EXCLUDED.norm,
      expires_at = EXCLUDED.expires_at, written_by = EXCLUDED.written_by, updated_at = EXCLUDED.updated_at${withVector ? ', embedding_vec = EXCLUDED.embedding_vec' : ''}
    RETURNING e.store_id, e.key, e.version, e.value, e.embedding, e.expires_at, e.written_by, e.updated_at
  ), history AS (
    INSERT INTO memory_entry_versions (store_id, key, version, value, embedding, expires_at, written_by, created_at)
    SELECT store_id, key, version, value, embedding, expires_at, written_by, updated_at FROM up
    RETURNING 1
  )
  SELECT key, version, expires_at AS "expiresAt", updated_at AS "updatedAt" FROM up`;

/**
 * Writes a batch of entries: each key gets its next version (an expired key starts again at 1) and the
 * previous versions stay readable. One transaction; answers the version each key now has.
 */
export async function writeEntries(ctx: Ctx, storeId: string, input: { entries?: unknown }): Promise<{ written: number; entries: WrittenEntry[] }> {
  const { me, store } = await storeInReach(ctx, storeId, 'write');
  const now = ctx.services.clock.now();
  const checks = new Checks();
  const entries = checkEntries(checks, store, input.entries, tierDefinition(me.reputation).memory, now);
  checks.done();
  return writeCheckedEntries(ctx, store, me.id, entries, now);
}

/** Writes entries already checked against the store, in a transaction of its own. */
export async function writeCheckedEntries(ctx: Pick<Ctx, 'db' | 'services'>, store: MemoryStore, writerId: string, entries: CheckedEntry[], now: Date) {
  const rows = await ctx.db.$transaction(async (tx: DbTx) => {
    if (store.storeType === 'vector' && store.dimensions === null) await fixDimensions(tx, ctx, store, entries);
    return writeEntriesIn(tx, ctx.services.vectorSearch, store, writerId, entries, now);
  });
  return { written: rows.length, entries: rows };
}

/** One entry of a kv or structured store, as a subscription run writes it (the store's default TTL applies). */
export function plainEntry(store: Pick<MemoryStore, 'defaultTtlSeconds'>, key: string, value: unknown, now: Date): CheckedEntry {
  return {
    key,
    value: JSON.stringify(value ?? null),
    expiresAt: store.defaultTtlSeconds ? new Date(now.getTime() + store.defaultTtlSeconds * 1000) : null,
    embedding: null,
    norm: null,
  };
}

/** The write itself, inside the caller's transaction: the statements of writeCheckedEntries. */
export async function writeEntriesIn(
  tx: DbTx,
  mode: Ctx['services']['vectorSearch'],
  store: MemoryStore,
  writerId: string,
  entries: CheckedEntry[],
  now: Date,
): Promise<WrittenEntry[]> {
  const keys = entries.map((e) => e.key);
  // An expired key is gone: its history goes with it, and its next write is version 1.
  await tx.$executeRawUnsafe(
    `WITH gone AS (DELETE FROM memory_entries WHERE store_id = $1::uuid AND key = ANY($2::text[]) AND expires_at <= $3 RETURNING key)
     DELETE FROM memory_entry_versions v USING gone WHERE v.store_id = $1::uuid AND v.key = gone.key`,
    store.id,
    keys,
    now,
  );
  const written = await tx.$queryRawUnsafe<WrittenEntry[]>(
    upsertSql(mode === 'pgvector'),
    store.id,
    keys,
    entries.map((e) => e.value),
    entries.map((e) => e.expiresAt),
    entries.map((e) => (e.embedding ? `{${e.embedding.join(',')}}` : null)),
    writerId,
    now,
    entries.map((e) => e.norm),
  );
  if (written.some((w) => w.version > VERSIONS_KEPT)) {
    await tx.$executeRawUnsafe(
      `DELETE FROM memory_entry_versions v USING memory_entries e
       WHERE v.store_id = $1::uuid AND v.key = ANY($2::text[]) AND e.store_id = v.store_id AND e.key = v.key AND v.version <= e.version - $3`,
      store.id,
      keys,
      VERSIONS_KEPT,
    );
  }
  return written;
}

/** A vector store created without dimensions takes them from its first write (and gets its index then). */
async function fixDimensions(tx: DbTx, ctx: Pick<Ctx, 'services'>, store: MemoryStore, entries: CheckedEntry[]): Promise<void> {
  const [row] = await tx.$queryRaw<{ dimensions: number | null }[]>`SELECT dimensions FROM memory_stores WHERE id = ${store.id}::uuid FOR NO KEY UPDATE`;
  const d = entries[0]?.embedding?.length ?? 0;
  const mismatch = entries.findIndex((e) => e.embedding?.length !== (row?.dimensions ?? d));
  if (mismatch !== -1)
    throw new ValidationFailed([{ path: `entries.${mismatch}.embedding`, message: `must have ${row?.dimensions ?? d} numbers (the store's dimensions)` }]);
  if (row?.dimensions) return;
  await tx.memoryStore.update({ where: { id: store.id }, data: { dimensions: d } });
  await createStoreIndex(tx, ctx.services.vectorSearch, store.id, d);
  store.dimensions = d;
}

/** An entry as reads answer it; searches of vector stores add `score` and `distance`, and with words `textRank` and `fusedScore`. */
export interface EntryRow extends Omit<Neighbour, 'distance'>, Partial<Pick<RankedEntry, 'textRank' | 'fusedScore'>> {
  /** Vector stores; absent elsewhere. */
  embedding?: number[] | null;
  score?: number | null;
  distance?: number | null;
}

const ENTRY_COLUMNS = `key, version, value, expires_at AS "expiresAt", created_at AS "createdAt", updated_at AS "updatedAt"`;
const LIVE = `(expires_at IS NULL OR expires_at > $2)`;

/** Live entries in key order, optionally only keys starting with `prefix`. */
export async function listEntries(ctx: Ctx, storeId: string, page: Page, prefix?: string | null): Promise<{ items: EntryRow[]; total: number }> {
  const { store } = await storeInReach(ctx, storeId, 'read');
  const now = ctx.services.clock.now();
  const p = prefix ?? null;
  const [items, [{ total }]] = await Promise.all([
    ctx.db.$queryRawUnsafe<EntryRow[]>(
      `SELECT ${ENTRY_COLUMNS} FROM memory_entries WHERE store_id = $1::uuid AND ${LIVE} AND ($3::text IS NULL OR left(key, length($3)) = $3)
       ORDER BY key LIMIT $4 OFFSET $5`,
      store.id,
      now,
      p,
      page.limit,
      page.offset,
    ),
    ctx.db.$queryRawUnsafe<{ total: number }[]>(
      `SELECT count(*)::int AS total FROM memory_entries WHERE store_id = $1::uuid AND ${LIVE} AND ($3::text IS NULL OR left(key, length($3)) = $3)`,
      store.id,
      now,
      p,
    ),
  ]);
  return { items, total };
}

/** One entry: its current version, or the version asked for (while the entry lives and the version is kept). */
export async function getEntry(ctx: Ctx, storeId: string, key: string, version?: number | null): Promise<EntryRow> {
  const { store } = await storeInReach(ctx, storeId, 'read');
  const now = ctx.services.clock.now();
  let rows: EntryRow[];
  if (version === undefined || version === null) {
    rows = await ctx.db.$queryRawUnsafe<EntryRow[]>(
      `SELECT ${ENTRY_COLUMNS}, embedding FROM memory_entries WHERE store_id = $1::uuid AND ${LIVE} AND key = $3`,
      store.id,
      now,
      key,
    );
  } else {
    rows = await ctx.db.$queryRawUnsafe<EntryRow[]>(
      `SELECT v.key, v.version, v.value, v.expires_at AS "expiresAt", v.created_at AS "createdAt", v.created_at AS "updatedAt", v.embedding
       FROM memory_entry_versions v JOIN memory_entries e ON e.store_id = v.store_id AND e.key = v.key
       WHERE v.store_id = $1::uuid AND (e.expires_at IS NULL OR e.expires_at > $2) AND v.key = $3 AND v.version = $4`,
      store.id,
      now,
      key,
      version,
    );
  }
  if (!rows[0]) throw new NotFound(version ? `version ${version} of memory entry` : 'memory entry', key);
  return rows[0];
}

/** The kept versions of a live entry (the latest VERSIONS_KEPT), newest first, a page at a time. */
export async function entryVersions(ctx: Ctx, storeId: string, key: string, page: Page): Promise<{ items: EntryRow[]; total: number }> {
  const { store } = await storeInReach(ctx, storeId, 'read');
  const now = ctx.services.clock.now();
  const versions = `FROM memory_entry_versions v JOIN memory_entries e ON e.store_id = v.store_id AND e.key = v.key
     WHERE v.store_id = $1::uuid AND (e.expires_at IS NULL OR e.expires_at > $2) AND v.key = $3`;
  const [items, [{ total }]] = await Promise.all([
    ctx.db.$queryRawUnsafe<EntryRow[]>(
      `SELECT v.key, v.version, v.value, v.expires_at AS "expiresAt", v.created_at AS "createdAt", v.created_at AS "updatedAt"
       ${versions} ORDER BY v.version DESC LIMIT $4 OFFSET $5`,
      store.id,
      now,
      key,
      page.limit,
      page.offset,
    ),
    ctx.db.$queryRawUnsafe<{ total: number }[]>(`SELECT count(*)::int AS total ${versions}`, store.id, now, key),
  ]);
  // A live entry has at least its current version: none is no entry (whatever page was asked for).
  if (!total) throw new NotFound('memory entry', key);
  return { items, total };
}

/** Deletes an entry and its history. */
export async function deleteEntry(ctx: Ctx, storeId: string, key: string): Promise<{ deleted: boolean; key: string }> {
  const { store } = await storeInReach(ctx, storeId, 'write');
  const [row] = await ctx.db.$queryRawUnsafe<{ n: number }[]>(
    `WITH gone AS (DELETE FROM memory_entries WHERE store_id = $1::uuid AND key = $2 RETURNING key, expires_at),
          history AS (DELETE FROM memory_entry_versions v USING gone WHERE v.store_id = $1::uuid AND v.key = gone.key RETURNING 1)
     SELECT count(*)::int AS n FROM gone WHERE expires_at IS NULL OR expires_at > $3`,
    store.id,
    key,
    ctx.services.clock.now(),
  );
  if (!row?.n) throw new NotFound('memory entry', key);
  return { deleted: true, key };
}

export interface SearchInput {
  /** kv and structured: keys starting with this. */
  prefix?: unknown;
  /** kv: case-insensitive text found in the key or the value. vector: words, ranked by full-text relevance (with `vector`, fused with it). */
  query?: unknown;
  /** structured: `{ "path.to.field": value | { $eq, $ne, $gt, $gte, $lt, $lte, $in, $exists } }`. */
  filter?: unknown;
  /** vector: the query embedding (`embedding` is the same, in the word entries are written with). */
  vector?: unknown;
  embedding?: unknown;
  /** How many results (`topK` is the same, in the word vector search uses). */
  limit?: unknown;
  topK?: unknown;
}

/** Where a page of search results starts, and its size when the caller paged (GraphQL's first or last). */
export interface SearchPage {
  offset: number;
  /** Undefined: the input's `limit` (or `topK`), else SEARCH_LIMIT_DEFAULT. */
  limit?: number;
}

/**
 * Search by the store's kind: kv by key prefix and text, structured by field filters, vector by nearest
 * neighbours, by full-text relevance to `query`, or by both fused (hybrid). Results are ranked, and paged
 * within the best SEARCH_DEPTH; `total` is how many the pages reach.
 */
export async function searchEntries(
  ctx: Ctx,
  storeId: string,
  input: SearchInput,
  page: SearchPage = { offset: 0 },
): Promise<{ items: EntryRow[]; total: number }> {
  const { store } = await storeInReach(ctx, storeId, 'read');
  const now = ctx.services.clock.now();
  const checks = new Checks();
  const count = checks.synonym({ limit: input.limit, topK: input.topK });
  const size = checks.integer(count.path, count.value, 1, SEARCH_LIMIT_MAX);
  if (size !== undefined && page.limit !== undefined && size !== page.limit)
    checks.fail(count.path, `differs from the page size asked for (${page.limit}): give one of them`);
  // Pages end at the search's depth: what lies beyond is not ranked.
  const limit = Math.max(0, Math.min(page.limit ?? size ?? SEARCH_LIMIT_DEFAULT, SEARCH_DEPTH - page.offset));
  const at = { offset: page.offset, limit };
  const { path: vectorPath, value: v } = checks.synonym({ vector: input.vector, embedding: input.embedding });
  if (store.storeType === 'vector') {
    for (const field of ['prefix', 'filter'] as const)
      if (input[field] !== undefined && input[field] !== null) checks.fail(field, 'is not a search of vector stores: give `vector`, `query` or both');
    const words = checks.text('query', input.query, { min: 1, max: 200 });
    const byWords = input.query !== undefined && input.query !== null;
    const read =
      byWords && (v === undefined || v === null) ? undefined : readEmbedding(checks, vectorPath, v, store.dimensions, 'is required (or `query`, or both)');
    checks.done();
    if (store.dimensions === null) return { items: [], total: 0 };
    const dims = { id: store.id, dimensions: store.dimensions };
    if (!read) return textSearch(ctx.db, dims, words!, at, now, SEARCH_DEPTH);
    if (words) return hybridSearch(ctx.db, ctx.services.vectorSearch, dims, read.embedding, words, at, now);
    // One after the other: with pgvector the search holds a transaction, which on PGlite is the only connection.
    const found = limit ? await nearestNeighbours(ctx.db, ctx.services.vectorSearch, dims, read.embedding, limit, now, page.offset) : [];
    const total = await countLive(ctx, store.id, now, 'norm > 0');
    return { items: found.map((n: Neighbour) => ({ ...n, score: 1 - n.distance })), total };
  }
  if (v !== undefined) checks.fail(vectorPath, 'is for vector stores only');
  const prefix = checks.text('prefix', input.prefix, { max: KEY_MAX });
  const where: string[] = [`store_id = $1::uuid`, LIVE];
  const params: unknown[] = [store.id, now];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (prefix) where.push(`left(key, length(${param(prefix)}::text)) = $${params.length}`);
  if (store.storeType === 'kv') {
    if (input.filter !== undefined && input.filter !== null) checks.fail('filter', 'is for structured stores: search a kv store by `prefix` and `query`');
    const query = checks.text('query', input.query, { max: 200 });
    if (query) where.push(`strpos(lower(key || ' ' || value::text), lower(${param(query)}::text)) > 0`);
  } else {
    if (input.query !== undefined && input.query !== null) checks.fail('query', 'is for kv and vector stores: search a structured store by `filter`');
    where.push(...filterConditions(checks, input.filter, param));
  }
  checks.done();
  const matching = where.join(' AND ');
  const paramsOfMatching = params.length;
  const [items, [{ total }]] = await Promise.all([
    limit
      ? ctx.db.$queryRawUnsafe<EntryRow[]>(
          `SELECT ${ENTRY_COLUMNS} FROM memory_entries WHERE ${matching} ORDER BY key LIMIT ${param(limit)} OFFSET ${param(page.offset)}`,
          ...params,
        )
      : [],
    ctx.db.$queryRawUnsafe<{ total: number }[]>(
      `SELECT count(*)::int AS total FROM (SELECT 1 FROM memory_entries WHERE ${matching} LIMIT ${SEARCH_DEPTH}) m`,
      ...params.slice(0, paramsOfMatching),
    ),
  ]);
  return { items, total };
}

/** Live entries of a store meeting `condition`, counted to SEARCH_DEPTH. */
async function countLive(ctx: Ctx, storeId: string, now: Date, condition: string): Promise<number> {
  const [{ total }] = await ctx.db.$queryRawUnsafe<{ total: number }[]>(
    `SELECT count(*)::int AS total FROM (SELECT 1 FROM memory_entries WHERE store_id = $1::uuid AND ${LIVE} AND ${condition} LIMIT ${SEARCH_DEPTH}) m`,
    storeId,
    now,
  );
  return total;
}

const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$exists'] as const;
type Operator = (typeof OPERATORS)[number];
const COMPARE: Record<'$gt' | '$gte' | '$lt' | '$lte', string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };

/** SQL conditions for a document filter; every value travels as a parameter, paths as text arrays. */
function filterConditions(checks: Checks, filter: unknown, param: (v: unknown) => string): string[] {
  if (filter === undefined || filter === null) return [];
  if (typeof filter !== 'object' || Array.isArray(filter)) {
    checks.fail('filter', 'must be an object of { "field.path": value or { $eq, $ne, $gt, $gte, $lt, $lte, $in, $exists } }');
    return [];
  }
  const entries = Object.entries(filter as Record<string, unknown>);
  if (entries.length > FILTER_CONDITIONS_MAX) checks.fail('filter', `may hold at most ${FILTER_CONDITIONS_MAX} fields`);
  const out: string[] = [];
  for (const [field, condition] of entries) {
    const at = `filter.${field}`;
    const path = field.split('.');
    if (!field || path.some((p) => p.length === 0 || p.length > 100)) {
      checks.fail(at, 'must be a dot-separated path of field names');
      continue;
    }
    const isOperators =
      condition !== null &&
      typeof condition === 'object' &&
      !Array.isArray(condition) &&
      Object.keys(condition).length > 0 &&
      Object.keys(condition).every((k) => k.startsWith('$'));
    const conditions: [Operator, unknown][] = isOperators ? (Object.entries(condition as object) as [Operator, unknown][]) : [['$eq', condition]];
    for (const [op, operand] of conditions) {
      if (op === '$eq') {
        // Containment, which the GIN index serves: { a: { b: operand } }.
        const doc = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), operand);
        out.push(`value @> ${param(JSON.stringify(doc))}::jsonb`);
        continue;
      }
      const p = param(path);
      switch (op) {
        case '$ne':
          out.push(`(value #> ${p}::text[]) IS DISTINCT FROM ${param(JSON.stringify(operand))}::jsonb`);
          break;
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte':
          if (typeof operand === 'number' && Number.isFinite(operand)) {
            out.push(`jsonb_typeof(value #> ${p}::text[]) = 'number' AND (value #>> ${p}::text[])::numeric ${COMPARE[op]} ${param(operand)}::numeric`);
          } else if (typeof operand === 'string') {
            out.push(
              `jsonb_typeof(value #> ${p}::text[]) = 'string' AND (value #>> ${p}::text[]) COLLATE "C" ${COMPARE[op]} ${param(operand)}::text COLLATE "C"`,
            );
          } else checks.fail(`${at}.${op}`, 'must be a number or a string');
          break;
        case '$in':
          if (!Array.isArray(operand) || operand.length === 0 || operand.length > 100) checks.fail(`${at}.$in`, 'must be a list of 1 to 100 values');
          else out.push(`(value #> ${p}::text[]) = ANY(${param(operand.map((o) => JSON.stringify(o)))}::jsonb[])`);
          break;
        case '$exists':
          if (typeof operand !== 'boolean') checks.fail(`${at}.$exists`, 'must be true or false');
          else out.push(`(value #> ${p}::text[]) IS ${operand ? 'NOT ' : ''}NULL`);
          break;
        default:
          checks.fail(`${at}.${String(op)}`, `is not an operator: use ${OPERATORS.join(', ')}`);
      }
    }
  }
  return out;
}

/** Removes expired entries and their history, a batch at a time; answers how many entries went. */
export async function purgeExpiredEntries(services: Ctx['services'], batch = 1000): Promise<number> {
  const [row] = await services.db.$queryRawUnsafe<{ n: number }[]>(
    `WITH due AS (
       SELECT store_id, key FROM memory_entries WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED
     ), gone AS (
       DELETE FROM memory_entries e USING due WHERE e.store_id = due.store_id AND e.key = due.key RETURNING e.store_id, e.key
     ), history AS (
       DELETE FROM memory_entry_versions v USING gone WHERE v.store_id = gone.store_id AND v.key = gone.key RETURNING 1
     )
     SELECT count(*)::int AS n FROM gone`,
    services.clock.now(),
    batch,
  );
  return row?.n ?? 0;
}
