// The caller's own records: usage, executions, transactions, analytics, disputes, reputation, audit
// log and sparks (the /agents/me/* and /my/* listings).
import type { ExecutionAttempt } from '../../db/generated/prisma/client';
import { allEach, perRequest } from '../../platform/loaders';
import { ValidationFailed } from '../../platform/errors';
import { page, type Page } from '../../platform/page';
import { requireAgent } from './principal';
import type { Ctx } from '../context';
import { tierOf } from '../reputation/reputation';

export async function myUsage(ctx: Ctx, days = 30) {
  const me = await requireAgent(ctx);
  const since = new Date(ctx.services.clock.now().getTime() - days * 86_400_000).toISOString().slice(0, 10);
  const [rows, executions] = await Promise.all([
    ctx.services.sql.query<{ endpoint: string; day: Date | string; count: number }>(
      `SELECT endpoint, day, count FROM usage_counters WHERE agent_id = $1::uuid AND day >= $2::date`,
      [me.id, since],
    ),
    ctx.db.execution.count({ where: { agentId: me.id } }),
  ]);
  const byEndpoint = new Map<string, number>();
  const byDay = new Map<string, number>();
  const add = (endpoint: string, day: string, count: number) => {
    byEndpoint.set(endpoint, (byEndpoint.get(endpoint) ?? 0) + count);
    byDay.set(day, (byDay.get(day) ?? 0) + count);
  };
  for (const r of rows) add(r.endpoint, typeof r.day === 'string' ? r.day.slice(0, 10) : r.day.toISOString().slice(0, 10), r.count);
  for (const p of ctx.services.usage.pendingFor(me.id)) if (p.day >= since) add(p.endpoint, p.day, p.count);
  const endpoints = [...byEndpoint]
    .map(([endpoint, requests]) => ({ endpoint, requests }))
    .sort((a, b) => b.requests - a.requests || a.endpoint.localeCompare(b.endpoint));
  return {
    days,
    totalRequests: endpoints.reduce((n, e) => n + e.requests, 0),
    totalExecutions: executions,
    endpoints,
    byDay: [...byDay].map(([day, requests]) => ({ day, requests })).sort((a, b) => a.day.localeCompare(b.day)),
  };
}

export async function myExecutions(ctx: Ctx, p: Page) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  return page(
    p,
    (q) => ctx.db.execution.findMany({ where, ...q }),
    () => ctx.db.execution.count({ where }),
  );
}

export async function myTransactions(ctx: Ctx, p: Page) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  return page(
    p,
    (q) => ctx.db.transaction.findMany({ where, ...q }),
    () => ctx.db.transaction.count({ where }),
  );
}

export async function myDisputes(ctx: Ctx, p: Page) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  return page(
    p,
    (q) => ctx.db.dispute.findMany({ where, ...q }),
    () => ctx.db.dispute.count({ where }),
  );
}

export async function mySparks(ctx: Ctx, p: Page) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  return page(
    p,
    (q) => ctx.db.spark.findMany({ where, ...q }),
    () => ctx.db.spark.count({ where }),
  );
}

export async function myReputation(ctx: Ctx, p: Page) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  const { items, total } = await page(
    p,
    (q) => ctx.db.reputationEvent.findMany({ where, ...q }),
    () => ctx.db.reputationEvent.count({ where }),
  );
  return { reputation: me.reputation, tier: tierOf(me.reputation), items, total };
}

export async function myAuditLog(ctx: Ctx, p: Page) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  return page(
    p,
    (q) => ctx.db.auditEvent.findMany({ where, ...q }),
    () => ctx.db.auditEvent.count({ where }),
  );
}

/**
 * Execution trends by day, the most used capabilities, cost by capability and performance (success rate,
 * latency percentiles) over `days`, all aggregated in the database.
 */
