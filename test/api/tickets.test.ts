// Support tickets (spec §4.3 support-ticket, §4.5, §6.5): created through execute with ST-<n> keys from
// 1001, read and moved by the creator and the target service's owner only, from any status to any other,
// comments, forwarding to a service's registered endpoint, callbacks on every change,
// the other ticketing built-ins and trust-score, and a ticket's live events over WebSocket.
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { api, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { errorPaths, expectProblem, within } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startReceiver, type Receiver } from '../support/receiver';

let server: TestServer;
let call: ReturnType<typeof api>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  // Retries a moment apart, so that a forward refused once is seen delivered on its next attempt.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', DELIVERY_POLL_MS: '20', DELIVERY_RETRY_SCHEDULE: '0.05,0.05' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const ticketInput = (overrides: Record<string, unknown> = {}) => ({
  type: 'bug',
  subject: 'Summaries come back empty',
  description: 'Since this morning every summary is an empty string.',
  priority: 'high',
  agentName: 'reporter-bot',
  ...overrides,
});

async function openTicket(key: string, overrides: Record<string, unknown> = {}) {
  const res = await call('POST', '/execute', { key, body: { capability: 'support-ticket', input: ticketInput(overrides) } });
  if (res.status !== 200) throw new Error(`support-ticket failed: ${res.status} ${res.text}`);
  return res.body;
}

/** A provider agent with a service, for tickets to target. */
async function serviceOwner() {
  const owner = await registerAgent(server);
  const svc = await call('POST', '/services/register', {
    key: owner.key,
    body: {
      name: 'Ticketed service',
      endpoint: 'https://provider.example.com/run',
      capabilities: [uniqueSlug('tk')],
      description: 'A service tickets are about',
      pricing_model: 'free',
    },
  });
  return { owner, serviceKey: svc.body.service_key as string, serviceId: svc.body.service_id as string };
}

describe('execute support-ticket', () => {
  it('opens a ticket with an ST- key from 1001 on, served and recorded by the marketplace itself', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/execute', { key: me.key, body: { capability: 'support-ticket', input: ticketInput() } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'success',
      result: { ticket_key: expect.stringMatching(/^ST-\d+$/), status: 'open', created_at: expect.any(String) },
      provider: { service_id: null, service_key: 'marketplace', name: 'Agent Capability Marketplace', reputation: 100 },
      transaction: { cost_cents: 0 },
      attempts: [{ service_key: 'marketplace', outcome: 'success' }],
    });
    const n = Number(res.body.result.ticket_key.slice(3));
    expect(n).toBeGreaterThanOrEqual(1001);
    const next = await openTicket(me.key);
    expect(Number(next.result.ticket_key.slice(3))).toBeGreaterThan(n);
    expect((await call('GET', '/my/executions', { key: me.key })).body.total).toBe(2);
  });

  it('names each bad field of the input, under input', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/execute', {
      key: me.key,
      body: {
        capability: 'support-ticket',
        input: { type: 'complaint', description: '', priority: 'urgent', callback_url: 'http://example.com/cb', target_service: 'svc_nope' },
      },
    });
    expectProblem(res, 400, 'validation_failed');
    // A missing field is named as the capability's schema spells it (snake_case; agentName is read too).
    expect(errorPaths(res)).toEqual(['input.agent_name', 'input.callback_url', 'input.description', 'input.priority', 'input.subject', 'input.type']);
    const unknownTarget = await call('POST', '/execute', {
      key: me.key,
      body: { capability: 'support-ticket', input: ticketInput({ target_service: 'svc_doesnotexist0000000000' }) },
    });
    expect(errorPaths(unknownTarget)).toEqual(['input.target_service']);
    expect((await call('GET', '/tickets', { key: me.key })).body.total).toBe(0);
  });

  it('reads the input in either spelling of each field, as every request field is read', async () => {
    const me = await registerAgent(server);
    const { serviceKey } = await serviceOwner();
    const { agentName: _name, ...rest } = ticketInput();
    const res = await call('POST', '/execute', {
      key: me.key,
      body: { capability: 'support-ticket', input: { ...rest, agent_name: 'snake-bot', targetService: serviceKey } },
    });
    expect(res.status).toBe(200);
    const status = await call('POST', '/execute', { key: me.key, body: { capability: 'ticket-status', input: { ticketKey: res.body.result.ticket_key } } });
    expect(status.body.result).toMatchObject({ ticket_key: res.body.result.ticket_key, target_service: serviceKey });
    expect((await call('GET', `/tickets/${res.body.result.ticket_key}`, { key: me.key })).body.agentName).toBe('snake-bot');
    const twice = await call('POST', '/execute', { key: me.key, body: { capability: 'support-ticket', input: { ...rest, agentName: 'a', agent_name: 'b' } } });
    expectProblem(twice, 400, 'validation_failed');
    expect(errorPaths(twice)).toEqual(['input.agent_name']);
  });
});

