// The request context every domain function receives: the database, the caller, and the shared
// machinery (events, clock, config, log). Built once per request by each surface (REST, GraphQL, WS).
import type { Config } from '../config';
import type { Db, SqlRunner } from '../db/database';
import type { Agent } from '../db/generated/prisma/client';
import type { Bearer } from '../platform/auth';
import type { Clock } from '../platform/clock';
import type { Logger } from '../platform/logger';
import type { IdempotencyStore } from '../platform/idempotency';
import type { ChatModel } from '../platform/chat-model';
import type { OutboundClient } from '../platform/outbound';
import type { Dispatcher, OutboxRelay } from '../platform/outbox';
import type { EventBus } from '../platform/pubsub';
import type { RateLimiter } from '../platform/rate-limit';
import type { Scheduler } from '../platform/scheduler';
import type { Worker } from '../platform/worker';
import type { StreamSlots } from '../platform/stream-slots';
import type { SessionStreams } from './streaming/sessions';
import type { RunStreams } from './subscriptions/subscriptions';
import type { SubscriptionScheduler } from './subscriptions/scheduler';
import type { SwarmRunner } from './swarms/runner';
import type { SwarmStreams } from './swarms/swarms';
import type { UtoStreams } from './uto/events';
import type { RadioStreams } from './ext/radio';
import type { UsageRecorder } from './agents/usage';
import type { Topics } from './events';
import type { VectorSearchMode } from './memory/vectors';
import type { ReadCache } from '../platform/read-cache';
import type { PrincipalCache } from './agents/principal-cache';
import type { ProviderStats } from './execution/provider-stats';
import type { DisputePipeline } from './disputes/disputes';
import type { SigningKeys } from './webhooks/signing-key';
import type { ManifestTool } from './webmcp/manifest';
import type { PaymentServices } from './payments/payments';

/** Long-lived machinery shared by every request of one instance. */
export interface Services {
  config: Config;
  db: Db;
  /** The driver, for per-request hot reads only (see SqlRunner). */
  sql: SqlRunner;
  dbKind: 'pglite' | 'postgres';
  /** How vector memory stores are searched: pgvector's HNSW index, or an exact scan (memory/vectors.ts). */
  vectorSearch: VectorSearchMode;
  pingDb(): Promise<void>;
  events: EventBus<Topics>;
  /** Relays committed events to live streams (see transact in events.ts). */
  outbox: OutboxRelay;
  /** Sends due deliveries of events to webhooks, ticket endpoints and callbacks. */
  dispatcher: Dispatcher;
  /** Every outbound HTTPS call (providers, receivers) goes through this SSRF-guarded client. */
  outbound: OutboundClient;
  /** The model backend of model-backed capabilities (LLM_BASE_URL and LLM_MODEL), when one is configured. */
  chatModel?: ChatModel;
  signingKeys: SigningKeys;
  /** Folds execution attempts into provider statistics and reputation after each execution. */
  providerStats: ProviderStats;
  /**
   * Answers of hot reads (rankings, execute's candidates, marketplace pages) kept for a moment, emptied on
   * every change notified on marketplace_changes and after this instance's mutations (read-cache.ts).
   */
  readCache: ReadCache;
  /** Callers by credential hash, emptied on every change of their agent or credential (principal-cache.ts). */
  principals: PrincipalCache<Principal>;
  /** Decides new disputes from the records, or sends them to review. */
  disputes: DisputePipeline;
  /** Paid calls: the asset and network, the facilitator, wallet keys (payments/payments.ts). */
  payments: PaymentServices;
  limiter: RateLimiter;
  /** Concurrent event streams per agent on this instance (STREAMS_PER_AGENT). */
  streamSlots: StreamSlots;
  /** Connections held open (graphql-ws, graphql-sse, MCP sessions) per caller: its live credential, or its address. */
  connectionSlots: StreamSlots;
  /** Readers of streaming sessions, fed from the bus and the database (streaming/sessions.ts). */
  sessionStreams: SessionStreams;
  /** Readers of capability subscriptions' runs (subscriptions/subscriptions.ts). */
  runStreams: RunStreams;
  /** Claims and performs due subscription runs (subscriptions/scheduler.ts); set once the services exist. */
  subscriptionScheduler?: SubscriptionScheduler;
  /** Readers of swarm sessions' progress (swarms/swarms.ts). */
  swarmStreams: SwarmStreams;
  /** Claims and runs swarm steps (swarms/runner.ts); set once the services exist. */
  swarmRunner?: SwarmRunner;
  /** Readers of the events of agents' UTO tickets (uto/events.ts). */
  utoStreams: UtoStreams;
  /** Readers of the radio's broadcasts (ext/radio.ts). */
  radioStreams: RadioStreams;
  /** Matches validated UTO tickets to specialists and providers (uto/matcher.ts); set once the services exist. */
  utoMatcher?: Worker;
  /** Fetches and indexes submitted WebMCP sites (webmcp/index-sites.ts); set once the services exist. */
  webmcpIndexer?: Worker;
  /**
   * The marketplace's own tools as a WebMCP manifest lists them (`manifest`: the spec's eight; `all`: every
   * MCP tool, indexed beside other sites'); set by the composition from the tool table.
   */
  ownTools?: { name: string; description: string; manifest: ManifestTool[]; all: ManifestTool[] };
  scheduler: Scheduler;
  usage: UsageRecorder;
  idempotency: IdempotencyStore;
  clock: Clock;
  log: Logger;
  startedAt: Date;
  /** Set when shutdown begins: /health answers 503 `draining` and every answer closes its connection. */
  draining: boolean;
}

export type Principal =
  | { kind: 'anonymous' }
  /** A credential was sent but is not a live one (unknown, malformed or revoked). */
  | { kind: 'invalid' }
  | { kind: 'agent'; agent: Agent; credentialId: string }
  | { kind: 'admin'; credentialId: string };

export interface Ctx {
  services: Services;
  db: Db;
  requestId: string;
  /** The client's address, for rate limits without a credential and for audit records. */
  clientAddress: string;
  bearer: Bearer;
  /** The caller, looked up on first use and remembered for the request. */
  principal(): Promise<Principal>;
  /** The caller once looked up (for usage counting after the operation), else undefined. */
  resolvedPrincipal?: Principal;
  /**
   * Supplies the caller when an operation looked it up itself, together with its own first query (see
   * execute); ignored once the caller was looked up.
   */
  seedPrincipal(principal: Principal): void;
  /** Set by the REST layer: it has already charged the route's rate-limit bucket. */
  rateLimited?: boolean;
  /**
   * What an operation's result asks of a REST answer beyond the route's own: another status and headers
   * (a health check that is down answers 503 with its report; a paid call carries PAYMENT-RESPONSE). Set
   * by schema resolvers, read by rest/.
   */
  httpAnswer?: { status?: number; headers?: Record<string, string> };
}
