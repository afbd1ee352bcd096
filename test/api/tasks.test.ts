// Tasks (spec §4.9): created with criteria, a budget and a deadline; delegated to the creator's own
// sub-agents only; executed by the delegate under the task's budget (exact under concurrency, 402 before
// any provider is called), judged against the criteria; expired past the deadline; sparks published from
// them, with the publisher's reputation. Reputation cannot be farmed: a completion earns only for work paid
// for outside the task's family, a task's sparks earn once, sparks add at most their own daily cap, and
// every gain counts against the daily cap.
import { startProvider, type Provider } from '../support/provider';
import { assertTestCaTrusted } from '../support/https';
import { errorPaths, expectProblem } from '../support/expect';
import { FakeClock } from '../support/clock';
import { expireOverdueTasks } from '../../src/domain/tasks/tasks';
import { DAILY_GAIN_CAP, GAIN_WINDOW_MS } from '../../src/domain/reputation/reputation';
import { SPARK_BOUNDS, SPARK_DAILY_GAIN_CAP } from '../../src/domain/sparks/sparks';
import { api, gql, registerAgent, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Provider;
const clock = new FakeClock();

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
  call = api(server);
  provider = await startProvider('task-provider');
});
afterAll(async () => {
  await server.close();
  await provider.close();
});

/** A capability offered at `cost` cents by a service answering with `provider`, of a new agent or of `owner`. */
async function paidCapability(cost: number, owner?: { key: string }) {
  const capability = uniqueSlug('task-cap');
  owner ??= await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: owner.key,
    body: {
      name: 'Task provider',
      endpoint: provider.url,
      capabilities: [capability],
      description: 'Answers tasks',
      pricing_model: cost ? 'per_call' : 'free',
      cost_per_call: cost,
    },
  });
  if (res.status !== 201) throw new Error(res.text);
  return capability;
}

/** An agent, a sub-agent of it (scope as given), and a task of the agent's. */
async function teamWithTask(task: Record<string, unknown> = {}, scope: string[] = []) {
  const lead = await registerAgent(server);
  const sub = await call('POST', `/agents/${lead.agentId}/sub-agents`, {
    key: lead.key,
    body: { name: uniqueName('sub'), description: 'A helper', autonomyLevel: 'EXECUTE_ONLY', authorityScope: scope },
  });
  if (sub.status !== 201) throw new Error(sub.text);
  // The sub-agent pays for the calls it makes under the task, from its own wallet: in sandbox mode that
  // opens at its first paid call with the starting balance, with no other step.
  const created = await call('POST', '/tasks', { key: lead.key, body: { intent: 'Summarise the page', ...task } });
  if (created.status !== 201) throw new Error(created.text);
  return { lead, sub: { key: sub.body.master_key as string, agentId: sub.body.id as string }, task: created.body };
}

describe('POST /tasks', () => {
  it('creates a pending task_… with its criteria, budget and deadline; names each bad field', async () => {
    const me = await registerAgent(server);
    const deadline = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const res = await call('POST', '/tasks', {
      key: me.key,
      body: { intent: 'Find three sources', success_criteria: ['sources', 'count >= 3'], budget: 50, deadline },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      task_id: expect.stringMatching(/^task_[0-9A-Za-z]{24}$/),
      status: 'pending',
      success_criteria: ['sources', 'count >= 3'],
      budget: 50,
      spent: 0,
      budget_remaining: 50,
      deadline,
      owner_agent_id: me.agentId,
    });
    expect(errorPaths(await call('POST', '/tasks', { key: me.key, body: {} }))).toEqual(['intent']);
    const bad = await call('POST', '/tasks', {
      key: me.key,
      body: { intent: ' ', budget: -1, deadline: '2001-01-01T00:00:00Z', success_criteria: ['ok', ''] },
    });
    expect(errorPaths(bad)).toEqual(['budget', 'deadline', 'intent', 'success_criteria.1']);
    expectProblem(await call('GET', `/tasks/${res.body.task_id}`, { key: (await registerAgent(server)).key }), 404, 'not_found');
  });
});

