// Spec §4.5 (support tickets), with §2's support-ticket record and §3's two support-ticket rows: a ticket
// opened through execute support-ticket, read, moved from any of the five statuses to the given one,
// commented on; ticket endpoints registered (HTTPS) and listed.
import { errorPaths, expectProblem } from '../support/expect';
import { api, registerAgent, registerService, startServer, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer();
  call = api(server);
});
afterAll(() => server.close());

const STATUSES = ['open', 'in_progress', 'waiting', 'resolved', 'closed'] as const;

async function openTicket(key: string) {
  const res = await call('POST', '/execute', {
    key,
    body: {
      capability: 'support-ticket',
      input: {
        type: 'bug',
        subject: 'Summaries come back empty',
        description: 'Every summary is an empty string.',
        priority: 'high',
        agentName: 'reporter-bot',
      },
    },
  });
  expect(res.status).toBe(200);
  return res.body.result as { ticket_key: string; status: string; created_at: string };
}

describe('§4.5 support tickets', () => {
  it('§3 execute with support-ticket opens a ticket: status open, a ticket key ST-<n> assigned', async () => {
    const me = await registerAgent(server);
    const result = await openTicket(me.key);
    expect(result).toEqual({ ticket_key: expect.stringMatching(/^ST-\d+$/), status: 'open', created_at: expect.any(String) });
  });

  it('§4.5 GET /tickets/:ticketKey answers ticket_key, type, subject, status, priority, comments, created_at', async () => {
    const me = await registerAgent(server);
    const { ticket_key } = await openTicket(me.key);
    const res = await call('GET', `/tickets/${ticket_key}`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ticket_key,
      type: 'bug',
      subject: 'Summaries come back empty',
      status: 'open',
      priority: 'high',
      comments: [],
      created_at: expect.any(String),
    });
  });

  it.each(STATUSES.map((s) => [s]))('§3 PATCH status moves a support ticket from %s to the given status, the optional resolution stored', async (from) => {
    const me = await registerAgent(server);
    for (const to of STATUSES) {
      const { ticket_key } = await openTicket(me.key);
      if (from !== 'open') expect((await call('PATCH', `/tickets/${ticket_key}/status`, { key: me.key, body: { status: from } })).status).toBe(200);
      const resolution = `Moved from ${from} to ${to}`;
      const res = await call('PATCH', `/tickets/${ticket_key}/status`, { key: me.key, body: { status: to, resolution } });
      expect({ from, to, status: res.status }).toEqual({ from, to, status: 200 });
      expect(res.body).toMatchObject({ ticket_key, status: to, updated_at: expect.any(String) });
      const after = (await call('GET', `/tickets/${ticket_key}`, { key: me.key })).body;
      expect(after).toMatchObject({ status: to, resolution });
      expect(after.history.at(-1)).toMatchObject({ from, to, note: resolution, actor_id: me.agentId });
      // The status it already has, asked again: 200, and nothing changes.
      const again = await call('PATCH', `/tickets/${ticket_key}/status`, { key: me.key, body: { status: to } });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ ticket_key, status: to, updated_at: after.updated_at });
      expect((await call('GET', `/tickets/${ticket_key}`, { key: me.key })).body).toEqual(after);
    }
  });

  it('§4.5 PATCH status takes one of the five statuses', async () => {
    const me = await registerAgent(server);
    const { ticket_key } = await openTicket(me.key);
    const res = await call('PATCH', `/tickets/${ticket_key}/status`, { key: me.key, body: { status: 'done' } });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['status']);
  });

  it('§4.5 POST /tickets/:ticketKey/comments answers 201 ticket_key, comment_id, content, author, created_at', async () => {
    const me = await registerAgent(server);
    const { ticket_key } = await openTicket(me.key);
    const res = await call('POST', `/tickets/${ticket_key}/comments`, { key: me.key, body: { content: 'Still happening' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ticket_key, comment_id: expect.any(String), content: 'Still happening', author: me.name, created_at: expect.any(String) });
    expect((await call('GET', `/tickets/${ticket_key}`, { key: me.key })).body.comments).toEqual([
      expect.objectContaining({ comment_id: res.body.comment_id, content: 'Still happening', author: me.name, created_at: expect.any(String) }),
    ]);
  });

  it('§4.5 POST /tickets/register-endpoint takes an HTTPS ticket_receive_url and answers 201 registered, service_key, ticket_receive_url; GET /tickets/endpoints lists it', async () => {
    const me = await registerAgent(server);
    const { service_key } = await registerService(server, me.key);
    const url = 'https://helpdesk.example.com/tickets';
    const res = await call('POST', '/tickets/register-endpoint', { key: me.key, body: { service_key, ticket_receive_url: url, name: 'Helpdesk' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ registered: true, service_key, ticket_receive_url: url });
    const plain = await call('POST', '/tickets/register-endpoint', {
      key: me.key,
      body: { service_key, ticket_receive_url: 'http://helpdesk.example.com/tickets' },
    });
    expectProblem(plain, 400, 'validation_failed');
    expect(errorPaths(plain)).toEqual(['ticket_receive_url']);
    const listed = await call('GET', '/tickets/endpoints', { key: me.key });
    expect(listed.status).toBe(200);
    expect(listed.body.endpoints).toEqual([expect.objectContaining({ service_key, ticket_receive_url: url, name: 'Helpdesk' })]);
  });
});
