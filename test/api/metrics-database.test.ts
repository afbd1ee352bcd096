// /metrics reads the database's size and the durable queues' depths when scraped: what a long run watches
// to stay flat (soak/).
import { api, registerAgent, startServer, type TestServer } from '../support/server';
import { eventually } from '../support/expect';
import { startReceiver, type Receiver } from '../support/receiver';

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  // A failed delivery waits 30 s for its retry: long enough to be seen waiting.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', DELIVERY_RETRY_SCHEDULE: '30', DELIVERY_POLL_MS: '20' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

const gauge = (text: string, metric: string) => Number(new RegExp(`^${metric} (\\S+)$`, 'm').exec(text)?.[1]);
const scrape = async () => (await fetch(`${server.url}/metrics`)).text();

describe('GET /metrics: the database', () => {
  it("reports the database's size in bytes", async () => {
    const text = await scrape();
    expect(text).toContain('# TYPE database_size_bytes gauge');
    // A migrated database with its catalog is megabytes, never zero.
    expect(gauge(text, 'database_size_bytes')).toBeGreaterThan(1_000_000);
  });

  it('counts a delivery waiting for its retry in queue_depth{queue="deliveries_waiting"}', async () => {
    const me = await registerAgent(server);
    const created = await api(server)('POST', '/webhooks', { key: me.key, body: { url: receiver.url, events: ['agent.updated'] } });
    expect(created.status).toBe(201);
    const before = gauge(await scrape(), 'queue_depth\\{queue="deliveries_waiting"\\}');
    expect(Number.isFinite(before)).toBe(true);

    receiver.respond(500);
    expect((await api(server)('PATCH', '/agents/me', { key: me.key, body: { description: 'Changed, so that an event is sent' } })).status).toBe(200);
    await receiver.waitFor(1);
    // The failed attempt is recorded after the receiver answered, and a scrape reads the database at most
    // every 5 s: wait for the delivery to be seen put back.
    const waiting = await eventually(
      async () => gauge(await scrape(), 'queue_depth\\{queue="deliveries_waiting"\\}'),
      (n) => n !== before,
      12_000,
      { everyMs: 50 },
    );
    expect(waiting).toBe(before + 1);
    const text = await scrape();
    for (const queue of ['outbox_unpublished', 'attempts_to_fold']) expect(Number.isFinite(gauge(text, `queue_depth\\{queue="${queue}"\\}`))).toBe(true);
  });
});

describe('GET /metrics: a bounded read', () => {
  it("charges each scrape to its address's bucket, 60 a minute, then answers 429 with Retry-After", async () => {
    const limited = await startServer();
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 61; i++) {
        last = await fetch(`${limited.url}/metrics`);
        statuses.push(last.status);
        if (last.status === 200) await last.arrayBuffer();
      }
      expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
      expect(statuses[60]).toBe(429);
      expect(last!.headers.get('content-type')).toContain('application/problem+json');
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(last!.headers.get('x-ratelimit-limit')).toBe('60');
      expect((await last!.json()).code).toBe('rate_limited');
      // A credential does not buy another bucket: the address's is spent.
      expect((await fetch(`${limited.url}/metrics`, { headers: { authorization: 'Bearer anything-at-all-here' } })).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('answers only a bearer of METRICS_TOKEN when one is set: 401 with WWW-Authenticate otherwise', async () => {
    const token = 'scrape-token-0123456789abcdef';
    const guarded = await startServer({ env: { METRICS_TOKEN: token } });
    try {
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Basic ${token}`, `Bearer ${token}x`]) {
        const res = await fetch(`${guarded.url}/metrics`, { headers: authorization ? { authorization } : {} });
        expect([authorization, res.status]).toEqual([authorization, 401]);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
        expect(await res.json()).toMatchObject({ code: 'unauthorized', detail: expect.stringContaining('METRICS_TOKEN') });
      }
      const ok = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-remaining')).toBe('55');
      expect(await ok.text()).toContain('# TYPE database_size_bytes gauge');
    } finally {
      await guarded.close();
    }
  });
});
