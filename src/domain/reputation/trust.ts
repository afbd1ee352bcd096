// An agent's trust (the built-in `trust-score` capability): its reputation, how reliably its services
// answered, and the disputes decided against it, in one 0-100 figure with its parts.
import type { DbTx } from '../../db/database';
import { NotFound } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { tierOf } from './reputation';

/** Weights of the three parts; they sum to 1. */
export const TRUST_WEIGHTS = { reputation: 0.5, reliability: 0.3, disputes: 0.2 } as const;

export interface TrustScore {
  agent_id: string;
  trust_score: number;
  tier: string;
  reputation: number;
  reliability: { calls: number; successes: number; success_rate: number };
  disputes: { total: number; lost: number; open: number };
  reputation_events: { count: number; net_last_30_days: number };
  weights: typeof TRUST_WEIGHTS;
}

/**
 * reputation/100 × 0.5 + (successes + 1)/(calls + 2) × 0.3 + 1/(1 + disputes lost) × 0.2, as 0-100. A dispute
 * is lost when it was resolved with a refund to the other side.
 */
export async function trustScore(db: DbTx, input: { agent_id?: unknown }, now: Date): Promise<TrustScore> {
  const raw = input.agent_id;
  const checks = new Checks();
  if (raw === undefined || raw === null) checks.fail('agent_id', 'is required');
  else if (!isUuid(raw)) checks.fail('agent_id', 'must be an agent id (UUID)');
  checks.done();
  const { name: _name, ...score } = await trustRecord(db, raw as string, now);
  return score;
}

/** An agent's public record: name, reputation, tier and trust (spec §4.14 `getReputation`); 404 for an unknown agent. */
export async function agentReputation(db: DbTx, agentId: string, now: Date): Promise<TrustScore & { name: string }> {
  const checks = new Checks();
  if (!isUuid(agentId)) checks.fail('agentId', 'must be an agent id (UUID)');
  checks.done();
  return trustRecord(db, agentId, now);
}

async function trustRecord(db: DbTx, agentId: string, now: Date): Promise<TrustScore & { name: string }> {
  const agent = await db.agent.findUnique({ where: { id: agentId }, select: { id: true, name: true, reputation: true } });
  if (!agent) throw new NotFound('agent', agentId);
  const since = new Date(now.getTime() - 30 * 86_400_000);
  const [calls, disputes, events] = await Promise.all([
    db.service.aggregate({ where: { agentId }, _sum: { successCount: true, failureCount: true } }),
    db.dispute.groupBy({ by: ['status'], where: { providerAgentId: agentId }, _count: { _all: true }, _sum: { refundCents: true } }),
    db.reputationEvent.aggregate({ where: { agentId, createdAt: { gte: since } }, _sum: { delta: true }, _count: { _all: true } }),
  ]);
  const successes = calls._sum.successCount ?? 0;
  const total = successes + (calls._sum.failureCount ?? 0);
  const lost = await db.dispute.count({ where: { providerAgentId: agentId, status: 'resolved', refundCents: { gt: 0 } } });
  const reliability = (successes + 1) / (total + 2);
  const score = 100 * (TRUST_WEIGHTS.reputation * (agent.reputation / 100) + TRUST_WEIGHTS.reliability * reliability + TRUST_WEIGHTS.disputes / (1 + lost));
  const count = (status: string) => disputes.find((d) => d.status === status)?._count._all ?? 0;
  return {
    name: agent.name,
    agent_id: agentId,
    trust_score: Math.round(score * 10) / 10,
    tier: tierOf(agent.reputation),
    reputation: agent.reputation,
    reliability: { calls: total, successes, success_rate: Math.round(reliability * 1000) / 1000 },
    disputes: { total: disputes.reduce((n, d) => n + d._count._all, 0), lost, open: count('open') + count('under_review') },
    reputation_events: { count: events._count._all, net_last_30_days: events._sum.delta ?? 0 },
    weights: TRUST_WEIGHTS,
  };
}

/** One day of an agent's reputation: its score at the day's end, and the changes that day. */
export interface ReputationDay {
  day: string;
  score: number;
  net: number;
  events: number;
}

/**
 * An agent's public reputation history: for each UTC day of the last `days` (1-365) on which its score
 * moved, the score it ended the day at and the day's net change and number of changes. What moved it (the
 * calls and disputes) stays the agent's own (`myReputation`); the series is what anyone may see.
 */
export async function reputationHistory(db: DbTx, agentId: string, days: number, now: Date): Promise<ReputationDay[]> {
  const checks = new Checks();
  if (!Number.isInteger(days) || days < 1 || days > 365) checks.fail('days', 'must be an integer from 1 to 365');
  checks.done();
  const since = new Date(now.getTime() - days * 86_400_000);
  const rows = await db.$queryRaw<{ day: Date | string; score: number; net: bigint | number; events: bigint | number }[]>`
    SELECT d.day, d.net, d.events,
      (SELECT e.score_after FROM reputation_events e
        WHERE e.agent_id = ${agentId}::uuid AND e.created_at >= d.day AND e.created_at < d.day + interval '1 day'
        ORDER BY e.created_at DESC, e.id DESC LIMIT 1) AS score
    FROM (
      SELECT date_trunc('day', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, sum(delta) AS net, count(*) AS events
      FROM reputation_events WHERE agent_id = ${agentId}::uuid AND created_at >= ${since}
      GROUP BY 1
    ) d
    ORDER BY d.day`;
  return rows.map((r) => ({
    day: (r.day instanceof Date ? r.day.toISOString() : String(r.day)).slice(0, 10),
    score: Number(r.score),
    net: Number(r.net),
    events: Number(r.events),
  }));
}
