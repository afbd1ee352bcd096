// Opening PGlite, in a module of its own: the embedded database's worker thread loads it without the
// Prisma client and the rest of database.ts.
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

/**
 * PostgreSQL's settings for the embedded database, beyond PGlite's own. PGlite writes over all its shared buffers
 * when it starts, so they are resident whether used or not; pages past them come from the operating system's page
 * cache. Small buffers cost less idle memory and read as fast (docs/operations.md, Footprint).
 */
export const PGLITE_SETTINGS: Record<string, string> = {
  shared_buffers: '16MB',
};

/**
 * Opens PGlite with the extensions our migrations use where they can (pgvector for memory search). A data
 * directory that has them enabled must always be opened with them.
 */
export function createPglite(dataDir?: string, opts: PGliteOptions = {}): Promise<PGlite> {
  const settings = Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  return PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    startParams: [...PGlite.defaultStartParams, ...settings],
    ...opts,
    extensions: { vector, ...opts.extensions },
  });
}

/**
 * A tarball for PGlite's `loadDataDir` from bytes already in memory. PGlite reads only its type and `arrayBuffer()`;
 * a Blob's would copy the bytes again in small reads.
 */
export function tarball(bytes: Uint8Array): Blob {
  const whole =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? bytes.buffer
      : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return { type: 'application/x-tar', size: bytes.byteLength, arrayBuffer: () => Promise.resolve(whole) } as unknown as Blob;
}
