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
  /** Disable all rate limiting (benchmarks measure the server, not the limiter's 429s). */
  rateLimitDisabled: boolean;
  /** Believe X-Forwarded-For from a reverse proxy on loopback. */
  trustProxy: boolean;
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
    rateLimitDisabled: env.RATE_LIMIT_DISABLED === '1',
    trustProxy: env.TRUST_PROXY === '1',
  };
}