describe('delegation', () => {
  it("delegates only to the caller's own active sub-agents, at any depth", async () => {
    const { lead, sub, task } = await teamWithTask();
    const stranger = await registerAgent(server);
    const foreign = await call('POST', `/agents/${stranger.agentId}/sub-agents`, {
      key: stranger.key,
      body: { name: uniqueName('x'), description: 'Not yours', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
    });
    expectProblem(await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: foreign.body.id } }), 404, 'not_found');
    expectProblem(await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: lead.agentId } }), 404, 'not_found');
    expectProblem(await call('POST', `/tasks/${task.task_id}/delegate`, { key: stranger.key, body: { sub_agent_id: sub.agentId } }), 404, 'not_found');
    const res = await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { subAgentId: sub.agentId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      delegation: { id: expect.any(String), status: 'active', sub_agent_id: sub.agentId, task_id: task.task_id, created_at: expect.any(String) },
      task: { task_id: task.task_id, status: 'delegated', delegate_id: sub.agentId },
    });
    // The delegate sees the task too, among the tasks delegated to it.
    expect((await call('GET', `/tasks/${task.task_id}`, { key: sub.key })).body.status).toBe('delegated');
    expect((await call('GET', '/tasks?role=delegated', { key: sub.key })).body).toMatchObject({ total: 1, tasks: [{ task_id: task.task_id }] });

    // Handing it to another sub-agent replaces the delegation; a suspended one cannot take it.
    const second = await call('POST', `/agents/${lead.agentId}/sub-agents`, {
      key: lead.key,
      body: { name: uniqueName('sub2'), description: 'Another', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
    });
    await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: second.body.id } });
    const read = (await call('GET', `/tasks/${task.task_id}`, { key: lead.key })).body;
    expect(read.delegations.map((d: any) => [d.sub_agent_id, d.status])).toEqual([
      [second.body.id, 'active'],
      [sub.agentId, 'replaced'],
    ]);
    expectProblem(await call('GET', `/tasks/${task.task_id}`, { key: sub.key }), 404, 'not_found');
  });

  it('moves along its table: a cancelled task takes nothing more', async () => {
    const { lead, sub, task } = await teamWithTask();
    expect((await call('POST', `/tasks/${task.task_id}/cancel`, { key: lead.key })).body).toEqual({ task_id: task.task_id, status: 'cancelled' });
    expectProblem(await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: sub.agentId } }), 409, 'conflict');
    expectProblem(await call('POST', `/tasks/${task.task_id}/cancel`, { key: lead.key }), 409, 'conflict');
  });
});

describe('executing a task', () => {
  it('runs the capability as the delegate, judges the result and moves its reputation', async () => {
    const capability = await paidCapability(2);
    const { lead, sub, task } = await teamWithTask({ success_criteria: ['summary', 'bullets >= 3', 'a page'] });
    await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: sub.agentId } });
    const body = (result: unknown) => ({ capability, input: { url: 'https://example.com' }, result });
    expectProblem(await call('POST', `/tasks/${task.task_id}/execute`, { key: lead.key, body: body({}) }), 404, 'not_found');
    expect(errorPaths(await call('POST', `/tasks/${task.task_id}/execute`, { key: sub.key, body: { capability } }))).toEqual(['input', 'result']);

    const unmet = await call('POST', `/tasks/${task.task_id}/execute`, { key: sub.key, body: body({ summary: 'A page', bullets: 2 }) });
    expect(unmet.status).toBe(200);
    expect(unmet.body).toMatchObject({
      execution: { status: 'success', criteria_met: false, output: { served_by: 'task-provider' } },
      reputation: { executor_delta: -1, reputation: 19 },
      task: { status: 'delegated' },
    });
    expect(unmet.body.execution.verdicts.map((v: any) => [v.criterion, v.met, v.rule])).toEqual([
      ['summary', true, 'present'],
      ['bullets >= 3', false, 'comparison'],
      ['a page', true, 'contains'],
    ]);

    clock.advance(1_000);
    const met = await call('POST', `/tasks/${task.task_id}/execute`, { key: sub.key, body: body({ summary: 'A page about things', bullets: 3 }) });
    expect(met.body).toMatchObject({
      execution: { status: 'success', criteria_met: true },
      reputation: { executor_delta: 3, reputation: 22 },
      task: { status: 'completed' },
    });
    const read = (await call('GET', `/tasks/${task.task_id}`, { key: lead.key })).body;
    expect(read).toMatchObject({ status: 'completed', result: { summary: 'A page about things', bullets: 3 }, delegations: [{ status: 'completed' }] });
    expect(read.executions.map((e: any) => e.criteria_met)).toEqual([true, false]);
    expectProblem(await call('POST', `/tasks/${task.task_id}/execute`, { key: sub.key, body: body({ summary: 'again', bullets: 9 }) }), 409, 'conflict');
    // The executions are the delegate's own, attributed to the task.
    const executions = (await call('GET', '/my/executions', { key: sub.key })).body.executions;
    expect(executions).toHaveLength(2);
  });

  it("refuses a capability outside the delegate's authority scope with 403", async () => {
    const capability = await paidCapability(0);
    const { lead, sub, task } = await teamWithTask({}, ['translate']);
    await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: sub.agentId } });
    expectProblem(await call('POST', `/tasks/${task.task_id}/execute`, { key: sub.key, body: { capability, input: {}, result: {} } }), 403, 'forbidden');
  });
});

