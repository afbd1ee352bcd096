// UTO specialists: agents that register for a domain with the capabilities they bring there, and are
// matched to validated tickets of that domain (matcher.ts). Registering again for a domain replaces the
// capabilities; the listing is open to every agent.
import type { Agent, UtoSpecialist } from '../../db/generated/prisma/client';
import { Checks } from '../../platform/validate';
import type { Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { checkCapabilities, checkDomain } from './tickets';

const SPECIALIST_CAPABILITIES_MAX = 100;

export type SpecialistWithAgent = UtoSpecialist & { agent: Agent };

export interface RegisterSpecialistInput {
  domain?: unknown;
  capabilities?: unknown;
}

export async function registerSpecialist(ctx: Ctx, input: RegisterSpecialistInput): Promise<SpecialistWithAgent> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const domain = checkDomain(checks, 'domain', input.domain, true);
  if (input.capabilities === undefined || input.capabilities === null) checks.fail('capabilities', 'is required');
  const capabilities = checkCapabilities(checks, 'capabilities', input.capabilities, SPECIALIST_CAPABILITIES_MAX);
  checks.done();
  const now = ctx.services.clock.now();
  const specialist = await ctx.db.$transaction(async (tx) => {
    const row = await tx.utoSpecialist.upsert({
      where: { agentId_domain: { agentId: me.id, domain: domain! } },
      create: { agentId: me.id, domain: domain!, capabilities },
      update: { capabilities },
      include: { agent: true },
    });
    // Validated tickets of the domain that found no match are looked at again at once.
    await tx.$executeRaw`UPDATE uto_tickets SET match_at = ${now} WHERE domain = ${domain!} AND state = 'validated' AND match_at > ${now}`;
    return row;
  });
  ctx.services.utoMatcher?.wake();
  return specialist;
}

export async function listSpecialists(ctx: Ctx, page: Page, domainFilter?: string | null) {
  await requireAgent(ctx);
  const checks = new Checks();
  const domain = domainFilter === undefined || domainFilter === null ? undefined : checkDomain(checks, 'domain', domainFilter, true);
  checks.done();
  const where = { ...(domain && { domain }), agent: { status: 'ACTIVE' as const } };
  const [items, total] = await Promise.all([
    ctx.db.utoSpecialist.findMany({
      where,
      include: { agent: true },
      orderBy: [{ agent: { reputation: 'desc' } }, { createdAt: 'asc' }, { agentId: 'asc' }],
      skip: page.offset,
      take: page.limit,
    }),
    ctx.db.utoSpecialist.count({ where }),
  ]);
  return { items, total };
}
