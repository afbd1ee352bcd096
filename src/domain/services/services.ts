// Services: what providers publish. Registration with the rules of spec §8.3, the owner's changes (what the
// service says of itself, its sub-key policy) and its own listing, the public listing, and the provider
// statistics the execution engine keeps for ranking. Pausing, resuming and removing: lifecycle.ts.
import { Prisma, type Service } from '../../db/generated/prisma/client';
import { NotFound } from '../../platform/errors';
import { newServiceKey, newSigningSecret } from '../../platform/ids';
import { oneEach, perRequest } from '../../platform/loaders';
import { checkOutboundUrl } from '../../platform/outbound';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { recordAudit } from '../audit/audit';
import { CAPABILITY_SLUG, declareCapabilities } from '../capabilities/catalog';
import { meteredMaxCents, meteredOf, readMetered } from '../payments/metering';
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
  healthUrl?: unknown;
  capabilities?: unknown;
  description?: unknown;
  pricingModel?: unknown;
  languages?: unknown;
  pricingDetails?: unknown;
  costPerCall?: unknown;
  subKeyPolicy?: SubKeyPolicyInput | null;
}

export type RegisteredService = Service;

/** What a service says of itself, as registration takes it and an update changes it. */
interface ServiceFields {
  name: string;
  endpoint: string;
  /** Where the marketplace probes the service's health (null: its endpoint). */
  healthUrl: string | null;
  description: string;
  capabilities: string[];
  pricingModel: (typeof PRICING_MODELS)[number];
  languages: string[];
  pricingDetails: Prisma.InputJsonObject | null;
  costPerCall: number;
}

const given = (v: unknown) => v !== undefined;

/**
 * Reads the fields of a service that are given (all the required ones on registration: `partial` false).
 * On an update, null restores an optional field's default (no languages, no pricing details, a price of
 * 0) and is refused for a field every service has.
 */
