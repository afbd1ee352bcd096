// Outbox fairness (issue 34): one agent's receivers that never answer hold only their owner's share of the
// sends in flight, and another agent's deliveries go out at once beside them; nothing of the slow agent's
// is lost, it is retried on its schedule.
import type { ServerResponse } from 'node:http';
import { OWNER_IN_FLIGHT } from '../../src/platform/outbox';
import { assertTestCaTrusted, startHttpsServer, type HttpsTestServer } from '../support/https';
import { within } from '../support/expect';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, registerAgent, startServer, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
let holding: HttpsTestServer;
/** Requests the never-answering receivers took, each held open. */
const held: ServerResponse[] = [];
let fast: Receiver;

beforeAll(async () => {
  assertTestCaTrusted();
  // The send timeout is what a slow receiver holds a slot for; the old dispatcher's round waited for it.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', DELIVERY_TIMEOUT_MS: '6000' } });
  call = api(server);
  holding = await startHttpsServer((req, res) => {
    req.resume();
    held.push(res);
  });
  fast = await startReceiver('/fast');
});
afterAll(async () => {
  // Closing the holding receiver cuts its sockets, so the sends in flight end before the server stops.
  await holding.close();
  await fast.close();
  await server.close();
});

it('delivers another agent’s event within 2 s while one agent’s 20 receivers never answer, that agent holding only its share', async () => {
  const slow = await registerAgent(server);
  for (let i = 0; i < 20; i++) {
    const res = await call('POST', '/webhooks', { key: slow.key, body: { url: `${holding.url}/never/${i}`, events: ['agent.updated'] } });
    expect(res.status).toBe(201);
  }
  // Three events: 60 deliveries due at once, none of which will ever be answered.
  for (const description of ['one', 'two', 'three']) {
    expect((await call('PATCH', '/agents/me', { key: slow.key, body: { description } })).status).toBe(200);
  }
  await within(3_000, async () => held.length >= OWNER_IN_FLIGHT);

  const other = await registerAgent(server);
  expect((await call('POST', '/webhooks', { key: other.key, body: { url: fast.url, events: ['agent.updated'] } })).status).toBe(201);
  const started = Date.now();
  expect((await call('PATCH', '/agents/me', { key: other.key, body: { description: 'not kept waiting' } })).status).toBe(200);
  const [got] = await fast.waitFor(1, 2_000);
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(got.json).toMatchObject({ type: 'agent.updated', data: { description: 'not kept waiting' } });

  // The slow agent holds its share of the sends in flight, not every slot.
  expect(held.length).toBe(OWNER_IN_FLIGHT);
  // Its deliveries are kept: those sent wait for their answer, the rest for their turn.
  const { db } = server.app.services;
  const theirs = await db.delivery.groupBy({ by: ['status'], where: { webhook: { agentId: slow.agentId } }, _count: { _all: true } });
  expect(Object.fromEntries(theirs.map((g) => [g.status, g._count._all]))).toEqual({ sending: OWNER_IN_FLIGHT, pending: 60 - OWNER_IN_FLIGHT });
});
