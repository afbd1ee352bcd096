// Administration (spec §3 Agent row, §4.15; CONTRACT §1 ADMIN_KEY, §4): setting an agent's status with
// the administrator key, the 403 a suspended or banned agent then gets everywhere, and platform statistics.
import { api, gql, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';
import { expectProblem } from '../support/expect';

const ADMIN_KEY = `key_admin_${'Q7'.repeat(20)}`;

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  // Rate limits are not under test here.
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

/** Sets an agent's status; `key` '' sends no credential. */
const setStatus = (agentId: string, body: Record<string, unknown>, key = ADMIN_KEY) => call('PATCH', `/admin/agents/${agentId}/status`, { key, body });

const serviceBody = (capabilities = ['summarize']) => ({
  name: 'Summariser',
  endpoint: 'https://provider.example.com/run',
  capabilities,
  description: 'Summarises long documents',
  pricing_model: 'free',
});

async function registerService(key: string, capabilities?: string[]) {
  const res = await call('POST', '/services/register', { key, body: serviceBody(capabilities) });
  if (res.status !== 201) throw new Error(`service registration failed: ${res.status} ${res.text}`);
  return res.body.service_key as string;
}

const stats = async () => {
  const res = await call('GET', '/admin/stats', { key: ADMIN_KEY });
  expect(res.status).toBe(200);
  return res.body;
};

describe('PATCH /admin/agents/:agentId/status', () => {
  it.each(['SUSPENDED', 'BANNED'])('answers 200 and refuses the %s agent with 403 on every agent operation until reactivated', async (status) => {
    const agent = await registerAgent(server);
    const serviceKey = await registerService(agent.key);
    const res = await setStatus(agent.agentId, { status });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: true, agent_id: agent.agentId, status, effective_status: status, effective_status_imposed_by: null });

    expectProblem(await call('GET', '/agents/me', { key: agent.key }), 403, 'forbidden');
    expectProblem(await call('PATCH', '/agents/me', { key: agent.key, body: { description: 'Still here' } }), 403, 'forbidden');
    expectProblem(await call('POST', '/services/register', { key: agent.key, body: serviceBody() }), 403, 'forbidden');
    expectProblem(await call('POST', `/keys/provision/${serviceKey}`, { key: agent.key, body: {} }), 403, 'forbidden');
    expectProblem(await call('GET', '/my/keys', { key: agent.key }), 403, 'forbidden');

    const back = await setStatus(agent.agentId, { status: 'ACTIVE' });
    expect(back.body).toEqual({ updated: true, agent_id: agent.agentId, status: 'ACTIVE', effective_status: 'ACTIVE', effective_status_imposed_by: null });
    const me = await call('GET', '/agents/me', { key: agent.key });
    expect(me.status).toBe(200);
    expect(me.body.status).toBe('ACTIVE');
    expect((await call('POST', `/keys/provision/${serviceKey}`, { key: agent.key, body: {} })).status).toBe(201);
    expect((await call('POST', '/services/register', { key: agent.key, body: serviceBody() })).status).toBe(201);
  });

  it("shows the new status on the agent's profile", async () => {
    const agent = await registerAgent(server);
    await setStatus(agent.agentId, { status: 'SUSPENDED' });
    const row = await server.app.services.db.agent.findUniqueOrThrow({ where: { id: agent.agentId } });
    expect(row.status).toBe('SUSPENDED');
    await setStatus(agent.agentId, { status: 'ACTIVE' });
    expect((await call('GET', '/agents/me', { key: agent.key })).body.status).toBe('ACTIVE');
  });

  it("makes the suspended agent's sub-keys fail verification, and work again once reactivated", async () => {
    const provider = await registerAgent(server);
    const consumer = await registerAgent(server);
    const serviceKey = await registerService(provider.key);
    const key = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} });
    expect((await call('POST', '/keys/verify', { body: { key: key.body.sub_key } })).status).toBe(200);
    await setStatus(consumer.agentId, { status: 'SUSPENDED' });
    expectProblem(await call('POST', '/keys/verify', { body: { key: key.body.sub_key } }), 401, 'unauthorized');
    await setStatus(consumer.agentId, { status: 'ACTIVE' });
    expect((await call('POST', '/keys/verify', { body: { key: key.body.sub_key } })).status).toBe(200);
  });

  it('answers 404 for an unknown agent id and for an id that is not a UUID', async () => {
    expectProblem(await setStatus('00000000-0000-4000-8000-000000000000', { status: 'SUSPENDED' }), 404, 'not_found');
    expectProblem(await setStatus('not-a-uuid', { status: 'SUSPENDED' }), 404, 'not_found');
  });

  it.each([[{ status: 'DELETED' }], [{ status: 'suspended' }], [{ status: 3 }], [{}], [{ status: null }]])(
    'answers 400 naming `status` for %j',
    async (body) => {
      const agent = await registerAgent(server);
      const res = await setStatus(agent.agentId, body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['status']);
      expect((await call('GET', '/agents/me', { key: agent.key })).status).toBe(200);
    },
  );

  it('answers 400 naming an unknown field', async () => {
    const agent = await registerAgent(server);
    const res = await setStatus(agent.agentId, { status: 'SUSPENDED', until: 'tomorrow' });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['until']);
  });

  it('answers 403 to an agent key, even the target’s own, and 401 without a key', async () => {
    const agent = await registerAgent(server);
    const other = await registerAgent(server);
    expectProblem(await setStatus(other.agentId, { status: 'BANNED' }, agent.key), 403, 'forbidden');
    expectProblem(await setStatus(agent.agentId, { status: 'ACTIVE' }, agent.key), 403, 'forbidden');
    expectProblem(await setStatus(other.agentId, { status: 'BANNED' }, ''), 401, 'unauthorized');
    expectProblem(await setStatus(other.agentId, { status: 'BANNED' }, `key_admin_${'x'.repeat(40)}`), 401, 'unauthorized');
    expect((await call('GET', '/agents/me', { key: other.key })).status).toBe(200);
  });

  it("records the change in the agent's audit log as done by the administrator", async () => {
    const agent = await registerAgent(server);
    await setStatus(agent.agentId, { status: 'SUSPENDED', reason: 'Abuse report 42' });
    await setStatus(agent.agentId, { status: 'ACTIVE' });
    const log = await call('GET', '/my/audit-log', { key: agent.key });
    expect(log.status).toBe(200);
    const changes = log.body.events.filter((e: any) => e.action === 'status.changed');
    expect(changes).toHaveLength(2);
    for (const change of changes) {
      expect(change).toMatchObject({ actor_kind: 'admin', target_type: 'agent', target_id: agent.agentId });
      expect(change.actor_id).not.toBe(agent.agentId);
    }
    expect(changes.map((c: any) => c.details)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ from: 'ACTIVE', to: 'SUSPENDED', reason: 'Abuse report 42' }),
        expect.objectContaining({ from: 'SUSPENDED', to: 'ACTIVE' }),
      ]),
    );
  });
});

