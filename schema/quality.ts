// The quality the marketplace measures of each service (src/domain/services/quality.ts): its health, and the
// figures published where a buyer chooses (resolve, a capability's providers, a service's record).
import type { Health, Quality, QualityDay } from '../src/domain/services/quality';
import { builder } from './builder';

export const HealthEnum = builder.enumType('ServiceHealth', {
  description:
    "What the marketplace's health probes and calls found: `unknown` (neither yet), `healthy`, or `unhealthy` (failed probes in a row: out of execute's auto routing until probes pass or a call succeeds)",
  values: ['unknown', 'healthy', 'unhealthy'] as const satisfies readonly Health[],
});

export const ServiceQuality = builder.objectRef<Quality>('ServiceQuality').implement({
  description:
    'What the marketplace measured of a service over the last `windowDays` days: calls a buyer made (`calls` says how many a rate stands on; `lowSample` when fewer than 20) and its uptime from calls and probes',
  fields: (t) => ({
    windowDays: t.exposeInt('windowDays', { description: 'The days the call figures cover, today included (UTC)' }),
    calls: t.exposeInt('calls', { description: "Successes and failures that were the provider's fault" }),
    successes: t.exposeInt('successes'),
    failures: t.exposeInt('failures'),
    excused: t.exposeInt('excused', { description: "Failed calls that were not the provider's fault: refusals of the caller's input, the caller's deadline" }),
    successRate: t.exposeFloat('successRate', { nullable: true, description: 'successes / calls, 0-1; null without calls' }),
    latencyP50Ms: t.exposeInt('latencyP50Ms', { nullable: true, description: 'Of the successful calls' }),
    latencyP95Ms: t.exposeInt('latencyP95Ms', { nullable: true, description: 'Of the successful calls' }),
    uptime24h: t.exposeFloat('uptime24h', {
      nullable: true,
      description: 'The share of observed five-minute slots of the last 24 hours in which a call succeeded or a probe passed, 0-1; null when none was observed',
    }),
    uptime7d: t.exposeFloat('uptime7d', { nullable: true, description: 'As uptime24h, over 7 days' }),
    uptime30d: t.exposeFloat('uptime30d', { nullable: true, description: 'As uptime24h, over 30 days' }),
    probes: t.exposeInt('probes', { description: 'Health probes in the window' }),
    lowSample: t.exposeBoolean('lowSample', { description: 'Fewer than 20 calls in the window: the rates say little yet' }),
    computedAt: t.field({ type: 'DateTime', resolve: (q) => new Date(q.computedAt) }),
  }),
});

export const QualityDayRef = builder.objectRef<QualityDay>('ServiceQualityDay').implement({
  description: "One UTC day of a service's calls and probes, as its quality chart shows it",
  fields: (t) => ({
    day: t.exposeString('day', { description: 'YYYY-MM-DD (UTC)' }),
    successes: t.exposeInt('successes'),
    failures: t.exposeInt('failures'),
    excused: t.exposeInt('excused'),
    probesPassed: t.exposeInt('probesPassed'),
    probesFailed: t.exposeInt('probesFailed'),
    latencyP50Ms: t.exposeInt('latencyP50Ms', { nullable: true }),
    latencyP95Ms: t.exposeInt('latencyP95Ms', { nullable: true }),
    uptime: t.exposeFloat('uptime', { nullable: true, description: "The share of the day's observed five-minute slots that were up, 0-1" }),
  }),
});