describe("a task's budget", () => {
  it('charges calls under the task, and refuses with 402 before calling the provider when what is left does not cover it', async () => {
    const capability = await paidCapability(4);
    const { lead, sub, task } = await teamWithTask({ budget: 10 });
    const run = (key: string) => call('POST', '/execute', { key, body: { capability, input: {}, task_id: task.task_id } });
    expectProblem(await run(sub.key), 404, 'not_found'); // not delegated yet: not the caller's
    await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: sub.agentId } });
    expectProblem(await run(lead.key), 404, 'not_found');
    const before = provider.calls.length;
    expect((await run(sub.key)).body.transaction.cost_cents).toBe(4);
    expect((await run(sub.key)).status).toBe(200);
    const refused = await run(sub.key);
    expectProblem(refused, 402, 'payment_required');
    expect(refused.body.detail).toMatch(/2 cents of its budget left/);
    expect(provider.calls.length - before).toBe(2);
    expect((await call('GET', `/tasks/${task.task_id}`, { key: lead.key })).body).toMatchObject({ spent: 8, budget_remaining: 2 });
  });

  it('admits exactly as many of 20 concurrent paid calls as the budget pays for', async () => {
    const capability = await paidCapability(3);
    const { lead, sub, task } = await teamWithTask({ budget: 17 });
    await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: sub.agentId } });
    const before = provider.calls.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call('POST', '/execute', { key: sub.key, body: { capability, input: {}, task_id: task.task_id } })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(15);
    expect(provider.calls.length - before).toBe(5);
    expect((await call('GET', `/tasks/${task.task_id}`, { key: lead.key })).body).toMatchObject({ spent: 15, budget_remaining: 2 });
  });
});

describe('deadlines', () => {
  it('expires a task past its deadline, with its delegation', async () => {
    const { lead, sub, task } = await teamWithTask({ deadline: new Date(clock.now().getTime() + 60_000).toISOString() });
    await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: sub.agentId } });
    expect(await expireOverdueTasks(server.app.services)).toBe(0);
    clock.advance(61_000);
    expect(await expireOverdueTasks(server.app.services)).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `/tasks/${task.task_id}`, { key: lead.key })).body).toMatchObject({ status: 'expired', delegations: [{ status: 'expired' }] });
    expectProblem(await call('POST', `/tasks/${task.task_id}/cancel`, { key: lead.key }), 409, 'conflict');
  });
});

/** A task of a new team delegated to its sub-agent and completed with one call of `capability`. */
async function completedTask(capability: string, team?: Awaited<ReturnType<typeof teamWithTask>>) {
  const { lead, sub, task } = team ?? (await teamWithTask({ success_criteria: ['done == true'] }));
  await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: sub.agentId } });
  const done = await call('POST', `/tasks/${task.task_id}/execute`, { key: sub.key, body: { capability, input: {}, result: { done: true } } });
  if (done.body.task?.status !== 'completed') throw new Error(done.text);
  return { lead, sub, task, done };
}

const spark = (key: string, taskId: string, title = 'What we found') =>
  call('POST', `/tasks/${taskId}/publish-spark`, { key, body: { title, content: 'Three good sources.', spark_type: 'insight', quality_score: 88.5 } });

