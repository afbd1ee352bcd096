// Agent conglomerates (AMMC, spec §2, §3, §4.11): the agents that may join; a conglomerate formed by its
// founder under a budget, moved along its table (FORMING → OPERATING → SETTLED, or DISSOLVED) by its founder
// or by the marketplace on an exit condition (deadline, loss limit, profit target); its activity ledger,
// which never spends more than the balance; its stats with the Sharpe ratio of the daily returns; and
// `ammc.conglomerate.state_changed` to every party at each move.
import { randomUUID } from 'node:crypto';
import { applyDeadlines } from '../../src/domain/ammc/conglomerates';
import { FakeClock } from '../support/clock';
import { errorPaths, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { api, gql, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
// A fixed UTC morning, so that the days of the ledger are predictable; the clock only ever moves forward.
const clock = new FakeClock(new Date('2026-03-01T10:00:00Z'));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
});

type Agent = Awaited<ReturnType<typeof registerAgent>>;
const STATES = ['FORMING', 'OPERATING', 'SETTLED', 'DISSOLVED'] as const;
type State = (typeof STATES)[number];
const ALLOWED: [State, State][] = [
  ['FORMING', 'OPERATING'],
  ['FORMING', 'DISSOLVED'],
  ['OPERATING', 'SETTLED'],
  ['OPERATING', 'DISSOLVED'],
];
/** The moves that bring a fresh conglomerate to each state. */
const PATH_TO: Record<State, State[]> = { FORMING: [], OPERATING: ['OPERATING'], SETTLED: ['OPERATING', 'SETTLED'], DISSOLVED: ['DISSOLVED'] };

const inHours = (h: number) => new Date(clock.now().getTime() + h * HOUR).toISOString();

/** Moves the shared clock forward to `iso` (never back: other tests' times stay consistent). */
function moveClockTo(iso: string) {
  const to = new Date(iso);
  if (to < clock.now()) throw new Error(`the clock is past ${iso} already (${clock.now().toISOString()})`);
  clock.at = to;
}

