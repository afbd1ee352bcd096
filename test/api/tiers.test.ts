// The privileges of the reputation tiers (spec §2), enforced: priority resolution from Contributor (tickets
// and disputes handled first: the queues, the dispute pipeline, the forwards to ticket endpoints), beta
// features from Trusted (403 naming the tier below it), the showcase listing of Star providers' services.
import type { ServerResponse } from 'node:http';
import { decideOpenDisputes } from '../../src/domain/disputes/disputes';
import { OWNER_IN_FLIGHT } from '../../src/platform/outbox';
import { errorPaths, expectProblem, within } from '../support/expect';
import { assertTestCaTrusted, startHttpsServer, type HttpsTestServer } from '../support/https';
import { registerPayingAgent } from '../support/payments';
import { startProvider, type Provider } from '../support/provider';
import { api, gql, registerAgent, registerService, startServer, uniqueSlug, type TestServer } from '../support/server';

const ADMIN_KEY = `key_admin_${'T'.repeat(40)}`;
let server: TestServer;
let call: ReturnType<typeof api>;
const closing: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', DELIVERY_TIMEOUT_MS: '10000' } });
  call = api(server);
});
afterAll(async () => {
  for (const c of closing) await c.close();
  await server.close();
});

type Agent = Awaited<ReturnType<typeof registerAgent>>;

/** An agent at `reputation`, once its own reads say so (its cached principal is replaced by the change's notification). */
async function agentAt(reputation: number): Promise<Agent> {
  const agent = await registerAgent(server);
  await server.app.services.db.agent.update({ where: { id: agent.agentId }, data: { reputation } });
  await within(5_000, async () => (await call('GET', '/agents/me', { key: agent.key })).body.reputation_score === reputation);
  return agent;
}

async function fileTicket(filer: Agent, serviceKey: string, subject: string): Promise<string> {
  const res = await call('POST', '/execute', {
    key: filer.key,
    body: { capability: 'support-ticket', input: { type: 'bug', subject, description: `About ${subject}`, agentName: 'filer', target_service: serviceKey } },
  });
  expect(res.status).toBe(200);
  return res.body.result.ticket_key;
}

