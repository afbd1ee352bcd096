// The caller's own records (spec §4.1): each listing under /agents/me/… and its /my/… alias, the
// reputation with its events, the audit log, sparks, paging validation, and the public tier table.
import { api, registerAgent, startServer, type TestServer } from '../support/server';
import { expectProblem } from '../support/expect';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  // Real rate limits: this file registers fewer than 25 agents, and GET /tiers is checked to carry none.
  server = await startServer();
  call = api(server);
});
afterAll(() => server.close());

const byCreatedDesc = (events: { created_at: string }[]) => {
  const times = events.map((e) => Date.parse(e.created_at));
  return [...times].sort((a, b) => b - a).join() === times.join();
};

/** A fresh agent's view of each listing that has both paths. */
const LISTINGS: [string, unknown][] = [
  ['keys', { total: 0, keys: [] }],
  ['transactions', { total: 0, transactions: [] }],
  ['disputes', { total: 0, disputes: [] }],
  ['executions', { total: 0, executions: [] }],
  [
    'analytics',
    {
      days: 30,
      trends: [],
      top_capabilities: [],
      cost_breakdown: [],
      total_cost_cents: 0,
      performance: { executions: 0, success_rate: null, p50_ms: null, p95_ms: null, p99_ms: null },
    },
  ],
];

describe.each(LISTINGS)('GET /agents/me/%s', (name, empty) => {
  it(`answers the same body at /my/${name}`, async () => {
    const me = await registerAgent(server);
    const long = await call('GET', `/agents/me/${name}`, { key: me.key });
    expect(long.status).toBe(200);
    expect(long.body).toEqual(empty);
    const short = await call('GET', `/my/${name}`, { key: me.key });
    expect(short.status).toBe(200);
    expect(short.body).toEqual(long.body);
  });

  it('answers 401 without a key', async () => {
    expectProblem(await call('GET', `/agents/me/${name}`), 401, 'unauthorized');
    expectProblem(await call('GET', `/my/${name}`), 401, 'unauthorized');
  });
});

describe('GET /agents/me/usage and /my/usage', () => {
  it("counts the caller's earlier requests per endpoint", async () => {
    const me = await registerAgent(server);
    const other = await registerAgent(server);
    await call('GET', '/agents/me', { key: me.key });
    await call('GET', '/agents/me', { key: me.key });
    await call('PATCH', '/agents/me', { key: me.key, body: { description: 'Counted' } });
    await call('GET', '/agents/me', { key: other.key });

    const first = await call('GET', '/agents/me/usage', { key: me.key });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      days: 30,
      total_requests: 3,
      total_executions: 0,
      endpoints: [
        { endpoint: 'GET /agents/me', requests: 2 },
        { endpoint: 'PATCH /agents/me', requests: 1 },
      ],
      by_day: [{ day: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), requests: 3 }],
    });

    // The alias is the same listing: it now also counts the call to it above.
    const second = await call('GET', '/my/usage', { key: me.key });
    expect(second.status).toBe(200);
    expect(second.body.total_requests).toBe(4);
    expect(second.body.total_executions).toBe(0);
    expect(second.body.endpoints).toEqual(
      expect.arrayContaining([
        { endpoint: 'GET /agents/me/usage', requests: 1 },
        { endpoint: 'GET /agents/me', requests: 2 },
      ]),
    );
  });
});

describe('GET /my/reputation', () => {
  it('answers the score, the tier and the registration event', async () => {
    const me = await registerAgent(server);
    const res = await call('GET', '/my/reputation', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      reputation: 20,
      tier: 'newcomer',
      total: 1,
      events: [{ event_id: expect.any(String), delta: 20, score_after: 20, reason: 'registered', created_at: expect.any(String) }],
    });
    expect(res.body.events).toHaveLength(1);
  });
});

