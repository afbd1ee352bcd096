// Discovery (spec §4.2): POST /resolve ranks the active providers of a capability, GET /resolve/quick
// names the best one, and Query.resolve is the same operation. Properties of the ranking and of its
// filters are checked with fast-check on services seeded straight into the database.
import fc from 'fast-check';
import { HEAD_DEPTH, MATCHES_STATEMENTS, RANK_STATEMENTS, TOTAL_SAMPLE, rankProviders } from '../../src/domain/discovery/ranking';
import { refreshOfferScores } from '../../src/domain/discovery/offer-scores';
import { readResolveQuery } from '../../src/domain/discovery/resolve';
import { PREFERENCES } from '../../src/domain/discovery/scoring';
import { ReadCache } from '../../src/platform/read-cache';
import { api, besideServer, gql, onPostgres, registerAgent, registerService, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';
import { base62 } from '../../src/platform/ids';
import { FakeClock } from '../support/clock';

let server: TestServer;
let call: ReturnType<typeof api>;
/** The consumer asking; it offers nothing. */
let consumer: Awaited<ReturnType<typeof registerAgent>>;
/** A provider at the newcomer reputation of 20. */
let provider: Awaited<ReturnType<typeof registerAgent>>;

beforeAll(async () => {
  // Limits are not under test here, and the properties resolve many times.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
  [consumer, provider] = await Promise.all([registerAgent(server), registerAgent(server)]);
});
afterAll(() => server.close());

/** A provider at the given reputation. */
async function providerWith(reputation: number) {
  const agent = await registerAgent(server);
  await besideServer(server).agent.update({ where: { id: agent.agentId }, data: { reputation } });
  return agent;
}

const resolve = (body: unknown) => call('POST', '/resolve', { key: consumer.key, body });

/** The i-th service a test writes straight to the database for `capability`, with the fields that vary. */
function seededService(capability: string, i: number, fields: { agentId: string; costPerCall: number; createdAt: Date } & Record<string, unknown>) {
  return {
    serviceKey: `svc_${base62(24)}`,
    name: `seeded ${i}`,
    description: 'A service seeded by a test',
    endpoint: 'https://provider.example.com/run',
    capabilities: [capability],
    pricingModel: 'per_call' as const,
    signingSecret: 'whsec_x',
    ...fields,
  };
}

/** Services written straight to the database, identical but for their price, all created at one instant. */
async function seedServices(agentId: string, capability: string, costs: number[]) {
  const createdAt = new Date();
  const data = costs.map((costPerCall, i) => seededService(capability, i, { agentId, costPerCall, createdAt }));
  await besideServer(server).service.createMany({ data });
  return data;
}

/** An agent written straight to the database. */
async function seedAgent(reputation: number) {
  const agent = await besideServer(server).agent.create({
    data: { agentKey: `ag_${base62(24)}`, name: uniqueName('seed'), description: 'Seeded by a test', ownerEmail: 'seed@example.com', reputation },
  });
  return agent.id;
}

function expectValidation(res: { status: number; headers: Headers; body: any }, path: string | RegExp) {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: typeof path === 'string' ? path : expect.stringMatching(path) })]));
}

const ids = (res: { body: any }) => res.body.matches.map((m: any) => m.service_id);

