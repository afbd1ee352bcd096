// Prometheus metrics: process defaults plus request counts and latencies per route pattern.
import client from 'prom-client';

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

  constructor(openStreams: () => number) {
    client.collectDefaultMetrics({ register: this.registry });
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
