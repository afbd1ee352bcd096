// One security matrix over every REST route: no key, a malformed key, an unknown key, a suspended or
// banned agent, the administrator key where an agent's is needed and the other way round, and another
// agent's object (404, never 403). A route added without an entry here fails the coverage check.
import os from 'node:os';
import { routes } from '../../rest/routes';
import type { Route } from '../../rest/route';
import { api, registerAgent, startServer, type TestServer } from '../support/server';

const ADMIN_KEY = `key_admin_${'M'.repeat(40)}`;
let server: TestServer;
let owner: { key: string; agentId: string };
let stranger: { key: string; agentId: string };
let suspended: { key: string; agentId: string };
let banned: { key: string; agentId: string };
let ownersKeyId: string;
let serviceKey: string;
let ownersWebhookId: string;
let ownersDeliveryId: string;
let ownersTicketKey: string;
let ownersExecutionId: string;
let ownersDisputeId: string;
let ownersStoreId: string;
let ownersSessionId: string;
let ownersSubscriptionId: string;
/** The owner's draft skill (others get 404), and a published one (anyone reads it). */
let ownersSkillId: string;
let publishedSkillId: string;
let ownersTaskId: string;
let ownersSwarmId: string;
let ownersUtoTicketId: string;
let ownersNotificationId: string;
let ownersConglomerateId: string;
let webmcpSubmissionId: string;
let ownersVaultTokenId: string;
let ownersDelegationId: string;
let offerId: string;
let checkoutId: string;
let ownersMandateId: string;

/** Path parameters for each route: the owner's objects, so `stranger` must get 404. */
function pathFor(route: Route): string {
  const path = Array.isArray(route.path) ? route.path[0] : route.path;
  if (path.startsWith('/webhooks/')) return path.replace(':id', ownersWebhookId).replace(':deliveryId', ownersDeliveryId);
  if (path.startsWith('/mandates/')) return path.replace(':id', ownersMandateId);
  if (path.startsWith('/tickets/')) return path.replace(':ticketKey', ownersTicketKey);
  if (path.startsWith('/executions/')) return path.replace(':id', ownersExecutionId);
  if (path.startsWith('/disputes/')) return path.replace(':id', ownersDisputeId);
  if (path.startsWith('/subscriptions/')) return path.replace(':id', ownersSubscriptionId);
  if (path.startsWith('/streaming/sessions/')) return path.replace(':id', ownersSessionId);
  if (path.startsWith('/memory/stores/')) return path.replace(':id', ownersStoreId).replace(':key', 'k');
  if (path.startsWith('/tasks/')) return path.replace(':id', ownersTaskId);
  if (path.startsWith('/swarm/sessions/')) return path.replace(':id', ownersSwarmId);
  if (path.startsWith('/uto/tickets/')) return path.replace(':id', ownersUtoTicketId);
  if (path.startsWith('/uto/notifications/')) return path.replace(':id', ownersNotificationId);
  if (path.startsWith('/ammc/conglomerates/')) return path.replace(':id', ownersConglomerateId);
  if (path.startsWith('/agent-skills/')) return path.replace(':id', route.auth === 'none' ? publishedSkillId : ownersSkillId);
  if (path.startsWith('/webmcp/submissions/')) return path.replace(':id', webmcpSubmissionId);
  if (path.includes(':disputeId')) return path.replace(':disputeId', ownersDisputeId);
  if (path.startsWith('/acp/offerings/')) return path.replace(':id', `${serviceKey}:summarize`);
  if (path.startsWith('/ext/vault/tokens/')) return path.replace(':id', ownersVaultTokenId);
  if (path.startsWith('/ext/swarm/delegations/')) return path.replace(':id', ownersDelegationId);
  if (path.startsWith('/ext/payments/offers/')) return path.replace(':id', offerId);
  if (path.startsWith('/ext/payments/checkout/')) return path.replace(':id', checkoutId);
  return path
    .replace(':serviceKey', serviceKey)
    .replace(':keyId', ownersKeyId)
    .replace(':id', owner.agentId)
    .replace(':agentId', owner.agentId)
    .replace(':capabilityId', 'summarize')
    .replace(':slug', 'summarize');
}

