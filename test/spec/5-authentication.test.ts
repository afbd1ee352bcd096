// Spec §5 authentication, with CONTRACT §4's answers for suspended and banned agents: the bearer scheme, the
// three key kinds, the endpoints that need no credential, and 401 for a missing or invalid credential on
// every B endpoint of the spec's tables (test/support/spec-endpoints.ts).
import { expectProblem } from '../support/expect';
import { SPEC_ENDPOINTS, requestOf } from '../support/spec-endpoints';
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';

const ADMIN_KEY = `key_admin_${'S'.repeat(40)}`;
let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

const B_ENDPOINTS = SPEC_ENDPOINTS.filter((e) => e.auth === 'B');
const OPEN_ENDPOINTS = SPEC_ENDPOINTS.filter((e) => e.auth === '-');

/** A service of a new agent, and a sub-key of it held by another new agent. */
async function subKey() {
  const owner = await registerAgent(server);
  const svc = await call('POST', '/services/register', {
    key: owner.key,
    body: {
      name: uniqueName('svc'),
      endpoint: 'https://provider.example.com/run',
      capabilities: ['summarize'],
      description: 'A service whose sub-keys a test holds',
      pricing_model: 'free',
    },
  });
  const holder = await registerAgent(server);
  const made = await call('POST', `/keys/provision/${svc.body.service_key}`, { key: holder.key, body: {} });
  expect(made.status).toBe(201);
  return { holder, serviceKey: svc.body.service_key as string, subKey: made.body.sub_key as string };
}

