// Prometheus metrics: process defaults plus request counts and latencies per route pattern.
import { monitorEventLoopDelay, PerformanceObserver, constants as perf, type IntervalHistogram } from 'node:perf_hooks';
import client from 'prom-client';

/**
 * prom-client's default metrics, but for the two that hook into the process for good (a GC observer and an
 * event-loop-delay monitor, with no way to stop either): those are ours, and stop on close(). A process
 * that builds several apps (the tests build one per file) would otherwise keep every one of them alive.
 */
const HOOKED = new Set(['gc', 'eventLoopLag']);
const GC_KINDS: Record<number, string> = {
  [perf.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perf.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perf.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perf.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

type Counted = { inc(): void };
type Timed = { observe(v: number): void };

export class Metrics {
  /** Label children cached by key: resolving labels on every request is measurable on the hot path. */
  private readonly counted = new Map<string, Counted>();
  private readonly timed = new Map<string, Timed>();

  readonly registry = new client.Registry();
  readonly requests: client.Counter<'method' | 'route' | 'status'>;
  readonly duration: client.Histogram<'method' | 'route'>;
  readonly openStreams: client.Gauge;

  private readonly gcObserver: PerformanceObserver;
  private readonly loopDelay: IntervalHistogram;

  constructor(openStreams: () => number) {
    for (const name of client.collectDefaultMetrics.metricsList) {
      if (HOOKED.has(name)) continue;
      // prom-client has no export map; each default metric is its own module taking (registry, config).
      (require(`prom-client/lib/metrics/${name}`) as (r: client.Registry, c: object) => void)(this.registry, {});
    }
    const gc = new client.Histogram({
      name: 'nodejs_gc_duration_seconds',
      help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
      labelNames: ['kind'],
      buckets: [0.001, 0.01, 0.1, 1, 2, 5],
      registers: [this.registry],
    });
    this.gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gc.observe({ kind: GC_KINDS[(entry as unknown as { detail?: { kind: number } }).detail?.kind ?? -1] ?? 'unknown' }, entry.duration / 1000);
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });
    const loopDelay = (this.loopDelay = monitorEventLoopDelay({ resolution: 10 }));
    loopDelay.enable();
    const stat = (suffix: string, help: string, read: () => number) =>
      new client.Gauge({ name: `nodejs_eventloop_lag_${suffix}seconds`, help, registers: [this.registry], collect() { this.set(read() / 1e9); } });
    stat('', 'Lag of event loop in seconds (the mean since the last scrape).', () => loopDelay.mean || 0);
    stat('min_', 'The minimum recorded event loop delay.', () => loopDelay.min);
    stat('max_', 'The maximum recorded event loop delay.', () => loopDelay.max);
    stat('stddev_', 'The standard deviation of the recorded event loop delays.', () => loopDelay.stddev || 0);
    stat('p50_', 'The 50th percentile of the recorded event loop delays.', () => loopDelay.percentile(50));
    stat('p90_', 'The 90th percentile of the recorded event loop delays.', () => loopDelay.percentile(90));
    stat('p99_', 'The 99th percentile of the recorded event loop delays.', () => {
      const p99 = loopDelay.percentile(99);
      loopDelay.reset();
      return p99;
    });
    this.requests = new client.Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.duration = new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [this.registry],
    });
    this.openStreams = new client.Gauge({
      name: 'open_streams',
      help: 'Open subscription streams (WebSocket and SSE)',
      registers: [this.registry],
      collect() {
        this.set(openStreams());
      },
    });
  }

  /** Stops the process hooks (at shutdown). */
  close(): void {
    this.gcObserver.disconnect();
    this.loopDelay.disable();
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const timedKey = `${method} ${route}`;
    let timer = this.timed.get(timedKey);
    if (!timer) {
      timer = this.duration.labels(method, route);
      this.timed.set(timedKey, timer);
    }
    timer.observe(seconds);
    const countedKey = `${timedKey} ${status}`;
    let counter = this.counted.get(countedKey);
    if (!counter) {
      counter = this.requests.labels(method, route, String(status));
      this.counted.set(countedKey, counter);
    }
    counter.inc();
  }
}
