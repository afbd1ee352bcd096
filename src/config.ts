// The environment, parsed and typed once. Everything else receives a Config; nothing reads process.env.
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A new embedded data directory is made from the install's migrated seed (EMBEDDED_SEED=0: by initdb and every migration). */
  embeddedSeed: boolean;
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
  /** How long the read cache keeps a ranking, execute's candidates or a marketplace page (0 turns it off). */
  readCacheMs: number;
  /**
   * A provider with no call for this long is probed, and probed again at this interval while it gets none
   * (src/domain/services/probes.ts); 0 turns probing off.
   */
  probeIntervalMs: number;
  /** At most one probe per this long to any one host, across every instance. */
  probeHostGapMs: number;
  /** New calls and probes show in a service's published quality within about this long (they are gathered meanwhile). */
  qualityDelayMs: number;
  /** Keep callers looked up by their credential in memory, emptied by change notifications (PRINCIPAL_CACHE=0 turns it off). */
  principalCache: boolean;
  /** A request's headers must all arrive within this (408 and a closed connection otherwise). */
  headersTimeoutMs: number;
  /** A whole request, headers and body (at most 1 MiB), must arrive within this. */
  requestTimeoutMs: number;
  /**
   * Connections held open (graphql-ws sockets, graphql-sse streams, MCP sessions) one caller may have at
   * once on an instance: per live credential, or per address without one.
   */
  connectionsPerCaller: number;
  /** Whether GraphQL introspection (`__schema`, `__type`) is answered (GRAPHQL_INTROSPECTION=0 turns it off). */
  graphqlIntrospection: boolean;
  /** METRICS_TOKEN: when set, GET /metrics answers only a request bearing it (`Authorization: Bearer …`). */
  metricsToken?: string;
  /** Budget of one event delivery. */
  deliveryTimeoutMs: number;
  /** How often each instance looks for due deliveries when nothing wakes it. */
  deliveryPollMs: number;
  /** How often expired memory entries are purged (they vanish from reads at once regardless). */
  memoryPurgeMs: number;
  /** How often to vacuum and analyse the tables due, where the database runs no autovacuum (0: never). */
  dbMaintenanceMs: number;
  /** How often each instance looks for due subscription runs. */
  schedulerPollMs: number;
  /** A subscription tick later than this is a missed one (downtime): missed ticks collapse into one run. */
  missedTickGraceMs: number;
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
  /** Paid capabilities over x402 (CONTRACT §8; docs/payments.md). */
  payments: PaymentsConfig;
  /** The model backend of model-backed capabilities (LLM_BASE_URL, LLM_MODEL, LLM_API_KEY). */
  llm: LlmConfig;
  /** The ACP offering views (spec §4.12). */
  acp: AcpConfig;
}

export interface PaymentsConfig {
  /** The x402 network, CAIP-2 (`eip155:84532`, Base Sepolia). */
  network: string;
  /** The token contract paid in; unset: the network's default USDC (@x402/evm's table). */
  asset?: string;
  /** A remote facilitator speaking the standard verify/settle API; unset: sandbox mode, settled in the ledger. */
  facilitatorUrl?: string;
  /** Where payments go (`payTo`); required with a remote facilitator, the settlement account's address in sandbox. */
  payTo?: string;
  /** How long a signed payment may take to reach the marketplace (`maxTimeoutSeconds`). */
  maxTimeoutSeconds: number;
  /** The marketplace's fee on every paid call, in basis points of the price. */
  feeBps: number;
  /** The sandbox faucet tops a wallet up to this many whole units of the asset (a decimal string). */
  faucetCap: string;
  /** What a wallet opened in sandbox mode starts with (a decimal string, 0 or more; the faucet's cap by default). */
  sandboxStartingBalance: string;
  /** The key-encryption key of wallets' private keys (32 bytes); unset: generated once, kept in the database. */
  walletEncryptionKey?: Buffer;
  /**
   * How long a paid call's provider share stays pending, disputable and refundable from escrow, before it is
   * available (seconds; 0: available at once). 7 days with a remote facilitator, 10 minutes in sandbox mode.
   */
  disputeWindowSeconds: number;
}

