// Nearest-neighbour search of vector stores by cosine distance: with pgvector, an HNSW index per store (a
// partial expression index over the store's rows at its dimensions); without it, an exact scan in SQL over
// the stored embeddings. Both answer the same neighbours; /health says which one this database uses.
import type { Db, DbTx, SqlRunner } from '../../db/database';
import type { Checks } from '../../platform/validate';

declare module '../context' {
  interface Services {
    /** How vector memory stores are searched: pgvector's HNSW index, or an exact scan. */
    vectorSearch: VectorSearchMode;
  }
}

export type VectorSearchMode = 'pgvector' | 'exact';

/** pgvector is in use when the migration could enable it and add the `embedding_vec` column. */
export async function detectVectorSearch(sql: SqlRunner): Promise<VectorSearchMode> {
  const [row] = await sql.query<{ has: boolean }>(
    // From the catalog itself: information_schema's view of it is slow, and this runs at every start.
    `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('memory_entries') AND attname = 'embedding_vec' AND NOT attisdropped) AS has`,
    [],
  );
  return row?.has ? 'pgvector' : 'exact';
}

/** HNSW builds stop at 2,000 dimensions for `vector`. */
export const MAX_DIMENSIONS = 2000;

/** The largest magnitude a float4 (how embeddings are stored, as pgvector stores them) holds. */
const FLOAT4_MAX = 3.4028234663852886e38;

/**
 * An embedding (to write, or to search with) as stored: a non-empty list of at most MAX_DIMENSIONS finite
 * numbers that float4 can hold, of `dimensions` numbers when the store has them, not all zero once stored
 * as float4 (cosine distance needs a direction). Undefined after a failed check.
 */
export function readEmbedding(
  checks: Checks,
  path: string,
  value: unknown,
  dimensions: number | null,
  missing: string,
): { embedding: number[]; norm: number } | undefined {
  if (!Array.isArray(value) || value.length === 0 || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    checks.fail(path, `${missing}: a non-empty list of finite numbers`);
  } else if (value.length > MAX_DIMENSIONS) {
    checks.fail(path, `must have at most ${MAX_DIMENSIONS} numbers`);
  } else if (dimensions !== null && value.length !== dimensions) {
    checks.fail(path, `must have ${dimensions} numbers (the store's dimensions)`);
  } else if (value.some((x) => Math.abs(x) > FLOAT4_MAX)) {
    checks.fail(path, `must hold numbers a float4 can (magnitude at most ${FLOAT4_MAX})`);
  } else {
    const embedding = Array.from(Float32Array.from(value as number[]));
    const norm = Math.hypot(...embedding);
    if (norm === 0) checks.fail(path, 'must not be all zeros (cosine distance needs a direction)');
    else return { embedding, norm };
  }
  return undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Store ids and dimensions are written into DDL and index predicates (a partial index needs literals): checked here. */
export function literals(storeId: string, dimensions: number): { id: string; d: number; index: string } {
  if (!UUID.test(storeId) || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw new Error(`invalid vector index parameters ${storeId} ${dimensions}`);
  }
  return { id: storeId, d: dimensions, index: `memory_vec_${storeId.replace(/-/g, '')}` };
}

/** The HNSW index of one store's embeddings, made when its dimensions become known. */
export async function createStoreIndex(tx: DbTx, mode: VectorSearchMode, storeId: string, dimensions: number): Promise<void> {
  if (mode !== 'pgvector') return;
  const { id, d, index } = literals(storeId, dimensions);
  await tx.$executeRawUnsafe(
    `CREATE INDEX IF NOT EXISTS "${index}" ON memory_entries USING hnsw ((embedding_vec::vector(${d})) vector_cosine_ops) WHERE store_id = '${id}'::uuid`,
  );
}

export async function dropStoreIndex(tx: DbTx, mode: VectorSearchMode, storeId: string): Promise<void> {
  if (mode !== 'pgvector') return;
  const { index } = literals(storeId, 1);
  await tx.$executeRawUnsafe(`DROP INDEX IF EXISTS "${index}"`);
}

export interface Neighbour {
  key: string;
  version: number;
  value: unknown;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** Cosine distance, 0 (same direction) to 2 (opposite). */
  distance: number;
}

const COLUMNS = `key, version, value, expires_at AS "expiresAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * SQL for the cosine distance of rows of `memory_entries` (as `alias`) to the query embedding, by the
 * mode: `usable` picks the rows that have one, `order` is what HNSW's index orders by (pgvector),
 * `distance` the number (float8). `param` adds a statement parameter and answers its placeholder.
 */
export function distanceSql(
  mode: VectorSearchMode,
  store: { id: string; dimensions: number },
  alias: string,
  query: number[],
  param: (value: unknown) => string,
) {
  const { d } = literals(store.id, store.dimensions);
  const vector = param(query);
  if (mode === 'pgvector') {
    const order = `${alias}.embedding_vec::vector(${d}) <=> ${vector}::real[]::vector(${d})`;
    return { usable: `${alias}.embedding_vec IS NOT NULL`, order, distance: `(${order})::float8` };
  }
  const norm = param(Math.hypot(...query));
  const distance = `(1 - (SELECT sum(a::float8 * b::float8) FROM unnest(${alias}.embedding, ${vector}::real[]) AS u(a, b)) / (${alias}.norm * ${norm}::float8))`;
  return { usable: `${alias}.norm > 0`, order: distance, distance };
}

/** Statement parameters collected as SQL is written: `param(value)` answers `$n`. */
export function parameters(): { values: unknown[]; param: (value: unknown) => string } {
  const values: unknown[] = [];
  return { values, param: (value) => `$${values.push(value)}` };
}

/**
 * Runs `work` where a search by HNSW can reach `depth` neighbours: pgvector scans its index on (strict
 * order) past expired entries until it has them, within a transaction of its own for the settings.
 */
export function withVectorSearch<T>(db: Db, mode: VectorSearchMode, depth: number, work: (db: DbTx) => Promise<T>): Promise<T> {
  if (mode !== 'pgvector') return work(db);
  return db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL hnsw.ef_search = ${Math.max(40, Math.min(1000, Math.ceil(depth) * 2))}`);
    await tx.$executeRawUnsafe(`SET LOCAL hnsw.iterative_scan = strict_order`);
    return work(tx);
  });
}

/**
 * The live entries nearest to `query`, `k` of them after the first `offset`. With pgvector the HNSW
 * index answers; `exact` computes every distance of the store.
 */
export async function nearestNeighbours(
  db: Db,
  mode: VectorSearchMode,
  store: { id: string; dimensions: number },
  query: number[],
  k: number,
  now: Date,
  offset = 0,
): Promise<Neighbour[]> {
  const { id } = literals(store.id, store.dimensions);
  const { values, param } = parameters();
  const { usable, order, distance } = distanceSql(mode, store, 'e', query, param);
  // HNSW orders by the distance alone (a second key would stop it using the index); the exact scan breaks ties by key.
  const text = `SELECT ${COLUMNS}, ${distance} AS distance
     FROM memory_entries e
     WHERE e.store_id = '${id}'::uuid AND ${usable} AND (e.expires_at IS NULL OR e.expires_at > ${param(now)})
     ORDER BY ${order}${mode === 'pgvector' ? '' : ', key'}
     LIMIT ${param(k)} OFFSET ${param(offset)}`;
  const rows = await withVectorSearch(db, mode, offset + k, (q) => q.$queryRawUnsafe<Neighbour[]>(text, ...values));
  return rows.map((r) => ({ ...r, distance: Number(r.distance) }));
}
