// Discovery: ranked providers for a capability, and the single best one.
import type { ResolveQuery } from '../src/domain/discovery/ranking';
import * as discovery from '../src/domain/discovery/resolve';
import { PREFERENCES, type Match } from '../src/domain/discovery/scoring';
import { builder } from './builder';
import { HealthEnum, ServiceQuality } from './quality';
import { maxLength, range } from './json-schema';

const PreferEnum = builder.enumType('Prefer', { values: PREFERENCES });

const ScoreBreakdown = builder.objectRef<Match['scoreBreakdown']>('ScoreBreakdown').implement({
  description: "Each factor's contribution to the score (they add up to it)",
  fields: (t) => ({
    reputation: t.exposeFloat('reputation'),
    cost: t.exposeFloat('cost'),
    reliability: t.exposeFloat('reliability'),
    latency: t.exposeFloat('latency'),
    freshness: t.exposeFloat('freshness'),
  }),
});

const Match = builder.objectRef<discovery.Listed>('ProviderMatch').implement({
  description: 'A provider of a capability: a registered service, ranked, or the marketplace itself (`firstParty`, listed after them)',
  fields: (t) => ({
    serviceId: t.exposeID('serviceId', { nullable: true, description: 'Null for the marketplace itself' }),
    serviceKey: t.exposeString('serviceKey'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    capabilities: t.exposeStringList('capabilities'),
    score: t.exposeFloat('score', { nullable: true, description: '0-100; null for the marketplace itself (listed after the ranked providers)' }),
    reputation: t.exposeInt('reputation'),
    costCents: t.exposeInt('costCents'),
    pricingModel: t.exposeString('pricingModel'),
    successRate: t.exposeFloat('successRate', { nullable: true, description: 'Null for the marketplace itself' }),
    latencyP50Ms: t.exposeInt('latencyP50Ms', { nullable: true }),
    providerId: t.exposeID('providerId', { nullable: true, description: 'Null for the marketplace itself' }),
    providerName: t.exposeString('providerName'),
    scoreBreakdown: t.expose('scoreBreakdown', { type: ScoreBreakdown }),
    health: t.field({ type: HealthEnum, resolve: (m) => m.health }),
    lastFailureReason: t.exposeString('lastFailureReason', { nullable: true, description: 'The failure category of its last failed call or probe' }),
    quality: t.field({
      type: ServiceQuality,
      nullable: true,
      description: 'What the marketplace measured over the last 30 days; null until counted, and for the marketplace itself',
      resolve: (m) => m.quality,
    }),
    firstParty: t.exposeBoolean('firstParty', { description: 'The marketplace itself (`service_key: marketplace`), not a registered service' }),
  }),
});

const ResolveQuery = builder.objectRef<ResolveQuery>('ResolveQuery').implement({
  fields: (t) => ({
    capability: t.exposeString('capability'),
    prefer: t.expose('prefer', { type: PreferEnum }),
    minReputation: t.exposeInt('minReputation', { nullable: true }),
    maxCost: t.exposeInt('maxCost', { nullable: true }),
    language: t.exposeString('language', { nullable: true }),
    limit: t.exposeInt('limit'),
  }),
});

const Resolution = builder.objectRef<discovery.Resolution>('Resolution').implement({
  fields: (t) => ({
    matches: t.expose('matches', { type: [Match] }),
    total: t.exposeInt('total', { description: 'Providers that qualify (matches holds the best `limit`)' }),
    totalIsEstimate: t.exposeBoolean('totalIsEstimate', {
      description:
        "True when `total` is estimated from a sample of 200 of the capability's offers: a query with a reputation, price or language limit, of a capability with more offers than that",
    }),
    resolutionTimeMs: t.exposeFloat('resolutionTimeMs'),
    query: t.expose('query', { type: ResolveQuery, description: 'The query as understood' }),
  }),
});

const ResolveConstraints = builder.inputType('ResolveConstraintsInput', {
  fields: (t) => ({
    minReputation: t.int({ description: '0-100', extensions: range(0, 100) }),
    maxCost: t.float({ description: 'Cents per call', extensions: range(0) }),
    language: t.string(),
  }),
});

const ResolveInput = builder.inputType('ResolveInput', {
  fields: (t) => ({
    capability: t.string({ required: true, extensions: maxLength(64) }),
    prefer: t.field({ type: PreferEnum, description: 'Default balanced' }),
    minReputation: t.int({ description: '0-100', extensions: range(0, 100) }),
    maxCost: t.float({ description: 'Cents per call', extensions: range(0) }),
    language: t.string({ description: 'Services that declare languages must include it' }),
    limit: t.int({ description: '1-100, default 10', extensions: range(1, 100) }),
    constraints: t.field({ type: ResolveConstraints, description: 'The same limits, nested (flat ones win)' }),
  }),
});

builder.queryField('resolve', (t) =>
  t.field({
    type: Resolution,
    description: 'Rank the providers of a capability by reputation, cost, reliability, latency and freshness',
    auth: 'agent',
    args: { input: t.arg({ type: ResolveInput, required: true }) },
    resolve: (_r, { input }, ctx) => discovery.resolveProviders(ctx, input),
  }),
);

builder.queryField('providers', (t) =>
  t.field({
    type: Resolution,
    description: 'The providers of a capability, ranked as resolve ranks them, for browsing (no credential needed)',
    args: {
      capability: t.arg.string({ required: true, description: 'The capability identifier' }),
      prefer: t.arg({ type: PreferEnum, description: 'What the ranking weighs most (default balanced)' }),
      limit: t.arg.int({ description: '1-100, default 10', extensions: range(1, 100) }),
    },
    resolve: (_r, args, ctx) => discovery.browseProviders(ctx, args),
  }),
);

builder.queryField('quickResolve', (t) =>
  t.field({
    type: Match,
    description: 'The single best provider of a capability (404 when none)',
    auth: 'agent',
    args: { capability: t.arg.string({ required: true, extensions: maxLength(64) }), prefer: t.arg({ type: PreferEnum }) },
    resolve: (_r, args, ctx) => discovery.quickResolve(ctx, args),
  }),
);
