// A service's analytics for its owner (a beta feature: Trusted and above): its calls over a window of days
// from the execution ledger — every attempt the marketplace made of it, whatever became of the execution —
// by day and by capability, with what callers were charged for its successes and its latency.
import { NotFound } from '../../platform/errors';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { requireBeta } from '../reputation/privileges';

export const ANALYTICS_DEFAULT_DAYS = 30;
export const ANALYTICS_MAX_DAYS = 90;

export interface CallCounts {
  calls: number;
  successes: number;
  failures: number;
  /** What callers were charged for the calls it answered, integer cents. */
  chargedCents: number;
}

export interface ServiceAnalytics {
  serviceKey: string;
  days: number;
  since: Date;
  totals: CallCounts & { callers: number; latencyP50Ms: number | null; latencyP95Ms: number | null; failureReasons: { reason: string; count: number }[] };
  /** Every UTC day of the window with a call, oldest first. */
  byDay: (CallCounts & { day: string })[];
  /** Each capability it was called for, most calls first. */
  byCapability: (CallCounts & { capability: string })[];
}

interface Row {
  day: Date | string;
  capability: string;
  calls: string | number;
  successes: string | number;
  failures: string | number;
  charged: string | number | null;
}

const counts = (r: Pick<Row, 'calls' | 'successes' | 'failures' | 'charged'>): CallCounts => ({
  calls: Number(r.calls),
  successes: Number(r.successes),
  failures: Number(r.failures),
  chargedCents: Number(r.charged ?? 0),
});

const add = (a: CallCounts, b: CallCounts): CallCounts => ({
  calls: a.calls + b.calls,
  successes: a.successes + b.successes,
  failures: a.failures + b.failures,
  chargedCents: a.chargedCents + b.chargedCents,
});

const NONE: CallCounts = { calls: 0, successes: 0, failures: 0, chargedCents: 0 };

/**
 * The analytics of one of the caller's services (another's, or a removed one, is not found; below Trusted, 403) over
 * the last `days` days (1-90, default 30). Bounded by the window: one grouped read of the attempts (days × capabilities
 * rows at most) and one of latencies and callers.
 */
export async function serviceAnalytics(ctx: Ctx, serviceKey: string, days?: number | null): Promise<ServiceAnalytics> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const window = checks.integer('days', days, 1, ANALYTICS_MAX_DAYS) ?? ANALYTICS_DEFAULT_DAYS;
  checks.done();
  const service = await ctx.db.service.findFirst({ where: { serviceKey, agentId: me.id, status: { not: 'removed' } }, select: { id: true, serviceKey: true } });
  if (!service) throw new NotFound('service', serviceKey);
  requireBeta(me, 'service_analytics');
  const since = new Date(ctx.services.clock.now().getTime() - window * 86_400_000);
  const sql = ctx.services.sql;
  const [rows, [overall], reasons] = await Promise.all([
    sql.query<Row>(
      `SELECT date_trunc('day', a.created_at AT TIME ZONE 'UTC')::date AS day, e.capability,
         count(*) AS calls, count(*) FILTER (WHERE a.outcome = 'success') AS successes, count(*) FILTER (WHERE a.outcome = 'failure') AS failures,
         sum(e.cost_cents) FILTER (WHERE a.outcome = 'success' AND e.service_id = a.service_id) AS charged
       FROM execution_attempts a JOIN executions e ON e.id = a.execution_id
       WHERE a.service_id = $1::uuid AND a.created_at >= $2
       GROUP BY 1, 2`,
      [service.id, since],
    ),
    sql.query<{ callers: string | number; p50: number | null; p95: number | null }>(
      `SELECT count(DISTINCT e.agent_id) AS callers,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY a.latency_ms) FILTER (WHERE a.outcome = 'success') AS p50,
         percentile_disc(0.95) WITHIN GROUP (ORDER BY a.latency_ms) FILTER (WHERE a.outcome = 'success') AS p95
       FROM execution_attempts a JOIN executions e ON e.id = a.execution_id
       WHERE a.service_id = $1::uuid AND a.created_at >= $2`,
      [service.id, since],
    ),
    sql.query<{ reason: string; count: string | number }>(
      `SELECT COALESCE(reason, 'unknown') AS reason, count(*) AS count FROM execution_attempts
       WHERE service_id = $1::uuid AND created_at >= $2 AND outcome = 'failure' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20`,
      [service.id, since],
    ),
  ]);
  const dayOf = (d: Date | string) => (typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10));
  const byDay = new Map<string, CallCounts>();
  const byCapability = new Map<string, CallCounts>();
  let totals = NONE;
  for (const r of rows) {
    const c = counts(r);
    byDay.set(dayOf(r.day), add(byDay.get(dayOf(r.day)) ?? NONE, c));
    byCapability.set(r.capability, add(byCapability.get(r.capability) ?? NONE, c));
    totals = add(totals, c);
  }
  return {
    serviceKey: service.serviceKey,
    days: window,
    since,
    totals: {
      ...totals,
      callers: Number(overall?.callers ?? 0),
      latencyP50Ms: overall?.p50 ?? null,
      latencyP95Ms: overall?.p95 ?? null,
      failureReasons: reasons.map((r) => ({ reason: r.reason, count: Number(r.count) })),
    },
    byDay: [...byDay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, c]) => ({ day, ...c })),
    byCapability: [...byCapability].sort(([a, x], [b, y]) => y.calls - x.calls || (a < b ? -1 : 1)).map(([capability, c]) => ({ capability, ...c })),
  };
}