/** The model backend of the marketplace's model-backed capabilities: any OpenAI-compatible chat-completions API. */
export interface LlmConfig {
  /** e.g. `http://127.0.0.1:11434/v1` (Ollama), `https://api.openai.com/v1`; unset: no backend. */
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  /** Budget of one completion. */
  timeoutMs: number;
}

export interface AcpConfig {
  enabled: boolean;
  /** The network token offerings are priced in. */
  token: string;
  tokenDecimals: number;
  /** US dollars per token (a decimal string). */
  tokenUsdRate: string;
  /** The evaluation phase's window after delivery. */
  evaluationSeconds: number;
  /** How long a provider has to deliver once the buyer's payment is in escrow. */
  deliverySeconds: number;
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

const DECIMAL = /^\d{1,12}(\.\d{1,18})?$/;

function decimal(name: string, raw: string | undefined, fallback: string): string {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!DECIMAL.test(raw.trim()) || !/[1-9]/.test(raw)) throw new Error(`${name} must be a positive decimal number such as 1.25, got "${raw}"`);
  return raw.trim();
}

/** As `decimal`, but 0 is allowed (SANDBOX_STARTING_BALANCE=0: wallets open empty). */
function nonNegativeDecimal(name: string, raw: string | undefined, fallback: string): string {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!DECIMAL.test(raw.trim())) throw new Error(`${name} must be a decimal number such as 1.25 (0 or more), got "${raw}"`);
  return raw.trim();
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function address(name: string, raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!EVM_ADDRESS.test(raw)) throw new Error(`${name} must be an EVM address (0x and 40 hexadecimal digits)`);
  return raw.toLowerCase();
}

function encryptionKey(raw: string | undefined): Buffer | undefined {
  if (!raw) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error('WALLET_ENCRYPTION_KEY must be 32 bytes, as 64 hexadecimal digits or base64');
  return key;
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
    embeddedSeed: env.EMBEDDED_SEED !== '0',
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
    readCacheMs: integer('READ_CACHE_MS', env.READ_CACHE_MS, 2_000, 0, 60_000),
    probeIntervalMs: integer('PROBE_INTERVAL_MS', env.PROBE_INTERVAL_MS, 300_000, 0, 86_400_000),
    probeHostGapMs: integer('PROBE_HOST_GAP_MS', env.PROBE_HOST_GAP_MS, 1_000, 0, 3_600_000),
    qualityDelayMs: integer('QUALITY_DELAY_MS', env.QUALITY_DELAY_MS, 10_000, 0, 3_600_000),
    principalCache: env.PRINCIPAL_CACHE !== '0',
    graphqlIntrospection: env.GRAPHQL_INTROSPECTION !== '0',
    metricsToken: metricsToken(env.METRICS_TOKEN),
    headersTimeoutMs: integer('HEADERS_TIMEOUT_MS', env.HEADERS_TIMEOUT_MS, 10_000, 100, 300_000),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, 30_000, 100, 300_000),
    connectionsPerCaller: integer('CONNECTIONS_PER_CALLER', env.CONNECTIONS_PER_CALLER, 32, 1, 100_000),
    deliveryTimeoutMs: integer('DELIVERY_TIMEOUT_MS', env.DELIVERY_TIMEOUT_MS, 15_000, 100, 120_000),
    deliveryPollMs: integer('DELIVERY_POLL_MS', env.DELIVERY_POLL_MS, 1_000, 10, 60_000),
    memoryPurgeMs: integer('MEMORY_PURGE_MS', env.MEMORY_PURGE_MS, 60_000, 100),
    dbMaintenanceMs: integer('DB_MAINTENANCE_MS', env.DB_MAINTENANCE_MS, 30_000, 0, 86_400_000),
    schedulerPollMs: integer('SCHEDULER_POLL_MS', env.SCHEDULER_POLL_MS, 250, 10, 60_000),
    missedTickGraceMs: integer('MISSED_TICK_GRACE_MS', env.MISSED_TICK_GRACE_MS, 5_000, 1_000, 3_600_000),
    streamsPerAgent: integer('STREAMS_PER_AGENT', env.STREAMS_PER_AGENT, 20, 1, 100_000),
    streamRetentionMs: integer('STREAM_RETENTION_MS', env.STREAM_RETENTION_MS, 3_600_000, 1_000),
    sseKeepAliveMs: integer('SSE_KEEPALIVE_MS', env.SSE_KEEPALIVE_MS, 15_000, 100),
    subKeyLifetimeDays,
    subKeyMaxLifetimeDays,
    dbTransactionGuard: env.DB_TX_GUARD === '1',
    payments: paymentsConfig(env),
    llm: {
      baseUrl: url('LLM_BASE_URL', env.LLM_BASE_URL, ['https:', 'http:'])?.replace(/\/+$/, ''),
      model: env.LLM_MODEL || undefined,
      apiKey: env.LLM_API_KEY || undefined,
      timeoutMs: integer('LLM_TIMEOUT_MS', env.LLM_TIMEOUT_MS, 60_000, 100, 600_000),
    },
    acp: {
      enabled: env.ACP_ENABLED !== '0',
      token: env.ACP_TOKEN || 'VIRTUAL',
      tokenDecimals: integer('ACP_TOKEN_DECIMALS', env.ACP_TOKEN_DECIMALS, 18, 0, 30),
      tokenUsdRate: decimal('ACP_TOKEN_USD_RATE', env.ACP_TOKEN_USD_RATE, '1'),
      evaluationSeconds: integer('ACP_EVALUATION_SECONDS', env.ACP_EVALUATION_SECONDS, 86_400, 60, 30 * 86_400),
      deliverySeconds: integer('ACP_DELIVERY_SECONDS', env.ACP_DELIVERY_SECONDS, 3_600, 10, 30 * 86_400),
    },
  };
}

