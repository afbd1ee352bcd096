// /metrics reads the database's size and the durable queues' depths when scraped: what a long run watches
// to stay flat (soak/).
import { api, registerAgent, startServer, type TestServer } from '../support/server';
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
    let waiting = before;
    for (const until = Date.now() + 12_000; waiting === before && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 50));
      waiting = gauge(await scrape(), 'queue_depth\\{queue="deliveries_waiting"\\}');
    }
    expect(waiting).toBe(before + 1);
    const text = await scrape();
    for (const queue of ['outbox_unpublished', 'attempts_to_fold']) expect(Number.isFinite(gauge(text, `queue_depth\\{queue="${queue}"\\}`))).toBe(true);
  });
});
