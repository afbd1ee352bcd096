// The migration history is the schema: applying prisma/migrations produces exactly schema.prisma, and
// start-up records each migration in _prisma_migrations as `prisma migrate deploy` would.
import { PrismaPGlite } from 'pglite-prisma-adapter';
import fc from 'fast-check';
import { applyMigrations, diffMigrationsToSchema, readMigrations } from '../../src/db/migrate';
import { factorsOf, FACTORS, PREFERENCES, WEIGHTS } from '../../src/domain/discovery/scoring';
import { blankPglite, migratedPglite } from '../support/databases';

jest.setTimeout(120_000);

it('produces exactly schema.prisma (no drift between the history and the schema)', async () => {
  const shadowHost = await blankPglite();
  try {
    expect(await diffMigrationsToSchema(new PrismaPGlite(shadowHost))).toBe('');
  } finally {
    await shadowHost.close();
  }
});

it('applies every migration once and records it in _prisma_migrations', async () => {
  const db = await blankPglite();
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

it('gives every sub-key that never expired the default lifetime, and at least 30 days from the upgrade', async () => {
  const db = await blankPglite();
  try {
    const all = readMigrations().migrationDirectories;
    const at = all.findIndex((d) => d.path.endsWith('_sub_keys_always_expire'));
    const sql = (i: number) => (all[i].migrationFile.content as { value: string }).value;
    for (let i = 0; i < at; i++) await db.exec(sql(i));
    await db.exec(`
      INSERT INTO agents (id, agent_key, name, description, owner_email, updated_at) VALUES ('00000000-0000-4000-8000-000000000001', 'ag_1', 'old-agent', 'd', 'o@example.com', now());
      INSERT INTO services (id, service_key, agent_id, name, description, endpoint, pricing_model, signing_secret, updated_at)
        VALUES ('00000000-0000-4000-8000-000000000002', 'svc_1', '00000000-0000-4000-8000-000000000001', 's', 'a service', 'https://x.example', 'free', 'whsec_x', now());
      INSERT INTO sub_keys (id, hash, hint, agent_id, service_id, permissions, created_at, expires_at) VALUES
        ('00000000-0000-4000-8000-00000000000a', 'h-recent', 'x', '00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '{read}', now() - interval '10 days', NULL),
        ('00000000-0000-4000-8000-00000000000b', 'h-old', 'x', '00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '{read}', now() - interval '400 days', NULL),
        ('00000000-0000-4000-8000-00000000000c', 'h-set', 'x', '00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '{read}', now(), '2030-01-01T00:00:00Z');
    `);
    await db.exec(sql(at));
    const { rows } = await db.query<{ hash: string; days: number }>(
      `SELECT hash, round(extract(epoch FROM expires_at - now()) / 86400)::int AS days FROM sub_keys ORDER BY hash`,
    );
    const days = Object.fromEntries(rows.map((r) => [r.hash, r.days]));
    expect(days['h-recent']).toBe(355);
    expect(days['h-old']).toBe(30);
    expect((await db.query<{ e: Date }>(`SELECT expires_at AS e FROM sub_keys WHERE hash = 'h-set'`)).rows[0].e.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    await expect(db.exec(`UPDATE sub_keys SET expires_at = NULL`)).rejects.toThrow(/null/i);
  } finally {
    await db.close();
  }
});

it("keeps each agent's status as its own and gives sub-agents of suspended or banned agents the worst status above them", async () => {
  const db = await blankPglite();
  try {
    const all = readMigrations().migrationDirectories;
    const at = all.findIndex((d) => d.path.endsWith('_subtree_status'));
    const sql = (i: number) => (all[i].migrationFile.content as { value: string }).value;
    for (let i = 0; i < at; i++) await db.exec(sql(i));
    // root (SUSPENDED) → child (BANNED) → grandchild; root → sibling; another tree, all ACTIVE.
    const agent = (n: number, name: string, status: string, parent: number | null) =>
      `('00000000-0000-4000-8000-00000000000${n}', 'ag_${n}', '${name}', 'd', 'o@example.com', '${status}', ${parent === null ? 'NULL' : `'00000000-0000-4000-8000-00000000000${parent}'`}, now())`;
    await db.exec(`INSERT INTO agents (id, agent_key, name, description, owner_email, status, parent_id, updated_at) VALUES
      ${[agent(1, 'root', 'SUSPENDED', null), agent(2, 'child', 'BANNED', 1), agent(3, 'grandchild', 'ACTIVE', 2), agent(4, 'sibling', 'ACTIVE', 1), agent(5, 'other', 'ACTIVE', null), agent(6, 'other-child', 'ACTIVE', 5)].join(',\n')}`);
    await db.exec(sql(at));
    const { rows } = await db.query<{ name: string; status: string; own_status: string }>(
      'SELECT name, status::text, own_status::text FROM agents ORDER BY agent_key',
    );
    expect(rows).toEqual([
      { name: 'root', status: 'SUSPENDED', own_status: 'SUSPENDED' },
      { name: 'child', status: 'BANNED', own_status: 'BANNED' },
      { name: 'grandchild', status: 'BANNED', own_status: 'ACTIVE' },
      { name: 'sibling', status: 'SUSPENDED', own_status: 'ACTIVE' },
      { name: 'other', status: 'ACTIVE', own_status: 'ACTIVE' },
      { name: 'other-child', status: 'ACTIVE', own_status: 'ACTIVE' },
    ]);
  } finally {
    await db.close();
  }
});

it('scores offers in SQL exactly as the resolver does in TypeScript', async () => {
  const db = await migratedPglite();
  try {
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
          const { rows } = await db.query<{ score: number }>('SELECT marketplace_offer_score($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS score', [
            w.reputation,
            w.cost,
            w.reliability,
            w.latency,
            w.freshness,
            reputation,
            cost,
            successes,
            failures,
            latency,
            freshAt,
            now,
          ]);
          const f = factorsOf({ reputation, costCents: cost, successes, failures, latencyP50Ms: latency, freshAt }, now);
          const expected = 100 * FACTORS.reduce((sum, k) => sum + w[k] * f[k], 0);
          expect(rows[0].score).toBeCloseTo(expected, 6);
        },
      ),
      { numRuns: 200 },
    );
    // The weights the triggers store per preference are the resolver's.
    const fn = await db.query<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'marketplace_write_offers'");
    for (const prefer of PREFERENCES) {
      const w = WEIGHTS[prefer];
      expect(fn.rows[0].src).toContain(`marketplace_offer_score(${[w.reputation, w.cost, w.reliability, w.latency, w.freshness].join(', ')},`);
    }
    // An offer is due for re-scoring once its freshness factor has fallen by 0.005 (0.05 points at the
    // largest freshness weight, 0.1), or after 30 days, whichever comes first; never before.
    expect(Math.max(...PREFERENCES.map((p) => WEIGHTS[p].freshness))).toBe(0.1);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2000 * 86_400 }), async (ageSeconds) => {
        const freshAt = new Date(now.getTime() - ageSeconds * 1000);
        const { rows } = await db.query<{ due: Date }>('SELECT marketplace_rescore_at($1, $2) AS due', [freshAt, now]);
        const due = new Date(rows[0].due);
        const freshness = (at: Date) => factorsOf({ reputation: 0, costCents: 0, successes: 0, failures: 0, latencyP50Ms: null, freshAt }, at).freshness;
        const drift = freshness(now) - freshness(due);
        const days = (due.getTime() - now.getTime()) / 86_400_000;
        expect(days).toBeGreaterThan(0);
        expect(days).toBeLessThanOrEqual(30 + 1e-9);
        expect(drift).toBeLessThanOrEqual(0.005 + 1e-6);
        if (days < 30 - 1e-6) expect(drift).toBeCloseTo(0.005, 5);
      }),
      { numRuns: 200 },
    );
  } finally {
    await db.close();
  }
});
