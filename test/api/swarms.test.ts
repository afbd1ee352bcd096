// Swarm sessions (spec §4.10): steps executed by the marketplace for their creator, in order (with earlier
// results) or at once; progress as a numbered stream; cancelled along a move table; a step whose call was
// recorded is never called again.
import { assertTestCaTrusted } from '../support/https';
import { errorPaths, eventually, expectProblem } from '../support/expect';
import { startProvider, type Provider } from '../support/provider';
import { openSse } from '../support/sse';
import { api, gql, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { registerPayingAgent } from '../support/payments';

let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  // Long enough that a provider that never answers keeps its swarm running while a busy machine makes ten more.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '30000', STREAMS_PER_AGENT: '50' } });
  call = api(server);
});
afterAll(async () => {
  // The providers first: a call still waiting on one that never answers ends at once, and the server's close with it.
  await Promise.all(providers.map((p) => p.close()));
  await server.close();
});

/** A capability answered by a provider of its own (an echo unless told otherwise). */
async function capabilityWith(behave: Parameters<Provider['setDefault']>[0] = {}) {
  const p = await startProvider('swarm-provider');
  providers.push(p);
  p.setDefault(behave);
  const capability = uniqueSlug('swarm-cap');
  const owner = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: owner.key,
    body: {
      name: 'Swarm provider',
      endpoint: p.url,
      capabilities: [capability],
      description: 'Answers swarm steps',
      pricing_model: 'per_call',
      cost_per_call: 1,
    },
  });
  if (res.status !== 201) throw new Error(res.text);
  return { capability, provider: p };
}

/** Waits until the swarm is no longer running; answers it. */
async function finished(key: string, id: string, timeoutMs = 15_000) {
  return (
    await eventually(
      () => call('GET', `/swarm/sessions/${id}`, { key }),
      (res) => res.body.status !== 'running',
      timeoutMs,
    )
  ).body;
}

