// Spec §4.11 orchestration tickets (UTO) and conglomerates (AMMC), with §2's UTO ticket and AMMC records and
// §3's UTO and AMMC rows: a ticket submitted, listed, read with its state history and advanced with each
// trigger the caller gives; notification subscriptions; specialists; the AMMC agents with their source, a
// conglomerate formed and advanced, and the statistics.
import { openSse } from '../support/sse';
import { api, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer();
  call = api(server);
});
afterAll(() => server.close());

async function submit(key: string, domain = uniqueSlug('research')) {
  const res = await call('POST', '/uto/tickets', { key, body: { intent: 'Compare three tidal power studies', domain, context: { region: 'North Sea' } } });
  expect(res.status).toBe(201);
  return res.body as { id: string; state: string; domain: string };
}

const form = (key: string, body: Record<string, unknown> = {}) =>
  call('POST', '/ammc/conglomerates', { key, body: { goal: 'Make markets on ETH/USDC', max_budget_usd: 500, ...body } });

describe('§4.11 UTO tickets', () => {
  it('§3 creating a UTO ticket makes it submitted: 201 id (uto_), state, domain', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/uto/tickets', {
      key: me.key,
      body: { intent: 'Find a market maker', domain: 'defi', context: { pair: 'ETH/USDC' }, required_capabilities: ['market-making'], max_budget_usd: 250 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^uto_/), state: 'submitted', domain: 'defi' });
  });

  it('§4.11 GET /uto/tickets lists by domain and state: tickets, total', async () => {
    const me = await registerAgent(server);
    const domain = uniqueSlug('commerce');
    const a = await submit(me.key, domain);
    await submit(me.key);
    const byDomain = await call('GET', `/uto/tickets?domain=${domain}`, { key: me.key });
    expect(byDomain.status).toBe(200);
    expect(byDomain.body).toMatchObject({ total: 1, tickets: [expect.objectContaining({ id: a.id, domain })] });
    const byState = await call('GET', `/uto/tickets?domain=${domain}&state=submitted`, { key: me.key });
    expect(byState.body).toMatchObject({ total: 1, tickets: [expect.objectContaining({ id: a.id, state: 'submitted' })] });
    expect((await call('GET', `/uto/tickets?domain=${domain}&state=validated`, { key: me.key })).body.total).toBe(0);
  });

  it('§4.11 GET /uto/tickets/:id answers id, state, state_history', async () => {
    const me = await registerAgent(server);
    const t = await submit(me.key);
    const res = await call('GET', `/uto/tickets/${t.id}`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.id, state: 'submitted', state_history: [expect.objectContaining({ to: 'submitted' })] });
  });

  it.each([['system'], ['external'], ['timer']])(
    '§3 advancing a UTO ticket with target_state and triggered_by %s given moves it to the target state, history appended to state_history',
    async (trigger) => {
      const me = await registerAgent(server);
      const t = await submit(me.key);
      const res = await call('POST', `/uto/tickets/${t.id}/advance`, { key: me.key, body: { target_state: 'validated', triggered_by: trigger } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: t.id, state: 'validated' });
      const read = (await call('GET', `/uto/tickets/${t.id}`, { key: me.key })).body;
      expect(read.state_history).toHaveLength(2);
      // What the caller says triggered it, beside who made the move.
      expect(read.state_history[1]).toMatchObject({ from: 'submitted', to: 'validated', triggered_by: trigger, by: me.agentId });
    },
  );

  it('§4.11 GET /uto/events answers an SSE stream', async () => {
    const me = await registerAgent(server);
    const stream = await openSse(`${server.url}/api/v1/uto/events`, { authorization: `Bearer ${me.key}` });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    } finally {
      stream.close();
    }
  });

  it('§4.11 POST /uto/notifications/subscribe with eventTypes and deliveryType answers 201 subscriptionId (sub_)', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/uto/notifications/subscribe', {
      key: me.key,
      body: { eventTypes: ['uto.ticket.state_changed'], deliveryType: 'polling' },
    });
    expect(res.status).toBe(201);
    expect(res.body.subscriptionId).toMatch(/^sub_/);
  });

  it('§4.11 POST /uto/agents/register-specialist answers 201 agentId, domain; GET /uto/agents/specialists by domain answers specialists, total', async () => {
    const me = await registerAgent(server);
    const domain = uniqueSlug('defi');
    const res = await call('POST', '/uto/agents/register-specialist', { key: me.key, body: { domain, capabilities: ['market-making'] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ agentId: me.agentId, domain });
    const listed = await call('GET', `/uto/agents/specialists?domain=${domain}`, { key: me.key });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, specialists: [expect.objectContaining({ agentId: me.agentId, domain, capabilities: ['market-making'] })] });
  });
});

describe('§4.11 AMMC conglomerates', () => {
  it('§4.11 GET /ammc/agents answers agents, total, source, each agent with its source (no credential)', async () => {
    await registerAgent(server);
    const res = await call('GET', '/ammc/agents');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ agents: expect.any(Array), total: expect.any(Number), source: expect.any(String) });
    expect(res.body.agents.length).toBeGreaterThan(0);
    for (const agent of res.body.agents) expect(agent.source).toEqual(expect.any(String));
  });

  it('§3 forming a conglomerate makes it FORMING: 201 id (cong_), state', async () => {
    const me = await registerAgent(server);
    const res = await form(me.key, { exit_conditions: { max_loss_usd: 100 }, conglomerate_type: 'DEFI' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^cong_/), state: 'FORMING' });
  });

  it.each([[['OPERATING']], [['OPERATING', 'SETTLED']], [['DISSOLVED']], [['OPERATING', 'DISSOLVED']]])(
    '§3 advancing a conglomerate with target_state moves it to the target state: %j',
    async (path) => {
      const me = await registerAgent(server);
      const { id } = (await form(me.key)).body;
      for (const target_state of path) {
        const res = await call('POST', `/ammc/conglomerates/${id}/advance`, { key: me.key, body: { target_state } });
        expect(res.status).toBe(200);
        expect(res.body.state).toBe(target_state);
      }
    },
  );

  it('§4.11 GET /ammc/stats answers metrics: trades, balance, profit and loss, Sharpe ratio', async () => {
    const me = await registerAgent(server);
    const { id } = (await form(me.key)).body;
    await call('POST', `/ammc/conglomerates/${id}/advance`, { key: me.key, body: { target_state: 'OPERATING' } });
    await call('POST', `/ammc/conglomerates/${id}/activity`, { key: me.key, body: { kind: 'trade', cost_usd: 100, proceeds_usd: 120 } });
    const res = await call('GET', '/ammc/stats', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ trades: 1, balance_usd: 520, realised_pnl_usd: 20 });
    expect(res.body).toHaveProperty('sharpe_ratio');
  });
});
