// Reputation: a score of 0-100 moved only by recorded events, and the tier derived from it. Each gain is traced to
// something that cost its source (a call paid from outside the agent's family, a delegation answered) or, for the
// costless spark reward, its own daily cap; each source rewards once, and no agent gains more than DAILY_GAIN_CAP in
// 24 hours (docs/collaboration.md, "Reputation that cannot be farmed").
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
  {
    tier: 'newcomer',
    name: 'Newcomer',
    min: 0,
    max: 30,
    subKeyLimit: 5,
    memory: { stores: 5, batch: 100, entryBytes: 16 * 1024 },
    privileges: ['basic API access', '5 sub-keys'],
  },
  {
    tier: 'contributor',
    name: 'Contributor',
    min: 31,
    max: 60,
    subKeyLimit: 20,
    memory: { stores: 20, batch: 500, entryBytes: 64 * 1024 },
    privileges: ['priority resolution', '20 sub-keys'],
  },
  {
    tier: 'trusted',
    name: 'Trusted',
    min: 61,
    max: 85,
    subKeyLimit: 50,
    memory: { stores: 50, batch: 1000, entryBytes: 256 * 1024 },
    privileges: ['beta features', '50 sub-keys'],
  },
  {
    tier: 'star',
    name: 'Star',
    min: 86,
    max: 100,
    subKeyLimit: null,
    memory: { stores: 200, batch: 1000, entryBytes: 512 * 1024 },
    privileges: ['showcase listing', 'unlimited sub-keys'],
  },
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

/**
 * The most reputation an agent gains in any 24 hours (GAIN_WINDOW_MS), all sources together: a newcomer
 * (20) needs at least a week of gains to become a star (86). Losses are not capped.
 */
export const DAILY_GAIN_CAP = 10;
export const GAIN_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * SQL of what the agent `agent` (an expression) has gained since `since` (a placeholder): its positive
 * events with a source (the registration grant has none, and is no gain), read from the index on
 * (agent_id, created_at).
 */
export const gainedSince = (agent: string, since: string) =>
  `(SELECT COALESCE(sum(g.delta), 0)::int FROM reputation_events g WHERE g.agent_id = ${agent} AND g.created_at > ${since} AND g.delta > 0 AND g.source_type IS NOT NULL)`;

export interface ReputationChange {
  agentId: string;
  delta: number;
  reason: string;
  /** What the change is traced to (`task`, `spark`, `dispute`, …); every gain has one. */
  sourceType: string;
  sourceId?: string;
  /** When it happens (the marketplace's clock): the event's time, and the end of the gain window. */
  at: Date;
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
 * Applies a change inside the caller's transaction: locks the agent row (so the daily cap is exact under concurrent
 * gains), caps a gain at DAILY_GAIN_CAP's remainder, clamps to 0-100, records the delta applied and emits
 * `reputation.changed`. Returns the event, or undefined when the score did not move.
 */
export async function applyReputation(db: DbTx, emit: Emit, change: ReputationChange): Promise<MarketplaceEvent | undefined> {
  const [row] = await db.$queryRaw<{ reputation: number }[]>`SELECT reputation FROM agents WHERE id = ${change.agentId}::uuid FOR NO KEY UPDATE`;
  if (!row) return undefined;
  let delta = change.delta;
  let reason = change.reason;
  if (delta > 0) {
    const since = new Date(change.at.getTime() - GAIN_WINDOW_MS);
    const [{ gained }] = await db.$queryRawUnsafe<{ gained: number }[]>(`SELECT ${gainedSince('$1::uuid', '$2')} AS gained`, change.agentId, since);
    const room = Math.max(0, DAILY_GAIN_CAP - gained);
    if (room < delta) {
      delta = room;
      reason = `${reason} (capped: at most ${DAILY_GAIN_CAP} a day)`;
    }
  }
  const { after, applied, data } = reputationMove(change.agentId, row.reputation, delta, reason);
  await db.reputationEvent.create({
    data: {
      agentId: change.agentId,
      delta: applied,
      scoreAfter: after,
      reason,
      sourceType: change.sourceType,
      sourceId: change.sourceId,
      createdAt: change.at,
    },
  });
  if (applied === 0) return undefined;
  await db.agent.update({ where: { id: change.agentId }, data: { reputation: after } });
  return emit(change.agentId, 'reputation.changed', data);
}

/**
 * The root of each agent's tree of sub-agents (itself for a top-level agent). Agents with one root are one
 * family, an owner and its sub-agents at any depth: what they do for each other costs the family nothing,
 * so it earns none of them reputation.
 */
export async function familyRoots(db: Pick<DbTx, '$queryRawUnsafe'>, agentIds: string[]): Promise<Map<string, string>> {
  return rootsOf(await db.$queryRawUnsafe<FamilyRoot[]>(FAMILY_ROOTS, agentIds));
}

/** familyRoots' statement: its one parameter is the agents' ids (uuid[]); an unknown id has no row. */
export const FAMILY_ROOTS = `
  WITH RECURSIVE up AS (
    SELECT id, parent_id, id AS origin, 0 AS depth FROM agents WHERE id = ANY($1::uuid[])
    UNION ALL SELECT a.id, a.parent_id, up.origin, up.depth + 1 FROM agents a JOIN up ON a.id = up.parent_id WHERE up.depth < 32
  )
  SELECT DISTINCT ON (origin) origin::text AS origin, id::text AS root FROM up ORDER BY origin, depth DESC`;

export interface FamilyRoot {
  origin: string;
  root: string;
}

export const rootsOf = (rows: FamilyRoot[]) => new Map(rows.map((r) => [r.origin, r.root]));

/** Whether two agents are one family (familyRoots); an agent unknown to the database is in none. */
export async function sameFamily(db: Pick<DbTx, '$queryRawUnsafe'>, a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const roots = await familyRoots(db, [a, b]);
  return roots.has(a) && roots.get(a) === roots.get(b);
}