describe('GET /my/audit-log', () => {
  it('records registration, profile changes and every act on a sub-key, with target ids and the address', async () => {
    const me = await registerAgent(server);
    expect((await call('PATCH', '/agents/me', { key: me.key, body: { description: 'Audited agent' } })).status).toBe(200);
    const service = await call('POST', '/services/register', {
      key: me.key,
      body: {
        name: 'Audited',
        endpoint: 'https://provider.example.com/run',
        capabilities: ['summarize'],
        description: 'A service whose keys are audited',
        pricing_model: 'free',
      },
    });
    expect(service.status).toBe(201);
    const key = await call('POST', `/keys/provision/${service.body.service_key}`, { key: me.key, body: {} });
    const rotated = await call('POST', `/keys/${key.body.sub_key_id}/rotate`, { key: me.key, body: {} });
    expect((await call('DELETE', `/keys/${rotated.body.sub_key_id}`, { key: me.key })).status).toBe(200);

    const res = await call('GET', '/my/audit-log', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(res.body.events.length);
    const events: any[] = res.body.events;
    expect(byCreatedDesc(events)).toBe(true);
    expect(events.map((e) => e.action).sort()).toEqual(
      ['agent.registered', 'key.provisioned', 'key.revoked', 'key.rotated', 'profile.updated', 'service.registered'].sort(),
    );
    const find = (action: string) => events.find((e) => e.action === action);
    expect(find('agent.registered')).toMatchObject({ target_type: 'agent', target_id: me.agentId });
    expect(find('profile.updated')).toMatchObject({ actor_kind: 'agent', actor_id: me.agentId, target_id: me.agentId, details: { changed: ['description'] } });
    expect(find('service.registered')).toMatchObject({ target_type: 'service', target_id: service.body.service_id });
    expect(find('key.provisioned')).toMatchObject({
      target_type: 'sub_key',
      target_id: key.body.sub_key_id,
      details: expect.objectContaining({ permissions: ['read'] }),
    });
    expect(find('key.rotated')).toMatchObject({
      target_type: 'sub_key',
      target_id: rotated.body.sub_key_id,
      details: expect.objectContaining({ previous_sub_key_id: key.body.sub_key_id, grace_period_ends: rotated.body.grace_period_ends }),
    });
    expect(find('key.revoked')).toMatchObject({ target_type: 'sub_key', target_id: rotated.body.sub_key_id });
    for (const e of events) {
      expect(e).toMatchObject({ event_id: expect.any(String), created_at: expect.any(String) });
      expect(e.ip_address).toMatch(/127\.0\.0\.1/);
    }
    for (const e of events.filter((x) => x.action !== 'agent.registered')) expect(e).toMatchObject({ actor_kind: 'agent', actor_id: me.agentId });
    expect(res.text).not.toMatch(/key_service_[0-9A-Za-z]{40}|key_master_[0-9A-Za-z]{40}/);
  });

  it('pages with limit and offset', async () => {
    const me = await registerAgent(server);
    await call('PATCH', '/agents/me', { key: me.key, body: { description: 'one' } });
    await call('PATCH', '/agents/me', { key: me.key, body: { description: 'two' } });
    const page = await call('GET', '/my/audit-log?limit=2&offset=1', { key: me.key });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(3);
    expect(page.body.events).toHaveLength(2);
  });
});

describe('GET /my/sparks', () => {
  it('answers an empty list for an agent without sparks', async () => {
    const me = await registerAgent(server);
    const res = await call('GET', '/my/sparks', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sparks: [], total: 0 });
  });
});

describe('paging parameters', () => {
  const PAGED = ['/agents/me/keys', '/my/keys', '/agents/me/transactions', '/my/disputes', '/my/executions', '/my/audit-log', '/my/sparks', '/my/reputation'];
  let key: string;
  beforeAll(async () => {
    key = (await registerAgent(server)).key;
  });

  it.each(PAGED)('%s answers 400 naming `limit` for 0, 101 and a non-number, and `offset` for -1', async (path) => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['offset=-1', 'offset'],
    ]) {
      const res = await call('GET', `${path}?${query}`, { key });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([field]);
    }
    expect((await call('GET', `${path}?limit=100&offset=0`, { key })).status).toBe(200);
    expect((await call('GET', `${path}?limit=1`, { key })).status).toBe(200);
  });
});

describe('GET /tiers', () => {
  it('answers the four tiers with their ranges and sub-key allowances, without a key or a rate limit', async () => {
    const res = await call('GET', '/tiers');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(res.body.tiers).toEqual([
      { tier: 'newcomer', name: 'Newcomer', min_score: 0, max_score: 30, sub_key_limit: 5, privileges: expect.arrayContaining(['basic API access']) },
      {
        tier: 'contributor',
        name: 'Contributor',
        min_score: 31,
        max_score: 60,
        sub_key_limit: 20,
        privileges: expect.arrayContaining(['priority resolution']),
      },
      { tier: 'trusted', name: 'Trusted', min_score: 61, max_score: 85, sub_key_limit: 50, privileges: expect.arrayContaining(['beta features']) },
      { tier: 'star', name: 'Star', min_score: 86, max_score: 100, sub_key_limit: null, privileges: expect.arrayContaining(['showcase listing']) },
    ]);
    const again = await Promise.all(Array.from({ length: 70 }, () => call('GET', '/tiers')));
    expect(again.every((r) => r.status === 200)).toBe(true);
  });
});
