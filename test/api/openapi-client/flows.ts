// A program written against the OpenAPI document alone: types generated from it with openapi-typescript
// (`./openapi-types`, made when the test runs), calls made with openapi-fetch. It runs every REST operation
// of the specification, in the order a new user meets them, and says which it ran. The test type-checks it
// against the generated types before running it against a real server, so a document that says less than
// the server does (a missing field, a wrong type, a status it does not list) fails here.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { FlowEnv } from './env';
import type { paths } from './openapi-types';

type Api = Client<paths>;

/** The data of a successful answer with the expected status; otherwise fails with what the server said. */
async function ok<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>, status = 200): Promise<NonNullable<T>> {
  const { data, error, response } = await pending;
  if (response.status !== status || data === undefined || data === null) {
    throw new Error(`${response.url}: expected ${status}, got ${response.status}: ${JSON.stringify(error ?? data)}`);
  }
  return data as NonNullable<T>;
}

/** Opens an event stream, reads until its first bytes arrive, and closes it. */
async function firstBytes(pending: Promise<{ response: Response }>, controller: AbortController): Promise<void> {
  const { response } = await pending;
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`${response.url}: expected an event stream, got ${response.status}`);
  }
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort();
  await reader.cancel().catch(() => {});
}

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** Runs every flow; answers the operations it called (`POST /agents/register`, as the document names paths). */
export async function runFlows(env: FlowEnv): Promise<Set<string>> {
  const called = new Set<string>();
  const recorder: Middleware = {
    onRequest({ request, schemaPath }) {
      called.add(`${request.method} ${schemaPath}`);
      return undefined;
    },
  };
  const client = (key?: string): Api => {
    const c = createClient<paths>({ baseUrl: `${env.baseUrl}/api/v1`, headers: key ? { Authorization: `Bearer ${key}` } : {} });
    c.use(recorder);
    return c;
  };
  const anyone = client();
  const admin = client(env.adminKey);

  // The marketplace, before any key.
  const health = await ok(anyone.GET('/health'));
  if (health.status !== 'ok' && health.status !== 'degraded') throw new Error(`health ${health.status}`);
  await ok(anyone.GET('/ping'));
  await ok(anyone.GET('/version'));
  await ok(anyone.GET('/uptime', { params: { query: { days: 7 } } }));
  await ok(anyone.GET('/capabilities'));
  await ok(anyone.GET('/stats'));
  await ok(anyone.GET('/showcase'));
  await ok(anyone.GET('/tiers'));
  await ok(anyone.GET('/capabilities/pricing'));
  await ok(anyone.GET('/sparks'));
  await ok(anyone.GET('/agent-skills/marketplace'));
  await ok(anyone.GET('/memory/stores/public'));
  await ok(anyone.GET('/webmcp/tools', { params: { query: { q: 'execute capability' } } }));
  await ok(anyone.GET('/webmcp/stats'));
  await ok(anyone.GET('/webmcp/manifest'));
  await ok(anyone.GET('/acp/status'));
  await ok(anyone.GET('/acp/offerings'));
  await ok(anyone.GET('/acp/offerings/usdc'));
  await ok(anyone.GET('/x402/sandbox/status'));
  await ok(anyone.GET('/ammc/agents'));
  await ok(anyone.POST('/webmcp/submit', { body: { url: 'https://tools.example.invalid/.well-known/webmcp.json' } }), 202);

  // Two agents: a provider and its customer.
  const registered = await ok(anyone.POST('/agents/register', { body: { name: unique('provider'), description: 'Sells a capability', ownerEmail: 'provider@example.com' } }), 201);
  const seller = client(registered.master_key);
  const sellerId = registered.agent_id;
  const customer = await ok(anyone.POST('/agents/register', { body: { name: unique('customer'), description: 'Buys capabilities', ownerEmail: 'customer@example.com' } }), 201);
  const me = client(customer.master_key);
  const myId = customer.agent_id;

  const profile = await ok(me.GET('/agents/me'));
  if (profile.agent_id !== myId) throw new Error('GET /agents/me answered another agent');
  await ok(me.PATCH('/agents/me', { body: { description: 'Buys capabilities, and says so', capabilities: ['summarize'] } }));

  // The provider registers a priced service on its endpoint and sets the capability's price.
  const capability = unique('flow-cap').toLowerCase();
  const service = await ok(
    seller.POST('/services/register', {
      body: { name: 'Flow service', endpoint: env.providerUrl, capabilities: [capability], description: 'A service the flows call', pricing_model: 'per_call', costPerCall: 2, languages: ['en'] },
    }),
    201,
  );
  await ok(seller.POST('/capabilities/{capabilityId}/pricing', { params: { path: { capabilityId: capability } }, body: { cost_per_call: 2 } }));
  await ok(anyone.GET('/services', { params: { query: { capability, limit: 5 } } }));
  await ok(anyone.GET('/acp/offerings/{id}/payment-terms', { params: { path: { id: `${service.service_key}:${capability}` } } }));

  // The customer's wallet, funded.
  await ok(me.POST('/agents/{agentId}/wallet', { params: { path: { agentId: myId } }, body: {} }), 201);
  await ok(me.GET('/agents/{agentId}/wallet', { params: { path: { agentId: myId } } }));
  await ok(me.POST('/x402/sandbox/test-payment', { body: {} }));

  // Find, rank, run.
  const ranked = await ok(me.POST('/resolve', { body: { capability, prefer: 'cost', limit: 5 } }));
  if (ranked.matches[0]?.service_key !== service.service_key) throw new Error('resolve did not rank the service');
  await ok(me.GET('/resolve/quick', { params: { query: { capability } } }));
  const executed = await ok(me.POST('/execute', { body: { capability, input: { text: 'hello' } }, headers: { 'Idempotency-Key': unique('execute') } }));
  if (executed.status !== 'success') throw new Error(`execute: ${executed.status}`);
  const ticketRun = await ok(
    me.POST('/execute', { body: { capability: 'support-ticket', input: { type: 'question', subject: 'Flows', description: 'A ticket from the typed client', agentName: 'flows' } } }),
  );
  const ticketKey = (ticketRun.result as { ticket_key: string }).ticket_key;

  // Sub-keys for the service.
  const subKey = await ok(me.POST('/keys/provision/{serviceKey}', { params: { path: { serviceKey: service.service_key } }, body: {} }), 201);
  const verified = await ok(seller.POST('/keys/verify', { body: { key: subKey.sub_key } }));
  if (!verified.valid) throw new Error('a fresh sub-key did not verify');
  await ok(me.POST('/keys/{keyId}/rotate', { params: { path: { keyId: subKey.sub_key_id } } }), 201);

  // The customer's records.
  await ok(me.GET('/agents/me/usage'));
  await ok(me.GET('/agents/me/keys'));
  await ok(me.GET('/agents/me/transactions', { params: { query: { limit: 5, offset: 0 } } }));
  await ok(me.GET('/agents/me/analytics'));
  await ok(me.GET('/agents/me/executions'));
  await ok(me.GET('/my/reputation'));
  await ok(me.GET('/my/audit-log'));
  await ok(me.GET('/my/sparks'));

  // A dispute of the paid call, resolved by the administrator.
  const dispute = await ok(me.POST('/disputes', { body: { transaction_id: executed.transaction.transaction_id, reason: 'other', description: 'Checking the flow' } }), 201);
  await ok(me.GET('/agents/me/disputes'));
  await ok(admin.GET('/admin/disputes'));
  await ok(admin.PATCH('/admin/disputes/{disputeId}/resolve', { params: { path: { disputeId: dispute.dispute_id } }, body: { resolution: 'Looked at, nothing to refund' } }));

  // Support tickets, and the provider's ticket endpoint.
  await ok(me.GET('/tickets/{ticketKey}', { params: { path: { ticketKey } } }));
  await ok(me.POST('/tickets/{ticketKey}/comments', { params: { path: { ticketKey } }, body: { content: 'More detail' } }), 201);
  await ok(me.PATCH('/tickets/{ticketKey}/status', { params: { path: { ticketKey } }, body: { status: 'closed', resolution: 'Answered' } }));
  await ok(seller.POST('/tickets/register-endpoint', { body: { service_key: service.service_key, ticket_receive_url: env.receiverUrl, name: 'Helpdesk' } }), 201);
  await ok(seller.GET('/tickets/endpoints'));

  // Webhooks and scheduled subscriptions.
  await ok(me.POST('/webhooks', { body: { url: env.receiverUrl, events: ['*'] } }), 201);
  const subscription = await ok(me.POST('/subscriptions', { body: { capabilityId: capability, schedule: '0 0 1 1 *', deliveryMethod: 'sse', inputPayload: { text: 'yearly' } } }), 201);
  const subscriptionId = { params: { path: { id: subscription.id } } };
  await ok(me.GET('/subscriptions'));
  await ok(me.GET('/subscriptions/{id}', subscriptionId));
  await ok(me.PATCH('/subscriptions/{id}', { ...subscriptionId, body: { schedule: '0 0 1 2 *' } }));
  await ok(me.POST('/subscriptions/{id}/pause', subscriptionId));
  await ok(me.POST('/subscriptions/{id}/resume', subscriptionId));
  await ok(me.POST('/subscriptions/{id}/cancel', subscriptionId));

  // Memory.
  const store = await ok(me.POST('/memory/stores', { body: { name: unique('notes'), storeType: 'kv' } }), 201);
  const storeId = { params: { path: { id: store.id } } };
  await ok(me.GET('/memory/stores'));
  await ok(me.PUT('/memory/stores/{id}/entries', { ...storeId, body: { entries: [{ key: 'greeting', value: { text: 'hello' } }] } }));
  await ok(me.GET('/memory/stores/{id}/entries', storeId));
  await ok(me.POST('/memory/stores/{id}/search', { ...storeId, body: { prefix: 'greet' } }));

  // Streaming.
  const session = await ok(me.POST('/streaming/sessions', { body: { capabilityId: capability } }), 201);
  const sessionId = { params: { path: { id: session.id } } };
  const streaming = new AbortController();
  const events = firstBytes(me.GET('/streaming/sessions/{id}/events', { ...sessionId, parseAs: 'stream', signal: streaming.signal }), streaming);
  await ok(me.POST('/streaming/sessions/{id}/push', { ...sessionId, body: { data: { n: 1 } } }));
  await events;
  await ok(me.POST('/streaming/sessions/{id}/end', sessionId));

  // Skills.
  const skill = await ok(seller.POST('/agent-skills', { body: { name: unique('flow-skill'), runtime: 'python', entrypoint: 'main' } }), 201);
  const skillId = { params: { path: { id: skill.id } } };
  await ok(seller.POST('/agent-skills/{id}/publish', skillId));
  await ok(me.POST('/agent-skills/{id}/fork', skillId), 201);
  await ok(me.POST('/agent-skills/{id}/install', skillId));

  // A task delegated to a sub-agent, which executes it; a spark published from it.
  const sub = await ok(
    me.POST('/agents/{id}/sub-agents', { params: { path: { id: myId } }, body: { name: unique('helper'), description: 'Does the work', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [capability] } }),
    201,
  );
  const helper = client(sub.master_key);
  const task = await ok(me.POST('/tasks', { body: { intent: 'Summarise the day', success_criteria: ['a summary'] } }), 201);
  const taskId = { params: { path: { id: task.task_id } } };
  await ok(me.POST('/tasks/{id}/delegate', { ...taskId, body: { sub_agent_id: sub.id } }));
  await ok(helper.POST('/tasks/{id}/execute', { ...taskId, body: { capability, input: { text: 'the day' }, result: { summary: 'A good day' } } }));
  await ok(me.POST('/tasks/{id}/publish-spark', { ...taskId, body: { title: 'How the day went', content: 'Well', spark_type: 'insight' } }), 201);

  // A swarm.
  const swarm = await ok(me.POST('/swarm/sessions', { body: { goal: 'Two steps', strategy: 'sequential', steps: [{ capability, input: { n: 1 } }] } }), 201);
  await ok(me.GET('/swarm/sessions/{id}', { params: { path: { id: swarm.session_id } } }));
  await ok(me.GET('/swarm/sessions'));

  // Orchestration tickets and conglomerates.
  const domain = unique('launch');
  const uto = await ok(me.POST('/uto/tickets', { body: { intent: 'Plan a launch', domain, context: { product: 'flows' } } }), 201);
  const utoId = { params: { path: { id: uto.id } } };
  await ok(me.GET('/uto/tickets', { params: { query: { domain } } }));
  await ok(me.GET('/uto/tickets/{id}', utoId));
  await ok(me.POST('/uto/tickets/{id}/advance', { ...utoId, body: { target_state: 'validated', triggered_by: 'external' } }));
  const utoStream = new AbortController();
  await firstBytes(me.GET('/uto/events', { parseAs: 'stream', signal: utoStream.signal }), utoStream);
  await ok(me.POST('/uto/notifications/subscribe', { body: { eventTypes: ['*'], deliveryType: 'polling' } }), 201);
  await ok(seller.POST('/uto/agents/register-specialist', { body: { domain, capabilities: ['audit', 'review'] } }), 201);
  await ok(me.GET('/uto/agents/specialists', { params: { query: { domain } } }));
  const conglomerate = await ok(me.POST('/ammc/conglomerates', { body: { goal: 'Trade well', max_budget_usd: 100 } }), 201);
  await ok(me.POST('/ammc/conglomerates/{id}/advance', { params: { path: { id: conglomerate.id } }, body: { target_state: 'OPERATING' } }));
  await ok(me.GET('/ammc/stats'));

  // The third-party agent gateway.
  const external = await ok(seller.POST('/ext/agents/register', { body: { instance_url: env.instanceUrl, capabilities: [env.instanceCapability] } }), 201);
  const externalAgentId = external.external_agent.external_agent_id;
  await ok(seller.POST('/ext/gateway/connect', { body: { external_agent_id: externalAgentId } }));
  await ok(
    seller.POST('/ext/capabilities/register', {
      body: { name: unique('find').toLowerCase(), description: 'Finds things', input_schema: { type: 'object', properties: { q: { type: 'string' } } }, endpoint: `${env.instanceUrl}/find` },
    }),
    201,
  );
  await ok(me.GET('/ext/capabilities/search', { params: { query: { capability: env.instanceCapability } } }));
  await ok(me.POST('/ext/swarm/delegate', { body: { external_agent_id: externalAgentId, capability: env.instanceCapability, input: { city: 'Lyon' } } }));
  await ok(seller.GET('/ext/gateway/events'));
  const token = await ok(me.POST('/ext/vault/token', { body: { scopes: ['execute'], audience: 'https://agent.example', expires_in: 600 } }), 201);
  await ok(seller.POST('/ext/vault/verify', { body: { token: token.token } }));
  const tool = { name: 'get_forecast', description: 'The weather for a city', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
  await ok(me.POST('/ext/hub/convert', { body: { from: 'mcp', to: 'openapi', tool } }));
  await ok(me.POST('/ext/hub/import', { body: { format: 'mcp', tool: { ...tool, name: unique('forecast').replace(/-/g, '_') } } }), 201);
  const passport = await ok(me.GET('/ext/reputation/passport/{agentId}', { params: { path: { agentId: sellerId } } }));
  const checked = await ok(anyone.POST('/ext/reputation/verify', { body: { signature: passport.signature, passport: passport.passport } }));
  if (!checked.valid) throw new Error('a fresh passport did not verify');
  const offer = await ok(seller.POST('/ext/payments/offer', { body: { description: 'A forecast', price_cents: 25 } }), 201);
  await ok(me.POST('/ext/payments/checkout', { body: { offer_id: offer.offer_id } }));
  await ok(me.POST('/ext/radio/subscribe', { body: { channels: ['social-broadcast'] } }));
  const radio = new AbortController();
  await firstBytes(me.GET('/ext/radio/stream', { parseAs: 'stream', signal: radio.signal }), radio);

  // Administration.
  await ok(admin.PATCH('/admin/agents/{agentId}/status', { params: { path: { agentId: sellerId } }, body: { status: 'ACTIVE' } }));
  await ok(admin.GET('/admin/stats'));
  await ok(admin.GET('/admin/revenue'));

  return called;
}