/** A bearer token a Prometheus scrape config can carry: 16-256 visible ASCII characters, no spaces. */
function metricsToken(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!/^[\x21-\x7e]{16,256}$/.test(raw)) throw new Error('METRICS_TOKEN must be 16 to 256 visible ASCII characters (no spaces)');
  return raw;
}

function paymentsConfig(env: NodeJS.ProcessEnv): PaymentsConfig {
  const network = env.X402_NETWORK || 'eip155:84532';
  if (!/^eip155:\d{1,12}$/.test(network)) throw new Error(`X402_NETWORK must be an EVM network in CAIP-2 form (eip155:<chain id>), got "${network}"`);
  const facilitatorUrl = url('X402_FACILITATOR_URL', env.X402_FACILITATOR_URL, ['https:']);
  const payTo = address('X402_PAY_TO', env.X402_PAY_TO);
  if (facilitatorUrl && !payTo) throw new Error('X402_PAY_TO (the address payments go to) is required with X402_FACILITATOR_URL');
  return {
    network,
    asset: address('X402_ASSET', env.X402_ASSET),
    facilitatorUrl: facilitatorUrl?.replace(/\/+$/, ''),
    payTo,
    maxTimeoutSeconds: integer('X402_MAX_TIMEOUT_SECONDS', env.X402_MAX_TIMEOUT_SECONDS, 120, 10, 3_600),
    feeBps: integer('MARKETPLACE_FEE_BPS', env.MARKETPLACE_FEE_BPS, 1_000, 0, 5_000),
    faucetCap: decimal('SANDBOX_FAUCET_CAP', env.SANDBOX_FAUCET_CAP, '10'),
    sandboxStartingBalance: nonNegativeDecimal(
      'SANDBOX_STARTING_BALANCE',
      env.SANDBOX_STARTING_BALANCE,
      decimal('SANDBOX_FAUCET_CAP', env.SANDBOX_FAUCET_CAP, '10'),
    ),
    walletEncryptionKey: encryptionKey(env.WALLET_ENCRYPTION_KEY),
    disputeWindowSeconds: integer('DISPUTE_WINDOW_SECONDS', env.DISPUTE_WINDOW_SECONDS, facilitatorUrl ? 604_800 : 600, 0, 90 * 86_400),
  };
}
