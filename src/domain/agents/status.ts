// An agent's status in force across its tree of sub-agents. `own_status` is what the administrator gave it (shown as
// `status`); the column `status`, which every check of whether an agent may act reads, is the status in force (shown as
// `effective_status`): the worst of its own and its parent's (ACTIVE < SUSPENDED < BANNED), so a suspension reaches the
// whole subtree at once and lifting it restores exactly the sub-agents not suspended on their own. A provider's services
// are `suspended` while it is not ACTIVE.
import type { DbTx } from '../../db/database';
import type { Agent } from '../../db/generated/prisma/client';
import { perRequest } from '../../platform/loaders';
import type { Ctx } from '../context';

type Status = Agent['status'];

/** An arbitrary constant naming the advisory lock that makes status changes one at a time. */
const STATUS_LOCK = 7_135_203;

/**
 * Recomputes the status in force of `$1` and every agent below it, and writes those that differ. Each row
 * changed fires the agents' triggers: the principal caches of every instance forget the agent's callers,
 * its services' offers follow its status, and the read caches empty.
 */
const SPREAD_SQL = `
  WITH RECURSIVE tree AS (
    SELECT a.id, GREATEST(a.own_status, p.status) AS status FROM agents a LEFT JOIN agents p ON p.id = a.parent_id WHERE a.id = $1::uuid
    UNION
    SELECT c.id, GREATEST(c.own_status, tree.status) FROM agents c JOIN tree ON c.parent_id = tree.id
  )
  UPDATE agents a SET status = tree.status, updated_at = now()
  FROM tree JOIN agents was ON was.id = tree.id
  WHERE a.id = tree.id AND a.status <> tree.status
  RETURNING a.id, was.status::text AS "from", a.status::text AS "to"`;

export interface StatusMove {
  agentId: string;
  from: Status;
  to: Status;
}

/**
 * Sets `agentId`'s own status and spreads the status in force over its subtree, inside `tx`; answers the
 * own status it replaced and every agent whose status in force moved (the agent itself among them if it did).
 */
export async function setOwnStatus(tx: DbTx, agentId: string, ownStatus: Status): Promise<{ previous: Status; moves: StatusMove[] }> {
  // Two changes in one tree at once would each compute from a snapshot without the other's.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${STATUS_LOCK})`;
  const [was] = await tx.$queryRaw<{ ownStatus: Status }[]>`SELECT own_status::text AS "ownStatus" FROM agents WHERE id = ${agentId}::uuid FOR NO KEY UPDATE`;
  await tx.$executeRaw`UPDATE agents SET own_status = ${ownStatus}::"AgentStatus", updated_at = now() WHERE id = ${agentId}::uuid`;
  const moved = new Map<string, StatusMove>();
  // A sub-agent created meanwhile read its parent's status before this transaction locked the parent's
  // row (createSubAgent's FOR SHARE), so this statement waited for it to commit without seeing it; the
  // next one, with a fresh snapshot, finds it. Creations under a row this one changed wait for the commit
  // and read the new status. So the spread is done when a pass changes nothing.
  for (;;) {
    const rows = await tx.$queryRawUnsafe<{ id: string; from: Status; to: Status }[]>(SPREAD_SQL, agentId);
    if (!rows.length) break;
    for (const r of rows) moved.set(r.id, { agentId: r.id, from: moved.get(r.id)?.from ?? r.from, to: r.to });
  }
  const moves = [...moved.values()].filter((m) => m.from !== m.to);
  await servicesFollow(tx, moves);
  return { previous: was.ownStatus, moves };
}

/**
 * A provider's services follow its status in force, in the transaction that moved it: those it offers
 * (active, paused, inactive) become `suspended` when it stops being ACTIVE, keeping the status each had,
 * and get that status back when it is ACTIVE again. SUSPENDED to BANNED and back moves none.
 */
async function servicesFollow(tx: DbTx, moves: StatusMove[]): Promise<void> {
  const stopped = moves.filter((m) => m.from === 'ACTIVE').map((m) => m.agentId);
  const restored = moves.filter((m) => m.to === 'ACTIVE').map((m) => m.agentId);
  if (stopped.length) {
    await tx.$executeRaw`UPDATE services SET suspended_from = status, status = 'suspended', updated_at = now()
      WHERE agent_id = ANY(${stopped}::uuid[]) AND status IN ('active', 'paused', 'inactive')`;
  }
  if (restored.length) {
    await tx.$executeRaw`UPDATE services SET status = suspended_from, suspended_from = NULL, updated_at = now()
      WHERE agent_id = ANY(${restored}::uuid[]) AND status = 'suspended' AND suspended_from IS NOT NULL`;
  }
}

/**
 * For each agent whose status in force is worse than its own, the nearest ancestor whose own status is that one: the
 * one that imposes it. Walks up only from such agents, so a list of agents that all act as given reads nothing.
 */
const IMPOSERS_SQL = `
  WITH RECURSIVE up AS (
    SELECT a.id AS start, a.status AS effective, a.parent_id AS candidate FROM agents a
    WHERE a.id = ANY($1::uuid[]) AND a.status <> a.own_status
    UNION ALL
    SELECT up.start, up.effective, p.parent_id FROM up JOIN agents p ON p.id = up.candidate WHERE p.own_status <> up.effective
  )
  SELECT up.start::text AS id, up.candidate::text AS "imposedBy" FROM up JOIN agents p ON p.id = up.candidate WHERE p.own_status = up.effective`;

/** statusImposers for `ids` inside a transaction (or on any client): agent id → the ancestor imposing its status in force. */
export async function statusImposers(db: Pick<DbTx, '$queryRawUnsafe'>, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db.$queryRawUnsafe<{ id: string; imposedBy: string }[]>(IMPOSERS_SQL, [...new Set(ids)]);
  return new Map(rows.map((r) => [r.id, r.imposedBy]));
}

const imposers = perRequest(async (ctx: Ctx, ids: readonly string[]) => {
  const found = await statusImposers(ctx.db, ids);
  return ids.map((id) => found.get(id) ?? null);
});

/**
 * The ancestor that imposes `agent`'s status in force, or null when that status is the agent's own (the
 * agents a request resolves at once are read together, and only those under an ancestor's status are read).
 */
export async function effectiveStatusImposedBy(ctx: Ctx, agent: Pick<Agent, 'id' | 'status' | 'ownStatus'>): Promise<string | null> {
  if (agent.status === agent.ownStatus) return null;
  return imposers(ctx).load(agent.id);
}

/**
 * The status a new sub-agent of `parentId` starts with: its parent's status in force (its own is ACTIVE).
 * FOR SHARE makes a status change of the parent in flight finish first, or wait for this creation to
 * commit and then reach the new sub-agent (setOwnStatus).
 */
export async function statusForChildOf(tx: DbTx, parentId: string): Promise<Status> {
  const [parent] = await tx.$queryRaw<{ status: Status }[]>`SELECT status::text AS status FROM agents WHERE id = ${parentId}::uuid FOR SHARE`;
  return parent.status;
}
