// Spec §4.1 agents and keys, with §2's Agent and sub-key records, §5's key kinds and §8.5's sub-key counts by
// tier: registration, the caller's profile and records (each under /agents/me/… and its /my/… alias),
// sub-agents, wallets, and sub-keys provisioned, verified and rotated with the 24-hour grace.
// Time moves on a fake clock (expiry, grace); rate limits are not what these sentences are about.
import { FakeClock } from '../support/clock';
import { expectProblem } from '../support/expect';
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const clock = new FakeClock();
let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

type Agent = Awaited<ReturnType<typeof registerAgent>>;

/** A service of a new provider, registered as the spec's §4.2 describes it, with no sub-key policy of its owner. */
async function serviceOfAnotherAgent(): Promise<{ provider: Agent; serviceKey: string; serviceId: string }> {
  const provider = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: provider.key,
    body: {
      name: 'Summariser',
      endpoint: 'https://provider.example.com/run',
      capabilities: ['summarize'],
      description: 'Summarises long documents',
      pricing_model: 'free',
    },
  });
  expect(res.status).toBe(201);
  return { provider, serviceKey: res.body.service_key, serviceId: res.body.service_id };
}

const provision = (key: string, serviceKey: string, body?: Record<string, unknown>) => call('POST', `/keys/provision/${serviceKey}`, { key, body: body ?? {} });
const verify = (subKey: string) => call('POST', '/keys/verify', { body: { key: subKey } });

describe('§4.1 agents', () => {
  it('§4.1 POST /agents/register with name, description and ownerEmail answers 201 agent_id, agent_key, master_key, name, reputation, tier', async () => {
    const name = uniqueName('spec');
    const res = await call('POST', '/agents/register', { body: { name, description: 'Registered from the spec', ownerEmail: 'owner@example.com' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      agent_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      agent_key: expect.stringMatching(/^ag_/),
      master_key: expect.stringMatching(/^key_master_/),
      name,
      reputation: expect.any(Number),
      tier: 'newcomer',
    });
  });

  it('§2 an agent name is unique: registering a duplicate name answers 409', async () => {
    const first = await registerAgent(server);
    const again = await call('POST', '/agents/register', { body: { name: first.name, description: 'The same name', ownerEmail: 'other@example.com' } });
    expectProblem(again, 409, 'conflict');
  });

  it('§2 an agent name has 3-50 characters', async () => {
    for (const name of ['ab', 'x'.repeat(51)]) {
      const res = await call('POST', '/agents/register', { body: { name, description: 'Bad name', ownerEmail: 'owner@example.com' } });
      expect(res.status).toBe(400);
    }
  });

  it('§4.1 GET /agents/me answers 200 agent_id, name, description, reputation_score, tier, status, autonomy_level', async () => {
    const me = await registerAgent(server);
    const res = await call('GET', '/agents/me', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      agent_id: me.agentId,
      name: me.name,
      description: 'An agent made by a test',
      reputation_score: expect.any(Number),
      tier: 'newcomer',
      status: 'ACTIVE',
      autonomy_level: 'GOVERN',
    });
  });

  it('§4.1 PATCH /agents/me takes name, description and capabilities and answers 200', async () => {
    const me = await registerAgent(server);
    const name = uniqueName('renamed');
    const res = await call('PATCH', '/agents/me', {
      key: me.key,
      body: { name, description: 'Now described otherwise', capabilities: ['summarize', 'translate'] },
    });
    expect(res.status).toBe(200);
    const read = await call('GET', '/agents/me', { key: me.key });
    expect(read.body).toMatchObject({ name, description: 'Now described otherwise', capabilities: ['summarize', 'translate'] });
  });

  it('§5 a missing or invalid credential on a B endpoint answers 401; an agent key is an identifier, not a credential', async () => {
    const me = await registerAgent(server);
    expectProblem(await call('GET', '/agents/me'), 401, 'unauthorized');
    expectProblem(await call('GET', '/agents/me', { key: `key_master_${'x'.repeat(40)}` }), 401, 'unauthorized');
    expectProblem(await call('GET', '/agents/me', { key: me.body.agent_key }), 401, 'unauthorized');
  });
});

