// Spec §4.9's task sentences (create, delegate, execute with the sub-agent's key), as a new user meets them
// over REST, against a real HTTPS provider on loopback.
import { expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { api, registerAgent, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '30000' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

async function provider(name: string) {
  const p = await startProvider(name);
  providers.push(p);
  return p;
}

/** A new agent's service offering `capabilities` at `cost` cents a call, answered by `p`. */
async function offer(p: Provider, capabilities: string[], cost = 0) {
  const owner = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: owner.key,
    body: {
      name: uniqueName('svc'),
      endpoint: p.url,
      capabilities,
      description: 'A provider a test starts',
      pricing_model: cost ? 'per_call' : 'free',
      cost_per_call: cost,
    },
  });
  if (res.status !== 201) throw new Error(`service registration failed: ${res.status} ${res.text}`);
  return { owner, serviceKey: res.body.service_key as string };
}

/** An agent and a sub-agent of it (with its own master key). */
async function team() {
  const lead = await registerAgent(server);
  const sub = await call('POST', `/agents/${lead.agentId}/sub-agents`, {
    key: lead.key,
    body: { name: uniqueName('sub'), description: 'Does the work', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
  });
  if (sub.status !== 201) throw new Error(sub.text);
  return { lead, sub: { key: sub.body.master_key as string, agentId: sub.body.id as string } };
}

/** A task of `lead`'s, delegated to `sub`. */
async function delegatedTask(t: Awaited<ReturnType<typeof team>>, body: Record<string, unknown>) {
  const created = await call('POST', '/tasks', { key: t.lead.key, body });
  if (created.status !== 201) throw new Error(created.text);
  const delegated = await call('POST', `/tasks/${created.body.task_id}/delegate`, { key: t.lead.key, body: { sub_agent_id: t.sub.agentId } });
  if (delegated.status !== 200) throw new Error(delegated.text);
  return created.body.task_id as string;
}

describe('§4.9 tasks', () => {
  it('§4.9 POST /tasks with an intent creates a task: 201 task_id and status pending', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/tasks', {
      key: me.key,
      body: { intent: 'Summarise the quarterly report', success_criteria: ['summary'], budget: 25, deadline: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ task_id: expect.any(String), status: 'pending' });
    expect((await call('GET', `/tasks/${res.body.task_id}`, { key: me.key })).body).toMatchObject({ task_id: res.body.task_id, status: 'pending' });
  });

  it('§4.9 POST /tasks/:id/delegate with sub_agent_id answers delegation.status', async () => {
    const t = await team();
    const created = await call('POST', '/tasks', { key: t.lead.key, body: { intent: 'Translate the release notes' } });
    const res = await call('POST', `/tasks/${created.body.task_id}/delegate`, { key: t.lead.key, body: { sub_agent_id: t.sub.agentId } });
    expect(res.status).toBe(200);
    expect(res.body.delegation).toMatchObject({ status: 'active' });
    expect((await call('GET', `/tasks/${created.body.task_id}`, { key: t.sub.key })).body.status).toBe('delegated');
  });

  it('§4.9 POST /tasks/:id/execute with the sub-agent key answers execution.status and reputation.executor_delta', async () => {
    const capability = uniqueSlug('spec-task');
    await offer(await provider('worker'), [capability]);
    const t = await team();
    const task = await delegatedTask(t, { intent: 'Collect the figures', success_criteria: ['figures'] });
    expectProblem(
      await call('POST', `/tasks/${task}/execute`, { key: t.lead.key, body: { capability, input: { q: 1 }, result: { figures: [1] } } }),
      404,
      'not_found',
    );
    const res = await call('POST', `/tasks/${task}/execute`, { key: t.sub.key, body: { capability, input: { q: 1 }, result: { figures: [1, 2] } } });
    expect(res.status).toBe(200);
    expect(res.body.execution).toMatchObject({ status: 'success' });
    expect(typeof res.body.reputation.executor_delta).toBe('number');
    expect(res.body.task.status).toBe('completed');
  });

  it("§4.9 a delegate calls a registered summarize provider under the task's budget", async () => {
    const seller = await provider('summarizer');
    const svc = await offer(seller, ['summarize'], 4);
    const t = await team();
    const task = await delegatedTask(t, { intent: 'Summarise three reports', success_criteria: ['reports >= 3'], budget: 10 });
    // The provider's own input, not the marketplace's summarize schema.
    const input = { run: 'summary', document_ids: ['r1', 'r2'] };
    const execute = (reports: number) =>
      call('POST', `/tasks/${task}/execute`, { key: t.sub.key, body: { capability: 'summarize', input, result: { reports } } });
    try {
      // The budget race: of five calls at once, the 10 cents pay for exactly two; the others are refused
      // with 402 before the provider is called.
      const race = await Promise.all(Array.from({ length: 5 }, () => execute(1)));
      expect(race.map((r) => r.status).sort()).toEqual([200, 200, 402, 402, 402]);
      for (const answered of race.filter((r) => r.status === 200)) {
        expect(answered.body).toMatchObject({
          execution: { status: 'success', cost_cents: 4, output: { served_by: 'summarizer', echo: input } },
          reputation: { executor_delta: expect.any(Number) },
        });
      }
      for (const refused of race.filter((r) => r.status === 402)) expectProblem(refused, 402, 'payment_required');
      expect(seller.calls.map((c) => c.json)).toEqual([
        expect.objectContaining({ capability: 'summarize', input }),
        expect.objectContaining({ capability: 'summarize', input }),
      ]);
      expect((await call('GET', `/tasks/${task}`, { key: t.lead.key })).body).toMatchObject({ status: 'delegated', spent: 8, budget_remaining: 2 });
      // What is left pays for nothing more.
      expectProblem(await execute(3), 402, 'payment_required');
      expect(seller.calls).toHaveLength(2);
    } finally {
      await call('PATCH', `/services/${svc.serviceKey}`, { key: svc.owner.key, body: { capabilities: [uniqueSlug('withdrawn')] } });
    }
  });
});
