// Health, liveness, version and uptime: public operational fields.
import { VERSION } from '../src/config';
import * as health from '../src/domain/health/health';
import { builder } from './builder';
import { range } from './json-schema';

const ComponentStatus = builder.enumType('ComponentStatus', { values: ['ok', 'degraded', 'down'] as const });
const HealthStatus = builder.enumType('HealthStatus', {
  description: '`ok`; `degraded` (a component is, but requests are served); `down` (a required component is unreachable); `draining` (shutting down)',
  values: ['ok', 'degraded', 'down', 'draining'] as const,
});

type Components = health.Health['components'];

const DatabaseHealth = builder.objectRef<Components['database']>('DatabaseHealth').implement({
  fields: (t) => ({
    status: t.expose('status', { type: ComponentStatus }),
    kind: t.exposeString('kind', { description: '`pglite` (embedded) or `postgres`' }),
    latencyMs: t.exposeFloat('latencyMs', { nullable: true }),
  }),
});

const StreamsHealth = builder.objectRef<Components['sse']>('StreamsHealth').implement({
  fields: (t) => ({
    status: t.expose('status', { type: ComponentStatus }),
    openStreams: t.exposeInt('openStreams', { description: 'Open subscription streams (SSE and WebSocket) on this instance' }),
    redis: t.exposeString('redis', { description: 'The shared Redis: `connected`, `disconnected`, or `off` without REDIS_URL (events stay on this instance)' }),
  }),
});

const SchedulerHealth = builder.objectRef<Components['scheduler']>('SchedulerHealth').implement({
  fields: (t) => ({
    status: t.expose('status', { type: ComponentStatus }),
    jobs: t.exposeInt('jobs'),
    lastRunAt: t.expose('lastRunAt', { type: 'DateTime', nullable: true }),
  }),
});

const MemoryHealth = builder.objectRef<Components['memory']>('MemoryHealth').implement({
  fields: (t) => ({
    status: t.expose('status', { type: ComponentStatus }),
    rssBytes: t.exposeFloat('rssBytes'),
    heapUsedBytes: t.exposeFloat('heapUsedBytes'),
    heapLimitBytes: t.exposeFloat('heapLimitBytes'),
    vectorSearch: t.exposeString('vectorSearch', {
      description: 'How memory stores find nearest neighbours: `pgvector` (HNSW index) or `exact` (a scan in SQL)',
    }),
  }),
});

const HealthComponents = builder.objectRef<Components>('HealthComponents').implement({
  fields: (t) => ({
    database: t.field({ type: DatabaseHealth, resolve: (c) => c.database }),
    sse: t.field({ type: StreamsHealth, resolve: (c) => c.sse }),
    scheduler: t.field({ type: SchedulerHealth, resolve: (c) => c.scheduler }),
    memory: t.field({ type: MemoryHealth, resolve: (c) => c.memory }),
  }),
});

const Health = builder.objectRef<health.Health>('Health').implement({
  fields: (t) => ({
    status: t.expose('status', { type: HealthStatus }),
    version: t.exposeString('version'),
    uptimeSeconds: t.exposeInt('uptimeSeconds', { description: 'Seconds since this instance started' }),
    checkedAt: t.expose('checkedAt', { type: 'DateTime' }),
    components: t.field({ type: HealthComponents, resolve: (h) => h.components }),
  }),
});

const Uptime = builder.objectRef<health.Uptime>('Uptime').implement({
  fields: (t) => ({
    days: t.exposeInt('days'),
    uptimePercent: t.exposeFloat('uptimePercent', { description: 'Share of observed minutes with a healthy sample, 0-100' }),
    minutesObserved: t.exposeInt('minutesObserved'),
    minutesUp: t.exposeInt('minutesUp'),
    since: t.expose('since', { type: 'DateTime', nullable: true, description: 'The first sample inside the window' }),
  }),
});

const Version = builder.objectRef<{ version: string }>('Version').implement({
  fields: (t) => ({ version: t.exposeString('version') }),
});

builder.queryField('health', (t) =>
  t.field({
    type: Health,
    description:
      'Status of this instance and its components. Over REST, `down` and `draining` answer HTTP 503 (a load balancer stops sending), with the same report',
    resolve: (_r, _a, ctx) => health.getHealth(ctx),
  }),
);

builder.queryField('ping', (t) => t.boolean({ description: 'Liveness: always true', resolve: () => true }));

builder.queryField('version', (t) => t.field({ type: Version, resolve: () => ({ version: VERSION }) }));

builder.queryField('uptime', (t) =>
  t.field({
    type: Uptime,
    description: `Uptime over the last \`days\` days (default ${health.UPTIME_DEFAULT_DAYS}, at most ${health.UPTIME_MAX_DAYS})`,
    args: { days: t.arg.int({ description: `Window in days (default ${health.UPTIME_DEFAULT_DAYS})`, extensions: range(1, health.UPTIME_MAX_DAYS) }) },
    resolve: (_r, { days }, ctx) => health.getUptime(ctx, days),
  }),
);
