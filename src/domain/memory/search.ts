// Searching a memory store (spec §4.7): by key prefix and text, by field filters on documents, or by nearest
// neighbours, ranked and paged to a bounded depth.
import { Checks } from '../../platform/validate';
import type { Ctx } from '../context';
import { ENTRY_COLUMNS, KEY_MAX, LIVE, type EntryRow } from './entries';
import { hybridSearch, textSearch } from './hybrid';
import { storeInReach } from './stores';
import { nearestNeighbours, readEmbedding, type Neighbour } from './vectors';

export const SEARCH_LIMIT_MAX = 100;
/** A search's page size when none is given. */
export const SEARCH_LIMIT_DEFAULT = 10;
/** How deep a search ranks: its pages reach its best this many results, no further (bounded work per page). */
export const SEARCH_DEPTH = 1000;
const FILTER_CONDITIONS_MAX = 20;

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