describe('sparks', () => {
  it('publishes a spark from a task, earning the publisher 2 reputation, listed publicly; one rewarded spark per task', async () => {
    const { lead, sub, task } = await completedTask(await paidCapability(3));
    expectProblem(
      await call('POST', `/tasks/${task.task_id}/publish-spark`, {
        key: (await registerAgent(server)).key,
        body: { title: 't', content: 'c', spark_type: 'insight' },
      }),
      404,
      'not_found',
    );
    const bad = await call('POST', `/tasks/${task.task_id}/publish-spark`, {
      key: lead.key,
      body: { title: ' ', content: 'c', spark_type: 'rumour', quality_score: 101 },
    });
    expect(errorPaths(bad)).toEqual(['quality_score', 'spark_type', 'title']);
    const res = await spark(lead.key, task.task_id);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      spark: {
        id: expect.any(String),
        title: 'What we found',
        content: 'Three good sources.',
        spark_type: 'insight',
        quality_score: 88.5,
        task_id: task.task_id,
        agent_id: lead.agentId,
        created_at: expect.any(String),
      },
      reputation: { publisher_delta: 2, reputation: 22, reason: null },
    });
    const events = (await call('GET', '/my/reputation', { key: lead.key })).body.events;
    expect(events[0]).toMatchObject({ delta: 2, reason: 'spark.published' });
    expect((await call('GET', '/my/sparks', { key: lead.key })).body.sparks.map((s: any) => s.id)).toEqual([res.body.spark.id]);
    const listed = await call('GET', `/sparks?agentId=${lead.agentId}&spark_type=insight`);
    expect(listed.body).toMatchObject({ total: 1, sparks: [{ id: res.body.spark.id }] });
    expect(errorPaths(await call('GET', '/sparks?limit=51'))).toEqual(['limit']);
    expect(errorPaths(await call('GET', '/sparks?spark_type=rumour'))).toEqual(['spark_type']);
    // One reward per task: the next sparks of it, the creator's or the delegate's, are published and earn nothing.
    expect((await spark(lead.key, task.task_id, 'More')).body.reputation).toEqual({ publisher_delta: 0, reputation: 22, reason: SPARK_BOUNDS.task });
    const theirs = await spark(sub.key, task.task_id, 'From the one who did it');
    expect(theirs.status).toBe(201);
    expect(theirs.body.reputation).toMatchObject({ publisher_delta: 0, reason: SPARK_BOUNDS.task });
    // A spark that adds nothing for its task records no reputation event.
    expect((await call('GET', '/my/reputation', { key: lead.key })).body.events.filter((e: any) => e.reason.startsWith('spark.published'))).toHaveLength(1);
    expect((await call('GET', `/sparks?agentId=${lead.agentId}`)).body.total).toBe(2);
  });

  it('twelve sparks of one task add 2 once (the finding took 20 to 44): the others say why they add nothing', async () => {
    const { lead, sub, task } = await teamWithTask();
    const deltas = [];
    for (let i = 0; i < 12; i++) {
      const res = await spark(lead.key, task.task_id, `Spark ${i}`);
      expect(res.status).toBe(201);
      deltas.push(res.body.reputation.publisher_delta);
      if (i > 0) expect(res.body.reputation).toEqual({ publisher_delta: 0, reputation: 22, reason: SPARK_BOUNDS.task });
    }
    expect(deltas).toEqual([2, ...Array(11).fill(0)]);
    // Its delegate's spark is of the same task: rewarded already.
    await call('POST', `/tasks/${task.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: sub.agentId } });
    expect((await spark(sub.key, task.task_id)).body.reputation).toEqual({ publisher_delta: 0, reputation: 20, reason: SPARK_BOUNDS.task });
    expect((await call('GET', '/my/reputation', { key: lead.key })).body).toMatchObject({ reputation: 22, total: 2 });
    expect((await call('GET', `/sparks?agentId=${lead.agentId}`)).body.total).toBe(12);
  });

  it(`lets sparks add at most ${SPARK_DAILY_GAIN_CAP} in any 24 hours, one task each, saying so when the cap applies`, async () => {
    const me = await registerAgent(server);
    const answers = [];
    for (let i = 0; i < 4; i++) {
      clock.advance(1);
      const created = await call('POST', '/tasks', { key: me.key, body: { intent: `Spark task ${i}` } });
      answers.push((await spark(me.key, created.body.task_id)).body.reputation);
    }
    expect(answers).toEqual([
      { publisher_delta: 2, reputation: 22, reason: null },
      { publisher_delta: 2, reputation: 24, reason: null },
      { publisher_delta: 0, reputation: 24, reason: SPARK_BOUNDS.sparks },
      { publisher_delta: 0, reputation: 24, reason: SPARK_BOUNDS.sparks },
    ]);
    const events = (await call('GET', '/my/reputation', { key: me.key })).body.events;
    expect(events.filter((e: any) => e.reason.startsWith('spark.published')).map((e: any) => [e.delta, e.reason])).toEqual([
      [0, `spark.published (capped: sparks add at most ${SPARK_DAILY_GAIN_CAP} a day)`],
      [0, `spark.published (capped: sparks add at most ${SPARK_DAILY_GAIN_CAP} a day)`],
      [2, 'spark.published'],
      [2, 'spark.published'],
    ]);
    // A rolling window: a day after the first two, sparks add again.
    clock.advance(GAIN_WINDOW_MS);
    const next = await call('POST', '/tasks', { key: me.key, body: { intent: 'The next day' } });
    expect((await spark(me.key, next.body.task_id)).body.reputation).toEqual({ publisher_delta: 2, reputation: 26, reason: null });
  });

  it('gives one reward to sparks of one task published at the same moment', async () => {
    const { lead, sub, task } = await completedTask(await paidCapability(3));
    const answers = await Promise.all([lead, sub, lead, sub].map((who, i) => spark(who.key, task.task_id, `At once ${i}`)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(answers.map((a) => a.body.reputation.publisher_delta).sort()).toEqual([0, 0, 0, 2]);
  });
});

describe('reputation that cannot be farmed', () => {
  it('earns a delegate nothing for a task completed with a free call, or one paid to its own family', async () => {
    const free = await completedTask(await paidCapability(0));
    expect(free.done.body.reputation).toEqual({ executor_delta: 0, reputation: 20 });

    // The lead's own paid service: the money stays in the family.
    const team = await teamWithTask({ success_criteria: ['done == true'] });
    const own = await completedTask(await paidCapability(5, team.lead), team);
    expect(own.done.body).toMatchObject({ execution: { status: 'success' }, task: { status: 'completed' }, reputation: { executor_delta: 0, reputation: 20 } });
    expect((await call('GET', '/my/reputation', { key: own.sub.key })).body).toMatchObject({ reputation: 20, total: 1 });
  });

  it(`caps a delegate's gains at ${DAILY_GAIN_CAP} a day across tasks and sparks, reporting what was applied`, async () => {
    const capability = await paidCapability(1);
    const team = await teamWithTask({ success_criteria: ['done == true'] });
    const deltas = [];
    for (let i = 0; i < 4; i++) {
      clock.advance(1);
      const created = await call('POST', '/tasks', { key: team.lead.key, body: { intent: `Task ${i}`, success_criteria: ['done == true'] } });
      const { done } = await completedTask(capability, { ...team, task: created.body });
      deltas.push(done.body.reputation.executor_delta);
    }
    expect(deltas).toEqual([3, 3, 3, 1]);
    const last = (await call('GET', '/tasks?role=delegated&status=completed', { key: team.sub.key })).body.tasks[0].task_id;
    expect((await spark(team.sub.key, last)).body.reputation).toEqual({ publisher_delta: 0, reputation: 20 + DAILY_GAIN_CAP, reason: SPARK_BOUNDS.daily });
    const events = (await call('GET', '/my/reputation', { key: team.sub.key })).body.events;
    expect(events.filter((e: any) => e.reason.startsWith('spark.published'))).toEqual([
      expect.objectContaining({ delta: 0, reason: `spark.published (capped: at most ${DAILY_GAIN_CAP} a day)` }),
    ]);
    // A day later the next completion earns in full.
    clock.advance(GAIN_WINDOW_MS);
    const created = await call('POST', '/tasks', { key: team.lead.key, body: { intent: 'The next day', success_criteria: ['done == true'] } });
    expect((await completedTask(capability, { ...team, task: created.body })).done.body.reputation).toEqual({
      executor_delta: 3,
      reputation: 23 + DAILY_GAIN_CAP,
    });
  });
});