describe('GET /tickets/:ticketKey and its moves', () => {
  it('shows the ticket to its creator, and to nobody else', async () => {
    const me = await registerAgent(server);
    const { result } = await openTicket(me.key);
    const res = await call('GET', `/tickets/${result.ticket_key}`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ticket_key: result.ticket_key,
      type: 'bug',
      subject: 'Summaries come back empty',
      status: 'open',
      priority: 'high',
      agentName: 'reporter-bot',
      created_by: me.agentId,
      comments: [],
      history: [{ from: null, to: 'open', actor_kind: 'agent', actor_id: me.agentId }],
    });
    const stranger = await registerAgent(server);
    expectProblem(await call('GET', `/tickets/${result.ticket_key}`, { key: stranger.key }), 404, 'not_found');
    expectProblem(await call('GET', '/tickets/ST-999999999', { key: me.key }), 404, 'not_found');
    expectProblem(await call('GET', '/tickets/not-a-key', { key: me.key }), 404, 'not_found');
  });

  it('moves from any status to any other, keeps the resolution and history; the status it has changes nothing', async () => {
    const cb = await receiver();
    const me = await registerAgent(server);
    const { result } = await openTicket(me.key, { callback_url: cb.url });
    const move = (body: unknown) => call('PATCH', `/tickets/${result.ticket_key}/status`, { key: me.key, body });
    const working = await move({ status: 'in_progress' });
    expect(working.status).toBe(200);
    expect(working.body).toEqual({ ticket_key: result.ticket_key, status: 'in_progress', resolution: null, updated_at: expect.any(String) });
    // The status it already has: 200, the ticket as it is, nothing recorded or sent.
    const same = await move({ status: 'in_progress' });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(working.body);
    expect((await move({ status: 'resolved', resolution: 'Fixed the tokenizer' })).body).toMatchObject({
      status: 'resolved',
      resolution: 'Fixed the tokenizer',
    });
    // Back from resolved to waiting, closed, and reopened straight to in_progress: the moves the lifecycle's order used to refuse.
    expect((await move({ status: 'waiting' })).body.status).toBe('waiting');
    expect((await move({ status: 'closed' })).body.status).toBe('closed');
    expect((await move({ status: 'in_progress' })).body.status).toBe('in_progress');
    // The same status with a new resolution stores it, recorded and sent like a move.
    expect((await move({ status: 'in_progress', resolution: 'Reopened: it came back' })).body).toMatchObject({
      status: 'in_progress',
      resolution: 'Reopened: it came back',
    });
    expect((await move({ status: 'in_progress', resolution: 'Reopened: it came back' })).status).toBe(200);
    expect(errorPaths(await move({ status: 'done' }))).toEqual(['status']);
    expect(errorPaths(await move({}))).toEqual(['status']);
    const ticket = await call('GET', `/tickets/${result.ticket_key}`, { key: me.key });
    expect(ticket.body.history.map((h: any) => `${h.from}>${h.to}`)).toEqual([
      'null>open',
      'open>in_progress',
      'in_progress>resolved',
      'resolved>waiting',
      'waiting>closed',
      'closed>in_progress',
      'in_progress>in_progress',
    ]);
    expect(ticket.body.history.map((h: any) => h.note)).toEqual([null, null, 'Fixed the tokenizer', null, null, null, 'Reopened: it came back']);
    expect(ticket.body.resolution).toBe('Reopened: it came back');
    // The creation and six changes reached the callback; the two that changed nothing sent nothing.
    const got = await cb.waitFor(7);
    await server.app.services.dispatcher.settled();
    expect(cb.received.map((g) => `${g.json.data.previous_status ?? null}>${g.json.data.status}`).sort()).toEqual(
      ['null>open', 'open>in_progress', 'in_progress>resolved', 'resolved>waiting', 'waiting>closed', 'closed>in_progress', 'in_progress>in_progress'].sort(),
    );
    expect(got).toHaveLength(7);
  });

  it('takes comments from the creator and the target service owner', async () => {
    const me = await registerAgent(server);
    const { owner, serviceKey } = await serviceOwner();
    const { result } = await openTicket(me.key, { target_service: serviceKey });
    const mine = await call('POST', `/tickets/${result.ticket_key}/comments`, { key: me.key, body: { content: 'Still happening' } });
    expect(mine.status).toBe(201);
    expect(mine.body).toEqual({
      ticket_key: result.ticket_key,
      comment_id: expect.any(String),
      content: 'Still happening',
      author: me.name,
      created_at: expect.any(String),
    });
    const theirs = await call('POST', `/tickets/${result.ticket_key}/comments`, { key: owner.key, body: { content: 'Looking into it' } });
    expect(theirs.status).toBe(201);
    expect((await call('PATCH', `/tickets/${result.ticket_key}/status`, { key: owner.key, body: { status: 'in_progress' } })).status).toBe(200);
    const ticket = await call('GET', `/tickets/${result.ticket_key}`, { key: owner.key });
    expect(ticket.body.comments.map((c: any) => c.content)).toEqual(['Still happening', 'Looking into it']);
    expect(ticket.body.callback_url).toBeNull();
    expect(errorPaths(await call('POST', `/tickets/${result.ticket_key}/comments`, { key: me.key, body: { content: '  ' } }))).toEqual(['content']);
    const stranger = await registerAgent(server);
    expectProblem(await call('POST', `/tickets/${result.ticket_key}/comments`, { key: stranger.key, body: { content: 'me too' } }), 404, 'not_found');
    expectProblem(await call('PATCH', `/tickets/${result.ticket_key}/status`, { key: stranger.key, body: { status: 'closed' } }), 404, 'not_found');
    const owners = await call('GET', '/tickets', { key: owner.key });
    expect(owners.body.tickets.map((t: any) => t.ticket_key)).toEqual([result.ticket_key]);
  });
});

