// Public statistics and the showcase: counts, recent executions, and the showcase listing of Star
// providers' services (a tier privilege: docs/identity.md).
import type { Ctx } from '../context';
import { SHOWCASE_MIN } from '../reputation/privileges';

export interface PublicStats {
  totalAgents: number;
  totalServices: number;
  totalCapabilities: number;
  totalTransactions: number;
  totalTransactions30d: number;
}

export async function publicStats(ctx: Ctx): Promise<PublicStats> {
  const [row] = await ctx.services.sql.query<Record<string, string | number>>(
    `SELECT
      (SELECT count(*) FROM agents WHERE status = 'ACTIVE') AS agents,
      (SELECT count(*) FROM services s JOIN agents a ON a.id = s.agent_id WHERE s.status = 'active' AND a.status = 'ACTIVE') AS services,
      (SELECT count(*) FROM capabilities) AS capabilities,
      (SELECT count(*) FROM transactions) AS transactions,
      (SELECT count(*) FROM transactions WHERE created_at > $1::timestamptz - interval '30 days') AS transactions_30d`,
    [ctx.services.clock.now()],
  );
  return {
    totalAgents: Number(row.agents),
    totalServices: Number(row.services),
    totalCapabilities: Number(row.capabilities),
    totalTransactions: Number(row.transactions),
    totalTransactions30d: Number(row.transactions_30d),
  };
}

export interface ShowcaseService {
  serviceId: string;
  serviceKey: string;
  name: string;
  capabilities: string[];
  reputation: number;
  successCount: number;
  providerName: string;
}

export interface ShowcaseExecution {
  executionId: string;
  capability: string;
  status: string;
  latencyMs: number;
  createdAt: Date;
  serviceName: string | null;
}

/**
 * The showcase listing (spec §2: a Star privilege): active services of active Star providers (reputation
 * 86 and above), best provider reputation first, then most successes, then the oldest: SHOWCASE_RANKING,
 * which showcaseServices follows too.
 */
const SHOWCASED = `FROM services s JOIN agents a ON a.id = s.agent_id WHERE s.status = 'active' AND a.status = 'ACTIVE' AND a.reputation >= $1`;
const SHOWCASE_RANKING = 'ORDER BY a.reputation DESC, s.success_count DESC, s.created_at ASC, s.id ASC';

function showcased(ctx: Ctx, limit: number) {
  return ctx.services.sql.query<ShowcaseService>(
    `SELECT s.id AS "serviceId", s.service_key AS "serviceKey", s.name, s.capabilities, a.reputation, s.success_count AS "successCount", a.name AS "providerName"
     ${SHOWCASED} ${SHOWCASE_RANKING} LIMIT $2`,
    [SHOWCASE_MIN, limit],
  );
}

/**
 * The Star providers' services as the listing shows them (GET /showcase/services, Query.showcaseServices),
 * ranked as SHOWCASE_RANKING, a page at a time, with their providers.
 */
export async function showcaseServices(ctx: Ctx, page: { offset: number; limit: number }) {
  const where = { status: 'active', agent: { status: 'ACTIVE', reputation: { gte: SHOWCASE_MIN } } } as const;
  const [items, total] = await Promise.all([
    ctx.db.service.findMany({
      where,
      orderBy: [{ agent: { reputation: 'desc' } }, { successCount: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.limit,
      include: { agent: { select: { id: true, name: true, reputation: true } } },
    }),
    ctx.db.service.count({ where }),
  ]);
  return { items, total };
}

/** Stats, the ten most recent executions (no inputs or results), and the first ten of the showcase listing. */
export async function showcase(ctx: Ctx) {
  const [stats, top, recent] = await Promise.all([
    publicStats(ctx),
    showcased(ctx, 10),
    ctx.services.sql.query<ShowcaseExecution>(
      `SELECT e.id AS "executionId", e.capability, e.status::text AS status, e.latency_ms AS "latencyMs", e.created_at AS "createdAt", s.name AS "serviceName"
       FROM executions e LEFT JOIN services s ON s.id = e.service_id ORDER BY e.created_at DESC LIMIT 10`,
      [],
    ),
  ]);
  return { stats, topServices: top, recentExecutions: recent };
}
