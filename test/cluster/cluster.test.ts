// Two instances on one PostgreSQL and one Redis: an event published on one reaches a subscriber on the
// other, and a rate limit is shared.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { secretHint, sha256Hex } from '../../src/platform/ids';
import { clonePostgres } from '../support/databases';
import { api, startServer, uniqueName, type TestServer } from '../support/server';
import { startReceiver } from '../support/receiver';
import { startProvider } from '../support/provider';
import { openSse } from '../support/sse';
import { launchServer } from '../support/process';
import { fund, payFor, registerPayingAgent, throwAwayAccount } from '../support/payments';
import { eventually, quiet, within } from '../support/expect';
import { claimSteps } from '../../src/domain/swarms/runner';

const ADMIN_KEY = `key_admin_${'G'.repeat(40)}`;

/**
 * Registration is limited per address (30 a minute, counted in Redis for both instances), and this suite
 * registers more agents than that within a minute on a quiet machine: the instances believe a proxy on
 * loopback (TRUST_PROXY), and each registration comes from an address of its own, as agents on the
 * internet would.
 */
let nextAddress = 0;
async function registerAgent(server: { url: string }) {
  const address = `198.51.100.${1 + (nextAddress++ % 250)}`;
  const res = await api(server)('POST', '/agents/register', {
    body: { name: uniqueName(), description: 'An agent made by a test', ownerEmail: 'owner@example.com' },
    headers: { 'x-forwarded-for': address },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return { key: res.body.master_key as string, agentId: res.body.agent_id as string, name: res.body.name as string, body: res.body };
}

let a: TestServer;
let b: TestServer;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await clonePostgres(process.env.DATABASE_URL!);
  drop = db.drop;
  // Both poll for deliveries often, so that they compete for every one.
  // A read-cache TTL beyond any test: what a test sees change on the other instance came by notification.
  // A tick counts as missed after 120 s, not 5: the suite shares two cores with the others, and a tick
  // delayed by a busy machine is not a tick missed by an instance that was down (CI on a slow machine fell
  // more than 30 s behind fifty runs a second, and skipped).
  // Wallets open empty (SANDBOX_STARTING_BALANCE 0): the payments here spend exactly what the faucet gave.
  // A proxy on loopback is believed (TRUST_PROXY): registrations say where they come from (registerAgent).
  const env = {
    ADMIN_KEY,
    TRUST_PROXY: '1',
    OUTBOUND_ALLOW_PRIVATE: '1',
    DELIVERY_POLL_MS: '10',
    READ_CACHE_MS: '60000',
    SCHEDULER_POLL_MS: '20',
    MISSED_TICK_GRACE_MS: '120000',
    SANDBOX_STARTING_BALANCE: '0',
  };
  a = await startServer({ databaseUrl: db.url, redisUrl: process.env.REDIS_URL, env });
  b = await startServer({ databaseUrl: db.url, redisUrl: process.env.REDIS_URL, env });
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await drop?.();
});

it('delivers an event published on one instance to a subscriber on the other', async () => {
  const me = await registerAgent(a);
  const streamsBefore = b.app.services.events.openStreams;
  const ws = createClient({
    url: `${b.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${me.key}` },
    retryAttempts: 0,
  });
  try {
    const received = new Promise<any>((resolve, reject) => {
      ws.subscribe({ query: 'subscription { agentEvents { type data } }' }, { next: resolve, error: reject, complete: () => {} });
    });
    // Subscribed (instance B holds the stream) before the change is made.
    await within(5_000, async () => b.app.services.events.openStreams > streamsBefore);
    const patched = await api(a)('PATCH', '/agents/me', { key: me.key, body: { description: 'Changed on instance A' } });
    expect(patched.status).toBe(200);
    const event = await received;
    expect(event.data.agentEvents).toMatchObject({ type: 'agent.updated', data: { agent_id: me.agentId, description: 'Changed on instance A' } });
  } finally {
    await ws.dispose();
  }
});