describe('§5 credentials', () => {
  it('§5.1 the scheme is HTTP bearer: Authorization: Bearer <MASTER_KEY> opens a B endpoint', async () => {
    const me = await registerAgent(server);
    expect(me.key).toMatch(/^key_master_/);
    const res = await call('GET', '/agents/me', { headers: { authorization: `Bearer ${me.key}` } });
    expect(res.status).toBe(200);
    expect(res.body.agent_id).toBe(me.agentId);
    // The same key under another scheme is no bearer credential.
    expectProblem(await call('GET', '/agents/me', { headers: { authorization: `Basic ${me.key}` } }), 401, 'unauthorized');
    expectProblem(await call('GET', '/agents/me', { headers: { authorization: me.key } }), 401, 'unauthorized');
  });

  it('§5.4 a missing credential on a B endpoint gives 401, on every B endpoint of the spec', async () => {
    const wrong: string[] = [];
    for (const e of B_ENDPOINTS) {
      const { path, body } = requestOf(e);
      const res = await call(e.method, path, { body });
      if (res.status !== 401 || res.body?.code !== 'unauthorized') wrong.push(`${e.method} ${e.path}: ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('§5.4 an invalid credential on a B endpoint gives 401: an unknown or malformed key, or one of a kind no agent holds', async () => {
    const invalid = [`key_master_${'x'.repeat(40)}`, 'nonsense', `key_service_${'y'.repeat(40)}`, `key_admin_${'z'.repeat(40)}`];
    const wrong: string[] = [];
    for (const e of B_ENDPOINTS) {
      const { path, body } = requestOf(e);
      for (const key of invalid) {
        const res = await call(e.method, path, { body, key });
        if (res.status !== 401) wrong.push(`${e.method} ${e.path} with ${key.slice(0, 12)}…: ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('§5.2 the master key gives full account access and is issued at registration and at sub-agent creation', async () => {
    const lead = await registerAgent(server);
    const sub = await call('POST', `/agents/${lead.agentId}/sub-agents`, {
      key: lead.key,
      body: { name: uniqueName('sub'), description: 'A helper', autonomyLevel: 'EXECUTE_ONLY', authorityScope: ['summarize'] },
    });
    expect(sub.status).toBe(201);
    expect(sub.body.master_key).toMatch(/^key_master_/);
    const asSub = await call('GET', '/agents/me', { key: sub.body.master_key });
    expect(asSub.status).toBe(200);
    expect(asSub.body.agent_id).toBe(sub.body.id);
    expect((await call('POST', '/memory/stores', { key: sub.body.master_key, body: { name: 'sub-notes', storeType: 'kv' } })).status).toBe(201);
  });

  it('§5.2 a service (sub) key is key_service_, scoped to one service and checked through /keys/verify; it opens no B endpoint', async () => {
    const { holder, serviceKey, subKey: key } = await subKey();
    expect(key).toMatch(/^key_service_/);
    const verified = await call('POST', '/keys/verify', { body: { key } });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ valid: true, agent_id: holder.agentId, service: serviceKey });
    expectProblem(await call('GET', '/agents/me', { key }), 401, 'unauthorized');
    expectProblem(await call('POST', '/execute', { key, body: { capability: 'summarize', input: { text: 'x' } } }), 401, 'unauthorized');
  });

  it('§5.2 the agent key (ag_) is a public identifier only, not a credential', async () => {
    const me = await registerAgent(server);
    const agentKey = me.body.agent_key as string;
    expect(agentKey).toMatch(/^ag_/);
    expectProblem(await call('GET', '/agents/me', { key: agentKey }), 401, 'unauthorized');
    expectProblem(await call('POST', '/resolve', { key: agentKey, body: { capability: 'summarize' } }), 401, 'unauthorized');
    expectProblem(await call('POST', '/keys/verify', { body: { key: agentKey } }), 401, 'unauthorized');
  });

  it('§5.3 endpoints marked - need no credential: every GET among them answers 200 without one', async () => {
    // A paid service, so that ACP offers something whose payment terms can be read.
    const seller = await registerAgent(server);
    const paid = await call('POST', '/services/register', {
      key: seller.key,
      body: {
        name: uniqueName('svc'),
        endpoint: 'https://provider.example.com/run',
        capabilities: ['summarize'],
        description: 'A paid service ACP offers',
        pricing_model: 'per_call',
        costPerCall: 5,
      },
    });
    const offering = `${paid.body.service_key}:summarize`;
    const wrong: string[] = [];
    for (const e of OPEN_ENDPOINTS.filter((x) => x.method === 'GET')) {
      const path = e.path === '/acp/offerings/:id/payment-terms' ? `/acp/offerings/${offering}/payment-terms` : e.path;
      const res = await call('GET', path);
      if (res.status !== 200) wrong.push(`GET ${path}: ${res.status} ${res.text.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
    // The protocol manifests of §4.14 are open too.
    for (const path of ['/.well-known/agent.json', '/.well-known/webmcp.json', '/.well-known/ai-plugin.json', '/api/v1/openapi.json']) {
      expect({ path, status: (await fetch(`${server.url}${path}`)).status }).toEqual({ path, status: 200 });
    }
  });

  it('§5.3 the open POST endpoints need no credential: registration, verify, the passport check, tool submission', async () => {
    const registered = await call('POST', '/agents/register', {
      body: { name: uniqueName(), description: 'Registered without a key', ownerEmail: 'open@example.com' },
    });
    expect(registered.status).toBe(201);
    const { subKey: key } = await subKey();
    expect((await call('POST', '/keys/verify', { body: { key } })).status).toBe(200);
    const passport = await call('GET', `/ext/reputation/passport/${registered.body.agent_id}`, { key: registered.body.master_key });
    expect(passport.status).toBe(200);
    const checked = await call('POST', '/ext/reputation/verify', { body: { passport: passport.body.passport, signature: passport.body.signature } });
    expect(checked.status).toBe(200);
    expect(checked.body.valid).toBe(true);
    // Without the required url: refused for what it lacks, not for a credential.
    expectProblem(await call('POST', '/webmcp/submit', { body: {} }), 400, 'validation_failed');
  });
});

describe('CONTRACT §4 suspended and banned agents', () => {
  it('CONTRACT §4 a key of a SUSPENDED or BANNED agent answers 403 forbidden on a B endpoint', async () => {
    for (const status of ['SUSPENDED', 'BANNED']) {
      const me = await registerAgent(server);
      const set = await call('PATCH', `/admin/agents/${me.agentId}/status`, { key: ADMIN_KEY, body: { status } });
      expect(set.status).toBe(200);
      expectProblem(await call('GET', '/agents/me', { key: me.key }), 403, 'forbidden');
      expectProblem(await call('POST', '/memory/stores', { key: me.key, body: { name: 'n', storeType: 'kv' } }), 403, 'forbidden');
    }
  });
});
