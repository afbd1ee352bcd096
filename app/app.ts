// Composition: opens the database and shared machinery, builds the GraphQL schema, the REST projection
// and the HTTP server, and knows how to take it all down again in order.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import type Redis from 'ioredis';
import { compileRoutes, RestDispatcher, type CompiledRoute } from '../rest/runner';
import { coordinateOf } from '../src/pipeline/compile';
import { Pipeline } from '../src/pipeline/pipeline';
import { StreamBridge } from '../rest/streams';
import { rootAliases, routes } from '../rest/routes';
import { schema } from '../schema/index';
import { GraphQLHttp } from '../graphql/http';
import { FieldRateLimits } from '../graphql/rate-limits';
import { OperationGate } from '../graphql/operation-gate';
import { createGraphQLServer, GRAPHQL_PATH, GRAPHQL_SSE_PATH, maskErrorWith } from '../graphql/server';
import { buildOpenApi } from '../protocols/openapi';
import { McpEndpoint, MCP_PATH } from '../protocols/mcp';
import { A2aEndpoint } from '../protocols/a2a';
import { aiPlugin, llmsPage, llmsTxt, LLMS_PAGES, LOGO_SVG } from '../protocols/manifests';
import { toolSpecs } from '../protocols/mcp-tools';
import { CatalogResources } from '../protocols/resources';
import { compileTools } from '../protocols/tools';
import { CapabilityTools } from '../protocols/capability-tools';
import { FIRST_PARTY } from '../src/domain/first-party/first-party';
import type { Config } from '../src/config';
import { openConfiguredDatabase, type Database } from '../src/db/database';
import { maintain } from '../src/db/maintenance';
import { ensureAdminKey } from '../src/domain/admin/admin-key';
import { UsageRecorder } from '../src/domain/agents/usage';
import { ensureCatalog } from '../src/domain/capabilities/catalog';
import { refreshOfferScores } from '../src/domain/discovery/resolve';
import type { Services } from '../src/domain/context';
import { routeEvent, type Topics } from '../src/domain/events';
import { loadSigningKeys } from '../src/domain/webhooks/signing-key';
import { ProviderStats } from '../src/domain/execution/provider-stats';
import { DisputePipeline } from '../src/domain/disputes/disputes';
import { disableGoneReceiver } from '../src/domain/webhooks/webhooks';
import { answerFromDelivery, DELEGATION_KIND } from '../src/domain/ext/delegations';
import { purgeOldGatewayEvents } from '../src/domain/ext/gateway-events';
import { recordUptimeSample } from '../src/domain/health/health';
import { purgeExpiredEntries } from '../src/domain/memory/memory';
import { expireOverdueTasks } from '../src/domain/tasks/tasks';
import { inactiveSweep, INACTIVE_POLL_MS, RESUME_BATCH, RESUME_POLL_MS, resumeDueServices } from '../src/domain/services/lifecycle';
import { SwarmRunner } from '../src/domain/swarms/runner';
import { SWARM_TOPIC, swarmStore, type SwarmEvent } from '../src/domain/swarms/swarms';
import { purgeOldRadioEvents, RADIO_CHANNEL, RADIO_STREAM, RADIO_TOPIC, radioStore, type RadioEvent } from '../src/domain/radio/radio';
import { purgeOldUtoEvents, UTO_TOPIC, utoStore, type UtoStreamEvent } from '../src/domain/uto/events';
import { utoMatcher } from '../src/domain/uto/matcher';
import { expireOverdueTickets } from '../src/domain/uto/tickets';
import { applyDeadlines } from '../src/domain/ammc/conglomerates';
import { indexOwnTools, webmcpIndexer } from '../src/domain/webmcp/index-sites';
import { detectVectorSearch } from '../src/domain/memory/vectors';
import { remoteFacilitator, sandboxFacilitator } from '../src/domain/payments/facilitator';
import { releaseLapsedHolds } from '../src/domain/payments/ledger';
import { loadPaymentSetup } from '../src/domain/payments/setup';
import { WalletLeases } from '../src/domain/payments/leases';
import { loadWalletKeyring } from '../src/domain/payments/wallet-keys';
import { InFlight } from '../src/platform/in-flight';
import { systemClock, type Clock } from '../src/platform/clock';
import { ConsoleFiles, CONSOLE_PATH } from '../src/console';
import { BadRequest, problem, problemDescription, problemTitle, type ProblemCode } from '../src/platform/errors';
import { answerClientError, attachFacts, clientAddress, factsOf, requestIdFor, requestIdOf, writeError, writeProblem, type ResponseFacts } from '../src/platform/http';
import { createContext, rateSubject } from '../src/domain/request-context';
import { createLogger, type Logger } from '../src/platform/logger';
import { IdempotencyStore } from '../src/platform/idempotency';
import { Metrics, serveMetrics } from '../src/platform/metrics';
import { ReadCache } from '../src/platform/read-cache';
import { PRINCIPALS_CHANNEL, PrincipalCache } from '../src/domain/agents/principal-cache';
import { ChatModel } from '../src/platform/chat-model';
import { OutboundClient } from '../src/platform/outbound';
import { Dispatcher, OutboxRelay } from '../src/platform/outbox';
import { EventBus } from '../src/platform/pubsub';
import { RateLimiter } from '../src/platform/rate-limit';
import { Scheduler } from '../src/platform/scheduler';
import { SequencedStreams } from '../src/platform/sequenced-streams';
import { StreamSlots } from '../src/platform/stream-slots';
import { RUN_TOPIC, runStore, type RunEvent } from '../src/domain/subscriptions/subscriptions';
import { SubscriptionScheduler } from '../src/domain/subscriptions/scheduler';
import { purgeOldEvents, SESSION_TOPIC, sessionStore, type StreamEvent } from '../src/domain/streaming/sessions';

