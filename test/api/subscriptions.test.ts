// Capability subscriptions (spec §2, §3, §4.6, §6.2): creation with a cron schedule and a delivery
// method, the table of moves (409 outside it), runs every second delivered by signed webhook, into a memory
// store and as SSE (executed, recorded and billed through execute), one run after downtime, and bad input.
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { FakeClock } from '../support/clock';
import { errorPaths, eventually, expectProblem } from '../support/expect';
import { startProvider, type Provider } from '../support/provider';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { registerPayingAgent } from '../support/payments';
import { openSse } from '../support/sse';

let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Provider;
let receiver: Receiver;
let capability: string;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', SCHEDULER_POLL_MS: '50', DELIVERY_POLL_MS: '50' } });
  call = api(server);
  [provider, receiver] = await Promise.all([startProvider(), startReceiver()]);
  capability = uniqueSlug('sub-cap');
  const owner = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: owner.key,
    body: {
      name: 'Scheduled provider',
      endpoint: provider.url,
      capabilities: [capability],
      description: 'Answers subscription runs',
      pricing_model: 'per_call',
      cost_per_call: 3,
    },
  });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await server.close();
  await Promise.all([provider.close(), receiver.close()]);
});

const create = (key: string, body: Record<string, unknown>) =>
  call('POST', '/subscriptions', { key, body: { capabilityId: capability, schedule: '*/5 * * * *', deliveryMethod: 'sse', ...body } });

describe('POST /subscriptions', () => {
  it('creates an active subscription with its next run, and shows a webhook secret once', async () => {
    const me = await registerPayingAgent(server);
    // Settings are read in both spellings at every depth, like every request field.
    const body = {
      capability_id: capability,
      schedule: '*/5 * * * *',
      delivery_method: 'webhook',
      delivery_config: { webhook_url: receiver.url },
      input_payload: { text: 'hi' },
    };
    const res = await call('POST', '/subscriptions', { key: me.key, body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'active', capabilityId: capability, schedule: '*/5 * * * *', deliveryMethod: 'webhook' });
    expect(res.body.deliveryConfig).toEqual({ webhookUrl: receiver.url, secret: expect.stringMatching(/^whsec_/) });
    const next = Date.parse(res.body.nextRunAt);
    expect(next).toBeGreaterThan(Date.now());
    expect(new Date(next).getUTCMinutes() % 5).toBe(0);
    const got = await call('GET', `/subscriptions/${res.body.id}`, { key: me.key });
    expect(got.body).toMatchObject({ id: res.body.id, status: 'active', inputPayload: { text: 'hi' }, deliveryConfig: { webhookUrl: receiver.url } });
    // The creation answers the subscription as a read does (and no `updated` flag: nothing was updated).
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(got.body).sort());
    expect({ ...res.body, deliveryConfig: got.body.deliveryConfig }).toEqual(got.body);
    expect(JSON.stringify(got.body)).not.toContain('whsec_');
    const list = await call('GET', '/subscriptions', { key: me.key });
    expect(list.body).toMatchObject({ total: 1, subscriptions: [{ id: res.body.id }] });
  });

  it('takes 6-field schedules with seconds first and a time zone', async () => {
    const me = await registerPayingAgent(server);
    const res = await create(me.key, { schedule: '30 0 9 * * *', timezone: 'Asia/Tokyo' });
    expect(res.status).toBe(201);
    const next = new Date(res.body.nextRunAt);
    expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([0, 0, 30]);
  });

  it('names each bad field: schedule, capability, delivery', async () => {
    const me = await registerPayingAgent(server);
    const other = await registerAgent(server);
    const store = await call('POST', '/memory/stores', { key: other.key, body: { name: 'theirs', storeType: 'kv' } });
    for (const [body, paths] of [
      [{ schedule: '* * * *' }, ['schedule']],
      [{ schedule: '* * * * * * *' }, ['schedule']],
      [{ schedule: '61 * * * *' }, ['schedule']],
      [{ schedule: '0 0 30 2 *' }, ['schedule']],
      [{ schedule: '* * * * *', timezone: 'Mars/Olympus' }, ['timezone']],
      [{ capabilityId: 'no-such-capability-here' }, ['capabilityId']],
      [{ deliveryMethod: 'pigeon' }, ['deliveryMethod']],
      [{ deliveryMethod: 'webhook', deliveryConfig: { webhookUrl: 'http://example.com/hook' } }, ['deliveryConfig.webhookUrl']],
      [{ deliveryMethod: 'webhook', deliveryConfig: { webhookUrl: receiver.url, secret: 'mine' } }, ['deliveryConfig.secret']],
      [{ deliveryMethod: 'store', deliveryConfig: {} }, ['deliveryConfig.storeId']],
      [{ deliveryMethod: 'store', deliveryConfig: { storeId: store.body.id } }, ['deliveryConfig.storeId']],
      [{ inputPayload: [1, 2] }, ['inputPayload']],
    ] as const) {
      const res = await create(me.key, body as Record<string, unknown>);
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(paths);
    }
  });
});

