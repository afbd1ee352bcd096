// Services and the capability catalog: registration and the owner's changes (the sub-key policy), the
// public listing, capabilities and their prices, public statistics and the showcase.
import * as catalog from '../src/domain/capabilities/catalog';
import * as search from '../src/domain/capabilities/search';
import { FIRST_PARTY, servedHere } from '../src/domain/first-party/first-party';
import type { FirstPartyCapability } from '../src/domain/first-party/types';
import type { SubKeyPolicy as SubKeyPolicyColumns } from '../src/domain/keys/sub-key-policy';
import * as services from '../src/domain/services/services';
import * as stats from '../src/domain/stats/stats';
import { qualityDays, type Health, type Quality } from '../src/domain/services/quality';
import { builder } from './builder';
import { HealthEnum, QualityDayRef, ServiceQuality } from './quality';
import { all, length, listOf, maxLength, oneOf, range } from './json-schema';
import { pagedField } from './paging';

export const PricingModelEnum = builder.enumType('PricingModel', { values: services.PRICING_MODELS });
const ServiceStatusEnum = builder.enumType('ServiceStatus', { values: services.SERVICE_STATUSES });

const ProviderStats = builder.objectRef<services.RegisteredService>('ProviderStats').implement({
  description: 'What the execution engine has recorded of this provider',
  fields: (t) => ({
    successRate: t.float({
      description: 'With a uniform prior: a new service counts as 0.5',
      resolve: (s) => Math.round(services.successRate(s) * 10_000) / 10_000,
    }),
    totalCalls: t.int({ resolve: (s) => s.successCount + s.failureCount }),
    successes: t.exposeInt('successCount'),
    failures: t.exposeInt('failureCount'),
    latencyP50Ms: t.exposeInt('latencyP50Ms', { nullable: true }),
    latencyP95Ms: t.exposeInt('latencyP95Ms', { nullable: true }),
    lastSuccessAt: t.expose('lastSuccessAt', { type: 'DateTime', nullable: true }),
  }),
});

const SubKeyPolicy = builder.objectRef<SubKeyPolicyColumns>('SubKeyPolicy').implement({
  description:
    "What the service's owner lets its sub-keys hold, public so that a consumer knows what it may ask for. Provisioning (the owner's own included) is refused with 403 for a permission not listed, and a rate above a maximum is lowered to it; keys provisioned before a change keep what they were given until rotated. Until the owner sets one (`setByOwner` false), the default: read and write, at most 60 requests a minute, no daily maximum.",
  fields: (t) => ({
    permissions: t.exposeStringList('subKeyPermissions', { description: 'The permissions a sub-key may be given' }),
    maxRequestsPerMinute: t.exposeInt('subKeyMaxPerMinute', { description: 'The highest `requests_per_minute` a sub-key is given' }),
    maxRequestsPerDay: t.exposeInt('subKeyMaxPerDay', {
      nullable: true,
      description: 'The highest `requests_per_day` a sub-key is given (and what one asked without a daily limit gets); no daily maximum when null',
    }),
    setByOwner: t.boolean({
      description: 'Whether the owner has set this policy; false: it has set none, and the default applies',
      resolve: (s) => s.subKeyPolicySetAt !== null,
    }),
  }),
});

const SubKeyPolicyInput = builder.inputType('SubKeyPolicyInput', {
  description: 'On registration a field left out takes its default; on update it keeps its value. Null restores the default.',
  fields: (t) => ({
    permissions: t.stringList({
      description: 'The permissions a sub-key may be given: 1-20 names such as "read", "write" or "admin" (default ["read", "write"])',
    }),
    maxRequestsPerMinute: t.int({ description: 'The highest rate a minute a sub-key is given, 1-10000000 (default 60)' }),
    maxRequestsPerDay: t.int({ description: 'The highest rate a day a sub-key is given, 1-10000000 (default none)' }),
  }),
});

