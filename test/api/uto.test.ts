// Orchestration tickets (UTO, spec §4.11): tickets moving along one table of moves, with the trigger the
// caller gives recorded beside who made the move, matched by
// the marketplace to specialists and providers, expired past their deadline; specialists; notification
// subscriptions by webhook (signed), polling (after a cursor, each event once) and SSE (resumable), and
// the same events over GraphQL subscriptions.
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import WebSocket from 'ws';
import { expireOverdueTickets, UTO_MOVES, UTO_STATES, UTO_TRIGGERS, type UtoState } from '../../src/domain/uto/tickets';
import { matchDueTickets } from '../../src/domain/uto/matcher';
import { FakeClock } from '../support/clock';
import { assertTestCaTrusted } from '../support/https';
import { errorPaths, eventually, expectProblem } from '../support/expect';
import { startProvider, type Provider } from '../support/provider';
import { startReceiver, type Receiver } from '../support/receiver';
import { api, gql, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { openSse } from '../support/sse';

let server: TestServer;
let call: ReturnType<typeof api>;
let receiver: Receiver;
let provider: Provider;
const clock = new FakeClock();

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
  call = api(server);
  receiver = await startReceiver('/uto');
  provider = await startProvider('uto-provider');
});
afterAll(async () => {
  await server.close();
  await receiver.close();
  await provider.close();
});

/** A domain no other test uses: no specialist covers its tickets unless the test registers one. */
const domainOf = (prefix = 'dom') => uniqueSlug(prefix);