/** Routes whose path names an object of one agent (another agent must get 404), with a valid body. */
const OWNED = new Map<string, unknown>([
  ['POST /keys/:keyId/rotate', {}],
  ['DELETE /keys/:keyId', undefined],
  ['POST /agents/:id/sub-agents', { name: 'not-allowed-here', description: 'x', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] }],
  ['POST /agents/:agentId/wallet', {}],
  ['GET /agents/:agentId/wallet', undefined],
  ['GET /agents/:agentId/wallet/entries', undefined],
  ['GET /webhooks/:id', undefined],
  ['PATCH /webhooks/:id', { active: false }],
  ['PATCH /services/:serviceKey', { sub_key_policy: { permissions: ['read', 'write'] } }],
  ['POST /services/:serviceKey/pause', {}],
  ['POST /services/:serviceKey/resume', {}],
  ['DELETE /services/:serviceKey', undefined],
  ['GET /services/:serviceKey/analytics', undefined],
  ['DELETE /webhooks/:id', undefined],
  ['GET /mandates/:id', undefined],
  ['PATCH /mandates/:id', { daily_cents: 50 }],
  ['DELETE /mandates/:id', undefined],
  ['GET /webhooks/:id/deliveries', undefined],
  ['POST /webhooks/:id/deliveries/:deliveryId/redeliver', {}],
  ['GET /tickets/:ticketKey', undefined],
  ['PATCH /tickets/:ticketKey/status', { status: 'closed' }],
  ['POST /tickets/:ticketKey/comments', { content: 'not mine' }],
  ['GET /disputes/:id', undefined],
  ['GET /executions/:id/receipt', undefined],
  ['GET /memory/stores/:id', undefined],
  ['PATCH /memory/stores/:id', { description: 'not mine' }],
  ['DELETE /memory/stores/:id', undefined],
  ['PUT /memory/stores/:id/entries', { entries: [{ key: 'k', value: 1 }] }],
  ['GET /memory/stores/:id/entries', undefined],
  ['GET /memory/stores/:id/entries/:key', undefined],
  ['GET /memory/stores/:id/entries/:key/versions', undefined],
  ['DELETE /memory/stores/:id/entries/:key', undefined],
  ['POST /memory/stores/:id/search', { prefix: 'k' }],
  ['GET /subscriptions/:id', undefined],
  ['PATCH /subscriptions/:id', { schedule: '* * * * *' }],
  ['POST /subscriptions/:id/pause', {}],
  ['POST /subscriptions/:id/resume', {}],
  ['POST /subscriptions/:id/cancel', {}],
  ['GET /subscriptions/:id/runs', undefined],
  ['GET /subscriptions/:id/events', undefined],
  ['GET /streaming/sessions/:id', undefined],
  ['GET /streaming/sessions/:id/events', undefined],
  ['POST /streaming/sessions/:id/push', { data: 'not mine' }],
  ['POST /streaming/sessions/:id/end', {}],
  ['PATCH /agent-skills/:id', { description: 'not mine' }],
  ['DELETE /agent-skills/:id', undefined],
  ['POST /agent-skills/:id/publish', {}],
  ['POST /agent-skills/:id/unpublish', {}],
  ['POST /agent-skills/:id/fork', {}],
  ['POST /agent-skills/:id/install', {}],
  ['GET /tasks/:id', undefined],
  ['POST /tasks/:id/delegate', { sub_agent_id: '00000000-0000-4000-8000-000000000000' }],
  ['POST /tasks/:id/cancel', {}],
  ['POST /tasks/:id/execute', { capability: 'summarize', input: {}, result: {} }],
  ['POST /tasks/:id/publish-spark', { title: 't', content: 'c', spark_type: 'insight' }],
  ['GET /swarm/sessions/:id', undefined],
  ['POST /swarm/sessions/:id/cancel', {}],
  ['GET /swarm/sessions/:id/events', undefined],
  ['GET /uto/tickets/:id', undefined],
  ['POST /uto/tickets/:id/advance', { target_state: 'validated', triggered_by: 'external' }],
  ['GET /uto/notifications/:id/events', undefined],
  ['DELETE /uto/notifications/:id', undefined],
  ['GET /ammc/conglomerates/:id', undefined],
  ['POST /ammc/conglomerates/:id/advance', { target_state: 'OPERATING' }],
  ['POST /ammc/conglomerates/:id/activity', { kind: 'trade', cost_usd: 1 }],
  ['GET /ammc/conglomerates/:id/activity', undefined],
  ['DELETE /ext/vault/tokens/:id', undefined],
  ['GET /ext/swarm/delegations/:id', undefined],
  ['POST /ext/swarm/delegations/:id/answer', { result: 1 }],
]);
/** Routes whose path parameter names a public object (anyone may use it), or an admin's target. */
const PUBLIC_PARAMS = new Set([
  'POST /keys/provision/:serviceKey',
  'POST /capabilities/:capabilityId/pricing',
  'PATCH /admin/agents/:agentId/status',
  'PATCH /admin/disputes/:disputeId/resolve',
  // A published skill: anyone reads it.
  'GET /agent-skills/:id',
  'GET /agent-skills/:id/SKILL.md',
  'GET /agent-skills/:id/versions',
  // Public records: a service and the quality measured of it, a capability, an agent's reputation.
  'GET /services/:serviceKey',
  'GET /services/:serviceKey/quality',
  'GET /capabilities/:slug',
  'GET /capabilities/:slug/providers',
  'GET /agents/:agentId/reputation',
  // A passport: an agent's public record, signed.
  'GET /ext/reputation/passport/:agentId',
  // A priced offering (`<service key>:<capability>`): public terms.
  'GET /acp/offerings/:id/payment-terms',
  // A submission is read by its id (an unguessable UUID) without a key.
  'GET /webmcp/submissions/:id',
  // An offer is made to be bought: whoever knows its id reads it.
  'GET /ext/payments/offers/:id',
  // A checkout URL is the capability: knowing it is enough to pay (no key).
  'GET /ext/payments/checkout/:id',
  'POST /ext/payments/checkout/:id',
]);
/** What a public GET answers without a key, when not 200: an open checkout URL asks for its payment. */
const PUBLIC_STATUS = new Map([['GET /ext/payments/checkout/:id', 402]]);

