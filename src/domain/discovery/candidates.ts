// Execute's candidates in auto mode: a ranking's first offers with where and how to call each.
import { isUuid } from '../../platform/ids';
import type { Ctx } from '../context';
import { meteredOf, type Metered } from '../payments/metering';
import { type Match, type Prefer, SCORE_COLUMN, type RankedOffer, scoreOffers } from './scoring';

/** A ranked provider with where and how to call it (execute's candidates). */
export interface CallableMatch extends Match {
  endpoint: string;
  signingSecret: string;
  /** The p95 latency measured (null until a call succeeded). */
  latencyP95Ms: number | null;
  /** How the service meters its calls (null: a price per call; payments/metering.ts). */
  metered: Metered | null;
}

/** Each callable offer as a row of `candidates`: the listing, then where and how to call its service. */
const CALLABLE_ROW = `json_build_array(top.listing, s.endpoint, s.signing_secret, s.latency_p95_ms, s.pricing_details->'metered')`;

/**
 * A ranking's first `limit` active offers of a capability (at most `$3` cents, when bounded) with each
 * service's endpoint, signing secret and p95 latency: what `execute` in auto mode needs, in one statement
 * (the ranking's index, then one service row per match).
 */
const callableSql = (prefer: Prefer, bounded: boolean) => `SELECT (
  SELECT COALESCE(json_agg(${CALLABLE_ROW}), '[]'::json)
  FROM (SELECT o.service_id, o.listing FROM service_offers o WHERE o.capability = $1 AND o.active${bounded ? ' AND o.cost_per_call <= $3' : ''}
        ORDER BY o.${SCORE_COLUMN[prefer]} DESC, o.cost_per_call ASC, o.service_id ASC LIMIT $2) AS top
  JOIN services s ON s.id = top.service_id AND s.status = 'active') AS candidates`;

/** The active offers of a capability by the services' keys or ids, however they rank. */
const NAMED_SQL = `SELECT (
  SELECT COALESCE(json_agg(${CALLABLE_ROW}), '[]'::json)
  FROM (SELECT o.service_id, o.listing FROM service_offers o JOIN services n ON n.id = o.service_id
        WHERE o.capability = $1 AND o.active AND (n.service_key = ANY($2::text[]) OR n.id = ANY($3::uuid[]))) AS top
  JOIN services s ON s.id = top.service_id AND s.status = 'active') AS candidates`;

/** CALLABLE_SQL's value: each offer as listed, with where and how to call its service. */
export type CallableRows = [RankedOffer, endpoint: string, signingSecret: string, latencyP95Ms: number | null, metered: unknown][];

async function candidatesOf(ctx: Pick<Ctx, 'services'>, text: string, params: unknown[], name: string): Promise<CallableRows> {
  const [{ candidates }] = await ctx.services.sql.query<{ candidates: CallableRows }>(text, params, name);
  return candidates;
}

/**
 * A capability's active, callable offers (at most `limit`, ranked by `prefer`, costing at most `maxCents`
 * when given), as stored (callableMatches scores them), from the read cache when a call asked for them a
 * moment ago (see rankProviders).
 */
export async function loadCallable(
  ctx: Pick<Ctx, 'services'>,
  capability: string,
  limit: number,
  prefer: Prefer = 'balanced',
  maxCents?: number,
): Promise<CallableRows> {
  const bounded = maxCents !== undefined;
  const key = `execute_candidates\n${capability}\n${limit}${prefer === 'balanced' ? '' : `\n${prefer}`}${bounded ? `\n<=${maxCents}` : ''}`;
  return ctx.services.readCache.read(key, () =>
    candidatesOf(
      ctx,
      callableSql(prefer, bounded),
      bounded ? [capability, limit, maxCents] : [capability, limit],
      `execute_candidates_${prefer}${bounded ? '_bounded' : ''}`,
    ),
  );
}

/** The active offers of a capability by the keys or ids of their services (`refs`), however they rank; kept like loadCallable's. */
export function loadNamed(ctx: Pick<Ctx, 'services'>, capability: string, refs: string[]): Promise<CallableRows> {
  if (!refs.length) return Promise.resolve([]);
  return ctx.services.readCache.read(`execute_named\n${capability}\n${refs.join('\n')}`, () =>
    candidatesOf(ctx, NAMED_SQL, [capability, refs, refs.filter(isUuid)], 'execute_named_candidates'),
  );
}

/** The cheapest price on offer for a capability, and whose it is (null: nobody offers it). */
export async function cheapestOffer(ctx: Pick<Ctx, 'services'>, capability: string): Promise<{ costCents: number; serviceKey: string } | null> {
  const [row] = await ctx.services.sql.query<{ cost_cents: number; service_key: string }>(
    `SELECT o.cost_per_call AS cost_cents, s.service_key FROM service_offers o JOIN services s ON s.id = o.service_id AND s.status = 'active'
     WHERE o.capability = $1 AND o.active ORDER BY o.cost_per_call, o.service_id LIMIT 1`,
    [capability],
    'execute_cheapest_offer',
  );
  return row ? { costCents: row.cost_cents, serviceKey: row.service_key } : null;
}

/** CALLABLE_SQL's rows scored as of now for `prefer`, best first. */
export function callableMatches(ctx: Pick<Ctx, 'services'>, candidates: CallableRows, prefer: Prefer = 'balanced'): CallableMatch[] {
  const where = new Map(
    candidates.map(([offer, endpoint, signingSecret, latencyP95Ms, metered]) => [
      offer[0],
      { endpoint, signingSecret, latencyP95Ms, metered: meteredOf({ metered }) },
    ]),
  );
  return scoreOffers(
    candidates.map(([offer]) => offer),
    prefer,
    ctx.services.clock.now(),
  ).map((m) => ({ ...m, ...where.get(m.serviceId)! }));
}
