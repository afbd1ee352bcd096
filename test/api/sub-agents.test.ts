// Sub-agents (spec §2 Agent, §4.1 POST /agents/:id/sub-agents): created by the agent or one of its
// ancestors, with their own master key, an autonomy no higher than the parent's and a scope inside it.
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';
import { errorPaths, expectProblem } from '../support/expect';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  // Rate limits are not under test here.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

function subAgentBody(overrides: Record<string, unknown> = {}) {
  return { name: uniqueName('sub'), description: 'A sub-agent made by a test', autonomyLevel: 'EXECUTE_ONLY', authorityScope: ['summarize'], ...overrides };
}

const createSub = (key: string, parentId: string, body: Record<string, unknown>) => call('POST', `/agents/${parentId}/sub-agents`, { key, body });

/** Creates a sub-agent and returns its id and master key. */
async function subAgent(key: string, parentId: string, overrides: Record<string, unknown> = {}) {
  const res = await createSub(key, parentId, subAgentBody(overrides));
  if (res.status !== 201) throw new Error(`sub-agent creation failed: ${res.status} ${res.text}`);
  return { agentId: res.body.agent_id as string, key: res.body.master_key as string, body: res.body };
}

describe('POST /agents/:id/sub-agents', () => {
  it('creates a sub-agent with its own master key, shown once', async () => {
    const parent = await registerAgent(server);
    const name = uniqueName('sub');
    const res = await createSub(parent.key, parent.agentId, {
      name,
      description: 'Summarises for its parent',
      autonomyLevel: 'CREATE',
      authorityScope: ['summarize', 'web-'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      agent_id: res.body.id,
      name,
      autonomyLevel: 'CREATE',
      authorityScope: ['summarize', 'web-'],
      parent_id: parent.agentId,
      reputation: 20,
      tier: 'newcomer',
      agent_key: expect.stringMatching(/^ag_[0-9A-Za-z]{24}$/),
      master_key: expect.stringMatching(/^key_master_[0-9A-Za-z]{40}$/),
    });
    expect(res.body.id).not.toBe(parent.agentId);
    expect(res.body.master_key).not.toBe(parent.key);
    expect(server.logs.join('\n')).not.toContain(res.body.master_key);
  });

  it('gives the sub-agent a key of its own that works on GET /agents/me', async () => {
    const parent = await registerAgent(server);
    const sub = await subAgent(parent.key, parent.agentId, { autonomyLevel: 'DELEGATE', authorityScope: ['translate'] });
    const me = await call('GET', '/agents/me', { key: sub.key });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      agent_id: sub.agentId,
      name: sub.body.name,
      description: 'A sub-agent made by a test',
      parent_id: parent.agentId,
      autonomy_level: 'DELEGATE',
      authorityScope: ['translate'],
      status: 'ACTIVE',
      reputation_score: 20,
      tier: 'newcomer',
    });
    // The parent's own key still answers as the parent.
    expect((await call('GET', '/agents/me', { key: parent.key })).body).toMatchObject({ agent_id: parent.agentId, parent_id: null });
  });

  it('lets a sub-agent with autonomy CREATE create its own sub-agents', async () => {
    const root = await registerAgent(server);
    const child = await subAgent(root.key, root.agentId, { autonomyLevel: 'CREATE', authorityScope: ['summarize'] });
    const res = await createSub(child.key, child.agentId, subAgentBody({ autonomyLevel: 'CREATE', authorityScope: ['summarize'] }));
    expect(res.status).toBe(201);
    expect(res.body.parent_id).toBe(child.agentId);
  });

  it('lets a grandparent create a sub-agent under its sub-agent', async () => {
    const root = await registerAgent(server);
    const child = await subAgent(root.key, root.agentId, { autonomyLevel: 'CREATE', authorityScope: ['summarize'] });
    const res = await createSub(root.key, child.agentId, subAgentBody({ autonomyLevel: 'DELEGATE', authorityScope: ['summarize.short'] }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ parent_id: child.agentId, autonomyLevel: 'DELEGATE', authorityScope: ['summarize.short'] });
    const grandchild = await call('GET', '/agents/me', { key: res.body.master_key });
    expect(grandchild.body.parent_id).toBe(child.agentId);
  });

  it('answers 404 to an agent creating under someone else, or under its own parent', async () => {
    const owner = await registerAgent(server);
    const stranger = await registerAgent(server);
    expectProblem(await createSub(stranger.key, owner.agentId, subAgentBody()), 404, 'not_found');
    const child = await subAgent(owner.key, owner.agentId, { autonomyLevel: 'CREATE' });
    expectProblem(await createSub(child.key, owner.agentId, subAgentBody()), 404, 'not_found');
    expectProblem(await createSub(stranger.key, child.agentId, subAgentBody()), 404, 'not_found');
    expectProblem(await createSub(owner.key, '00000000-0000-4000-8000-000000000000', subAgentBody()), 404, 'not_found');
  });

  it('answers 404 for a parent id that is not a UUID', async () => {
    const owner = await registerAgent(server);
    expectProblem(await createSub(owner.key, 'not-a-uuid', subAgentBody()), 404, 'not_found');
  });

  it.each([
    [{ autonomyLevel: 'OMNIPOTENT' }, ['autonomyLevel']],
    [{ autonomyLevel: undefined }, ['autonomyLevel']],
    [{ authorityScope: undefined }, ['authorityScope']],
    [{ authorityScope: ['summarize', 'Not A Prefix', ''] }, ['authorityScope.1', 'authorityScope.2']],
    [{ authorityScope: [42] }, ['authorityScope.0']],
    [{ name: 'ab' }, ['name']],
    [{ description: undefined }, ['description']],
    [{ reputation: 100 }, ['reputation']],
  ])('answers 400 for %j naming %j', async (overrides, paths) => {
    const parent = await registerAgent(server);
    const body = JSON.parse(JSON.stringify(subAgentBody(overrides)));
    const res = await createSub(parent.key, parent.agentId, body);
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(paths);
  });

  it('names every missing field in one 400', async () => {
    const parent = await registerAgent(server);
    const res = await createSub(parent.key, parent.agentId, {});
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['authorityScope', 'autonomyLevel', 'description', 'name']);
  });

  it("answers 403 for an autonomy above the parent's", async () => {
    const root = await registerAgent(server);
    const child = await subAgent(root.key, root.agentId, { autonomyLevel: 'CREATE', authorityScope: ['summarize'] });
    expectProblem(await createSub(child.key, child.agentId, subAgentBody({ autonomyLevel: 'GOVERN' })), 403, 'forbidden');
    // The ancestor's higher autonomy does not lift the limit of the parent in between.
    expectProblem(await createSub(root.key, child.agentId, subAgentBody({ autonomyLevel: 'GOVERN' })), 403, 'forbidden');
  });

  it("gives a sub-agent created with an empty scope its parent's scope and owner email", async () => {
    const root = await registerAgent(server, { ownerEmail: 'parent-owner@example.com' });
    const child = await subAgent(root.key, root.agentId, { autonomyLevel: 'CREATE', authorityScope: ['summarize', 'web-'] });
    const grandchild = await subAgent(child.key, child.agentId, { authorityScope: [] });
    expect(grandchild.body.authorityScope).toEqual(['summarize', 'web-']);
    const row = await server.app.services.db.agent.findUniqueOrThrow({ where: { id: grandchild.agentId } });
    expect(row.ownerEmail).toBe('parent-owner@example.com');
  });

  it("answers 403 for a scope outside the parent's", async () => {
    const root = await registerAgent(server);
    const child = await subAgent(root.key, root.agentId, { autonomyLevel: 'CREATE', authorityScope: ['summarize', 'web-'] });
    expect((await createSub(child.key, child.agentId, subAgentBody({ authorityScope: ['web-browse', 'summarize'] }))).status).toBe(201);
    expectProblem(await createSub(child.key, child.agentId, subAgentBody({ authorityScope: ['translate'] })), 403, 'forbidden');
    const mixed = await createSub(child.key, child.agentId, subAgentBody({ authorityScope: ['summarize', 'translate'] }));
    expectProblem(mixed, 403, 'forbidden');
    expect(mixed.body.detail).toContain('translate');
    // A prefix wider than the parent's is outside it too.
    expectProblem(await createSub(child.key, child.agentId, subAgentBody({ authorityScope: ['web'] })), 403, 'forbidden');
  });

  it.each(['EXECUTE_ONLY', 'DELEGATE'])('answers 403 to a parent with autonomy %s, which may not have sub-agents', async (level) => {
    const root = await registerAgent(server);
    const child = await subAgent(root.key, root.agentId, { autonomyLevel: level });
    expectProblem(await createSub(child.key, child.agentId, subAgentBody({ autonomyLevel: 'EXECUTE_ONLY' })), 403, 'forbidden');
    expectProblem(await createSub(root.key, child.agentId, subAgentBody({ autonomyLevel: 'EXECUTE_ONLY' })), 403, 'forbidden');
  });

  it('answers 409 for a name that is taken', async () => {
    const parent = await registerAgent(server);
    const first = await subAgent(parent.key, parent.agentId);
    expectProblem(await createSub(parent.key, parent.agentId, subAgentBody({ name: first.body.name })), 409, 'conflict');
    expectProblem(await createSub(parent.key, parent.agentId, subAgentBody({ name: parent.name })), 409, 'conflict');
  });

  it("records subagent.created in the parent's audit log, and agent.registered in the sub-agent's", async () => {
    const parent = await registerAgent(server);
    const sub = await subAgent(parent.key, parent.agentId, { autonomyLevel: 'DELEGATE', authorityScope: ['summarize'] });
    const log = await call('GET', '/my/audit-log', { key: parent.key });
    expect(log.status).toBe(200);
    const created = log.body.events.filter((e: any) => e.action === 'subagent.created');
    expect(created).toEqual([
      expect.objectContaining({
        actor_kind: 'agent',
        actor_id: parent.agentId,
        target_type: 'agent',
        target_id: sub.agentId,
        details: expect.objectContaining({ sub_agent_id: sub.agentId, autonomy_level: 'DELEGATE', authority_scope: ['summarize'] }),
      }),
    ]);
    const own = await call('GET', '/my/audit-log', { key: sub.key });
    expect(own.body.events.map((e: any) => e.action)).toEqual(['agent.registered']);
    expect(own.body.events[0].details).toMatchObject({ parent_id: parent.agentId });
  });

  it('replays a creation sent again with the same Idempotency-Key (CONTRACT §8)', async () => {
    const parent = await registerAgent(server);
    const headers = { 'idempotency-key': `sub-${parent.agentId}` };
    const body = subAgentBody();
    const first = await call('POST', `/agents/${parent.agentId}/sub-agents`, { key: parent.key, body, headers });
    expect(first.status).toBe(201);
    const replay = await call('POST', `/agents/${parent.agentId}/sub-agents`, { key: parent.key, body, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expectProblem(await call('POST', `/agents/${parent.agentId}/sub-agents`, { key: parent.key, body: subAgentBody(), headers }), 409, 'conflict');
  });

  it('refuses without a master key', async () => {
    const parent = await registerAgent(server);
    expectProblem(await createSub('', parent.agentId, subAgentBody()), 401, 'unauthorized');
  });
});