export async function myAnalytics(ctx: Ctx, days = 30) {
  const me = await requireAgent(ctx);
  const since = new Date(ctx.services.clock.now().getTime() - days * 86_400_000);
  const sql = ctx.services.sql;
  const [trends, capabilities, [totals]] = await Promise.all([
    sql.query<{ day: Date | string; executions: string | number; succeeded: string | number; failed: string | number; cost: string | number }>(
      `SELECT date_trunc('day', created_at AT TIME ZONE 'UTC')::date AS day, count(*) AS executions,
         count(*) FILTER (WHERE status = 'success') AS succeeded, count(*) FILTER (WHERE status = 'error') AS failed,
         coalesce(sum(cost_cents), 0) AS cost
       FROM executions WHERE agent_id = $1::uuid AND created_at >= $2 GROUP BY 1 ORDER BY 1`,
      [me.id, since],
    ),
    sql.query<{ capability: string; executions: string | number; cost: string | number }>(
      `SELECT capability, count(*) AS executions, coalesce(sum(cost_cents), 0) AS cost
       FROM executions WHERE agent_id = $1::uuid AND created_at >= $2 GROUP BY capability ORDER BY capability LIMIT 200`,
      [me.id, since],
    ),
    sql.query<{ executions: string | number; ok: string | number; cost: string | number; p50: number | null; p95: number | null; p99: number | null }>(
      `SELECT count(*) AS executions, count(*) FILTER (WHERE status = 'success') AS ok, coalesce(sum(cost_cents), 0) AS cost,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
         percentile_disc(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95,
         percentile_disc(0.99) WITHIN GROUP (ORDER BY latency_ms) AS p99
       FROM executions WHERE agent_id = $1::uuid AND created_at >= $2`,
      [me.id, since],
    ),
  ]);
  const day = (d: Date | string) => (typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10));
  const uses = capabilities.map((c) => ({ capability: c.capability, executions: Number(c.executions), costCents: Number(c.cost) }));
  const executions = Number(totals.executions);
  return {
    days,
    trends: trends.map((t) => ({
      day: day(t.day),
      executions: Number(t.executions),
      succeeded: Number(t.succeeded),
      failed: Number(t.failed),
      costCents: Number(t.cost),
    })),
    topCapabilities: [...uses].sort((a, b) => b.executions - a.executions || a.capability.localeCompare(b.capability)).slice(0, 10),
    costBreakdown: [...uses].sort((a, b) => b.costCents - a.costCents || a.capability.localeCompare(b.capability)),
    totalCostCents: Number(totals.cost),
    performance: {
      executions,
      successRate: executions ? Math.round((Number(totals.ok) / executions) * 10_000) / 10_000 : null,
      p50Ms: totals.p50,
      p95Ms: totals.p95,
      p99Ms: totals.p99,
    },
  };
}

const attempts = perRequest(async (ctx: Ctx, executionIds: readonly string[]) => {
  const rows = await ctx.db.executionAttempt.findMany({
    where: { executionId: { in: [...new Set(executionIds)] } },
    orderBy: [{ executionId: 'asc' }, { ordinal: 'asc' }],
  });
  return allEach(executionIds, rows, (r) => r.executionId);
});

/**
 * An execution's attempts, first first (the caller reads only executions it owns); the attempts of every
 * execution a request reads at once come in one statement.
 */
export function executionAttempts(ctx: Ctx, executionId: string): Promise<ExecutionAttempt[]> {
  return attempts(ctx).load(executionId);
}

/** The most agents a tree of sub-agents is read to: a page of one larger says so rather than reading it all. */
export const SUB_AGENT_TREE_LIMIT = 10_000;

/**
 * The caller's sub-agents at any depth, newest first, each with its parent: the tree read from the parent
 * index level by level, at most SUB_AGENT_TREE_LIMIT agents (a tree larger than that is refused, by name,
 * rather than read whole).
 */
export async function mySubAgents(ctx: Ctx, p: Page) {
  const me = await requireAgent(ctx);
  const rows = await ctx.services.sql.query<{ id: string }>(
    `WITH RECURSIVE tree(id, created_at) AS (
       SELECT id, created_at FROM agents WHERE parent_id = $1::uuid
       UNION ALL
       SELECT a.id, a.created_at FROM agents a JOIN tree t ON a.parent_id = t.id
     )
     SELECT id FROM tree ORDER BY created_at DESC, id ASC LIMIT $2`,
    [me.id, SUB_AGENT_TREE_LIMIT + 1],
  );
  if (rows.length > SUB_AGENT_TREE_LIMIT)
    throw new ValidationFailed([
      { path: 'mySubAgents', message: `the tree holds more than ${SUB_AGENT_TREE_LIMIT} sub-agents: list each sub-agent's own from its key` },
    ]);
  const ids = rows.slice(p.offset, p.offset + p.limit).map((r) => r.id);
  const found = ids.length ? await ctx.db.agent.findMany({ where: { id: { in: ids } } }) : [];
  const byId = new Map(found.map((a) => [a.id, a]));
  return { items: ids.map((id) => byId.get(id)).filter((a) => a !== undefined), total: rows.length };
}
