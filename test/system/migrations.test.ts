// The migration history is the schema: applying prisma/migrations produces exactly schema.prisma, and
// start-up records each migration in _prisma_migrations as `prisma migrate deploy` would.
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { applyMigrations, diffMigrationsToSchema, readMigrations } from '../../src/db/migrate';

jest.setTimeout(120_000);

it('produces exactly schema.prisma (no drift between the history and the schema)', async () => {
  const shadowHost = await PGlite.create();
  try {
    expect(await diffMigrationsToSchema(new PrismaPGlite(shadowHost))).toBe('');
  } finally {
    await shadowHost.close();
  }
});

it('applies every migration once and records it in _prisma_migrations', async () => {
  const db = await PGlite.create();
  try {
    const names = readMigrations().migrationDirectories.map((d) => d.path);
    expect(await applyMigrations(new PrismaPGlite(db))).toEqual(names);
    expect(await applyMigrations(new PrismaPGlite(db))).toEqual([]);
    const rows = await db.query<{ migration_name: string; finished_at: Date | null; checksum: string }>(
      'SELECT migration_name, finished_at, checksum FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.rows.map((r) => r.migration_name)).toEqual(names);
    expect(rows.rows.every((r) => r.finished_at && /^[0-9a-f]{64}$/.test(r.checksum))).toBe(true);
  } finally {
    await db.close();
  }
});