export interface AppOptions {
  /**
   * The database, already being opened (server.ts opens it while this module's imports load); else it is
   * opened here from the config, `dumpPath`, `skipMigrations` and `onDatabaseLost`.
   */
  database?: Promise<Database>;
  /** An embedded database in memory loaded from this dump instead of DATA_DIR (tests: a migrated template). */
  dumpPath?: string;
  /** Told if the embedded database's thread stops while the app runs (server.ts exits: it cannot go on). */
  onDatabaseLost?: (err: Error) => void;
  skipMigrations?: boolean;
  clock?: Clock;
  log?: Logger;
}

export interface App {
  services: Services;
  server: http.Server;
  compiled: CompiledRoute[];
  mcp: McpEndpoint;
  /** Starts listening; resolves with the bound port. */
  listen(): Promise<number>;
  /** Stops accepting, drains requests, ends streams, stops jobs, closes Redis and the database. */
  close(): Promise<void>;
}

const GRAPHQL_BODY_LIMIT = 1024 * 1024;
const USAGE_FLUSH_MS = 5_000;
const OFFER_REFRESH_MS = 60_000;
const IDEMPOTENCY_PURGE_MS = 3_600_000;
/** How often the holds of calls that were never recorded (a stopped process) are given back. */
const HOLD_LAPSE_MS = 30_000;
const OUTBOX_RECOVER_MS = 2_000;
/** How often open streams are compared with the database (a lost announcement is found this late at worst). */
const STREAM_SWEEP_MS = 2_000;
const STREAM_PURGE_MS = 60_000;
/** How often tasks past their deadline are looked for and expired. */
const TASK_EXPIRY_MS = 5_000;
/** How often UTO tickets and conglomerates past their deadlines are moved on. */
const DEADLINES_MS = 5_000;
const UTO_EVENTS_PURGE_MS = 3_600_000;

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.logLevel);
  const opening = opts.database ?? openConfiguredDatabase(config, log, { dumpPath: opts.dumpPath, skipMigrations: opts.skipMigrations, onLost: opts.onDatabaseLost });
  // The surfaces' documents are read while the database opens: the embedded database's thread takes about
  // a second to start, during which this thread had nothing else to do.
  let compiled: CompiledRoute[];
  let tools: ReturnType<typeof compileTools>;
  try {
    compiled = compileRoutes(schema, routes);
    tools = compileTools(schema, toolSpecs, compiled);
  } catch (err) {
    void opening.then((opened) => opened.close(), () => {});
    throw err;
  }
  // Then, for as long as the database is still opening (the embedded one's thread takes about a second),
  // the documents are validated one by one, each as its first run would: a start's first requests find
  // theirs done. Nothing waits for them.
  let open = false;
  opening.then(
    () => (open = true),
    () => (open = true),
  );
  void (async () => {
    for (const op of [...compiled, ...tools.map((t) => t.op)]) {
      await new Promise((resolve) => setImmediate(resolve));
      if (open) return;
      try {
        op.validate();
      } catch {
        // its first run reports it
      }
    }
  })();
  const db: Database = await opening;
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
  const scheduler = new Scheduler(log);
  const clock = opts.clock ?? systemClock;
  const outbound = new OutboundClient({ allowPrivate: config.outboundAllowPrivate });
  // What a start reads before it serves is read at once, and is SQL rather than Prisma: Prisma compiles
  // each query's shape at its first use (tens of milliseconds each in a start's first second), which a start
  // spent before its first answer.
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
    (record) => routeEvent((topic, id, event) => events!.publish(topic, id, event), record),
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
    connectionSlots: new StreamSlots(config.connectionsPerCaller, 'connections (WebSocket, SSE, MCP sessions) may be held open at once per credential, or per address without one'),
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
    chatModel: config.llm.baseUrl && config.llm.model ? new ChatModel({ baseUrl: config.llm.baseUrl, model: config.llm.model, apiKey: config.llm.apiKey, timeoutMs: config.llm.timeoutMs }) : undefined,
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
      // Set just below: the leases need the finished services.
      leases: undefined as unknown as WalletLeases,
      walletOwners: new Map(),
    },
    // Set just below: these workers need the finished services.
    providerStats: undefined as unknown as ProviderStats,
    disputes: undefined as unknown as DisputePipeline,
    clock,
    log,
    startedAt: new Date(),
    draining: false,
  };
  const listened = Promise.all([
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
  services.providerStats = new ProviderStats(services);
  services.subscriptionScheduler = new SubscriptionScheduler(services);
  services.swarmRunner = new SwarmRunner(services);
  services.utoMatcher = utoMatcher(services);
  services.webmcpIndexer = webmcpIndexer(services);
  services.disputes = new DisputePipeline(services);
  services.payments.leases = new WalletLeases(services);
  const described = (t: (typeof tools)[number]) => ({ name: t.spec.name, description: t.definition.description, category: t.category, inputSchema: t.definition.inputSchema });
  services.ownTools = {
    name: 'Agent Capability Marketplace',
    description: 'Find agent capabilities and the providers that offer them, ranked by reputation, cost and latency, and execute them with automatic routing and fallback.',
    manifest: tools.filter((t) => t.spec.manifest).map(described),
    all: tools.map(described),
  };
  await Promise.all([
    listened,
    ensureAdminKey(services),
    ensureCatalog(services),
    indexOwnTools(services, services.ownTools.all, services.ownTools.name, services.ownTools.description),
  ]);
  // A GraphQL root field spends the bucket of its REST twin (CONTRACT §5), or of its tool when it has none.
  const limits = new FieldRateLimits(
    new Map([
      ...tools.filter((t) => t.bucket).map((t) => [coordinateOf(t.op), t.bucket!] as const),
      ...compiled.filter((c) => c.route.bucket).map((c) => [coordinateOf(c), c.route.bucket!] as const),
    ]),
  );
  const gate = new OperationGate(schema, limits, { introspection: config.graphqlIntrospection });
  const graphql = createGraphQLServer(services, schema, gate);
  const graphqlHttp = new GraphQLHttp(services, schema, gate, maskErrorWith(services));
  const metrics = new Metrics(() => services.events.openStreams);
  metrics.gauge('graphql_document_cache_bytes', 'What the parsed GraphQL documents kept for reuse weigh (bounded)', () => gate.cached.bytes);
  metrics.gauge('graphql_document_cache_entries', 'Parsed GraphQL documents kept for reuse', () => gate.cached.entries);
  metrics.gauge('graphql_introspection_cache_entries', 'Answers of introspection operations kept, each computed once (bounded)', () => gate.introspectionsKept.entries);
  metrics.gauge('read_cache_bytes', 'What the answers kept in the read cache weigh (bounded)', () => services.readCache.kept.bytes);
  metrics.databaseGauges(services.sql);
  // The first-party capabilities this instance serves: their schemas in the OpenAPI document, their MCP tools.
  const capabilityTools = new CapabilityTools(schema, compiled, FIRST_PARTY.values(), new Set(tools.map((t) => t.spec.name)));
  const offered = capabilityTools.offered(services);
  // Built at its first request rather than at start, where it took about a tenth of a second.
  let built: ReturnType<typeof buildOpenApi> | undefined;
  const openapi = () => (built ??= buildOpenApi(compiled, schema, config.publicBaseUrl, offered.map((t) => t.capability)));

  const mcp = new McpEndpoint(services, tools, new CatalogResources(schema, compiled, config), capabilityTools);
  const a2a = new A2aEndpoint(services, schema, compiled);
  const streams = new StreamBridge(services);
  const rest = new RestDispatcher(compiled, services, '/api/v1', { '/openapi.json': openapi }, rootAliases, streams);

  // Express serves what is not REST: GraphQL (yoga), metrics and the problem pages.
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/.well-known/jwks.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(signingKeys.jwks);
  });

  app.get('/.well-known/ai-plugin.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(aiPlugin(config.publicBaseUrl));
  });
  app.get('/.well-known/logo.svg', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(LOGO_SVG);
  });
  app.get('/llms.txt', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('text/plain; charset=utf-8').send(llmsTxt(config.publicBaseUrl, compiled, tools, offered, openapi(), mcp.toolsets));
  });
  // The page of each item /llms.txt lists: a REST operation or an MCP tool, in Markdown.
  app.get(`${LLMS_PAGES}/:kind/:file`, (req, res) => {
    const file = String(req.params.file);
    const page = file.endsWith('.md') ? llmsPage(config.publicBaseUrl, String(req.params.kind), file.slice(0, -3), compiled, tools, offered, openapi()) : undefined;
    if (page === undefined) {
      writeError(res, config.publicBaseUrl, new BadRequest(`No page ${req.path}`, 404), requestIdOf(res));
      return;
    }
    res.set('Cache-Control', 'public, max-age=300').type('text/markdown; charset=utf-8').send(page);
  });

  app.get('/metrics', (req, res, next) => {
    serveMetrics(metrics, { limiter: services.limiter, token: config.metricsToken, trustProxy: config.trustProxy, publicBaseUrl: config.publicBaseUrl }, req, res).catch(next);
  });

  app.get('/problems/:slug', (req, res) => {
    const code = req.params.slug.replace(/-/g, '_') as ProblemCode;
    if (!(code in problemTitle)) {
      writeError(res, config.publicBaseUrl, new BadRequest(`No problem type ${req.params.slug}`, 404), requestIdOf(res));
      return;
    }
    res
      .type('text/html')
      .send(`<!doctype html><html><head><title>${problemTitle[code]}</title></head><body><h1>${problemTitle[code]}</h1><p><code>${code}</code></p><p>${problemDescription[code]}</p></body></html>`);
  });

  app.use(GRAPHQL_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (Number(req.headers['content-length'] ?? 0) > GRAPHQL_BODY_LIMIT) {
      res.status(413).json({ errors: [{ message: 'The request body is larger than 1 MiB', extensions: { code: 'BAD_REQUEST' } }] });
      return;
    }
    next();
  });
  // A GraphQL event stream (graphql-sse, or Accept: text/event-stream on /graphql) is a held connection:
  // it takes a slot of its caller for as long as it stays open.
  app.use(GRAPHQL_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (!req.originalUrl.startsWith(GRAPHQL_SSE_PATH) && !String(req.headers.accept ?? '').includes('text/event-stream')) return next();
    const ctx = createContext(services, { authorization: req.headers.authorization, requestId: requestIdOf(res), clientAddress: clientAddress(req, config.trustProxy) });
    Promise.resolve(rateSubject(ctx)).then((subject) => {
      const release = services.connectionSlots.take(subject);
      res.once('close', release);
      next();
    }).catch((err: unknown) => {
      const refusal = maskErrorWith(services)(err);
      res.status((refusal.extensions.http as { status?: number } | undefined)?.status ?? 500).set('Retry-After', '5').json({ errors: [{ message: refusal.message, extensions: { code: refusal.extensions.code } }] });
    });
  });
  app.use(GRAPHQL_PATH, graphql.yoga as unknown as express.RequestHandler);
  // The web console (src/console.ts): a GET or HEAD of any path under /console.
  const consoleFiles = new ConsoleFiles();
  app.use(CONSOLE_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const pathname = new URL(req.originalUrl, 'http://console').pathname;
    if (pathname !== CONSOLE_PATH && !pathname.startsWith(`${CONSOLE_PATH}/`)) return next();
    if (consoleFiles.serve(req, res, pathname)) return;
    writeProblem(res, problem(config.publicBaseUrl, 'service_unavailable', 'The console is not built on this instance: run `npm run console:build`', requestIdOf(res)));
  });
  app.use((req: Request, res: Response) => {
    writeProblem(res, problem(config.publicBaseUrl, 'not_found', `No route ${req.method} ${req.path}`, requestIdOf(res)));
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const written = writeError(res, config.publicBaseUrl, err, requestIdOf(res));
    if (written.code === 'internal') log.error({ err, request_id: requestIdOf(res) }, 'request failed');
  });

  // Answers not yet begun, so that a shutdown can make each close its connection (Connection: close).
  const unanswered = new Set<http.ServerResponse>();
  // One listener for every response (no closure per request): 'close' follows 'finish' of a complete
  // answer, and also comes for one cut off, which is forgotten here but not counted.
  function answered(this: http.ServerResponse) {
    unanswered.delete(this);
    const facts = factsOf(this);
    if (!facts || !this.writableFinished) return;
    const seconds = (performance.now() - facts.started) / 1000;
    const route = facts.route ?? (this.req.url?.startsWith(GRAPHQL_PATH) ? GRAPHQL_PATH : 'other');
    metrics.observeRequest(this.req.method ?? 'GET', route, this.statusCode, seconds);
    if (this.statusCode >= 500 || log.isLevelEnabled('debug')) {
      // 503 is an outage the answer already explains (a component unreachable, or draining): a warning.
      log[this.statusCode === 503 ? 'warn' : this.statusCode >= 500 ? 'error' : 'debug'](
        { request_id: facts.requestId, method: this.req.method, route, status: this.statusCode, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    }
  }
  // A slow client is closed in seconds: its headers must arrive within HEADERS_TIMEOUT_MS and the whole
  // request (at most 1 MiB of body) within REQUEST_TIMEOUT_MS, checked every second (Node's default
  // check runs every 30 s, and its default deadline for a request is 300 s).
  const serverOptions: http.ServerOptions = {
    headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs),
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: 1_000,
  };
  const server = http.createServer(serverOptions, (req, res) => {
    const requestId = requestIdFor(req);
    const facts: ResponseFacts = { requestId, route: undefined, started: performance.now() };
    attachFacts(res, facts);
    res.setHeader('X-Request-Id', requestId);
    if (services.draining) res.setHeader('Connection', 'close');
    else unanswered.add(res);
    res.on('close', answered);
    const handled = rest.handle(req, res, requestId);
    if (handled) {
      facts.route = handled.route;
      return;
    }
    if (graphqlHttp.handle(req, res, requestId)) return;
    if (mcp.handle(req, res, requestId)) {
      facts.route = MCP_PATH;
      return;
    }
    if (a2a.handle(req, res, requestId)) {
      facts.route = (req.url ?? '').split('?')[0];
      return;
    }
    app(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket, config.publicBaseUrl));
  const ws = graphql.attachWebSocket(server);
  server.on('upgrade', (req: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname === GRAPHQL_PATH) ws.handleUpgrade(req, socket, head);
    else if (!rest.handleUpgrade(req, socket, head, requestIdFor(req))) socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });

  // Background work starts once the server listens: its first rounds (a claim of every queue, the first
  // samples) no longer come before a start's first requests, on the embedded database's one connection.
  let working = false;
  // A job that works in batches runs batch after batch while each comes back full.
  const drain = (batch: () => Promise<number>, size: number) => async () => {
    while ((await batch()) === size);
  };
  const startWork = () => {
    if (working) return;
    working = true;
    scheduler.every('uptime-sample', config.uptimeSampleMs, () => recordUptimeSample(services));
    scheduler.every('usage-flush', USAGE_FLUSH_MS, () => services.usage.flush(services), { runNow: false });
    scheduler.every('idempotency-purge', IDEMPOTENCY_PURGE_MS, () => services.idempotency.purgeExpired(services.clock.now()), { runNow: false });
    scheduler.every('wallet-holds', HOLD_LAPSE_MS, drain(() => releaseLapsedHolds(services), 500), { runNow: false });
    scheduler.every('offer-scores', OFFER_REFRESH_MS, async () => void (await refreshOfferScores(services)), { runNow: false });
    scheduler.every('memory-purge', config.memoryPurgeMs, drain(() => purgeExpiredEntries(services), 1000), { runNow: false });
    if (config.dbMaintenanceMs > 0) {
      scheduler.every('database-maintenance', config.dbMaintenanceMs, async () => void (await maintain(db, log, db.kind === 'pglite')), { runNow: false });
    }
    scheduler.every('services-resume', RESUME_POLL_MS, drain(() => resumeDueServices(services), RESUME_BATCH), { runNow: false });
    scheduler.every('services-inactive', INACTIVE_POLL_MS, inactiveSweep(services), { runNow: false });
    scheduler.every('tasks-expiry', TASK_EXPIRY_MS, drain(() => expireOverdueTasks(services), 500), { runNow: false });
    scheduler.every('uto-deadlines', DEADLINES_MS, drain(() => expireOverdueTickets(services), 200), { runNow: false });
    scheduler.every('ammc-deadlines', DEADLINES_MS, drain(() => applyDeadlines(services), 200), { runNow: false });
    scheduler.every('uto-events-purge', UTO_EVENTS_PURGE_MS, drain(() => purgeOldUtoEvents(services), 5000), { runNow: false });
    scheduler.every('radio-events-purge', UTO_EVENTS_PURGE_MS, drain(() => purgeOldRadioEvents(services), 5000), { runNow: false });
    scheduler.every('gateway-events-purge', UTO_EVENTS_PURGE_MS, drain(() => purgeOldGatewayEvents(services), 5000), { runNow: false });
    scheduler.every('stream-events-purge', STREAM_PURGE_MS, async () => void (await purgeOldEvents(services)), { runNow: false });
    scheduler.every('outbox-recover', OUTBOX_RECOVER_MS, async () => void (await outbox.recover()));
    dispatcher.start();
    services.sessionStreams.start();
    services.runStreams.start();
    services.swarmStreams.start();
    services.utoStreams.start();
    services.radioStreams.start();
    services.subscriptionScheduler!.start();
    services.swarmRunner!.start();
    services.utoMatcher!.start();
    services.webmcpIndexer!.start();
    services.providerStats.start();
    services.disputes.start();
    services.payments.leases.start();
  };

  let closing: Promise<void> | undefined;
  return {
    services,
    server,
    compiled,
    mcp,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          startWork();
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close() {
      closing ??= (async () => {
        const deadline = Date.now() + config.shutdownTimeoutMs - 1000;
        // /health answers 503 at once (the load balancer stops sending); every answer closes its connection.
        services.draining = true;
        for (const res of unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
        unanswered.clear();
        // Connections the kernel accepted before the signal, and requests already on the wire of a
        // keep-alive connection, are taken for a moment; then nothing new is.
        if (config.shutdownAcceptGraceMs > 0) await new Promise((r) => setTimeout(r, config.shutdownAcceptGraceMs));
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Readers of event streams are told to reconnect (to another instance).
        streams.close();
        await mcp.close();
        await ws.close();
        await services.sessionStreams.stop();
        await services.runStreams.stop();
        await services.swarmStreams.stop();
        await services.utoStreams.stop();
        await services.radioStreams.stop();
        // Background work takes nothing more (what it claimed is finished or left to its lease).
        await scheduler.stop();
        await services.subscriptionScheduler!.stop();
        await services.swarmRunner!.stop();
        await services.utoMatcher!.stop();
        await services.webmcpIndexer!.stop();
        await dispatcher.stop();
        await services.providerStats.stop();
        await services.disputes.stop();
        // Every request already received is answered; a keep-alive connection closes after its answer.
        const drain = setInterval(() => server.closeIdleConnections(), 50);
        let budget: NodeJS.Timeout | undefined;
        await Promise.race([stopped, new Promise((r) => (budget = setTimeout(r, Math.max(0, deadline - Date.now()))))]);
        clearTimeout(budget);
        clearInterval(drain);
        server.closeAllConnections();
        metrics.close();
        // Every call has been answered: what this instance reserved on callers' wallets goes back.
        await services.payments.leases.stop().catch((err) => log.warn({ err }, 'giving wallet leases back at shutdown failed'));
        await outbox.flushMarks();
        await outbound.close();
        await services.chatModel?.close();
        await services.usage.flush(services).catch((err) => log.warn({ err }, 'usage flush at shutdown failed'));
        await services.events.close();
        redis?.disconnect();
        await db.close();
      })();
      return closing;
    },
  };
}
