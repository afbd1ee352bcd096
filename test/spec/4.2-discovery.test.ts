// Spec §4.2 discovery and registry, with §2's Service record and §8's bounds on what discovery takes: resolve
// and its quick form, registering services, the public listings (services, capabilities, stats, showcase,
// tiers) and prices per capability, as a new user meets them over REST. Rate limits are 8-limits' subject.
import { errorPaths, expectProblem } from '../support/expect';
import { api, registerAgent, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

type Agent = Awaited<ReturnType<typeof registerAgent>>;

/** A service of `owner` (a new agent by default) offering `capabilities`, in the spec's field names. */
async function register(capabilities: string[], fields: Record<string, unknown> = {}, owner?: Agent) {
  const agent = owner ?? (await registerAgent(server));
  const res = await call('POST', '/services/register', {
    key: agent.key,
    body: {
      name: uniqueName('svc'),
      endpoint: 'https://provider.example.com/run',
      capabilities,
      description: 'A service a spec test registers',
      pricing_model: 'per_call',
      costPerCall: 5,
      ...fields,
    },
  });
  if (res.status !== 201) throw new Error(`service registration failed: ${res.status} ${res.text}`);
  return { owner: agent, serviceId: res.body.service_id as string, serviceKey: res.body.service_key as string, name: res.body.name as string };
}

const resolve = (key: string, body: Record<string, unknown>) => call('POST', '/resolve', { key, body });

describe('§4.2 POST /resolve', () => {
  it('§4.2 resolve answers 200 matches [{service_id, name, service_key, score, reputation, capabilities, description}], total, resolution_time_ms, query', async () => {
    const capability = uniqueSlug('spec-resolve');
    const svc = await register([capability]);
    const me = await registerAgent(server);
    const res = await resolve(me.key, { capability });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 1, resolution_time_ms: expect.any(Number), query: expect.objectContaining({ capability }) });
    expect(res.body.matches).toEqual([
      expect.objectContaining({
        service_id: svc.serviceId,
        name: svc.name,
        service_key: svc.serviceKey,
        score: expect.any(Number),
        reputation: expect.any(Number),
        capabilities: [capability],
        description: 'A service a spec test registers',
      }),
    ]);
    expect(Number.isInteger(res.body.matches[0].reputation)).toBe(true);
    expect(res.body.matches[0].score).toBeGreaterThan(0);
  });

  it('§4.2 prefer takes reputation, cost, latency or balanced; preferring cost ranks the cheaper provider first', async () => {
    const capability = uniqueSlug('spec-prefer');
    const pricey = await register([capability], { costPerCall: 90 });
    const cheap = await register([capability], { costPerCall: 1 });
    const me = await registerAgent(server);
    for (const prefer of ['reputation', 'cost', 'latency', 'balanced']) {
      const res = await resolve(me.key, { capability, prefer });
      expect({ prefer, status: res.status }).toEqual({ prefer, status: 200 });
      expect(res.body.query.prefer).toBe(prefer);
      expect(res.body.matches.map((m: any) => m.service_key).sort()).toEqual([pricey.serviceKey, cheap.serviceKey].sort());
    }
    const byCost = await resolve(me.key, { capability, prefer: 'cost' });
    expect(byCost.body.matches.map((m: any) => m.service_key)).toEqual([cheap.serviceKey, pricey.serviceKey]);
    expect(byCost.body.matches[0].score).toBeGreaterThan(byCost.body.matches[1].score);
    expectProblem(await resolve(me.key, { capability, prefer: 'fastest' }), 400, 'validation_failed');
  });

  it('§4.2 min_reputation and max_cost (cents per request) bound the matches, given flat or inside constraints', async () => {
    const capability = uniqueSlug('spec-bounds');
    const pricey = await register([capability], { costPerCall: 50 });
    const cheap = await register([capability], { costPerCall: 5 });
    const me = await registerAgent(server);
    const keys = (res: { body: any }) => res.body.matches.map((m: any) => m.service_key).sort();
    const reputation = (await resolve(me.key, { capability })).body.matches[0].reputation as number;

    for (const body of [{ max_cost: 5 }, { constraints: { max_cost: 5 } }]) {
      const res = await resolve(me.key, { capability, ...body });
      expect(res.status).toBe(200);
      expect(keys(res)).toEqual([cheap.serviceKey]);
      expect(res.body.total).toBe(1);
    }
    for (const body of [{ min_reputation: reputation }, { constraints: { min_reputation: reputation } }]) {
      expect(keys(await resolve(me.key, { capability, ...body }))).toEqual([pricey.serviceKey, cheap.serviceKey].sort());
    }
    for (const body of [{ min_reputation: reputation + 1 }, { constraints: { min_reputation: reputation + 1 } }]) {
      const res = await resolve(me.key, { capability, ...body });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ matches: [], total: 0 });
    }
    // §8.4 min_reputation ranges 0-100.
    for (const body of [{ min_reputation: 101 }, { min_reputation: -1 }, { constraints: { min_reputation: 101 } }]) {
      expectProblem(await resolve(me.key, { capability, ...body }), 400, 'validation_failed');
    }
  });

  it('§4.2 limit defaults to 10 (§8.6 resolve limit default 10)', async () => {
    const capability = uniqueSlug('spec-limit');
    const owner = await registerAgent(server);
    for (let i = 0; i < 11; i++) await register([capability], {}, owner);
    const me = await registerAgent(server);
    const res = await resolve(me.key, { capability });
    expect(res.status).toBe(200);
    expect(res.body.matches).toHaveLength(10);
    expect(res.body.total).toBe(11);
    expect(res.body.query.limit).toBe(10);
    expect((await resolve(me.key, { capability, limit: 3 })).body.matches).toHaveLength(3);
  });

  it('§4.2 capability is required', async () => {
    const me = await registerAgent(server);
    const res = await resolve(me.key, { prefer: 'cost' });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['capability']);
  });
});