describe("§4.1 the caller's records, each with its /my alias", () => {
  it('§4.1 GET /agents/me/usage and /my/usage answer the per-endpoint usage, showing total_executions', async () => {
    const me = await registerAgent(server);
    expect((await call('POST', '/execute', { key: me.key, body: { capability: 'ticket-list', input: {} } })).status).toBe(200);
    for (const path of ['/agents/me/usage', '/my/usage']) {
      const res = await call('GET', path, { key: me.key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total_executions: expect.any(Number), endpoints: expect.any(Array) });
    }
  });

  it('§4.1 GET /agents/me/keys and /my/keys answer the sub-keys with status and expiry under `keys`', async () => {
    const me = await registerAgent(server);
    const { serviceKey } = await serviceOfAnotherAgent();
    const made = await provision(me.key, serviceKey);
    expect(made.status).toBe(201);
    for (const path of ['/agents/me/keys', '/my/keys']) {
      const res = await call('GET', path, { key: me.key });
      expect(res.status).toBe(200);
      expect(res.body.keys).toEqual([expect.objectContaining({ sub_key_id: made.body.sub_key_id, status: 'active', expires_at: made.body.expires_at })]);
    }
  });

  it('§4.1 GET /agents/me/transactions and /my/transactions page with limit and offset under `transactions`', async () => {
    const me = await registerAgent(server);
    for (const path of ['/agents/me/transactions', '/my/transactions', '/my/transactions?limit=5&offset=0']) {
      const res = await call('GET', path, { key: me.key });
      expect(res.status).toBe(200);
      expect(res.body.transactions).toEqual(expect.any(Array));
    }
  });

  it('§4.1 GET /agents/me/analytics and /my/analytics answer trends, top capabilities, cost breakdown and performance', async () => {
    const me = await registerAgent(server);
    for (const path of ['/agents/me/analytics', '/my/analytics']) {
      const res = await call('GET', path, { key: me.key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        trends: expect.any(Array),
        top_capabilities: expect.any(Array),
        cost_breakdown: expect.any(Array),
        performance: expect.any(Object),
      });
    }
  });

  it('§4.1 GET /agents/me/disputes and /my/disputes answer `disputes` with status and resolution', async () => {
    const me = await registerAgent(server);
    const { serviceId } = await serviceOfAnotherAgent();
    const opened = await call('POST', '/disputes', { key: me.key, body: { serviceId, type: 'quality', description: 'The summary missed the point' } });
    expect(opened.status).toBe(201);
    for (const path of ['/agents/me/disputes', '/my/disputes']) {
      const res = await call('GET', path, { key: me.key });
      expect(res.status).toBe(200);
      expect(res.body.disputes).toEqual([expect.objectContaining({ dispute_id: opened.body.dispute_id, status: expect.any(String), resolution: null })]);
    }
  });

  it('§4.1 GET /agents/me/executions and /my/executions answer `executions` with results and costs', async () => {
    const me = await registerAgent(server);
    const executed = await call('POST', '/execute', { key: me.key, body: { capability: 'ticket-list', input: {} } });
    expect(executed.status).toBe(200);
    for (const path of ['/agents/me/executions', '/my/executions']) {
      const res = await call('GET', path, { key: me.key });
      expect(res.status).toBe(200);
      expect(res.body.executions).toEqual([
        expect.objectContaining({ execution_id: executed.body.execution_id, result: expect.anything(), cost_cents: expect.any(Number) }),
      ]);
    }
  });

  it('§4.1 GET /my/reputation answers `reputation` and `events`', async () => {
    const me = await registerAgent(server);
    const res = await call('GET', '/my/reputation', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ reputation: expect.any(Number), events: expect.any(Array) });
  });

  it('§4.1 GET /my/audit-log answers `events`', async () => {
    const me = await registerAgent(server);
    const res = await call('GET', '/my/audit-log', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.events).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'agent.registered' })]));
  });

  it('§4.1 GET /my/sparks answers `sparks`', async () => {
    const me = await registerAgent(server);
    const res = await call('GET', '/my/sparks', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.sparks).toEqual([]);
  });
});

describe('§4.1 sub-agents and wallets', () => {
  it('§4.1 POST /agents/:id/sub-agents with name, description, autonomyLevel and authorityScope answers 201 id, autonomyLevel, master_key', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', `/agents/${me.agentId}/sub-agents`, {
      key: me.key,
      body: { name: uniqueName('helper'), description: 'Summarises for me', autonomyLevel: 'EXECUTE_ONLY', authorityScope: ['summarize'] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.any(String), autonomyLevel: 'EXECUTE_ONLY', master_key: expect.stringMatching(/^key_master_/) });
    // §2: a sub-agent has its own master key.
    const itself = await call('GET', '/agents/me', { key: res.body.master_key });
    expect(itself.body).toMatchObject({ agent_id: res.body.id, autonomy_level: 'EXECUTE_ONLY' });
  });

  it('§4.1 POST /agents/:agentId/wallet answers 201 wallet_address; GET answers 200 balance', async () => {
    const me = await registerAgent(server);
    const made = await call('POST', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(made.status).toBe(201);
    expect(made.body.wallet_address).toEqual(expect.any(String));
    const read = await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ balance: expect.stringMatching(/^\d+(\.\d+)?$/) });
  });
});

