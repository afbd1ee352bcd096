// Operational endpoints: health with its components, ping, version, uptime from recorded samples
// (with a fake clock), Prometheus metrics, and the root aliases load balancers probe.
import { api, startServer, type TestServer } from '../support/server';
import { FakeClock } from '../support/clock';
import { eventually } from '../support/expect';

const T0 = new Date('2026-01-01T12:00:30Z');
let server: TestServer;
const clock = new FakeClock(T0);

beforeAll(async () => {
  server = await startServer({ clock, env: { UPTIME_SAMPLE_MS: '25' } });
});
afterAll(() => server.close());

describe('GET /health', () => {
  it('reports status, version 1.1.0 and the four components', async () => {
    const res = await api(server)('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      version: '1.1.0',
      uptime_seconds: expect.any(Number),
      components: {
        database: { status: 'ok', kind: expect.stringMatching(/^(pglite|postgres)$/), latency_ms: expect.any(Number) },
        sse: { status: 'ok', open_streams: expect.any(Number), redis: 'off' },
        scheduler: { status: 'ok', jobs: expect.any(Number) },
        memory: {
          status: 'ok',
          rss_bytes: expect.any(Number),
          heap_used_bytes: expect.any(Number),
          vector_search: expect.stringMatching(/^(pgvector|exact)$/),
        },
      },
    });
  });

  it('is also served at the root for load balancers', async () => {
    for (const path of ['/health', '/ping', '/version']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
    }
  });
});

describe('ping and version', () => {
  it('answers pong and 1.1.0', async () => {
    expect((await api(server)('GET', '/ping')).body).toEqual({ pong: true });
    expect((await api(server)('GET', '/version')).body).toEqual({ version: '1.1.0' });
  });
});

describe('GET /uptime', () => {
  it('computes the share of observed minutes that had a healthy sample', async () => {
    const first = await eventually(
      () => api(server)('GET', '/uptime'),
      (r) => r.body.minutes_observed === 1,
      5_000,
    );
    expect(first.body).toMatchObject({ uptime_percent: 100, days: 30, minutes_up: 1, since: '2026-01-01T12:00:00.000Z' });
    // Three minutes pass with the instance not sampling (as if it were down), then it samples again.
    await server.app.services.scheduler.stop();
    clock.advance(3 * 60_000);
    await server.app.services.db.uptimeSample.create({ data: { minute: new Date('2026-01-01T12:03:00Z'), healthy: true } });
    const later = await api(server)('GET', '/uptime?days=7');
    expect(later.body).toMatchObject({ days: 7, minutes_observed: 4, minutes_up: 2, uptime_percent: 50 });
  });

  it.each(['0', '91', 'abc', '-1', '1.5'])('answers 400 naming days for days=%s', async (days) => {
    const res = await api(server)('GET', `/uptime?days=${days}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('days');
  });

  it('accepts the maximum of 90 days', async () => {
    expect((await api(server)('GET', '/uptime?days=90')).status).toBe(200);
  });
});

describe('GET /metrics', () => {
  it('exposes Prometheus metrics including request counts by route', async () => {
    await api(server)('GET', '/ping');
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/api\/v1\/ping",status="200"\} \d+/);
  });

  it('keeps a latency histogram per route: cumulative buckets, the last one equal to the count', async () => {
    const line = (text: string, metric: string, labels: string) => Number(new RegExp(`^${metric}\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1]);
    const before = await (await fetch(`${server.url}/metrics`)).text();
    const ping = 'method="GET",route="/api/v1/ping"';
    const count = line(before, 'http_request_duration_seconds_count', ping) || 0;
    for (let i = 0; i < 3; i++) await api(server)('GET', '/ping');
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(line(text, 'http_request_duration_seconds_count', ping)).toBe(count + 3);
    expect(line(text, 'http_request_duration_seconds_bucket', `le="\\+Inf",${ping}`)).toBe(count + 3);
    expect(line(text, 'http_request_duration_seconds_sum', ping)).toBeGreaterThan(0);
    const buckets = ['0.001', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '10'].map((le) =>
      line(text, 'http_request_duration_seconds_bucket', `le="${le}",${ping}`),
    );
    expect(buckets.every((n, i) => Number.isFinite(n) && (i === 0 || n >= buckets[i - 1]))).toBe(true);
    expect(buckets[buckets.length - 1]).toBeLessThanOrEqual(count + 3);
  });
});
