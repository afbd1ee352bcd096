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