describe('§4.1 sub-keys', () => {
  it('§4.1 provisioning a sub-key without permissions answers 201 sub_key, sub_key_id, service, permissions (read only), rate_limits, expires_at', async () => {
    const me = await registerAgent(server);
    const { serviceKey } = await serviceOfAnotherAgent();
    const res = await provision(me.key, serviceKey);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      sub_key: expect.stringMatching(/^key_service_/),
      sub_key_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      service: serviceKey,
      permissions: ['read'],
      rate_limits: expect.any(Object),
      expires_at: expect.any(String),
    });
  });

  it('§4.1 provisioning a sub-key grants the permissions asked for (read and write) on a service with no policy', async () => {
    const me = await registerAgent(server);
    const { serviceKey } = await serviceOfAnotherAgent();
    const res = await provision(me.key, serviceKey, { permissions: ['read', 'write'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ service: serviceKey, permissions: ['read', 'write'] });
    const verified = await verify(res.body.sub_key);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ permissions: ['read', 'write'] });
  });

  it('§4.1 provisioning a sub-key grants write alone when only write is asked for, on a service with no policy', async () => {
    const me = await registerAgent(server);
    const { serviceKey } = await serviceOfAnotherAgent();
    const res = await provision(me.key, serviceKey, { permissions: ['write'] });
    expect(res.status).toBe(201);
    expect(res.body.permissions).toEqual(['write']);
  });

  it('§4.1 POST /keys/verify with a valid key answers 200 valid, agent_id, reputation, tier, without a credential', async () => {
    const me = await registerAgent(server);
    const { serviceKey } = await serviceOfAnotherAgent();
    const made = await provision(me.key, serviceKey);
    const res = await verify(made.body.sub_key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, agent_id: me.agentId, reputation: expect.any(Number), tier: 'newcomer' });
  });

  it('§4.1 POST /keys/verify answers 401 for an invalid key, a revoked key and an expired key (§2 a key is valid when not revoked and not expired)', async () => {
    const me = await registerAgent(server);
    const { serviceKey } = await serviceOfAnotherAgent();
    expectProblem(await verify(`key_service_${'Z'.repeat(40)}`), 401, 'unauthorized');
    expectProblem(await verify('not a key'), 401, 'unauthorized');

    const revoked = await provision(me.key, serviceKey);
    expect((await call('DELETE', `/keys/${revoked.body.sub_key_id}`, { key: me.key })).status).toBe(200);
    expectProblem(await verify(revoked.body.sub_key), 401, 'unauthorized');

    const expiring = await provision(me.key, serviceKey, { expires_at: new Date(clock.now().getTime() + HOUR).toISOString() });
    expect((await verify(expiring.body.sub_key)).status).toBe(200);
    clock.advance(HOUR + 1000);
    expectProblem(await verify(expiring.body.sub_key), 401, 'unauthorized');
  });

  it('§4.1 POST /keys/:keyId/rotate answers 201 new_sub_key, grace_period_ends; §8.7 the old key stays valid for a 24-hour grace period', async () => {
    const me = await registerAgent(server);
    const { serviceKey } = await serviceOfAnotherAgent();
    const old = await provision(me.key, serviceKey, { permissions: ['read', 'write'] });
    expect(old.status).toBe(201);
    const rotatedAt = clock.now().getTime();
    const res = await call('POST', `/keys/${old.body.sub_key_id}/rotate`, { key: me.key });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ new_sub_key: expect.stringMatching(/^key_service_/), grace_period_ends: new Date(rotatedAt + DAY).toISOString() });
    expect((await verify(res.body.new_sub_key)).body).toMatchObject({ valid: true, permissions: ['read', 'write'] });
    clock.advance(DAY - 60_000);
    expect((await verify(old.body.sub_key)).status).toBe(200);
    clock.advance(120_000);
    expectProblem(await verify(old.body.sub_key), 401, 'unauthorized');
    expect((await verify(res.body.new_sub_key)).status).toBe(200);
  });

  it('§5 a sub-key is a key_service_ key scoped to one service: verify names the service it was provisioned for', async () => {
    const me = await registerAgent(server);
    const { serviceKey } = await serviceOfAnotherAgent();
    const made = await provision(me.key, serviceKey);
    expect(made.body.sub_key).toMatch(/^key_service_/);
    expect((await verify(made.body.sub_key)).body.service).toBe(serviceKey);
    // A sub-key is not a master key: it opens no B endpoint.
    expectProblem(await call('GET', '/agents/me', { key: made.body.sub_key }), 401, 'unauthorized');
  });

  it('§8.5 sub-key count by tier: Newcomer 5, Contributor 20, Trusted 50, Star unlimited; a Newcomer may hold 5', async () => {
    const tiers = await call('GET', '/tiers');
    expect(tiers.status).toBe(200);
    const limits = Object.fromEntries(tiers.body.tiers.map((t: any) => [t.tier, t.sub_key_limit]));
    expect(limits).toEqual({ newcomer: 5, contributor: 20, trusted: 50, star: null });

    const me = await registerAgent(server);
    const { serviceKey } = await serviceOfAnotherAgent();
    for (let i = 0; i < 5; i++) expect((await provision(me.key, serviceKey)).status).toBe(201);
    expectProblem(await provision(me.key, serviceKey), 403, 'forbidden');
  });
});
