// The Services every request and worker of this instance shares, built on the open database, and given back
// in order at shutdown.
import type Redis from 'ioredis';
import type { Config } from '../src/config';
import type { Database } from '../src/db/database';
import { ensureAdminKey } from '../src/domain/admin/admin-key';
import { PRINCIPALS_CHANNEL, PrincipalCache } from '../src/domain/agents/principal-cache';
import { UsageRecorder } from '../src/domain/agents/usage';
import { ensureCatalog } from '../src/domain/capabilities/catalog';
import type { Services } from '../src/domain/context';
import { DisputePipeline } from '../src/domain/disputes/disputes';
import { escrowSettler } from '../src/domain/payments/escrow';
import { routeEvent, type Topics } from '../src/domain/events';
import { ProviderStats } from '../src/domain/execution/provider-stats';
import { answerFromDelivery, DELEGATION_KIND } from '../src/domain/ext/delegations';
import { detectVectorSearch } from '../src/domain/memory/vectors';
import { remoteFacilitator, sandboxFacilitator } from '../src/domain/payments/facilitator';
import { WalletLeases } from '../src/domain/payments/leases';
import { loadPaymentSetup } from '../src/domain/payments/setup';
import { loadWalletKeyring } from '../src/domain/payments/wallet-keys';
import { RADIO_CHANNEL, RADIO_STREAM, RADIO_TOPIC, radioStore, type RadioEvent } from '../src/domain/radio/radio';
import { SESSION_TOPIC, sessionStore, type StreamEvent } from '../src/domain/streaming/sessions';
import { SubscriptionScheduler } from '../src/domain/subscriptions/scheduler';
import { RUN_TOPIC, runStore, type RunEvent } from '../src/domain/subscriptions/subscriptions';
import { SwarmRunner } from '../src/domain/swarms/runner';
import { SWARM_TOPIC, swarmStore, type SwarmEvent } from '../src/domain/swarms/swarms';
import { UTO_TOPIC, utoStore, type UtoStreamEvent } from '../src/domain/uto/events';
import { utoMatcher } from '../src/domain/uto/matcher';
import { indexOwnTools, webmcpIndexer } from '../src/domain/webmcp/index-sites';
import { prober } from '../src/domain/services/probes';
import { qualityJob } from '../src/domain/services/quality';
import { loadSigningKeys } from '../src/domain/webhooks/signing-key';
import { disableGoneReceiver } from '../src/domain/webhooks/webhooks';
import { Pipeline } from '../src/pipeline/pipeline';
import { ChatModel } from '../src/platform/chat-model';
import { systemClock, type Clock } from '../src/platform/clock';
import { IdempotencyStore } from '../src/platform/idempotency';
import { InFlight } from '../src/platform/in-flight';
import type { Logger } from '../src/platform/logger';
import { OutboundClient } from '../src/platform/outbound';
import { Dispatcher, OutboxRelay } from '../src/platform/outbox';
import { EventBus } from '../src/platform/pubsub';
import type { Worker } from '../src/platform/worker';
import { RateLimiter } from '../src/platform/rate-limit';
import { ReadCache } from '../src/platform/read-cache';
import { Scheduler } from '../src/platform/scheduler';
import { SequencedStreams } from '../src/platform/sequenced-streams';
import { StreamSlots } from '../src/platform/stream-slots';

/** How often open streams are compared with the database (a lost announcement is found this late at worst). */
const STREAM_SWEEP_MS = 2_000;

export interface OpenedServices {
  services: Services;
  /** The connection of the shared rate-limit counters (REDIS_URL), closed last but one. */
  redis: Redis | undefined;
}

/**
 * Builds the Services on the open database and makes them ready to serve: the changes other instances make
 * are listened for, the admin key and the catalog exist, and the marketplace's own tools are indexed.
 */
