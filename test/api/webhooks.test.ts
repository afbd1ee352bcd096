// Webhooks (spec §4.6, CONTRACT §7): registration with a secret shown once, signed deliveries from the
// outbox to a real HTTPS receiver, retries with the same webhook-id, 410 turning a webhook off, no
// redirects followed, the delivery log and redelivery.
import { createPublicKey, verify } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { api, registerAgent, startServer, type TestServer } from '../support/server';
import { errorPaths, eventually, expectProblem } from '../support/expect';
import { assertTestCaTrusted, startCanary } from '../support/https';
import { startReceiver, type Receiver } from '../support/receiver';

let server: TestServer;
let call: ReturnType<typeof api>;
let receiver: Receiver;
/** Every receiver a test started, closed at the end (an open server would keep the jest process alive). */
const started: Receiver[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  // Loopback receivers need OUTBOUND_ALLOW_PRIVATE; retries are fractions of a second apart here.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', DELIVERY_RETRY_SCHEDULE: '0.05,0.05', DELIVERY_POLL_MS: '20' } });
  call = api(server);
  receiver = await startReceiver();
});
afterAll(async () => {
  await server.close();
  await Promise.all([receiver, ...started].map((r) => r.close()));
});

async function newReceiver(): Promise<Receiver> {
  const r = await startReceiver();
  started.push(r);
  return r;
}

/** An agent with a webhook on a fresh receiver. */
async function agentWithWebhook(events: string[] = ['*'], target?: Receiver) {
  const me = await registerAgent(server);
  const r = target ?? (await newReceiver());
  const res = await call('POST', '/webhooks', { key: me.key, body: { url: r.url, events } });
  if (res.status !== 201) throw new Error(`webhook registration failed: ${res.status} ${res.text}`);
  return { me, receiver: r, webhookId: res.body.webhook_id as string, secret: res.body.secret as string };
}

const touch = (key: string, description = `changed at ${Date.now()}`) => call('PATCH', '/agents/me', { key, body: { description } });

async function deliveriesOf(key: string, webhookId: string) {
  return (await call('GET', `/webhooks/${webhookId}/deliveries`, { key })).body.deliveries as any[];
}

