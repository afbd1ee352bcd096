// Live providers (docs/execution.md, Live providers): services that get no calls are probed through the
// outbound client, a provider whose server stops is found unhealthy by probes alone and leaves auto routing,
// and comes back when it answers again; the quality the marketplace measured is published with the calls
// behind it, on REST and GraphQL.
import { api, gql, registerAgent, registerService, startServer, uniqueSlug, type TestServer } from '../support/server';
import { eventually, expectProblem, within } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

const INTERVAL_MS = 1_000;
let server: TestServer;
let call: ReturnType<typeof api>;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({
    env: {
      RATE_LIMIT_DISABLED: '1',
      OUTBOUND_ALLOW_PRIVATE: '1',
      PROBE_INTERVAL_MS: String(INTERVAL_MS),
      PROBE_HOST_GAP_MS: '0',
      QUALITY_DELAY_MS: '100',
      READ_CACHE_MS: '0',
    },
  });
  call = api(server);
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await server.close();
});

/** A provider behind a proxy that a test can cut, as when its server stops, and restore. */
async function stoppable(name: string): Promise<{ provider: Provider; proxy: TcpProxy; url: string }> {
  const provider = await startProvider(name);
  const target = new URL(provider.url);
  const proxy = await startTcpProxy('127.0.0.1', Number(target.port));
  closers.push(
    () => proxy.close(),
    () => provider.close(),
  );
  return { provider, proxy, url: `${target.protocol}//${target.hostname}:${proxy.port}${target.pathname}` };
}

const probes = (p: Provider) => p.calls.filter((c) => c.method === 'GET').length;
const service = async (key: string) => (await call('GET', `/services/${key}`)).body;

