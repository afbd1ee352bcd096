// On PostgreSQL, the run's rows removed at its end, so that every run measures a database of the same size.
import pg from 'pg';

/**
 * Deletes the benchmark's agents and what they own from PostgreSQL, then vacuums; quickly: children first, one statement
 * per table, so that the statement-level triggers (offer and skill counts, change notifications) run once
 * each rather than once per cascaded row. (A plain `DELETE FROM agents` once ran for an hour: each cascaded
 * skill set its forks' forked_from_id to null with a read of the whole table, until the migration
 * `skills_forked_from_index` gave that column its index.) Returns the seconds it took.
 */
export async function purgeAgents(databaseUrl: string, ids: string[]): Promise<number> {
  const started = Date.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('DELETE FROM skills WHERE agent_id = ANY($1::uuid[])', [ids]);
    await client.query('DELETE FROM service_offers o USING services s WHERE s.id = o.service_id AND s.agent_id = ANY($1::uuid[])', [ids]);
    await client.query('DELETE FROM services WHERE agent_id = ANY($1::uuid[])', [ids]);
    await client.query('DELETE FROM agents WHERE id = ANY($1::uuid[])', [ids]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    await client.end().catch(() => {});
    throw err;
  }
  try {
    // What autovacuum would do after such a delete, for a server that runs without it (this machine's
    // does): otherwise every run's dead rows stay in the tables and indexes the next run writes, and each
    // run measures a larger database than the last.
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end().catch(() => {});
  }
  return (Date.now() - started) / 1000;
}
