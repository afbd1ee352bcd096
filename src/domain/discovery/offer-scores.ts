// The stored offer scores (service_offers) kept fresh as time passes: freshness decays, so a background job
// re-scores the offers that drifted, and every instance forgets the rankings it kept.
import type { Services } from '../context';

/**
 * Re-scores, as of the application's clock, the offers whose stored scores drifted by 0.05 points (freshness decays;
 * see marketplace_rescore_at), skipping services being updated now (their update re-scores them), and tells every
 * instance to forget its kept rankings. Returns how many services were re-scored.
 */
export async function refreshOfferScores(services: Pick<Services, 'sql' | 'clock' | 'readCache'>, batch = 5000): Promise<number> {
  const now = services.clock.now();
  const due = await services.sql.query<{ service_id: string }>(`SELECT service_id FROM service_offers WHERE rescore_at <= $1 ORDER BY rescore_at LIMIT $2`, [
    now,
    batch,
  ]);
  if (!due.length) return 0;
  const ids = [...new Set(due.map((r) => r.service_id))];
  const [row] = await services.sql.query<{ written: number }>('SELECT marketplace_sync_offers($1::uuid[], $2::timestamptz, true) AS written', [ids, now]);
  // The head of a ranking may have changed: every instance forgets its kept rankings (read-cache.ts).
  if (row.written > 0) {
    await services.sql.query(`SELECT pg_notify('marketplace_changes', 'service_offers')`, []);
    services.readCache.flush();
  }
  return row.written;
}
