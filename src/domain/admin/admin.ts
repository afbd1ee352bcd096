// Administration: the status an agent is given (suspended and banned agents, and every sub-agent below them,
// are refused on every B endpoint at once, since every request reads the status in force) and platform-wide
// statistics.
import type { Agent } from '../../db/generated/prisma/client';
import { NotFound } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { requireAdmin } from '../agents/principal';
import { setOwnStatus, statusImposers } from '../agents/status';
import { recordAudit } from '../audit/audit';
import { page, type Page } from '../../platform/page';
import type { Ctx } from '../context';
import { transact } from '../events';

export const AGENT_STATUSES = ['ACTIVE', 'SUSPENDED', 'BANNED'] as const;

/**
 * Sets the status the administrator gives an agent (spec §3), stored as its own; its status in force and its subtree's
 * follow (agents/status.ts), and the answer shows both (`effectiveStatus`, `effectiveStatusImposedBy`). Each agent whose
 * status moved gets an `agent.updated` event, and the change is audited on the agent set.
 */
export async function setAgentStatus(ctx: Ctx, agentId: string, input: { status?: unknown; reason?: unknown }): Promise<Agent> {
  await requireAdmin(ctx);
  const checks = new Checks();
  if (input.status === undefined || input.status === null) checks.fail('status', 'is required');
  else if (!AGENT_STATUSES.includes(input.status as never)) checks.fail('status', `must be one of ${AGENT_STATUSES.join(', ')}`);
  const reason = checks.text('reason', input.reason, { max: 500 });
  checks.done();
  const agent = isUuid(agentId) ? await ctx.db.agent.findUnique({ where: { id: agentId }, select: { id: true } }) : null;
  if (!agent) throw new NotFound('agent', agentId);
  const ownStatus = input.status as Agent['status'];
  return transact(ctx, async (tx, emit) => {
    const { previous, moves } = await setOwnStatus(tx, agentId, ownStatus);
    const below = moves.filter((m) => m.agentId !== agentId);
    await recordAudit(tx, ctx, {
      agentId,
      action: 'status.changed',
      targetType: 'agent',
      targetId: agentId,
      details: { from: previous, to: ownStatus, reason: reason ?? null, sub_agents_changed: below.length },
    });
    const ids = [agentId, ...below.map((m) => m.agentId)];
    const [rows, imposed] = await Promise.all([
      tx.agent.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, ownStatus: true } }),
      statusImposers(tx, ids),
    ]);
    const now = new Map(rows.map((r) => [r.id, r]));
    const self = moves.find((m) => m.agentId === agentId);
    const changed = [...(previous !== ownStatus ? ['status'] : []), ...(self ? ['effective_status'] : [])];
    if (changed.length) {
      await emit(agentId, 'agent.updated', {
        agent_id: agentId,
        changed,
        status: ownStatus,
        previous_status: previous,
        effective_status: now.get(agentId)!.status,
        ...(self ? { previous_effective_status: self.from } : {}),
        effective_status_imposed_by: imposed.get(agentId) ?? null,
      });
    }
    for (const m of below) {
      await emit(m.agentId, 'agent.updated', {
        agent_id: m.agentId,
        changed: ['effective_status'],
        status: now.get(m.agentId)!.ownStatus,
        effective_status: m.to,
        previous_effective_status: m.from,
        effective_status_imposed_by: imposed.get(m.agentId) ?? null,
      });
    }
    return tx.agent.findUniqueOrThrow({ where: { id: agentId } });
  });
}

export interface PlatformStats {
  agents: { total: number; active: number; suspended: number; banned: number; subAgents: number };
  services: { total: number; active: number };
  subKeys: { total: number; live: number };
  executions: { total: number; last30d: number; succeeded: number; failed: number };
  disputes: { total: number; open: number };
  revenueCents: number;
  capabilities: number;
}

export async function adminStats(ctx: Ctx): Promise<PlatformStats> {
  await requireAdmin(ctx);
  const now = ctx.services.clock.now();
  const [row] = await ctx.services.sql.query<Record<string, string | number>>(
    `SELECT
      (SELECT count(*) FROM agents) AS agents,
      (SELECT count(*) FROM agents WHERE status = 'ACTIVE') AS agents_active,
      (SELECT count(*) FROM agents WHERE status = 'SUSPENDED') AS agents_suspended,
      (SELECT count(*) FROM agents WHERE status = 'BANNED') AS agents_banned,
      (SELECT count(*) FROM agents WHERE parent_id IS NOT NULL) AS sub_agents,
      (SELECT count(*) FROM services) AS services,
      (SELECT count(*) FROM services WHERE status = 'active') AS services_active,
      (SELECT count(*) FROM sub_keys) AS sub_keys,
      (SELECT count(*) FROM sub_keys WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1) AND (grace_ends_at IS NULL OR grace_ends_at > $1)) AS sub_keys_live,
      (SELECT count(*) FROM executions) AS executions,
      (SELECT count(*) FROM executions WHERE created_at > $1::timestamptz - interval '30 days') AS executions_30d,
      (SELECT count(*) FROM executions WHERE status = 'success') AS executions_ok,
      (SELECT count(*) FROM executions WHERE status = 'error') AS executions_failed,
      (SELECT count(*) FROM disputes) AS disputes,
      (SELECT count(*) FROM disputes WHERE status NOT IN ('resolved', 'rejected')) AS disputes_open,
      (SELECT coalesce(sum(amount_cents), 0) FROM transactions) AS revenue,
      (SELECT count(*) FROM capabilities) AS capabilities`,
    [now],
  );
  const n = (k: string) => Number(row[k]);
  return {
    agents: { total: n('agents'), active: n('agents_active'), suspended: n('agents_suspended'), banned: n('agents_banned'), subAgents: n('sub_agents') },
    services: { total: n('services'), active: n('services_active') },
    subKeys: { total: n('sub_keys'), live: n('sub_keys_live') },
    executions: { total: n('executions'), last30d: n('executions_30d'), succeeded: n('executions_ok'), failed: n('executions_failed') },
    disputes: { total: n('disputes'), open: n('disputes_open') },
    revenueCents: n('revenue'),
    capabilities: n('capabilities'),
  };
}