async function newTicket(key: string, body: Record<string, unknown> = {}) {
  const res = await call('POST', '/uto/tickets', { key, body: { intent: 'Rebalance the pool', domain: domainOf(), context: { pool: 'eth-usdc' }, ...body } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
}

const advance = (key: string, id: string, target_state: string, triggered_by = 'external') =>
  call('POST', `/uto/tickets/${id}/advance`, { key, body: { target_state, triggered_by } });

describe('POST /uto/tickets', () => {
  it('submits a uto_… ticket with its fields and creation in the history; names each bad field', async () => {
    const me = await registerAgent(server);
    const deadline = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const res = await call('POST', '/uto/tickets', {
      key: me.key,
      body: {
        intent: 'Find a market maker',
        domain: 'defi',
        context: { pair: 'ETH/USDC' },
        required_capabilities: ['market-making'],
        max_budget_usd: 250.5,
        deadline,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^uto_[0-9A-Za-z]{24}$/),
      state: 'submitted',
      domain: 'defi',
      context: { pair: 'ETH/USDC' },
      required_capabilities: ['market-making'],
      max_budget_usd: 250.5,
      deadline,
      owner_agent_id: me.agentId,
      state_history: [{ from: null, to: 'submitted', triggered_by: 'external', by: me.agentId }],
      matches: {},
    });
    // camelCase is read too; a ticket given no deadline gets seven days.
    const camel = await call('POST', '/uto/tickets', {
      key: me.key,
      body: { intent: 'x', domain: 'research', context: {}, requiredCapabilities: ['summarize'], maxBudgetUsd: 1 },
    });
    expect(camel.status).toBe(201);
    expect(camel.body).toMatchObject({ required_capabilities: ['summarize'], max_budget_usd: 1 });
    expect(Date.parse(camel.body.deadline) - clock.now().getTime()).toBe(7 * 86_400_000);

    expect(errorPaths(await call('POST', '/uto/tickets', { key: me.key, body: {} }))).toEqual(['context', 'domain', 'intent']);
    const bad = await call('POST', '/uto/tickets', {
      key: me.key,
      body: {
        intent: 'x',
        domain: 'Not A Domain',
        context: [1],
        required_capabilities: ['ok', 'Not Ok'],
        max_budget_usd: 1.005,
        deadline: '2001-01-01T00:00:00Z',
      },
    });
    expect(errorPaths(bad)).toEqual(['context', 'deadline', 'domain', 'max_budget_usd', 'required_capabilities.1']);
    expectProblem(await call('GET', `/uto/tickets/${res.body.id}`, { key: (await registerAgent(server)).key }), 404, 'not_found');
  });

  it('lists the caller’s tickets filtered by domain and state, with the total', async () => {
    const me = await registerAgent(server);
    const domain = domainOf();
    const a = await newTicket(me.key, { domain });
    await newTicket(me.key, { domain });
    await newTicket(me.key);
    await advance(me.key, a.id, 'cancelled');
    const all = await call('GET', '/uto/tickets', { key: me.key });
    expect(all.body.total).toBe(3);
    const inDomain = await call('GET', `/uto/tickets?domain=${domain}`, { key: me.key });
    expect(inDomain.body.total).toBe(2);
    const cancelled = await call('GET', `/uto/tickets?domain=${domain}&state=cancelled`, { key: me.key });
    expect(cancelled.body).toMatchObject({ total: 1, tickets: [{ id: a.id, state: 'cancelled' }] });
    expect(errorPaths(await call('GET', '/uto/tickets?state=nowhere', { key: me.key }))).toEqual(['state']);
    expect((await call('GET', '/uto/tickets', { key: (await registerAgent(server)).key })).body.total).toBe(0);
  });
});

describe('the table of moves', () => {
  /** The owner's moves that bring a new ticket to `state` (`expired` is the marketplace's: the deadline passes). */
  const PATHS: Record<UtoState, UtoState[]> = {
    submitted: [],
    validated: ['validated'],
    matched: ['validated', 'matched'],
    in_progress: ['validated', 'matched', 'in_progress'],
    completed: ['validated', 'matched', 'in_progress', 'completed'],
    failed: ['validated', 'matched', 'in_progress', 'failed'],
    cancelled: ['cancelled'],
    expired: [],
  };

  /** Runs the marketplace's deadline sweep as if `ms` had passed. */
  async function expireAfter(ms: number) {
    clock.advance(ms);
    try {
      while ((await expireOverdueTickets(server.app.services)) > 0);
    } finally {
      clock.advance(-ms);
    }
  }

  async function ticketIn(key: string, state: UtoState) {
    const t = state === 'expired' ? await newTicket(key, { deadline: new Date(clock.now().getTime() + 60_000).toISOString() }) : await newTicket(key);
    for (const to of PATHS[state]) {
      const res = await advance(key, t.id, to);
      if (res.status !== 200) throw new Error(`${state}: ${res.text}`);
    }
    if (state === 'expired') await expireAfter(120_000);
    return t.id as string;
  }

  it.each(UTO_STATES.map((s) => [s]))(
    'from %s: every listed move succeeds with each trigger, recorded with the owner as its maker; other moves answer 409 and change nothing',
    async (from) => {
      const me = await registerAgent(server);
      const stuck = await ticketIn(me.key, from);
      const before = (await call('GET', `/uto/tickets/${stuck}`, { key: me.key })).body;
      expect(before.state).toBe(from);
      for (const to of UTO_STATES) {
        for (const trigger of UTO_TRIGGERS) {
          if (UTO_MOVES[from].includes(to)) {
            const id = await ticketIn(me.key, from);
            const res = await advance(me.key, id, to, trigger);
            expect({ from, to, trigger, status: res.status, state: res.body.state }).toEqual({ from, to, trigger, status: 200, state: to });
            expect(res.body.state_history.at(-1)).toMatchObject({ from, to, triggered_by: trigger, by: me.agentId });
            expect(res.body.state_history).toHaveLength(PATHS[from].length + 2);
          } else {
            const res = await advance(me.key, stuck, to, trigger);
            expect({ from, to, trigger, status: res.status }).toEqual({ from, to, trigger, status: 409 });
            expectProblem(res, 409, 'conflict');
          }
        }
      }
      const after = (await call('GET', `/uto/tickets/${stuck}`, { key: me.key })).body;
      expect(after).toEqual(before);
    },
  );

  it('answers 400 for an unknown state or trigger, naming the field, and 404 for another agent’s ticket', async () => {
    const me = await registerAgent(server);
    const t = await newTicket(me.key);
    expect(errorPaths(await advance(me.key, t.id, 'somewhere', 'someone'))).toEqual(['target_state', 'triggered_by']);
    expect(errorPaths(await call('POST', `/uto/tickets/${t.id}/advance`, { key: me.key, body: {} }))).toEqual(['target_state', 'triggered_by']);
    // camelCase is read too.
    expect((await call('POST', `/uto/tickets/${t.id}/advance`, { key: me.key, body: { targetState: 'validated', triggeredBy: 'external' } })).body.state).toBe(
      'validated',
    );
    expectProblem(await advance((await registerAgent(server)).key, t.id, 'cancelled'), 404, 'not_found');
  });

  it('takes the trigger the owner gives on every surface, and the history tells the owner’s moves from the marketplace’s', async () => {
    const me = await registerAgent(server);
    const inbox = await call('POST', '/uto/notifications/subscribe', {
      key: me.key,
      body: { eventTypes: ['uto.ticket.state_changed'], deliveryType: 'polling' },
    });
    // An owner expiring its own ticket "by the deadline": taken, and shown as the owner's move.
    const t = await newTicket(me.key, { deadline: new Date(clock.now().getTime() + 60_000).toISOString() });
    const byTimer = await advance(me.key, t.id, 'expired', 'timer');
    expect(byTimer.status).toBe(200);
    expect(byTimer.body.state_history.at(-1)).toMatchObject({ from: 'submitted', to: 'expired', triggered_by: 'timer', by: me.agentId });
    // camelCase, and GraphQL, take `system` too.
    const u = await newTicket(me.key, { deadline: new Date(clock.now().getTime() + 60_000).toISOString() });
    const camel = await call('POST', `/uto/tickets/${u.id}/advance`, { key: me.key, body: { targetState: 'validated', triggeredBy: 'system' } });
    expect(camel.body).toMatchObject({ state: 'validated', state_history: [{}, { triggered_by: 'system', by: me.agentId }] });
    const v = await newTicket(me.key, { deadline: new Date(clock.now().getTime() + 60_000).toISOString() });
    const viaGraphql = await gql(
      server,
      'mutation($id: String!, $i: AdvanceUtoTicketInput!) { advanceUtoTicket(id: $id, input: $i) { state stateHistory { triggeredBy by } } }',
      { id: v.id, i: { targetState: 'cancelled', triggeredBy: 'timer' } },
      me.key,
    );
    expect(viaGraphql.body.data.advanceUtoTicket).toEqual({
      state: 'cancelled',
      stateHistory: [
        { triggeredBy: 'external', by: me.agentId },
        { triggeredBy: 'timer', by: me.agentId },
      ],
    });
    // The marketplace's own timer move, once the deadline has passed, is the marketplace's.
    await server.app.services.utoMatcher!.settled();
    await expireAfter(120_000);
    const expired = (await call('GET', `/uto/tickets/${u.id}`, { key: me.key })).body;
    expect(expired.state_history.at(-1)).toMatchObject({ from: 'validated', to: 'expired', triggered_by: 'timer', by: 'marketplace' });
    // The events carry both, as the history does.
    const events = (await call('GET', `/uto/notifications/${inbox.body.subscriptionId}/events`, { key: me.key })).body.events.map((e: any) => e.data);
    expect(events.map((d: any) => [d.ticket_id, d.to, d.triggered_by, d.by])).toEqual([
      [t.id, 'expired', 'timer', me.agentId],
      [u.id, 'validated', 'system', me.agentId],
      [v.id, 'cancelled', 'timer', me.agentId],
      [u.id, 'expired', 'timer', 'marketplace'],
    ]);
  });
});

describe('matching and deadlines', () => {
  it('matches a validated ticket to a specialist of its domain whose capabilities cover it, by system, as the marketplace', async () => {
    const me = await registerAgent(server);
    const specialist = await registerAgent(server);
    const other = await registerAgent(server);
    const domain = domainOf('match');
    const reg = await call('POST', '/uto/agents/register-specialist', { key: specialist.key, body: { domain, capabilities: ['audit', 'review'] } });
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({ agentId: specialist.agentId, domain, capabilities: ['audit', 'review'] });
    // Another specialist of the domain that lacks a required capability is not matched.
    await call('POST', '/uto/agents/register-specialist', { key: other.key, body: { domain, capabilities: ['audit'] } });
    const t = await newTicket(me.key, { domain, required_capabilities: ['audit', 'review'] });
    await advance(me.key, t.id, 'validated');
    const matched = await eventually(
      () => call('GET', `/uto/tickets/${t.id}`, { key: me.key }),
      (r) => r.body.state === 'matched',
    );
    expect(matched.body.state).toBe('matched');
    expect(matched.body.matches.specialists.map((s: { agent_id: string }) => s.agent_id)).toEqual([specialist.agentId]);
    expect(matched.body.state_history.at(-1)).toMatchObject({ from: 'validated', to: 'matched', triggered_by: 'system', by: 'marketplace' });
  });

  it('matches to providers found by resolve when each required capability has one, and waits otherwise until a specialist registers', async () => {
    const me = await registerAgent(server);
    const capability = uniqueSlug('uto-cap');
    const owner = await registerAgent(server);
    const service = await call('POST', '/services/register', {
      key: owner.key,
      body: { name: 'UTO provider', endpoint: provider.url, capabilities: [capability], description: 'Answers tickets', pricing_model: 'free' },
    });
    expect(service.status).toBe(201);
    const byProvider = await newTicket(me.key, { required_capabilities: [capability] });
    await advance(me.key, byProvider.id, 'validated');
    const matched = await eventually(
      () => call('GET', `/uto/tickets/${byProvider.id}`, { key: me.key }),
      (r) => r.body.state === 'matched',
    );
    expect(matched.body.matches.providers).toEqual([
      expect.objectContaining({ capability, service_id: service.body.service_id, provider_agent_id: owner.agentId }),
    ]);

    const domain = domainOf('late');
    const waiting = await newTicket(me.key, { domain, required_capabilities: [uniqueSlug('nobody-offers')] });
    await advance(me.key, waiting.id, 'validated');
    await server.app.services.utoMatcher!.settled();
    await matchDueTickets(server.app.services);
    expect((await call('GET', `/uto/tickets/${waiting.id}`, { key: me.key })).body.state).toBe('validated');
    const late = await registerAgent(server);
    await call('POST', '/uto/agents/register-specialist', { key: late.key, body: { domain, capabilities: waiting.required_capabilities } });
    const now = await eventually(
      () => call('GET', `/uto/tickets/${waiting.id}`, { key: me.key }),
      (r) => r.body.state === 'matched',
    );
    expect(now.body.matches.specialists).toEqual([expect.objectContaining({ agent_id: late.agentId })]);
  });

  it('expires open tickets past their deadline by timer, and leaves the others', async () => {
    const me = await registerAgent(server);
    const soon = await newTicket(me.key, { deadline: new Date(clock.now().getTime() + 60_000).toISOString() });
    const later = await newTicket(me.key, { deadline: new Date(clock.now().getTime() + 3_600_000).toISOString() });
    const done = await newTicket(me.key, { deadline: new Date(clock.now().getTime() + 60_000).toISOString() });
    await advance(me.key, done.id, 'cancelled');
    await advance(me.key, soon.id, 'validated');
    const read = async (id: string) => (await call('GET', `/uto/tickets/${id}`, { key: me.key })).body;
    // The matcher may hold the validated ticket for a moment (expiry skips locked rows, and the next tick
    // takes them): expire until it has gone.
    clock.advance(120_000);
    let expired;
    try {
      expired = await eventually(
        async () => {
          while ((await expireOverdueTickets(server.app.services)) > 0);
          return read(soon.id);
        },
        (t) => t.state === 'expired',
      );
    } finally {
      clock.advance(-120_000);
    }
    expect(expired.state).toBe('expired');
    expect(expired.state_history.at(-1)).toMatchObject({
      from: 'validated',
      to: 'expired',
      triggered_by: 'timer',
      by: 'marketplace',
      note: 'past its deadline',
    });
    expect((await read(later.id)).state).toBe('submitted');
    expect((await read(done.id)).state).toBe('cancelled');
  });
});

describe('specialists', () => {
  it('registers again for a domain by replacing the capabilities, and lists by domain with the total', async () => {
    const a = await registerAgent(server);
    const b = await registerAgent(server);
    const domain = domainOf('spec');
    await call('POST', '/uto/agents/register-specialist', { key: a.key, body: { domain, capabilities: ['one'] } });
    const again = await call('POST', '/uto/agents/register-specialist', { key: a.key, body: { domain, capabilities: ['two', 'three'] } });
    expect(again.status).toBe(201);
    expect(again.body.capabilities).toEqual(['two', 'three']);
    await call('POST', '/uto/agents/register-specialist', { key: b.key, body: { domain, capabilities: ['one'] } });
    const list = await call('GET', `/uto/agents/specialists?domain=${domain}`, { key: a.key });
    expect(list.body.total).toBe(2);
    expect(list.body.specialists.map((s: { agentId: string }) => s.agentId).sort()).toEqual([a.agentId, b.agentId].sort());
    expect(list.body.specialists.find((s: { agentId: string }) => s.agentId === a.agentId)).toMatchObject({
      domain,
      capabilities: ['two', 'three'],
      tier: expect.any(String),
    });
    expect(
      errorPaths(await call('POST', '/uto/agents/register-specialist', { key: a.key, body: { domain: 'Bad Domain', capabilities: ['Not One'] } })),
    ).toEqual(['capabilities.0', 'domain']);
  });
});

describe('notifications', () => {
  it('refuses a subscription without what its delivery needs, naming the field', async () => {
    const me = await registerAgent(server);
    const sub = (body: Record<string, unknown>) => call('POST', '/uto/notifications/subscribe', { key: me.key, body });
    expect(errorPaths(await sub({}))).toEqual(['deliveryType', 'eventTypes']);
    expect(errorPaths(await sub({ eventTypes: ['uto.ticket.created', 'ticket.created'], deliveryType: 'pigeon' }))).toEqual(['deliveryType', 'eventTypes.1']);
    expect(errorPaths(await sub({ eventTypes: ['*'], deliveryType: 'webhook' }))).toEqual(['webhookUrl']);
    expect(errorPaths(await sub({ eventTypes: ['*'], deliveryType: 'webhook', webhookUrl: 'http://example.com/hook' }))).toEqual(['webhookUrl']);
    expect(errorPaths(await sub({ eventTypes: ['*'], deliveryType: 'polling', webhookUrl: 'https://example.com/hook' }))).toEqual(['webhookUrl']);
  });

  it('POSTs each wanted event to a webhook subscription, signed (standardwebhooks), only of its types and domain', async () => {
    const me = await registerAgent(server);
    const domain = domainOf('hook');
    const res = await call('POST', '/uto/notifications/subscribe', {
      key: me.key,
      body: { eventTypes: ['uto.ticket.state_changed'], deliveryType: 'webhook', webhookUrl: receiver.url, domain },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      subscriptionId: expect.stringMatching(/^sub_[0-9A-Za-z]{24}$/),
      secret: expect.stringMatching(/^whsec_/),
      subscription: { deliveryType: 'webhook', domain, status: 'active' },
    });
    const mine = await newTicket(me.key, { domain });
    await advance(me.key, mine.id, 'validated');
    await advance(me.key, mine.id, 'cancelled');
    // Another domain's ticket, and the creation, are not wanted.
    const elsewhere = await newTicket(me.key);
    await advance(me.key, elsewhere.id, 'cancelled');
    const ours = () => receiver.received.filter((r) => [mine.id, elsewhere.id].includes(r.json?.data?.ticket_id));
    await eventually(
      async () => ours().length,
      (n) => n >= 2,
    );
    // Deliveries are written with their events, and every send under way has ended: nothing more can come.
    await server.app.services.dispatcher.settled();
    const verifier = new StandardWebhook(res.body.secret.replace(/^whsec_/, ''));
    const events = ours().map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as any);
    // Deliveries are concurrent: a receiver orders them by the event (here: by the move).
    expect(events.map((e) => [e.type, e.data.ticket_id, e.data.to]).sort()).toEqual([
      ['uto.ticket.state_changed', mine.id, 'cancelled'],
      ['uto.ticket.state_changed', mine.id, 'validated'],
    ]);
    // Cancelled: nothing more arrives.
    expect((await call('DELETE', `/uto/notifications/${res.body.subscriptionId}`, { key: me.key })).body.status).toBe('cancelled');
    expectProblem(await call('DELETE', `/uto/notifications/${res.body.subscriptionId}`, { key: me.key }), 409, 'conflict');
  });

  it('gives a polling subscriber every event after its cursor exactly once, in order, from when it subscribed', async () => {
    const me = await registerAgent(server);
    const before = await newTicket(me.key);
    const sub = await call('POST', '/uto/notifications/subscribe', { key: me.key, body: { eventTypes: ['*'], deliveryType: 'polling' } });
    expect(sub.body.pollPath).toBe(`/uto/notifications/${sub.body.subscriptionId}/events`);
    const poll = (query = '') => call('GET', `${sub.body.pollPath}${query}`, { key: me.key });
    const t = await newTicket(me.key);
    await advance(me.key, t.id, 'validated');
    await advance(me.key, before.id, 'cancelled');
    const first = await poll('?limit=2');
    expect(first.body.events.map((e: any) => [e.type, e.ticket_id])).toEqual([
      ['uto.ticket.created', t.id],
      ['uto.ticket.state_changed', t.id],
    ]);
    expect(first.body.has_more).toBe(true);
    expect(first.body.cursor).toBe(first.body.events[1].sequence);
    // Not acknowledged yet: the same again.
    expect((await poll('?limit=2')).body.events.map((e: any) => e.sequence)).toEqual(first.body.events.map((e: any) => e.sequence));
    const second = await poll(`?after=${first.body.cursor}`);
    expect(second.body.events.map((e: any) => [e.type, e.ticket_id, e.data.to])).toEqual([['uto.ticket.state_changed', before.id, 'cancelled']]);
    expect(second.body.has_more).toBe(false);
    // Acknowledged: reading on from the stored cursor gives only what follows.
    await advance(me.key, t.id, 'cancelled');
    const third = await poll(`?after=${second.body.cursor}`);
    expect(third.body.events.map((e: any) => e.data.to)).toEqual(['cancelled']);
    const sequences = [...first.body.events, ...second.body.events, ...third.body.events].map((e: any) => e.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(4);
    expect((await poll()).body.events.map((e: any) => e.sequence)).toEqual(third.body.events.map((e: any) => e.sequence));
    expectProblem(await call('GET', `${sub.body.pollPath}`, { key: (await registerAgent(server)).key }), 404, 'not_found');
    const sse = await call('POST', '/uto/notifications/subscribe', { key: me.key, body: { eventTypes: ['*'], deliveryType: 'sse' } });
    expectProblem(await call('GET', `/uto/notifications/${sse.body.subscriptionId}/events`, { key: me.key }), 409, 'conflict');
  });

  it('streams the caller’s ticket events over SSE, resumable with Last-Event-ID, filtered by domain or by an sse subscription', async () => {
    const me = await registerAgent(server);
    const domain = domainOf('sse');
    const auth = { authorization: `Bearer ${me.key}` };
    const all = await openSse(`${server.url}/api/v1/uto/events`, auth);
    const onlyDomain = await openSse(`${server.url}/api/v1/uto/events?domain=${domain}`, auth);
    const sub = await call('POST', '/uto/notifications/subscribe', { key: me.key, body: { eventTypes: ['uto.ticket.created'], deliveryType: 'sse' } });
    const bySub = await openSse(`${server.url}/api/v1${sub.body.streamPath}`, auth);
    expect(all.status).toBe(200);
    await eventually(
      async () => server.app.services.utoStreams.readerCount,
      (n) => n >= 3,
      2_000,
    );
    const a = await newTicket(me.key, { domain });
    await advance(me.key, a.id, 'validated');
    const b = await newTicket(me.key);
    const events = await all.waitFor(3);
    expect(events.map((e) => [e.event, JSON.parse(e.data).ticket_id])).toEqual([
      ['uto.ticket.created', a.id],
      ['uto.ticket.state_changed', a.id],
      ['uto.ticket.created', b.id],
    ]);
    expect(events.map((e) => Number(e.id))).toEqual([1, 2, 3]);
    expect((await onlyDomain.waitFor(2)).map((e) => JSON.parse(e.data).ticket_id)).toEqual([a.id, a.id]);
    expect((await bySub.waitFor(2)).map((e) => [e.event, JSON.parse(e.data).ticket_id])).toEqual([
      ['uto.ticket.created', a.id],
      ['uto.ticket.created', b.id],
    ]);
    all.close();
    onlyDomain.close();
    bySub.close();
    // Missed while away: replayed after the last id seen, then live.
    await advance(me.key, b.id, 'cancelled');
    const resumed = await openSse(`${server.url}/api/v1/uto/events`, { ...auth, 'last-event-id': events[2].id! });
    await advance(me.key, a.id, 'cancelled');
    const more = await resumed.waitFor(2);
    expect(more.map((e) => [Number(e.id), JSON.parse(e.data).ticket_id, JSON.parse(e.data).data.to])).toEqual([
      [4, b.id, 'cancelled'],
      [5, a.id, 'cancelled'],
    ]);
    resumed.close();
    // Someone else's subscription is not found.
    const stranger = await registerAgent(server);
    const refused = await openSse(`${server.url}/api/v1${sub.body.streamPath}`, { authorization: `Bearer ${stranger.key}` });
    expect(refused.status).toBe(404);
  });

  it('carries the same events over GraphQL subscriptions (graphql-ws and graphql-sse), filtered by domain', async () => {
    const me = await registerAgent(server);
    const domain = domainOf('gql');
    const query = 'subscription($domain: String) { utoEvents(domain: $domain) { sequence type ticketId domain data } }';
    const auth = { authorization: `Bearer ${me.key}` };
    const ws = createWsClient({ url: `${server.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: auth, retryAttempts: 0 });
    const sse = createSseClient({ url: `${server.url}/graphql/stream`, headers: auth, retryAttempts: 0 });
    const viaWs: any[] = [];
    const viaSse: any[] = [];
    const stopWs = ws.subscribe({ query, variables: { domain } }, { next: (v) => viaWs.push(v.data?.utoEvents), error: () => {}, complete: () => {} });
    const stopSse = sse.subscribe({ query, variables: { domain } }, { next: (v) => viaSse.push(v.data?.utoEvents), error: () => {}, complete: () => {} });
    await eventually(
      async () => server.app.services.utoStreams.readerCount,
      (n) => n >= 2,
      2_000,
    );
    expect(server.app.services.utoStreams.readerCount).toBe(2);
    const t = await newTicket(me.key, { domain });
    await newTicket(me.key);
    await advance(me.key, t.id, 'validated');
    await eventually(
      async () => [viaWs.length, viaSse.length],
      ([w, s]) => w >= 2 && s >= 2,
    );
    const expected = [
      { type: 'uto.ticket.created', ticketId: t.id, domain },
      { type: 'uto.ticket.state_changed', ticketId: t.id, domain },
    ];
    expect(viaWs.map(({ type, ticketId, domain: d }) => ({ type, ticketId, domain: d }))).toEqual(expected);
    expect(viaSse.map(({ type, ticketId, domain: d }) => ({ type, ticketId, domain: d }))).toEqual(expected);
    stopWs();
    stopSse();
    await ws.dispose();
    sse.dispose();
    await eventually(
      async () => server.app.services.utoStreams.readerCount,
      (n) => n === 0,
    );
    expect(server.app.services.utoStreams.readerCount).toBe(0);
  });
});