const label = (r: Route) => `${r.method} ${Array.isArray(r.path) ? r.path[0] : r.path}`;
const agentRoutes = routes.filter((r) => r.auth === 'agent');
const adminRoutes = routes.filter((r) => r.auth === 'admin');
const publicRoutes = routes.filter((r) => r.auth === 'none');

beforeAll(async () => {
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1' } });
  [owner, stranger, suspended, banned] = await Promise.all([registerAgent(server), registerAgent(server), registerAgent(server), registerAgent(server)]);
  const service = await api(server)('POST', '/services/register', {
    key: owner.key,
    body: {
      name: 'Matrix service',
      endpoint: 'https://provider.example.com/run',
      capabilities: ['summarize'],
      description: 'A service for the security matrix',
      pricing_model: 'per_call',
      cost_per_call: 1,
    },
  });
  serviceKey = service.body.service_key;
  const provisioned = await api(server)('POST', `/keys/provision/${serviceKey}`, { key: owner.key, body: {} });
  ownersKeyId = provisioned.body.sub_key_id;
  // A mandate the owner granted its sub-agent.
  const sub = await api(server)('POST', `/agents/${owner.agentId}/sub-agents`, {
    key: owner.key,
    body: { name: 'matrix-sub-agent', description: 'Spends within a mandate', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
  });
  ownersMandateId = (await api(server)('POST', '/mandates', { key: owner.key, body: { agent_id: sub.body.id, daily_cents: 100 } })).body.mandate_id;
  // A webhook nobody listens at, and one delivery of an event to it.
  const hook = await api(server)('POST', '/webhooks', { key: owner.key, body: { url: 'https://receiver.invalid/hook', events: ['*'] } });
  ownersWebhookId = hook.body.webhook_id;
  await api(server)('PATCH', '/agents/me', { key: owner.key, body: { description: 'Changed so that an event is delivered' } });
  const deliveries = await api(server)('GET', `/webhooks/${ownersWebhookId}/deliveries`, { key: owner.key });
  ownersDeliveryId = deliveries.body.deliveries[0].delivery_id;
  const ticket = await api(server)('POST', '/execute', {
    key: owner.key,
    body: {
      capability: 'support-ticket',
      input: { type: 'question', subject: 'Matrix', description: 'A ticket for the security matrix', agentName: 'matrix' },
    },
  });
  ownersTicketKey = ticket.body.result.ticket_key;
  ownersExecutionId = ticket.body.execution_id;
  const dispute = await api(server)('POST', '/disputes', {
    key: owner.key,
    body: { serviceId: service.body.service_id, type: 'quality', description: 'A dispute for the matrix' },
  });
  ownersDisputeId = dispute.body.dispute_id;
  const store = await api(server)('POST', '/memory/stores', { key: owner.key, body: { name: 'matrix', storeType: 'kv' } });
  ownersStoreId = store.body.id;
  ownersSubscriptionId = (
    await api(server)('POST', '/subscriptions', { key: owner.key, body: { capabilityId: 'summarize', schedule: '0 0 1 1 *', deliveryMethod: 'sse' } })
  ).body.id;
  ownersSessionId = (await api(server)('POST', '/streaming/sessions', { key: owner.key, body: { capabilityId: 'summarize' } })).body.id;
  await api(server)('PUT', `/memory/stores/${ownersStoreId}/entries`, { key: owner.key, body: { entries: [{ key: 'k', value: 1 }] } });
  ownersSkillId = (await api(server)('POST', '/agent-skills', { key: owner.key, body: { name: 'matrix-draft', runtime: 'python', entrypoint: 'main' } })).body
    .id;
  publishedSkillId = (await api(server)('POST', '/agent-skills', { key: owner.key, body: { name: 'matrix-published', runtime: 'python', entrypoint: 'main' } }))
    .body.id;
  await api(server)('POST', `/agent-skills/${publishedSkillId}/publish`, { key: owner.key });
  ownersTaskId = (await api(server)('POST', '/tasks', { key: owner.key, body: { intent: 'A task for the matrix' } })).body.task_id;
  ownersVaultTokenId = (await api(server)('POST', '/ext/vault/token', { key: owner.key, body: { scopes: ['execute'], audience: 'matrix' } })).body.token_id;
  const external = await api(server)('POST', '/ext/agents/register', {
    key: owner.key,
    body: { instance_url: 'https://agent.invalid/inbox', capabilities: ['summarize'] },
  });
  ownersDelegationId = (
    await api(server)('POST', '/ext/swarm/delegate', {
      key: owner.key,
      body: { external_agent_id: external.body.external_agent.external_agent_id, capability: 'summarize' },
    })
  ).body.delegation_id;
  offerId = (await api(server)('POST', '/ext/payments/offer', { key: owner.key, body: { description: 'An offer for the matrix', price_cents: 1 } })).body
    .offer_id;
  checkoutId = (await api(server)('POST', '/ext/payments/checkout', { key: stranger.key, body: { offer_id: offerId } })).body.checkout_id;
  ownersSwarmId = (
    await api(server)('POST', '/swarm/sessions', {
      key: owner.key,
      body: { goal: 'A swarm for the matrix', strategy: 'parallel', steps: [{ capability: 'no-provider-here' }] },
    })
  ).body.session_id;
  // A site nobody serves (.invalid never resolves): the submission exists whatever becomes of it.
  webmcpSubmissionId = (await api(server)('POST', '/webmcp/submit', { body: { url: 'https://webmcp.invalid/' } })).body.submission_id;
  ownersUtoTicketId = (
    await api(server)('POST', '/uto/tickets', { key: owner.key, body: { intent: 'A ticket for the matrix', domain: 'matrix', context: {} } })
  ).body.id;
  ownersNotificationId = (await api(server)('POST', '/uto/notifications/subscribe', { key: owner.key, body: { eventTypes: ['*'], deliveryType: 'polling' } }))
    .body.subscriptionId;
  ownersConglomerateId = (
    await api(server)('POST', '/ammc/conglomerates', { key: owner.key, body: { goal: 'A conglomerate for the matrix', max_budget_usd: 10 } })
  ).body.id;
  await api(server)('PATCH', `/admin/agents/${suspended.agentId}/status`, { key: ADMIN_KEY, body: { status: 'SUSPENDED' } });
  await api(server)('PATCH', `/admin/agents/${banned.agentId}/status`, { key: ADMIN_KEY, body: { status: 'BANNED' } });
});
afterAll(() => server.close());

it('covers every route with a path parameter', () => {
  const withParams = routes.filter((r) => (Array.isArray(r.path) ? r.path : [r.path]).some((p) => p.includes(':'))).map(label);
  for (const l of withParams) expect(OWNED.has(l) || PUBLIC_PARAMS.has(l)).toBe(true);
});

describe.each(agentRoutes.map((r) => [label(r), r] as const))('%s', (_name, route) => {
  const call = (key?: string, headers: Record<string, string> = {}) =>
    api(server)(route.method, pathFor(route), { key, headers, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }) });

  it('answers 401 without a key, with a malformed key and with an unknown key', async () => {
    for (const res of [await call(), await call(undefined, { authorization: 'Bearer nonsense' }), await call(`key_master_${'U'.repeat(40)}`)]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
  });

  it('answers 403 to a suspended or banned agent', async () => {
    for (const agent of [suspended, banned]) {
      const res = await call(agent.key);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
  });

  it('answers 403 to the administrator key', async () => {
    const res = await call(ADMIN_KEY);
    expect(res.status).toBe(403);
  });

  if (OWNED.has(label(route))) {
    it("answers 404 to another agent's object", async () => {
      const body = OWNED.get(label(route));
      const res = await api(server)(route.method, pathFor(route), { key: stranger.key, ...(body === undefined ? {} : { body }) });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    });
  }
});

describe.each(adminRoutes.map((r) => [label(r), r] as const))('%s', (_name, route) => {
  it('answers 401 without a key and 403 to an agent key', async () => {
    const body = route.method === 'GET' ? {} : { body: { status: 'ACTIVE' } };
    expect((await api(server)(route.method, pathFor(route), body)).status).toBe(401);
    const res = await api(server)(route.method, pathFor(route), { key: owner.key, ...body });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
  });
});

describe.each(publicRoutes.filter((r) => r.method === 'GET').map((r) => [label(r), r] as const))('%s', (_name, route) => {
  it('needs no credential, and ignores a bad one', async () => {
    const path = pathFor(route);
    const status = PUBLIC_STATUS.get(label(route)) ?? 200;
    expect((await api(server)('GET', path)).status).toBe(status);
    expect((await api(server)('GET', path, { headers: { authorization: 'Bearer nonsense' } })).status).toBe(status);
  });
});

describe('every route with every kind of credential', () => {
  const credentials = () => ({
    none: undefined,
    malformed: 'Bearer nonsense',
    unknown: `Bearer key_master_${'U'.repeat(40)}`,
    agent: `Bearer ${owner.key}`,
    suspended: `Bearer ${suspended.key}`,
    admin: `Bearer ${ADMIN_KEY}`,
  });

  it.each(routes.map((r) => [label(r), r] as const))('%s answers within a second, never with a 5xx', async (_name, route) => {
    for (const [kind, authorization] of Object.entries(credentials())) {
      // A second on an idle machine; on one with more runnable processes than cores, a second per core's worth
      // of them (what the machine's load takes from each process). A request that waits on something that
      // never comes takes a timeout's seconds whatever the load.
      const withinMs = 1000 * Math.max(1, os.loadavg()[0] / os.cpus().length);
      const started = Date.now();
      const aborter = new AbortController();
      const res = await fetch(`${server.url}/api/v1${pathFor(route)}`, {
        method: route.method,
        headers: {
          ...(authorization ? { authorization } : {}),
          ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { 'content-type': 'application/json' }),
        },
        body: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
        signal: aborter.signal,
      });
      // A stream answers its headers at once and then stays open: the headers are the answer here.
      if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) aborter.abort();
      else await res.text();
      expect({ kind, status: res.status < 500 ? 'not 5xx' : res.status, fast: Date.now() - started < withinMs }).toEqual({
        kind,
        status: 'not 5xx',
        fast: true,
      });
    }
  });
});
