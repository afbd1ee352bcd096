// What a service's owner does with it once registered, beside updateService (schema/services.ts): pause
// it (until a time: a beta feature), resume it, remove it, list its own services in every state, and read
// its analytics (a beta feature).
import * as analytics from '../src/domain/services/analytics';
import * as lifecycle from '../src/domain/services/lifecycle';
import * as services from '../src/domain/services/services';
import { builder } from './builder';
import { maxLength, oneOf, range } from './json-schema';
import { pagedField } from './paging';
import { Service } from './services';

builder.prismaObjectField(Service, 'resumeAt', (t) =>
  t.expose('resumeAt', {
    type: 'DateTime',
    nullable: true,
    description: 'A paused service resumes then (a scheduled resume: a beta feature, Trusted and above); null otherwise',
  }),
);

builder.prismaObjectField(Service, 'statusReason', (t) =>
  t.string({
    nullable: true,
    description:
      'Why the marketplace keeps the service out of service, and what lifts it: `suspended` (its provider is suspended or banned) and `inactive` (a long run of failures); null in the other states',
    resolve: (s) => lifecycle.statusReason(s),
  }),
);

const SERVICE_KEY = 'The service key, `svc_…`';

const PauseServiceInput = builder.inputType('PauseServiceInput', {
  fields: (t) => ({
    resumeAt: t.field({
      type: 'DateTime',
      description: `Resume it then (ISO 8601, within ${lifecycle.RESUME_AT_MAX_DAYS} days). A beta feature: Trusted and above (reputation 61+); 403 for the others`,
    }),
    reason: t.string({ description: 'Why, at most 500 characters: recorded with the move', extensions: maxLength(500) }),
  }),
});

builder.mutationField('pauseService', (t) =>
  t.prismaField({
    type: 'Service',
    description:
      "Pause a service of the caller's (another agent's answers 404): out of the listings, resolve, execute and sub-key provisioning and verification, from the next request on, on every instance, until resumed. active (or inactive) → paused; 409 otherwise.",
    auth: 'agent',
    args: { serviceKey: t.arg.string({ required: true, description: SERVICE_KEY }), input: t.arg({ type: PauseServiceInput }) },
    resolve: (query, _r, { serviceKey, input }, ctx) => lifecycle.pauseService(ctx, serviceKey, input ?? {}, query),
  }),
);

builder.mutationField('resumeService', (t) =>
  t.prismaField({
    type: 'Service',
    description:
      "Resume a paused service of the caller's, or reactivate one the marketplace took out of service (inactive): offered again from the next request on, on every instance. paused or inactive → active; 409 otherwise (a suspended service follows its provider's status).",
    auth: 'agent',
    args: { serviceKey: t.arg.string({ required: true, description: SERVICE_KEY }) },
    resolve: (query, _r, { serviceKey }, ctx) => lifecycle.resumeService(ctx, serviceKey, query),
  }),
);

builder.mutationField('removeService', (t) =>
  t.prismaField({
    type: 'Service',
    description:
      "Remove a service of the caller's for good (status `removed`): never offered, listed or found by its key again; its sub-keys are revoked and its ticket endpoint deleted. Its executions, transactions, disputes and tickets keep naming it.",
    auth: 'agent',
    args: { serviceKey: t.arg.string({ required: true, description: SERVICE_KEY }) },
    resolve: (query, _r, { serviceKey }, ctx) => lifecycle.removeService(ctx, serviceKey, query),
  }),
);

builder.queryField('myServices', (t) =>
  pagedField(t, Service, {
    description:
      "The caller's services, newest first, in every state but removed (status narrows to one, removed included); `statusReason` says why an inactive or suspended one is out of service",
    auth: 'agent',
    args: { status: t.arg.string({ description: services.SERVICE_STATUSES.join(', '), extensions: oneOf(services.SERVICE_STATUSES) }) },
    resolve: (ctx, args, page) => services.myServices(ctx, args.status, page),
  }),
);

const counts = (t: any) => ({
  calls: t.exposeInt('calls', { description: 'Attempts the marketplace made of the service' }),
  successes: t.exposeInt('successes'),
  failures: t.exposeInt('failures'),
  chargedCents: t.exposeInt('chargedCents', { description: 'What callers were charged for the calls it answered, integer cents' }),
});

const FailureReason = builder.objectRef<analytics.ServiceAnalytics['totals']['failureReasons'][number]>('ServiceFailureReason').implement({
  fields: (t) => ({ reason: t.exposeString('reason', { description: '`http_503`, `timeout`, `connection`, `invalid_json`, …' }), count: t.exposeInt('count') }),
});

const AnalyticsTotals = builder.objectRef<analytics.ServiceAnalytics['totals']>('ServiceAnalyticsTotals').implement({
  fields: (t) => ({
    ...counts(t),
    callers: t.exposeInt('callers', { description: 'Distinct agents that called it' }),
    latencyP50Ms: t.exposeInt('latencyP50Ms', { nullable: true, description: 'Of its successes' }),
    latencyP95Ms: t.exposeInt('latencyP95Ms', { nullable: true, description: 'Of its successes' }),
    failureReasons: t.field({
      type: [FailureReason],
      description: 'Why its calls failed, most frequent first (at most 20 reasons)',
      resolve: (r) => r.failureReasons,
    }),
  }),
});

const AnalyticsDay = builder.objectRef<analytics.ServiceAnalytics['byDay'][number]>('ServiceAnalyticsDay').implement({
  fields: (t) => ({ day: t.exposeString('day', { description: 'A UTC day, YYYY-MM-DD' }), ...counts(t) }),
});

const AnalyticsCapability = builder.objectRef<analytics.ServiceAnalytics['byCapability'][number]>('ServiceAnalyticsCapability').implement({
  fields: (t) => ({ capability: t.exposeString('capability'), ...counts(t) }),
});

const Analytics = builder.objectRef<analytics.ServiceAnalytics>('ServiceAnalytics').implement({
  description: "A service's calls over a window of days, for its owner (a beta feature: Trusted and above)",
  fields: (t) => ({
    serviceKey: t.exposeString('serviceKey'),
    days: t.exposeInt('days'),
    since: t.expose('since', { type: 'DateTime' }),
    totals: t.field({ type: AnalyticsTotals, resolve: (a) => a.totals }),
    byDay: t.field({ type: [AnalyticsDay], description: 'Each UTC day with a call, oldest first', resolve: (a) => a.byDay }),
    byCapability: t.field({ type: [AnalyticsCapability], description: 'Each capability it was called for, most calls first', resolve: (a) => a.byCapability }),
  }),
});

builder.queryField('serviceAnalytics', (t) =>
  t.field({
    type: Analytics,
    description:
      "Beta (Trusted and above: 403 naming the tier for the others): a service of the caller's calls over the last `days` days, by day and by capability, with what callers were charged, latency and failure reasons. Another agent's service answers 404.",
    auth: 'agent',
    args: {
      serviceKey: t.arg.string({ required: true, description: SERVICE_KEY }),
      days: t.arg.int({
        description: `1-${analytics.ANALYTICS_MAX_DAYS}, default ${analytics.ANALYTICS_DEFAULT_DAYS}`,
        extensions: range(1, analytics.ANALYTICS_MAX_DAYS),
      }),
    },
    resolve: (_r, { serviceKey, days }, ctx) => analytics.serviceAnalytics(ctx, serviceKey, days),
  }),
);
