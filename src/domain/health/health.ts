// Service health: component checks for /health, and uptime computed from per-minute samples that every
// instance records (a minute with no healthy sample counts as down).
import v8 from 'node:v8';
import { VERSION } from '../../config';
import { Checks } from '../../platform/validate';
import type { Ctx, Services } from '../context';

export type ComponentStatus = 'ok' | 'degraded' | 'down';

export type HealthStatus = ComponentStatus | 'draining';

export interface Health {
  /** `down` when a required component (the database) is unreachable; `draining` once shutdown began. */
  status: HealthStatus;
  version: string;
  uptimeSeconds: number;
  checkedAt: Date;
  components: {
    database: { status: ComponentStatus; kind: string; latencyMs: number | null; error: string | null };
    sse: { status: ComponentStatus; openStreams: number; redis: 'connected' | 'disconnected' | 'off' };
    scheduler: { status: ComponentStatus; jobs: number; lastRunAt: Date | null };
    memory: { status: ComponentStatus; rssBytes: number; heapUsedBytes: number; heapLimitBytes: number; vectorSearch: 'pgvector' | 'exact' };
  };
}

const MEMORY_DEGRADED_RATIO = 0.9;

export async function checkDatabase(services: Services) {
  const started = performance.now();
  try {
    await services.pingDb();
    return { status: 'ok' as const, kind: services.dbKind, latencyMs: Math.round((performance.now() - started) * 100) / 100, error: null };
  } catch (err) {
    services.log.warn({ err: err instanceof Error ? err.message : err }, 'database health check failed');
    return { status: 'down' as const, kind: services.dbKind, latencyMs: null, error: 'unreachable' };
  }
}

export async function getHealth(ctx: Ctx): Promise<Health> {
  const { services } = ctx;
  const database = await checkDatabase(services);
  const connected = services.events.redisConnected;
  const redis = connected === undefined ? 'off' : connected ? 'connected' : 'disconnected';
  const scheduler = services.scheduler.status();
  const lastRuns = scheduler.jobs
    .map((j) => j.last_run_at)
    .filter((t): t is string => !!t)
    .sort();
  const mem = process.memoryUsage();
  const heapLimit = v8.getHeapStatistics().heap_size_limit;
  const components: Health['components'] = {
    database,
    sse: { status: redis === 'disconnected' ? 'degraded' : 'ok', openStreams: services.events.openStreams, redis },
    scheduler: {
      status: scheduler.status === 'ok' ? 'ok' : scheduler.status === 'degraded' ? 'degraded' : 'down',
      jobs: scheduler.jobs.length,
      lastRunAt: lastRuns.length ? new Date(lastRuns[lastRuns.length - 1]) : null,
    },
    memory: {
      status: mem.heapUsed / heapLimit > MEMORY_DEGRADED_RATIO ? 'degraded' : 'ok',
      rssBytes: mem.rss,
      heapUsedBytes: mem.heapUsed,
      heapLimitBytes: heapLimit,
      vectorSearch: services.vectorSearch,
    },
  };
  const statuses = Object.values(components).map((c) => c.status);
  const status: HealthStatus = services.draining ? 'draining' : database.status === 'down' ? 'down' : statuses.every((s) => s === 'ok') ? 'ok' : 'degraded';
  return {
    status,
    version: VERSION,
    uptimeSeconds: Math.floor((Date.now() - services.startedAt.getTime()) / 1000),
    checkedAt: services.clock.now(),
    components,
  };
}

function minuteOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000);
}

/** Records this minute's sample; any instance's healthy sample marks the minute up. */
export async function recordUptimeSample(services: Services): Promise<void> {
  const minute = minuteOf(services.clock.now());
  await services.db.uptimeSample.upsert({
    where: { minute },
    create: { minute, healthy: true },
    update: { healthy: true, checkedAt: services.clock.now() },
  });
}

export const UPTIME_DEFAULT_DAYS = 30;
export const UPTIME_MAX_DAYS = 90;

export interface Uptime {
  days: number;
  uptimePercent: number;
  /** Minutes of the window since the first recorded sample. */
  minutesObserved: number;
  minutesUp: number;
  since: Date | null;
}

export async function getUptime(ctx: Ctx, days: number | null | undefined): Promise<Uptime> {
  const checks = new Checks();
  const window = days ?? UPTIME_DEFAULT_DAYS;
  if (!Number.isFinite(window) || window <= 0 || window > UPTIME_MAX_DAYS)
    checks.fail('days', `must be a number greater than 0 and at most ${UPTIME_MAX_DAYS}`);
  checks.done();

  const now = ctx.services.clock.now();
  const windowStart = new Date(now.getTime() - window * 86_400_000);
  const [first, up] = await Promise.all([
    ctx.db.uptimeSample.findFirst({ where: { minute: { gte: minuteOf(windowStart) } }, orderBy: { minute: 'asc' }, select: { minute: true } }),
    ctx.db.uptimeSample.count({ where: { minute: { gte: minuteOf(windowStart) }, healthy: true } }),
  ]);
  if (!first) return { days: window, uptimePercent: 100, minutesObserved: 0, minutesUp: 0, since: null };
  const observed = Math.max(1, Math.floor((minuteOf(now).getTime() - first.minute.getTime()) / 60_000) + 1);
  const minutesUp = Math.min(up, observed);
  return {
    days: window,
    uptimePercent: Math.round((minutesUp / observed) * 100_000) / 1000,
    minutesObserved: observed,
    minutesUp,
    since: first.minute,
  };
}