export const Service = builder.prismaNode('Service', {
  description: 'A service a provider publishes: an HTTPS endpoint offering capabilities',
  id: { field: 'id' },
  fields: (t) => ({
    serviceId: t.exposeID('id'),
    serviceKey: t.exposeString('serviceKey', { description: '`svc_…`' }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    endpoint: t.exposeString('endpoint'),
    capabilities: t.exposeStringList('capabilities'),
    languages: t.exposeStringList('languages'),
    pricingModel: t.expose('pricingModel', { type: PricingModelEnum }),
    pricingDetails: t.field({ type: 'JSON', nullable: true, resolve: (s) => s.pricingDetails }),
    costPerCall: t.exposeInt('costPerCall', { description: 'Integer US cents per call, for each capability without a price of its own' }),
    capabilityPrices: t.field({
      type: 'JSON',
      description: 'Prices set per capability (POST /capabilities/:capabilityId/pricing): capability → integer cents per call; the others cost costPerCall',
      resolve: (s) => s.capabilityPrices ?? {},
    }),
    status: t.expose('status', { type: ServiceStatusEnum }),
    healthUrl: t.exposeString('healthUrl', {
      nullable: true,
      description:
        'Where the marketplace probes the service while it gets no calls (a GET answered 2xx passes); null: its endpoint is probed, and any answer under 500 passes',
    }),
    health: t.field({ type: HealthEnum, resolve: (s) => s.health as Health }),
    lastFailureReason: t.exposeString('lastFailureReason', {
      nullable: true,
      description: 'The failure category (FailureCategory) of its last failed call or probe',
    }),
    quality: t.field({
      type: ServiceQuality,
      nullable: true,
      description: 'What the marketplace measured over the last 30 days; null until a call or probe was counted',
      resolve: (s) => (s.quality as Quality | null) ?? null,
    }),
    qualityDays: t.field({
      type: [QualityDayRef],
      description: 'The last 30 days one by one, for a chart: calls, probes, latency and uptime per day',
      resolve: (s, _a, ctx) => qualityDays(ctx, s.id),
    }),
    reputation: t.int({ description: "The provider's reputation", select: { agent: { select: { reputation: true } } }, resolve: (s) => s.agent.reputation }),
    provider: t.relation('agent'),
    stats: t.field({ type: ProviderStats, resolve: (s) => s }),
    subKeyPolicy: t.field({ type: SubKeyPolicy, resolve: (s) => s }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const Registration = builder.objectRef<services.RegisteredService>('ServiceRegistration').implement({
  description: 'A new service; its signing secret is shown only here',
  fields: (t) => ({
    serviceId: t.exposeID('id'),
    serviceKey: t.exposeString('serviceKey'),
    status: t.expose('status', { type: ServiceStatusEnum }),
    signingSecret: t.exposeString('signingSecret', { description: 'Standard Webhooks secret (`whsec_…`) the marketplace signs calls to the endpoint with' }),
    name: t.exposeString('name'),
    endpoint: t.exposeString('endpoint'),
    capabilities: t.exposeStringList('capabilities'),
    pricingModel: t.expose('pricingModel', { type: PricingModelEnum }),
    costPerCall: t.exposeInt('costPerCall'),
    subKeyPolicy: t.field({ type: SubKeyPolicy, resolve: (s) => s }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    service: t.field({ type: Service, resolve: (s) => s }),
  }),
});

const RegisterServiceInput = builder.inputType('RegisterServiceInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Display name, at most 100 characters' }),
    endpoint: t.string({ required: true, description: 'An absolute https:// URL the marketplace calls' }),
    healthUrl: t.string({
      description: 'An https:// URL the marketplace probes with a GET while the service gets no calls (2xx passes); left out, the endpoint is probed',
    }),
    capabilities: t.stringList({ required: true, description: 'Capability identifiers (1-50); unknown ones join the catalog' }),
    description: t.string({ required: true, description: '10-2000 characters' }),
    pricingModel: t.field({ type: PricingModelEnum, required: true }),
    languages: t.stringList({ description: 'Language codes such as "en"; none means any language' }),
    pricingDetails: t.field({
      type: 'JSON',
      description:
        "Pricing notes (an object, at most 4096 characters). `metered: { unit, cents_per_unit, max_units }` makes the service metered: a call is charged the units its answer's X-Usage-Units header says it used, at cents_per_unit (up to four decimals; rounded up to a whole cent), at most max_units; its price per call is then that most (docs/payments.md, Metered calls)",
    }),
    costPerCall: t.int({ description: 'Integer US cents per call (default 0; 0 for a free service)' }),
    subKeyPolicy: t.field({
      type: SubKeyPolicyInput,
      description:
        'What sub-keys of the service may hold; left out, the owner has set none and the default applies (read and write, at most 60 requests a minute)',
    }),
  }),
});

builder.mutationField('registerService', (t) =>
  t.field({
    type: Registration,
    auth: 'agent',
    args: { input: t.arg({ type: RegisterServiceInput, required: true }) },
    resolve: (_r, { input }, ctx) => services.registerService(ctx, input),
  }),
);

const UpdateServiceInput = builder.inputType('UpdateServiceInput', {
  description:
    "Each field given replaces the service's, each left out keeps its value; null restores an optional field's default (and is refused for name, description, endpoint, capabilities and pricingModel)",
  fields: (t) => ({
    name: t.string({ description: 'At most 100 characters', extensions: length(1, services.SERVICE_NAME_MAX) }),
    description: t.string({ description: '10-2000 characters', extensions: length(services.SERVICE_DESCRIPTION_MIN, services.SERVICE_DESCRIPTION_MAX) }),
    endpoint: t.string({ description: 'An https:// URL the marketplace may call', extensions: maxLength(2048) }),
    healthUrl: t.string({ description: 'An https:// URL the marketplace probes (null: its endpoint is probed)', extensions: maxLength(2048) }),
    capabilities: t.stringList({
      description: '1-50 capability identifiers; prices set for capabilities left out go with them',
      extensions: listOf(services.SERVICE_CAPABILITIES_MAX, maxLength(64)),
    }),
    languages: t.stringList({ description: 'Language codes (null: none, so any)', extensions: listOf(50) }),
    pricingModel: t.field({ type: PricingModelEnum }),
    pricingDetails: t.field({
      type: 'JSON',
      description:
        "An object of at most 4096 characters of JSON (null: none). `metered: { unit, cents_per_unit, max_units }` makes the service metered: a call is charged the units its answer's X-Usage-Units header says it used, at cents_per_unit (up to four decimals; rounded up to a whole cent), at most max_units; its price per call is then that most (docs/payments.md, Metered calls)",
    }),
    costPerCall: t.int({ description: 'Integer US cents per call, 0-1000000 (null: 0); 0 for a free service', extensions: range(0, services.MAX_COST_CENTS) }),
    subKeyPolicy: t.field({
      type: SubKeyPolicyInput,
      description: "Fields given replace the policy's, fields left out keep theirs; null takes it back to none set (the default applies)",
    }),
  }),
});

builder.mutationField('updateService', (t) =>
  t.prismaField({
    type: 'Service',
    description:
      "Change a service of the caller's, paused or not (another agent's, and a removed one, answers 404): what it says of itself and its sub-key policy. The next resolve and execute, on every instance, see the change. Keys provisioned before keep what they were given.",
    auth: 'agent',
    args: { serviceKey: t.arg.string({ required: true, description: 'The service key, `svc_…`' }), input: t.arg({ type: UpdateServiceInput, required: true }) },
    resolve: (query, _r, { serviceKey, input }, ctx) => services.updateService(ctx, serviceKey, input, query),
  }),
);

builder.queryField('services', (t) =>
  pagedField(t, Service, {
    description: 'Active services of active providers, newest first',
    args: {
      capability: t.arg.string({ description: 'Only services offering this capability' }),
      minReputation: t.arg.int({ description: 'Only providers with at least this reputation (0-100)', extensions: range(0, 100) }),
    },
    resolve: (ctx, args, page) => services.listServices(ctx, { capability: args.capability, minReputation: args.minReputation }, page),
  }),
);

const MarketplaceOffer = builder.objectRef<FirstPartyCapability>('MarketplaceOffer').implement({
  description: 'How the marketplace itself (provider `marketplace`) serves a capability, and its input and output',
  fields: (t) => ({
    kind: t.string({
      description:
        "`own`: a capability of the marketplace's own systems, always answered by it; `generic`: it is the provider of last resort, after registered providers",
      resolve: (c) => c.kind,
    }),
    summary: t.exposeString('summary'),
    available: t.boolean({
      description:
        'Whether this instance serves it now (false: a model-backed capability with no model backend configured; then the marketplace neither lists nor tries it)',
      resolve: (c, _a, ctx) => servedHere(c, ctx.services),
    }),
    unavailableBecause: t.string({
      nullable: true,
      description: 'What it needs when it is not available',
      resolve: (c, _a, ctx) => (servedHere(c, ctx.services) ? null : (c.unavailableBecause ?? null)),
    }),
    inputSchema: t.field({
      type: 'JSON',
      description: 'The JSON Schema of `input` (field names in snake_case; camelCase is read too)',
      resolve: (c) => c.inputSchema,
    }),
    outputSchema: t.field({ type: 'JSON', description: "The JSON Schema of the execution's `result`", resolve: (c) => c.outputSchema }),
  }),
});

const Capability = builder.objectRef<catalog.CapabilityListing>('Capability').implement({
  fields: (t) => ({
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
    group: t.exposeString('group'),
    parent: t.exposeString('parentSlug', { nullable: true, description: 'The capability this one refines' }),
    description: t.exposeString('description', { nullable: true }),
    builtin: t.exposeBoolean('builtin', { description: 'Part of the catalog of spec §1 (otherwise declared by a service)' }),
    serviceCount: t.exposeInt('serviceCount', { description: 'Active services offering it' }),
    marketplace: t.field({
      type: MarketplaceOffer,
      nullable: true,
      description: 'How the marketplace itself serves it, with its input and output JSON Schemas; null when only registered services do',
      resolve: (c) => FIRST_PARTY.get(c.slug) ?? null,
    }),
  }),
});

const CapabilityGroup = builder.objectRef<{ group: string; name: string; slugs: string[] }>('CapabilityGroup').implement({
  fields: (t) => ({
    group: t.exposeString('group'),
    name: t.exposeString('name'),
    capabilities: t.exposeStringList('slugs'),
  }),
});

const CapabilityCatalog = builder.objectRef<Awaited<ReturnType<typeof catalog.listCapabilities>>>('CapabilityCatalog').implement({
  fields: (t) => ({
    capabilities: t.field({ type: [Capability], resolve: (c) => c.capabilities }),
    total: t.int({ resolve: (c) => c.capabilities.length }),
    hierarchy: t.field({ type: [CapabilityGroup], description: 'Groups and their capabilities', resolve: (c) => c.groups }),
  }),
});

builder.queryField('capabilities', (t) =>
  t.field({ type: CapabilityCatalog, description: 'The capability catalog with the group hierarchy', resolve: (_r, _a, ctx) => catalog.listCapabilities(ctx) }),
);

const CapabilitySummary = builder.objectRef<search.CapabilitySummary>('CapabilitySummary').implement({
  description: 'A capability of the catalog with what its active providers offer (within the limits asked for)',
  fields: (t) => ({
    slug: t.exposeString('slug', { description: 'The identifier execute and resolve take' }),
    name: t.exposeString('name'),
    category: t.exposeString('category', { description: 'The catalog group' }),
    parent: t.exposeString('parentSlug', { nullable: true, description: 'The capability this one refines' }),
    description: t.exposeString('description', { nullable: true }),
    builtin: t.exposeBoolean('builtin', { description: 'Part of the catalog of spec §1 (otherwise declared by a service)' }),
    providers: t.exposeInt('providers', { description: 'Active providers that meet the limits' }),
    minPriceCents: t.exposeInt('minPriceCents', { nullable: true, description: 'The lowest price among them, cents per call' }),
    maxPriceCents: t.exposeInt('maxPriceCents', { nullable: true, description: 'The highest price among them, cents per call' }),
    bestReputation: t.exposeInt('bestReputation', { nullable: true, description: 'The best reputation among them (0-100)' }),
    marketplace: t.field({
      type: MarketplaceOffer,
      nullable: true,
      description: 'How the marketplace itself serves it, with its input and output JSON Schemas; null when only registered services do',
      resolve: (c) => FIRST_PARTY.get(c.slug) ?? null,
    }),
  }),
});

const providerLimits = <T extends { arg: any }>(t: T) => ({
  language: t.arg.string({ description: 'Only providers serving this language (services that declare none serve any)', extensions: maxLength(35) }),
  minReputation: t.arg.float({ description: 'Only providers with at least this reputation (0-100)', extensions: range(0, 100) }),
  maxPricePerCall: t.arg.float({ description: 'Only providers charging at most this, in US cents per call', extensions: range(0) }),
});

builder.queryField('searchCapabilities', (t) =>
  pagedField(t, CapabilitySummary, {
    description:
      'Search the capability catalog by words over identifier, name and description (no credential needed); with provider limits, only capabilities some provider meets',
    args: {
      query: t.arg.string({ description: 'Words that must all appear (any order, any case); empty lists everything', extensions: maxLength(200) }),
      category: t.arg.string({ description: `A catalog group: ${search.CATEGORIES.join(', ')}`, extensions: all(oneOf(search.CATEGORIES), maxLength(64)) }),
      ...providerLimits(t),
    },
    resolve: (ctx, args, page) => search.searchCapabilities(ctx, args, page),
  }),
);

builder.queryField('capability', (t) =>
  t.field({
    type: CapabilitySummary,
    description: 'One capability of the catalog and what its active providers offer (404 when not in the catalog)',
    args: { slug: t.arg.string({ required: true, description: 'The capability identifier' }), ...providerLimits(t) },
    resolve: (_r, { slug, ...limits }, ctx) => search.capabilityDetail(ctx, slug, limits as search.CapabilityFilter),
  }),
);

builder.queryField('service', (t) =>
  t.prismaField({
    type: 'Service',
    description: 'An active service by its key: its capabilities, price, provider and record (no credential needed; 404 when unknown or inactive)',
    args: { serviceKey: t.arg.string({ required: true, description: 'The service key, `svc_…`' }) },
    resolve: (query, _r, { serviceKey }, ctx) => services.serviceByKey(ctx, serviceKey, query),
  }),
);

const PublicStats = builder.objectRef<stats.PublicStats>('PublicStats').implement({
  fields: (t) => ({
    totalAgents: t.exposeInt('totalAgents'),
    totalServices: t.exposeInt('totalServices'),
    totalCapabilities: t.exposeInt('totalCapabilities'),
    totalTransactions: t.exposeInt('totalTransactions'),
    totalTransactions30d: t.exposeInt('totalTransactions30d'),
  }),
});

builder.queryField('stats', (t) => t.field({ type: PublicStats, resolve: (_r, _a, ctx) => stats.publicStats(ctx) }));

const ShowcaseService = builder.objectRef<stats.ShowcaseService>('ShowcaseService').implement({
  fields: (t) => ({
    serviceId: t.exposeID('serviceId'),
    serviceKey: t.exposeString('serviceKey'),
    name: t.exposeString('name'),
    capabilities: t.exposeStringList('capabilities'),
    reputation: t.exposeInt('reputation'),
    successes: t.exposeInt('successCount'),
    providerName: t.exposeString('providerName'),
  }),
});

const ShowcaseExecution = builder.objectRef<stats.ShowcaseExecution>('ShowcaseExecution').implement({
  fields: (t) => ({
    executionId: t.exposeID('executionId'),
    capability: t.exposeString('capability'),
    status: t.exposeString('status'),
    latencyMs: t.exposeInt('latencyMs'),
    serviceName: t.exposeString('serviceName', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const Showcase = builder.objectRef<Awaited<ReturnType<typeof stats.showcase>>>('Showcase').implement({
  fields: (t) => ({
    stats: t.field({ type: PublicStats, resolve: (s) => s.stats }),
    topServices: t.field({ type: [ShowcaseService], resolve: (s) => s.topServices }),
    recentExecutions: t.field({ type: [ShowcaseExecution], resolve: (s) => s.recentExecutions }),
  }),
});

builder.queryField('showcase', (t) => t.field({ type: Showcase, resolve: (_r, _a, ctx) => stats.showcase(ctx) }));
