// Spec §4.6 webhooks and subscriptions, with §2's Webhook and Subscription records, §3's subscription rows,
// §6.1 (webhook delivery while active), §6.2 (subscription output by webhook, store or sse) and CONTRACT §7
// (the envelope, its signatures, the event names), against real HTTPS receivers on loopback.
import { createPublicKey, verify } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { errorPaths, eventually, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, registerAgent, startServer, type TestServer } from '../support/server';
import { openSse } from '../support/sse';

const EVENT_NAMES = [
  'agent.updated',
  'execution.succeeded',
  'execution.failed',
  'ticket.created',
  'ticket.updated',
  'ticket.commented',
  'dispute.created',
  'dispute.resolved',
  'key.provisioned',
  'key.rotated',
  'subscription.delivered',
  'task.delegated',
  'task.executed',
  'spark.published',
  'swarm.completed',
  'uto.ticket.created',
  'uto.ticket.state_changed',
  'ammc.conglomerate.state_changed',
  'reputation.changed',
];

let server: TestServer;
let call: ReturnType<typeof api>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', DELIVERY_POLL_MS: '20', SCHEDULER_POLL_MS: '50' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** Changes the agent's profile: an `agent.updated` event. */
const touch = (key: string, description: string) => call('PATCH', '/agents/me', { key, body: { description } });

