// Prometheus metrics: process defaults plus request counts and latencies per route pattern, and what the
// database holds that should stay flat (its size, the durable queues' depths); and GET /metrics, a read
// that changes nothing, charged to its address's bucket and, with METRICS_TOKEN, for its bearer alone.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay, PerformanceObserver, constants as perf, type IntervalHistogram } from 'node:perf_hooks';
import client from 'prom-client';
import type { SqlRunner } from '../db/database';
import { RateLimited, Unauthorized } from './errors';
import { clientAddress, requestIdOf, writeError } from './http';
import type { Bucket, RateLimiter } from './rate-limit';

/**
 * prom-client's default metrics, but for the two that hook into the process for good (a GC observer and an
 * event-loop-delay monitor, with no way to stop either): those are ours, and stop on close(). A process
 * that builds several apps (the tests build one per file) would otherwise keep every one of them alive.
 */
const HOOKED = new Set(['gc', 'eventLoopLag']);

type DefaultMetric = (registry: client.Registry, config: object) => void;
/**
 * prom-client's other default metrics, each its own module taking (registry, config); prom-client has no export
 * map. Named one by one so the server's bundle (src/start.cjs) holds them, where a require built from a name loaded
 * them from node_modules at every start, uncached. A unit test holds the list to prom-client's.
 */
export const DEFAULT_METRICS: Record<string, () => DefaultMetric> = {
  processCpuTotal: () => require('prom-client/lib/metrics/processCpuTotal'),
  processStartTime: () => require('prom-client/lib/metrics/processStartTime'),
  osMemoryHeap: () => require('prom-client/lib/metrics/osMemoryHeap'),
  processOpenFileDescriptors: () => require('prom-client/lib/metrics/processOpenFileDescriptors'),
  processMaxFileDescriptors: () => require('prom-client/lib/metrics/processMaxFileDescriptors'),
  processResources: () => require('prom-client/lib/metrics/processResources'),
  processHandles: () => require('prom-client/lib/metrics/processHandles'),
  processRequests: () => require('prom-client/lib/metrics/processRequests'),
  heapSizeAndUsed: () => require('prom-client/lib/metrics/heapSizeAndUsed'),
  heapSpacesSizeAndUsed: () => require('prom-client/lib/metrics/heapSpacesSizeAndUsed'),
  version: () => require('prom-client/lib/metrics/version'),
};
const GC_KINDS: Record<number, string> = {
  [perf.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perf.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perf.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perf.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/**
 * The database's size and the rows waiting in its durable queues (outbox events not yet relayed, deliveries not yet
 * sent, attempts not yet folded), in one statement, each count served by an index on the waiting rows. A queue that
 * only grows, or a database that grows without writes, is what a long run must not show (soak/).
 */
const DATABASE_GAUGES = `SELECT pg_database_size(current_database()) AS database_bytes,
  (SELECT count(*) FROM outbox_unpublished) AS outbox_unpublished,
  (SELECT count(*) FROM deliveries WHERE status IN ('pending', 'sending')) AS deliveries_waiting,
  (SELECT count(*) FROM attempts_to_fold) AS attempts_to_fold`;

/** How long one reading of the database's gauges serves scrapes. */
const DATABASE_READING_MS = 5_000;

/**
 * The event-loop delay gauges describe the last one to two of these windows, the same for every scraper (two monitors
 * emptied in turn, read from the older), so a scraper sampling at least once a window sees every stall. prom-client's
 * one monitor, emptied by each scrape, made a read change what the next scraper saw (docs/operations.md, Health).
 */
const LOOP_WINDOW_MS = 10_000;

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** One method and route pattern's requests: plain numbers, counted on every request. */
interface RouteSeries {
  labels: { method: string; route: string };
  /** Requests per bucket of DURATION_BUCKETS (not cumulative), the last one past every bound. */
  buckets: number[];
  sum: number;
  count: number;
  byStatus: Map<number, number>;
}

/** What prom-client's registry reads of a metric (its own metrics' shape). */
interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: 'sum';
    values: { labels: Record<string, string | number>; value: number; metricName?: string }[];
  }>;
}

export class Metrics {
  /**
   * Requests by method and route pattern, kept as plain numbers and shaped for the registry only when
   * scraped: prom-client's own counter and histogram hash their labels and validate on every observation,
   * a measurable part of a request as cheap as `GET /agents/me`.
   */
  private readonly routes = new Map<string, RouteSeries>();

