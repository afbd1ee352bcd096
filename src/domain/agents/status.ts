// An agent's status in force across its tree of sub-agents. Each agent keeps the status the administrator
// set on it (`own_status`); `status`, which everything that checks whether an agent may act reads (the
// principal lookup, sub-key verification, the offers that resolve and execute rank, listings), is the
// worst of its own and its parent's, so a suspension or ban reaches the whole subtree at once and lifting
// it restores exactly the sub-agents that are not suspended on their own. The enum's order (ACTIVE <
// SUSPENDED < BANNED) makes the worst the greatest.
import type { DbTx } from '../../db/database';
import type { Agent } from '../../db/generated/prisma/client';

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
  return { previous: was.ownStatus, moves: [...moved.values()].filter((m) => m.from !== m.to) };
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