describe('§4.6 POST /webhooks', () => {
  it('§4.6 POST /webhooks with url and events answers 201 webhook_id and active, true by default', async () => {
    const me = await registerAgent(server);
    const r = await receiver();
    const res = await call('POST', '/webhooks', { key: me.key, body: { url: r.url, events: ['agent.updated'] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ webhook_id: expect.stringMatching(/^[0-9a-f-]{36}$/), url: r.url, events: ['agent.updated'], active: true });
    const off = await call('POST', '/webhooks', { key: me.key, body: { url: r.url, events: ['*'], active: false } });
    expect(off.status).toBe(201);
    expect(off.body.active).toBe(false);
    expect((await call('GET', `/webhooks/${res.body.webhook_id}`, { key: me.key })).body).toMatchObject({ webhook_id: res.body.webhook_id, active: true });
    expect((await call('GET', `/webhooks/${off.body.webhook_id}`, { key: me.key })).body).toMatchObject({ webhook_id: off.body.webhook_id, active: false });
  });

  it('§4.6 url and events are required; CONTRACT §7 events are the event names, or * for all', async () => {
    const me = await registerAgent(server);
    const r = await receiver();
    const missing = await call('POST', '/webhooks', { key: me.key, body: {} });
    expectProblem(missing, 400, 'validation_failed');
    expect(errorPaths(missing)).toEqual(['events', 'url']);
    const every = await call('POST', '/webhooks', { key: me.key, body: { url: r.url, events: EVENT_NAMES } });
    expect(every.status).toBe(201);
    expect(every.body.events).toEqual(EVENT_NAMES);
    const unknown = await call('POST', '/webhooks', { key: me.key, body: { url: r.url, events: ['agent.updated', 'agent.teleported'] } });
    expectProblem(unknown, 400, 'validation_failed');
    expect(errorPaths(unknown)).toEqual(['events.1']);
  });
});

describe('§6.1 webhook delivery', () => {
  it('§6.1 delivery is a real-time notification to the URL; CONTRACT §7 a POST of {id, type, created_at, data} signed HMAC v1 with the secret and Ed25519 v1a with the published key', async () => {
    const me = await registerAgent(server);
    const r = await receiver();
    const hook = await call('POST', '/webhooks', { key: me.key, body: { url: r.url, events: ['agent.updated'] } });
    expect(hook.body.secret).toMatch(/^whsec_/);
    await touch(me.key, 'Described anew for the webhook');
    const [got] = await r.waitFor(1);
    expect(got.json).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'agent.updated',
      created_at: expect.any(String),
      data: expect.objectContaining({ agent_id: me.agentId }),
    });
    expect(new Date(got.json.created_at).toISOString()).toBe(got.json.created_at);
    expect(new StandardWebhook(hook.body.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(got.json);
    const jwks = await fetch(`${server.url}/.well-known/jwks.json`).then((res) => res.json());
    const v1a = String(got.headers['webhook-signature'])
      .split(' ')
      .find((s) => s.startsWith('v1a,'))!
      .slice(4);
    const signed = `${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`;
    expect(verify(null, Buffer.from(signed), createPublicKey({ key: jwks.keys[0], format: 'jwk' }), Buffer.from(v1a, 'base64'))).toBe(true);
  });

  it('§6.1 delivery happens while active is true: an inactive webhook is sent nothing until it is active again', async () => {
    const me = await registerAgent(server);
    const on = await receiver();
    const off = await receiver();
    await call('POST', '/webhooks', { key: me.key, body: { url: on.url, events: ['agent.updated'] } });
    const inactive = await call('POST', '/webhooks', { key: me.key, body: { url: off.url, events: ['agent.updated'], active: false } });
    await touch(me.key, 'First change');
    await on.waitFor(1);
    expect((await call('GET', `/webhooks/${inactive.body.webhook_id}/deliveries`, { key: me.key })).body.deliveries).toEqual([]);
    expect(off.received).toHaveLength(0);
    const activated = await call('PATCH', `/webhooks/${inactive.body.webhook_id}`, { key: me.key, body: { active: true } });
    expect(activated.body.active).toBe(true);
    await touch(me.key, 'Second change');
    const [got] = await off.waitFor(1);
    expect(got.json.data).toMatchObject({ description: 'Second change' });
  });
});

describe('§4.6 subscriptions', () => {
  const create = (key: string, body: Record<string, unknown> = {}) =>
    call('POST', '/subscriptions', { key, body: { capabilityId: 'trust-score', schedule: '0 9 * * 1', deliveryMethod: 'sse', ...body } });

  it('§4.6 POST /subscriptions answers 201 id, status, nextRunAt; §3 a new subscription is active with nextRunAt set', async () => {
    const me = await registerAgent(server);
    const res = await create(me.key, { inputPayload: { agent_id: me.agentId } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'active',
      nextRunAt: expect.any(String),
      capabilityId: 'trust-score',
      schedule: '0 9 * * 1',
      deliveryMethod: 'sse',
      inputPayload: { agent_id: me.agentId },
    });
    const next = new Date(res.body.nextRunAt);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect([next.getUTCDay(), next.getUTCHours(), next.getUTCMinutes()]).toEqual([1, 9, 0]);
  });

  it('§4.6 capabilityId, schedule and deliveryMethod are required; deliveryMethod is webhook, store or sse', async () => {
    const me = await registerAgent(server);
    const missing = await call('POST', '/subscriptions', { key: me.key, body: {} });
    expectProblem(missing, 400, 'validation_failed');
    expect(errorPaths(missing)).toEqual(['capabilityId', 'deliveryMethod', 'schedule']);
    const bad = await create(me.key, { deliveryMethod: 'fax' });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['deliveryMethod']);
  });

  it('CONTRACT §3 schedule is a 5-field cron, or 6 with seconds first; an invalid one answers 400', async () => {
    const me = await registerAgent(server);
    expect((await create(me.key, { schedule: '*/15 * * * *' })).status).toBe(201);
    const six = await create(me.key, { schedule: '30 0 12 * * *' });
    expect(six.status).toBe(201);
    expect(new Date(six.body.nextRunAt).getUTCSeconds()).toBe(30);
    for (const schedule of ['every day', '* * * *', '61 * * * *', '* * * * * * *']) {
      const res = await create(me.key, { schedule });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['schedule']);
    }
  });

  it('§4.6 GET /subscriptions answers subscriptions; GET /subscriptions/:id answers id and status', async () => {
    const me = await registerAgent(server);
    const a = (await create(me.key)).body;
    const b = (await create(me.key, { schedule: '0 0 * * *' })).body;
    const list = await call('GET', '/subscriptions', { key: me.key });
    expect(list.status).toBe(200);
    expect(list.body.subscriptions.map((s: any) => s.id).sort()).toEqual([a.id, b.id].sort());
    const one = await call('GET', `/subscriptions/${a.id}`, { key: me.key });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: a.id, status: 'active' });
    const other = await registerAgent(server);
    expect((await call('GET', '/subscriptions', { key: other.key })).body.subscriptions).toEqual([]);
    expectProblem(await call('GET', `/subscriptions/${a.id}`, { key: other.key }), 404, 'not_found');
  });

  it('§4.6 PATCH /subscriptions/:id answers 200 id, updated', async () => {
    const me = await registerAgent(server);
    const sub = (await create(me.key)).body;
    const res = await call('PATCH', `/subscriptions/${sub.id}`, { key: me.key, body: { schedule: '0 18 * * 5', inputPayload: { agent_id: me.agentId } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sub.id, updated: true });
    const read = (await call('GET', `/subscriptions/${sub.id}`, { key: me.key })).body;
    expect(read).toMatchObject({ schedule: '0 18 * * 5', inputPayload: { agent_id: me.agentId }, status: 'active' });
    expect(new Date(read.nextRunAt).getUTCDay()).toBe(5);
  });

  it('§3 pausing a subscription moves it to paused; resuming to active; cancelling to cancelled (each answers 200 status)', async () => {
    const me = await registerAgent(server);
    const sub = (await create(me.key)).body;
    const move = (verb: string) => call('POST', `/subscriptions/${sub.id}/${verb}`, { key: me.key });
    const status = async () => (await call('GET', `/subscriptions/${sub.id}`, { key: me.key })).body.status;

    const paused = await move('pause');
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('paused');
    expect(await status()).toBe('paused');

    const resumed = await move('resume');
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('active');
    expect(Date.parse(resumed.body.nextRunAt)).toBeGreaterThan(Date.now());
    expect(await status()).toBe('active');

    const cancelled = await move('cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(await status()).toBe('cancelled');
  });

  it('§3 a paused subscription may be cancelled', async () => {
    const me = await registerAgent(server);
    const sub = (await create(me.key)).body;
    await call('POST', `/subscriptions/${sub.id}/pause`, { key: me.key });
    expect((await call('POST', `/subscriptions/${sub.id}/cancel`, { key: me.key })).body.status).toBe('cancelled');
  });
});

