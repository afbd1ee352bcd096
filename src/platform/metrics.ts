// Prometheus metrics: process defaults plus request counts and latencies per route pattern.
import client from 'prom-client';

export class Metrics {
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
}