export async function openServices(
  config: Config,
  db: Database,
  opts: { log: Logger; clock?: Clock; ownTools: NonNullable<Services['ownTools']> },
): Promise<OpenedServices> {
  const { log } = opts;
  const { events, redis } = await connectEvents(config, db);
  const scheduler = new Scheduler(log);
  const clock = opts.clock ?? systemClock;
  const outbound = new OutboundClient({ allowPrivate: config.outboundAllowPrivate });
  // What a start reads before it serves is read at once, and is SQL rather than Prisma: Prisma compiles
  // each query's shape at its first use, which a start spent before its first answer.
  const [signingKeys, paymentSetup, walletKeys, vectorSearch] = await Promise.all([
    loadSigningKeys(db.prisma, db.sql),
    loadPaymentSetup(config, db.sql),
    loadWalletKeyring(db.prisma, db.sql, config.payments.walletEncryptionKey),
    detectVectorSearch(db.sql),
  ]);
  const dispatcher = new Dispatcher({
    sql: db.sql,
    clock,
    log,
    outbound,
    signingKey: () => signingKeys.current.privateKey,
    retryScheduleMs: config.deliveryRetryScheduleMs,
    timeoutMs: config.deliveryTimeoutMs,
    pollMs: config.deliveryPollMs,
    // A claim outlives the longest send; after that, a send cut off by a crash is retried.
    leaseMs: config.deliveryTimeoutMs + 5_000,
    onGone: (delivery) => disableGoneReceiver(db.prisma, delivery, clock.now()),
    // A delegation's answer may come back as the body of its delivery.
    answerKinds: new Set([DELEGATION_KIND]),
    onAnswer: (delivery, answer) => answerFromDelivery(services, delivery, answer.body),
  });
  const outbox = new OutboxRelay(
    db.sql,
    clock,
    log,
    (record) => routeEvent((topic, id, event) => events.publish(topic, id, event), record),
    () => dispatcher.wake(),
  );
  const services: Services = {
    config,
    pipeline: new Pipeline(),
    db: db.prisma,
    sql: db.sql,
    dbKind: db.kind,
    vectorSearch,
    pingDb: () => db.ping(),
    events,
    limiter: new RateLimiter(redis, config.rateLimitDisabled),
    streamSlots: new StreamSlots(config.streamsPerAgent),
    connectionSlots: new StreamSlots(
      config.connectionsPerCaller,
      'connections (WebSocket, SSE, MCP sessions) may be held open at once per credential, or per address without one',
    ),
    sessionStreams: new SequencedStreams<StreamEvent>(events as never, sessionStore({ sql: db.sql }), { topic: SESSION_TOPIC, sweepMs: STREAM_SWEEP_MS, log }),
    runStreams: new SequencedStreams<RunEvent>(events as never, runStore({ db: db.prisma }), { topic: RUN_TOPIC, sweepMs: STREAM_SWEEP_MS, log }),
    swarmStreams: new SequencedStreams<SwarmEvent>(events as never, swarmStore({ db: db.prisma }), { topic: SWARM_TOPIC, sweepMs: STREAM_SWEEP_MS, log }),
    utoStreams: new SequencedStreams<UtoStreamEvent>(events as never, utoStore({ db: db.prisma }), { topic: UTO_TOPIC, sweepMs: STREAM_SWEEP_MS, log }),
    radioStreams: new SequencedStreams<RadioEvent>(events as never, radioStore({ db: db.prisma }), { topic: RADIO_TOPIC, sweepMs: STREAM_SWEEP_MS, log }),
    scheduler,
    usage: new UsageRecorder(),
    // A copy waits for the first answer as long as an execution can take (every attempt, and a margin).
    idempotency: new IdempotencyStore(db.sql, 3 * config.providerTimeoutMs + 10_000),
    outbox,
    dispatcher,
    outbound,
    chatModel:
      config.llm.baseUrl && config.llm.model
        ? new ChatModel({ baseUrl: config.llm.baseUrl, model: config.llm.model, apiKey: config.llm.apiKey, timeoutMs: config.llm.timeoutMs })
        : undefined,
    signingKeys,
    readCache: new ReadCache(config.readCacheMs),
    principals: new PrincipalCache(config.principalCache),
    payments: {
      setup: paymentSetup,
      facilitator: paymentSetup.sandbox
        ? sandboxFacilitator(db.prisma, paymentSetup, () => clock.now())
        : remoteFacilitator(paymentSetup.facilitatorUrl!, outbound),
      keys: walletKeys,
      inFlight: new InFlight(),
      // Set by addWorkers: the leases need the finished services.
      leases: undefined as unknown as WalletLeases,
      walletOwners: new Map(),
    },
    // Set by addWorkers: these workers need the finished services.
    providerStats: undefined as unknown as ProviderStats,
    disputes: undefined as unknown as DisputePipeline,
    escrow: undefined as unknown as Worker,
    clock,
    log,
    startedAt: new Date(),
    draining: false,
  };
  const listened = listenForChanges(db, services);
  addWorkers(services);
  services.ownTools = opts.ownTools;
  await Promise.all([
    listened,
    ensureAdminKey(services),
    ensureCatalog(services),
    indexOwnTools(services, services.ownTools.all, services.ownTools.name, services.ownTools.description),
  ]);
  return { services, redis };
}

