// Memory entries (spec §4.7): written in batches, versioned (earlier versions stay readable), may expire
// (gone from reads at once, purged in the background), read by key, key prefix and version.
import type { DbTx } from '../../db/database';
import type { MemoryStore } from '../../db/generated/prisma/client';
import { NotFound, ValidationFailed } from '../../platform/errors';
import { Checks } from '../../platform/validate';
import type { Page } from '../../platform/page';
import type { Ctx } from '../context';
import { tierDefinition } from '../reputation/reputation';
import type { RankedEntry } from './hybrid';
import { storeInReach, TTL_MAX_SECONDS } from './stores';
import { createStoreIndex, readEmbedding, type Neighbour } from './vectors';

/** Versions kept per key (the current one included); older ones are dropped as new ones are written. */
export const VERSIONS_KEPT = 50;
export const KEY_MAX = 512;

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

export const ENTRY_COLUMNS = `key, version, value, expires_at AS "expiresAt", created_at AS "createdAt", updated_at AS "updatedAt"`;
export const LIVE = `(expires_at IS NULL OR expires_at > $2)`;

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
