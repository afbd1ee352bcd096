// The database's maintenance (src/db/maintenance.ts): where no autovacuum runs (the embedded database; this
// machine's PostgreSQL, which runs with autovacuum off), the server vacuums and analyses the tables due by
// autovacuum's rules, and leaves a PostgreSQL that runs its own autovacuum alone.
import { maintain } from '../../src/db/maintenance';
import { createLogger } from '../../src/platform/logger';
import pg from 'pg';
import { eventually } from '../support/expect';
import { onPostgres, startServer, type TestServer } from '../support/server';

let server: TestServer;

interface TableStats {
  dead: number;
  vacuumed: boolean;
  analysed: boolean;
}

const stats = async (table: string): Promise<TableStats> =>
  (
    await server.app.services.sql.query<TableStats>(
      `SELECT n_dead_tup::int AS dead, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analysed FROM pg_stat_user_tables WHERE relname = $1`,
      [table],
    )
  )[0];

/** A table with `rows` rows written and deleted: dead rows well past autovacuum's threshold (50 + 20%). */
async function churned(table: string, rows: number): Promise<void> {
  const { sql } = server.app.services;
  await sql.query(`CREATE TABLE ${table} (id int PRIMARY KEY, note text)`, []);
  await sql.query(`INSERT INTO ${table} SELECT g, repeat('x', 100) FROM generate_series(1, $1::int) g`, [rows]);
  await sql.query(`DELETE FROM ${table}`, []);
}

describe('database maintenance, every 200 ms', () => {
  beforeAll(async () => {
    server = await startServer({ env: { DB_MAINTENANCE_MS: '200' } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('vacuums and analyses a table whose dead rows passed the threshold, and its dead rows are gone', async () => {
    await churned('maintenance_probe', 2000);
    const seen = await eventually(
      () => stats('maintenance_probe'),
      // VACUUM (ANALYZE) reports its vacuum before its analysis is done: a poll between the two sees one of them.
      (s) => s?.vacuumed && s.analysed,
      15_000,
      { everyMs: 100 },
    );
    expect(seen).toMatchObject({ vacuumed: true, analysed: true });
    // The statistics the vacuum left: no dead rows, so the next rounds leave the table alone.
    expect((await stats('maintenance_probe')).dead).toBe(0);
    const again = await maintain({ sql: server.app.services.sql }, createLogger('silent'), server.app.services.dbKind === 'pglite');
    expect(again.map((m) => m.table)).not.toContain('public.maintenance_probe');
  });
});

describe('database maintenance, one round at a time (DB_MAINTENANCE_MS=0: no rounds of its own)', () => {
  beforeAll(async () => {
    server = await startServer({ env: { DB_MAINTENANCE_MS: '0' } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('applies the rules only where no autovacuum runs: on PostgreSQL, only while its autovacuum is off', async () => {
    await churned('maintenance_gate', 500);
    const { sql } = server.app.services;
    const [{ autovacuum }] = await sql.query<{ autovacuum: string }>(`SELECT current_setting('autovacuum') AS autovacuum`, []);
    // Statistics reach pg_stat_user_tables at most once a second (PGlite flushes them when a later statement comes).
    await eventually(
      () => stats('maintenance_gate'),
      (s) => s.dead >= 500,
      5_000,
      { everyMs: 100 },
    );
    const silent = createLogger('silent');
    // Told it is not the embedded database, it defers to the database's own autovacuum setting. PGlite says
    // `on` (it has the setting, not the launcher), as a PostgreSQL with autovacuum running does.
    const asIfServer = await maintain({ sql }, silent, false);
    const serverRunsIt = onPostgres() ? autovacuum === 'on' : true;
    expect(asIfServer.some((m) => m.table === 'public.maintenance_gate')).toBe(!serverRunsIt);
    if (serverRunsIt) {
      const done = await maintain({ sql }, silent, true);
      expect(done.find((m) => m.table === 'public.maintenance_gate')).toMatchObject({ did: 'vacuum', dead: expect.any(Number) });
    }
  });
});

(onPostgres() ? describe : describe.skip)('database maintenance on PostgreSQL, beside other sessions', () => {
  beforeAll(async () => {
    server = await startServer({ env: { DB_MAINTENANCE_MS: '0' } });
  });
  afterAll(async () => {
    await server.close();
  });

  it("paces its vacuums as autovacuum does, on a connection of its own, and leaves that connection's settings as they were", async () => {
    await churned('maintenance_paced', 500);
    const { sql } = server.app.services;
    await eventually(
      () => stats('maintenance_paced'),
      (s) => s.dead >= 500,
      5_000,
      { everyMs: 100 },
    );
    const [{ expected }] = await sql.query<{ expected: string }>(`SELECT current_setting('autovacuum_vacuum_cost_delay') AS expected`, []);
    const during: string[] = [];
    let after: string | undefined;
    const session = async <T>(run: (s: typeof sql) => Promise<T>): Promise<T> => {
      const client = new pg.Client({ connectionString: server.config.databaseUrl });
      await client.connect();
      const delay = async () => (await client.query<{ d: string }>(`SELECT current_setting('vacuum_cost_delay') AS d`)).rows[0].d;
      try {
        return await run({
          query: async <R>(text: string, params: unknown[]) => {
            if (text.startsWith('VACUUM')) during.push(await delay());
            return (await client.query(text, params)).rows as R[];
          },
        });
      } finally {
        after = await delay();
        await client.end();
      }
    };
    const done = await maintain({ sql, session }, createLogger('silent'), false);
    expect(done.map((m) => m.table)).toContain('public.maintenance_paced');
    expect(new Set(during)).toEqual(new Set([expected]));
    expect(after).toBe('0');
    expect((await stats('maintenance_paced')).vacuumed).toBe(true);
  });
});