/** The event bus, and with REDIS_URL the rate limits' connection; the database is closed if either fails. */
async function connectEvents(config: Config, db: Database): Promise<{ events: EventBus<Topics>; redis: Redis | undefined }> {
  let events: EventBus<Topics> | undefined;
  let redis: Redis | undefined;
  try {
    events = await EventBus.create<Topics>(config.redisUrl);
    if (config.redisUrl) {
      // Loaded only with REDIS_URL, as the event bus loads it (src/platform/pubsub.ts).
      const { Redis } = require('ioredis') as typeof import('ioredis');
      redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: false });
      await redis.connect();
    }
  } catch (err) {
    await events?.close();
    redis?.disconnect();
    await db.close();
    throw err;
  }
  return { events, redis };
}

/** What the database announces of changes made anywhere, each instance's caches and streams told of it. */
function listenForChanges(db: Database, services: Services): Promise<unknown> {
  return Promise.all([
    // Any change that could make a kept ranking, candidate list or marketplace page wrong (triggers on
    // credentials, agents, services and skills; prisma/migrations/*_execute_hot_cache, *_read_cache_skills)
    // empties the read cache of every instance.
    db.listen(
      'marketplace_changes',
      () => services.readCache.flush(),
      (listening) => services.readCache.setListening(listening),
    ),
    // Any change of an agent or a credential forgets that agent's callers on every instance.
    db.listen(
      PRINCIPALS_CHANNEL,
      (payload) => services.principals.changed(payload),
      (listening) => services.principals.setListening(listening),
    ),
    // Radio broadcasts are written by database statements (a trigger on executions among them): the
    // database tells every instance of each one once committed.
    db.listen(
      RADIO_CHANNEL,
      (payload) => services.radioStreams.reached(RADIO_STREAM, Number(payload)),
      () => {},
    ),
  ]);
}

/** The areas' long-lived workers, each made on the finished services (app/work.ts starts and stops them). */
function addWorkers(services: Services): void {
  services.providerStats = new ProviderStats(services);
  services.subscriptionScheduler = new SubscriptionScheduler(services);
  services.swarmRunner = new SwarmRunner(services);
  services.utoMatcher = utoMatcher(services);
  services.webmcpIndexer = webmcpIndexer(services);
  services.prober = prober(services);
  services.qualityJob = qualityJob(services);
  services.disputes = new DisputePipeline(services);
  services.escrow = escrowSettler(services);
  services.payments.leases = new WalletLeases(services);
}

/** Gives back what the services hold, once every request is answered and the background work has stopped. */
export async function closeServices({ services, redis }: OpenedServices, db: Database): Promise<void> {
  const { log } = services;
  // Every call has been answered: what this instance reserved on callers' wallets goes back.
  await services.payments.leases.stop().catch((err) => log.warn({ err }, 'giving wallet leases back at shutdown failed'));
  await services.outbox.flushMarks();
  await services.outbound.close();
  await services.chatModel?.close();
  await services.usage.flush(services).catch((err) => log.warn({ err }, 'usage flush at shutdown failed'));
  await services.events.close();
  redis?.disconnect();
  await db.close();
}