function readServiceFields(ctx: Ctx, checks: Checks, input: RegisterServiceInput, partial: boolean): Partial<ServiceFields> {
  const out: Partial<ServiceFields> = {};
  // Whether to read a field every service has: always on registration, when given on an update (null there
  // is refused by name, and read no further).
  const required = (path: string, value: unknown) => {
    if (!partial) return true;
    if (value === null) checks.fail(path, 'must not be null: every service has one');
    return value !== undefined && value !== null;
  };
  if (required('name', input.name)) out.name = checks.text('name', input.name, { max: SERVICE_NAME_MAX, required: true });
  // A URL the marketplace calls: https, and one the outbound guard lets it reach.
  const outboundUrl = (path: string, value: unknown) => {
    const shapeErrors = checks.errors.length;
    const url = checks.httpsUrl(path, value);
    if (url && checks.errors.length === shapeErrors) {
      const problem = checkOutboundUrl(url, ctx.services.config.outboundAllowPrivate);
      if (problem) checks.fail(path, problem);
    }
    return url;
  };
  if (required('endpoint', input.endpoint)) out.endpoint = outboundUrl('endpoint', input.endpoint);
  if (input.healthUrl === null || (!partial && input.healthUrl === undefined)) out.healthUrl = null;
  else if (given(input.healthUrl)) out.healthUrl = outboundUrl('healthUrl', input.healthUrl) ?? null;
  if (required('description', input.description)) {
    out.description = checks.text('description', input.description, {
      min: SERVICE_DESCRIPTION_MIN,
      max: SERVICE_DESCRIPTION_MAX,
      required: true,
      multiline: true,
    });
  }
  if (required('capabilities', input.capabilities)) {
    if (!Array.isArray(input.capabilities) || input.capabilities.length === 0) {
      checks.fail('capabilities', input.capabilities === undefined ? 'is required' : 'must be a non-empty list of capability identifiers');
    } else if (input.capabilities.length > SERVICE_CAPABILITIES_MAX) {
      checks.fail('capabilities', `must have at most ${SERVICE_CAPABILITIES_MAX} entries`);
    } else {
      input.capabilities.forEach((c, i) => {
        if (typeof c !== 'string' || c.length > 64 || !CAPABILITY_SLUG.test(c))
          checks.fail(`capabilities.${i}`, 'must be a capability identifier such as "summarize" (lower-case letters, digits, dashes; dots for refinements)');
      });
      out.capabilities = [...new Set(input.capabilities as string[])];
    }
  }
  if (required('pricingModel', input.pricingModel)) {
    const pricingModel = input.pricingModel;
    if (pricingModel === undefined || pricingModel === null) checks.fail('pricingModel', 'is required');
    else if (!PRICING_MODELS.includes(pricingModel as never)) checks.fail('pricingModel', `must be one of ${PRICING_MODELS.join(', ')}`);
    else out.pricingModel = pricingModel as ServiceFields['pricingModel'];
  }
  if (input.languages === null || (!partial && input.languages === undefined)) out.languages = [];
  else if (given(input.languages)) {
    if (!Array.isArray(input.languages) || input.languages.length > 50) checks.fail('languages', 'must be a list of at most 50 language codes');
    else {
      input.languages.forEach((l, i) => {
        if (typeof l !== 'string' || !LANGUAGE.test(l)) checks.fail(`languages.${i}`, 'must be a language code such as "en" or "pt-BR"');
      });
      out.languages = [...new Set(input.languages as string[])];
    }
  }
  if (input.pricingDetails === null) out.pricingDetails = null;
  else if (given(input.pricingDetails)) {
    if (typeof input.pricingDetails !== 'object' || Array.isArray(input.pricingDetails)) checks.fail('pricingDetails', 'must be an object');
    else if (JSON.stringify(input.pricingDetails).length > 4096) checks.fail('pricingDetails', 'must be at most 4096 characters of JSON');
    else {
      const details = input.pricingDetails as Record<string, unknown>;
      const metered = readMetered(checks, 'pricingDetails', details, MAX_COST_CENTS);
      if (metered !== undefined) out.pricingDetails = (metered ? { ...details, metered } : details) as Prisma.InputJsonObject;
    }
  }
  if (input.costPerCall === null || (!partial && input.costPerCall === undefined)) out.costPerCall = 0;
  else if (given(input.costPerCall)) out.costPerCall = checks.integer('costPerCall', input.costPerCall, 0, MAX_COST_CENTS);
  // A metered service's price per call is the most a call can cost (payments/metering.ts).
  const metered = meteredOf(out.pricingDetails);
  if (metered) {
    const most = meteredMaxCents(metered);
    if (given(input.costPerCall) && input.costPerCall !== null && out.costPerCall !== undefined && out.costPerCall !== most)
      checks.fail('costPerCall', `is the most a metered call costs (max_units × cents_per_unit, rounded up: ${most}): give ${most} or leave it out`);
    else out.costPerCall = most;
    if (out.pricingModel !== undefined && out.pricingModel !== 'per_call')
      checks.fail('pricingModel', 'must be per_call for a metered service (pricing_details.metered)');
  }
  return out;
}

export async function registerService(ctx: Ctx, input: RegisterServiceInput): Promise<RegisteredService> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const fields = readServiceFields(ctx, checks, input, false);
  if (fields.pricingModel === 'free' && (fields.costPerCall ?? 0) > 0) checks.fail('costPerCall', 'must be 0 for a free service');
  // Without `subKeyPolicy` the owner has set none, and the default applies (sub-key-policy.ts).
  const subKeyPolicy = {
    ...DEFAULT_SUB_KEY_POLICY,
    ...(input.subKeyPolicy ? readSubKeyPolicy(checks, 'subKeyPolicy', input.subKeyPolicy, ctx.services.clock.now()) : {}),
  };
  checks.done();
  const { name, endpoint, healthUrl, description, capabilities, pricingModel, languages, pricingDetails, costPerCall } = fields as ServiceFields;

  const service = await ctx.db.$transaction(async (tx) => {
    const created = await tx.service.create({
      data: {
        serviceKey: newServiceKey(),
        agentId: me.id,
        name,
        description,
        endpoint,
        healthUrl,
        // Probed once it has had no call for an interval (probes.ts).
        probeDueAt: new Date(ctx.services.clock.now().getTime() + ctx.services.config.probeIntervalMs),
        capabilities,
        languages,
        pricingModel,
        pricingDetails: pricingDetails ?? undefined,
        costPerCall,
        ...subKeyPolicy,
        signingSecret: newSigningSecret(),
      },
    });
    await declareCapabilities(tx, capabilities);
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'service.registered',
      targetType: 'service',
      targetId: created.id,
      details: { service_key: created.serviceKey },
    });
    return created;
  });
  return service;
}