describe('moves', () => {
  it('pauses, resumes and cancels along the table, and answers 409 outside it', async () => {
    const me = await registerPayingAgent(server);
    const { id } = (await create(me.key, {})).body;
    const post = (verb: string) => call('POST', `/subscriptions/${id}/${verb}`, { key: me.key });
    expect((await post('pause')).body).toEqual({ id, status: 'paused', nextRunAt: null });
    expectProblem(await post('pause'), 409, 'conflict');
    const resumed = await post('resume');
    expect(resumed.body).toMatchObject({ id, status: 'active' });
    expect(Date.parse(resumed.body.nextRunAt)).toBeGreaterThan(Date.now());
    expectProblem(await post('resume'), 409, 'conflict');
    expect((await post('cancel')).body).toMatchObject({ status: 'cancelled' });
    for (const verb of ['pause', 'resume', 'cancel']) expectProblem(await post(verb), 409, 'conflict');
    expectProblem(await call('PATCH', `/subscriptions/${id}`, { key: me.key, body: { schedule: '* * * * *' } }), 409, 'conflict');
  });

  it("changes the schedule with PATCH, and hides another agent's subscription", async () => {
    const me = await registerPayingAgent(server);
    const other = await registerAgent(server);
    const { id } = (await create(me.key, {})).body;
    const patched = await call('PATCH', `/subscriptions/${id}`, { key: me.key, body: { schedule: '0 0 1 1 *', inputPayload: { n: 2 } } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, updated: true, schedule: '0 0 1 1 *' });
    expect(new Date(patched.body.nextRunAt).toISOString()).toMatch(/-01-01T00:00:00\.000Z$/);
    expectProblem(await call('PATCH', `/subscriptions/${id}`, { key: me.key, body: { capabilityId: 'summarize' } }), 400, 'validation_failed');
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['POST', '/pause'],
      ['POST', '/cancel'],
      ['GET', '/runs'],
    ] as const) {
      expectProblem(await call(method, `/subscriptions/${id}${path}`, { key: other.key, ...(method === 'GET' ? {} : { body: {} }) }), 404, 'not_found');
    }
  });
});

