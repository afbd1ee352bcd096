// Vacuuming and analysing where the database does not do it itself. PGlite is PostgreSQL in single-user
// mode: it keeps the statistics autovacuum reads (pg_stat_user_tables) but runs no autovacuum launcher, and a
// PostgreSQL may run with `autovacuum = off`. Without vacuums, deleted and updated rows keep their space and
// their index entries, so a scan of a queue from its oldest end walks every row ever deleted from it and a
// long-lived server slows slowly; without analyses, plans are made for tables as they were; and with neither,
// transaction ids are never frozen, which PostgreSQL answers, after two billion transactions, by refusing
// writes. Each round applies autovacuum's own rules, read from the database's settings, to every table of
// the schema and vacuums or analyses those due, one statement at a time: on PGlite a statement holds the
// one session, and a vacuum of what a few seconds of traffic left is milliseconds. On PostgreSQL, where other
// sessions run beside it, the vacuums are paced as autovacuum paces its own (its cost delay and limit).
import type { Logger } from '../platform/logger';
import type { Database, SqlRunner } from './database';

/**
 * The tables due, by autovacuum's rules (the database's `autovacuum_*` settings): a vacuum when dead rows
 * exceed `vacuum_threshold + vacuum_scale_factor × rows`, when rows inserted since the last vacuum exceed
 * the insert threshold (a vacuum then marks their pages all-visible and freezes them), or when the oldest
 * unfrozen transaction id is older than `autovacuum_freeze_max_age`; an analysis when rows changed since
 * the last one exceed `analyze_threshold + analyze_scale_factor × rows`. Only where no autovacuum runs: on
 * the embedded database ($1), or on a PostgreSQL whose `autovacuum` is off (read every round: it is a
 * setting a reload changes). Most dead rows first.
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
 * autovacuum's pacing, for this session's VACUUM and ANALYZE: after each `vacuum_cost_limit` of page costs
 * a vacuum sleeps `vacuum_cost_delay`. A manual VACUUM runs unpaced by default (a delay of 0), and on a
 * machine of two cores an unpaced vacuum of what a busy half-minute inserted takes the database's CPU from
 * the calls it serves (docs/operations.md, Maintenance).
 */
const PACED = `SELECT set_config('vacuum_cost_delay', CASE WHEN current_setting('autovacuum_vacuum_cost_delay') LIKE '-1%' THEN current_setting('vacuum_cost_delay') ELSE current_setting('autovacuum_vacuum_cost_delay') END, false),
  set_config('vacuum_cost_limit', CASE WHEN current_setting('autovacuum_vacuum_cost_limit')::int > 0 THEN current_setting('autovacuum_vacuum_cost_limit') ELSE current_setting('vacuum_cost_limit') END, false)`;

/**
 * One round: vacuums or analyses each table due, one after the other; answers what it did. On the embedded
 * database it runs on the one session as it is (a paced vacuum would hold it while it sleeps); on PostgreSQL
 * on a connection of its own (`db.session`), paced as autovacuum is, and its settings reset before the
 * connection goes back. A table another session holds a conflicting lock on (another instance's vacuum, a
 * migration) is skipped (SKIP_LOCKED) and comes up again next round; a statement that fails is logged and
 * the round goes on.
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