export interface UpdateServiceInput extends Omit<RegisterServiceInput, 'subKeyPolicy'> {
  subKeyPolicy?: SubKeyPolicyInput | null;
}

type ServiceQuery = { include?: Prisma.ServiceInclude; select?: Prisma.ServiceSelect };

/**
 * Changes a service of the caller's, paused or not, field by field: only fields given are written, so concurrent changes
 * of different fields both stand; null restores an optional field's default. Keys provisioned before keep their grant,
 * and the change notification makes every instance's next `resolve` and `execute` see the change.
 */
export async function updateService(ctx: Ctx, serviceKey: string, input: UpdateServiceInput, query: ServiceQuery = {}): Promise<Service> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const fields = readServiceFields(ctx, checks, input, true);
  // Null takes the policy back to none set, so the default applies again.
  const policy =
    input.subKeyPolicy === null
      ? DEFAULT_SUB_KEY_POLICY
      : input.subKeyPolicy
        ? readSubKeyPolicy(checks, 'subKeyPolicy', input.subKeyPolicy, ctx.services.clock.now())
        : {};
  checks.done();
  return ctx.db.$transaction(async (tx) => {
    // Locked, so that the price and pricing model checked together below are the ones written over.
    const [service] = await tx.$queryRaw<
      {
        id: string;
        serviceKey: string;
        pricingModel: string;
        costPerCall: number;
        capabilityPrices: Record<string, number>;
        endpoint: string;
        healthUrl: string | null;
        pricingDetails: unknown;
      }[]
    >`
      SELECT id, service_key AS "serviceKey", pricing_model::text AS "pricingModel", cost_per_call AS "costPerCall", capability_prices AS "capabilityPrices",
        endpoint, health_url AS "healthUrl", pricing_details AS "pricingDetails"
      FROM services WHERE service_key = ${serviceKey} AND agent_id = ${me.id}::uuid AND status <> 'removed' FOR NO KEY UPDATE`;
    if (!service) throw new NotFound('service', serviceKey);
    const pricingModel = fields.pricingModel ?? service.pricingModel;
    // A metered service keeps its price per call to its metering's most, and its pricing model per call.
    const stillMetered = fields.pricingDetails === undefined ? meteredOf(service.pricingDetails) : null;
    if (stillMetered) {
      if (fields.costPerCall !== undefined && fields.costPerCall !== meteredMaxCents(stillMetered))
        checks.fail('costPerCall', `is the most a metered call costs (${meteredMaxCents(stillMetered)}): change pricing_details.metered to change it`);
      if (fields.pricingModel !== undefined && fields.pricingModel !== 'per_call')
        checks.fail('pricingModel', 'must be per_call for a metered service (pricing_details.metered)');
      checks.done();
    }
    if (meteredOf(fields.pricingDetails) && fields.pricingModel === undefined && service.pricingModel !== 'per_call')
      checks.fail('pricingModel', 'must be per_call for a metered service (pricing_details.metered): give pricing_model per_call with it');
    checks.done();
    const prices = Object.fromEntries(Object.entries(service.capabilityPrices ?? {}).filter(([c]) => !fields.capabilities || fields.capabilities.includes(c)));
    if (pricingModel === 'free') {
      if ((fields.costPerCall ?? service.costPerCall) > 0)
        checks.fail(given(input.costPerCall) ? 'costPerCall' : 'pricingModel', 'a free service has a price of 0: give cost_per_call 0 with pricing_model free');
      const priced = Object.entries(prices)
        .filter(([, cents]) => cents > 0)
        .map(([c]) => c);
      if (priced.length)
        checks.fail(
          'pricingModel',
          `cannot be free while ${priced.join(', ')} ${priced.length > 1 ? 'have prices' : 'has a price'} of their own (POST /capabilities/:capabilityId/pricing): set those to 0 first`,
        );
      checks.done();
    }
    const data: Prisma.ServiceUpdateInput = {
      ...policy,
      ...(fields.name !== undefined && { name: fields.name }),
      ...(fields.description !== undefined && { description: fields.description }),
      ...(fields.endpoint !== undefined && { endpoint: fields.endpoint }),
      ...(fields.healthUrl !== undefined && { healthUrl: fields.healthUrl }),
      // Where it is probed moved: what the probes found before no longer says anything, and it is probed again soon.
      ...(((fields.endpoint !== undefined && fields.endpoint !== service.endpoint) ||
        (fields.healthUrl !== undefined && fields.healthUrl !== service.healthUrl)) && {
        health: 'unknown',
        probeStreak: 0,
        probeDueAt: ctx.services.clock.now(),
      }),
      ...(fields.capabilities !== undefined && { capabilities: fields.capabilities, capabilityPrices: prices }),
      ...(fields.languages !== undefined && { languages: fields.languages }),
      ...(fields.pricingModel !== undefined && { pricingModel: fields.pricingModel }),
      ...(fields.pricingDetails !== undefined && { pricingDetails: fields.pricingDetails ?? Prisma.DbNull }),
      ...(fields.costPerCall !== undefined && { costPerCall: fields.costPerCall }),
    };
    const updated = await tx.service.update({ ...query, where: { id: service.id }, data });
    if (fields.capabilities) await declareCapabilities(tx, fields.capabilities);
    const changed = Object.keys(data).filter((k) => !k.startsWith('subKey') && !['capabilityPrices', 'health', 'probeStreak', 'probeDueAt'].includes(k));
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'service.updated',
      targetType: 'service',
      targetId: service.id,
      details: {
        service_key: service.serviceKey,
        changed,
        ...(Object.keys(policy).length
          ? {
              sub_key_policy: {
                permissions: policy.subKeyPermissions,
                max_requests_per_minute: policy.subKeyMaxPerMinute,
                max_requests_per_day: policy.subKeyMaxPerDay,
                set_by_owner: policy.subKeyPolicySetAt !== null,
              },
            }
          : {}),
      },
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
export async function listServices(
  ctx: Ctx,
  filter: ServiceFilter,
  page: { offset: number; limit: number },
): Promise<{ items: ListedService[]; total: number }> {
  const checks = new Checks();
  const min = checks.integer('minReputation', filter.minReputation, 0, 100);
  if (filter.capability !== undefined && filter.capability !== null && !CAPABILITY_SLUG.test(filter.capability))
    checks.fail('capability', 'must be a capability identifier');
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
export async function serviceByKey(
  ctx: Ctx,
  serviceKey: string,
  query: { include?: Prisma.ServiceInclude; select?: Prisma.ServiceSelect } = {},
): Promise<Service> {
  const checks = new Checks();
  checks.text('serviceKey', serviceKey, { max: 64, required: true });
  checks.done();
  const service = await ctx.db.service.findFirst({ ...query, where: { serviceKey, status: 'active', agent: { status: 'ACTIVE' } } });
  if (!service) throw new NotFound('service', serviceKey);
  return service;
}

export const SERVICE_STATUSES = ['active', 'paused', 'inactive', 'suspended', 'removed'] as const;

/**
 * The caller's own services, newest first, in every state but `removed` (the owner's view: a paused service
 * is listed with its status and when it resumes); `status` narrows to one state, `removed` included.
 */
export async function myServices(ctx: Ctx, status: unknown, page: { offset: number; limit: number }): Promise<{ items: Service[]; total: number }> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const only = status === undefined || status === null ? undefined : checks.oneOf('status', status, SERVICE_STATUSES);
  checks.done();
  const where: Prisma.ServiceWhereInput = { agentId: me.id, status: only ?? { not: 'removed' } };
  const [items, total] = await Promise.all([
    ctx.db.service.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], skip: page.offset, take: page.limit }),
    ctx.db.service.count({ where }),
  ]);
  return { items, total };
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
