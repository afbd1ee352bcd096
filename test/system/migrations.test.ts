// The migration history is the schema: applying prisma/migrations produces exactly schema.prisma, and
// start-up records each migration in _prisma_migrations as `prisma migrate deploy` would.
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import fc from 'fast-check';
import { applyMigrations, diffMigrationsToSchema, readMigrations } from '../../src/db/migrate';
import { factorsOf, FACTORS, PREFERENCES, WEIGHTS } from '../../src/domain/discovery/resolve';

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

it('scores offers in SQL exactly as the resolver does in TypeScript', async () => {
  const db = await PGlite.create();
  try {
    await applyMigrations(new PrismaPGlite(db));
    const now = new Date('2026-06-01T00:00:00Z');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PREFERENCES),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.nat(10_000),
        fc.nat(10_000),
        fc.option(fc.nat(60_000), { nil: null }),
        fc.integer({ min: 0, max: 400 * 86_400 }),
        async (prefer, reputation, cost, successes, failures, latency, ageSeconds) => {
          const w = WEIGHTS[prefer];
          const freshAt = new Date(now.getTime() - ageSeconds * 1000);
          const { rows } = await db.query<{ score: number }>(
            'SELECT marketplace_offer_score($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS score',
            [w.reputation, w.cost, w.reliability, w.latency, w.freshness, reputation, cost, successes, failures, latency, freshAt, now],
          );
          const f = factorsOf({ reputation, costCents: cost, successes, failures, latencyP50Ms: latency, freshAt }, now);
          const expected = 100 * FACTORS.reduce((sum, k) => sum + w[k] * f[k], 0);
          expect(rows[0].score).toBeCloseTo(expected, 6);
        },
      ),
      { numRuns: 200 },
    );
    // The weights the triggers store per preference are the resolver's.
    const fn = await db.query<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'marketplace_sync_offers'");
    for (const prefer of PREFERENCES) {
      const w = WEIGHTS[prefer];
      expect(fn.rows[0].src).toContain(`marketplace_offer_score(${[w.reputation, w.cost, w.reliability, w.latency, w.freshness].join(', ')},`);
    }
  } finally {
    await db.close();
  }
});