describe('endpoints and callbacks', () => {
  it("forwards a ticket to its target service's endpoint, signed with the endpoint's secret", async () => {
    const { owner, serviceKey } = await serviceOwner();
    const inbox = await receiver();
    const reg = await call('POST', '/tickets/register-endpoint', {
      key: owner.key,
      body: { service_key: serviceKey, ticket_receive_url: inbox.url, name: 'Helpdesk' },
    });
    expect(reg.status).toBe(201);
    expect(reg.body).toEqual({
      registered: true,
      service_key: serviceKey,
      ticket_receive_url: inbox.url,
      name: 'Helpdesk',
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = await call('GET', '/tickets/endpoints', { key: owner.key });
    expect(listed.body.endpoints).toEqual([
      { service_key: serviceKey, ticket_receive_url: inbox.url, name: 'Helpdesk', created_at: expect.any(String), updated_at: expect.any(String) },
    ]);
    expect(listed.text).not.toContain(reg.body.secret);
    const me = await registerAgent(server);
    const { result } = await openTicket(me.key, { target_service: serviceKey });
    const [got] = await inbox.waitFor(1);
    expect(got.json).toMatchObject({
      type: 'ticket.created',
      data: { ticket_key: result.ticket_key, target_service: serviceKey, subject: 'Summaries come back empty', created_by: me.agentId },
    });
    expect(new StandardWebhook(reg.body.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(got.json);
  });

  it('forwards each status move and comment of a ticket to the endpoint too, in order, signed and retried like the creation', async () => {
    const { owner, serviceKey } = await serviceOwner();
    const inbox = await receiver();
    const reg = await call('POST', '/tickets/register-endpoint', { key: owner.key, body: { service_key: serviceKey, ticket_receive_url: inbox.url } });
    const me = await registerAgent(server);
    const { result } = await openTicket(me.key, { target_service: serviceKey });
    await inbox.waitFor(1);
    // The endpoint refuses the first forward of the move once: it comes again on the next attempt.
    inbox.respond(503);
    expect(
      (await call('PATCH', `/tickets/${result.ticket_key}/status`, { key: owner.key, body: { status: 'in_progress', resolution: 'Looking into it' } })).status,
    ).toBe(200);
    await inbox.waitFor(3);
    // One at a time, so that the order they arrive in is the order they happened in.
    expect((await call('POST', `/tickets/${result.ticket_key}/comments`, { key: me.key, body: { content: 'Still empty here' } })).status).toBe(201);
    await inbox.waitFor(4);
    expect((await call('POST', `/tickets/${result.ticket_key}/comments`, { key: owner.key, body: { content: 'Fixed in the next release' } })).status).toBe(201);
    await inbox.waitFor(5);
    expect((await call('PATCH', `/tickets/${result.ticket_key}/status`, { key: me.key, body: { status: 'closed' } })).status).toBe(200);
    const got = await inbox.waitFor(6);
    expect(got.map((g) => [g.json.type, g.status])).toEqual([
      ['ticket.created', 200],
      ['ticket.updated', 503],
      ['ticket.updated', 200],
      ['ticket.commented', 200],
      ['ticket.commented', 200],
      ['ticket.updated', 200],
    ]);
    // The refused forward came again as the same event, with the same id.
    expect(got[2].headers['webhook-id']).toBe(got[1].headers['webhook-id']);
    for (const g of got) {
      expect(new StandardWebhook(reg.body.secret).verify(g.body, g.headers as Record<string, string>)).toEqual(g.json);
      expect(g.json.data).toMatchObject({ ticket_key: result.ticket_key, target_service: serviceKey, created_by: me.agentId, priority_resolution: false });
    }
    expect(got[2].json.data).toMatchObject({ status: 'in_progress', previous_status: 'open', resolution: 'Looking into it' });
    expect(got[3].json.data).toMatchObject({ content: 'Still empty here', author: me.name });
    expect(got[4].json.data).toMatchObject({ content: 'Fixed in the next release', author: owner.name });
    expect(got[5].json.data).toMatchObject({ status: 'closed', previous_status: 'in_progress' });
    // Each recorded once its answer is in.
    await server.app.services.dispatcher.settled();
    const deliveries = await server.app.services.db.delivery.findMany({
      where: { kind: 'ticket_forward', event: { data: { path: ['ticket_key'], equals: result.ticket_key } } },
    });
    expect(deliveries.map((d) => d.status)).toEqual(Array(5).fill('delivered'));
  });

  it('forwards the moves of a ticket to the endpoint its service has when they happen', async () => {
    const { owner, serviceKey } = await serviceOwner();
    const me = await registerAgent(server);
    const { result } = await openTicket(me.key, { target_service: serviceKey });
    // Registered after the ticket was opened: it receives what happens from then on.
    const inbox = await receiver();
    await call('POST', '/tickets/register-endpoint', { key: owner.key, body: { service_key: serviceKey, ticket_receive_url: inbox.url } });
    await call('POST', `/tickets/${result.ticket_key}/comments`, { key: me.key, body: { content: 'Hello?' } });
    const [got] = await inbox.waitFor(1);
    expect(got.json).toMatchObject({
      type: 'ticket.commented',
      data: { ticket_key: result.ticket_key, subject: 'Summaries come back empty', status: 'open', content: 'Hello?' },
    });
  });

  it('refuses another agent’s service and a bad URL', async () => {
    const { serviceKey } = await serviceOwner();
    const stranger = await registerAgent(server);
    expectProblem(
      await call('POST', '/tickets/register-endpoint', { key: stranger.key, body: { service_key: serviceKey, ticket_receive_url: 'https://example.com/t' } }),
      404,
      'not_found',
    );
    const bad = await call('POST', '/tickets/register-endpoint', {
      key: stranger.key,
      body: { service_key: serviceKey, ticket_receive_url: 'http://example.com/t' },
    });
    expect(errorPaths(bad)).toEqual(['ticket_receive_url']);
    expect(errorPaths(await call('POST', '/tickets/register-endpoint', { key: stranger.key, body: {} }))).toEqual(['service_key', 'ticket_receive_url']);
  });

  it("reports every change to the creator's callback_url", async () => {
    const cb = await receiver();
    const me = await registerAgent(server);
    const { result } = await openTicket(me.key, { callback_url: cb.url });
    await call('PATCH', `/tickets/${result.ticket_key}/status`, { key: me.key, body: { status: 'waiting' } });
    await call('POST', `/tickets/${result.ticket_key}/comments`, { key: me.key, body: { content: 'Any news?' } });
    const got = await cb.waitFor(3);
    const byType = Object.fromEntries(got.map((g) => [g.json.type, g.json.data]));
    expect(byType['ticket.created']).toMatchObject({ ticket_key: result.ticket_key, status: 'open' });
    expect(byType['ticket.updated']).toMatchObject({ ticket_key: result.ticket_key, status: 'waiting', previous_status: 'open' });
    expect(byType['ticket.commented']).toMatchObject({ ticket_key: result.ticket_key, content: 'Any news?', author: me.name });
    expect(got[0].headers['webhook-signature']).toMatch(/^v1a,/);
    expect((await call('GET', `/tickets/${result.ticket_key}`, { key: me.key })).body.callback_url).toBe(cb.url);
  });
});

describe('the other ticketing built-ins and trust-score', () => {
  it('reads, comments on and lists tickets through execute', async () => {
    const me = await registerAgent(server);
    const { result } = await openTicket(me.key);
    const exec = (capability: string, input: unknown) => call('POST', '/execute', { key: me.key, body: { capability, input } });
    expect((await exec('ticket-status', { ticket_key: result.ticket_key })).body.result).toMatchObject({
      ticket_key: result.ticket_key,
      status: 'open',
      comment_count: 0,
    });
    expect((await exec('ticket-comment', { ticket_key: result.ticket_key, content: 'via execute' })).body.result).toMatchObject({
      ticket_key: result.ticket_key,
      content: 'via execute',
      author: me.name,
    });
    expect((await exec('ticket-list', { status: 'open' })).body.result).toMatchObject({
      total: 1,
      tickets: [{ ticket_key: result.ticket_key, comment_count: 1 }],
    });
    expect(errorPaths(await exec('ticket-status', {}))).toEqual(['input.ticket_key']);
    expect(errorPaths(await exec('ticket-list', { limit: 0 }))).toEqual(['input.limit']);
    const stranger = await registerAgent(server);
    expectProblem(
      await call('POST', '/execute', { key: stranger.key, body: { capability: 'ticket-status', input: { ticket_key: result.ticket_key } } }),
      404,
      'not_found',
    );
  });

  it('scores an agent’s trust from its reputation, reliability and disputes', async () => {
    const me = await registerAgent(server);
    const subject = await registerAgent(server);
    const res = await call('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: subject.agentId } } });
    expect(res.body.result).toEqual({
      agent_id: subject.agentId,
      trust_score: 45,
      tier: 'newcomer',
      reputation: 20,
      reliability: { calls: 0, successes: 0, success_rate: 0.5 },
      disputes: { total: 0, lost: 0, open: 0 },
      reputation_events: { count: 1, net_last_30_days: 20 },
      weights: { reputation: 0.5, reliability: 0.3, disputes: 0.2 },
    });
    expect(errorPaths(await call('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: 'nope' } } }))).toEqual([
      'input.agent_id',
    ]);
  });
});

describe('Subscription.ticketEvents', () => {
  it('streams a ticket’s changes to its creator over WebSocket, and refuses anyone else', async () => {
    const me = await registerAgent(server);
    const { result } = await openTicket(me.key);
    const streamsBefore = server.app.services.events.openStreams;
    const ws = createWsClient({
      url: server.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${me.key}` },
      lazy: true,
      retryAttempts: 0,
    });
    try {
      const events: any[] = [];
      const received = new Promise<void>((resolve, reject) => {
        ws.subscribe(
          { query: 'subscription($k: String!) { ticketEvents(ticketKey: $k) { type data } }', variables: { k: result.ticket_key } },
          { next: (v: any) => (events.push(v), resolve()), error: reject, complete: () => resolve() },
        );
      });
      // Subscribed (the server holds the stream) before the change is made.
      await within(5_000, async () => server.app.services.events.openStreams > streamsBefore);
      await call('PATCH', `/tickets/${result.ticket_key}/status`, { key: me.key, body: { status: 'in_progress' } });
      await received;
      expect(events[0].data.ticketEvents).toMatchObject({ type: 'ticket.updated', data: { ticket_key: result.ticket_key, status: 'in_progress' } });
      const stranger = await registerAgent(server);
      const other = createWsClient({
        url: server.url.replace('http', 'ws') + '/graphql',
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${stranger.key}` },
        lazy: true,
        retryAttempts: 0,
      });
      const refused = await new Promise<any>((resolve) => {
        other.subscribe(
          { query: 'subscription($k: String!) { ticketEvents(ticketKey: $k) { type } }', variables: { k: result.ticket_key } },
          { next: resolve, error: resolve, complete: () => resolve(undefined) },
        );
      });
      await other.dispose();
      expect(JSON.stringify(refused)).toContain('NOT_FOUND');
    } finally {
      await ws.dispose();
    }
  });
});