describe('POST /webhooks', () => {
  it('registers a webhook and shows its secret once', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/webhooks', { key: me.key, body: { url: receiver.url, events: ['agent.updated', 'key.provisioned'] } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      webhook_id: expect.any(String),
      url: receiver.url,
      events: ['agent.updated', 'key.provisioned'],
      active: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.any(String),
    });
    const listed = await call('GET', '/webhooks', { key: me.key });
    expect(listed.body.total).toBe(1);
    expect(listed.body.webhooks[0]).toMatchObject({ webhook_id: res.body.webhook_id, active: true, disabled_reason: null });
    expect(listed.text).not.toContain(res.body.secret);
    expect((await call('GET', `/webhooks/${res.body.webhook_id}`, { key: me.key })).text).not.toContain(res.body.secret);
  });

  it('names each bad field', async () => {
    const me = await registerAgent(server);
    const bad = await call('POST', '/webhooks', { key: me.key, body: { url: 'http://example.com/hook', events: ['agent.updated', 'no.such.event'] } });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['events.1', 'url']);
    expect(errorPaths(await call('POST', '/webhooks', { key: me.key, body: { url: receiver.url } }))).toEqual(['events']);
    expect(errorPaths(await call('POST', '/webhooks', { key: me.key, body: { url: receiver.url, events: [] } }))).toEqual(['events']);
    expect(errorPaths(await call('POST', '/webhooks', { key: me.key, body: { url: 'https://user:pw@example.com/', events: ['*'] } }))).toEqual(['url']);
    expect(errorPaths(await call('POST', '/webhooks', { key: me.key, body: { url: receiver.url, events: ['*'], active: 'yes' } }))).toEqual(['active']);
  });

  it('refuses private and loopback addresses unless OUTBOUND_ALLOW_PRIVATE is set', async () => {
    const guarded = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
    try {
      const me = await registerAgent(guarded);
      for (const url of ['https://127.0.0.1/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest', 'https://10.0.0.7/', 'https://2130706433/']) {
        const res = await api(guarded)('POST', '/webhooks', { key: me.key, body: { url, events: ['*'] } });
        expectProblem(res, 400, 'validation_failed');
        expect(errorPaths(res)).toEqual(['url']);
      }
    } finally {
      await guarded.close();
    }
  });

  it('allows 20 webhooks per agent', async () => {
    const me = await registerAgent(server);
    const results = await Promise.all(Array.from({ length: 22 }, () => call('POST', '/webhooks', { key: me.key, body: { url: receiver.url, events: ['*'] } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    for (const r of results.filter((r) => r.status !== 201)) expectProblem(r, 409, 'conflict');
  });
});

describe('deliveries', () => {
  it('POSTs the event envelope signed with HMAC (standardwebhooks) and Ed25519 (JWKS)', async () => {
    const { me, receiver: r, secret } = await agentWithWebhook(['agent.updated']);
    await touch(me.key, 'A new description');
    const [got] = await r.waitFor(1);
    expect(got.json).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'agent.updated',
      created_at: expect.any(String),
      data: expect.objectContaining({ agent_id: me.agentId, changed: ['description'], description: 'A new description' }),
    });
    expect(got.headers['webhook-id']).toBe(got.json.id);
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    // HMAC v1, checked by the Standard Webhooks reference library.
    expect(new StandardWebhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(got.json);
    expect(() => new StandardWebhook(secret).verify(got.body.replace('A new', 'A forged'), got.headers as Record<string, string>)).toThrow();
    // Ed25519 v1a, checked against the marketplace's published key.
    const jwks = await fetch(`${server.url}/.well-known/jwks.json`).then((res) => res.json());
    const key = createPublicKey({ key: jwks.keys[0], format: 'jwk' });
    const v1a = String(got.headers['webhook-signature'])
      .split(' ')
      .find((s) => s.startsWith('v1a,'))!
      .slice(4);
    const signed = `${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`;
    expect(verify(null, Buffer.from(signed), key, Buffer.from(v1a, 'base64'))).toBe(true);
    expect(verify(null, Buffer.from(signed + ' '), key, Buffer.from(v1a, 'base64'))).toBe(false);
  });

  it('delivers only the event types a webhook asked for', async () => {
    const { me, receiver: r, webhookId } = await agentWithWebhook(['key.provisioned']);
    await touch(me.key);
    // Deliveries are written with their event, and every send under way has ended: nothing can come later.
    await server.app.services.dispatcher.settled();
    expect(r.received).toHaveLength(0);
    expect(await deliveriesOf(me.key, webhookId)).toEqual([]);
  });

  it('retries a failing receiver with the same webhook-id until it answers 2xx, and logs each attempt', async () => {
    const { me, receiver: r, webhookId } = await agentWithWebhook(['agent.updated']);
    r.respond(500, 503);
    await touch(me.key);
    const got = await r.waitFor(3);
    expect(got.map((g) => g.status)).toEqual([500, 503, 200]);
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(1);
    const [delivery] = await eventually(
      () => deliveriesOf(me.key, webhookId),
      (d) => d[0]?.status === 'delivered',
    );
    expect(delivery).toMatchObject({ status: 'delivered', attempt_count: 3, last_status: 200, event_type: 'agent.updated', event_id: got[0].json.id });
    expect(delivery.attempts.map((a: any) => a.status_code)).toEqual([500, 503, 200]);
  });

  it('gives up after the last attempt of the schedule', async () => {
    const { me, receiver: r, webhookId } = await agentWithWebhook(['agent.updated']);
    r.respond(500, 500, 500, 500);
    await touch(me.key);
    const [delivery] = await eventually(
      () => deliveriesOf(me.key, webhookId),
      (d) => d[0]?.status === 'failed',
    );
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 3, last_status: 500, last_error: 'HTTP 500', next_attempt_at: null });
    expect(r.received).toHaveLength(3);
  });

  it('turns a webhook off when its receiver answers 410 Gone', async () => {
    const { me, receiver: r, webhookId } = await agentWithWebhook(['agent.updated']);
    r.respond(410);
    await touch(me.key);
    const hook = await eventually(
      () => call('GET', `/webhooks/${webhookId}`, { key: me.key }),
      (res) => res.body.active === false,
    );
    expect(hook.body).toMatchObject({ active: false, disabled_reason: expect.stringContaining('410') });
    await touch(me.key);
    // An inactive webhook gets no delivery written with the event, and every send under way has ended.
    await server.app.services.dispatcher.settled();
    expect(r.received).toHaveLength(1);
    // Turned on again, it receives the next event.
    expect((await call('PATCH', `/webhooks/${webhookId}`, { key: me.key, body: { active: true } })).body).toMatchObject({
      active: true,
      disabled_reason: null,
    });
    await touch(me.key);
    await r.waitFor(2);
  });

  it('never follows a redirect', async () => {
    const canary = await startCanary();
    try {
      const { me, receiver: r, webhookId } = await agentWithWebhook(['agent.updated']);
      r.respond(
        { status: 302, location: `${canary.url}/steal` },
        { status: 302, location: `${canary.url}/steal` },
        { status: 302, location: `${canary.url}/steal` },
      );
      await touch(me.key);
      const [delivery] = await eventually(
        () => deliveriesOf(me.key, webhookId),
        (d) => d[0]?.status === 'failed',
      );
      expect(delivery).toMatchObject({ status: 'failed', last_status: 302 });
      expect(canary.connections()).toBe(0);
    } finally {
      await canary.close();
    }
  });

  it('redelivers a finished delivery as a new one with the same event id', async () => {
    const { me, receiver: r, webhookId } = await agentWithWebhook(['agent.updated']);
    await touch(me.key);
    await r.waitFor(1);
    const [first] = await eventually(
      () => deliveriesOf(me.key, webhookId),
      (d) => d[0]?.status === 'delivered',
    );
    const again = await call('POST', `/webhooks/${webhookId}/deliveries/${first.delivery_id}/redeliver`, { key: me.key });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ event_id: first.event_id, status: 'pending', attempt_count: 0 });
    const got = await r.waitFor(2);
    expect(got[1].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    const stranger = await registerAgent(server);
    expectProblem(await call('POST', `/webhooks/${webhookId}/deliveries/${first.delivery_id}/redeliver`, { key: stranger.key }), 404, 'not_found');
  });
});