async function form(founder: Agent, body: Record<string, unknown> = {}) {
  const res = await call('POST', '/ammc/conglomerates', {
    key: founder.key,
    body: { goal: 'Make markets in a stablecoin pair', max_budget_usd: 1000, ...body },
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body;
}

const advance = (key: string, id: string, target_state: string, extra: Record<string, unknown> = {}) =>
  call('POST', `/ammc/conglomerates/${id}/advance`, { key, body: { target_state, ...extra } });

/** A fresh conglomerate of `founder`'s brought to `state` through allowed moves. */
async function formIn(founder: Agent, state: State, body: Record<string, unknown> = {}) {
  let c = await form(founder, body);
  for (const to of PATH_TO[state]) {
    const res = await advance(founder.key, c.id, to);
    if (res.status !== 200) throw new Error(`advance to ${to} failed: ${res.status} ${res.text}`);
    c = res.body;
  }
  return c;
}

const trade = (key: string, id: string, cost_usd: number, proceeds_usd?: number) =>
  call('POST', `/ammc/conglomerates/${id}/activity`, { key, body: { kind: 'trade', cost_usd, ...(proceeds_usd !== undefined && { proceeds_usd }) } });

const read = async (key: string, id: string) => (await call('GET', `/ammc/conglomerates/${id}`, { key })).body;
const last = <T>(list: T[]) => list[list.length - 1];

describe('GET /ammc/agents', () => {
  it('lists active agents without a key, each with its reputation, tier, capabilities and source', async () => {
    const me = await registerAgent(server);
    const res = await call('GET', '/ammc/agents?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThanOrEqual(1);
    expect(res.body.agents.find((a: any) => a.agent_id === me.agentId)).toEqual({
      agent_id: me.agentId,
      name: me.name,
      description: 'An agent made by a test',
      reputation: 20,
      tier: 'newcomer',
      capabilities: [],
      source: 'marketplace',
    });
    for (const a of res.body.agents) {
      expect(a).toMatchObject({
        agent_id: expect.any(String),
        name: expect.any(String),
        reputation: expect.any(Number),
        tier: expect.any(String),
        capabilities: expect.any(Array),
        source: 'marketplace',
      });
    }
    // Best reputation first.
    const scores = res.body.agents.map((a: any) => a.reputation);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
  });

  it('narrows to the agents that list a capability, and pages them with limit and offset', async () => {
    const capability = uniqueSlug('ammc-cap');
    const [one, two] = [await registerAgent(server), await registerAgent(server)];
    await registerAgent(server); // lists no such capability
    for (const a of [one, two]) expect((await call('PATCH', '/agents/me', { key: a.key, body: { capabilities: [capability] } })).status).toBe(200);

    const all = await call('GET', `/ammc/agents?capability=${capability}`);
    expect(all.body.total).toBe(2);
    expect(all.body.agents.map((a: any) => a.agent_id).sort()).toEqual([one.agentId, two.agentId].sort());
    expect(all.body.agents[0]).toEqual({
      agent_id: expect.any(String),
      name: expect.any(String),
      description: 'An agent made by a test',
      reputation: 20,
      tier: 'newcomer',
      capabilities: [capability],
      source: 'marketplace',
    });

    const first = await call('GET', `/ammc/agents?capability=${capability}&limit=1`);
    const second = await call('GET', `/ammc/agents?capability=${capability}&limit=1&offset=1`);
    const beyond = await call('GET', `/ammc/agents?capability=${capability}&limit=1&offset=2`);
    expect([first.body.total, second.body.total, beyond.body.total]).toEqual([2, 2, 2]);
    expect([first.body.agents.length, second.body.agents.length, beyond.body.agents.length]).toEqual([1, 1, 0]);
    expect([first.body.agents[0].agent_id, second.body.agents[0].agent_id]).toEqual(all.body.agents.map((a: any) => a.agent_id));
  });

  it('says at the top level which agents the list covers, and narrows to one source', async () => {
    const capability = uniqueSlug('ammc-src');
    const here = await registerAgent(server);
    expect((await call('PATCH', '/agents/me', { key: here.key, body: { capabilities: [capability] } })).status).toBe(200);
    const external = await call('POST', '/ext/agents/register', {
      key: here.key,
      body: { instance_url: `https://agent.invalid/${capability}`, capabilities: [capability] },
    });
    expect(external.status).toBe(201);
    const externalId = external.body.external_agent.external_agent_id;

    const all = await call('GET', `/ammc/agents?capability=${capability}`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ total: 2, source: 'all', agents: expect.any(Array) });
    expect(all.body.agents.map((a: any) => [a.agent_id, a.source]).sort()).toEqual(
      [
        [externalId, 'external'],
        [here.agentId, 'marketplace'],
      ].sort(),
    );
    for (const [source, id] of [
      ['marketplace', here.agentId],
      ['external', externalId],
    ]) {
      const one = await call('GET', `/ammc/agents?capability=${capability}&source=${source}`);
      expect(one.body).toEqual({ total: 1, source, agents: [expect.objectContaining({ agent_id: id, source })] });
    }
    expect((await call('GET', '/ammc/agents?limit=1')).body.source).toBe('all');
    expect(errorPaths(await call('GET', '/ammc/agents?source=elsewhere'))).toEqual(['source']);
    const q = await gql(server, `{ ammcAgents(source: "external", first: 100) { source totalCount nodes { source } } }`);
    expect(q.body.data.ammcAgents.source).toBe('external');
    expect(new Set(q.body.data.ammcAgents.nodes.map((n: any) => n.source))).toEqual(new Set(['external']));
  });
});

describe('POST /ammc/conglomerates', () => {
  it('forms a FORMING cong_… with its budget, exit conditions, members and the creation in its history', async () => {
    const founder = await registerAgent(server);
    const member = await registerAgent(server);
    const deadline = inHours(48);
    const res = await call('POST', '/ammc/conglomerates', {
      key: founder.key,
      body: {
        goal: 'Arbitrage two venues',
        max_budget_usd: 250.5,
        exit_conditions: { deadline, max_loss_usd: 100, profit_target_usd: 75.25 },
        members: [member.agentId],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^cong_[0-9A-Za-z]{24}$/),
      goal: 'Arbitrage two venues',
      state: 'FORMING',
      conglomerate_type: 'COLLABORATION',
      max_budget_usd: 250.5,
      exit_conditions: { deadline, max_loss_usd: 100, profit_target_usd: 75.25 },
      founder_agent_id: founder.agentId,
      members: [member.agentId],
      balance_usd: 250.5,
      realised_pnl_usd: 0,
      trades: 0,
      executions: 0,
      end_reason: null,
      operating_at: null,
      ended_at: null,
      created_at: clock.now().toISOString(),
    });
    expect(res.body.state_history).toEqual([
      { from: null, to: 'FORMING', triggered_by: 'external', by: founder.agentId, at: clock.now().toISOString(), reason: null },
    ]);
    // The founder and the member read it; a stranger is answered as if it did not exist.
    expect(await read(member.key, res.body.id)).toMatchObject({ id: res.body.id, state: 'FORMING' });
    expect((await call('GET', '/ammc/conglomerates', { key: member.key })).body).toMatchObject({ total: 1, conglomerates: [{ id: res.body.id }] });
    expectProblem(await call('GET', `/ammc/conglomerates/${res.body.id}`, { key: (await registerAgent(server)).key }), 404, 'not_found');
  });

  it('accepts the camelCase spelling of every field, and leaves out the exit conditions not given', async () => {
    const founder = await registerAgent(server);
    const res = await call('POST', '/ammc/conglomerates', {
      key: founder.key,
      body: { goal: 'Sell widgets', maxBudgetUsd: 40, conglomerateType: 'COMMERCE', exitConditions: { maxLossUsd: 10 } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      conglomerate_type: 'COMMERCE',
      max_budget_usd: 40,
      exit_conditions: { deadline: null, max_loss_usd: 10, profit_target_usd: null },
      members: [],
    });
  });

  it('names each bad field with 400', async () => {
    const founder = await registerAgent(server);
    const post = (body: Record<string, unknown>) => call('POST', '/ammc/conglomerates', { key: founder.key, body });
    const missing = await post({});
    expect(missing.status).toBe(400);
    expect(errorPaths(missing)).toEqual(['goal', 'max_budget_usd']);
    expect(errorPaths(await post({ goal: 'g', max_budget_usd: -1 }))).toEqual(['max_budget_usd']);
    expect(errorPaths(await post({ goal: 'g', max_budget_usd: 10.123 }))).toEqual(['max_budget_usd']);
    expect(errorPaths(await post({ goal: 'g', max_budget_usd: 0 }))).toEqual(['max_budget_usd']);
    const bad = await post({
      goal: 'g',
      max_budget_usd: 100,
      conglomerate_type: 'HEDGE',
      exit_conditions: { deadline: '2001-01-01T00:00:00Z', max_loss_usd: 100.01 },
    });
    expect(bad.status).toBe(400);
    expect(errorPaths(bad)).toEqual(['conglomerate_type', 'exit_conditions.deadline', 'exit_conditions.max_loss_usd']);
    expect(errorPaths(await post({ goal: 'g', maxBudgetUsd: 100, exitConditions: { maxLossUsd: 200 } }))).toEqual(['exitConditions.maxLossUsd']);
    const nobody = await post({ goal: 'g', max_budget_usd: 100, members: [randomUUID()] });
    expect(nobody.status).toBe(400);
    expect(errorPaths(nobody)).toEqual(['members.0']);
    expect(errorPaths(await post({ goal: 'g', max_budget_usd: 100, members: [founder.agentId, 'nope'] }))).toEqual(['members.0', 'members.1']);
    // Nothing was formed by any of them.
    expect((await call('GET', '/ammc/conglomerates', { key: founder.key })).body.total).toBe(0);
  });
});

describe('the move table', () => {
  const pairs = STATES.flatMap((from) => STATES.map((to) => [from, to] as [State, State]));

  it.each(pairs)('moving %s → %s answers as the table says: the new state and a history entry, or 409 changing nothing', async (from, to) => {
    const founder = await registerAgent(server);
    const member = await registerAgent(server);
    const c = await formIn(founder, from, { members: [member.agentId] });
    expect(c.state).toBe(from);
    const res = await advance(founder.key, c.id, to, { reason: 'the test says so' });
    if (ALLOWED.some(([f, t]) => f === from && t === to)) {
      expect(res.status).toBe(200);
      expect(res.body.state).toBe(to);
      expect(res.body.state_history).toEqual([
        ...c.state_history,
        { from, to, triggered_by: 'external', by: founder.agentId, at: clock.now().toISOString(), reason: 'the test says so' },
      ]);
      if (to === 'OPERATING') expect(res.body).toMatchObject({ operating_at: clock.now().toISOString(), ended_at: null, end_reason: null });
      else expect(res.body).toMatchObject({ ended_at: clock.now().toISOString(), end_reason: 'the test says so' });
      expect(await read(member.key, c.id)).toEqual(res.body);
    } else {
      expectProblem(res, 409, 'conflict');
      const after = await read(founder.key, c.id);
      expect(after.state).toBe(from);
      expect(after.state_history).toEqual(c.state_history);
    }
  });

  it('refuses an unknown target state with 400, a member with 403 and a stranger with 404', async () => {
    const founder = await registerAgent(server);
    const member = await registerAgent(server);
    const stranger = await registerAgent(server);
    const c = await form(founder, { members: [member.agentId] });
    const unknown = await advance(founder.key, c.id, 'PAUSED');
    expect(unknown.status).toBe(400);
    expect(errorPaths(unknown)).toEqual(['target_state']);
    expect(errorPaths(await call('POST', `/ammc/conglomerates/${c.id}/advance`, { key: founder.key, body: {} }))).toEqual(['target_state']);
    expectProblem(await advance(member.key, c.id, 'OPERATING'), 403, 'forbidden');
    expectProblem(await advance(stranger.key, c.id, 'OPERATING'), 404, 'not_found');
    expectProblem(await call('GET', `/ammc/conglomerates/${c.id}`, { key: stranger.key }), 404, 'not_found');
    expectProblem(await advance(founder.key, 'cong_nope', 'OPERATING'), 404, 'not_found');
    const after = await read(founder.key, c.id);
    expect(after.state).toBe('FORMING');
    expect(after.state_history).toHaveLength(1);
  });
});

describe('activity', () => {
  it('is recorded only while the conglomerate is OPERATING', async () => {
    const founder = await registerAgent(server);
    const c = await form(founder, { max_budget_usd: 100 });
    expectProblem(await trade(founder.key, c.id, 1, 2), 409, 'conflict');
    await advance(founder.key, c.id, 'OPERATING');
    expect((await trade(founder.key, c.id, 1, 2)).status).toBe(201);
    await advance(founder.key, c.id, 'SETTLED');
    expectProblem(await trade(founder.key, c.id, 1, 2), 409, 'conflict');
    expect((await read(founder.key, c.id)).trades).toBe(1);
  });

  it('records trades of the founder and members within the balance; one costing more is 402 and records nothing', async () => {
    const founder = await registerAgent(server);
    const member = await registerAgent(server);
    const stranger = await registerAgent(server);
    const c = await formIn(founder, 'OPERATING', { max_budget_usd: 100, members: [member.agentId] });

    const first = await trade(founder.key, c.id, 60, 20.5);
    expect(first.status).toBe(201);
    expect(first.body.entry).toEqual({
      id: expect.any(String),
      conglomerate_id: c.id,
      agent_id: founder.agentId,
      kind: 'trade',
      cost_usd: 60,
      proceeds_usd: 20.5,
      pnl_usd: -39.5,
      execution_id: null,
      description: '',
      created_at: clock.now().toISOString(),
    });
    expect(first.body.conglomerate).toMatchObject({ id: c.id, state: 'OPERATING', balance_usd: 60.5, realised_pnl_usd: -39.5, trades: 1, executions: 0 });

    const byMember = await call('POST', `/ammc/conglomerates/${c.id}/activity`, { key: member.key, body: { costUsd: 10, description: 'a hedge' } });
    expect(byMember.status).toBe(201);
    expect(byMember.body.entry).toMatchObject({ agent_id: member.agentId, kind: 'trade', cost_usd: 10, proceeds_usd: 0, description: 'a hedge' });
    expect(byMember.body.conglomerate).toMatchObject({ balance_usd: 50.5, realised_pnl_usd: -49.5, trades: 2 });

    const tooDear = await trade(member.key, c.id, 50.51, 1000);
    expectProblem(tooDear, 402, 'payment_required');
    expect(tooDear.body.detail).toMatch(/50\.50 USD/);
    expectProblem(await trade(stranger.key, c.id, 1), 404, 'not_found');
    expect(errorPaths(await call('POST', `/ammc/conglomerates/${c.id}/activity`, { key: founder.key, body: { kind: 'swap', cost_usd: 1 } }))).toEqual(['kind']);
    expect(errorPaths(await call('POST', `/ammc/conglomerates/${c.id}/activity`, { key: founder.key, body: { cost_usd: -1, proceeds_usd: 1.001 } }))).toEqual([
      'cost_usd',
      'proceeds_usd',
    ]);
    expect(errorPaths(await call('POST', `/ammc/conglomerates/${c.id}/activity`, { key: founder.key, body: {} }))).toEqual(['cost_usd']);

    // Exactly the balance is still covered.
    expect((await trade(member.key, c.id, 50.5)).body.conglomerate).toMatchObject({ balance_usd: 0, trades: 3 });
    expectProblem(await trade(founder.key, c.id, 0.01), 402, 'payment_required');

    const ledger = await call('GET', `/ammc/conglomerates/${c.id}/activity`, { key: member.key });
    expect(ledger.status).toBe(200);
    expect(ledger.body.total).toBe(3);
    expect(ledger.body.entries.map((e: any) => e.cost_usd).sort()).toEqual([10, 50.5, 60]);
    expect((await call('GET', `/ammc/conglomerates/${c.id}/activity?limit=1&offset=1`, { key: founder.key })).body).toMatchObject({
      total: 3,
      entries: [expect.any(Object)],
    });
    expectProblem(await call('GET', `/ammc/conglomerates/${c.id}/activity`, { key: stranger.key }), 404, 'not_found');
    expect(await read(founder.key, c.id)).toMatchObject({ balance_usd: 0, trades: 3, realised_pnl_usd: -100 });
  });

  it("records one of the caller's own executions once, at its cost", async () => {
    const founder = await registerAgent(server);
    const other = await registerAgent(server);
    const c = await formIn(founder, 'OPERATING', { max_budget_usd: 100 });
    const execute = async (who: Agent) => {
      const res = await call('POST', '/execute', { key: who.key, body: { capability: 'trust-score', input: { agent_id: who.agentId } } });
      expect(res.body).toMatchObject({ status: 'success', transaction: { cost_cents: 0 } });
      return res.body.execution_id as string;
    };
    const mine = await execute(founder);
    const theirs = await execute(other);
    const record = (execution_id: string) =>
      call('POST', `/ammc/conglomerates/${c.id}/activity`, { key: founder.key, body: { kind: 'execution', execution_id } });

    const res = await record(mine);
    expect(res.status).toBe(201);
    expect(res.body.entry).toMatchObject({ kind: 'execution', execution_id: mine, cost_usd: 0, proceeds_usd: 0, agent_id: founder.agentId });
    expect(res.body.conglomerate).toMatchObject({ executions: 1, trades: 0, balance_usd: 100 });
    expectProblem(await record(mine), 409, 'conflict');
    expectProblem(await record(theirs), 404, 'not_found');
    expect(errorPaths(await call('POST', `/ammc/conglomerates/${c.id}/activity`, { key: founder.key, body: { kind: 'execution', cost_usd: 1 } }))).toEqual([
      'cost_usd',
      'execution_id',
    ]);
    expect((await call('GET', `/ammc/conglomerates/${c.id}/activity`, { key: founder.key })).body).toMatchObject({
      total: 1,
      entries: [{ execution_id: mine }],
    });
  });

  it('keeps what a ledger brings back within its 32-bit totals (20,000,000 USD in all)', async () => {
    const founder = await registerAgent(server);
    expect(
      errorPaths(
        await call('POST', '/ammc/conglomerates', {
          key: founder.key,
          body: { goal: 'g', max_budget_usd: 10, exit_conditions: { profit_target_usd: 20_000_000.01 } },
        }),
      ),
    ).toEqual(['exit_conditions.profit_target_usd']);
    const c = await formIn(founder, 'OPERATING', { max_budget_usd: 1_000_000, exit_conditions: { profit_target_usd: 20_000_000 } });
    expect(errorPaths(await trade(founder.key, c.id, 1, 20_000_000.01))).toEqual(['proceeds_usd']);
    expect((await trade(founder.key, c.id, 1_000_000, 19_999_999.99)).body.conglomerate).toMatchObject({ state: 'OPERATING', balance_usd: 19_999_999.99 });
    expectProblem(await trade(founder.key, c.id, 0, 0.02), 409, 'conflict');
    const closing = await trade(founder.key, c.id, 1_000_000, 0.01);
    expect(closing.status).toBe(201);
    expect(closing.body.conglomerate).toMatchObject({ state: 'OPERATING', balance_usd: 19_000_000, realised_pnl_usd: 18_000_000 });
    expect((await call('GET', `/ammc/stats?conglomerate_id=${c.id}`, { key: founder.key })).body).toMatchObject({
      trades: 2,
      spent_usd: 2_000_000,
      proceeds_usd: 20_000_000,
    });
  });
});

describe('exit conditions', () => {
  it('dissolves an operating conglomerate in the answer of the trade that reaches its loss limit', async () => {
    const founder = await registerAgent(server);
    const c = await formIn(founder, 'OPERATING', { max_budget_usd: 200, exit_conditions: { max_loss_usd: 50 } });
    expect((await trade(founder.key, c.id, 30, 0)).body.conglomerate.state).toBe('OPERATING');
    const res = await trade(founder.key, c.id, 30, 10);
    expect(res.status).toBe(201);
    expect(res.body.conglomerate).toMatchObject({
      state: 'DISSOLVED',
      realised_pnl_usd: -50,
      balance_usd: 150,
      end_reason: 'loss limit reached',
      ended_at: clock.now().toISOString(),
    });
    expect(last(res.body.conglomerate.state_history)).toEqual({
      from: 'OPERATING',
      to: 'DISSOLVED',
      triggered_by: 'system',
      by: 'marketplace',
      reason: 'loss limit reached',
      at: clock.now().toISOString(),
    });
    expectProblem(await trade(founder.key, c.id, 1, 100), 409, 'conflict');
  });

  it('settles an operating conglomerate when its profit target is reached', async () => {
    const founder = await registerAgent(server);
    const c = await formIn(founder, 'OPERATING', { max_budget_usd: 200, exit_conditions: { max_loss_usd: 50, profit_target_usd: 20 } });
    expect((await trade(founder.key, c.id, 10, 29.99)).body.conglomerate.state).toBe('OPERATING');
    const res = await trade(founder.key, c.id, 10, 10.01);
    expect(res.body.conglomerate).toMatchObject({ state: 'SETTLED', realised_pnl_usd: 20, end_reason: 'profit target reached' });
    expect(last(res.body.conglomerate.state_history)).toMatchObject({
      from: 'OPERATING',
      to: 'SETTLED',
      triggered_by: 'system',
      by: 'marketplace',
      reason: 'profit target reached',
    });
  });

  it('past its deadline settles an operating conglomerate and dissolves a forming one; one not yet due is untouched', async () => {
    const founder = await registerAgent(server);
    const operating = await formIn(founder, 'OPERATING', { exit_conditions: { deadline: inHours(1) } });
    const forming = await formIn(founder, 'FORMING', { exit_conditions: { deadline: inHours(1) } });
    const later = await formIn(founder, 'OPERATING', { exit_conditions: { deadline: inHours(3) } });
    await applyDeadlines(server.app.services);
    expect((await read(founder.key, operating.id)).state).toBe('OPERATING');

    clock.advance(HOUR + 1_000);
    await applyDeadlines(server.app.services);
    const settled = await read(founder.key, operating.id);
    expect(settled).toMatchObject({ state: 'SETTLED', end_reason: 'deadline reached' });
    expect(last(settled.state_history)).toMatchObject({
      from: 'OPERATING',
      to: 'SETTLED',
      triggered_by: 'timer',
      by: 'marketplace',
      reason: 'deadline reached',
    });
    const dissolved = await read(founder.key, forming.id);
    expect(dissolved).toMatchObject({ state: 'DISSOLVED', end_reason: 'deadline passed before it operated' });
    expect(last(dissolved.state_history)).toMatchObject({ from: 'FORMING', to: 'DISSOLVED', triggered_by: 'timer', by: 'marketplace' });
    const untouched = await read(founder.key, later.id);
    expect(untouched.state).toBe('OPERATING');
    expect(untouched.state_history).toEqual(later.state_history);
  });
});

describe('GET /ammc/stats', () => {
  it("answers the trades, balance, profit and loss, daily returns and Sharpe ratio of a conglomerate's ledger", async () => {
    moveClockTo('2026-04-01T10:00:00Z');
    const founder = await registerAgent(server);
    const member = await registerAgent(server);
    const c = await formIn(founder, 'OPERATING', { max_budget_usd: 1000, members: [member.agentId] }); // operating on 04-01
    const ok = async (res: Awaited<ReturnType<typeof trade>>) => expect(res.status).toBe(201);
    await ok(await trade(founder.key, c.id, 100, 110)); // 04-01: +10
    clock.advance(2 * DAY); // 04-02: nothing
    await ok(await trade(member.key, c.id, 30, 25)); // 04-03: −5
    clock.advance(HOUR);
    await ok(await trade(founder.key, c.id, 20, 15)); // 04-03: −5 more
    clock.advance(DAY);
    await ok(await trade(founder.key, c.id, 20, 35)); // 04-04: +15

    // By hand, in USD (budget 1000):
    //   04-01: r = +10 / 1000                 =  0.01          (equity after: 1010)
    //   04-02: r =   0 / 1010                 =  0             (1010)
    //   04-03: r = −10 / 1010                 = −0.00990099…   (1000)
    //   04-04: r = +15 / 1000                 =  0.015         (1015)
    //   mean = (0.01 + 0 − 0.00990099 + 0.015) / 4 = 0.01509901 / 4 = 0.00377475
    //   deviations: 0.00622525, −0.00377475, −0.01367574, 0.01122525
    //   squares: 0.0000387537 + 0.0000142488 + 0.0001870259 + 0.0001260062 = 0.0003660346
    //   s² = 0.0003660346 / (4 − 1) = 0.0001220115; s = 0.0110459
    //   Sharpe = 0.00377475 / 0.0110459 × √365 = 0.3417339 × 19.1049732 = 6.5288 (4 decimals)
    const res = await call('GET', `/ammc/stats?conglomerate_id=${c.id}`, { key: member.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      conglomerates: 1,
      trades: 4,
      executions: 0,
      budget_usd: 1000,
      spent_usd: 170,
      proceeds_usd: 185,
      balance_usd: 1015,
      realised_pnl_usd: 15,
    });
    expect(res.body.daily_returns.map((d: any) => d.day)).toEqual(['2026-04-01', '2026-04-02', '2026-04-03', '2026-04-04']);
    [0.01, 0, -10 / 1010, 0.015].forEach((r, i) => expect(res.body.daily_returns[i].return).toBeCloseTo(r, 10));
    expect(res.body.daily_returns[2].return).toBeCloseTo(-0.00990099, 8);
    expect(res.body.sharpe_ratio).toBeCloseTo(6.5288, 4);
    expect(res.body.sharpe_ratio).toBe(6.5288);
  });

  it('answers no Sharpe ratio with fewer than two daily returns', async () => {
    const founder = await registerAgent(server);
    const fresh = await formIn(founder, 'OPERATING', { max_budget_usd: 100 });
    expect((await call('GET', `/ammc/stats?conglomerate_id=${fresh.id}`, { key: founder.key })).body).toMatchObject({
      trades: 0,
      daily_returns: [],
      sharpe_ratio: null,
    });
    await trade(founder.key, fresh.id, 10, 12);
    await trade(founder.key, fresh.id, 10, 13);
    const one = await call('GET', `/ammc/stats?conglomerate_id=${fresh.id}`, { key: founder.key });
    expect(one.body).toMatchObject({ trades: 2, realised_pnl_usd: 5, balance_usd: 105, sharpe_ratio: null });
    expect(one.body.daily_returns).toEqual([{ day: clock.now().toISOString().slice(0, 10), return: 0.05 }]);
  });

  it("refuses a stranger's conglomerate with 404", async () => {
    const founder = await registerAgent(server);
    const c = await form(founder);
    expectProblem(await call('GET', `/ammc/stats?conglomerate_id=${c.id}`, { key: (await registerAgent(server)).key }), 404, 'not_found');
    expectProblem(await call('GET', '/ammc/stats?conglomerate_id=cong_nope', { key: founder.key }), 404, 'not_found');
  });

  it('totals every conglomerate the caller founded or belongs to, as one pool', async () => {
    const me = await registerAgent(server);
    const other = await registerAgent(server);
    const a = await formIn(me, 'OPERATING', { max_budget_usd: 300 });
    await formIn(me, 'FORMING', { max_budget_usd: 100 });
    const b = await formIn(other, 'OPERATING', { max_budget_usd: 600, members: [me.agentId] });
    const notMine = await formIn(other, 'OPERATING', { max_budget_usd: 5000 });
    await trade(me.key, a.id, 50, 80); // +30
    await trade(other.key, b.id, 40, 10); // −30
    await trade(me.key, b.id, 10, 40); // +30
    await trade(other.key, notMine.id, 1000, 0); // not in the pool
    const res = await call('GET', '/ammc/stats', { key: me.key });
    expect(res.status).toBe(200);
    // Budgets 300 + 100 + 600 = 1000; spent 100, back 130; one day of +30 over 1000.
    expect(res.body).toMatchObject({
      conglomerates: 3,
      trades: 3,
      executions: 0,
      budget_usd: 1000,
      spent_usd: 100,
      proceeds_usd: 130,
      balance_usd: 1030,
      realised_pnl_usd: 30,
      sharpe_ratio: null,
    });
    expect(res.body.daily_returns).toEqual([{ day: clock.now().toISOString().slice(0, 10), return: 0.03 }]);
    expect((await call('GET', '/ammc/stats', { key: (await registerAgent(server)).key })).body).toMatchObject({
      conglomerates: 0,
      trades: 0,
      budget_usd: 0,
      balance_usd: 0,
      daily_returns: [],
      sharpe_ratio: null,
    });
  });
});

describe('ammc.conglomerate.state_changed', () => {
  it('goes to the founder and every member at each move', async () => {
    const founder = await registerAgent(server);
    const [m1, m2] = [await registerAgent(server), await registerAgent(server)];
    const c = await formIn(founder, 'OPERATING', { members: [m1.agentId, m2.agentId], exit_conditions: { profit_target_usd: 5 } });
    await trade(m1.key, c.id, 1, 6); // reaches the profit target: settled by the marketplace
    const events = await server.app.services.db.outboxEvent.findMany({ where: { type: 'ammc.conglomerate.state_changed' } });
    const mine = events.filter((e) => (e.data as any).conglomerate_id === c.id);
    for (const agent of [founder, m1, m2]) {
      // Written in one instant of the fake clock: ordered here by where each move leads.
      const rank = (d: any) => ['FORMING', 'OPERATING', 'SETTLED'].indexOf(d.to);
      const moves = mine
        .filter((e) => e.agentId === agent.agentId)
        .map((e) => e.data as any)
        .sort((x, y) => rank(x) - rank(y));
      expect(moves.map((d) => [d.from, d.to, d.triggered_by, d.by])).toEqual([
        [null, 'FORMING', 'external', founder.agentId],
        ['FORMING', 'OPERATING', 'external', founder.agentId],
        ['OPERATING', 'SETTLED', 'system', 'marketplace'],
      ]);
      expect(moves[2]).toMatchObject({ conglomerate_type: 'COLLABORATION', reason: 'profit target reached' });
    }
    expect(mine).toHaveLength(9);
  });
});
