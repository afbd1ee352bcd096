// Opening PGlite, in a module of its own: the embedded database's worker thread loads it without the
// Prisma client and the rest of database.ts.
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

/**
 * Opens PGlite with the extensions our migrations use where they can (pgvector for memory search). A data
 * directory that has them enabled must always be opened with them.
 */
export function createPglite(dataDir?: string, opts: PGliteOptions = {}): Promise<PGlite> {
  return PGlite.create({ ...(dataDir ? { dataDir } : {}), ...opts, extensions: { vector, ...opts.extensions } });
}