describe('§4.2 GET /resolve/quick', () => {
  it('§4.2 resolve/quick answers 200 the single best match: service_id, name, match_score', async () => {
    const capability = uniqueSlug('spec-quick');
    await register([capability], { costPerCall: 60 });
    const best = await register([capability], { costPerCall: 1 });
    const me = await registerAgent(server);
    const res = await call('GET', `/resolve/quick?capability=${capability}&prefer=cost`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ service_id: best.serviceId, name: best.name, match_score: expect.any(Number) });
    // §5.5: listed as needing a bearer key in one description; we chose the safer.
    expectProblem(await call('GET', `/resolve/quick?capability=${capability}`), 401, 'unauthorized');
  });
});

describe('§4.2 POST /services/register', () => {
  it('§4.2 registering a service answers 201 service_id, service_key (svc_), status; §3 a new service is active', async () => {
    const me = await registerAgent(server);
    const capability = uniqueSlug('spec-register');
    const res = await call('POST', '/services/register', {
      key: me.key,
      body: {
        name: 'Contract reader',
        endpoint: 'https://provider.example.com/contracts',
        capabilities: [capability],
        description: 'Reads contracts and lists their clauses',
        pricing_model: 'freemium',
        languages: ['en', 'de'],
        pricing_details: { free_calls: 100 },
        costPerCall: 3,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      service_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      service_key: expect.stringMatching(/^svc_[0-9A-Za-z]{24}$/),
      status: 'active',
    });
    const listed = await call('GET', `/services?capability=${capability}`);
    expect(listed.body.services).toEqual([
      expect.objectContaining({
        service_id: res.body.service_id,
        service_key: res.body.service_key,
        name: 'Contract reader',
        status: 'active',
        capabilities: [capability],
      }),
    ]);
  });

  it('§4.2 pricing_model takes free, per_call, monthly, freemium', async () => {
    const me = await registerAgent(server);
    for (const pricing_model of ['free', 'per_call', 'monthly', 'freemium']) {
      const res = await call('POST', '/services/register', {
        key: me.key,
        body: {
          name: uniqueName('svc'),
          endpoint: 'https://provider.example.com/run',
          capabilities: ['summarize'],
          description: 'Priced in one of four ways',
          pricing_model,
          ...(pricing_model === 'free' ? {} : { costPerCall: 2 }),
        },
      });
      expect({ pricing_model, status: res.status }).toEqual({ pricing_model, status: 201 });
    }
    const bad = await call('POST', '/services/register', {
      key: me.key,
      body: {
        name: uniqueName('svc'),
        endpoint: 'https://provider.example.com/run',
        capabilities: ['summarize'],
        description: 'Priced in a fifth way',
        pricing_model: 'barter',
      },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['pricing_model']);
  });

  it('§4.2 name, endpoint, capabilities, description and pricing_model are required', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/services/register', { key: me.key, body: {} });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['capabilities', 'description', 'endpoint', 'name', 'pricing_model']);
  });

  it('§4.2 the endpoint is an HTTPS URI and the description has at least 10 characters (§8.3)', async () => {
    const me = await registerAgent(server);
    const body = {
      name: uniqueName('svc'),
      endpoint: 'https://provider.example.com/run',
      capabilities: ['summarize'],
      description: 'ten chars!',
      pricing_model: 'free',
    };
    expect((await call('POST', '/services/register', { key: me.key, body })).status).toBe(201);
    for (const [change, path] of [
      [{ endpoint: 'http://provider.example.com/run' }, 'endpoint'],
      [{ endpoint: 'not a uri' }, 'endpoint'],
      [{ description: 'nine char' }, 'description'],
    ] as const) {
      const res = await call('POST', '/services/register', { key: me.key, body: { ...body, name: uniqueName('svc'), ...change } });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual([path]);
    }
  });
});

describe('§4.2 GET /services', () => {
  it('§4.2 GET /services answers services and total with no credential; limit defaults to 20 and offset to 0 (§8.6)', async () => {
    const capability = uniqueSlug('spec-list');
    const owner = await registerAgent(server);
    for (let i = 0; i < 21; i++) await register([capability], {}, owner);
    const first = await call('GET', `/services?capability=${capability}`);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(21);
    expect(first.body.services).toHaveLength(20);
    expect(first.body.services.every((s: any) => s.capabilities.includes(capability))).toBe(true);
    const explicit = await call('GET', `/services?capability=${capability}&limit=20&offset=0`);
    expect(explicit.body.services.map((s: any) => s.service_key)).toEqual(first.body.services.map((s: any) => s.service_key));
    const rest = await call('GET', `/services?capability=${capability}&offset=20`);
    expect(rest.body.services).toHaveLength(1);
    expect(first.body.services.map((s: any) => s.service_key)).not.toContain(rest.body.services[0].service_key);
  });

  it('§4.2 GET /services filters by capability and min_reputation', async () => {
    const capability = uniqueSlug('spec-filter');
    const svc = await register([capability]);
    await register([uniqueSlug('spec-other')], {}, svc.owner);
    const mine = await call('GET', `/services?capability=${capability}`);
    expect(mine.body).toMatchObject({ total: 1, services: [expect.objectContaining({ service_key: svc.serviceKey })] });
    const reputation = (await call('GET', '/agents/me', { key: svc.owner.key })).body.reputation_score as number;
    expect((await call('GET', `/services?capability=${capability}&min_reputation=${reputation}`)).body.total).toBe(1);
    expect((await call('GET', `/services?capability=${capability}&min_reputation=${reputation + 1}`)).body).toMatchObject({ total: 0, services: [] });
    expectProblem(await call('GET', `/services?min_reputation=101`), 400, 'validation_failed');
  });
});

describe('§4.2 the public listings', () => {
  it('§4.2 GET /capabilities answers capabilities [{name, slug}], total and the hierarchy, with no credential', async () => {
    const res = await call('GET', '/capabilities');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(res.body.capabilities.length);
    for (const c of res.body.capabilities) expect(c).toMatchObject({ name: expect.any(String), slug: expect.any(String) });
    expect(res.body.capabilities.map((c: any) => c.slug)).toEqual(expect.arrayContaining(['summarize', 'web-extract', 'support-ticket']));
    expect(res.body.hierarchy).toEqual(
      expect.arrayContaining([expect.objectContaining({ group: 'nlp', capabilities: expect.arrayContaining(['summarize']) })]),
    );
  });

  it('§4.2 GET /stats answers total_agents, total_services, total_capabilities, total_transactions, total_transactions_30d', async () => {
    const before = await call('GET', '/stats');
    expect(before.status).toBe(200);
    for (const field of ['total_agents', 'total_services', 'total_capabilities', 'total_transactions', 'total_transactions_30d']) {
      expect({ field, value: typeof before.body[field] }).toEqual({ field, value: 'number' });
    }
    const me = await registerAgent(server);
    await register([uniqueSlug('spec-stats')], {}, me);
    await call('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: me.agentId } } });
    const after = (await call('GET', '/stats')).body;
    expect(after.total_agents).toBeGreaterThan(before.body.total_agents);
    expect(after.total_services).toBeGreaterThan(before.body.total_services);
    expect(after.total_capabilities).toBeGreaterThan(before.body.total_capabilities);
    expect(after.total_transactions).toBeGreaterThan(before.body.total_transactions);
    expect(after.total_transactions_30d).toBeGreaterThan(before.body.total_transactions_30d);
  });

  it('§4.2 GET /showcase answers stats, recent executions and top services, with no credential', async () => {
    const me = await registerAgent(server);
    const ran = await call('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: me.agentId } } });
    expect(ran.status).toBe(200);
    const res = await call('GET', '/showcase');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      stats: expect.objectContaining({ total_agents: expect.any(Number), total_services: expect.any(Number) }),
      recent_executions: expect.any(Array),
      top_services: expect.any(Array),
    });
    expect(res.body.recent_executions.map((e: any) => e.execution_id)).toContain(ran.body.execution_id);
  });

  it('§4.2 GET /tiers answers the tier definitions, ranges and privileges (§2 Newcomer 0-30, Contributor 31-60, Trusted 61-85, Star 86-100)', async () => {
    const res = await call('GET', '/tiers');
    expect(res.status).toBe(200);
    expect(res.body.tiers.map((t: any) => [t.tier, t.min_score, t.max_score])).toEqual([
      ['newcomer', 0, 30],
      ['contributor', 31, 60],
      ['trusted', 61, 85],
      ['star', 86, 100],
    ]);
    for (const t of res.body.tiers) expect(t.privileges.length).toBeGreaterThan(0);
  });

  it('§4.2 GET /capabilities/pricing answers the paid capabilities; POST /capabilities/:capabilityId/pricing answers 200 pricing_set', async () => {
    const capability = uniqueSlug('spec-price');
    const svc = await register([capability], { costPerCall: 7 });
    const paid = await call('GET', '/capabilities/pricing?limit=100');
    expect(paid.status).toBe(200);
    const listed = async () => {
      for (let offset = 0; ; offset += 100) {
        const page = (await call('GET', `/capabilities/pricing?limit=100&offset=${offset}`)).body;
        const found = page.capabilities.find((c: any) => c.slug === capability);
        if (found || page.capabilities.length < 100) return found;
      }
    };
    expect(await listed()).toMatchObject({ slug: capability, min_cost_cents: 7, max_cost_cents: 7 });

    const set = await call('POST', `/capabilities/${capability}/pricing`, { key: svc.owner.key, body: { cost_per_call: 12 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ pricing_set: true, capability });
    expect(await listed()).toMatchObject({ slug: capability, min_cost_cents: 12, max_cost_cents: 12 });
    const me = await registerAgent(server);
    expect((await resolve(me.key, { capability })).body.matches[0]).toMatchObject({ service_key: svc.serviceKey, costPerCall: 12 });
  });
});
