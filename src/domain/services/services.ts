// Services: what providers publish. Registration with the rules of spec §8.3, the owner's changes (the
// sub-key policy), the public listing, and the provider statistics the execution engine keeps for ranking.
import type { Prisma, Service } from '../../db/generated/prisma/client';
import { NotFound } from '../../platform/errors';
import { newServiceKey, newSigningSecret } from '../../platform/ids';
import { oneEach, perRequest } from '../../platform/loaders';
import { checkOutboundUrl } from '../../platform/outbound';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { recordAudit } from '../audit/audit';
import { CAPABILITY_SLUG, declareCapabilities } from '../capabilities/catalog';
import type { Ctx } from '../context';
import { DEFAULT_SUB_KEY_POLICY, readSubKeyPolicy, type SubKeyPolicyInput } from '../keys/sub-key-policy';

export const PRICING_MODELS = ['free', 'per_call', 'monthly', 'freemium'] as const;
export const SERVICE_NAME_MAX = 100;
export const SERVICE_DESCRIPTION_MIN = 10;
export const SERVICE_DESCRIPTION_MAX = 2000;
export const SERVICE_CAPABILITIES_MAX = 50;
export const MAX_COST_CENTS = 1_000_000;
const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export interface RegisterServiceInput {
  name?: unknown;
  endpoint?: unknown;
  capabilities?: unknown;
  description?: unknown;
  pricingModel?: unknown;
  languages?: unknown;
  pricingDetails?: unknown;
  costPerCall?: unknown;
  subKeyPolicy?: SubKeyPolicyInput | null;
}

export type RegisteredService = Service;

export async function registerService(ctx: Ctx, input: RegisterServiceInput): Promise<RegisteredService> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const name = checks.text('name', input.name, { max: SERVICE_NAME_MAX, required: true });
  const shapeErrors = checks.errors.length;
  const endpoint = checks.httpsUrl('endpoint', input.endpoint);
  if (endpoint && checks.errors.length === shapeErrors) {
    const problem = checkOutboundUrl(endpoint, ctx.services.config.outboundAllowPrivate);
    if (problem) checks.fail('endpoint', problem);
  }
  const description = checks.text('description', input.description, { min: SERVICE_DESCRIPTION_MIN, max: SERVICE_DESCRIPTION_MAX, required: true, multiline: true });
  let capabilities: string[] = [];
  if (!Array.isArray(input.capabilities) || input.capabilities.length === 0) {
    checks.fail('capabilities', input.capabilities === undefined ? 'is required' : 'must be a non-empty list of capability identifiers');
  } else if (input.capabilities.length > SERVICE_CAPABILITIES_MAX) {
    checks.fail('capabilities', `must have at most ${SERVICE_CAPABILITIES_MAX} entries`);
  } else {
    input.capabilities.forEach((c, i) => {
      if (typeof c !== 'string' || c.length > 64 || !CAPABILITY_SLUG.test(c)) checks.fail(`capabilities.${i}`, 'must be a capability identifier such as "summarize" (lower-case letters, digits, dashes; dots for refinements)');
    });
    capabilities = [...new Set(input.capabilities as string[])];
  }
  const pricingModel = input.pricingModel;
  if (pricingModel === undefined || pricingModel === null) checks.fail('pricingModel', 'is required');
  else if (!PRICING_MODELS.includes(pricingModel as never)) checks.fail('pricingModel', `must be one of ${PRICING_MODELS.join(', ')}`);
  let languages: string[] = [];
  if (input.languages !== undefined && input.languages !== null) {
    if (!Array.isArray(input.languages) || input.languages.length > 50) checks.fail('languages', 'must be a list of at most 50 language codes');
    else {
      input.languages.forEach((l, i) => {
        if (typeof l !== 'string' || !LANGUAGE.test(l)) checks.fail(`languages.${i}`, 'must be a language code such as "en" or "pt-BR"');
      });
      languages = [...new Set(input.languages as string[])];
    }
  }
  let pricingDetails: Prisma.InputJsonObject | undefined;
  if (input.pricingDetails !== undefined && input.pricingDetails !== null) {
    if (typeof input.pricingDetails !== 'object' || Array.isArray(input.pricingDetails)) checks.fail('pricingDetails', 'must be an object');
    else if (JSON.stringify(input.pricingDetails).length > 4096) checks.fail('pricingDetails', 'must be at most 4096 characters of JSON');
    else pricingDetails = input.pricingDetails as Prisma.InputJsonObject;
  }
  const costPerCall = checks.integer('costPerCall', input.costPerCall, 0, MAX_COST_CENTS) ?? 0;
  if (pricingModel === 'free' && costPerCall > 0) checks.fail('costPerCall', 'must be 0 for a free service');
  const subKeyPolicy = { ...DEFAULT_SUB_KEY_POLICY, ...(input.subKeyPolicy ? readSubKeyPolicy(checks, 'subKeyPolicy', input.subKeyPolicy) : {}) };
  checks.done();

  const service = await ctx.db.$transaction(async (tx) => {
    const created = await tx.service.create({
      data: {
        serviceKey: newServiceKey(),
        agentId: me.id,
        name: name!,
        description: description!,
        endpoint: endpoint!,
        capabilities,
        languages,
        pricingModel: pricingModel as (typeof PRICING_MODELS)[number],
        pricingDetails,
        costPerCall,
        ...subKeyPolicy,
        signingSecret: newSigningSecret(),
      },
    });
    await declareCapabilities(tx, capabilities);
    await recordAudit(tx, ctx, { agentId: me.id, action: 'service.registered', targetType: 'service', targetId: created.id, details: { service_key: created.serviceKey } });
    return created;
  });
  return service;
}