  readonly registry = new client.Registry();
  readonly openStreams: client.Gauge;

  private readonly gcObserver: PerformanceObserver;
  private readonly loopDelay: [IntervalHistogram, IntervalHistogram];
  private readonly loopWindow: NodeJS.Timeout;

  constructor(openStreams: () => number) {
    for (const name of client.collectDefaultMetrics.metricsList) {
      if (HOOKED.has(name)) continue;
      const metric = DEFAULT_METRICS[name];
      if (!metric) throw new Error(`prom-client has a default metric ${name} that src/platform/metrics.ts does not name`);
      metric()(this.registry, {});
    }
    const gc = new client.Histogram({
      name: 'nodejs_gc_duration_seconds',
      help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
      labelNames: ['kind'],
      buckets: [0.001, 0.01, 0.1, 1, 2, 5],
      registers: [this.registry],
    });
    this.gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        gc.observe({ kind: GC_KINDS[(entry as unknown as { detail?: { kind: number } }).detail?.kind ?? -1] ?? 'unknown' }, entry.duration / 1000);
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });
    const loopDelay = (this.loopDelay = [monitorEventLoopDelay({ resolution: 10 }), monitorEventLoopDelay({ resolution: 10 })]);
    for (const monitor of loopDelay) monitor.enable();
    let older = 0;
    this.loopWindow = setInterval(() => {
      loopDelay[older].reset();
      older = 1 - older;
    }, LOOP_WINDOW_MS).unref();
    const stat = (suffix: string, help: string, read: (h: IntervalHistogram) => number) =>
      new client.Gauge({
        name: `nodejs_eventloop_lag_${suffix}seconds`,
        help: `${help} over the last 10-20 s.`,
        registers: [this.registry],
        collect() {
          const h = loopDelay[older];
          this.set(h.count ? read(h) / 1e9 : 0);
        },
      });
    stat('', 'The mean event loop delay in seconds', (h) => h.mean);
    stat('min_', 'The minimum event loop delay', (h) => h.min);
    stat('max_', 'The maximum event loop delay', (h) => h.max);
    stat('stddev_', 'The standard deviation of the event loop delays', (h) => h.stddev);
    stat('p50_', 'The 50th percentile of the event loop delays', (h) => h.percentile(50));
    stat('p90_', 'The 90th percentile of the event loop delays', (h) => h.percentile(90));
    stat('p99_', 'The 99th percentile of the event loop delays', (h) => h.percentile(99));
    const routes = this.routes;
    const exported = (name: string, help: string, type: Exported['type'], values: () => Awaited<ReturnType<Exported['get']>>['values']): Exported => ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    });
    this.registry.registerMetric(
      exported('http_requests_total', 'HTTP requests by method, route pattern and status', 'counter', () =>
        [...routes.values()].flatMap((r) => [...r.byStatus].map(([status, value]) => ({ labels: { ...r.labels, status }, value }))),
      ) as unknown as client.Metric,
    );
    this.registry.registerMetric(
      exported('http_request_duration_seconds', 'HTTP request latency by method and route pattern', 'histogram', () =>
        [...routes.values()].flatMap((r) => {
          let cumulative = 0;
          const buckets = r.buckets.map((n, i) => {
            cumulative += n;
            return {
              labels: { le: i < DURATION_BUCKETS.length ? DURATION_BUCKETS[i] : '+Inf', ...r.labels },
              value: cumulative,
              metricName: 'http_request_duration_seconds_bucket',
            };
          });
          return [
            ...buckets,
            { labels: r.labels, value: r.sum, metricName: 'http_request_duration_seconds_sum' },
            { labels: r.labels, value: r.count, metricName: 'http_request_duration_seconds_count' },
          ];
        }),
      ) as unknown as client.Metric,
    );
    this.openStreams = new client.Gauge({
      name: 'open_streams',
      help: 'Open subscription streams (WebSocket and SSE)',
      registers: [this.registry],
      collect() {
        this.set(openStreams());
      },
    });
  }

  /** A gauge read when scraped. */
  gauge(name: string, help: string, read: () => number): void {
    new client.Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /**
   * `database_size_bytes` and `queue_depth{queue}`, read from the database when scraped. /metrics is public
   * and unlimited: every scrape within `maxAgeMs` of the last reading (and every scrape while one is being
   * taken) shares it, so a flood of scrapes costs one statement every `maxAgeMs` at most.
   */
  databaseGauges(sql: SqlRunner, maxAgeMs = DATABASE_READING_MS): void {
    // Both gauges are collected in the same turn of one scrape: one reading serves them. A database that
    // does not answer reads as NaN rather than failing the whole scrape (and is asked again next scrape).
    let reading: Promise<Record<string, string | number> | undefined> | undefined;
    let takenAt = 0;
    const read = () => {
      if (reading && performance.now() - takenAt < maxAgeMs) return reading;
      takenAt = performance.now();
      const taking: Promise<Record<string, string | number> | undefined> = sql.query<Record<string, string | number>>(DATABASE_GAUGES, []).then(
        ([row]) => row,
        () => {
          if (reading === taking) reading = undefined;
          return undefined;
        },
      );
      reading = taking;
      return taking;
    };
    new client.Gauge({
      name: 'database_size_bytes',
      help: "The database's size on disk (pg_database_size: its tables and indexes, not the write-ahead log)",
      registers: [this.registry],
      async collect() {
        this.set(Number((await read())?.database_bytes ?? NaN));
      },
    });
    new client.Gauge({
      name: 'queue_depth',
      help: 'Rows waiting in a durable queue: outbox_unpublished, deliveries_waiting, attempts_to_fold',
      labelNames: ['queue'],
      registers: [this.registry],
      async collect() {
        const row = await read();
        for (const queue of ['outbox_unpublished', 'deliveries_waiting', 'attempts_to_fold']) this.set({ queue }, Number(row?.[queue] ?? NaN));
      },
    });
  }

  /** Stops the process hooks (at shutdown). */
  close(): void {
    this.gcObserver.disconnect();
    clearInterval(this.loopWindow);
    for (const monitor of this.loopDelay) monitor.disable();
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route}`;
    let series = this.routes.get(key);
    if (!series) {
      series = { labels: { method, route }, buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0, byStatus: new Map() };
      this.routes.set(key, series);
    }
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++;
    series.buckets[bucket]++;
    series.sum += seconds;
    series.count++;
    series.byStatus.set(status, (series.byStatus.get(status) ?? 0) + 1);
  }
}

/**
 * GET /metrics's rate bucket, per client address whatever credential comes: a scraper every second at
 * most, or a few every 15 s (Prometheus's default interval is 60 s).
 */
export const METRICS_BUCKET: Bucket = { name: 'metrics', perMinute: 60 };

export interface MetricsReadOptions {
  limiter: Pick<RateLimiter, 'consume'>;
  /** METRICS_TOKEN: when set, a scrape must bear it. */
  token?: string;
  trustProxy: boolean;
  publicBaseUrl: string;
}

/**
 * Answers GET /metrics. A read changes nothing another reader sees and costs no more than shaping the in-memory
 * counters; the bucket is spent before the token is checked, so a flood of wrong tokens is 429 too (docs/operations.md,
 * Health).
 */
export async function serveMetrics(metrics: Metrics, opts: MetricsReadOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const decision = await opts.limiter.consume(METRICS_BUCKET, `ip:${clientAddress(req, opts.trustProxy)}`);
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.reset),
  };
  if (!decision.allowed) {
    writeError(res, opts.publicBaseUrl, new RateLimited(decision.retryAfterSeconds), requestIdOf(res), {
      ...headers,
      'Retry-After': String(decision.retryAfterSeconds),
    });
    return;
  }
  if (opts.token !== undefined && !bearerIs(req.headers.authorization, opts.token)) {
    const refusal = new Unauthorized('GET /metrics needs the metrics token (METRICS_TOKEN) as "Authorization: Bearer <token>"');
    writeError(res, opts.publicBaseUrl, refusal, requestIdOf(res), { ...headers, 'WWW-Authenticate': 'Bearer realm="metrics"' });
    return;
  }
  const text = await metrics.registry.metrics();
  res.writeHead(200, { ...headers, 'Content-Type': metrics.registry.contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}

/** Whether the Authorization header bears `token`, compared in constant time. */
function bearerIs(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(m[1]), digest(token));
}