describe('POST /swarm/sessions', () => {
  it('runs sequential steps in order, each able to use the results before it', async () => {
    const { capability, provider } = await capabilityWith();
    const me = await registerPayingAgent(server);
    const res = await call('POST', '/swarm/sessions', {
      key: me.key,
      body: {
        goal: 'Research, then summarise',
        strategy: 'sequential',
        steps: [
          { capability, input: { topic: 'tides' } },
          { capability, input: { from: '$previous.echo.topic', all: '$previous' } },
          { capability, input: { first: '$steps.1.served_by' } },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ session_id: expect.stringMatching(/^swarm_[0-9A-Za-z]{24}$/), status: 'running', strategy: 'sequential', step_count: 3 });
    expect(res.body.steps.map((s: any) => [s.ordinal, s.status])).toEqual([
      [1, expect.stringMatching(/pending|running/)],
      [2, 'pending'],
      [3, 'pending'],
    ]);
    const done = await finished(me.key, res.body.session_id);
    expect(done).toMatchObject({ status: 'completed', completed_steps: 3, failed_steps: 0, finished_at: expect.any(String) });
    expect(done.steps.map((s: any) => s.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    // The provider saw each step's input with the earlier results filled in.
    const inputs = provider.calls.map((c) => c.json.input);
    expect(inputs).toEqual([
      { topic: 'tides' },
      { from: 'tides', all: { served_by: 'swarm-provider', echo: { topic: 'tides' } } },
      { first: 'swarm-provider' },
    ]);
    // Every step is the caller's own recorded, billed execution.
    const executions = (await call('GET', '/my/executions', { key: me.key })).body.executions;
    expect(executions.map((e: any) => e.execution_id).sort()).toEqual(done.steps.map((s: any) => s.execution_id).sort());
    expect(done.steps.every((s: any) => s.cost_cents === 1 && s.attempts === 1)).toBe(true);
  });

  it('skips the rest of a sequential swarm once a step fails, and ends it failed', async () => {
    const good = await capabilityWith();
    const bad = await capabilityWith({ status: 500 });
    const me = await registerPayingAgent(server);
    const res = await call('POST', '/swarm/sessions', {
      key: me.key,
      body: {
        goal: 'Fails midway',
        strategy: 'sequential',
        steps: [{ capability: good.capability }, { capability: bad.capability }, { capability: good.capability }],
      },
    });
    const done = await finished(me.key, res.body.session_id);
    expect(done).toMatchObject({ status: 'failed', completed_steps: 1, failed_steps: 1 });
    expect(done.steps.map((s: any) => s.status)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(done.steps[1].error).toMatch(/http_500/);
    expect(good.provider.calls).toHaveLength(1);
  });

  it('runs parallel steps at once: all five calls reach the provider before the first answers', async () => {
    // Every call is held until all five have arrived. Run one after another, the first would wait for calls
    // that never come and the swarm would not finish in time; run at once, all five arrive and are answered
    // together. Arrivals, not durations, so a loaded machine cannot make it pass or fail by chance.
    const { capability, provider } = await capabilityWith();
    provider.setDefault({ until: provider.waitFor(5, 25_000).catch(() => undefined) });
    const me = await registerPayingAgent(server);
    const res = await call('POST', '/swarm/sessions', {
      key: me.key,
      body: { goal: 'Fan out', strategy: 'parallel', steps: Array.from({ length: 5 }, (_, i) => ({ capability, input: { i } })) },
    });
    expect(res.status).toBe(201);
    const done = await finished(me.key, res.body.session_id);
    expect(done.status).toBe('completed');
    expect(provider.calls).toHaveLength(5);
    expect(provider.calls.map((c) => c.json.input.i).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('names each bad field, refuses references a step may not make, and caps running swarms per agent', async () => {
    const me = await registerPayingAgent(server);
    const bad = await call('POST', '/swarm/sessions', { key: me.key, body: { goal: ' ', strategy: 'random', steps: [] } });
    expect(errorPaths(bad)).toEqual(['goal', 'steps', 'strategy']);
    const refs = await call('POST', '/swarm/sessions', {
      key: me.key,
      body: {
        goal: 'g',
        strategy: 'sequential',
        steps: [
          { capability: 'summarize', input: { x: '$previous' } },
          { capability: 'BAD CAP', input: { y: '$steps.3.z' } },
        ],
      },
    });
    expect(errorPaths(refs)).toEqual(['steps.0.input', 'steps.1.capability', 'steps.1.input']);
    const parallel = await call('POST', '/swarm/sessions', {
      key: me.key,
      body: { goal: 'g', strategy: 'parallel', steps: [{ capability: 'summarize' }, { capability: 'summarize', input: { a: '$steps.1' } }] },
    });
    expect(errorPaths(parallel)).toEqual(['steps.1.input']);
    expect(
      errorPaths(
        await call('POST', '/swarm/sessions', {
          key: me.key,
          body: { goal: 'g', strategy: 'parallel', steps: Array.from({ length: 21 }, () => ({ capability: 'summarize' })) },
        }),
      ),
    ).toEqual(['steps']);

    const { capability, provider } = await capabilityWith({ hang: true });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++)
      ids.push(
        (await call('POST', '/swarm/sessions', { key: me.key, body: { goal: `slow ${i}`, strategy: 'parallel', steps: [{ capability }] } })).body.session_id,
      );
    expectProblem(
      await call('POST', '/swarm/sessions', { key: me.key, body: { goal: 'one too many', strategy: 'parallel', steps: [{ capability }] } }),
      409,
      'conflict',
    );
    // Each swarm's one step waits on a provider that never answers, until its timeout fails the swarm: should
    // some of the ten end that way before their cancel comes, they answer 409. The others are cancelled.
    const cancelled: string[] = [];
    for (const id of ids) {
      const res = await call('POST', `/swarm/sessions/${id}/cancel`, { key: me.key });
      if (res.status === 200) cancelled.push(id);
      else expect([res.status, (await call('GET', `/swarm/sessions/${id}`, { key: me.key })).body.status]).toEqual([409, 'failed']);
    }
    expect(cancelled.length).toBeGreaterThan(0);
    expect((await call('GET', '/swarm/sessions?status=cancelled', { key: me.key })).body.total).toBe(cancelled.length);
    // Their calls end now, not at the timeout: the next tests wait for the runner to settle.
    await provider.close();
  });
});

describe('cancelling', () => {
  it('cancels a running swarm and its unfinished steps, once', async () => {
    const { capability } = await capabilityWith({ delayMs: 1500 });
    const me = await registerPayingAgent(server);
    const res = await call('POST', '/swarm/sessions', { key: me.key, body: { goal: 'Slow', strategy: 'sequential', steps: [{ capability }, { capability }] } });
    const id = res.body.session_id;
    expectProblem(await call('POST', `/swarm/sessions/${id}/cancel`, { key: (await registerAgent(server)).key }), 404, 'not_found');
    const cancelled = await call('POST', `/swarm/sessions/${id}/cancel`, { key: me.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', finished_at: expect.any(String) });
    expect(cancelled.body.steps.map((s: any) => s.status)).toEqual(['cancelled', 'cancelled']);
    expectProblem(await call('POST', `/swarm/sessions/${id}/cancel`, { key: me.key }), 409, 'conflict');
    await server.app.services.swarmRunner!.settled();
    expect((await call('GET', `/swarm/sessions/${id}`, { key: me.key })).body.steps.map((s: any) => s.status)).toEqual(['cancelled', 'cancelled']);
  });
});

describe('progress', () => {
  it('streams each finished step and the end over SSE, resumable with Last-Event-ID', async () => {
    const { capability } = await capabilityWith({ delayMs: 50 });
    const me = await registerPayingAgent(server);
    const res = await call('POST', '/swarm/sessions', {
      key: me.key,
      body: { goal: 'Watched', strategy: 'sequential', steps: [{ capability }, { capability }] },
    });
    const id = res.body.session_id;
    const reader = await openSse(`${server.url}/api/v1/swarm/sessions/${id}/events`, { authorization: `Bearer ${me.key}` });
    expect(reader.status).toBe(200);
    await reader.ended;
    const events = reader.events.filter((e) => e.event !== 'end');
    expect(events.map((e) => [e.id, e.event])).toEqual([
      ['1', 'step'],
      ['2', 'step'],
      ['3', 'completed'],
    ]);
    expect(JSON.parse(events[0].data)).toMatchObject({ session_id: id, status: 'running', step: { ordinal: 1, status: 'succeeded' } });
    expect(JSON.parse(events[2].data)).toMatchObject({ status: 'completed', completed_steps: 2, step: null });
    const resumed = await openSse(`${server.url}/api/v1/swarm/sessions/${id}/events`, { authorization: `Bearer ${me.key}`, 'last-event-id': '2' });
    await resumed.ended;
    expect(resumed.events.filter((e) => e.event !== 'end').map((e) => e.id)).toEqual(['3']);
    // And over GraphQL, with node(id:).
    const node = await gql(server, 'query($id: String!) { swarmSession(id: $id) { id completedSteps steps { status } } }', { id }, me.key);
    expect(node.body.data.swarmSession).toMatchObject({ completedSteps: 2, steps: [{ status: 'succeeded' }, { status: 'succeeded' }] });
  });
});

describe('exactly once', () => {
  it('finishes a step whose call was recorded from that record, without calling its provider again', async () => {
    const { capability, provider } = await capabilityWith();
    const me = await registerPayingAgent(server);
    const res = await call('POST', '/swarm/sessions', { key: me.key, body: { goal: 'Once', strategy: 'parallel', steps: [{ capability }] } });
    const id = res.body.session_id;
    const done = await finished(me.key, id);
    expect(provider.calls).toHaveLength(1);
    // As if the instance running it had stopped after the call was recorded but before the step was: the
    // step is running under a lease that has passed, the session still running.
    const { db } = server.app.services;
    await db.swarmStep.updateMany({
      where: { sessionId: id },
      data: { status: 'running', seq: null, result: undefined, leaseUntil: new Date(Date.now() - 1000) },
    });
    await db.swarmSession.update({ where: { id }, data: { status: 'running', endSeq: null, finishedAt: null, completedSteps: 0, lastSeq: 0 } });
    server.app.services.swarmRunner!.wake();
    const again = await finished(me.key, id);
    expect(again).toMatchObject({ status: 'completed', completed_steps: 1 });
    expect(again.steps[0]).toMatchObject({ status: 'succeeded', execution_id: done.steps[0].execution_id, attempts: 2 });
    expect(provider.calls).toHaveLength(1);
    expect((await call('GET', '/my/executions', { key: me.key })).body.total).toBe(1);
  });
});
