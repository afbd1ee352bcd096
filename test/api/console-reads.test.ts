// The reads the web console needs beyond the spec's listings (docs/console.md): an agent's tree of
// sub-agents, an agent's public reputation history, and the administrator's agents and outbox.
import { api, gql, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';

const ADMIN_KEY = `key_admin_${'C0'.repeat(20)}`;

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  // Loopback webhook receivers need OUTBOUND_ALLOW_PRIVATE (the outbox test's is one nothing answers).
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
  call = api(server);
});
afterAll(() => server.close());

/** A GraphQL answer's body. */
const q = async (query: string, variables: Record<string, unknown>, key?: string) =>
  (await gql(server, query, variables, key)).body as { data: any; errors: any };

async function subAgent(key: string, parentId: string) {
  const res = await call('POST', `/agents/${parentId}/sub-agents`, {
    key,
    body: { name: uniqueName('sub'), description: 'A sub-agent of the console test', autonomyLevel: 'CREATE', authorityScope: ['summarize'] },
  });
  if (res.status !== 201) throw new Error(`sub-agent: ${res.status} ${res.text}`);
  return { agentId: res.body.agent_id as string, key: res.body.master_key as string };
}

const SUB_AGENTS = `query($first: Int, $after: String) { mySubAgents(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { agentId parentId name ownerEmail } } }`;

describe('mySubAgents', () => {
  it("lists the caller's whole tree, newest first, each with its parent, and nothing of another agent's", async () => {
    const root = await registerAgent(server);
    const child = await subAgent(root.key, root.agentId);
    const grandchild = await subAgent(child.key, child.agentId);
    const second = await subAgent(root.key, root.agentId);
    const other = await registerAgent(server);
    await subAgent(other.key, other.agentId);

    const res = await q(SUB_AGENTS, {}, root.key);
    expect(res.errors).toBeUndefined();
    const list = res.data.mySubAgents;
    expect(list.totalCount).toBe(3);
    expect(list.nodes.map((a: { agentId: string }) => a.agentId)).toEqual([second.agentId, grandchild.agentId, child.agentId]);
    expect(list.nodes.find((a: { agentId: string }) => a.agentId === grandchild.agentId).parentId).toBe(child.agentId);
    // The owner's email is the agent's own to see.
    expect(list.nodes.every((a: { ownerEmail: string | null }) => a.ownerEmail === null)).toBe(true);

    // A sub-agent sees its own subtree only.
    const mid = await q(SUB_AGENTS, {}, child.key);
    expect(mid.data.mySubAgents.nodes.map((a: { agentId: string }) => a.agentId)).toEqual([grandchild.agentId]);

    // Pages.
    const first = await q(SUB_AGENTS, { first: 2 }, root.key);
    expect(first.data.mySubAgents.nodes).toHaveLength(2);
    expect(first.data.mySubAgents.pageInfo.hasNextPage).toBe(true);
    const rest = await q(SUB_AGENTS, { first: 2, after: first.data.mySubAgents.pageInfo.endCursor }, root.key);
    expect(rest.data.mySubAgents.nodes.map((a: { agentId: string }) => a.agentId)).toEqual([child.agentId]);
  });

  it('needs an agent key', async () => {
    const res = await q(SUB_AGENTS, {});
    expect(res.errors[0].extensions.code).toBe('UNAUTHORIZED');
  });
});

const HISTORY = `query($id: ID!, $days: Int) { agentReputation(agentId: $id) { reputation history(days: $days) { day score net events } } }`;