describe('GraphQL', () => {
  it('runs the same flow: create, delegate, execute', async () => {
    const capability = await paidCapability(1);
    const { lead, sub } = await teamWithTask();
    const created = await gql(
      server,
      'mutation($i: CreateTaskInput!) { createTask(input: $i) { id taskId status } }',
      { i: { intent: 'GraphQL task', successCriteria: ['done == true'] } },
      lead.key,
    );
    const taskId = created.body.data.createTask.taskId;
    const delegated = await gql(
      server,
      'mutation($id: String!, $s: ID!) { delegateTask(id: $id, subAgentId: $s) { delegation { status } task { status } } }',
      { id: taskId, s: sub.agentId },
      lead.key,
    );
    expect(delegated.body.data.delegateTask).toEqual({ delegation: { status: 'active' }, task: { status: 'delegated' } });
    const executed = await gql(
      server,
      'mutation($id: String!, $i: ExecuteTaskInput!) { executeTask(id: $id, input: $i) { execution { status criteriaMet } reputation { executorDelta } task { status } } }',
      { id: taskId, i: { capability, input: {}, result: { done: true } } },
      sub.key,
    );
    expect(executed.body.data.executeTask).toEqual({
      execution: { status: 'success', criteriaMet: true },
      reputation: { executorDelta: 3 },
      task: { status: 'completed' },
    });
    const node = await gql(server, 'query($id: ID!) { node(id: $id) { ... on Task { status } } }', { id: created.body.data.createTask.id }, lead.key);
    expect(node.body.data.node).toEqual({ status: 'completed' });
  });
});