describe('a status reaches the whole subtree of sub-agents (issue 34)', () => {
  /** A sub-agent of `parentId` made by the holder of `key`; CREATE autonomy so that it may have sub-agents of its own. */
  async function subAgent(key: string, parentId: string, autonomyLevel = 'CREATE') {
    const res = await call('POST', `/agents/${parentId}/sub-agents`, {
      key,
      body: { name: uniqueName('sub'), description: 'A sub-agent made by a test', autonomyLevel, authorityScope: [] },
    });
    if (res.status !== 201) throw new Error(`sub-agent creation failed: ${res.status} ${res.text}`);
    return { agentId: res.body.agent_id as string, key: res.body.master_key as string };
  }
  const me = (key: string) => call('GET', '/agents/me', { key });
  const verify = (subKey: string) => call('POST', '/keys/verify', { body: { key: subKey } });
  const resolved = async (key: string, capability: string) =>
    ((await call('POST', '/resolve', { key, body: { capability } })).body.matches ?? []).map((m: { service_key: string }) => m.service_key);

  /** root → child → grandchild; the grandchild holds a sub-key of another agent's service and offers a service of its own. */
  async function tree() {
    const root = await registerAgent(server);
    const child = await subAgent(root.key, root.agentId);
    const grandchild = await subAgent(child.key, child.agentId, 'EXECUTE_ONLY');
    const outsider = await registerAgent(server);
    const subKey = (await call('POST', `/keys/provision/${await registerService(outsider.key)}`, { key: grandchild.key, body: {} })).body.sub_key as string;
    const capability = `subtree-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const serviceKey = await registerService(grandchild.key, [capability]);
    // Every caller is known to the principal cache before any status changes.
    for (const a of [root, child, grandchild]) expect((await me(a.key)).status).toBe(200);
    expect((await verify(subKey)).status).toBe(200);
    expect(await resolved(outsider.key, capability)).toEqual([serviceKey]);
    return { root, child, grandchild, outsider, subKey, capability, serviceKey };
  }

  it.each(['SUSPENDED', 'BANNED'])('refuses every sub-agent below a %s agent at once, and lifting it restores them', async (status) => {
    const t = await tree();
    const res = await setStatus(t.root.agentId, { status });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: true, agent_id: t.root.agentId, status, effective_status: status, effective_status_imposed_by: null });

    for (const a of [t.root, t.child, t.grandchild]) {
      const refused = await me(a.key);
      expectProblem(refused, 403, 'forbidden');
      expect(refused.body.detail).toContain(status.toLowerCase());
    }
    expectProblem(
      await call('POST', `/agents/${t.child.agentId}/sub-agents`, {
        key: t.child.key,
        body: { name: uniqueName('sub'), description: 'Not now', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
      }),
      403,
      'forbidden',
    );
    expectProblem(await call('POST', '/services/register', { key: t.grandchild.key, body: serviceBody() }), 403, 'forbidden');
    const viaGraphql = await gql(server, '{ me { name } }', undefined, t.grandchild.key);
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expectProblem(await verify(t.subKey), 401, 'unauthorized');
    expectProblem(await call('GET', `/services/${t.serviceKey}`), 404, 'not_found');
    expect(await resolved(t.outsider.key, t.capability)).toEqual([]);
    const row = await server.app.services.db.agent.findUniqueOrThrow({ where: { id: t.grandchild.agentId } });
    expect({ status: row.status, ownStatus: row.ownStatus }).toEqual({ status, ownStatus: 'ACTIVE' });

    expect((await setStatus(t.root.agentId, { status: 'ACTIVE' })).body).toEqual({
      updated: true,
      agent_id: t.root.agentId,
      status: 'ACTIVE',
      effective_status: 'ACTIVE',
      effective_status_imposed_by: null,
    });
    for (const a of [t.root, t.child, t.grandchild]) expect((await me(a.key)).body.status).toBe('ACTIVE');
    expect((await verify(t.subKey)).status).toBe(200);
    expect((await call('GET', `/services/${t.serviceKey}`)).status).toBe(200);
    expect(await resolved(t.outsider.key, t.capability)).toEqual([t.serviceKey]);
  });

  it("keeps a sub-agent's own suspension when its ancestor is restored, and the worst of the two applies meanwhile", async () => {
    const t = await tree();
    expect((await setStatus(t.child.agentId, { status: 'SUSPENDED' })).status).toBe(200);
    expect((await me(t.root.key)).status).toBe(200);
    expectProblem(await me(t.grandchild.key), 403, 'forbidden');

    expect((await setStatus(t.root.agentId, { status: 'BANNED' })).status).toBe(200);
    for (const a of [t.child, t.grandchild]) expect((await me(a.key)).body.detail).toContain('banned');
    // A sub-agent given ACTIVE under a banned ancestor takes it; the ban still applies, and the answer names who imposes it.
    const under = await setStatus(t.grandchild.agentId, { status: 'ACTIVE' });
    expect(under.body).toEqual({
      updated: true,
      agent_id: t.grandchild.agentId,
      status: 'ACTIVE',
      effective_status: 'BANNED',
      effective_status_imposed_by: t.root.agentId,
    });

    expect((await setStatus(t.root.agentId, { status: 'ACTIVE' })).status).toBe(200);
    expect((await me(t.root.key)).status).toBe(200);
    for (const a of [t.child, t.grandchild]) expect((await me(a.key)).body.detail).toContain('suspended');
    expectProblem(await verify(t.subKey), 401, 'unauthorized');

    expect((await setStatus(t.child.agentId, { status: 'ACTIVE' })).status).toBe(200);
    for (const a of [t.root, t.child, t.grandchild]) expect((await me(a.key)).status).toBe(200);
    expect((await verify(t.subKey)).status).toBe(200);
  });

  it('shows the status given beside the status in force and the ancestor imposing it, to the admin and to an active ancestor', async () => {
    const t = await tree();
    expect((await setStatus(t.child.agentId, { status: 'SUSPENDED' })).status).toBe(200);
    const fields = 'agentId status effectiveStatus effectiveStatusImposedBy';
    const mine = await gql(server, `{ mySubAgents(first: 10) { nodes { ${fields} } } }`, undefined, t.root.key);
    expect(mine.body.errors).toBeUndefined();
    expect(new Map(mine.body.data.mySubAgents.nodes.map((n: any) => [n.agentId, n]))).toEqual(
      new Map([
        [t.child.agentId, { agentId: t.child.agentId, status: 'SUSPENDED', effectiveStatus: 'SUSPENDED', effectiveStatusImposedBy: null }],
        [t.grandchild.agentId, { agentId: t.grandchild.agentId, status: 'ACTIVE', effectiveStatus: 'SUSPENDED', effectiveStatusImposedBy: t.child.agentId }],
      ]),
    );
    // The nearest ancestor with the status in force imposes it: banning the root moves it there.
    expect((await setStatus(t.root.agentId, { status: 'BANNED' })).status).toBe(200);
    const listed = await gql(server, `{ adminAgents(effectiveStatus: BANNED, first: 100) { nodes { ${fields} } } }`, undefined, ADMIN_KEY);
    const byId = new Map(listed.body.data.adminAgents.nodes.map((n: any) => [n.agentId, n]));
    expect(byId.get(t.root.agentId)).toEqual({ agentId: t.root.agentId, status: 'BANNED', effectiveStatus: 'BANNED', effectiveStatusImposedBy: null });
    expect(byId.get(t.child.agentId)).toEqual({
      agentId: t.child.agentId,
      status: 'SUSPENDED',
      effectiveStatus: 'BANNED',
      effectiveStatusImposedBy: t.root.agentId,
    });
    expect(byId.get(t.grandchild.agentId)).toEqual({
      agentId: t.grandchild.agentId,
      status: 'ACTIVE',
      effectiveStatus: 'BANNED',
      effectiveStatusImposedBy: t.root.agentId,
    });
    // `status` filters by the status given.
    const given = await gql(server, `{ adminAgents(status: SUSPENDED, first: 100) { nodes { agentId } } }`, undefined, ADMIN_KEY);
    const ids = given.body.data.adminAgents.nodes.map((n: any) => n.agentId);
    expect(ids).toContain(t.child.agentId);
    expect(ids).not.toContain(t.grandchild.agentId);
    expect((await setStatus(t.root.agentId, { status: 'ACTIVE' })).status).toBe(200);
    expect((await setStatus(t.child.agentId, { status: 'ACTIVE' })).status).toBe(200);
  });

  it('starts a sub-agent created under a suspended agent suspended, and restores it with its parent', async () => {
    const t = await tree();
    expect((await setStatus(t.child.agentId, { status: 'SUSPENDED' })).status).toBe(200);
    // The root, still active, manages its descendants and may give the suspended child a sub-agent.
    const newborn = await subAgent(t.root.key, t.child.agentId, 'EXECUTE_ONLY');
    expectProblem(await me(newborn.key), 403, 'forbidden');
    const row = await server.app.services.db.agent.findUniqueOrThrow({ where: { id: newborn.agentId } });
    expect({ status: row.status, ownStatus: row.ownStatus }).toEqual({ status: 'SUSPENDED', ownStatus: 'ACTIVE' });
    expect((await setStatus(t.child.agentId, { status: 'ACTIVE' })).status).toBe(200);
    expect((await me(newborn.key)).status).toBe(200);
  });

  it('reaches sub-agents created while the suspension spreads', async () => {
    const t = await tree();
    const create = () =>
      call('POST', `/agents/${t.child.agentId}/sub-agents`, {
        key: t.child.key,
        body: { name: uniqueName('racer'), description: 'Created during a suspension', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
      });
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, create),
      setStatus(t.root.agentId, { status: 'SUSPENDED' }),
      ...Array.from({ length: 8 }, create),
    ]);
    const created = answers.filter((r) => r.status === 201);
    expect(answers.every((r) => [200, 201, 403].includes(r.status))).toBe(true);
    for (const r of created) expectProblem(await me(r.body.master_key), 403, 'forbidden');
    const rows = await server.app.services.db.agent.findMany({ where: { parentId: t.child.agentId } });
    expect(rows.map((r) => r.status).filter((s) => s !== 'SUSPENDED')).toEqual([]);
  });

  it("tells each agent whose status moved with an agent.updated event, and records the change in the target's audit log", async () => {
    const t = await tree();
    await setStatus(t.root.agentId, { status: 'SUSPENDED', reason: 'Abuse report 7' });
    const events = await server.app.services.db.outboxEvent.findMany({ where: { agentId: t.grandchild.agentId, type: 'agent.updated' } });
    expect(events.map((e) => e.data)).toEqual([
      {
        agent_id: t.grandchild.agentId,
        changed: ['effective_status'],
        status: 'ACTIVE',
        effective_status: 'SUSPENDED',
        previous_effective_status: 'ACTIVE',
        effective_status_imposed_by: t.root.agentId,
      },
    ]);
    const own = await server.app.services.db.outboxEvent.findMany({ where: { agentId: t.root.agentId, type: 'agent.updated' } });
    expect(own.map((e) => e.data)).toEqual([
      {
        agent_id: t.root.agentId,
        changed: ['status', 'effective_status'],
        status: 'SUSPENDED',
        previous_status: 'ACTIVE',
        effective_status: 'SUSPENDED',
        previous_effective_status: 'ACTIVE',
        effective_status_imposed_by: null,
      },
    ]);
    await setStatus(t.root.agentId, { status: 'ACTIVE' });
    const log = await call('GET', '/my/audit-log', { key: t.root.key });
    const changes = log.body.events.filter((e: any) => e.action === 'status.changed').map((e: any) => e.details);
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ from: 'ACTIVE', to: 'SUSPENDED', reason: 'Abuse report 7', sub_agents_changed: 2 }),
        expect.objectContaining({ from: 'SUSPENDED', to: 'ACTIVE', sub_agents_changed: 2 }),
      ]),
    );
  });
});

describe('GET /admin/stats', () => {
  it('answers the platform-wide statistics', async () => {
    const body = await stats();
    const count = expect.any(Number);
    expect(body).toEqual({
      agents: { total: count, active: count, suspended: count, banned: count, sub_agents: count },
      services: { total: count, active: count },
      sub_keys: { total: count, live: count },
      executions: { total: count, last_30d: count, succeeded: count, failed: count },
      disputes: { total: count, open: count },
      revenue_cents: count,
      total_capabilities: count,
    });
    expect(body.agents.total).toBe(body.agents.active + body.agents.suspended + body.agents.banned);
    expect(body.total_capabilities).toBeGreaterThanOrEqual(33);
  });

  it('moves with registrations, services, sub-keys, sub-agents and status changes', async () => {
    const before = await stats();
    const agent = await registerAgent(server);
    const afterAgent = await stats();
    expect(afterAgent.agents.total).toBe(before.agents.total + 1);
    expect(afterAgent.agents.active).toBe(before.agents.active + 1);

    const capability = `stats-cap-${Date.now().toString(36)}`;
    const serviceKey = await registerService(agent.key, ['summarize', capability]);
    const afterService = await stats();
    expect(afterService.services).toEqual({ total: before.services.total + 1, active: before.services.active + 1 });
    expect(afterService.total_capabilities).toBe(before.total_capabilities + 1);

    const key = await call('POST', `/keys/provision/${serviceKey}`, { key: agent.key, body: {} });
    const afterKey = await stats();
    expect(afterKey.sub_keys).toEqual({ total: before.sub_keys.total + 1, live: before.sub_keys.live + 1 });
    await call('DELETE', `/keys/${key.body.sub_key_id}`, { key: agent.key });
    expect((await stats()).sub_keys).toEqual({ total: before.sub_keys.total + 1, live: before.sub_keys.live });

    const sub = await call('POST', `/agents/${agent.agentId}/sub-agents`, {
      key: agent.key,
      body: { name: uniqueName('stats-sub'), description: 'Counted', autonomyLevel: 'EXECUTE_ONLY', authorityScope: ['summarize'] },
    });
    expect(sub.status).toBe(201);
    const afterSub = await stats();
    expect(afterSub.agents.sub_agents).toBe(before.agents.sub_agents + 1);
    expect(afterSub.agents.total).toBe(before.agents.total + 2);

    await setStatus(agent.agentId, { status: 'SUSPENDED' });
    await setStatus(sub.body.agent_id, { status: 'BANNED' });
    const afterStatus = await stats();
    expect(afterStatus.agents).toMatchObject({
      total: before.agents.total + 2,
      active: before.agents.active,
      suspended: before.agents.suspended + 1,
      banned: before.agents.banned + 1,
    });
  });

  it('answers 403 to an agent key and 401 without a key', async () => {
    const agent = await registerAgent(server);
    expectProblem(await call('GET', '/admin/stats', { key: agent.key }), 403, 'forbidden');
    expectProblem(await call('GET', '/admin/stats'), 401, 'unauthorized');
  });
});