describe('priority resolution (Contributor and above)', () => {
  it('marks what a Contributor files, and not what a Newcomer files, for as long as it lives', async () => {
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key);
    const [newcomer, contributor] = [await agentAt(30), await agentAt(31)];
    const plain = await fileTicket(newcomer, svc.service_key, 'plain');
    const first = await fileTicket(contributor, svc.service_key, 'first');
    expect((await call('GET', `/tickets/${plain}`, { key: newcomer.key })).body.priority_resolution).toBe(false);
    expect((await call('GET', `/tickets/${first}`, { key: owner.key })).body.priority_resolution).toBe(true);
    // A later fall of the filer's reputation reorders nothing: the flag was decided when it was filed.
    await server.app.services.db.agent.update({ where: { id: contributor.agentId }, data: { reputation: 5 } });
    expect((await call('GET', `/tickets/${first}`, { key: owner.key })).body.priority_resolution).toBe(true);

    const disputed = await call('POST', '/disputes', {
      key: newcomer.key,
      body: { serviceId: svc.service_id, type: 'quality', description: 'Not as described' },
    });
    expect(disputed.status).toBe(201);
    expect(disputed.body.priority_resolution).toBe(false);
    const gql1 = await gql(server, `query($id: ID!) { dispute(id: $id) { priorityResolution } }`, { id: disputed.body.dispute_id }, newcomer.key);
    expect(gql1.body.data.dispute.priorityResolution).toBe(false);
  });

  it("lists a service owner's queue of open tickets priority first, then oldest first; the whole list stays newest first", async () => {
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key);
    const [newcomer, contributor] = [await agentAt(20), await agentAt(45)];
    const n1 = await fileTicket(newcomer, svc.service_key, 'n1');
    const p1 = await fileTicket(contributor, svc.service_key, 'p1');
    const n2 = await fileTicket(newcomer, svc.service_key, 'n2');
    const p2 = await fileTicket(contributor, svc.service_key, 'p2');
    const queue = await call('GET', '/tickets?status=open', { key: owner.key });
    expect(queue.status).toBe(200);
    expect(queue.body.tickets.map((t: any) => t.ticket_key)).toEqual([p1, p2, n1, n2]);
    expect(queue.body.tickets.map((t: any) => t.priority_resolution)).toEqual([true, true, false, false]);
    // The same queue over GraphQL.
    const q = await gql(server, `{ tickets(status: "open", first: 10) { nodes { ticketKey priorityResolution } } }`, undefined, owner.key);
    expect(q.body.data.tickets.nodes.map((t: any) => t.ticketKey)).toEqual([p1, p2, n1, n2]);
    // Moved along, a ticket leaves the open queue and joins the in_progress one in the same order.
    for (const key of [n1, p2]) expect((await call('PATCH', `/tickets/${key}/status`, { key: owner.key, body: { status: 'in_progress' } })).status).toBe(200);
    expect((await call('GET', '/tickets?status=in_progress', { key: owner.key })).body.tickets.map((t: any) => t.ticket_key)).toEqual([p2, n1]);
    expect((await call('GET', '/tickets', { key: owner.key })).body.tickets.map((t: any) => t.ticket_key)).toEqual([p2, n2, p1, n1]);
  });

  it("forwards a Contributor's ticket to the service's endpoint before the Newcomers' tickets already waiting", async () => {
    // An endpoint that holds every request until the test answers it.
    const held: { res: ServerResponse; json: any }[] = [];
    const endpoint: HttpsTestServer = await startHttpsServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => held.push({ res, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    closing.push(endpoint);
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key);
    expect(
      (
        await call('POST', '/tickets/register-endpoint', {
          key: owner.key,
          body: { service_key: svc.service_key, ticket_receive_url: `${endpoint.url}/tickets` },
        })
      ).status,
    ).toBe(201);
    const [newcomer, contributor] = [await agentAt(10), await agentAt(60)];
    // The owner's share of sends in flight, all held: what comes next waits for a slot.
    for (let i = 0; i < OWNER_IN_FLIGHT; i++) await fileTicket(newcomer, svc.service_key, `filler ${i}`);
    await within(5_000, async () => held.length === OWNER_IN_FLIGHT);
    const waiting = [await fileTicket(newcomer, svc.service_key, 'waiting 1'), await fileTicket(newcomer, svc.service_key, 'waiting 2')];
    const priority = await fileTicket(contributor, svc.service_key, 'priority');
    // The dispatcher, woken by each commit, has claimed what it would send (the sends already held stay held).
    await server.app.services.dispatcher.claimsSettled();
    expect(held).toHaveLength(OWNER_IN_FLIGHT);

    // Each answer frees one slot, and the next forward sent is the next in the owner's queue.
    const next = async () => {
      const before = held.length;
      held[before - OWNER_IN_FLIGHT].res.writeHead(200).end('{}');
      await within(5_000, async () => held.length === before + 1);
      return held[before].json;
    };
    const sent = [await next(), await next(), await next()];
    expect(sent.map((e) => e.data.ticket_key)).toEqual([priority, ...waiting]);
    expect(sent[0]).toMatchObject({ type: 'ticket.created', data: { priority_resolution: true } });
    expect(sent[1]).toMatchObject({ type: 'ticket.created', data: { priority_resolution: false } });
    for (const h of held) if (!h.res.writableEnded) h.res.writeHead(200).end('{}');
  });

  it('decides the disputes of Contributors first, and puts them first in the review queue', async () => {
    const provider = await registerAgent(server);
    const svc = await registerService(server, provider.key);
    const [newcomer, contributor] = [await agentAt(25), await agentAt(70)];
    const pipeline = server.app.services.disputes;
    await pipeline.settled();
    await pipeline.stop();
    try {
      const open = async (who: Agent, description: string) =>
        (await call('POST', '/disputes', { key: who.key, body: { serviceId: svc.service_id, type: 'availability', description } })).body.dispute_id as string;
      const n1 = await open(newcomer, 'down on Monday');
      const n2 = await open(newcomer, 'down on Tuesday');
      const p1 = await open(contributor, 'down on Wednesday');
      const status = async (id: string, key: string) => (await call('GET', `/disputes/${id}`, { key })).body.status;
      // One at a time: the Contributor's, filed last, goes first; then the oldest.
      expect(await decideOpenDisputes(server.app.services, 1)).toBe(1);
      expect([await status(p1, contributor.key), await status(n1, newcomer.key), await status(n2, newcomer.key)]).toEqual(['under_review', 'open', 'open']);
      expect(await decideOpenDisputes(server.app.services, 1)).toBe(1);
      expect([await status(n1, newcomer.key), await status(n2, newcomer.key)]).toEqual(['under_review', 'open']);
      await decideOpenDisputes(server.app.services, 20);
      const queue = await call('GET', '/admin/disputes?status=under_review&limit=100', { key: ADMIN_KEY });
      const ours = queue.body.disputes.filter((d: any) => [n1, n2, p1].includes(d.dispute_id));
      expect(ours.map((d: any) => d.dispute_id)).toEqual([p1, n1, n2]);
      // Every Contributor's dispute in the queue comes before every Newcomer's.
      const flags = queue.body.disputes.map((d: any) => d.priority_resolution);
      expect(flags).toEqual([...flags].sort((a: boolean, b: boolean) => Number(b) - Number(a)));
    } finally {
      pipeline.start();
    }
  });
});

