// The environment, parsed and typed once. Everything else receives a Config; nothing reads process.env.
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  adminKey?: string;
  publicBaseUrl: string;
  outboundAllowPrivate: boolean;
  logLevel: string;
  /** Milliseconds between uptime samples (one per minute in production; shorter in tests). */
  uptimeSampleMs: number;
  /** Milliseconds allowed for a graceful shutdown before the process exits anyway. */
  shutdownTimeoutMs: number;
  /**
   * Milliseconds after the shutdown signal during which connections already in the accept queue and
   * requests already on the wire are still taken (each answered with Connection: close).
   */
  shutdownAcceptGraceMs: number;
  /** Disable all rate limiting (benchmarks measure the server, not the limiter's 429s). */
  rateLimitDisabled: boolean;
  /** Believe X-Forwarded-For from a reverse proxy on loopback. */
  trustProxy: boolean;
  /** Waits between delivery attempts of an outbound event (CONTRACT §7); one more attempt than entries. */
  deliveryRetryScheduleMs: number[];
  /** Budget of one provider call in `execute` (CONTRACT §6). */
  providerTimeoutMs: number;
  /** How long execute keeps a caller and its providers in the hot cache (0 turns it off). */
  executeCacheMs: number;
  /** Budget of one event delivery. */
  deliveryTimeoutMs: number;
  /** How often each instance looks for due deliveries when nothing wakes it. */
  deliveryPollMs: number;
  /** How often expired memory entries are purged (they vanish from reads at once regardless). */
  memoryPurgeMs: number;
  /** How often each instance looks for due subscription runs. */
  schedulerPollMs: number;
  /** Concurrent event streams (SSE, WebSocket, GraphQL subscriptions of sessions and runs) per agent, per instance. */
  streamsPerAgent: number;
  /** How long pushed streaming events are kept for readers resuming with Last-Event-ID. */
  streamRetentionMs: number;
  /** Seconds between SSE comment lines that keep idle streams open through proxies. */
  sseKeepAliveMs: number;
  /** Fail at once a query made beside an open transaction of the same request (tests; database.ts). */
  dbTransactionGuard: boolean;
  /** Days a sub-key lives when no `expires_at` is asked for. */
  subKeyLifetimeDays: number;
  /** The furthest `expires_at` a sub-key may be given, in days from its provisioning. */
  subKeyMaxLifetimeDays: number;
}

export const VERSION = '1.1.0';
export const API_DOCUMENT_VERSION = '2.0.0';

function integer(name: string, raw: string | undefined, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** A comma-separated list of seconds (fractions allowed), as milliseconds. */
function seconds(name: string, raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined || raw.trim() === '') return fallback;
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (!values.length || values.some((v) => !Number.isFinite(v) || v < 0 || v > 7 * 86_400)) {
    throw new Error(`${name} must be a comma-separated list of seconds (0 to 604800), got "${raw}"`);
  }
  return values.map((v) => Math.round(v * 1000));
}

function url(name: string, raw: string | undefined, protocols: string[]): string | undefined {
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) throw new Error(`${name} must use ${protocols.join(' or ')}`);
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer('PORT', env.PORT, 3000, 0, 65535);
  const adminKey = env.ADMIN_KEY || undefined;
  if (adminKey && !/^key_admin_[0-9A-Za-z]{40}$/.test(adminKey)) {
    throw new Error('ADMIN_KEY must be "key_admin_" followed by 40 base62 characters');
  }
  const subKeyMaxLifetimeDays = integer('SUB_KEY_MAX_LIFETIME_DAYS', env.SUB_KEY_MAX_LIFETIME_DAYS, 730, 1, 3650);
  const subKeyLifetimeDays = integer('SUB_KEY_LIFETIME_DAYS', env.SUB_KEY_LIFETIME_DAYS, Math.min(365, subKeyMaxLifetimeDays), 1, subKeyMaxLifetimeDays);
  return {
    port,
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: url('DATABASE_URL', env.DATABASE_URL, ['postgres:', 'postgresql:']),
    redisUrl: url('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:']),
    adminKey,
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    outboundAllowPrivate: env.OUTBOUND_ALLOW_PRIVATE === '1',
    logLevel: env.LOG_LEVEL || 'info',
    uptimeSampleMs: integer('UPTIME_SAMPLE_MS', env.UPTIME_SAMPLE_MS, 60_000, 10),
    shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', env.SHUTDOWN_TIMEOUT_MS, 10_000, 100),
    shutdownAcceptGraceMs: integer('SHUTDOWN_ACCEPT_GRACE_MS', env.SHUTDOWN_ACCEPT_GRACE_MS, 250, 0, 10_000),
    rateLimitDisabled: env.RATE_LIMIT_DISABLED === '1',
    trustProxy: env.TRUST_PROXY === '1',
    deliveryRetryScheduleMs: seconds('DELIVERY_RETRY_SCHEDULE', env.DELIVERY_RETRY_SCHEDULE, [5_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000]),
    providerTimeoutMs: integer('PROVIDER_TIMEOUT_MS', env.PROVIDER_TIMEOUT_MS, 10_000, 100, 120_000),
    executeCacheMs: integer('EXECUTE_CACHE_MS', env.EXECUTE_CACHE_MS, 2_000, 0, 60_000),
    deliveryTimeoutMs: integer('DELIVERY_TIMEOUT_MS', env.DELIVERY_TIMEOUT_MS, 15_000, 100, 120_000),
    deliveryPollMs: integer('DELIVERY_POLL_MS', env.DELIVERY_POLL_MS, 1_000, 10, 60_000),
    memoryPurgeMs: integer('MEMORY_PURGE_MS', env.MEMORY_PURGE_MS, 60_000, 100),
    schedulerPollMs: integer('SCHEDULER_POLL_MS', env.SCHEDULER_POLL_MS, 250, 10, 60_000),
    streamsPerAgent: integer('STREAMS_PER_AGENT', env.STREAMS_PER_AGENT, 20, 1, 100_000),
    streamRetentionMs: integer('STREAM_RETENTION_MS', env.STREAM_RETENTION_MS, 3_600_000, 1_000),
    sseKeepAliveMs: integer('SSE_KEEPALIVE_MS', env.SSE_KEEPALIVE_MS, 15_000, 100),
    subKeyLifetimeDays,
    subKeyMaxLifetimeDays,
    dbTransactionGuard: env.DB_TX_GUARD === '1',
  };
}