describe('a provider that stops', () => {
  it('is probed unhealthy without any call, leaves auto routing within two probe intervals, and comes back when it answers', async () => {
    const cap = uniqueSlug('probed');
    const dead = await stoppable('stops');
    const alive = await startProvider('stays');
    closers.push(() => alive.close());
    const owner = await registerAgent(server);
    const stops = await registerService(server, owner.key, { endpoint: dead.url, capabilities: [cap], pricing_model: 'free', cost_per_call: 0 });
    const stays = await registerService(server, owner.key, { endpoint: alive.url, capabilities: [cap], pricing_model: 'free', cost_per_call: 0 });
    // Probed once idle for an interval: a GET of its endpoint, answered (any answer under 500 is a pass).
    const healthy = await eventually(
      () => service(stops.service_key),
      (s) => s.health === 'healthy',
      10 * INTERVAL_MS,
    );
    expect(healthy).toMatchObject({ health: 'healthy', health_url: null, last_failure_reason: null });
    expect(probes(dead.provider)).toBeGreaterThanOrEqual(1);
    expect(dead.provider.calls.every((c) => c.method === 'GET')).toBe(true);

    dead.proxy.cut();
    const cutAt = Date.now();
    await within(2 * INTERVAL_MS + 1_500, async () => (await service(stops.service_key)).health === 'unhealthy', {
      what: 'unhealthy after its server stopped',
      everyMs: 25,
    });
    const tookMs = Date.now() - cutAt;
    const down = await service(stops.service_key);
    expect(down).toMatchObject({ health: 'unhealthy', last_failure_reason: 'connect_error' });
    // Nobody called it: probes alone found it out.
    expect(dead.provider.calls.filter((c) => c.method === 'POST')).toHaveLength(0);
    // Within two probe intervals (and the polls' own time).
    expect(tookMs).toBeLessThan(2 * INTERVAL_MS + 1_500);

    // Auto routing passes it over, saying why, and calls the other.
    const me = await registerAgent(server);
    const res = await call('POST', '/execute', { key: me.key, body: { capability: cap, input: { n: 1 }, routing: { order: [stops.service_key] } } });
    expect(res.status).toBe(200);
    expect(res.body.provider.service_key).toBe(stays.service_key);
    expect(res.body.routing.skipped).toEqual([
      expect.objectContaining({ service_key: stops.service_key, reason: 'unhealthy', detail: expect.stringContaining('connect_error') }),
    ]);

    // Alone, it makes the call a 503 with Retry-After, without trying it.
    const only = await call('POST', '/execute', { key: me.key, body: { capability: cap, input: {}, routing: { only: [stops.service_key] } } });
    expectProblem(only, 503, 'service_unavailable');
    expect(Number(only.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    dead.proxy.restore();
    await within(2 * INTERVAL_MS + 1_500, async () => (await service(stops.service_key)).health === 'healthy', {
      what: 'healthy again once its server answers',
      everyMs: 25,
    });
    const back = await call('POST', '/execute', { key: me.key, body: { capability: cap, input: {}, routing: { only: [stops.service_key] } } });
    expect(back.status).toBe(200);
    expect(back.body.provider.service_key).toBe(stops.service_key);
  });

  it('probes a declared health_url, where only a 2xx passes', async () => {
    const health = await startProvider('health');
    const endpoint = await startProvider('endpoint');
    closers.push(
      () => health.close(),
      () => endpoint.close(),
    );
    health.setDefault({ status: 404, json: { error: 'no such page' } });
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key, {
      endpoint: endpoint.url,
      health_url: health.url,
      capabilities: [uniqueSlug('healthurl')],
      pricing_model: 'free',
      cost_per_call: 0,
    });
    expect(svc.health_url).toBeUndefined();
    const down = await eventually(
      () => service(svc.service_key),
      (s) => s.health === 'unhealthy',
      10 * INTERVAL_MS,
    );
    expect(down).toMatchObject({ health: 'unhealthy', health_url: health.url, last_failure_reason: 'provider_4xx' });
    expect(endpoint.calls).toHaveLength(0);
    expect(probes(health)).toBeGreaterThanOrEqual(2);
  });

  it('refuses a health_url that is not https, naming the field as the client spelled it', async () => {
    const owner = await registerAgent(server);
    const res = await call('POST', '/services/register', {
      key: owner.key,
      body: {
        name: 'x',
        description: 'a service to refuse',
        endpoint: 'https://127.0.0.1:9/run',
        healthUrl: 'http://127.0.0.1:9/health',
        capabilities: ['x'],
        pricing_model: 'free',
      },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['healthUrl']);
  });
});

describe('published quality', () => {
  it('shows the calls behind the figures, latency, uptime and the days one by one, on REST and GraphQL', async () => {
    const cap = uniqueSlug('quality');
    const p = await startProvider('measured');
    closers.push(() => p.close());
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key, { endpoint: p.url, capabilities: [cap], pricing_model: 'free', cost_per_call: 0 });
    const me = await registerAgent(server);
    p.behave({}, {}, { status: 500 }, { status: 422, json: { error: 'bad input' } });
    for (let i = 0; i < 4; i++) await call('POST', '/execute', { key: me.key, body: { capability: cap, input: { i }, provider: svc.service_key } });
    await server.app.services.providerStats.settled();
    const q = await eventually(
      async () => (await call('GET', `/services/${svc.service_key}/quality`)).body,
      (b) => b.quality?.calls === 3 && b.quality?.excused === 1,
      10_000,
    );
    expect(q).toMatchObject({
      service_key: svc.service_key,
      health: 'healthy',
      last_failure_reason: 'provider_5xx',
      quality: {
        window_days: 30,
        calls: 3,
        successes: 2,
        failures: 1,
        excused: 1,
        success_rate: 0.6667,
        uptime_24h: 1,
        low_sample: true,
      },
    });
    expect(q.quality.latency_p50_ms).toEqual(expect.any(Number));
    expect(q.days).toEqual([expect.objectContaining({ day: new Date().toISOString().slice(0, 10), successes: 2, failures: 1, excused: 1, uptime: 1 })]);

    // The same figures where a buyer chooses: resolve, over REST and GraphQL.
    const resolved = await call('POST', '/resolve', { key: me.key, body: { capability: cap } });
    expect(resolved.body.matches[0]).toMatchObject({ service_key: svc.service_key, health: 'healthy', quality: { calls: 3, success_rate: 0.6667 } });
    const g = await gql(
      server,
      `query($c: String!) { resolve(input: { capability: $c }) { matches { serviceKey health quality { calls successRate uptime24h lowSample } } } }`,
      { c: cap },
      me.key,
    );
    expect(g.body.data.resolve.matches[0]).toEqual({
      serviceKey: svc.service_key,
      health: 'healthy',
      quality: { calls: 3, successRate: 0.6667, uptime24h: 1, lowSample: true },
    });
  });
});
