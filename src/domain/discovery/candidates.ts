// Execute's candidates in auto mode: the balanced ranking's first offers with where and how to call each.
import type { Ctx } from '../context';
import { type Match, SCORE_COLUMN, type RankedOffer, scoreOffers } from './scoring';

/** A ranked provider with where and how to call it (execute's candidates). */
export interface CallableMatch extends Match {
  endpoint: string;
  signingSecret: string;
}

/**
 * The balanced ranking's first `limit` active offers of a capability with each service's endpoint and
 * signing secret: what `execute` in auto mode needs, in one statement (the ranking's index, then one
 * service row per match).
 */
const CALLABLE_SQL = `SELECT (
  SELECT COALESCE(json_agg(json_build_array(top.listing, s.endpoint, s.signing_secret)), '[]'::json)
  FROM (SELECT o.service_id, o.listing FROM service_offers o WHERE o.capability = $1 AND o.active
        ORDER BY o.${SCORE_COLUMN.balanced} DESC, o.cost_per_call ASC, o.service_id ASC LIMIT $2) AS top
  JOIN services s ON s.id = top.service_id AND s.status = 'active') AS candidates`;

/** CALLABLE_SQL's value: each offer as listed, with where and how to call its service. */
export type CallableRows = [RankedOffer, endpoint: string, signingSecret: string][];

/**
 * A capability's active, callable offers (at most `limit`), as stored (callableMatches scores them), from
 * the read cache when a call asked for them a moment ago (see rankProviders).
 */
export async function loadCallable(ctx: Pick<Ctx, 'services'>, capability: string, limit: number): Promise<CallableRows> {
  return ctx.services.readCache.read(`execute_candidates\n${capability}\n${limit}`, async () => {
    const [{ candidates }] = await ctx.services.sql.query<{ candidates: CallableRows }>(CALLABLE_SQL, [capability, limit], 'execute_candidates');
    return candidates;
  });
}

/** Scores CALLABLE_SQL's rows as of now, best first. */
export function callableMatches(ctx: Pick<Ctx, 'services'>, candidates: CallableRows): CallableMatch[] {
  const where = new Map(candidates.map(([offer, endpoint, signingSecret]) => [offer[0], { endpoint, signingSecret }]));
  return scoreOffers(
    candidates.map(([offer]) => offer),
    'balanced',
    ctx.services.clock.now(),
  ).map((m) => ({ ...m, ...where.get(m.serviceId)! }));
}