describe('§6.2 subscription delivery', () => {
  it('§6.2 subscriptions deliver the scheduled execution output by webhook (to deliveryConfig.webhookUrl), store (a memory store) or sse', async () => {
    const me = await registerAgent(server);
    const hook = await receiver();
    const store = (await call('POST', '/memory/stores', { key: me.key, body: { name: 'subscription-output', storeType: 'kv' } })).body;
    const every = { capabilityId: 'trust-score', schedule: '* * * * * *', inputPayload: { agent_id: me.agentId } };
    const viaWebhook = await call('POST', '/subscriptions', {
      key: me.key,
      body: { ...every, deliveryMethod: 'webhook', deliveryConfig: { webhookUrl: hook.url } },
    });
    expect(viaWebhook.status).toBe(201);
    expect(viaWebhook.body.deliveryConfig).toMatchObject({ webhookUrl: hook.url, secret: expect.stringMatching(/^whsec_/) });
    const viaStore = await call('POST', '/subscriptions', {
      key: me.key,
      body: { ...every, deliveryMethod: 'store', deliveryConfig: { storeId: store.id, key: 'latest' } },
    });
    expect(viaStore.status).toBe(201);
    const viaSse = await call('POST', '/subscriptions', { key: me.key, body: { ...every, deliveryMethod: 'sse' } });
    expect(viaSse.status).toBe(201);
    const reader = await openSse(`${server.url}/api/v1/subscriptions/${viaSse.body.id}/events`, { authorization: `Bearer ${me.key}` });
    try {
      expect(reader.status).toBe(200);
      // Webhook: the output, signed with the subscription's own secret.
      const [got] = await hook.waitFor(1, 15_000);
      const event = new StandardWebhook(viaWebhook.body.deliveryConfig.secret).verify(got.body, got.headers as Record<string, string>) as any;
      expect(event).toMatchObject({
        type: 'subscription.delivered',
        data: { subscription_id: viaWebhook.body.id, status: 'success', result: { agent_id: me.agentId, trust_score: expect.any(Number) } },
      });
      // Store: the output written to the key of the store.
      const entry = await eventually(
        () => call('GET', `/memory/stores/${store.id}/entries/latest`, { key: me.key }),
        (r) => r.status === 200,
        15_000,
      );
      expect(entry.body.value).toMatchObject({ subscription_id: viaStore.body.id, status: 'success', result: { agent_id: me.agentId } });
      // SSE: the output as an event of the subscription's stream.
      await reader.waitFor(1, 15_000);
      expect(JSON.parse(reader.events[0].data)).toMatchObject({ subscription_id: viaSse.body.id, status: 'success', result: { agent_id: me.agentId } });
    } finally {
      reader.close();
      for (const s of [viaWebhook, viaStore, viaSse]) await call('POST', `/subscriptions/${s.body.id}/cancel`, { key: me.key });
    }
  }, 30_000);
});
