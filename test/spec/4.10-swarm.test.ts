// Spec §4.10 swarms, with §2's Swarm session record and §3's row (a new swarm is running), as a new user meets
// them over REST, with steps answered by a real HTTPS provider on loopback.
import { errorPaths, eventually, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { api, registerAgent, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Provider;
/** A capability the provider answers (an echo), free. */
let capability: string;

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '30000' } });
  call = api(server);
  provider = await startProvider('swarm-worker');
  capability = uniqueSlug('spec-swarm');
  const owner = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: owner.key,
    body: { name: uniqueName('svc'), endpoint: provider.url, capabilities: [capability], description: 'Answers the steps of swarms', pricing_model: 'free' },
  });
  if (res.status !== 201) throw new Error(res.text);
});
afterAll(async () => {
  await server.close();
  await provider.close();
});

const create = (key: string, body: Record<string, unknown>) => call('POST', '/swarm/sessions', { key, body });
const finished = (key: string, id: string) =>
  eventually(
    () => call('GET', `/swarm/sessions/${id}`, { key }),
    (r) => r.status === 200 && r.body.status !== 'running',
    15_000,
  );

describe('§4.10 POST /swarm/sessions', () => {
  it('§4.10 creating a swarm with goal, strategy and steps answers 201 session_id (swarm_) and status; §3 a new swarm is running', async () => {
    const me = await registerAgent(server);
    const res = await create(me.key, {
      goal: 'Gather three facts',
      strategy: 'sequential',
      steps: [
        { capability, input: { fact: 1 } },
        { capability, input: { fact: 2 } },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ session_id: expect.stringMatching(/^swarm_[0-9A-Za-z]{24}$/), status: 'running' });
    const done = await finished(me.key, res.body.session_id);
    expect(done.body).toMatchObject({ status: 'completed', completed_steps: 2 });
    // Each step was a call of the capability's provider, in order.
    const inputs = provider.calls.filter((c) => c.json.agent_id === me.agentId).map((c) => c.json.input);
    expect(inputs).toEqual([{ fact: 1 }, { fact: 2 }]);
  });

  it('§2 strategy is sequential or parallel', async () => {
    const me = await registerAgent(server);
    const res = await create(me.key, { goal: 'Ask three at once', strategy: 'parallel', steps: [1, 2, 3].map((n) => ({ capability, input: { n } })) });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('running');
    expect((await finished(me.key, res.body.session_id)).body).toMatchObject({ status: 'completed', completed_steps: 3 });
    const bad = await create(me.key, { goal: 'Ask at random', strategy: 'random', steps: [{ capability, input: {} }] });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['strategy']);
  });

  it('§4.10 goal, strategy and steps are required', async () => {
    const me = await registerAgent(server);
    const res = await create(me.key, {});
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['goal', 'steps', 'strategy']);
  });
});

describe('§4.10 reading swarms', () => {
  it('§4.10 GET /swarm/sessions/:id answers status and completed_steps', async () => {
    const me = await registerAgent(server);
    const { session_id } = (await create(me.key, { goal: 'One step', strategy: 'sequential', steps: [{ capability, input: { q: 'tides' } }] })).body;
    const res = await call('GET', `/swarm/sessions/${session_id}`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: expect.stringMatching(/^(running|completed)$/), completed_steps: expect.any(Number) });
    expect((await finished(me.key, session_id)).body).toMatchObject({ status: 'completed', completed_steps: 1 });
    const other = await registerAgent(server);
    expectProblem(await call('GET', `/swarm/sessions/${session_id}`, { key: other.key }), 404, 'not_found');
  });

  it('§4.10 GET /swarm/sessions answers sessions', async () => {
    const me = await registerAgent(server);
    const a = (await create(me.key, { goal: 'First', strategy: 'sequential', steps: [{ capability, input: {} }] })).body;
    const b = (await create(me.key, { goal: 'Second', strategy: 'parallel', steps: [{ capability, input: {} }] })).body;
    const res = await call('GET', '/swarm/sessions', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.sessions.map((s: any) => s.session_id).sort()).toEqual([a.session_id, b.session_id].sort());
    await Promise.all([finished(me.key, a.session_id), finished(me.key, b.session_id)]);
    const other = await registerAgent(server);
    expect((await call('GET', '/swarm/sessions', { key: other.key })).body.sessions).toEqual([]);
  });
});
