// The registry over REST and GraphQL: service registration and its validation (spec §8.3), the owner's
// changes, pausing, resuming and removing (seen by resolve and execute on their next request, on every
// instance), the public listing, the capability catalog and its prices, public statistics and the showcase.
import { api, besideServer, gql, onPostgres, registerAgent, registerService, serviceBody, startServer, uniqueSlug, type TestServer } from '../support/server';
import { base62 } from '../../src/platform/ids';
import { deactivateFailingServices } from '../../src/domain/services/lifecycle';
import { FakeClock } from '../support/clock';
import { clonePostgres } from '../support/databases';
import { within } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';

let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Awaited<ReturnType<typeof registerAgent>>;

beforeAll(async () => {
  // Limits are not under test here, and this file registers many services.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
  provider = await registerAgent(server);
});
afterAll(() => server.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Services written straight to the database (for listings that need many), oldest first. */
async function seedServices(agentId: string, capability: string, count: number, base = new Date('2026-01-01T00:00:00Z')) {
  const data = Array.from({ length: count }, (_, i) => ({
    serviceKey: `svc_${base62(24)}`,
    agentId,
    name: `seeded ${capability} ${i}`,
    description: 'A service seeded by a test',
    endpoint: 'https://provider.example.com/run',
    capabilities: [capability],
    pricingModel: 'per_call' as const,
    costPerCall: 1,
    signingSecret: 'whsec_x',
    createdAt: new Date(base.getTime() + i * 1000),
  }));
  await server.app.services.db.service.createMany({ data });
  return data;
}

function expectValidation(res: { status: number; headers: Headers; body: any }, path: string) {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path, message: expect.any(String) })]));
}

describe('POST /services/register', () => {
  it('creates an active service and shows its signing secret once', async () => {
    const slug = uniqueSlug();
    const body = serviceBody({ capabilities: [slug] });
    const res = await call('POST', '/services/register', { key: provider.key, body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      service_id: expect.stringMatching(UUID),
      service_key: expect.stringMatching(/^svc_[0-9A-Za-z]{24}$/),
      status: 'active',
      signing_secret: expect.stringMatching(/^whsec_.+/),
      name: body.name,
      endpoint: 'https://provider.example.com/run',
      capabilities: [slug],
      pricing_model: 'per_call',
      costPerCall: 5,
    });
    const listed = await call('GET', `/services?capability=${slug}`);
    expect(listed.status).toBe(200);
    expect(listed.body.services).toHaveLength(1);
    expect(listed.body.services[0].service_id).toBe(res.body.service_id);
    expect(listed.body.services[0]).not.toHaveProperty('signing_secret');
    expect(listed.text).not.toContain(res.body.signing_secret);
    expect(server.logs.join('\n')).not.toContain(res.body.signing_secret);
  });

  it('keeps the optional languages, pricing_details, and the spec spelling costPerCall', async () => {
    const slug = uniqueSlug();
    await registerService(server, provider.key, {
      capabilities: [slug],
      languages: ['en', 'pt-BR'],
      pricing_details: { tiers: [{ calls: 100, cents: 3 }] },
      cost_per_call: undefined,
      costPerCall: 7,
    });
    const listed = await call('GET', `/services?capability=${slug}`);
    expect(listed.body.services[0]).toMatchObject({ languages: ['en', 'pt-BR'], pricing_details: { tiers: [{ calls: 100, cents: 3 }] }, costPerCall: 7 });
  });

  it('reads a single capability as a list of one', async () => {
    const slug = uniqueSlug();
    const res = await call('POST', '/services/register', { key: provider.key, body: serviceBody({ capabilities: slug }) });
    expect(res.status).toBe(201);
    expect(res.body.capabilities).toEqual([slug]);
  });

  it('accepts a free service without a cost', async () => {
    const res = await call('POST', '/services/register', { key: provider.key, body: serviceBody({ pricing_model: 'free', cost_per_call: undefined }) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ pricing_model: 'free', costPerCall: 0 });
  });

  it.each([
    ['an http:// endpoint', 'endpoint', { endpoint: 'http://provider.example.com/run' }],
    ['an endpoint that is not a URL', 'endpoint', { endpoint: 'not a url' }],
    ['an endpoint with credentials', 'endpoint', { endpoint: 'https://user:secret@provider.example.com/run' }],
    ['a description under 10 characters', 'description', { description: 'too short' }],
    ['a missing name', 'name', { name: undefined }],
    ['a missing endpoint', 'endpoint', { endpoint: undefined }],
    ['a missing pricing_model', 'pricing_model', { pricing_model: undefined }],
    ['empty capabilities', 'capabilities', { capabilities: [] }],
    ['a capability that is not a slug', 'capabilities.1', { capabilities: ['summarize', 'Not A Slug!'] }],
    ['a pricing_model outside the enum', 'pricing_model', { pricing_model: 'weekly' }],
    ['a negative cost_per_call', 'cost_per_call', { cost_per_call: -1 }],
    ['a non-integer cost_per_call', 'cost_per_call', { cost_per_call: 1.5 }],
    ['a free service with a cost', 'cost_per_call', { pricing_model: 'free', cost_per_call: 5 }],
    ['a bad language code', 'languages.0', { languages: ['english'] }],
    ['pricing_details that is a string', 'pricing_details', { pricing_details: 'cheap' }],
    ['pricing_details that is a list', 'pricing_details', { pricing_details: [1, 2] }],
    ['an unknown field', 'colour', { colour: 'blue' }],
  ])('answers 400 for %s, naming %s', async (_label, path, overrides) => {
    const slug = uniqueSlug();
    const res = await call('POST', '/services/register', { key: provider.key, body: serviceBody({ capabilities: [slug], ...overrides }) });
    expectValidation(res, path);
    // Nothing was registered.
    expect((await call('GET', `/services?capability=${slug}`)).body.total).toBe(0);
  });

  it('names every bad field in one 400', async () => {
    const res = await call('POST', '/services/register', {
      key: provider.key,
      body: { name: 'ok', endpoint: 'http://x.example.com', capabilities: [], description: 'short', pricing_model: 'per_call', cost_per_call: -5 },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.path).sort()).toEqual(['capabilities', 'cost_per_call', 'description', 'endpoint']);
  });

  it('answers 401 without a key', async () => {
    const res = await call('POST', '/services/register', { body: serviceBody() });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });
});

