// Vacuuming and analysing where the database does not: PGlite runs no autovacuum launcher, and a PostgreSQL
// may run with `autovacuum = off`. Unvacuumed queues slow a long-lived server, unanalysed tables get stale plans,
// and unfrozen transaction ids end in refused writes. Each round applies autovacuum's own rules and settings,
// one statement at a time (docs/operations.md, Maintenance).
import type { Logger } from '../platform/logger';
import type { Database, SqlRunner } from './database';

/**
 * The tables due by autovacuum's rules and the database's `autovacuum_*` settings (dead rows, inserts since the
 * last vacuum, freeze age; changes since the last analysis), most dead rows first. Only where no autovacuum runs:
 * the embedded database ($1), or a PostgreSQL whose `autovacuum` is off (read every round: a reload changes it).
 */
const DUE = `WITH s AS (
    SELECT current_setting('autovacuum_vacuum_threshold')::float8 AS vt, current_setting('autovacuum_vacuum_scale_factor')::float8 AS vs,
      current_setting('autovacuum_vacuum_insert_threshold')::float8 AS it, current_setting('autovacuum_vacuum_insert_scale_factor')::float8 AS iscale,
      current_setting('autovacuum_analyze_threshold')::float8 AS at, current_setting('autovacuum_analyze_scale_factor')::float8 AS ascale,
      current_setting('autovacuum_freeze_max_age')::float8 AS freeze
    WHERE $1::boolean OR current_setting('autovacuum') = 'off'
  ), t AS (
    SELECT format('%I.%I', t.schemaname, t.relname) AS name, t.n_dead_tup AS dead,
      t.n_dead_tup > s.vt + s.vs * greatest(c.reltuples, 0)
        OR (s.it >= 0 AND t.n_ins_since_vacuum > s.it + s.iscale * greatest(c.reltuples, 0))
        OR age(c.relfrozenxid) > s.freeze AS to_vacuum,
      t.n_mod_since_analyze > s.at + s.ascale * greatest(c.reltuples, 0) AS to_analyze
    FROM s CROSS JOIN pg_stat_user_tables t JOIN pg_class c ON c.oid = t.relid
    WHERE t.schemaname = ANY (current_schemas(false))
  )
  SELECT name, dead::int AS dead, to_vacuum AS vacuum, to_analyze AS "analyze" FROM t WHERE to_vacuum OR to_analyze ORDER BY dead DESC, name`;

export interface Maintained {
  table: string;
  /** `vacuum` (with an analysis when one was due too) or `analyze`. */
  did: 'vacuum' | 'analyze';
  /** Dead rows the statistics counted before it. */
  dead: number;
  ms: number;
}

/**
 * autovacuum's pacing for this session's VACUUM and ANALYZE (sleep `vacuum_cost_delay` after each
 * `vacuum_cost_limit` of page costs): a manual VACUUM runs unpaced, taking the database's CPU from the calls it
 * serves (docs/operations.md, Maintenance).
 */
const PACED = `SELECT set_config('vacuum_cost_delay', CASE WHEN current_setting('autovacuum_vacuum_cost_delay') LIKE '-1%' THEN current_setting('vacuum_cost_delay') ELSE current_setting('autovacuum_vacuum_cost_delay') END, false),
  set_config('vacuum_cost_limit', CASE WHEN current_setting('autovacuum_vacuum_cost_limit')::int > 0 THEN current_setting('autovacuum_vacuum_cost_limit') ELSE current_setting('vacuum_cost_limit') END, false)`;

/**
 * One round: vacuums or analyses each table due in turn; answers what it did. On the embedded database, unpaced on
 * its one session (a paced vacuum would hold it while it sleeps); on PostgreSQL, paced on a session of its own, reset
 * before it goes back. A locked table is skipped (SKIP_LOCKED) until next round; a failed statement is logged.
 */
export async function maintain(db: { sql: SqlRunner; session?: Database['session'] }, log: Logger, embedded: boolean): Promise<Maintained[]> {
  const due = await db.sql.query<Due>(DUE, [embedded]);
  if (!due.length) return [];
  if (embedded || !db.session) return maintainOn(db.sql, due, log);
  return db.session(async (sql) => {
    await sql.query(PACED, []);
    try {
      return await maintainOn(sql, due, log);
    } finally {
      await sql.query('RESET vacuum_cost_delay', []);
      await sql.query('RESET vacuum_cost_limit', []);
    }
  });
}

interface Due {
  name: string;
  dead: number;
  vacuum: boolean;
  analyze: boolean;
}

async function maintainOn(sql: SqlRunner, due: Due[], log: Logger): Promise<Maintained[]> {
  const done: Maintained[] = [];
  for (const t of due) {
    const started = performance.now();
    // VACUUM runs outside a transaction: no parameters, so node-postgres sends it as a simple query.
    const statement = t.vacuum ? `VACUUM (SKIP_LOCKED${t.analyze ? ', ANALYZE' : ''}) ${t.name}` : `ANALYZE (SKIP_LOCKED) ${t.name}`;
    try {
      await sql.query(statement, []);
    } catch (err) {
      log.warn({ table: t.name, err: (err as Error).message }, 'database maintenance failed');
      continue;
    }
    const ms = Math.round((performance.now() - started) * 10) / 10;
    done.push({ table: t.name, did: t.vacuum ? 'vacuum' : 'analyze', dead: t.dead, ms });
    log.debug({ table: t.name, dead: t.dead, ms }, t.vacuum ? 'vacuumed' : 'analysed');
  }
  return done;
}