/**
 * Agents for the administrator, newest first: all, or those given the status `status`, or whose status in
 * force is `effectiveStatus`, or whose name starts with `name` (case-insensitive).
 */
export async function listAgents(ctx: Ctx, p: Page, filter: { status?: unknown; effectiveStatus?: unknown; name?: unknown }) {
  await requireAdmin(ctx);
  const checks = new Checks();
  const statusOf = (path: string, value: unknown) => {
    if (value === undefined || value === null) return undefined;
    if (!(AGENT_STATUSES as readonly unknown[]).includes(value)) checks.fail(path, `must be one of ${AGENT_STATUSES.join(', ')}`);
    return value as Agent['status'];
  };
  const status = statusOf('status', filter.status);
  const effective = statusOf('effectiveStatus', filter.effectiveStatus);
  const name = filter.name === undefined || filter.name === null ? undefined : String(filter.name);
  if (name !== undefined && name.length > 100) checks.fail('name', 'must be at most 100 characters');
  checks.done();
  const where = {
    ...(status ? { ownStatus: status } : {}),
    ...(effective ? { status: effective } : {}),
    ...(name ? { name: { startsWith: name, mode: 'insensitive' as const } } : {}),
  };
  return page(
    p,
    (q) => ctx.db.agent.findMany({ where, ...q }),
    () => ctx.db.agent.count({ where }),
  );
}

/** The state of one kind of delivery in the outbox. */
export interface OutboxKind {
  kind: string;
  /** Waiting for their next attempt, and how many of those are due now. */
  pending: number;
  due: number;
  /** Claimed by a dispatcher and being sent. */
  sending: number;
  /** Given up after the last attempt. */
  failed: number;
  /** The longest a due delivery has waited past its attempt time, in seconds (0: none due). */
  oldestDueSeconds: number;
}

export interface OutboxState {
  /** Events committed but not yet relayed to the live streams, and the oldest one's age in seconds. */
  unrelayed: number;
  oldestUnrelayedSeconds: number;
  kinds: OutboxKind[];
  checkedAt: Date;
}

/**
 * The outbox as the administrator watches it: what waits to be relayed to live streams, and each kind of
 * delivery by state. Read from the status index (delivered ones are never counted: their history grows
 * without bound), so it costs what is waiting, not what was ever sent.
 */
export async function outboxState(ctx: Ctx): Promise<OutboxState> {
  await requireAdmin(ctx);
  const now = ctx.services.clock.now();
  const [[relay], kinds] = await Promise.all([
    ctx.services.sql.query<{ unrelayed: string | number; oldest: Date | null }>(
      'SELECT count(*) AS unrelayed, min(created_at) AS oldest FROM outbox_unpublished',
      [],
    ),
    ctx.services.sql.query<{
      kind: string;
      pending: string | number;
      due: string | number;
      sending: string | number;
      failed: string | number;
      oldest_due: Date | null;
    }>(
      `SELECT kind,
         count(*) FILTER (WHERE status = 'pending') AS pending,
         count(*) FILTER (WHERE status = 'pending' AND next_attempt_at <= $1) AS due,
         count(*) FILTER (WHERE status = 'sending') AS sending,
         count(*) FILTER (WHERE status = 'failed') AS failed,
         min(next_attempt_at) FILTER (WHERE status = 'pending' AND next_attempt_at <= $1) AS oldest_due
       FROM deliveries WHERE status IN ('pending', 'sending', 'failed') GROUP BY kind ORDER BY kind`,
      [now],
    ),
  ]);
  const age = (at: Date | null) => (at ? Math.max(0, Math.round((now.getTime() - new Date(at).getTime()) / 1000)) : 0);
  return {
    unrelayed: Number(relay.unrelayed),
    oldestUnrelayedSeconds: age(relay.oldest),
    kinds: kinds.map((k) => ({
      kind: k.kind,
      pending: Number(k.pending),
      due: Number(k.due),
      sending: Number(k.sending),
      failed: Number(k.failed),
      oldestDueSeconds: age(k.oldest_due),
    })),
    checkedAt: now,
  };
}
