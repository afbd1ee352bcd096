// Composition: opens the database and shared machinery, builds the GraphQL schema, the REST projection
// and the HTTP server, and knows how to take it all down again in order.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import Redis from 'ioredis';
import type { PGlite } from '@electric-sql/pglite';
import { compileRoutes, restRouter, sendProblem, type CompiledRoute } from '../rest/runner';
import { rootAliases, routes } from '../rest/routes';
import { schema } from '../schema/index';
import { createGraphQLServer, GRAPHQL_PATH } from '../schema/server';
import { buildOpenApi } from './protocols/openapi';
import type { Config } from './config';
import { openDatabase, type Database } from './db/database';
import { ensureAdminKey } from './domain/admin/admin-key';
import type { Services } from './domain/context';
import type { Topics } from './domain/events';
import { recordUptimeSample } from './domain/health/health';
import { systemClock, type Clock } from './platform/clock';
import { BadRequest, problem, problemDescription, problemTitle, type ProblemCode } from './platform/errors';
import { newRequestId } from './platform/ids';
import { createLogger, type Logger } from './platform/logger';
import { Metrics } from './platform/metrics';
import { EventBus } from './platform/pubsub';
import { RateLimiter } from './platform/rate-limit';
import { Scheduler } from './platform/scheduler';

export interface AppOptions {
  /** An open PGlite to use instead of DATA_DIR (tests load one from a migrated template). */
  pglite?: PGlite;
  skipMigrations?: boolean;
  clock?: Clock;
  log?: Logger;
}

export interface App {
  services: Services;
  server: http.Server;
  compiled: CompiledRoute[];
  /** Starts listening; resolves with the bound port. */
  listen(): Promise<number>;
  /** Stops accepting, drains requests, ends streams, stops jobs, closes Redis and the database. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const GRAPHQL_BODY_LIMIT = 1024 * 1024;

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.logLevel);
  const db: Database = await openDatabase({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    pglite: opts.pglite,
    skipMigrations: opts.skipMigrations,
    log: (m) => log.info(m),
  });
  let events: EventBus<Topics> | undefined;
  let redis: Redis | undefined;
  try {
    events = await EventBus.create<Topics>(config.redisUrl);
    if (config.redisUrl) {
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
  const services: Services = {
    config,
    db: db.prisma,
    dbKind: db.kind,
    pingDb: () => db.ping(),
    events,
    limiter: new RateLimiter(redis, config.rateLimitDisabled),
    scheduler,
    clock: opts.clock ?? systemClock,
    log,
    startedAt: new Date(),
  };
  await ensureAdminKey(services);

  const compiled = compileRoutes(schema, routes);
  const fieldBuckets = new Map(compiled.filter((c) => c.route.bucket).map((c) => [`${c.operation.operation === 'mutation' ? 'Mutation' : 'Query'}.${c.rootField}`, c.route.bucket!]));
  const graphql = createGraphQLServer(services, schema, fieldBuckets);
  const metrics = new Metrics(() => services.events.openStreams);
  const openapi = buildOpenApi(compiled, schema, config.publicBaseUrl);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', 'loopback');

  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : newRequestId();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : req.baseUrl || 'unmatched';
      metrics.requests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.duration.observe({ method: req.method, route }, seconds);
      if (log.isLevelEnabled('debug') || res.statusCode >= 500) {
        log[res.statusCode >= 500 ? 'error' : 'debug'](
          { request_id: requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 },
          'request',
        );
      }
    });
    next();
  });

  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.get('/problems/:slug', (req, res) => {
    const code = req.params.slug.replace(/-/g, '_') as ProblemCode;
    if (!(code in problemTitle)) {
      sendProblem(res, services, new BadRequest(`No problem type ${req.params.slug}`, 404));
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
  app.use(GRAPHQL_PATH, graphql.yoga as unknown as express.RequestHandler);

  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  const api = restRouter(compiled, services, schema);
  app.use('/api/v1', api);
  // Root aliases of the operational routes: rewrite and hand to the same router.
  for (const path of rootAliases) {
    app.get(path, (req, res, next) => {
      req.url = `${path}${req.url.slice(path.length)}`;
      api(req, res, next);
    });
  }
  app.use((req: Request, res: Response) => {
    const body = problem(config.publicBaseUrl, 'not_found', `No route ${req.method} ${req.path}`, res.locals.requestId);
    res.status(404).type('application/problem+json').send(JSON.stringify(body));
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendProblem(res, services, err);
  });

  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  const ws = graphql.attachWebSocket(server);

  scheduler.every('uptime-sample', config.uptimeSampleMs, () => recordUptimeSample(services));

  let closing: Promise<void> | undefined;
  return {
    services,
    server,
    compiled,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await services.events.close();
        await ws.close();
        await scheduler.stop();
        // Requests in flight finish; idle keep-alive sockets are dropped as they go idle.
        const drain = setInterval(() => server.closeIdleConnections(), 100);
        await Promise.race([stopped, new Promise((r) => setTimeout(r, config.shutdownTimeoutMs - 1000).unref())]);
        clearInterval(drain);
        server.closeAllConnections();
        redis?.disconnect();
        await db.close();
      })();
      return closing;
    },
  };
}
