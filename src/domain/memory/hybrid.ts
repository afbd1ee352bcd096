// Words over a vector store: full-text relevance of its entries (the key and the strings of the value,
// with English stemming and stop words), alone or fused with vector similarity (hybrid search) by
// reciprocal rank fusion. Each ranking gives its best HYBRID_CANDIDATES; an entry's fused score is the sum
// over the rankings it is in of 1 / (RRF_K + its rank there).
import type { Db } from '../../db/database';
import { distanceSql, literals, parameters, withVectorSearch, type Neighbour, type VectorSearchMode } from './vectors';

/** Reciprocal rank fusion's constant (Cormack, Clarke and Büttcher, 2009): damps the weight of the very first ranks. */
export const RRF_K = 60;
/** How many of its best each ranking brings to the fusion; a hybrid search ranks the union of them. */
export const HYBRID_CANDIDATES = 200;

/** An entry found by its words (and its vector): what vector search answers, with the text's rank and the fused score. */
export interface RankedEntry extends Omit<Neighbour, 'distance'> {
  /** Cosine distance to the query vector; null without one. */
  distance: number | null;
  /** 1 − distance. */
  score: number | null;
  /** Full-text relevance to the query's words (ts_rank, length-normalized); null when none of them is in the entry. */
  textRank: number | null;
  /** Hybrid search: the reciprocal rank fusion of the two rankings; null otherwise. */
  fusedScore: number | null;
}

/**
 * An entry's words, exactly as the partial GIN index `memory_entries_text_idx` has them (so that it
 * serves the search): the key's, and those of the value's strings.
 */
const entryText = (alias: string) => `(to_tsvector('english'::regconfig, ${alias}.key) || to_tsvector('english'::regconfig, ${alias}.value))`;

/**
 * The query's words normalized as entries' are, any of which may match (a tsquery of them joined by OR,
 * each quoted, so nothing in the text is read as tsquery syntax); null when no word carries meaning.
 */
const anyWordOf = (text: string) =>
  `(SELECT string_agg('''' || replace(replace(w.lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery FROM unnest(to_tsvector('english'::regconfig, ${text}::text)) AS w)`;

const COLUMNS = (alias: string) =>
  `${alias}.key, ${alias}.version, ${alias}.value, ${alias}.expires_at AS "expiresAt", ${alias}.created_at AS "createdAt", ${alias}.updated_at AS "updatedAt"`;
const live = (alias: string, now: string) => `(${alias}.expires_at IS NULL OR ${alias}.expires_at > ${now})`;

interface Row extends Omit<RankedEntry, 'score'> {
  total?: number;
}

const ranked = (rows: Row[]): RankedEntry[] =>
  rows.map((r) => {
    const distance = r.distance === null || r.distance === undefined ? null : Number(r.distance);
    return {
      key: r.key,
      version: r.version,
      value: r.value,
      expiresAt: r.expiresAt,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      distance,
      score: distance === null ? null : 1 - distance,
      textRank: r.textRank ?? null,
      fusedScore: r.fusedScore ?? null,
    };
  });

/**
 * Live entries of a vector store holding any of the query's words, most relevant first (then by key), a
 * page at a time; `total` counts the matches to `depth`.
 */
export async function textSearch(
  db: Db,
  store: { id: string; dimensions: number },
  words: string,
  page: { offset: number; limit: number },
  now: Date,
  depth: number,
): Promise<{ items: RankedEntry[]; total: number }> {
  const { id } = literals(store.id, store.dimensions);
  const { values, param } = parameters();
  const matches = `FROM memory_entries e, (SELECT ${anyWordOf(param(words))} AS words) q
    WHERE e.store_id = '${id}'::uuid AND e.embedding IS NOT NULL AND ${live('e', param(now))} AND ${entryText('e')} @@ q.words`;
  const counted = values.length;
  const [rows, [{ total }]] = await Promise.all([
    page.limit
      ? db.$queryRawUnsafe<Row[]>(
          `SELECT ${COLUMNS('e')}, NULL::float8 AS distance, ts_rank(${entryText('e')}, q.words, 1)::float8 AS "textRank"
           ${matches} ORDER BY "textRank" DESC, e.key LIMIT ${param(page.limit)} OFFSET ${param(page.offset)}`,
          ...values,
        )
      : [],
    db.$queryRawUnsafe<{ total: number }[]>(`SELECT count(*)::int AS total FROM (SELECT 1 ${matches} LIMIT ${depth}) m`, ...values.slice(0, counted)),
  ]);
  return { items: ranked(rows), total };
}

/**
 * Hybrid search: the store's best HYBRID_CANDIDATES by vector similarity and by full-text relevance, fused by reciprocal
 * rank, best first (then by key); a page of them and how many were ranked. One statement, its work bounded by the
 * candidates and the page.
 */
export async function hybridSearch(
  db: Db,
  mode: VectorSearchMode,
  store: { id: string; dimensions: number },
  vector: number[],
  words: string,
  page: { offset: number; limit: number },
  now: Date,
): Promise<{ items: RankedEntry[]; total: number }> {
  const { id } = literals(store.id, store.dimensions);
  const { values, param } = parameters();
  const { usable, order, distance } = distanceSql(mode, store, 'e', vector, param);
  const at = param(now);
  const candidates = param(HYBRID_CANDIDATES);
  // HNSW orders by the distance alone (a second key would stop it using the index); ranks break ties by key.
  const text = `
    WITH q AS (SELECT ${anyWordOf(param(words))} AS words),
    by_vector AS (
      SELECT key, row_number() OVER (ORDER BY distance, key) AS r FROM (
        SELECT e.key, ${distance} AS distance FROM memory_entries e
        WHERE e.store_id = '${id}'::uuid AND ${usable} AND ${live('e', at)}
        ORDER BY ${order} LIMIT ${candidates}
      ) v
    ),
    by_text AS (
      SELECT key, row_number() OVER (ORDER BY text_rank DESC, key) AS r FROM (
        SELECT e.key, ts_rank(${entryText('e')}, q.words, 1) AS text_rank FROM memory_entries e, q
        WHERE e.store_id = '${id}'::uuid AND e.embedding IS NOT NULL AND ${live('e', at)} AND ${entryText('e')} @@ q.words
        ORDER BY text_rank DESC, e.key LIMIT ${candidates}
      ) t
    ),
    fused AS (
      SELECT coalesce(v.key, t.key) AS key, coalesce(1.0 / (${RRF_K} + v.r), 0) + coalesce(1.0 / (${RRF_K} + t.r), 0) AS fused
      FROM by_vector v FULL JOIN by_text t ON t.key = v.key
    ),
    page AS (SELECT key, fused FROM fused ORDER BY fused DESC, key LIMIT ${param(page.limit)} OFFSET ${param(page.offset)})
    SELECT (SELECT count(*) FROM fused)::int AS total, ${COLUMNS('e')}, ${distance} AS distance,
      CASE WHEN ${entryText('e')} @@ q.words THEN ts_rank(${entryText('e')}, q.words, 1)::float8 END AS "textRank",
      p.fused::float8 AS "fusedScore"
    FROM q LEFT JOIN (page p JOIN memory_entries e ON e.store_id = '${id}'::uuid AND e.key = p.key) ON true
    ORDER BY p.fused DESC, p.key`;
  const rows = await withVectorSearch(db, mode, HYBRID_CANDIDATES, (tx) => tx.$queryRawUnsafe<Row[]>(text, ...values));
  return { items: ranked(rows.filter((r) => r.key !== null)), total: rows[0]?.total ?? 0 };
}