describe('runs every second', () => {
  it('delivers by signed webhook, into a memory store and as SSE — executed, recorded and billed', async () => {
    const me = await registerPayingAgent(server);
    const store = (await call('POST', '/memory/stores', { key: me.key, body: { name: 'runs', storeType: 'kv' } })).body;
    const hook = await startReceiver();
    try {
      const viaWebhook = (
        await create(me.key, { schedule: '* * * * * *', inputPayload: { via: 'webhook' }, deliveryMethod: 'webhook', deliveryConfig: { webhookUrl: hook.url } })
      ).body;
      const viaStore = (
        await create(me.key, {
          schedule: '* * * * * *',
          inputPayload: { via: 'store' },
          deliveryMethod: 'store',
          deliveryConfig: { storeId: store.id, key: 'latest' },
        })
      ).body;
      const viaSse = (await create(me.key, { schedule: '* * * * * *', inputPayload: { via: 'sse' } })).body;
      const reader = await openSse(`${server.url}/api/v1/subscriptions/${viaSse.id}/events`, { authorization: `Bearer ${me.key}` });
      expect(reader.status).toBe(200);

      // Webhook: two runs, each a subscription.delivered event signed with the subscription's secret.
      const received = await hook.waitFor(2, 15_000);
      const verifier = new StandardWebhook(viaWebhook.deliveryConfig.secret.replace(/^whsec_/, ''));
      for (const r of received.slice(0, 2)) {
        const event = verifier.verify(r.body, r.headers as Record<string, string>) as any;
        expect(event).toMatchObject({
          type: 'subscription.delivered',
          data: { subscription_id: viaWebhook.id, status: 'success', result: { echo: { via: 'webhook' } } },
        });
      }
      expect(received.slice(0, 2).map((r) => r.json.data.sequence)).toEqual([1, 2]);

      // Store: each run a new version of the key.
      const versions = await eventually(
        () => call('GET', `/memory/stores/${store.id}/entries/latest/versions`, { key: me.key }),
        (r) => r.status === 200 && r.body.versions.length >= 2,
        15_000,
      );
      expect(versions.body.versions[0].value).toMatchObject({ subscription_id: viaStore.id, status: 'success', result: { echo: { via: 'store' } } });

      // SSE: runs in order, ids their sequence.
      await reader.waitFor(2, 15_000);
      expect(reader.events.slice(0, 2).map((e) => [e.id, e.event])).toEqual([
        ['1', 'run'],
        ['2', 'run'],
      ]);
      expect(JSON.parse(reader.events[0].data)).toMatchObject({ subscription_id: viaSse.id, sequence: 1, status: 'success', result: { echo: { via: 'sse' } } });
      reader.close();

      // Recorded and billed like any execution of the subscriber's.
      const runs = (await call('GET', `/subscriptions/${viaSse.id}/runs`, { key: me.key })).body.runs;
      const executions = (await call('GET', '/my/executions', { key: me.key })).body.executions;
      expect(executions.map((e: any) => e.execution_id)).toEqual(
        expect.arrayContaining(runs.filter((r: any) => r.execution_id).map((r: any) => r.execution_id)),
      );
      const transactions = (await call('GET', '/my/transactions?limit=5', { key: me.key })).body.transactions;
      expect(transactions[0]).toMatchObject({ kind: 'charge', amount_cents: 3 });

      // Each run is one tick apart.
      const ticks = runs.map((r: any) => Date.parse(r.scheduled_for)).sort();
      for (let i = 1; i < ticks.length; i++) expect(ticks[i] - ticks[i - 1]).toBeGreaterThanOrEqual(1000);
      for (const s of [viaWebhook, viaStore, viaSse]) await call('POST', `/subscriptions/${s.id}/cancel`, { key: me.key });
    } finally {
      await hook.close();
    }
  }, 30_000);

  it('resumes the run stream from Last-Event-ID and ends it when the subscription is cancelled', async () => {
    const me = await registerPayingAgent(server);
    const sub = (await create(me.key, { schedule: '* * * * * *' })).body;
    await eventually(
      () => call('GET', `/subscriptions/${sub.id}/runs`, { key: me.key }),
      (r) => r.body.runs.filter((x: any) => x.status !== 'pending').length >= 3,
      15_000,
    );
    await call('POST', `/subscriptions/${sub.id}/cancel`, { key: me.key });
    const reader = await openSse(`${server.url}/api/v1/subscriptions/${sub.id}/events`, { authorization: `Bearer ${me.key}`, 'last-event-id': '1' });
    await reader.ended;
    const runs = (await call('GET', `/subscriptions/${sub.id}/runs?limit=100`, { key: me.key })).body.runs;
    const seqs = reader.events.filter((e) => e.event === 'run').map((e) => Number(e.id));
    expect(seqs).toEqual(
      runs
        .map((r: any) => r.sequence)
        .filter((n: number) => n > 1)
        .sort((a: number, b: number) => a - b),
    );
    expect(reader.events.at(-1)?.event).toBe('end');
  }, 30_000);
});

describe('after downtime', () => {
  it('runs a subscription once, not once per missed tick', async () => {
    const clock = new FakeClock(new Date('2026-11-02T10:00:00.200Z'));
    const paused = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1', SCHEDULER_POLL_MS: '60000' } });
    try {
      const me = await registerAgent(paused);
      const res = await api(paused)('POST', '/subscriptions', {
        key: me.key,
        body: { capabilityId: 'trust-score', inputPayload: { agent_id: me.agentId }, schedule: '* * * * * *', deliveryMethod: 'sse' },
      });
      expect(res.body.nextRunAt).toBe('2026-11-02T10:00:01.000Z');
      // An hour passes with nothing running (3,600 ticks missed).
      clock.advance(3_600_000);
      const scheduler = paused.app.services.subscriptionScheduler!;
      scheduler.wake();
      await scheduler.settled();
      const runs = (await api(paused)('GET', `/subscriptions/${res.body.id}/runs`, { key: me.key })).body;
      expect(runs.total).toBe(1);
      expect(runs.runs[0]).toMatchObject({ sequence: 1, scheduled_for: '2026-11-02T10:00:01.000Z', status: 'success' });
      const sub = (await api(paused)('GET', `/subscriptions/${res.body.id}`, { key: me.key })).body;
      expect(sub).toMatchObject({ run_count: 1, nextRunAt: '2026-11-02T11:00:01.000Z' });
      // The next tick runs once more; a tick not yet due does not.
      scheduler.wake();
      await scheduler.settled();
      expect((await api(paused)('GET', `/subscriptions/${res.body.id}/runs`, { key: me.key })).body.total).toBe(1);
      clock.advance(1_000);
      scheduler.wake();
      await scheduler.settled();
      expect((await api(paused)('GET', `/subscriptions/${res.body.id}/runs`, { key: me.key })).body.total).toBe(2);
    } finally {
      await paused.close();
    }
  });
});
