// Nearest-neighbour search of vector stores by cosine distance: with pgvector, an HNSW index per store (a
// partial expression index over the store's rows at its dimensions); without it, an exact scan in SQL over
// the stored embeddings. Both answer the same neighbours; /health says which one this database uses.
import type { Db, DbTx, SqlRunner } from '../../db/database';
import type { Checks } from '../../platform/validate';

export type VectorSearchMode = 'pgvector' | 'exact';

/** pgvector is in use when the migration could enable it and add the `embedding_vec` column. */
export async function detectVectorSearch(sql: SqlRunner): Promise<VectorSearchMode> {
  const [row] = await sql.query<{ has: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'memory_entries' AND column_name = 'embedding_vec') AS has`,
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
export function readEmbedding(checks: Checks, path: string, value: unknown, dimensions: number | null, missing: string): { embedding: number[]; norm: number } | undefined {
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
function literals(storeId: string, dimensions: number): { id: string; d: number; index: string } {
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
 * The `k` live entries nearest to `query`. With pgvector the HNSW index answers, scanning on (strict
 * order) past expired entries until it has `k`; `exact` computes every distance of the store.
 */
export async function nearestNeighbours(
  db: Db,
  mode: VectorSearchMode,
  store: { id: string; dimensions: number },
  query: number[],
  k: number,
  now: Date,
): Promise<Neighbour[]> {
  const { id, d } = literals(store.id, store.dimensions);
  if (mode === 'pgvector') {
    return db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL hnsw.ef_search = ${Math.max(40, Math.min(1000, k * 2))}`);
      await tx.$executeRawUnsafe(`SET LOCAL hnsw.iterative_scan = strict_order`);
      const rows = await tx.$queryRawUnsafe<Neighbour[]>(
        `SELECT ${COLUMNS}, (embedding_vec::vector(${d}) <=> $1::real[]::vector(${d}))::float8 AS distance
         FROM memory_entries
         WHERE store_id = '${id}'::uuid AND embedding_vec IS NOT NULL AND (expires_at IS NULL OR expires_at > $2)
         ORDER BY embedding_vec::vector(${d}) <=> $1::real[]::vector(${d})
         LIMIT $3`,
        query,
        now,
        k,
      );
      return rows.map((r) => ({ ...r, distance: Number(r.distance) }));
    });
  }
  const norm = Math.hypot(...query);
  const rows = await db.$queryRawUnsafe<Neighbour[]>(
    `SELECT ${COLUMNS}, 1 - d.dot / (e.norm * $2::float8) AS distance
     FROM memory_entries e
     CROSS JOIN LATERAL (SELECT sum(a::float8 * b::float8) AS dot FROM unnest(e.embedding, $1::real[]) AS u(a, b)) d
     WHERE e.store_id = $3::uuid AND e.norm > 0 AND (e.expires_at IS NULL OR e.expires_at > $4)
     ORDER BY distance, key
     LIMIT $5`,
    query,
    norm,
    id,
    now,
    k,
  );
  return rows.map((r) => ({ ...r, distance: Number(r.distance) }));
}