describe('GET /services', () => {
  it('is public and lists newest first, with the provider, its reputation and fresh stats', async () => {
    const slug = uniqueSlug();
    const first = await registerService(server, provider.key, { capabilities: [slug] });
    const second = await registerService(server, provider.key, { capabilities: [slug, 'summarize'] });
    const res = await call('GET', `/services?capability=${slug}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.services.map((s: any) => s.service_id)).toEqual([second.service_id, first.service_id]);
    expect(res.body.services[0]).toMatchObject({
      service_id: second.service_id,
      service_key: second.service_key,
      name: second.name,
      description: 'at least ten characters',
      endpoint: 'https://provider.example.com/run',
      capabilities: [slug, 'summarize'],
      pricing_model: 'per_call',
      costPerCall: 5,
      status: 'active',
      reputation: 20,
      provider: { agent_id: provider.agentId, name: provider.name },
      stats: { success_rate: 0.5, total_calls: 0 },
      created_at: expect.any(String),
    });
  });

  it('pages with limit (default 20) and offset', async () => {
    const slug = uniqueSlug();
    const seeded = await seedServices(provider.agentId, slug, 23);
    const newestFirst = seeded.map((s) => s.serviceKey).reverse();
    const all = await call('GET', `/services?capability=${slug}`);
    expect(all.body.total).toBe(23);
    expect(all.body.services.map((s: any) => s.service_key)).toEqual(newestFirst.slice(0, 20));
    const rest = await call('GET', `/services?capability=${slug}&offset=20`);
    expect(rest.body).toMatchObject({ total: 23 });
    expect(rest.body.services.map((s: any) => s.service_key)).toEqual(newestFirst.slice(20));
    const page = await call('GET', `/services?capability=${slug}&limit=5&offset=5`);
    expect(page.body.services.map((s: any) => s.service_key)).toEqual(newestFirst.slice(5, 10));
    const max = await call('GET', `/services?capability=${slug}&limit=100`);
    expect(max.body.services).toHaveLength(23);
    const past = await call('GET', `/services?capability=${slug}&offset=50`);
    expect(past.body).toEqual({ services: [], total: 23 });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['min_reputation=101', 'min_reputation'],
    ['min_reputation=-1', 'min_reputation'],
    ['capability=Not%20A%20Slug', 'capability'],
  ])('answers 400 for %s naming %s', async (query, path) => {
    expectValidation(await call('GET', `/services?${query}`), path);
  });

  it('filters by capability', async () => {
    const a = uniqueSlug();
    const b = uniqueSlug();
    const sa = await registerService(server, provider.key, { capabilities: [a] });
    await registerService(server, provider.key, { capabilities: [b] });
    const res = await call('GET', `/services?capability=${a}`);
    expect(res.body.total).toBe(1);
    expect(res.body.services.map((s: any) => s.service_id)).toEqual([sa.service_id]);
    for (const s of (await call('GET', '/services?capability=summarize&limit=100')).body.services) expect(s.capabilities).toContain('summarize');
  });

  it("filters by the provider's min_reputation", async () => {
    const slug = uniqueSlug();
    const trusted = await registerAgent(server);
    await besideServer(server).agent.update({ where: { id: trusted.agentId }, data: { reputation: 80 } });
    const good = await registerService(server, trusted.key, { capabilities: [slug] });
    await registerService(server, provider.key, { capabilities: [slug] });
    const res = await call('GET', `/services?capability=${slug}&min_reputation=50`);
    expect(res.body.total).toBe(1);
    expect(res.body.services[0]).toMatchObject({ service_id: good.service_id, reputation: 80, provider: { agent_id: trusted.agentId } });
    expect((await call('GET', `/services?capability=${slug}&min_reputation=80`)).body.total).toBe(1);
    expect((await call('GET', `/services?capability=${slug}&min_reputation=81`)).body.total).toBe(0);
    expect((await call('GET', `/services?capability=${slug}&min_reputation=20`)).body.total).toBe(2);
  });

  it('leaves out the services of a suspended agent', async () => {
    const slug = uniqueSlug();
    const doomed = await registerAgent(server);
    await registerService(server, doomed.key, { capabilities: [slug] });
    const kept = await registerService(server, provider.key, { capabilities: [slug] });
    expect((await call('GET', `/services?capability=${slug}`)).body.total).toBe(2);
    await besideServer(server).agent.update({ where: { id: doomed.agentId }, data: { status: 'SUSPENDED' } });
    const res = await call('GET', `/services?capability=${slug}`);
    expect(res.body.total).toBe(1);
    expect(res.body.services.map((s: any) => s.service_id)).toEqual([kept.service_id]);
  });
});

const BUILTIN: Record<string, string[]> = {
  nlp: [
    'summarize',
    'translate',
    'sentiment',
    'classify',
    'code-review',
    'code-explain',
    'document-draft',
    'content-rewrite',
    'research-synthesize',
    'research-compare',
    'arabic-cultural',
    'arabic-poetry',
    'agent-vibe',
  ],
  web_automation: ['web-browse', 'web-extract', 'web-monitor', 'web-research'],
  radio: [
    'social-broadcast',
    'social-listen',
    'social-respond',
    'social-digest',
    'social-trending',
    'radio-caller-profile',
    'radio-leaderboard',
    'radio-agent-followers',
  ],
  security: ['skill-audit', 'trust-score'],
  books: ['partner-books-discover', 'partner-books-contribute'],
  ticketing: ['support-ticket', 'ticket-status', 'ticket-comment', 'ticket-list'],
};

describe('GET /capabilities', () => {
  it('lists the 33 built-in capabilities of spec §1 in their six groups', async () => {
    const res = await call('GET', '/capabilities');
    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThanOrEqual(33);
    expect(res.body.total).toBe(res.body.capabilities.length);
    const bySlug = new Map<string, any>(res.body.capabilities.map((c: any) => [c.slug, c]));
    expect(Object.values(BUILTIN).flat()).toHaveLength(33);
    for (const [group, slugs] of Object.entries(BUILTIN)) {
      for (const slug of slugs) {
        expect(bySlug.get(slug)).toMatchObject({ slug, name: expect.any(String), group, builtin: true, service_count: expect.any(Number) });
      }
      const node = res.body.hierarchy.find((h: any) => h.group === group);
      expect(node).toMatchObject({ group, name: expect.any(String) });
      expect([...node.capabilities].sort()).toEqual([...slugs].sort());
    }
    expect(res.body.hierarchy.filter((h: any) => h.group !== 'community').map((h: any) => h.group)).toEqual(Object.keys(BUILTIN));
  });

  it('counts the active services offering each capability', async () => {
    const count = async () => (await call('GET', '/capabilities')).body.capabilities.find((c: any) => c.slug === 'translate').service_count;
    const before = await count();
    await registerService(server, provider.key, { capabilities: ['translate'] });
    expect(await count()).toBe(before + 1);
  });

  it('adds the slugs services declare to a community group, refinements under their parent', async () => {
    const slug = uniqueSlug('novel');
    const before = await call('GET', '/capabilities');
    await registerService(server, provider.key, { capabilities: [slug, 'summarize.legal'] });
    const res = await call('GET', '/capabilities');
    expect(res.body.total).toBe(before.body.total + 2);
    const bySlug = new Map<string, any>(res.body.capabilities.map((c: any) => [c.slug, c]));
    expect(bySlug.get(slug)).toMatchObject({ slug, group: 'community', builtin: false, parent: null, service_count: 1 });
    expect(bySlug.get('summarize.legal')).toMatchObject({ group: 'community', builtin: false, parent: 'summarize', service_count: 1 });
    const community = res.body.hierarchy.find((h: any) => h.group === 'community');
    expect(community.capabilities).toEqual(expect.arrayContaining([slug, 'summarize.legal']));
    // Declaring it again adds nothing.
    await registerService(server, provider.key, { capabilities: [slug] });
    const again = await call('GET', '/capabilities');
    expect(again.body.total).toBe(res.body.total);
    expect(again.body.capabilities.find((c: any) => c.slug === slug).service_count).toBe(2);
  });
});

describe('GET /capabilities/pricing', () => {
  it('lists only paid capabilities with their min, max and average price, in cents and in USDC', async () => {
    const paid = uniqueSlug('paid');
    const free = uniqueSlug('free');
    await registerService(server, provider.key, { capabilities: [paid], cost_per_call: 10 });
    await registerService(server, provider.key, { capabilities: [paid], cost_per_call: 30 });
    await registerService(server, provider.key, { capabilities: [paid], cost_per_call: 35 });
    await registerService(server, provider.key, { capabilities: [free], pricing_model: 'free', cost_per_call: 0 });
    const res = await call('GET', '/capabilities/pricing?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(res.body.capabilities.length);
    expect(res.body.capabilities.find((c: any) => c.slug === paid)).toEqual({
      slug: paid,
      name: expect.any(String),
      service_count: 3,
      min_cost_cents: 10,
      max_cost_cents: 35,
      avg_cost_cents: 25,
      min_price: '0.100000',
      min_price_base_units: '100000',
      max_price: '0.350000',
      max_price_base_units: '350000',
    });
    expect(res.body.capabilities.find((c: any) => c.slug === free)).toBeUndefined();
    for (const c of res.body.capabilities) expect(c.min_cost_cents).toBeGreaterThan(0);
  });

  it('follows prices as they change, and offers that stop or start', async () => {
    const slug = uniqueSlug('moving');
    const seller = await registerAgent(server);
    const a = await registerService(server, seller.key, { capabilities: [slug], cost_per_call: 4 });
    await registerService(server, provider.key, { capabilities: [slug], cost_per_call: 6 });
    const range = async () => (await call('GET', '/capabilities/pricing?limit=100')).body.capabilities.find((c: any) => c.slug === slug);
    expect(await range()).toMatchObject({ service_count: 2, min_cost_cents: 4, max_cost_cents: 6, avg_cost_cents: 5 });
    await call('POST', `/capabilities/${slug}/pricing`, { key: seller.key, body: { cost_per_call: 20 } });
    expect(await range()).toMatchObject({ service_count: 2, min_cost_cents: 6, max_cost_cents: 20, avg_cost_cents: 13 });
    await call('POST', `/capabilities/${slug}/pricing`, { key: seller.key, body: { cost_per_call: 0 } });
    expect(await range()).toMatchObject({ service_count: 1, min_cost_cents: 6, max_cost_cents: 6, avg_cost_cents: 6 });
    await besideServer(server).service.update({ where: { id: a.service_id }, data: { status: 'inactive' } });
    await call('POST', `/capabilities/${slug}/pricing`, { key: seller.key, body: { cost_per_call: 50 } });
    expect(await range()).toMatchObject({ service_count: 1, max_cost_cents: 6 });
  });
});

describe('POST /capabilities/:capabilityId/pricing', () => {
  it("sets the caller's price for that capability on its services offering it, and nothing else", async () => {
    const slug = uniqueSlug('priced');
    const other = uniqueSlug('untouched');
    const me = await registerAgent(server);
    const stranger = await registerAgent(server);
    const first = await registerService(server, me.key, { capabilities: [slug], cost_per_call: 0, pricing_model: 'free' });
    const both = await registerService(server, me.key, { capabilities: [slug, other], cost_per_call: 8 });
    const mine = await registerService(server, me.key, { capabilities: [other], cost_per_call: 9 });
    const theirs = await registerService(server, stranger.key, { capabilities: [slug], cost_per_call: 3 });

    const res = await call('POST', `/capabilities/${slug}/pricing`, { key: me.key, body: { cost_per_call: 25 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pricing_set: true,
      capability: slug,
      costPerCall: 25,
      price: '0.250000',
      price_base_units: '250000',
      pricing_model: 'per_call',
      services_updated: 2,
      services: [
        { service_id: first.service_id, service_key: first.service_key, name: expect.any(String) },
        { service_id: both.service_id, service_key: both.service_key, name: expect.any(String) },
      ],
    });

    // The listing keeps each service's own costPerCall and shows the capability's price beside it.
    const listed = (await call('GET', `/services?capability=${slug}`)).body.services;
    const byId = Object.fromEntries(listed.map((s: any) => [s.service_id, s]));
    expect(byId[theirs.service_id]).toMatchObject({ costPerCall: 3, capability_prices: {} });
    expect(byId[first.service_id]).toMatchObject({ costPerCall: 0, capability_prices: { [slug]: 25 }, pricing_model: 'per_call' });
    expect(byId[both.service_id]).toMatchObject({ costPerCall: 8, capability_prices: { [slug]: 25 } });
    // Ranking prices the capability's offers at 25; the other capability of the same service keeps 8.
    const consumer = await registerAgent(server);
    const ranked = await call('POST', '/resolve', { key: consumer.key, body: { capability: slug, limit: 10 } });
    const prices = Object.fromEntries(ranked.body.matches.map((m: any) => [m.service_id, m.costPerCall]));
    expect(prices).toEqual({ [first.service_id]: 25, [both.service_id]: 25, [theirs.service_id]: 3 });
    const otherRanked = await call('POST', '/resolve', { key: consumer.key, body: { capability: other, limit: 10 } });
    expect(Object.fromEntries(otherRanked.body.matches.map((m: any) => [m.service_id, m.costPerCall]))).toEqual({ [both.service_id]: 8, [mine.service_id]: 9 });
  });

  it('takes the price in base units too, and one service only', async () => {
    const slug = uniqueSlug('units');
    const me = await registerAgent(server);
    const a = await registerService(server, me.key, { capabilities: [slug], cost_per_call: 1 });
    const b = await registerService(server, me.key, { capabilities: [slug], cost_per_call: 1 });
    const res = await call('POST', `/capabilities/${slug}/pricing`, { key: me.key, body: { costPerCallBaseUnits: '70000', service: b.service_key } });
    expect(res.body).toMatchObject({ costPerCall: 7, price_base_units: '70000', services_updated: 1, services: [{ service_id: b.service_id }] });
    const both = await call('POST', `/capabilities/${slug}/pricing`, {
      key: me.key,
      body: { cost_per_call: 7, cost_per_call_base_units: '70000', service: a.service_id },
    });
    expect(both.body).toMatchObject({ costPerCall: 7, services: [{ service_id: a.service_id }] });
    expectValidation(
      await call('POST', `/capabilities/${slug}/pricing`, { key: me.key, body: { cost_per_call: 7, cost_per_call_base_units: '80000' } }),
      'cost_per_call_base_units',
    );
    expectValidation(
      await call('POST', `/capabilities/${slug}/pricing`, { key: me.key, body: { cost_per_call_base_units: '12345' } }),
      'cost_per_call_base_units',
    );
    expectValidation(
      await call('POST', `/capabilities/${slug}/pricing`, { key: me.key, body: { cost_per_call_base_units: 70000 } }),
      'cost_per_call_base_units',
    );
    expectValidation(await call('POST', `/capabilities/${slug}/pricing`, { key: me.key, body: { cost_per_call: 5, pricing_model: 'free' } }), 'cost_per_call');
    expect((await call('POST', `/capabilities/${slug}/pricing`, { key: me.key, body: { cost_per_call: 5, service: 'svc_not_mine' } })).status).toBe(404);
  });

  it('answers 404 when the caller offers no such capability, 401 without a key, 400 for a bad price', async () => {
    const slug = uniqueSlug();
    const me = await registerAgent(server);
    await registerService(server, provider.key, { capabilities: [slug] });
    const none = await call('POST', `/capabilities/${slug}/pricing`, { key: me.key, body: { cost_per_call: 10 } });
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('not_found');
    expect((await call('POST', `/capabilities/${slug}/pricing`, { body: { cost_per_call: 10 } })).status).toBe(401);
    expectValidation(await call('POST', `/capabilities/${slug}/pricing`, { key: provider.key, body: { cost_per_call: -1 } }), 'cost_per_call');
    expectValidation(await call('POST', `/capabilities/${slug}/pricing`, { key: provider.key, body: {} }), 'costPerCall');
    expectValidation(await call('POST', '/capabilities/Not%20A%20Slug/pricing', { key: provider.key, body: { cost_per_call: 1 } }), 'capabilityId');
  });
});

describe('GET /stats', () => {
  const read = async () => {
    const res = await call('GET', '/stats');
    expect(res.status).toBe(200);
    return res.body;
  };

  it('answers the five totals, which move with registrations and transactions', async () => {
    const before = await read();
    expect(before).toEqual({
      total_agents: expect.any(Number),
      total_services: expect.any(Number),
      total_capabilities: expect.any(Number),
      total_transactions: expect.any(Number),
      total_transactions_30d: expect.any(Number),
    });
    expect(before.total_capabilities).toBeGreaterThanOrEqual(33);

    const agent = await registerAgent(server);
    await registerService(server, agent.key, { capabilities: [uniqueSlug('stat')] });
    const db = server.app.services.db;
    await db.transaction.create({ data: { agentId: agent.agentId, kind: 'charge', amountCents: 5 } });
    await db.transaction.create({ data: { agentId: agent.agentId, kind: 'charge', amountCents: 5, createdAt: new Date(Date.now() - 40 * 86_400_000) } });

    const after = await read();
    expect(after).toEqual({
      total_agents: before.total_agents + 1,
      total_services: before.total_services + 1,
      total_capabilities: before.total_capabilities + 1,
      total_transactions: before.total_transactions + 2,
      total_transactions_30d: before.total_transactions_30d + 1,
    });
  });
});

describe('GET /showcase', () => {
  it('answers stats, recent executions and the best-reputed services first', async () => {
    const star = await registerAgent(server);
    await besideServer(server).agent.update({ where: { id: star.agentId }, data: { reputation: 99 } });
    const shown = await registerService(server, star.key, { capabilities: [uniqueSlug('show')] });
    const res = await call('GET', '/showcase');
    expect(res.status).toBe(200);
    expect(res.body.stats).toEqual({
      total_agents: expect.any(Number),
      total_services: expect.any(Number),
      total_capabilities: expect.any(Number),
      total_transactions: expect.any(Number),
      total_transactions_30d: expect.any(Number),
    });
    expect(res.body.recent_executions).toEqual([]);
    expect(res.body.top_services.length).toBeGreaterThan(0);
    expect(res.body.top_services.length).toBeLessThanOrEqual(10);
    expect(res.body.top_services[0]).toEqual({
      service_id: shown.service_id,
      service_key: shown.service_key,
      name: shown.name,
      capabilities: shown.capabilities,
      reputation: 99,
      successes: 0,
      provider_name: star.name,
    });
    const reps = res.body.top_services.map((s: any) => s.reputation);
    expect(reps).toEqual([...reps].sort((a, b) => b - a));
  });
});

describe('GraphQL', () => {
  const SERVICES = `query($first: Int, $after: String, $capability: String) {
    services(first: $first, after: $after, capability: $capability) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage endCursor }
      nodes { id serviceId serviceKey name reputation provider { agentId } }
    }
  }`;

  it('pages Query.services with first and after', async () => {
    const slug = uniqueSlug('gql');
    const seeded = await seedServices(provider.agentId, slug, 5);
    const newestFirst = seeded.map((s) => s.serviceKey).reverse();
    const seen: string[] = [];
    let after: string | null = null;
    const pages: any[] = [];
    for (let i = 0; i < 3; i++) {
      const res: any = await gql(server, SERVICES, { first: 2, after, capability: slug });
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      const conn = res.body.data.services;
      pages.push(conn);
      expect(conn.totalCount).toBe(5);
      seen.push(...conn.nodes.map((n: any) => n.serviceKey));
      after = conn.pageInfo.endCursor;
    }
    expect(seen).toEqual(newestFirst);
    expect(pages.map((p) => p.nodes.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.pageInfo.hasNextPage)).toEqual([true, true, false]);
    expect(pages.map((p) => p.pageInfo.hasPreviousPage)).toEqual([false, true, true]);
    expect(pages[0].nodes[0]).toMatchObject({ reputation: 20, provider: { agentId: provider.agentId } });
  });

  it('fetches a Service by its global id with Query.node', async () => {
    const slug = uniqueSlug('node');
    const registered = await registerService(server, provider.key, { capabilities: [slug] });
    const listed: any = await gql(server, SERVICES, { capability: slug });
    const node = listed.body.data.services.nodes[0];
    expect(node.serviceId).toBe(registered.service_id);
    expect(node.id).not.toBe(registered.service_id);
    const res = await gql(
      server,
      'query($id: ID!) { node(id: $id) { __typename id ... on Service { serviceId serviceKey name } } }',
      { id: node.id },
      provider.key,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      node: { __typename: 'Service', id: node.id, serviceId: registered.service_id, serviceKey: registered.service_key, name: registered.name },
    });
  });

  it('registers a service with the registerService mutation', async () => {
    const slug = uniqueSlug('gqlreg');
    const res = await gql(
      server,
      'mutation($i: RegisterServiceInput!) { registerService(input: $i) { serviceId serviceKey status signingSecret service { id capabilities costPerCall } } }',
      {
        i: {
          name: 'Over GraphQL',
          endpoint: 'https://provider.example.com/run',
          capabilities: [slug],
          description: 'at least ten characters',
          pricingModel: 'per_call',
          costPerCall: 4,
        },
      },
      provider.key,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.registerService).toMatchObject({
      serviceId: expect.stringMatching(UUID),
      serviceKey: expect.stringMatching(/^svc_[0-9A-Za-z]{24}$/),
      status: 'active',
      signingSecret: expect.stringMatching(/^whsec_/),
      service: { capabilities: [slug], costPerCall: 4 },
    });
  });
});

describe('PATCH /services/:serviceKey: what a service says of itself', () => {
  it('changes the fields given, keeps the others, and answers with the service as it now is', async () => {
    const owner = await registerAgent(server);
    const [before, after] = [uniqueSlug('upd'), uniqueSlug('upd')];
    const svc = await registerService(server, owner.key, { capabilities: [before], languages: ['en'] });
    const res = await call('PATCH', `/services/${svc.service_key}`, {
      key: owner.key,
      body: {
        name: 'Renamed service',
        description: 'Now summarises longer documents',
        endpoint: 'https://other-provider.example.com/v2',
        capabilities: [after, before],
        cost_per_call: 9,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      service_key: svc.service_key,
      name: 'Renamed service',
      description: 'Now summarises longer documents',
      endpoint: 'https://other-provider.example.com/v2',
      capabilities: [after, before],
      costPerCall: 9,
      languages: ['en'],
      pricing_model: 'per_call',
      status: 'active',
    });
    const read = await call('GET', `/services/${svc.service_key}`);
    expect(read.body).toMatchObject({
      name: 'Renamed service',
      endpoint: 'https://other-provider.example.com/v2',
      capabilities: [after, before],
      costPerCall: 9,
    });
    // The capability it now offers is in the catalog and in the listing by capability.
    expect((await call('GET', `/services?capability=${after}`)).body.services.map((s: any) => s.service_key)).toEqual([svc.service_key]);
    expect((await call('GET', `/capabilities/${after}`)).status).toBe(200);
  });

  it('names every bad field in one 400, refuses null for what every service has, and answers 404 for another agent’s service', async () => {
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key);
    const bad = await call('PATCH', `/services/${svc.service_key}`, {
      key: owner.key,
      body: { endpoint: 'http://provider.example.com/run', description: 'short', capabilities: [], cost_per_call: -1, languages: ['not a code'] },
    });
    expectValidation(bad, 'endpoint');
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['capabilities', 'cost_per_call', 'description', 'endpoint', 'languages.0']);
    expectValidation(await call('PATCH', `/services/${svc.service_key}`, { key: owner.key, body: { name: null } }), 'name');
    expectValidation(await call('PATCH', `/services/${svc.service_key}`, { key: owner.key, body: { pricing_model: 'free' } }), 'pricing_model');
    expectValidation(await call('PATCH', `/services/${svc.service_key}`, { key: owner.key, body: { endpoint: 'https://127.0.0.1/run' } }), 'endpoint');
    // Nothing moved.
    expect((await call('GET', `/services/${svc.service_key}`)).body).toMatchObject({
      endpoint: 'https://provider.example.com/run',
      costPerCall: 5,
      pricing_model: 'per_call',
    });
    const stranger = await registerAgent(server);
    const res = await call('PATCH', `/services/${svc.service_key}`, { key: stranger.key, body: { name: 'Mine now' } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    // Free at last, with its price: both together.
    expect((await call('PATCH', `/services/${svc.service_key}`, { key: owner.key, body: { pricing_model: 'free', cost_per_call: 0 } })).body).toMatchObject({
      pricing_model: 'free',
      costPerCall: 0,
    });
  });

  it('restores optional defaults with null, and drops the prices of the capabilities it no longer offers', async () => {
    const owner = await registerAgent(server);
    const [kept, dropped] = [uniqueSlug('kept'), uniqueSlug('dropped')];
    const svc = await registerService(server, owner.key, { capabilities: [kept, dropped], languages: ['en', 'fr'], pricing_details: { tiers: [1, 2] } });
    for (const cap of [kept, dropped])
      expect((await call('POST', `/capabilities/${cap}/pricing`, { key: owner.key, body: { cost_per_call: 7 } })).status).toBe(200);
    const res = await call('PATCH', `/services/${svc.service_key}`, {
      key: owner.key,
      body: { capabilities: [kept], languages: null, pricing_details: null, cost_per_call: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ capabilities: [kept], languages: [], pricing_details: null, costPerCall: 0, capability_prices: { [kept]: 7 } });
    // A free service has no prices of its own left: the one left is refused by name.
    const free = await call('PATCH', `/services/${svc.service_key}`, { key: owner.key, body: { pricing_model: 'free' } });
    expectValidation(free, 'pricing_model');
    expect(free.body.errors[0].message).toContain(kept);
  });

  it('changes every field over GraphQL with updateService', async () => {
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key);
    const res = await gql(
      server,
      'mutation($k: String!, $i: UpdateServiceInput!) { updateService(serviceKey: $k, input: $i) { name description costPerCall pricingModel languages subKeyPolicy { permissions } } }',
      {
        k: svc.service_key,
        i: {
          name: 'Graph',
          description: 'Changed over GraphQL',
          costPerCall: 2,
          pricingModel: 'freemium',
          languages: ['de'],
          subKeyPolicy: { permissions: ['read', 'write'] },
        },
      },
      owner.key,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.updateService).toEqual({
      name: 'Graph',
      description: 'Changed over GraphQL',
      costPerCall: 2,
      pricingModel: 'freemium',
      languages: ['de'],
      subKeyPolicy: { permissions: ['read', 'write'] },
    });
  });
});

describe('pausing, resuming and removing a service', () => {
  it('pauses a service out of the listing, its key and its sub-keys, and resumes it into them', async () => {
    const owner = await registerAgent(server);
    const cap = uniqueSlug('pause');
    const svc = await registerService(server, owner.key, { capabilities: [cap] });
    const consumer = await registerAgent(server);
    const key = await call('POST', `/keys/provision/${svc.service_key}`, { key: consumer.key, body: {} });
    expect(key.status).toBe(201);
    const verify = () => call('POST', '/keys/verify', { body: { key: key.body.sub_key } });
    expect((await verify()).status).toBe(200);

    const paused = await call('POST', `/services/${svc.service_key}/pause`, { key: owner.key, body: { reason: 'Upgrading the model' } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ service_key: svc.service_key, status: 'paused', resume_at: null });
    expect((await call('GET', `/services/${svc.service_key}`)).status).toBe(404);
    expect((await call('GET', `/services?capability=${cap}`)).body).toEqual({ total: 0, services: [] });
    expect((await call('POST', `/keys/provision/${svc.service_key}`, { key: consumer.key, body: {} })).status).toBe(404);
    expect((await verify()).status).toBe(401);
    // A second pause is a move the table does not have.
    const again = await call('POST', `/services/${svc.service_key}/pause`, { key: owner.key, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already paused/);
    // Its owner still sees it, and may change it meanwhile.
    const mine = await call('GET', '/agents/me/services', { key: owner.key });
    expect(mine.body.services.find((s: any) => s.service_key === svc.service_key)).toMatchObject({ status: 'paused' });
    expect((await call('GET', '/my/services?status=paused', { key: owner.key })).body.services.map((s: any) => s.service_key)).toEqual([svc.service_key]);
    expect((await call('PATCH', `/services/${svc.service_key}`, { key: owner.key, body: { cost_per_call: 6 } })).body).toMatchObject({
      status: 'paused',
      costPerCall: 6,
    });

    const resumed = await call('POST', `/services/${svc.service_key}/resume`, { key: owner.key });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'active', costPerCall: 6 });
    expect((await call('GET', `/services/${svc.service_key}`)).status).toBe(200);
    expect((await call('GET', `/services?capability=${cap}`)).body.total).toBe(1);
    expect((await verify()).status).toBe(200);
    expect((await call('POST', `/services/${svc.service_key}/resume`, { key: owner.key })).status).toBe(409);

    // Each move is recorded, with who made it.
    const log = await call('GET', '/my/audit-log?limit=100', { key: owner.key });
    const moves = log.body.events.filter((e: any) => e.target_id === svc.service_id && /^service\.(paused|resumed)$/.test(e.action));
    expect(moves.map((e: any) => [e.action, e.details.from, e.details.to])).toEqual([
      ['service.resumed', 'paused', 'active'],
      ['service.paused', 'active', 'paused'],
    ]);
    expect(moves[1].details.reason).toBe('Upgrading the model');
  });

  it('removes a service for good: not found again, its sub-keys revoked, its ticket endpoint gone, its tickets still read', async () => {
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key);
    const consumer = await registerAgent(server);
    const key = await call('POST', `/keys/provision/${svc.service_key}`, { key: consumer.key, body: {} });
    expect(
      (
        await call('POST', '/tickets/register-endpoint', {
          key: owner.key,
          body: { service_key: svc.service_key, ticket_receive_url: 'https://helpdesk.example.com/in' },
        })
      ).status,
    ).toBe(201);
    const ticket = await call('POST', '/execute', {
      key: consumer.key,
      body: {
        capability: 'support-ticket',
        input: { type: 'question', subject: 'Before removal', description: 'Asked before it went', agentName: 'c', target_service: svc.service_key },
      },
    });
    expect(ticket.status).toBe(200);

    const removed = await call('DELETE', `/services/${svc.service_key}`, { key: owner.key });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ service_key: svc.service_key, status: 'removed', updated_at: expect.any(String) });
    expect((await call('GET', `/services/${svc.service_key}`)).status).toBe(404);
    for (const [method, path, body] of [
      ['DELETE', `/services/${svc.service_key}`, undefined],
      ['POST', `/services/${svc.service_key}/resume`, undefined],
      ['POST', `/services/${svc.service_key}/pause`, {}],
      ['PATCH', `/services/${svc.service_key}`, { name: 'Back' }],
    ] as const) {
      const res = await call(method, path, { key: owner.key, ...(body === undefined ? {} : { body }) });
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    expect((await call('POST', '/keys/verify', { body: { key: key.body.sub_key } })).status).toBe(401);
    const keys = await call('GET', '/agents/me/keys', { key: consumer.key });
    expect(keys.body.keys.find((k: any) => k.sub_key_id === key.body.sub_key_id)).toMatchObject({ status: 'revoked' });
    expect((await call('GET', '/tickets/endpoints', { key: owner.key })).body.endpoints).toEqual([]);
    expect((await call('GET', `/tickets/${ticket.body.result.ticket_key}`, { key: owner.key })).body).toMatchObject({ subject: 'Before removal' });
    // A new ticket cannot name it.
    const late = await call('POST', '/execute', {
      key: consumer.key,
      body: {
        capability: 'support-ticket',
        input: { type: 'question', subject: 'After removal', description: 'Too late', agentName: 'c', target_service: svc.service_key },
      },
    });
    expect(late.status).toBe(400);
    // Listed only when asked for.
    expect((await call('GET', '/agents/me/services', { key: owner.key })).body.services.map((s: any) => s.service_key)).not.toContain(svc.service_key);
    expect((await call('GET', '/agents/me/services?status=removed', { key: owner.key })).body).toMatchObject({
      total: 1,
      services: [{ service_key: svc.service_key, status: 'removed' }],
    });
    expectValidation(await call('GET', '/agents/me/services?status=gone', { key: owner.key }), 'status');
  });

  it("answers 404 for another agent's service, 401 without a key", async () => {
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key);
    const stranger = await registerAgent(server);
    for (const [method, path] of [
      ['POST', `/services/${svc.service_key}/pause`],
      ['POST', `/services/${svc.service_key}/resume`],
      ['DELETE', `/services/${svc.service_key}`],
    ] as const) {
      expect((await call(method, path, { key: stranger.key, ...(method === 'POST' ? { body: {} } : {}) })).status).toBe(404);
      expect((await call(method, path, method === 'POST' ? { body: {} } : {})).status).toBe(401);
    }
    expect((await call('GET', `/services/${svc.service_key}`)).body.status).toBe('active');
  });

  it('pauses, resumes and removes over GraphQL, and lists the caller’s services', async () => {
    const owner = await registerAgent(server);
    const svc = await registerService(server, owner.key);
    const move = async (mutation: string, extra = '') => {
      const res = await gql(
        server,
        `mutation($k: String!) { ${mutation}(serviceKey: $k${extra}) { serviceKey status resumeAt } }`,
        { k: svc.service_key },
        owner.key,
      );
      expect(res.body.errors).toBeUndefined();
      return res.body.data[mutation];
    };
    expect(await move('pauseService', ', input: { reason: "nightly" }')).toEqual({ serviceKey: svc.service_key, status: 'paused', resumeAt: null });
    const listed = await gql(server, '{ myServices(status: "paused") { totalCount nodes { serviceKey status } } }', undefined, owner.key);
    expect(listed.body.data.myServices).toEqual({ totalCount: 1, nodes: [{ serviceKey: svc.service_key, status: 'paused' }] });
    expect(await move('resumeService')).toMatchObject({ status: 'active' });
    expect(await move('removeService')).toMatchObject({ status: 'removed' });
    const gone = await gql(server, 'mutation($k: String!) { resumeService(serviceKey: $k) { status } }', { k: svc.service_key }, owner.key);
    expect(gone.body.errors![0].extensions!.code).toBe('NOT_FOUND');
  });
});

describe('resolve and execute see a service change on their next request', () => {
  let cached: TestServer;
  let other: TestServer | undefined;
  let dropShared: (() => Promise<void>) | undefined;
  const providers: Provider[] = [];

  beforeAll(async () => {
    assertTestCaTrusted();
    // A read-cache TTL beyond any test: what a request sees change was emptied by a mutation or a notification.
    const env = { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', READ_CACHE_MS: '60000' };
    if (onPostgres()) {
      // Two instances on one database: a change made through one is seen by the other's next request.
      const shared = await clonePostgres(process.env.DATABASE_URL!);
      dropShared = shared.drop;
      cached = await startServer({ databaseUrl: shared.url, env });
      other = await startServer({ databaseUrl: shared.url, env });
    } else {
      cached = await startServer({ env });
    }
  });
  afterAll(async () => {
    await Promise.all([cached?.close(), other?.close()]);
    await dropShared?.();
    await Promise.all(providers.map((p) => p.close()));
  });

  async function provider(name: string) {
    const p = await startProvider(name);
    providers.push(p);
    return p;
  }
  const execute = (on: TestServer, key: string, capability: string) => api(on)('POST', '/execute', { key, body: { capability, input: { text: 'hi' } } });
  const resolve = (on: TestServer, key: string, capability: string) => api(on)('POST', '/resolve', { key, body: { capability } });

  it('on the instance that made the change', async () => {
    const [a, b] = [await provider('a'), await provider('b')];
    const owner = await registerAgent(cached);
    const cap = uniqueSlug('next');
    const svc = await registerService(cached, owner.key, { endpoint: a.url, capabilities: [cap], pricing_model: 'free', cost_per_call: 0 });
    const caller = await registerAgent(cached);
    expect((await execute(cached, caller.key, cap)).body.result.served_by).toBe('a');
    expect((await resolve(cached, caller.key, cap)).body.total).toBe(1);

    expect(
      (await api(cached)('PATCH', `/services/${svc.service_key}`, { key: owner.key, body: { endpoint: b.url, description: 'Served from b now' } })).status,
    ).toBe(200);
    expect((await execute(cached, caller.key, cap)).body.result.served_by).toBe('b');
    expect((await resolve(cached, caller.key, cap)).body.matches[0].description).toBe('Served from b now');

    expect((await api(cached)('POST', `/services/${svc.service_key}/pause`, { key: owner.key, body: {} })).status).toBe(200);
    const calls = b.calls.length;
    expect((await resolve(cached, caller.key, cap)).body.total).toBe(0);
    expect((await execute(cached, caller.key, cap)).status).toBeGreaterThanOrEqual(400);
    expect(
      (await api(cached)('POST', '/execute', { key: caller.key, body: { capability: cap, input: {}, mode: 'chosen', provider: svc.service_key } })).status,
    ).toBe(404);
    expect(b.calls.length).toBe(calls);

    expect((await api(cached)('POST', `/services/${svc.service_key}/resume`, { key: owner.key })).status).toBe(200);
    expect((await execute(cached, caller.key, cap)).body.result.served_by).toBe('b');
    expect((await api(cached)('PATCH', `/services/${svc.service_key}`, { key: owner.key, body: { capabilities: [uniqueSlug('elsewhere')] } })).status).toBe(
      200,
    );
    expect((await resolve(cached, caller.key, cap)).body.total).toBe(0);
    expect(b.calls.length).toBe(calls + 1);
  });

  (onPostgres() ? it : it.skip)('on every other instance, through the database’s change notification', async () => {
    const [a, b] = [await provider('a'), await provider('b')];
    const owner = await registerAgent(cached);
    const cap = uniqueSlug('spread');
    const svc = await registerService(cached, owner.key, { endpoint: a.url, capabilities: [cap], pricing_model: 'free', cost_per_call: 0 });
    const caller = await registerAgent(cached);
    // The other instance has the ranking and the provider in its cache.
    expect((await execute(other!, caller.key, cap)).body.result.served_by).toBe('a');
    expect((await resolve(other!, caller.key, cap)).body.total).toBe(1);

    expect((await api(cached)('PATCH', `/services/${svc.service_key}`, { key: owner.key, body: { endpoint: b.url } })).status).toBe(200);
    const took = await within(2_000, async () => (await execute(other!, caller.key, cap)).body.result?.served_by === 'b');
    expect(took).toBeLessThan(2_000);

    expect((await api(cached)('POST', `/services/${svc.service_key}/pause`, { key: owner.key, body: {} })).status).toBe(200);
    await within(2_000, async () => (await resolve(other!, caller.key, cap)).body.total === 0);
    const calls = b.calls.length;
    expect((await execute(other!, caller.key, cap)).status).toBeGreaterThanOrEqual(400);
    expect(b.calls.length).toBe(calls);

    expect((await api(cached)('POST', `/services/${svc.service_key}/resume`, { key: owner.key })).status).toBe(200);
    await within(2_000, async () => (await resolve(other!, caller.key, cap)).body.total === 1);
    expect((await api(cached)('DELETE', `/services/${svc.service_key}`, { key: owner.key })).status).toBe(200);
    await within(2_000, async () => (await resolve(other!, caller.key, cap)).body.total === 0);
    expect((await execute(other!, caller.key, cap)).status).toBeGreaterThanOrEqual(400);
    expect(b.calls.length).toBe(calls);
  });
});

describe("the marketplace's states: suspended with its provider, inactive after a long run of failures (issue 46)", () => {
  const ADMIN_KEY = `key_admin_${'V'.repeat(40)}`;
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;
  const clock = new FakeClock();
  let states: TestServer;
  let at: ReturnType<typeof api>;
  const closing: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    assertTestCaTrusted();
    // No health probes: days pass on this server's clock in a step, and a probe claimed in that moment holds the
    // service's row, which the inactivity sweep skips (SKIP LOCKED) when it comes by at the same time.
    states = await startServer({ clock, env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROBE_INTERVAL_MS: '0' } });
    at = api(states);
  });
  afterAll(async () => {
    for (const c of closing) await c.close();
    await states.close();
  });

  const setStatus = async (agentId: string, status: string) =>
    expect((await at('PATCH', `/admin/agents/${agentId}/status`, { key: ADMIN_KEY, body: { status } })).status).toBe(200);
  const rows = async (keys: string[]) =>
    Object.fromEntries(
      (
        await states.app.services.db.service.findMany({ where: { serviceKey: { in: keys } }, select: { serviceKey: true, status: true, suspendedFrom: true } })
      ).map((r) => [r.serviceKey, [r.status, r.suspendedFrom]]),
    );

  it("suspends a provider's services with it, its sub-agents' too, in the same change, and gives each its status back when it is restored", async () => {
    const root = await registerAgent(states);
    const sub = await at('POST', `/agents/${root.agentId}/sub-agents`, {
      key: root.key,
      body: { name: `sub-${uniqueSlug('p')}`.slice(0, 50), description: 'Provides for its parent', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
    });
    expect(sub.status).toBe(201);
    const cap = uniqueSlug('held');
    const own = (await registerService(states, root.key, { capabilities: [cap] })).service_key;
    const [active, paused, removed] = [
      (await registerService(states, sub.body.master_key, { capabilities: [cap] })).service_key,
      (await registerService(states, sub.body.master_key, { capabilities: [cap] })).service_key,
      (await registerService(states, sub.body.master_key, { capabilities: [cap] })).service_key,
    ];
    expect((await at('POST', `/services/${paused}/pause`, { key: sub.body.master_key, body: {} })).status).toBe(200);
    expect((await at('DELETE', `/services/${removed}`, { key: sub.body.master_key })).status).toBe(200);
    const all = [own, active, paused, removed];

    await setStatus(root.agentId, 'SUSPENDED');
    expect(await rows(all)).toEqual({
      [own]: ['suspended', 'active'],
      [active]: ['suspended', 'active'],
      [paused]: ['suspended', 'paused'],
      [removed]: ['removed', null],
    });
    expect((await at('GET', `/services?capability=${cap}`)).body.total).toBe(0);
    // A ban after the suspension changes nothing more; each keeps the status it had.
    await setStatus(root.agentId, 'BANNED');
    expect((await rows(all))[paused]).toEqual(['suspended', 'paused']);
    // Only the marketplace moves a suspended service (its owner cannot act meanwhile, and the table has no move).
    const moves = await states.app.services.db.stateChange.count({ where: { subjectType: 'service', subjectId: active } });
    expect(moves).toBe(0);

    await setStatus(root.agentId, 'ACTIVE');
    expect(await rows(all)).toEqual({
      [own]: ['active', null],
      [active]: ['active', null],
      [paused]: ['paused', null],
      [removed]: ['removed', null],
    });
    const mine = await at('GET', '/my/services', { key: sub.body.master_key });
    expect(mine.body.services.map((s: any) => [s.service_key, s.status, s.status_reason])).toEqual(
      expect.arrayContaining([
        [active, 'active', null],
        [paused, 'paused', null],
      ]),
    );
    expect((await at('GET', `/services?capability=${cap}`)).body.total).toBe(2);

    // A sub-agent's own suspension suspends its services alone; its parent's stay.
    await setStatus(sub.body.agent_id, 'SUSPENDED');
    expect(await rows([own, active])).toEqual({ [own]: ['active', null], [active]: ['suspended', 'active'] });
    await setStatus(sub.body.agent_id, 'ACTIVE');
    expect(await rows([active])).toEqual({ [active]: ['active', null] });
  });

  it('takes a service out of service after 25 failed calls in a row and 3 days without a success, out of resolve and execute until its owner reactivates it', async () => {
    const failing = await startProvider('failing');
    closing.push(failing);
    failing.setDefault({ status: 500 });
    const owner = await registerAgent(states);
    const cap = uniqueSlug('failing');
    const svc = await registerService(states, owner.key, { endpoint: failing.url, capabilities: [cap], pricing_model: 'free', cost_per_call: 0 });
    const caller = await registerAgent(states);
    const call = () => at('POST', '/execute', { key: caller.key, body: { capability: cap, input: {}, mode: 'chosen', provider: svc.service_key } });
    // The fold wakes the quality job, which writes the service's row: the sweep skips a row another writer holds
    // (SKIP LOCKED), so the test lets that write finish before it sweeps.
    const fold = async () => {
      await states.app.services.providerStats.settled();
      await states.app.services.providerStats.foldOnce();
      await states.app.services.qualityJob?.settled();
    };
    const status = async () => (await at('GET', `/my/services`, { key: owner.key })).body.services.find((s: any) => s.service_key === svc.service_key);
    const deactivate = async () => (await deactivateFailingServices(states.app.services)).moved;

    for (let i = 0; i < 25; i++) expect((await call()).body.status).toBe('error');
    await fold();
    // 25 failures in a row, but not yet 3 days without a success.
    expect(await deactivate()).toBe(0);
    clock.advance(3 * DAY + HOUR);
    expect(await deactivate()).toBe(1);
    expect(await status()).toMatchObject({ status: 'inactive', status_reason: expect.stringContaining('25 in a row') });
    expect((await at('POST', '/resolve', { key: caller.key, body: { capability: cap } })).body.total).toBe(0);
    expect((await call()).status).toBe(404);
    const move = await states.app.services.db.stateChange.findFirstOrThrow({
      where: { subjectType: 'service', subjectId: svc.service_key, toState: 'inactive' },
    });
    expect(move).toMatchObject({ fromState: 'active', actorKind: 'system', note: expect.stringContaining('25 failed calls in a row') });

    // Its owner reactivates it; the run that took it out counts no more.
    const back = await at('POST', `/services/${svc.service_key}/resume`, { key: owner.key });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: 'active', status_reason: null });
    expect(await deactivate()).toBe(0);
    expect((await at('POST', '/resolve', { key: caller.key, body: { capability: cap } })).body.total).toBe(1);
    // A success ends a run: failures before it do not count towards the next.
    failing.behave({ status: 200 });
    expect((await call()).body.status).toBe('success');
    for (let i = 0; i < 24; i++) await call();
    await fold();
    clock.advance(3 * DAY + HOUR);
    // 24 failures since the success are not yet a long run.
    expect(await deactivate()).toBe(0);
    await call();
    await fold();
    // The scheduled sweep looks at a span of services a tick and goes on from where it stopped: span by span
    // (one service each here) it reaches this one and moves it, then finds the end and starts over.
    let after: string | undefined;
    let moved = 0;
    for (let spans = 0; spans < 10_000; spans++) {
      const tick = await deactivateFailingServices(states.app.services, after, 1);
      moved += tick.moved;
      if (tick.last === null) break;
      after = tick.last;
    }
    expect(moved).toBe(1);
    // A service that fails but succeeded lately, or one nobody calls, stays.
    expect(await deactivate()).toBe(0);
  });
});