export interface UpdateServiceInput {
  subKeyPolicy?: SubKeyPolicyInput | null;
}

/**
 * Changes a service of the caller's (another agent's is not found): its sub-key policy, field by field
 * (null restores a default; a null policy, the whole default). Keys provisioned before keep what they were
 * given; the policy applies to provisioning from then on.
 */
export async function updateService(ctx: Ctx, serviceKey: string, input: UpdateServiceInput, query: { include?: Prisma.ServiceInclude; select?: Prisma.ServiceSelect } = {}): Promise<Service> {
  const me = await requireAgent(ctx);
  const service = await ctx.db.service.findFirst({ where: { serviceKey, agentId: me.id }, select: { id: true, serviceKey: true } });
  if (!service) throw new NotFound('service', serviceKey);
  const checks = new Checks();
  const policy = input.subKeyPolicy === null ? DEFAULT_SUB_KEY_POLICY : input.subKeyPolicy ? readSubKeyPolicy(checks, 'subKeyPolicy', input.subKeyPolicy) : {};
  checks.done();
  return ctx.db.$transaction(async (tx) => {
    // Only the fields given are written, so two changes of different fields made at once both stand.
    const updated = await tx.service.update({ ...query, where: { id: service.id }, data: policy });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'service.updated',
      targetType: 'service',
      targetId: service.id,
      details: { service_key: service.serviceKey, sub_key_policy: { permissions: policy.subKeyPermissions, max_requests_per_minute: policy.subKeyMaxPerMinute, max_requests_per_day: policy.subKeyMaxPerDay } },
    });
    return updated;
  });
}

export interface ServiceFilter {
  capability?: string | null;
  minReputation?: number | null;
}

export type ListedService = Service & { agent: { id: string; name: string; reputation: number } };

/** Active services of active providers, newest first, with the provider's reputation. */
export async function listServices(ctx: Ctx, filter: ServiceFilter, page: { offset: number; limit: number }): Promise<{ items: ListedService[]; total: number }> {
  const checks = new Checks();
  const min = checks.integer('minReputation', filter.minReputation, 0, 100);
  if (filter.capability !== undefined && filter.capability !== null && !CAPABILITY_SLUG.test(filter.capability)) checks.fail('capability', 'must be a capability identifier');
  checks.done();
  const where: Prisma.ServiceWhereInput = {
    status: 'active',
    agent: { status: 'ACTIVE', ...(min !== undefined ? { reputation: { gte: min } } : {}) },
    ...(filter.capability ? { capabilities: { has: filter.capability } } : {}),
  };
  const [items, total] = await Promise.all([
    ctx.db.service.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.limit,
      include: { agent: { select: { id: true, name: true, reputation: true } } },
    }),
    ctx.db.service.count({ where }),
  ]);
  return { items, total };
}

/** An active service of an active provider by its key (`svc_…`); 404 otherwise, as in the listing. */
export async function serviceByKey(ctx: Ctx, serviceKey: string, query: { include?: Prisma.ServiceInclude; select?: Prisma.ServiceSelect } = {}): Promise<Service> {
  const checks = new Checks();
  checks.text('serviceKey', serviceKey, { max: 64, required: true });
  checks.done();
  const service = await ctx.db.service.findFirst({ ...query, where: { serviceKey, status: 'active', agent: { status: 'ACTIVE' } } });
  if (!service) throw new NotFound('service', serviceKey);
  return service;
}

const owners = perRequest(async (ctx: Ctx, ids: readonly string[]) => {
  const rows = await ctx.db.service.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, agentId: true } });
  return oneEach(ids, rows, (r) => r.id).map((r) => r?.agentId);
});

/**
 * The agent that owns a service (undefined for none), for the permission checks made object by object (a
 * ticket about the service): the services of every object a request checks at once are read together.
 */
export function serviceOwner(ctx: Ctx, serviceId: string): Promise<string | undefined> {
  return owners(ctx).load(serviceId);
}

/** Success rate with a uniform prior (a new service counts as 0.5). */
export function successRate(s: Pick<Service, 'successCount' | 'failureCount'>): number {
  return (s.successCount + 1) / (s.successCount + s.failureCount + 2);
}