describe('beta features (Trusted and above)', () => {
  const providers: Provider[] = [];
  afterAll(() => Promise.all(providers.map((p) => p.close())));

  it('refuses service analytics below Trusted with 403 naming the tier needed, on REST and GraphQL', async () => {
    for (const reputation of [20, 60]) {
      const owner = await agentAt(reputation);
      const svc = await registerService(server, owner.key);
      const res = await call('GET', `/services/${svc.service_key}/analytics`, { key: owner.key });
      expectProblem(res, 403, 'forbidden');
      expect(res.body.detail).toMatch(/beta feature, for Trusted agents and above \(reputation 61 or more\)/);
      expect(res.body.detail).toContain(`(reputation ${reputation})`);
      const q = await gql(server, `query($k: String!) { serviceAnalytics(serviceKey: $k) { days } }`, { k: svc.service_key }, owner.key);
      expect(q.body.errors![0].extensions!.code).toBe('FORBIDDEN');
    }
  });

  it("answers 404, not 403, for another agent's service, whatever the caller's tier", async () => {
    const owner = await agentAt(80);
    const svc = await registerService(server, owner.key);
    const stranger = await registerAgent(server);
    expectProblem(await call('GET', `/services/${svc.service_key}/analytics`, { key: stranger.key }), 404, 'not_found');
    expectProblem(
      await call('POST', `/services/${svc.service_key}/pause`, { key: stranger.key, body: { resume_at: new Date(Date.now() + 60_000).toISOString() } }),
      404,
      'not_found',
    );
  });

  it("gives a Trusted owner its service's calls by day and capability, charges, callers, latency and failures", async () => {
    const p = await startProvider();
    providers.push(p);
    const owner = await agentAt(61);
    const [a, b] = [uniqueSlug('beta-a'), uniqueSlug('beta-b')];
    const svc = await registerService(server, owner.key, { endpoint: p.url, capabilities: [a, b], cost_per_call: 4 });
    const caller = await registerPayingAgent(server);
    const other = await registerPayingAgent(server);
    const run = (who: { key: string }, capability: string) => call('POST', '/execute', { key: who.key, body: { capability, input: { n: 1 } } });
    expect((await run(caller, a)).status).toBe(200);
    expect((await run(caller, a)).status).toBe(200);
    expect((await run(other, b)).status).toBe(200);
    p.behave({ status: 503 });
    expect((await run(caller, a)).body.status).toBe('error');

    const res = await call('GET', `/services/${svc.service_key}/analytics?days=7`, { key: owner.key });
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body).toEqual({
      service_key: svc.service_key,
      days: 7,
      since: expect.any(String),
      totals: {
        calls: 4,
        successes: 3,
        failures: 1,
        charged_cents: 12,
        callers: 2,
        latency_p50_ms: expect.any(Number),
        latency_p95_ms: expect.any(Number),
        failure_reasons: [{ reason: 'http_503', count: 1 }],
      },
      by_day: [{ day: today, calls: 4, successes: 3, failures: 1, charged_cents: 12 }],
      by_capability: [
        { capability: a, calls: 3, successes: 2, failures: 1, charged_cents: 8 },
        { capability: b, calls: 1, successes: 1, failures: 0, charged_cents: 4 },
      ],
    });
    expect(errorPaths(await call('GET', `/services/${svc.service_key}/analytics?days=91`, { key: owner.key }))).toEqual(['days']);
  });

  it('refuses a scheduled resume below Trusted (403 naming resume_at and the tier), and resumes a Trusted owner’s service at its time', async () => {
    const newcomer = await registerAgent(server);
    const mine = await registerService(server, newcomer.key);
    const soon = () => new Date(Date.now() + 1_500).toISOString();
    const refused = await call('POST', `/services/${mine.service_key}/pause`, { key: newcomer.key, body: { resume_at: soon() } });
    expectProblem(refused, 403, 'forbidden');
    expect(refused.body.errors).toEqual([{ path: 'resume_at', message: expect.stringContaining('Trusted agents and above') }]);
    // Nothing moved; a pause without a time is everyone's.
    expect((await call('GET', `/services/${mine.service_key}`)).status).toBe(200);
    expect((await call('POST', `/services/${mine.service_key}/pause`, { key: newcomer.key, body: {} })).body).toMatchObject({
      status: 'paused',
      resume_at: null,
    });

    const trusted = await agentAt(75);
    const svc = await registerService(server, trusted.key);
    const at = soon();
    const paused = await call('POST', `/services/${svc.service_key}/pause`, { key: trusted.key, body: { resume_at: at, reason: 'maintenance window' } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', resume_at: at });
    expect((await call('GET', `/services/${svc.service_key}`)).status).toBe(404);
    // The scheduled job (every few seconds on every instance) resumes it once its time has come.
    const listed = async () =>
      (await call('GET', '/agents/me/services', { key: trusted.key })).body.services.find((s: any) => s.service_key === svc.service_key);
    await within(15_000, async () => (await listed()).status === 'active');
    expect(await listed()).toMatchObject({ status: 'active', resume_at: null });
    expect((await call('GET', `/services/${svc.service_key}`)).status).toBe(200);
    const moves = await server.app.services.db.stateChange.findMany({
      where: { subjectType: 'service', subjectId: svc.service_key },
      orderBy: { createdAt: 'asc' },
    });
    expect(moves.map((m) => [m.fromState, m.toState, m.actorKind])).toEqual([
      ['active', 'paused', 'agent'],
      ['paused', 'active', 'system'],
    ]);
    expect(moves[0].note).toBe('maintenance window');
  });
});

describe('the showcase listing (Star)', () => {
  it("lists only Star providers' active services, ranked, paged, without a credential", async () => {
    const cap = uniqueSlug('star');
    const [star1, star2, trusted] = [await agentAt(99), await agentAt(86), await agentAt(85)];
    const s1 = await registerService(server, star1.key, { capabilities: [cap] });
    const s2 = await registerService(server, star2.key, { capabilities: [cap] });
    const s3 = await registerService(server, star2.key, { capabilities: [cap] });
    const notStar = await registerService(server, trusted.key, { capabilities: [cap] });
    // The more successes, the higher among the same provider reputation.
    await server.app.services.db.service.update({ where: { id: s3.service_id }, data: { successCount: 7 } });

    const all = await call('GET', '/showcase/services?limit=100');
    expect(all.status).toBe(200);
    const keys = all.body.services.map((s: any) => s.service_key);
    expect(keys).not.toContain(notStar.service_key);
    const ours = keys.filter((k: string) => [s1, s2, s3].some((s) => s.service_key === k));
    expect(ours).toEqual([s1.service_key, s3.service_key, s2.service_key]);
    expect(all.body.total).toBe(all.body.services.length);
    for (const s of all.body.services) expect(s.reputation).toBeGreaterThanOrEqual(86);
    const reps = all.body.services.map((s: any) => s.reputation);
    expect(reps).toEqual([...reps].sort((x: number, y: number) => y - x));
    expect(all.body.services.find((s: any) => s.service_key === s1.service_key)).toMatchObject({
      name: s1.name,
      provider: { agent_id: star1.agentId },
      status: 'active',
    });

    const page = await call('GET', '/showcase/services?limit=1&offset=1');
    expect(page.body).toMatchObject({ total: all.body.total, services: [{ service_key: keys[1] }] });

    // GET /showcase shows the first ten of the same listing.
    const showcase = await call('GET', '/showcase');
    expect(showcase.body.top_services.map((s: any) => s.service_key)).toEqual(keys.slice(0, 10));

    // A paused service, or a suspended provider's, leaves the listing.
    expect((await call('POST', `/services/${s1.service_key}/pause`, { key: star1.key, body: {} })).status).toBe(200);
    expect((await call('PATCH', `/admin/agents/${star2.agentId}/status`, { key: ADMIN_KEY, body: { status: 'SUSPENDED' } })).status).toBe(200);
    const after = await call('GET', '/showcase/services?limit=100');
    for (const s of [s1, s2, s3]) expect(after.body.services.map((x: any) => x.service_key)).not.toContain(s.service_key);
    expect(after.body.total).toBe(all.body.total - 3);
  });

  it('pages Query.showcaseServices with first and after', async () => {
    const star = await agentAt(90);
    for (let i = 0; i < 3; i++) await registerService(server, star.key);
    const Q = `query($after: String) { showcaseServices(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { serviceKey reputation provider { agentId } } } }`;
    const first = await gql(server, Q);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.showcaseServices.nodes).toHaveLength(2);
    expect(first.body.data.showcaseServices.pageInfo.hasNextPage).toBe(true);
    const second = await gql(server, Q, { after: first.body.data.showcaseServices.pageInfo.endCursor });
    const rest = await call('GET', `/showcase/services?limit=2&offset=2`);
    expect(second.body.data.showcaseServices.nodes.map((n: any) => n.serviceKey)).toEqual(rest.body.services.map((s: any) => s.service_key));
  });
});