it('delivers each event to a webhook once, whichever instance committed it and whichever sends it', async () => {
  const receiver = await startReceiver();
  try {
    const me = await registerAgent(a);
    const hook = await api(b)('POST', '/webhooks', { key: me.key, body: { url: receiver.url, events: ['agent.updated'] } });
    expect(hook.status).toBe(201);
    const changes = 30;
    for (let i = 0; i < changes; i++) {
      const res = await api(i % 2 ? a : b)('PATCH', '/agents/me', { key: me.key, body: { description: `Change number ${i}` } });
      expect(res.status).toBe(200);
    }
    await receiver.waitFor(changes, 20_000);
    // Every send under way on either instance has ended: a duplicate, were there one, has come.
    await Promise.all([a.app.services.dispatcher.settled(), b.app.services.dispatcher.settled()]);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(changes);
    expect(new Set(ids).size).toBe(changes);
    const deliveries = await api(a)('GET', `/webhooks/${hook.body.webhook_id}/deliveries?limit=100`, { key: me.key });
    expect(deliveries.body.deliveries.map((d: any) => `${d.status}/${d.attempt_count}`)).toEqual(Array(changes).fill('delivered/1'));
  } finally {
    await receiver.close();
  }
});

it('shares a rate limit across instances', async () => {
  const me = await registerAgent(a);
  for (let i = 0; i < 60; i++) {
    const res = await api(i % 2 ? a : b)('GET', '/agents/me', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
  }
  expect((await api(a)('GET', '/agents/me', { key: me.key })).status).toBe(429);
  expect((await api(b)('GET', '/agents/me', { key: me.key })).status).toBe(429);
});

it('reports Redis in /health on both instances', async () => {
  for (const s of [a, b]) {
    const health = await api(s)('GET', '/health');
    expect(health.body.components.sse).toMatchObject({ status: 'ok', redis: 'connected' });
    expect(health.body.components.database.kind).toBe('postgres');
  }
});

it('refuses a sub-key revoked on one instance, and a suspended agent, on the other as soon as the database tells it (principal cache on)', async () => {
  const adminKey = `key_admin_${'C'.repeat(40)}`;
  const provider = await registerAgent(a);
  const consumer = await registerAgent(a);
  const service = await api(a)('POST', '/services/register', {
    key: provider.key,
    body: {
      name: 'Cluster service',
      endpoint: 'https://provider.example.com/run',
      capabilities: ['summarize'],
      description: 'A service on two instances',
      pricing_model: 'free',
    },
  });
  const made = await api(a)('POST', `/keys/provision/${service.body.service_key}`, { key: consumer.key, body: {} });
  expect((await api(b)('POST', '/keys/verify', { body: { key: made.body.sub_key } })).status).toBe(200);
  const revoked = await api(a)('DELETE', `/keys/${made.body.sub_key_id}`, { key: consumer.key });
  expect(revoked.status).toBe(200);
  const started = Date.now();
  expect((await api(b)('POST', '/keys/verify', { body: { key: made.body.sub_key } })).status).toBe(401);
  expect(Date.now() - started).toBeLessThan(1000);

  // The admin key is configured per instance; instance A gets one for this test through the database.
  await a.app.services.db.credential.create({ data: { kind: 'admin', hash: sha256Hex(adminKey), hint: secretHint(adminKey) } });
  expect((await api(b)('GET', '/agents/me', { key: consumer.key })).status).toBe(200);
  // B knows the caller from memory (its principal cache). A change made on A reaches B by the database's
  // change notification: B's next request after it arrives sees the change, and it arrives well within a
  // second even with the other suites on the machine's two cores.
  const seenOnB = (expected: (res: { status: number; body: any }) => boolean) =>
    within(1_000, async () => expected(await api(b)('GET', '/agents/me', { key: consumer.key })));
  expect((await api(a)('PATCH', `/admin/agents/${consumer.agentId}/status`, { key: adminKey, body: { status: 'SUSPENDED' } })).status).toBe(200);
  await seenOnB((res) => res.status === 403);
  // A refused caller is never kept, so lifting the suspension needs no notification: B's very next request.
  expect((await api(a)('PATCH', `/admin/agents/${consumer.agentId}/status`, { key: adminKey, body: { status: 'ACTIVE' } })).status).toBe(200);
  expect((await api(b)('GET', '/agents/me', { key: consumer.key })).status).toBe(200);
  expect((await api(a)('PATCH', '/agents/me', { key: consumer.key, body: { description: 'Changed on A' } })).status).toBe(200);
  await seenOnB((res) => res.body.description === 'Changed on A');
  expect((await api(a)('PATCH', `/admin/agents/${consumer.agentId}/status`, { key: adminKey, body: { status: 'BANNED' } })).status).toBe(200);
  await seenOnB((res) => res.status === 403);
});

it("refuses a sub-agent known to the other instance's principal cache when its ancestor is suspended on one, and serves it once lifted", async () => {
  const adminKey = `key_admin_${'S'.repeat(40)}`;
  await a.app.services.db.credential.create({ data: { kind: 'admin', hash: sha256Hex(adminKey), hint: secretHint(adminKey) } });
  const root = await registerAgent(a);
  const child = await api(a)('POST', `/agents/${root.agentId}/sub-agents`, {
    key: root.key,
    body: { name: `cluster-sub-${Date.now().toString(36)}`, description: 'A sub-agent on two instances', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
  });
  expect(child.status).toBe(201);
  const childKey = child.body.master_key as string;
  expect((await api(b)('GET', '/agents/me', { key: childKey })).status).toBe(200);
  expect((await api(b)('GET', '/agents/me', { key: childKey })).status).toBe(200);
  expect((await api(a)('PATCH', `/admin/agents/${root.agentId}/status`, { key: adminKey, body: { status: 'SUSPENDED' } })).status).toBe(200);
  await within(1_000, async () => (await api(b)('GET', '/agents/me', { key: childKey })).status === 403);
  expect((await api(a)('PATCH', `/admin/agents/${root.agentId}/status`, { key: adminKey, body: { status: 'ACTIVE' } })).status).toBe(200);
  expect((await api(b)('GET', '/agents/me', { key: childKey })).status).toBe(200);
});

it("empties the other instance's execute cache when a caller is suspended on one", async () => {
  const p = await startProvider();
  try {
    const owner = await registerAgent(a);
    const capability = `hot-${Date.now().toString(36)}`;
    const registered = await api(a)('POST', '/services/register', {
      key: owner.key,
      body: { name: 'Cluster provider', endpoint: p.url, capabilities: [capability], description: 'A provider under test', pricing_model: 'free' },
    });
    expect(registered.status).toBe(201);
    const consumer = await registerAgent(a);
    const adminKey = `key_admin_${'H'.repeat(40)}`;
    await a.app.services.db.credential.create({ data: { kind: 'admin', hash: sha256Hex(adminKey), hint: secretHint(adminKey) } });
    const run = () => api(b)('POST', '/execute', { key: consumer.key, body: { capability, input: {} } });
    expect((await run()).status).toBe(200);
    expect((await run()).status).toBe(200);
    expect((await api(a)('PATCH', `/admin/agents/${consumer.agentId}/status`, { key: adminKey, body: { status: 'SUSPENDED' } })).status).toBe(200);
    await within(2_000, async () => (await run()).status === 403, { what: 'instance B still served the suspended caller' });
    expect(p.calls.length).toBeLessThanOrEqual(3);
  } finally {
    await p.close();
  }
});

/** Subscriptions the cluster runs at once, each ticking every two seconds. */
const SUBSCRIPTIONS = 40;

it('runs 40 subscriptions × 10 ticks across both instances with no duplicate and no miss', async () => {
  const provider = await startProvider();
  try {
    const owner = await registerAgent(a);
    const capability = `cluster-tick-${Date.now().toString(36)}`;
    const service = await api(a)('POST', '/services/register', {
      key: owner.key,
      body: { name: 'Tick provider', endpoint: provider.url, capabilities: [capability], description: 'Answers every tick', pricing_model: 'free' },
    });
    expect(service.status).toBe(201);
    // Two subscribers: one credential may create 60 a minute.
    const subscribers = [await registerAgent(b), await registerAgent(a)];
    const ids: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const res = await api(i % 2 ? a : b)('POST', '/subscriptions', {
        key: subscribers[i % 2].key,
        body: { capabilityId: capability, inputPayload: { n: i }, schedule: '*/2 * * * * *', deliveryMethod: 'sse' },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const db = a.app.services.db;
    const finished = () =>
      db.subscriptionRun.groupBy({ by: ['subscriptionId'], where: { subscriptionId: { in: ids }, status: { not: 'pending' } }, _count: true });
    // A tick every two seconds: twenty runs a second between the two instances, which share this process
    // (and two cores) with the provider, the test and another test file. A hundred every second, then every
    // two seconds, made a slow machine fall behind by more than the grace (CI read a 34 s gap). Ten ticks
    // take 20 s; the count is read every 250 ms, a statement on the database both instances work on.
    await eventually(finished, (counts) => counts.length === SUBSCRIPTIONS && counts.every((c) => c._count >= 10), 100_000, { everyMs: 250 });
    // Cancelled in the database at once (the cancel route's own limit is 60 a minute per credential).
    await db.capabilitySubscription.updateMany({ where: { id: { in: ids } }, data: { status: 'cancelled', nextRunAt: null } });
    await Promise.all([a.app.services.subscriptionScheduler!.settled(), b.app.services.subscriptionScheduler!.settled()]);

    const runs = await db.subscriptionRun.findMany({ where: { subscriptionId: { in: ids } }, orderBy: [{ subscriptionId: 'asc' }, { seq: 'asc' }] });
    const bySub = new Map<string, typeof runs>();
    for (const r of runs) bySub.set(r.subscriptionId, [...(bySub.get(r.subscriptionId) ?? []), r]);
    expect(bySub.size).toBe(SUBSCRIPTIONS);
    for (const [, list] of bySub) {
      expect(list.length).toBeGreaterThanOrEqual(10);
      // No miss: consecutive runs are consecutive seconds; no duplicate: every tick once.
      for (let i = 1; i < list.length; i++) {
        expect(list[i].seq).toBe(list[i - 1].seq + 1);
        expect(list[i].scheduledFor.getTime() - list[i - 1].scheduledFor.getTime()).toBe(2000);
      }
      expect(list.every((r) => r.status === 'success')).toBe(true);
    }
    // Each run executed the capability exactly once: one provider call per run, per subscription.
    const calls = new Map<number, number>();
    for (const c of provider.calls) calls.set(c.json.input.n, (calls.get(c.json.input.n) ?? 0) + 1);
    ids.forEach((id, n) => expect(calls.get(n)).toBe(bySub.get(id)!.length));
    // Both instances took part, and every run was recorded as an execution.
    expect(a.app.services.subscriptionScheduler!.performed).toBeGreaterThan(0);
    expect(b.app.services.subscriptionScheduler!.performed).toBeGreaterThan(0);
    const executions = await db.execution.findMany({ where: { id: { in: runs.map((r) => r.executionId!).filter(Boolean) } }, select: { id: true } });
    expect(executions).toHaveLength(runs.length);
  } finally {
    await provider.close();
  }
}, 180_000);

it('brings a push on one instance to SSE readers on the other, in order, resuming without a gap', async () => {
  const me = await registerAgent(a);
  const session = await api(a)('POST', '/streaming/sessions', { key: me.key, body: { capabilityId: 'summarize' } });
  expect(session.status).toBe(201);
  const url = `${b.url}/api/v1/streaming/sessions/${session.body.id}/events`;
  const reader = await openSse(url, { authorization: `Bearer ${me.key}` });
  expect(reader.status).toBe(200);
  for (let i = 1; i <= 5; i++)
    expect((await api(a)('POST', `/streaming/sessions/${session.body.id}/push`, { key: me.key, body: { data: i } })).status).toBe(200);
  await reader.waitFor(5);
  reader.close();
  for (let i = 6; i <= 8; i++) await api(i % 2 ? a : b)('POST', `/streaming/sessions/${session.body.id}/push`, { key: me.key, body: { data: i } });
  const resumed = await openSse(url.replace(b.url, a.url), { authorization: `Bearer ${me.key}`, 'last-event-id': '5' });
  await api(b)('POST', `/streaming/sessions/${session.body.id}/end`, { key: me.key });
  await resumed.ended;
  expect(reader.events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5]);
  expect(resumed.events.map((e) => e.id ?? e.event)).toEqual(['6', '7', '8', 'end']);
});

it('runs swarms on both instances, every step exactly once', async () => {
  const provider = await startProvider('cluster-swarm');
  provider.setDefault({ delayMs: 100 });
  try {
    const owner = await registerAgent(a);
    const capability = `cluster-swarm-${Date.now().toString(36)}`;
    const service = await api(a)('POST', '/services/register', {
      key: owner.key,
      body: { name: 'Swarm provider', endpoint: provider.url, capabilities: [capability], description: 'Answers swarm steps', pricing_model: 'free' },
    });
    expect(service.status).toBe(201);
    const creators = [await registerAgent(a), await registerAgent(b)];
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await api(i % 2 ? a : b)('POST', '/swarm/sessions', {
        key: creators[i % 2].key,
        body: {
          goal: `swarm ${i}`,
          strategy: i % 3 ? 'parallel' : 'sequential',
          steps: Array.from({ length: 6 }, (_, n) => ({ capability, input: { swarm: i, step: n + 1 } })),
        },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.session_id);
    }
    const db = a.app.services.db;
    await eventually(
      () => db.swarmSession.count({ where: { id: { in: ids }, status: 'running' } }),
      (running) => running === 0,
      50_000,
      { everyMs: 100 },
    );
    const sessions = await db.swarmSession.findMany({ where: { id: { in: ids } } });
    expect(sessions.map((s) => s.status)).toEqual(Array(10).fill('completed'));
    const steps = await db.swarmStep.findMany({ where: { sessionId: { in: ids } } });
    expect(steps).toHaveLength(60);
    const retried = steps.filter((s) => s.status !== 'succeeded' || s.attempt !== 1).map((s) => [s.status, s.attempt, s.error]);
    // A step claimed twice (the claim race the next test pins) shows here as attempt 2: say what the instances logged.
    if (retried.length)
      throw new Error(
        `steps not done once: ${JSON.stringify(retried)}\n${[...a.logs, ...b.logs]
          .filter((l) => /"level":(40|50)/.test(l))
          .slice(0, 20)
          .join('\n')}`,
      );
    // One call and one execution per step, and both instances took part.
    const calls = provider.calls.map((c) => `${c.json.input.swarm}/${c.json.input.step}`);
    expect(new Set(calls).size).toBe(60);
    expect(calls).toHaveLength(60);
    expect(await db.execution.count({ where: { id: { in: steps.map((s) => s.executionId) } } })).toBe(60);
    expect(a.app.services.swarmRunner!.performed).toBeGreaterThan(0);
    expect(b.app.services.swarmRunner!.performed).toBeGreaterThan(0);
  } finally {
    await provider.close();
  }
}, 60_000);

it('claims each swarm step once when both instances claim at the same moment', async () => {
  // The runners are stopped: only the claims below take steps, four at a time, two on each instance's pool.
  await Promise.all([a.app.services.swarmRunner!.stop(), b.app.services.swarmRunner!.stop()]);
  const ids: string[] = [];
  try {
    const owner = await registerAgent(a);
    const capability = `cluster-claim-${Date.now().toString(36)}`;
    expect(
      (
        await api(a)('POST', '/services/register', {
          key: owner.key,
          body: { name: 'Never called', endpoint: 'https://127.0.0.1:9/', capabilities: [capability], description: 'claims only', pricing_model: 'free' },
        })
      ).status,
    ).toBe(201);
    const creators = [await registerAgent(a), await registerAgent(b)];
    for (let i = 0; i < 16; i++) {
      const res = await api(i % 2 ? a : b)('POST', '/swarm/sessions', {
        key: creators[i % 2].key,
        body: { goal: `claims ${i}`, strategy: 'parallel', steps: Array.from({ length: 6 }, (_, n) => ({ capability, input: { n } })) },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.session_id);
    }
    const claimed: { id: string; attempt: number }[] = [];
    const claimer = (app: typeof a) => async () => {
      for (;;) {
        const steps = await claimSteps(app.app.services.db, new Date(), 60_000, 3);
        if (!steps.length) return;
        claimed.push(...steps.filter((s) => ids.includes(s.sessionId)).map((s) => ({ id: s.id, attempt: s.attempt })));
      }
    };
    await Promise.all([claimer(a)(), claimer(b)(), claimer(a)(), claimer(b)()]);
    // Every step taken by exactly one claim, under its first attempt.
    expect(claimed.filter((s) => s.attempt !== 1)).toEqual([]);
    expect(claimed).toHaveLength(96);
    expect(new Set(claimed.map((s) => s.id)).size).toBe(96);
  } finally {
    await a.app.services.db.swarmSession.updateMany({ where: { id: { in: ids } }, data: { status: 'cancelled' } });
    a.app.services.swarmRunner!.start();
    b.app.services.swarmRunner!.start();
  }
});

it('finishes on the other instance a swarm whose instance was killed mid-step', async () => {
  const provider = await startProvider('cluster-crash');
  provider.setDefault({ delayMs: 600 });
  // A third instance, in a process of its own, on the same database; its claims last 11 s (3 × the provider
  // timeout + 5 s). The timeout leaves the provider's 0.6 s more than a second to spare on a busy machine.
  const dbUrl = a.config.databaseUrl!;
  const c = await launchServer('/nonexistent-cluster-data-dir', {
    DATABASE_URL: dbUrl,
    REDIS_URL: process.env.REDIS_URL!,
    OUTBOUND_ALLOW_PRIVATE: '1',
    PROVIDER_TIMEOUT_MS: '2000',
    SCHEDULER_POLL_MS: '50',
  });
  try {
    // Only the third instance may claim at first: the in-process ones are stopped until it is killed.
    await Promise.all([a.app.services.swarmRunner!.stop(), b.app.services.swarmRunner!.stop()]);
    const cPost = (route: string, key: string, body: unknown) =>
      fetch(`http://127.0.0.1:${c.port}/api/v1${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    const me = await registerAgent(a);
    const capability = `cluster-crash-${Date.now().toString(36)}`;
    await api(a)('POST', '/services/register', {
      key: me.key,
      body: { name: 'Slow', endpoint: provider.url, capabilities: [capability], description: 'answers in 0.6 s', pricing_model: 'free' },
    });
    const created = await cPost('/swarm/sessions', me.key, {
      goal: 'Survive',
      strategy: 'sequential',
      steps: [1, 2, 3].map((n) => ({ capability, input: { n } })),
    });
    const id = created.session_id;
    expect(id).toEqual(expect.any(String));
    // Killed while the second step's call is in flight: once the provider holds it (it answers 0.6 s later).
    await provider.waitFor(2, 30_000).finally(() => c.child.kill('SIGKILL'));
    await c.exited;
    expect(provider.calls.map((x) => x.json.input.n)).toEqual([1, 2]);
    a.app.services.swarmRunner!.start();
    b.app.services.swarmRunner!.start();
    const db = a.app.services.db;
    await eventually(
      async () => (await db.swarmSession.findUnique({ where: { id } }))!.status,
      (status) => status !== 'running',
      50_000,
      { everyMs: 100 },
    );
    const steps = await db.swarmStep.findMany({ where: { sessionId: id }, orderBy: { ordinal: 'asc' } });
    expect((await db.swarmSession.findUnique({ where: { id } }))!.status).toBe('completed');
    expect(steps.map((s) => [s.status, s.attempt])).toEqual([
      ['succeeded', 1],
      ['succeeded', 2],
      ['succeeded', 1],
    ]);
    expect(provider.calls.map((x) => x.json.input.n)).toEqual([1, 2, 2, 3]);
    expect(await db.execution.count({ where: { agentId: me.agentId } })).toBe(3);
  } finally {
    c.child.kill('SIGKILL');
    a.app.services.swarmRunner!.start();
    b.app.services.swarmRunner!.start();
    await provider.close();
  }
}, 120_000);

it('gives a polling subscriber and an SSE reader that reconnects every UTO event once, in order, across instances', async () => {
  const me = await registerAgent(a);
  const auth = { authorization: `Bearer ${me.key}` };
  const sub = await api(a)('POST', '/uto/notifications/subscribe', { key: me.key, body: { eventTypes: ['*'], deliveryType: 'polling' } });
  expect(sub.status).toBe(201);
  const readersBefore = b.app.services.utoStreams.readerCount;
  const first = await openSse(`${b.url}/api/v1/uto/events`, auth);
  // Reading (instance B counts the reader) before the first ticket moves.
  await within(5_000, async () => b.app.services.utoStreams.readerCount > readersBefore);
  // Ten tickets moved concurrently, each move on either instance: 30 events.
  const flows = Array.from({ length: 10 }, async (_, i) => {
    const [x, y] = i % 2 ? [a, b] : [b, a];
    const t = await api(x)('POST', '/uto/tickets', { key: me.key, body: { intent: `Ticket ${i}`, domain: `cluster-${i % 3}`, context: { i } } });
    expect(t.status).toBe(201);
    expect(
      (await api(y)('POST', `/uto/tickets/${t.body.id}/advance`, { key: me.key, body: { target_state: 'validated', triggered_by: 'external' } })).status,
    ).toBe(200);
    expect(
      (await api(x)('POST', `/uto/tickets/${t.body.id}/advance`, { key: me.key, body: { target_state: 'cancelled', triggered_by: 'external' } })).status,
    ).toBe(200);
  });
  // The reader leaves part-way and comes back on the other instance with the last id it saw.
  const seen = (await first.waitFor(12, 20_000)).slice(0, 12);
  first.close();
  await Promise.all(flows);
  const second = await openSse(`${a.url}/api/v1/uto/events`, { ...auth, 'last-event-id': seen[seen.length - 1].id! });
  const rest = await second.waitFor(18, 20_000);
  // Every event was committed before this reader came: what more could come is a duplicate, which no event
  // announces. A moment for it to show.
  await quiet();
  second.close();
  const streamed = [...seen, ...second.events].map((e) => ({ seq: Number(e.id), ...JSON.parse(e.data) }));
  expect(rest.length).toBe(18);
  expect(streamed.map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));

  // The poller reads from either instance, passing back each cursor, until nothing is left.
  const polled: any[] = [];
  let cursor: number | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await api(i % 2 ? a : b)(
      'GET',
      `/uto/notifications/${sub.body.subscriptionId}/events?limit=7${cursor === undefined ? '' : `&after=${cursor}`}`,
      { key: me.key },
    );
    expect(page.status).toBe(200);
    polled.push(...page.body.events);
    cursor = page.body.cursor;
    if (!page.body.has_more) break;
  }
  expect(polled.map((e) => e.sequence)).toEqual(streamed.map((e) => e.seq));
  expect(polled.map((e) => e.event_id)).toEqual(streamed.map((e) => e.event_id));
  expect(new Set(polled.map((e) => e.event_id)).size).toBe(30);
  // Each ticket's events in the order they happened.
  const byTicket = new Map<string, string[]>();
  for (const e of polled) byTicket.set(e.ticket_id, [...(byTicket.get(e.ticket_id) ?? []), e.type === 'uto.ticket.created' ? 'created' : e.data.to]);
  expect([...byTicket.values()]).toEqual(Array(10).fill(['created', 'validated', 'cancelled']));
});

it('answers an A2A task on either instance, and one WebMCP submission is indexed once whichever instance claims it', async () => {
  const provider = await startProvider('cluster-a2a');
  try {
    const owner = await registerAgent(a);
    const capability = `cluster-a2a-${Date.now()}`;
    await api(a)('POST', '/services/register', {
      key: owner.key,
      body: { name: 'A2A provider', endpoint: provider.url, capabilities: [capability], description: 'Answers A2A calls', pricing_model: 'free' },
    });
    const me = await registerAgent(b);
    const send = await fetch(`${a.url}/api/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'data', data: { capability, input: { n: 1 } } }] } },
      }),
    });
    const task = (await send.json()).result;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const read = await fetch(`${b.url}/api/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: task.id } }),
    });
    expect((await read.json()).result).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });

    // A manifest served by the provider's server: both instances' indexers poll; it is fetched once.
    const before = provider.calls.length;
    const submitted = await api(b)('POST', '/webmcp/submit', { body: { url: `${provider.url.replace(/\/run$/, '')}/manifest.json` } });
    expect(submitted.status).toBe(202);
    let reads = 0;
    const readState = async () => (await api(reads++ % 2 ? a : b)('GET', `/webmcp/submissions/${submitted.body.submission_id}`)).body.state as string;
    // Read every 100 ms: an anonymous read, under the address's rate limit.
    const state = await eventually(readState, (s) => s !== 'queued', 10_000, { everyMs: 100 });
    // The provider answers every request with an echo, which is not a manifest: failed, after one fetch.
    expect(state).toBe('failed');
    // Every round under way on either instance's indexer has ended: a second fetch, were there one, has come.
    await Promise.all([a.app.services.webmcpIndexer!.settled(), b.app.services.webmcpIndexer!.settled()]);
    expect(provider.calls.length - before).toBe(1);
  } finally {
    await provider.close();
  }
});

it('settles one payment once when its copies reach both instances at once, and both answer the first answer', async () => {
  const provider = await startProvider('cluster-paid');
  try {
    provider.setDefault({ delayMs: 50 });
    const seller = await registerAgent(a);
    const cap = `cluster-paid-${Date.now().toString(36)}`;
    const service = await api(a)('POST', '/services/register', {
      key: seller.key,
      body: {
        name: 'Cluster paid',
        endpoint: provider.url,
        capabilities: [cap],
        description: 'Paid on either instance',
        pricing_model: 'per_call',
        cost_per_call: 7,
      },
    });
    expect(service.status).toBe(201);
    // The payer's key belongs to a sponsor's wallet, funded from the faucet; the caller has nothing.
    const account = await throwAwayAccount();
    const sponsor = await registerAgent(a);
    await api(a)('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: account.address } });
    await fund(a, sponsor.key, '1');
    const me = await registerAgent(b);
    const body = { capability: cap, input: { once: true } };
    const headers = await payFor(await api(a)('POST', '/execute', { key: me.key, body }), account);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => api(i % 2 ? a : b)('POST', '/execute', { key: me.key, body, headers })));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((r) => r.body.execution_id)).size).toBe(1);
    expect(provider.calls).toHaveLength(1);
    const sponsorWallet = await api(b)('GET', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key });
    expect(sponsorWallet.body.balance).toBe('0.930000');
    // Prepaid calls on both instances: each keeps its own lease, and together they never spend more than there is.
    const buyer = await registerPayingAgent(a, '0.35');
    const paid = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api(i % 2 ? a : b)('POST', '/execute', { key: buyer.key, body: { capability: cap, input: { i } } })),
    );
    expect(paid.filter((r) => r.status === 200)).toHaveLength(5);
    expect(paid.filter((r) => r.status === 402)).toHaveLength(7);
    expect((await api(b)('GET', `/agents/${buyer.agentId}/wallet`, { key: buyer.key })).body.balance).toBe('0.000000');
  } finally {
    await provider.close();
  }
});

it('reads each gateway event once, in order, polling after the cursor on either instance', async () => {
  const owner = await registerAgent(a);
  const ext = await api(a)('POST', '/ext/agents/register', {
    key: owner.key,
    body: { instance_url: 'https://gateway.invalid/inbox', capabilities: ['summarize'] },
  });
  expect(ext.status).toBe(201);
  const events = 30;
  for (let i = 0; i < events; i++) {
    const res = await api(i % 2 ? a : b)('POST', '/ext/swarm/delegate', {
      key: owner.key,
      body: { external_agent_id: ext.body.external_agent.external_agent_id, capability: 'summarize', input: { i } },
    });
    expect(res.status).toBe(200);
  }
  // One poller, each poll on the other instance, passing back the cursor of the last answer.
  const seen: number[] = [];
  let cursor = 0;
  for (let p = 0; ; p++) {
    const res = await api(p % 2 ? a : b)('GET', `/ext/gateway/events?after=${cursor}&limit=2`, { key: owner.key });
    expect(res.status).toBe(200);
    if (!res.body.events.length) break;
    seen.push(...res.body.events.map((e: any) => e.seq));
    cursor = res.body.cursor;
  }
  expect(seen).toEqual(Array.from({ length: events }, (_, i) => i + 1));
  // What was acknowledged is the same on both instances: a poll without a cursor starts after it.
  for (const on of [a, b])
    expect((await api(on)('GET', '/ext/gateway/events', { key: owner.key })).body).toMatchObject({ events: [], cursor: events, has_more: false });
});

it('pays a checkout once when the same payment reaches both instances, and carries the radio to readers on either', async () => {
  const seller = await registerAgent(a);
  const offer = await api(a)('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'Across two instances', price_cents: 9 } });
  const buyer = await registerAgent(b);
  const checkout = await api(b)('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: offer.body.offer_id } });
  const path = `/ext/payments/checkout/${checkout.body.checkout_id}`;
  const account = await throwAwayAccount();
  const sponsor = await registerAgent(a);
  await api(a)('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: account.address } });
  await fund(a, sponsor.key, '1');
  const headers = await payFor(await api(a)('GET', path), account);
  const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => api(i % 2 ? a : b)('POST', path, { headers })));
  expect(answers.map((r) => r.status)).toEqual(Array(16).fill(200));
  expect(new Set(answers.map((r) => r.body.checkout.payment_id)).size).toBe(1);
  expect((await api(b)('GET', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key })).body.balance).toBe('0.910000');
  expect((await api(a)('GET', `/agents/${seller.agentId}/wallet`, { key: seller.key })).body.balance).toBe('0.081000');

  // An announcement made on one instance reaches radio listeners on both at once (the database tells each).
  const listener = await registerAgent(a);
  const onA = await openSse(`${a.url}/api/v1/ext/radio/stream`, { authorization: `Bearer ${listener.key}` });
  const onB = await openSse(`${b.url}/api/v1/ext/radio/stream`, { authorization: `Bearer ${listener.key}` });
  try {
    const started = Date.now();
    const made = await api(b)('POST', '/admin/radio/announcements', { key: ADMIN_KEY, body: { message: 'Both instances hear this' } });
    expect(made.status).toBe(201);
    const [ea, eb] = await Promise.all([onA.waitFor(1, 5000), onB.waitFor(1, 5000)]);
    // Well within the sweep's two seconds: it came by notification.
    expect(Date.now() - started).toBeLessThan(1500);
    expect(JSON.parse(ea[0].data)).toMatchObject({ type: 'announcement', data: { message: 'Both instances hear this' } });
    expect(eb[0].id).toBe(ea[0].id);
  } finally {
    onA.close();
    onB.close();
  }
});
