// Spec §4.15 health and administration, with §3's Agent row (admin status update → the given status) and
// §9's version strings: health with its components, ping, version, uptime; the administrator's agent status
// update (a sub-agent under a suspended ancestor included), disputes list and resolution, statistics and
// revenue.
import { expectProblem } from '../support/expect';
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';

const ADMIN_KEY = `key_admin_${'S15'.repeat(13)}x`;
let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { ADMIN_KEY } });
  call = api(server);
});
afterAll(() => server.close());

const setStatus = (agentId: string, status: string) => call('PATCH', `/admin/agents/${agentId}/status`, { key: ADMIN_KEY, body: { status } });

async function subAgent(key: string, parentId: string, autonomyLevel = 'CREATE') {
  const res = await call('POST', `/agents/${parentId}/sub-agents`, {
    key,
    body: { name: uniqueName('sub'), description: 'A sub-agent', autonomyLevel, authorityScope: [] },
  });
  expect(res.status).toBe(201);
  return { agentId: res.body.agent_id as string, key: res.body.master_key as string };
}

describe('§4.15 health', () => {
  it('§4.15 GET /health answers 200 status and version 1.1.0, with the status of the database, SSE, scheduler and memory', async () => {
    const res = await call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: expect.any(String),
      version: '1.1.0',
      components: {
        database: expect.objectContaining({ status: expect.any(String) }),
        sse: expect.objectContaining({ status: expect.any(String) }),
        scheduler: expect.objectContaining({ status: expect.any(String) }),
        memory: expect.objectContaining({ status: expect.any(String) }),
      },
    });
  });

  it('§4.15 GET /ping answers 200 pong', async () => {
    const res = await call('GET', '/ping');
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('pong');
  });

  it('§4.15 GET /version answers 200 version; §9 the version reported is 1.1.0', async () => {
    const res = await call('GET', '/version');
    expect(res.status).toBe(200);
    expect(res.body.version).toBe('1.1.0');
  });

  it('§4.15 GET /uptime answers 200 uptime_percent over 30 days by default, and takes days up to 90 (§8.6)', async () => {
    const res = await call('GET', '/uptime');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uptime_percent: expect.any(Number), days: 30 });
    expect((await call('GET', '/uptime?days=90')).status).toBe(200);
    expect((await call('GET', '/uptime?days=91')).status).toBe(400);
  });
});

describe('§4.15 administration', () => {
  it.each(['SUSPENDED', 'BANNED', 'ACTIVE'])(
    '§4.15 PATCH /admin/agents/:agentId/status answers 200 updated; §3 the agent takes the given status (%s)',
    async (status) => {
      const agent = await registerAgent(server);
      const res = await setStatus(agent.agentId, status);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ updated: true, status });
      if (status === 'ACTIVE') expect((await call('GET', '/agents/me', { key: agent.key })).body.status).toBe('ACTIVE');
      else expectProblem(await call('GET', '/agents/me', { key: agent.key }), 403, 'forbidden');
    },
  );

  it("§3 a sub-agent under a suspended ancestor takes the given status; the ancestor's suspension still bounds what it may do, and the answer says so", async () => {
    const root = await registerAgent(server);
    const child = await subAgent(root.key, root.agentId);
    const grandchild = await subAgent(child.key, child.agentId, 'EXECUTE_ONLY');
    expect((await setStatus(root.agentId, 'SUSPENDED')).status).toBe(200);

    const res = await setStatus(grandchild.agentId, 'ACTIVE');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ updated: true, status: 'ACTIVE', effective_status: 'SUSPENDED', effective_status_imposed_by: root.agentId });
    // The bound: a suspended ancestor's subtree cannot act.
    expectProblem(await call('GET', '/agents/me', { key: grandchild.key }), 403, 'forbidden');

    // Another status given is taken as well, and shown beside the one in force.
    const banned = await setStatus(grandchild.agentId, 'BANNED');
    expect(banned.body).toMatchObject({ updated: true, status: 'BANNED', effective_status: 'BANNED', effective_status_imposed_by: null });
    expect((await setStatus(grandchild.agentId, 'ACTIVE')).body).toMatchObject({ status: 'ACTIVE', effective_status: 'SUSPENDED' });

    // Once the ancestor is restored, the status given is the one in force.
    expect((await setStatus(root.agentId, 'ACTIVE')).status).toBe(200);
    const me = await call('GET', '/agents/me', { key: grandchild.key });
    expect(me.status).toBe(200);
    expect(me.body.status).toBe('ACTIVE');
  });

  it('§4.15 GET /admin/disputes answers 200 `disputes`; PATCH /admin/disputes/:disputeId/resolve with `resolution` answers 200 `resolved`', async () => {
    const provider = await registerAgent(server);
    const svc = await call('POST', '/services/register', {
      key: provider.key,
      body: {
        name: 'Summariser',
        endpoint: 'https://provider.example.com/run',
        capabilities: ['summarize'],
        description: 'Summarises long documents',
        pricing_model: 'free',
      },
    });
    expect(svc.status).toBe(201);
    const buyer = await registerAgent(server);
    const opened = await call('POST', '/disputes', {
      key: buyer.key,
      body: { serviceId: svc.body.service_id, type: 'quality', description: 'The summary missed the point' },
    });
    expect(opened.status).toBe(201);

    const list = await call('GET', '/admin/disputes?limit=100', { key: ADMIN_KEY });
    expect(list.status).toBe(200);
    expect(list.body.disputes.map((d: any) => d.dispute_id)).toContain(opened.body.dispute_id);

    const resolved = await call('PATCH', `/admin/disputes/${opened.body.dispute_id}/resolve`, {
      key: ADMIN_KEY,
      body: { resolution: 'Reviewed: the provider will re-run it' },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body.resolved).toBe(true);
    expect((await call('GET', `/disputes/${opened.body.dispute_id}`, { key: buyer.key })).body).toMatchObject({
      resolution: 'Reviewed: the provider will re-run it',
    });
  });

  it('§4.15 GET /admin/stats answers 200 platform-wide statistics', async () => {
    const res = await call('GET', '/admin/stats', { key: ADMIN_KEY });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ agents: expect.objectContaining({ total: expect.any(Number) }), services: expect.any(Object) });
  });

  it('§4.15 GET /admin/revenue answers 200 revenue analytics', async () => {
    const res = await call('GET', '/admin/revenue', { key: ADMIN_KEY });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ totals: expect.objectContaining({ gross_cents: expect.any(Number), net_cents: expect.any(Number) }) });
  });

  it('§4.15 the Admin endpoints need the administrator credential', async () => {
    const agent = await registerAgent(server);
    for (const [method, path] of [
      ['GET', '/admin/stats'],
      ['GET', '/admin/revenue'],
      ['GET', '/admin/disputes'],
    ]) {
      expectProblem(await call(method, path), 401, 'unauthorized');
      expectProblem(await call(method, path, { key: agent.key }), 403, 'forbidden');
    }
  });
});