describe('POST /resolve', () => {
  it('answers 401 without a bearer key', async () => {
    const res = await call('POST', '/resolve', { body: { capability: 'summarize' } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('ranks the matches by score and explains each score', async () => {
    const slug = uniqueSlug();
    const trusted = await providerWith(75);
    await registerService(server, provider.key, { capabilities: [slug], cost_per_call: 40 });
    await registerService(server, trusted.key, { capabilities: [slug, 'summarize'], cost_per_call: 2, description: 'A trusted and cheap provider' });
    await registerService(server, provider.key, { capabilities: [slug], pricing_model: 'free', cost_per_call: 0 });
    const res = await resolve({ capability: slug });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, resolution_time_ms: expect.any(Number) });
    const scores = res.body.matches.map((m: any) => m.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const m of res.body.matches) {
      expect(m).toMatchObject({
        service_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: expect.any(String),
        service_key: expect.stringMatching(/^svc_[0-9A-Za-z]{24}$/),
        score: expect.any(Number),
        reputation: expect.any(Number),
        capabilities: expect.arrayContaining([slug]),
        description: expect.any(String),
      });
      expect(Number.isInteger(m.reputation)).toBe(true);
      expect(m.score).toBeGreaterThanOrEqual(0);
      expect(m.score).toBeLessThanOrEqual(100);
      const parts = m.score_breakdown;
      expect(Object.keys(parts).sort()).toEqual(['cost', 'freshness', 'latency', 'reliability', 'reputation']);
      const sum = parts.reputation + parts.cost + parts.reliability + parts.latency + parts.freshness;
      expect(Math.abs(sum - m.score)).toBeLessThanOrEqual(0.05);
    }
    expect(res.body.matches[0]).toMatchObject({ reputation: 75, description: 'A trusted and cheap provider', capabilities: [slug, 'summarize'] });
  });

  it('scores a new free service of a newcomer by the documented balanced weights', async () => {
    const slug = uniqueSlug();
    await registerService(server, provider.key, { capabilities: [slug], pricing_model: 'free', cost_per_call: 0 });
    const [m] = (await resolve({ capability: slug })).body.matches;
    // reputation 0.3 × 20/100, cost 0.2 × 1, reliability 0.25 × 0.5 (prior), latency 0.15 × 0.5 (unknown), freshness 0.1 × ~1.
    expect(m.score_breakdown).toEqual({ reputation: 6, cost: 20, reliability: 12.5, latency: 7.5, freshness: expect.closeTo(10, 1) });
    expect(m.score).toBeCloseTo(56, 1);
  });

  it('counts every qualifying provider in total while returning at most limit', async () => {
    const slug = uniqueSlug();
    await seedServices(provider.agentId, slug, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const byDefault = await resolve({ capability: slug });
    expect(byDefault.body.matches).toHaveLength(10);
    expect(byDefault.body.total).toBe(12);
    expect(byDefault.body.total_is_estimate).toBe(false);
    // A limit over a capability of no more than TOTAL_SAMPLE offers counts them all.
    const limited = await resolve({ capability: slug, max_cost: 11 });
    expect(limited.body).toMatchObject({ total: 11, total_is_estimate: false });
    const two = await resolve({ capability: slug, limit: 2 });
    expect(two.body.matches).toHaveLength(2);
    expect(two.body.total).toBe(12);
    expect(two.body.query.limit).toBe(2);
    expect(ids(two)).toEqual(ids(byDefault).slice(0, 2));
    expect((await resolve({ capability: slug, limit: 100 })).body.matches).toHaveLength(12);
    expect((await resolve({ capability: slug, limit: 1 })).body.matches).toHaveLength(1);
  });

  it(`estimates a limited total from a sample of ${TOTAL_SAMPLE} offers when the capability has more, and says so`, async () => {
    const slug = uniqueSlug();
    const [low, high] = await Promise.all([seedAgent(20), seedAgent(80)]);
    // 300 offers: half of them by a provider of reputation 80, three of those at 1 cent, the rest at 50.
    await seedServices(low, slug, Array(150).fill(50));
    await seedServices(high, slug, [1, 1, 1, ...Array(147).fill(50)]);
    expect((await resolve({ capability: slug })).body).toMatchObject({ total: 300, total_is_estimate: false });
    const half = await resolve({ capability: slug, min_reputation: 50 });
    expect(half.body.matches).toHaveLength(10);
    expect(half.body.total_is_estimate).toBe(true);
    // Four standard errors of a sample of 200 of 300 (without replacement) for a share of one half: ±25.
    expect(Math.abs(half.body.total - 150)).toBeLessThanOrEqual(25);
    // Fewer than `limit` qualify: the ranking itself read them all, so the total is exact.
    expect((await resolve({ capability: slug, max_cost: 1 })).body).toMatchObject({ total: 3, total_is_estimate: false });
    // Over GraphQL too.
    const res = await gql(
      server,
      `query($input: ResolveInput!) { resolve(input: $input) { total totalIsEstimate } }`,
      { input: { capability: slug, minReputation: 50 } },
      consumer.key,
    );
    expect(res.body.data.resolve.totalIsEstimate).toBe(true);
  });

  it('puts the cheapest first with prefer cost and the best-reputed first with prefer reputation', async () => {
    const slug = uniqueSlug();
    const star = await providerWith(90);
    const reputable = await registerService(server, star.key, { capabilities: [slug], cost_per_call: 20 });
    const cheap = await registerService(server, provider.key, { capabilities: [slug], pricing_model: 'free', cost_per_call: 0 });
    const middling = await registerService(server, provider.key, { capabilities: [slug], cost_per_call: 10 });
    const byCost = await resolve({ capability: slug, prefer: 'cost' });
    expect(ids(byCost)).toEqual([cheap.service_id, middling.service_id, reputable.service_id]);
    expect(byCost.body.query.prefer).toBe('cost');
    const byReputation = await resolve({ capability: slug, prefer: 'reputation' });
    expect(ids(byReputation)[0]).toBe(reputable.service_id);
    expect(byReputation.body.matches[0].reputation).toBe(90);
    for (const prefer of ['latency', 'balanced']) expect((await resolve({ capability: slug, prefer })).status).toBe(200);
  });

  describe('filters', () => {
    let slug: string;
    let low: { service_id: string };
    let high: { service_id: string };
    let dear: { service_id: string };

    beforeAll(async () => {
      slug = uniqueSlug('filters');
      const star = await providerWith(85);
      low = await registerService(server, provider.key, { capabilities: [slug], cost_per_call: 5 }); // reputation 20
      high = await registerService(server, star.key, { capabilities: [slug], cost_per_call: 5 }); // reputation 85
      dear = await registerService(server, star.key, { capabilities: [slug], cost_per_call: 50 }); // reputation 85
    });

    const matched = async (body: Record<string, unknown>) => {
      const res = await resolve({ capability: slug, ...body });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(res.body.matches.length);
      return new Set<string>(ids(res));
    };

    it('applies min_reputation flat or inside constraints', async () => {
      for (const body of [{ min_reputation: 50 }, { constraints: { min_reputation: 50 } }]) {
        expect(await matched(body)).toEqual(new Set([high.service_id, dear.service_id]));
      }
      expect(await matched({ min_reputation: 85 })).toEqual(new Set([high.service_id, dear.service_id]));
      expect(await matched({ min_reputation: 86 })).toEqual(new Set());
      expect(await matched({ min_reputation: 0 })).toEqual(new Set([low.service_id, high.service_id, dear.service_id]));
    });

    it('applies max_cost in cents flat or inside constraints', async () => {
      for (const body of [{ max_cost: 10 }, { constraints: { max_cost: 10 } }]) {
        expect(await matched(body)).toEqual(new Set([low.service_id, high.service_id]));
      }
      expect(await matched({ max_cost: 50 })).toEqual(new Set([low.service_id, high.service_id, dear.service_id]));
      expect(await matched({ max_cost: 49.9 })).toEqual(new Set([low.service_id, high.service_id]));
      expect(await matched({ max_cost: 4 })).toEqual(new Set());
    });

    it('combines the constraints', async () => {
      expect(await matched({ constraints: { min_reputation: 50, max_cost: 10 } })).toEqual(new Set([high.service_id]));
      expect(await matched({ min_reputation: 50, constraints: { max_cost: 10 } })).toEqual(new Set([high.service_id]));
    });

    it('lets the flat value win when both are given', async () => {
      const res = await resolve({ capability: slug, max_cost: 100, min_reputation: 0, constraints: { max_cost: 5, min_reputation: 90 } });
      expect(new Set(ids(res))).toEqual(new Set([low.service_id, high.service_id, dear.service_id]));
      expect(res.body.query).toMatchObject({ max_cost: 100, min_reputation: 0 });
      const strict = await resolve({ capability: slug, max_cost: 5, min_reputation: 50, constraints: { max_cost: 100, min_reputation: 0 } });
      expect(ids(strict)).toEqual([high.service_id]);
    });
  });

  it('keeps services that declare the language or none, flat or inside constraints', async () => {
    const slug = uniqueSlug('lang');
    const english = await registerService(server, provider.key, { capabilities: [slug], languages: ['en'] });
    const any = await registerService(server, provider.key, { capabilities: [slug] });
    const bilingual = await registerService(server, provider.key, { capabilities: [slug], languages: ['en', 'fr'] });
    for (const body of [{ language: 'fr' }, { constraints: { language: 'fr' } }]) {
      const res = await resolve({ capability: slug, ...body });
      expect(new Set(ids(res))).toEqual(new Set([any.service_id, bilingual.service_id]));
      expect(res.body.total).toBe(2);
      expect(res.body.query.language).toBe('fr');
    }
    expect(new Set(ids(await resolve({ capability: slug, language: 'en' })))).toEqual(new Set([english.service_id, any.service_id, bilingual.service_id]));
    expect(new Set(ids(await resolve({ capability: slug, language: 'de' })))).toEqual(new Set([any.service_id]));
    expect((await resolve({ capability: slug })).body.total).toBe(3);
    // Flat wins here too.
    expect(new Set(ids(await resolve({ capability: slug, language: 'de', constraints: { language: 'en' } })))).toEqual(new Set([any.service_id]));
  });

  it('offers only active services of ACTIVE agents', async () => {
    const slug = uniqueSlug('active');
    const suspended = await registerAgent(server);
    const banned = await registerAgent(server);
    await registerService(server, suspended.key, { capabilities: [slug] });
    await registerService(server, banned.key, { capabilities: [slug] });
    const retired = await registerService(server, provider.key, { capabilities: [slug] });
    const live = await registerService(server, provider.key, { capabilities: [slug] });
    expect((await resolve({ capability: slug })).body.total).toBe(4);
    const db = besideServer(server);
    await db.agent.update({ where: { id: suspended.agentId }, data: { status: 'SUSPENDED' } });
    await db.agent.update({ where: { id: banned.agentId }, data: { status: 'BANNED' } });
    await db.service.update({ where: { id: retired.service_id }, data: { status: 'inactive' } });
    const res = await resolve({ capability: slug });
    expect(ids(res)).toEqual([live.service_id]);
    expect(res.body.total).toBe(1);
  });

  it('answers no matches for a capability nobody offers', async () => {
    const res = await resolve({ capability: uniqueSlug('nobody') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ matches: [], total: 0 });
  });

  it('echoes the query as understood, with the defaults', async () => {
    const slug = uniqueSlug();
    expect((await resolve({ capability: slug })).body.query).toEqual({
      capability: slug,
      prefer: 'balanced',
      min_reputation: null,
      max_cost: null,
      language: null,
      limit: 10,
    });
    const res = await resolve({ capability: slug, prefer: 'cost', limit: 3, constraints: { min_reputation: 40, max_cost: 25, language: 'en' } });
    expect(res.body.query).toEqual({ capability: slug, prefer: 'cost', min_reputation: 40, max_cost: 25, language: 'en', limit: 3 });
  });

  it.each([
    ['a missing capability', 'capability', {}],
    ['a capability that is not a slug', 'capability', { capability: 'Not a slug!' }],
    ['an empty capability', 'capability', { capability: '' }],
    ['an unknown prefer', 'prefer', { capability: 'summarize', prefer: 'cheapest' }],
    ['min_reputation 101', 'min_reputation', { capability: 'summarize', min_reputation: 101 }],
    ['min_reputation -1', 'min_reputation', { capability: 'summarize', min_reputation: -1 }],
    ['min_reputation 101 in constraints', /^(constraints\.)?min_reputation$/, { capability: 'summarize', constraints: { min_reputation: 101 } }],
    ['a negative max_cost', 'max_cost', { capability: 'summarize', max_cost: -1 }],
    ['limit 0', 'limit', { capability: 'summarize', limit: 0 }],
    ['limit 101', 'limit', { capability: 'summarize', limit: 101 }],
  ])('answers 400 for %s, naming %s', async (_label, path, body) => {
    expectValidation(await resolve(body), path);
  });
});

describe('POST /resolve after changes', () => {
  it("follows a provider's reputation and status changing after registration", async () => {
    const slug = uniqueSlug('rerank');
    const rising = await registerAgent(server);
    const risingService = await registerService(server, rising.key, { capabilities: [slug] });
    const steady = await registerService(server, provider.key, { capabilities: [slug] });
    expect((await resolve({ capability: slug, min_reputation: 50 })).body.total).toBe(0);
    await besideServer(server).agent.update({ where: { id: rising.agentId }, data: { reputation: 90 } });
    const res = await resolve({ capability: slug, min_reputation: 50 });
    expect(ids(res)).toEqual([risingService.service_id]);
    expect(res.body.matches[0].reputation).toBe(90);
    expect(ids(await resolve({ capability: slug, prefer: 'reputation' }))).toEqual([risingService.service_id, steady.service_id]);
    await besideServer(server).agent.update({ where: { id: rising.agentId }, data: { status: 'SUSPENDED' } });
    expect(ids(await resolve({ capability: slug }))).toEqual([steady.service_id]);
    await besideServer(server).agent.update({ where: { id: rising.agentId }, data: { status: 'ACTIVE' } });
    expect((await resolve({ capability: slug })).body.total).toBe(2);
  });

  it('follows a price set after registration', async () => {
    const slug = uniqueSlug('reprice');
    const seller = await registerAgent(server);
    const repriced = await registerService(server, seller.key, { capabilities: [slug], cost_per_call: 80 });
    const other = await registerService(server, provider.key, { capabilities: [slug], cost_per_call: 20 });
    expect(ids(await resolve({ capability: slug, max_cost: 30 }))).toEqual([other.service_id]);
    expect((await call('POST', `/capabilities/${slug}/pricing`, { key: seller.key, body: { cost_per_call: 2 } })).status).toBe(200);
    const res = await resolve({ capability: slug, max_cost: 30, prefer: 'cost' });
    expect(ids(res)).toEqual([repriced.service_id, other.service_id]);
    expect(res.body.matches[0].costPerCall).toBe(2);
  });
});

describe('GET /resolve/quick', () => {
  it('answers the single best match', async () => {
    const slug = uniqueSlug('quick');
    const star = await providerWith(95);
    const reputable = await registerService(server, star.key, { capabilities: [slug], cost_per_call: 30 });
    const cheap = await registerService(server, provider.key, { capabilities: [slug], pricing_model: 'free', cost_per_call: 0 });
    const byCost = await call('GET', `/resolve/quick?capability=${slug}&prefer=cost`, { key: consumer.key });
    expect(byCost.status).toBe(200);
    expect(byCost.body).toMatchObject({ service_id: cheap.service_id, name: cheap.name, service_key: cheap.service_key, match_score: expect.any(Number) });
    const full = await resolve({ capability: slug, prefer: 'cost' });
    expect(byCost.body.match_score).toBeCloseTo(full.body.matches[0].score, 1);
    const byReputation = await call('GET', `/resolve/quick?capability=${slug}&prefer=reputation`, { key: consumer.key });
    expect(byReputation.body).toMatchObject({ service_id: reputable.service_id, service_key: reputable.service_key });
  });

  it('answers 404 when nobody offers it, 400 without a capability, 401 without a key', async () => {
    const none = await call('GET', `/resolve/quick?capability=${uniqueSlug('nobody')}`, { key: consumer.key });
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('not_found');
    expectValidation(await call('GET', '/resolve/quick', { key: consumer.key }), 'capability');
    expectValidation(await call('GET', '/resolve/quick?capability=summarize&prefer=cheapest', { key: consumer.key }), 'prefer');
    expect((await call('GET', '/resolve/quick?capability=summarize')).status).toBe(401);
  });
});

describe('Query.resolve', () => {
  it('ranks the same way as POST /resolve', async () => {
    const slug = uniqueSlug('gql');
    await registerService(server, provider.key, { capabilities: [slug], cost_per_call: 40 });
    const cheap = await registerService(server, provider.key, { capabilities: [slug], cost_per_call: 3 });
    const mid = await registerService(server, provider.key, { capabilities: [slug], cost_per_call: 12 });
    const res = await gql(
      server,
      `query($input: ResolveInput!) { resolve(input: $input) {
        matches { serviceId serviceKey score costCents scoreBreakdown { reputation cost reliability latency freshness } }
        total query { capability prefer maxCost limit }
      } }`,
      { input: { capability: slug, prefer: 'cost', maxCost: 30 } },
      consumer.key,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const out = res.body.data.resolve;
    expect(out.matches.map((m: any) => m.serviceId)).toEqual([cheap.service_id, mid.service_id]);
    expect(out.total).toBe(2);
    expect(out.query).toEqual({ capability: slug, prefer: 'cost', maxCost: 30, limit: 10 });
    const rest = await resolve({ capability: slug, prefer: 'cost', max_cost: 30 });
    expect(out.matches.map((m: any) => m.score)).toEqual(rest.body.matches.map((m: any) => expect.closeTo(m.score, 1)));
  });

  it('needs a key', async () => {
    const res = await gql(server, 'query { resolve(input: { capability: "summarize" }) { total } }');
    expect(res.status).toBe(401);
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('properties', () => {
  const RUNS = { numRuns: 25 };
  const costs = fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 2, maxLength: 8 });

  it('with prefer=cost, never ranks a dearer service above a cheaper one that is otherwise equal', async () => {
    await fc.assert(
      fc.asyncProperty(costs, async (prices) => {
        const slug = uniqueSlug('prop-cost');
        await seedServices(provider.agentId, slug, prices);
        const res = await resolve({ capability: slug, prefer: 'cost', limit: 100 });
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(prices.length);
        const ranked = res.body.matches.map((m: any) => m.costPerCall);
        expect(ranked).toEqual([...prices].sort((a, b) => a - b));
      }),
      RUNS,
    );
  });

  it('max_cost never admits a service dearer than max_cost', async () => {
    const maxCost = fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.double({ min: 0, max: 5000, noNaN: true }));
    await fc.assert(
      fc.asyncProperty(costs, maxCost, fc.boolean(), async (prices, max, nested) => {
        const slug = uniqueSlug('prop-max');
        await seedServices(provider.agentId, slug, prices);
        const res = await resolve({ capability: slug, limit: 100, ...(nested ? { constraints: { max_cost: max } } : { max_cost: max }) });
        expect(res.status).toBe(200);
        for (const m of res.body.matches) expect(m.costPerCall).toBeLessThanOrEqual(max);
        expect(res.body.total).toBe(prices.filter((p) => p <= max).length);
      }),
      RUNS,
    );
  });

  it('a smaller limit answers the head of the full ranking, which is ordered by score', async () => {
    const offer = fc.record({
      reputation: fc.integer({ min: 0, max: 100 }),
      costPerCall: fc.integer({ min: 0, max: 500 }),
      successCount: fc.integer({ min: 0, max: 50 }),
      failureCount: fc.integer({ min: 0, max: 50 }),
      latencyP50Ms: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: null }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(offer, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('reputation', 'cost', 'latency', 'balanced'),
        fc.nat(),
        async (offers, prefer, k) => {
          const slug = uniqueSlug('prop-head');
          const createdAt = new Date();
          for (const o of offers) {
            await besideServer(server).service.create({
              data: {
                serviceKey: `svc_${base62(24)}`,
                agentId: await seedAgent(o.reputation),
                name: 'seeded',
                description: 'A service seeded by a test',
                endpoint: 'https://provider.example.com/run',
                capabilities: [slug],
                pricingModel: 'per_call',
                costPerCall: o.costPerCall,
                successCount: o.successCount,
                failureCount: o.failureCount,
                latencyP50Ms: o.latencyP50Ms,
                signingSecret: 'whsec_x',
                createdAt,
              },
            });
          }
          const full = await resolve({ capability: slug, prefer, limit: 100 });
          expect(full.body.total).toBe(offers.length);
          const scores = full.body.matches.map((m: any) => m.score);
          expect(scores).toEqual([...scores].sort((a, b) => b - a));
          const limit = 1 + (k % offers.length);
          const head = await resolve({ capability: slug, prefer, limit });
          expect(head.body.total).toBe(offers.length);
          // Two requests: freshness moves a hair between them, so compare to within rounding.
          expect(head.body.matches.map((m: any) => m.score)).toEqual(scores.slice(0, limit).map((x: number) => expect.closeTo(x, 1)));
        },
      ),
      RUNS,
    );
  });

  it('min_reputation never admits a provider below it', async () => {
    const reputations = fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(reputations, fc.integer({ min: 0, max: 100 }), fc.boolean(), async (reps, min, nested) => {
        const slug = uniqueSlug('prop-rep');
        for (const reputation of reps) await seedServices(await seedAgent(reputation), slug, [10]);
        const res = await resolve({ capability: slug, limit: 100, ...(nested ? { constraints: { min_reputation: min } } : { min_reputation: min }) });
        expect(res.status).toBe(200);
        for (const m of res.body.matches) expect(m.reputation).toBeGreaterThanOrEqual(min);
        expect(res.body.total).toBe(reps.filter((r) => r >= min).length);
      }),
      RUNS,
    );
  });
});

describe('as time passes', () => {
  // Freshness decays with the server's clock, so which provider is best can change as time passes. The
  // candidates are picked by stored scores that the scheduler re-scores every minute (README: Resolve);
  // once re-scored, the head of the ranking (limit 1, quick resolve) is the best of the full ranking.
  const clock = new FakeClock();
  let timed: TestServer;

  beforeAll(async () => {
    timed = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1' } });
  });
  afterAll(() => timed.close());

  it('names the best provider of the full ranking with limit 1 and quick resolve', async () => {
    const me = await registerAgent(timed);
    const now = clock.now().getTime();
    const base = {
      agentId: me.agentId,
      description: 'A service seeded by a test',
      endpoint: 'https://provider.example.com/run',
      capabilities: ['aging'],
      pricingModel: 'per_call' as const,
      signingSecret: 'whsec_x',
    };
    const db = timed.app.services.db;
    // A week old and free, against brand new and paid: the new one is best now, the free one in ten weeks.
    await db.service.create({
      data: { ...base, serviceKey: `svc_${base62(24)}`, name: 'old-free', costPerCall: 0, createdAt: new Date(now - 7 * 86_400_000) },
    });
    await db.service.create({ data: { ...base, serviceKey: `svc_${base62(24)}`, name: 'new-paid', costPerCall: 5, createdAt: new Date(now) } });
    const callTimed = api(timed);
    const best = async () => {
      const full = await callTimed('POST', '/resolve', { key: me.key, body: { capability: 'aging' } });
      const one = await callTimed('POST', '/resolve', { key: me.key, body: { capability: 'aging', limit: 1 } });
      const quick = await callTimed('GET', '/resolve/quick?capability=aging', { key: me.key });
      return { full: full.body.matches.map((m: any) => m.name), one: one.body.matches.map((m: any) => m.name), quick: quick.body.name };
    };
    expect(await best()).toEqual({ full: ['new-paid', 'old-free'], one: ['new-paid'], quick: 'new-paid' });
    clock.at = new Date(now + 70 * 86_400_000);
    expect(await refreshOfferScores(timed.app.services)).toBe(2);
    expect(await best()).toEqual({ full: ['old-free', 'new-paid'], one: ['old-free'], quick: 'old-free' });
  });
});

describe("a capability's kept heads", () => {
  // With the read cache on, a query is answered from its capability's heads (each preference's first
  // HEAD_DEPTH offers, the count and the total sample, one read) when they hold its answer, else by its own
  // statement; the answer must be the statement's either way.
  it('answers every preference, limit and size as the ranking statements do', async () => {
    const slug = uniqueSlug('heads');
    const reputations = [15, 35, 55, 75, 95];
    const agents = await Promise.all(reputations.map((r) => seedAgent(r)));
    const languages = [[], ['en'], ['en', 'de'], ['fr'], ['de', 'ja']];
    const createdAt = new Date();
    const offers = TOTAL_SAMPLE + 60;
    await besideServer(server).service.createMany({
      data: Array.from({ length: offers }, (_, i) =>
        seededService(slug, i, {
          agentId: agents[(i * 7) % agents.length],
          languages: languages[(i * 3) % languages.length],
          costPerCall: (i * 37) % 200,
          successCount: (i * 31) % 50,
          failureCount: (i * 17) % 10,
          latencyP50Ms: 20 + ((i * 13) % 900),
          createdAt,
        }),
      ),
    });
    const services = server.app.services;
    const uncached = { services: { ...services, readCache: new ReadCache(0) } };
    const limits = [
      {},
      { minReputation: 50 },
      { maxCost: 20 },
      { language: 'fr' },
      { minReputation: 90, maxCost: 10, language: 'ja' },
      { minReputation: 95, maxCost: 3 },
    ];
    // Whether the heads were kept just after a query read them, checked after each one: kept answers expire
    // (READ_CACHE_MS) and are flushed by the change feed, so on a busy machine they may be gone by the end.
    const heads = `rank_heads\n${slug}`;
    const keptAfter: unknown[] = [];
    for (const prefer of PREFERENCES) {
      for (const limit of [1, 10, HEAD_DEPTH, 100]) {
        for (const limited of limits) {
          const query = readResolveQuery({ capability: slug, prefer, limit, ...limited });
          const kept = await rankProviders({ services }, query);
          keptAfter.push(services.readCache.peek(heads));
          const read = await rankProviders(uncached, query);
          const what = JSON.stringify({ prefer, limit, ...limited });
          expect({ what, ids: kept.matches.map((m) => m.serviceId), total: kept.total, estimate: kept.totalIsEstimate }).toEqual({
            what,
            ids: read.matches.map((m) => m.serviceId),
            total: read.total,
            estimate: read.totalIsEstimate,
          });
        }
      }
    }
    // The heads were read and kept (the queries above did not all read their own statements).
    expect(keptAfter.find((h) => h !== undefined)).toMatchObject({ offers });
  });
});

describe('the ranking statements', () => {
  // What makes resolve cheap whatever the catalog's size: the generic plan of each ranking statement reads
  // the first `limit` entries of its preference's index, with no sort, and a bounded sample for a limited
  // total from an index alone; a limited ranking that few offers pass reads those offers from the
  // reputation and price index instead (FEW_FACTOR). Scans of the table and sorts are priced out, so a plan
  // that still has one has no index to use instead.
  const ARGS = { all: `'summarize', 10`, limited: `'summarize', 0, 1000, 10`, language: `'summarize', 0, 1000, 'en', 10` } as const;
  // The plans are read with the table vacuumed and analysed, as the maintenance job keeps it: otherwise they
  // would depend on whether that job had run since the tests above wrote their offers (it runs sooner or
  // later on a loaded machine), an index-only scan costing more while the table's visibility map is unset.
  beforeAll(async () => {
    await server.app.services.sql.query('VACUUM (ANALYZE) service_offers', []);
  });
  async function planOf(text: string, args: string): Promise<string> {
    return server.app.services.db.$transaction(async (tx) => {
      for (const setting of ['plan_cache_mode = force_generic_plan', 'enable_seqscan = off', 'enable_sort = off', 'enable_bitmapscan = off']) {
        await tx.$executeRawUnsafe(`SET LOCAL ${setting}`);
      }
      await tx.$executeRawUnsafe(`PREPARE plan_probe AS ${text}`);
      try {
        const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN EXECUTE plan_probe(${args})`);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await tx.$executeRawUnsafe('DEALLOCATE plan_probe');
      }
    });
  }
  const ranked = (prefer: string) => new RegExp(`Index (Only )?Scan using service_offers_capability_active_score_${prefer}_`);
  it.each(PREFERENCES.flatMap((prefer) => (['all', 'limited', 'language'] as const).map((variant) => [prefer, variant] as const)))(
    'plans prefer=%s (%s offers) on its index, in ranking order, without a sort',
    async (prefer, variant) => {
      const plan = await planOf(RANK_STATEMENTS[`${prefer}:${variant}`].text, ARGS[variant]);
      expect(plan).not.toMatch(/Seq Scan/);
      expect(plan).toMatch(ranked(prefer));
      // The unlimited total is one row of capability_offer_counts, not a count of offers.
      expect(plan).toMatch(/Index Scan using capability_offer_counts_pkey/);
      if (variant === 'all') {
        expect(plan).not.toMatch(/\bSort\b/);
        return;
      }
      // A limited total is estimated from the first TOTAL_SAMPLE offers in id order, read from an index alone;
      // its matches are read by walking the preference's index (checked without a sort just below) or,
      // when the sample says few pass, from the reputation and price index, sorted.
      expect(plan).toMatch(/Index Only Scan using service_offers_capability_active_service_id_reputation_cost_idx/);
      expect(plan).toMatch(/Index Scan using service_offers_capability_active_reputation_cost_per_call_idx/);
      const walk = await planOf(MATCHES_STATEMENTS[`${prefer}:${variant}:walk`].text, ARGS[variant]);
      expect(walk).toMatch(ranked(prefer));
      expect(walk).not.toMatch(/\bSort\b|Seq Scan/);
      const few = await planOf(MATCHES_STATEMENTS[`${prefer}:${variant}:few`].text, ARGS[variant]);
      expect(few).toMatch(/Index Scan using service_offers_capability_active_reputation_cost_per_call_idx/);
      expect(few).not.toMatch(/Seq Scan/);
    },
  );

  it('reads the same matches in the same order either way (walking the index or sorting the offers that pass)', async () => {
    const slug = uniqueSlug('reads');
    const agents = await Promise.all([15, 55, 95].map((r) => seedAgent(r)));
    const languages = [[], ['en'], ['fr', 'de']];
    const createdAt = new Date();
    // Ties on purpose: prices repeat, so the order falls back to the price and then the id.
    await besideServer(server).service.createMany({
      data: Array.from({ length: 60 }, (_, i) =>
        seededService(slug, i, {
          agentId: agents[i % agents.length],
          languages: languages[(i * 7) % languages.length],
          costPerCall: (i * 37) % 5,
          successCount: (i * 31) % 3,
          createdAt,
        }),
      ),
    });
    const sql = server.app.services.sql;
    const read = async (statement: { name: string; text: string }, params: unknown[]) =>
      (await sql.query<{ ranking: { matches: unknown[][] } }>(statement.text, params, statement.name))[0].ranking.matches.map((m) => m[0]);
    let compared = 0;
    for (const prefer of PREFERENCES) {
      for (const [minReputation, maxCost] of [
        [0, 4],
        [50, 2],
        [90, 0],
        [96, 4],
      ]) {
        for (const limit of [1, 5, 40]) {
          for (const variant of ['limited', 'language'] as const) {
            const params = variant === 'limited' ? [slug, minReputation, maxCost, limit] : [slug, minReputation, maxCost, 'fr', limit];
            const [walk, few] = [
              await read(MATCHES_STATEMENTS[`${prefer}:${variant}:walk`], params),
              await read(MATCHES_STATEMENTS[`${prefer}:${variant}:few`], params),
            ];
            expect({ prefer, variant, minReputation, maxCost, limit, ids: few }).toEqual({ prefer, variant, minReputation, maxCost, limit, ids: walk });
            compared += walk.length;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(200);
  });

  (onPostgres() ? it : it.skip)('runs named statements with generic plans on PostgreSQL', async () => {
    const [row] = await server.app.services.sql.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode', [], 'show_plan_cache_mode');
    expect(row.plan_cache_mode).toBe('force_generic_plan');
  });
});

describe("the ranking's read model", () => {
  /** Per capability: the maintained active-offer count, the offers actually active, and what resolve says. */
  async function counts(capabilities: string[]) {
    const sql = server.app.services.sql;
    const kept = await sql.query<{ capability: string; n: number }>(
      'SELECT capability, active_offers AS n FROM capability_offer_counts WHERE capability = ANY($1) AND active_offers <> 0',
      [capabilities],
    );
    const actual = await sql.query<{ capability: string; n: number }>(
      'SELECT capability, count(*)::int AS n FROM service_offers WHERE active AND capability = ANY($1) GROUP BY capability',
      [capabilities],
    );
    const totals = await Promise.all(capabilities.map(async (c) => [c, (await resolve({ capability: c })).body.total] as const));
    const byCapability = (rows: { capability: string; n: number }[]) =>
      Object.fromEntries(capabilities.map((c) => [c, rows.find((r) => r.capability === c)?.n ?? 0]));
    return { kept: byCapability(kept), actual: byCapability(actual), resolved: Object.fromEntries(totals) };
  }

  it('keeps every capability’s count of active offers through registrations, changes, suspensions and deletions', async () => {
    const [x, y] = [uniqueSlug('count'), uniqueSlug('count')];
    const owner = await registerAgent(server);
    const both = await registerService(server, owner.key, { capabilities: [x, y] });
    const justX = await registerService(server, owner.key, { capabilities: [x] });
    const expectCounts = async (expected: Record<string, number>) => {
      const c = await counts([x, y]);
      expect(c).toEqual({ kept: expected, actual: expected, resolved: expected });
    };
    await expectCounts({ [x]: 2, [y]: 1 });
    const db = besideServer(server);
    // A re-score (statistics, price) changes no count.
    await db.service.update({ where: { id: justX.service_id }, data: { successCount: 5, costPerCall: 9 } });
    await expectCounts({ [x]: 2, [y]: 1 });
    await db.agent.update({ where: { id: owner.agentId }, data: { status: 'SUSPENDED' } });
    await expectCounts({ [x]: 0, [y]: 0 });
    await db.agent.update({ where: { id: owner.agentId }, data: { status: 'ACTIVE' } });
    await expectCounts({ [x]: 2, [y]: 1 });
    await db.service.update({ where: { id: both.service_id }, data: { capabilities: [y] } });
    await expectCounts({ [x]: 1, [y]: 1 });
    await db.service.update({ where: { id: justX.service_id }, data: { status: 'inactive' } });
    await expectCounts({ [x]: 0, [y]: 1 });
    await db.service.delete({ where: { id: both.service_id } });
    await expectCounts({ [x]: 0, [y]: 0 });
  });

  it('ends consistent when services, their provider and the refresh job change offers at once', async () => {
    const slug = uniqueSlug('race');
    const owner = await registerAgent(server);
    const created = await Promise.all(Array.from({ length: 6 }, () => registerService(server, owner.key, { capabilities: [slug, `${slug}.sub`] })));
    const db = besideServer(server);
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 8; round++) {
      for (const [i, service] of created.entries()) {
        writes.push(db.service.update({ where: { id: service.service_id }, data: { costPerCall: round * 10 + i, successCount: { increment: 1 } } }));
      }
      writes.push(db.agent.update({ where: { id: owner.agentId }, data: { reputation: 30 + round, status: round % 3 === 1 ? 'SUSPENDED' : 'ACTIVE' } }));
      writes.push(server.app.services.sql.query('SELECT marketplace_sync_offers($1::uuid[], now(), true)', [created.map((s) => s.service_id)]));
    }
    await Promise.all(writes);
    // Every offer reflects the latest service and provider rows, and the count its active offers.
    const stale = await server.app.services.sql.query(
      `SELECT o.capability, o.service_id FROM service_offers o JOIN services s ON s.id = o.service_id JOIN agents a ON a.id = s.agent_id
       WHERE s.agent_id = $1 AND (o.cost_per_call <> s.cost_per_call OR o.reputation <> a.reputation OR o.active <> (s.status = 'active' AND a.status = 'ACTIVE'))`,
      [owner.agentId],
    );
    expect(stale).toEqual([]);
    const c = await counts([slug, `${slug}.sub`]);
    expect(c.kept).toEqual(c.actual);
    // Which provider update landed last is up to the database; the counts follow whichever it was.
    const { status } = await db.agent.findUniqueOrThrow({ where: { id: owner.agentId } });
    const active = status === 'ACTIVE' ? 6 : 0;
    expect(c.actual).toEqual({ [slug]: active, [`${slug}.sub`]: active });
  });
});
