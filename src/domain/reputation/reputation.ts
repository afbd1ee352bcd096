// Reputation: a score of 0-100 moved only by recorded events, and the tier derived from it.
import type { DbTx } from '../../db/database';
import type { Emit, MarketplaceEvent } from '../events';

export type Tier = 'newcomer' | 'contributor' | 'trusted' | 'star';

export interface TierDefinition {
  tier: Tier;
  name: string;
  min: number;
  max: number;
  /** Live sub-keys an agent of this tier may hold; null is unlimited. */
  subKeyLimit: number | null;
  /** Memory stores an agent of this tier may own, entries per write, and bytes of one entry's JSON value. */
  memory: { stores: number; batch: number; entryBytes: number };
  privileges: string[];
}

export const TIERS: TierDefinition[] = [
  { tier: 'newcomer', name: 'Newcomer', min: 0, max: 30, subKeyLimit: 5, memory: { stores: 5, batch: 100, entryBytes: 16 * 1024 }, privileges: ['basic API access', '5 sub-keys'] },
  { tier: 'contributor', name: 'Contributor', min: 31, max: 60, subKeyLimit: 20, memory: { stores: 20, batch: 500, entryBytes: 64 * 1024 }, privileges: ['priority resolution', '20 sub-keys'] },
  { tier: 'trusted', name: 'Trusted', min: 61, max: 85, subKeyLimit: 50, memory: { stores: 50, batch: 1000, entryBytes: 256 * 1024 }, privileges: ['beta features', '50 sub-keys'] },
  { tier: 'star', name: 'Star', min: 86, max: 100, subKeyLimit: null, memory: { stores: 200, batch: 1000, entryBytes: 512 * 1024 }, privileges: ['showcase listing', 'unlimited sub-keys'] },
];

/** Reputation's range, 0-100: every change is clamped to it. */
export function clampReputation(reputation: number): number {
  return Math.max(0, Math.min(100, reputation));
}

export function tierOf(reputation: number): Tier {
  return (TIERS.find((t) => reputation >= t.min && reputation <= t.max) ?? TIERS[0]).tier;
}

export function tierDefinition(reputation: number): TierDefinition {
  return TIERS.find((t) => t.tier === tierOf(reputation))!;
}

export interface ReputationChange {
  agentId: string;
  delta: number;
  reason: string;
  sourceType?: string;
  sourceId?: string;
}

/**
 * What a change of `delta` does to `previous`: the reputation after it (clamped), the delta actually
 * applied, and the data of its `reputation.changed` event.
 */
export function reputationMove(agentId: string, previous: number, delta: number, reason: string) {
  const after = clampReputation(previous + delta);
  const applied = after - previous;
  return {
    after,
    applied,
    data: { agent_id: agentId, delta: applied, reputation: after, previous, tier: tierOf(after), previous_tier: tierOf(previous), reason },
  };
}

/**
 * Applies a change inside the caller's transaction: locks the agent row, clamps to 0-100, records the
 * event with the delta actually applied, and emits `reputation.changed` in the same transaction. Returns
 * the event, or undefined when the score did not move.
 */
export async function applyReputation(db: DbTx, emit: Emit, change: ReputationChange): Promise<MarketplaceEvent | undefined> {
  const [row] = await db.$queryRaw<{ reputation: number }[]>`SELECT reputation FROM agents WHERE id = ${change.agentId}::uuid FOR NO KEY UPDATE`;
  if (!row) return undefined;
  const { after, applied, data } = reputationMove(change.agentId, row.reputation, change.delta, change.reason);
  await db.reputationEvent.create({
    data: { agentId: change.agentId, delta: applied, scoreAfter: after, reason: change.reason, sourceType: change.sourceType, sourceId: change.sourceId },
  });
  if (applied === 0) return undefined;
  await db.agent.update({ where: { id: change.agentId }, data: { reputation: after } });
  return emit(change.agentId, 'reputation.changed', data);
}