describe('changing and deleting', () => {
  it('changes events and url, and deletes a webhook with its deliveries', async () => {
    const { me, webhookId } = await agentWithWebhook(['agent.updated']);
    const other = await newReceiver();
    try {
      const changed = await call('PATCH', `/webhooks/${webhookId}`, { key: me.key, body: { url: other.url, events: ['*'] } });
      expect(changed.body).toMatchObject({ url: other.url, events: ['*'] });
      expect(errorPaths(await call('PATCH', `/webhooks/${webhookId}`, { key: me.key, body: { url: 'ftp://x' } }))).toEqual(['url']);
      await touch(me.key);
      await other.waitFor(1);
      const stranger = await registerAgent(server);
      expectProblem(await call('DELETE', `/webhooks/${webhookId}`, { key: stranger.key }), 404, 'not_found');
      expect((await call('DELETE', `/webhooks/${webhookId}`, { key: me.key })).body).toEqual({ deleted: true, webhook_id: webhookId });
      expectProblem(await call('GET', `/webhooks/${webhookId}`, { key: me.key }), 404, 'not_found');
      expectProblem(await call('GET', `/webhooks/${webhookId}/deliveries`, { key: me.key }), 404, 'not_found');
      const audit = await call('GET', '/my/audit-log', { key: me.key });
      expect(audit.body.events.map((e: any) => e.action)).toEqual(expect.arrayContaining(['webhook.created', 'webhook.updated', 'webhook.deleted']));
    } finally {
      await other.close();
    }
  });

  it('rejects an unknown delivery status filter', async () => {
    const { me, webhookId } = await agentWithWebhook(['*']);
    expect(errorPaths(await call('GET', `/webhooks/${webhookId}/deliveries?status=lost`, { key: me.key }))).toEqual(['status']);
  });
});