describe('agentReputation.history', () => {
  it('gives the score at the end of each day it moved, with the net change, to anyone', async () => {
    const agent = await registerAgent(server);
    const day = (daysAgo: number, hour: number) => {
      const d = new Date();
      d.setUTCHours(hour, 0, 0, 0);
      return new Date(d.getTime() - daysAgo * 86_400_000);
    };
    const rows: [Date, number, number][] = [
      [day(3, 9), 2, 22],
      [day(3, 15), 3, 25],
      [day(1, 10), -5, 20],
      [day(40, 10), 1, 21],
    ];
    for (const [at, delta, after] of rows) {
      await server.app.services.sql.query(
        `INSERT INTO reputation_events (id, agent_id, delta, score_after, reason, created_at) VALUES (gen_random_uuid(), $1, $2, $3, 'console test', $4)`,
        [agent.agentId, delta, after, at],
      );
    }
    const res = await q(HISTORY, { id: agent.agentId });
    expect(res.errors).toBeUndefined();
    // Registration's own event (the starting score, today) is the last day.
    expect(res.data.agentReputation.history).toEqual([
      { day: day(3, 0).toISOString().slice(0, 10), score: 25, net: 5, events: 2 },
      { day: day(1, 0).toISOString().slice(0, 10), score: 20, net: -5, events: 1 },
      { day: day(0, 0).toISOString().slice(0, 10), score: 20, net: 20, events: 1 },
    ]);
    const longer = await q(HISTORY, { id: agent.agentId, days: 60 });
    expect(longer.data.agentReputation.history).toHaveLength(4);
    const bad = await q(HISTORY, { id: agent.agentId, days: 366 });
    expect(bad.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

const AGENTS = `query($status: AgentStatus, $name: String) { adminAgents(status: $status, name: $name, first: 50) { totalCount nodes { agentId name status } } }`;
const OUTBOX = `query { adminOutbox { unrelayed oldestUnrelayedSeconds checkedAt kinds { kind pending due sending failed oldestDueSeconds } } }`;

describe('adminAgents and adminOutbox', () => {
  it('lists agents by status and by the start of their name, for the administrator only', async () => {
    const prefix = uniqueName('adm');
    const a = await registerAgent(server, { name: `${prefix}-a` });
    const b = await registerAgent(server, { name: `${prefix}-b` });
    const suspended = await call('PATCH', `/admin/agents/${b.agentId}/status`, { key: ADMIN_KEY, body: { status: 'SUSPENDED' } });
    expect(suspended.status).toBe(200);

    const named = await q(AGENTS, { name: prefix.toUpperCase() }, ADMIN_KEY);
    expect(named.errors).toBeUndefined();
    expect(named.data.adminAgents.nodes.map((x: { agentId: string }) => x.agentId)).toEqual([b.agentId, a.agentId]);
    const onlySuspended = await q(AGENTS, { name: prefix, status: 'SUSPENDED' }, ADMIN_KEY);
    expect(onlySuspended.data.adminAgents.nodes).toEqual([{ agentId: b.agentId, name: `${prefix}-b`, status: 'SUSPENDED' }]);

    const asAgent = await q(AGENTS, {}, a.key);
    expect(asAgent.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('counts the deliveries waiting, due and given up, by kind', async () => {
    const agent = await registerAgent(server);
    // A webhook whose receiver is unreachable: its deliveries wait.
    const hook = await call('POST', '/webhooks', { key: agent.key, body: { url: 'https://127.0.0.1:9/hook', events: ['agent.updated'] } });
    expect(hook.status).toBe(201);
    const before = await q(OUTBOX, {}, ADMIN_KEY);
    expect(before.errors).toBeUndefined();
    const webhooks = (s: { data: any }) =>
      s.data.adminOutbox.kinds.find((k: { kind: string }) => k.kind === 'webhook') ?? { pending: 0, due: 0, sending: 0, failed: 0 };
    const waiting = (s: { data: any }) => webhooks(s).pending + webhooks(s).sending + webhooks(s).failed;
    const updated = await call('PATCH', '/agents/me', { key: agent.key, body: { description: 'Changed, so an event is delivered' } });
    expect(updated.status).toBe(200);
    const after = await q(OUTBOX, {}, ADMIN_KEY);
    expect(waiting(after)).toBe(waiting(before) + 1);
    expect(after.data.adminOutbox.unrelayed).toBeGreaterThanOrEqual(0);
    expect(new Date(after.data.adminOutbox.checkedAt).getTime()).toBeGreaterThan(0);

    const asAgent = await q(OUTBOX, {}, agent.key);
    expect(asAgent.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
