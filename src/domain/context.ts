// The request context every domain function receives: the database, the caller, and the shared
// machinery (events, clock, config, log). Built once per request by each surface (REST, GraphQL, WS).
import type { Config } from '../config';
import type { Db, SqlRunner } from '../db/database';
import type { Agent } from '../db/generated/prisma/client';
import type { Bearer } from '../platform/auth';
import type { Clock } from '../platform/clock';
import type { ResponseFacts } from '../platform/http';
import type { Logger } from '../platform/logger';
import type { IdempotencyStore } from '../platform/idempotency';
import type { ChatModel } from '../platform/chat-model';
import type { OutboundClient } from '../platform/outbound';
import type { Dispatcher, OutboxRelay } from '../platform/outbox';
import type { RateLimiter } from '../platform/rate-limit';
import type { Scheduler } from '../platform/scheduler';
import type { StreamSlots } from '../platform/stream-slots';
import type { ReadCache } from '../platform/read-cache';

/**
 * Long-lived machinery shared by every request of one instance. Here the platform's; an area declares its
 * own beside the code that makes it (`declare module '../context'`), so this file imports no area and every
 * area may import it. app/app.ts builds them all.
 */
export interface Services {
  config: Config;
  db: Db;
  /** The driver, for per-request hot reads only (see SqlRunner). */
  sql: SqlRunner;
  dbKind: 'pglite' | 'postgres';
  pingDb(): Promise<void>;
  /** Relays committed events to live streams (see transact in events.ts). */
  outbox: OutboxRelay;
  /** Sends due deliveries of events to webhooks, ticket endpoints and callbacks. */
  dispatcher: Dispatcher;
  /** Every outbound HTTPS call (providers, receivers) goes through this SSRF-guarded client. */
  outbound: OutboundClient;
  /** The model backend of model-backed capabilities (LLM_BASE_URL and LLM_MODEL), when one is configured. */
  chatModel?: ChatModel;
  /**
   * Answers of hot reads (rankings, execute's candidates, marketplace pages) kept for a moment, emptied on
   * every change notified on marketplace_changes and after this instance's mutations (read-cache.ts).
   */
  readCache: ReadCache;
  limiter: RateLimiter;
  /** Concurrent event streams per agent on this instance (STREAMS_PER_AGENT). */
  streamSlots: StreamSlots;
  /** Connections held open (graphql-ws, graphql-sse, MCP sessions) per caller: its live credential, or its address. */
  connectionSlots: StreamSlots;
  scheduler: Scheduler;
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
  /** The facts of the request's HTTP answer, when it has one: an operation adds its Server-Timing metrics there. */
  response?: ResponseFacts;
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
}
