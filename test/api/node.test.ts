// Query.node and Query.nodes (CONTRACT §9): a global id that names nothing answers exactly as one naming
// another agent's object ("No such object", 404 NOT_FOUND), never a 500, for every type implementing Node
// in the schema — the types are read from the schema, so a type added later is covered as it lands.
import { encodeGlobalID } from '@pothos/plugin-relay';
import { isObjectType, type GraphQLInterfaceType } from 'graphql';
import { schema } from '../../schema/index';
import { api, gql, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
let owner: { key: string; agentId: string };
let stranger: { key: string; agentId: string };

/** Types whose objects every agent may read: another agent's answers with the object. */
const PUBLIC = new Set(['Agent', 'Service', 'Spark']);

const nodeTypes = schema.getPossibleTypes(schema.getType('Node') as GraphQLInterfaceType).filter(isObjectType);

/**
 * The Prisma model behind a node type: the prisma plugin's, or the model of the type's name for a node
 * loaded by a function of its own (Skill).
 */
function modelOf(typeName: string): string {
  const type = schema.getType(typeName)!;
  const model = (type.extensions as { pothosPrismaModel?: string }).pothosPrismaModel ?? typeName;
  return model[0].toLowerCase() + model.slice(1);
}

/**
 * An id of the same form as `id` that names nothing: each letter and digit after its last separator moves
 * to another of its kind, keeping hexadecimal digits hexadecimal (a UUID stays a UUID, `task_…` stays
 * `task_` and 24 base62, `ST-1001` stays `ST-` and digits).
 */
function sibling(id: string): string {
  const cut = Math.max(id.lastIndexOf('-'), id.lastIndexOf('_')) + 1;
  const rotate = (c: string) => {
    for (const range of ['0123456789', 'abcdef', 'ghijklmnopqrstuvwxyz', 'ABCDEF', 'GHIJKLMNOPQRSTUVWXYZ']) {
      const at = range.indexOf(c);
      if (at >= 0) return range[(at + 1) % range.length];
    }
    return c;
  };
  return id.slice(0, cut) + [...id.slice(cut)].map(rotate).join('');
}

const nodeQuery = 'query ($id: ID!) { node(id: $id) { id __typename } }';
const errorsLogged = () => server.logs.filter((line) => JSON.parse(line).level >= 50);

/** One object of each kind, made by `owner` (ids are read back from the database by each type's model). */
async function seedOwnersObjects() {
  const ok = async (res: Promise<{ status: number; text: string; body: any }>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`seeding failed: ${r.status} ${r.text}`);
    return r.body;
  };
  const service = await ok(
    call('POST', '/services/register', {
      key: owner.key,
      body: {
        name: 'Node service',
        endpoint: 'https://provider.example.com/run',
        capabilities: ['summarize'],
        description: 'A service for the node tests',
        pricing_model: 'per_call',
        cost_per_call: 1,
      },
    }),
  );
  await ok(call('POST', `/keys/provision/${service.service_key}`, { key: owner.key, body: {} }));
  await ok(call('POST', '/webhooks', { key: owner.key, body: { url: 'https://receiver.invalid/hook', events: ['*'] } }));
  // The support-ticket capability answers itself: an execution and a ticket.
  await ok(
    call('POST', '/execute', {
      key: owner.key,
      body: { capability: 'support-ticket', input: { type: 'question', subject: 'Node', description: 'A ticket for the node tests', agentName: 'node' } },
    }),
  );
  await ok(
    call('POST', '/disputes', { key: owner.key, body: { serviceId: service.service_id, type: 'quality', description: 'A dispute for the node tests' } }),
  );
  await ok(call('POST', '/memory/stores', { key: owner.key, body: { name: 'node-store', storeType: 'kv' } }));
  await ok(call('POST', '/subscriptions', { key: owner.key, body: { capabilityId: 'summarize', schedule: '0 0 1 1 *', deliveryMethod: 'sse' } }));
  await ok(call('POST', '/streaming/sessions', { key: owner.key, body: { capabilityId: 'summarize' } }));
  // A draft: only its owner sees it.
  await ok(call('POST', '/agent-skills', { key: owner.key, body: { name: uniqueSlug('node-draft'), runtime: 'python', entrypoint: 'main' } }));
  const task = await ok(call('POST', '/tasks', { key: owner.key, body: { intent: 'A task for the node tests' } }));
  await ok(
    call('POST', `/tasks/${task.task_id}/publish-spark`, {
      key: owner.key,
      body: { title: 'Node spark', content: 'Published for the node tests', spark_type: 'insight' },
    }),
  );
  await ok(
    call('POST', '/swarm/sessions', {
      key: owner.key,
      body: { goal: 'A swarm for the node tests', strategy: 'parallel', steps: [{ capability: 'no-provider-here' }] },
    }),
  );
  await ok(call('POST', '/uto/tickets', { key: owner.key, body: { intent: 'A ticket for the node tests', domain: 'node', context: {} } }));
  await ok(call('POST', '/ammc/conglomerates', { key: owner.key, body: { goal: 'A conglomerate for the node tests', max_budget_usd: 10 } }));
  // An answered delegation records a charge of 0 for the delegating agent: a transaction.
  const external = await ok(
    call('POST', '/ext/agents/register', { key: owner.key, body: { instance_url: 'https://agent.invalid/inbox', capabilities: ['summarize'] } }),
  );
  const delegation = await ok(
    call('POST', '/ext/swarm/delegate', { key: owner.key, body: { external_agent_id: external.external_agent.external_agent_id, capability: 'summarize' } }),
  );
  await ok(call('POST', `/ext/swarm/delegations/${delegation.delegation_id}/answer`, { key: owner.key, body: { result: { ok: true } } }));
  // A spend mandate for a sub-agent of the owner's.
  const sub = await ok(
    call('POST', `/agents/${owner.agentId}/sub-agents`, {
      key: owner.key,
      body: { name: uniqueSlug('node-sub'), description: 'Spends within a mandate', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
    }),
  );
  await ok(call('POST', '/mandates', { key: owner.key, body: { agent_id: sub.id, daily_cents: 100 } }));
}

/** The raw id of one of the owner's objects of a node type (every type must have one: seed it above). */
async function ownersObject(typeName: string): Promise<string> {
  const delegate = (server.app.services.db as unknown as Record<string, { findFirst(args: object): Promise<{ id: string } | null> }>)[modelOf(typeName)];
  const where = typeName === 'Agent' ? { id: owner.agentId } : { id: { not: stranger.agentId } };
  const row = await delegate.findFirst({ where, select: { id: true } });
  if (!row) throw new Error(`No ${typeName} to ask for: seed one in seedOwnersObjects`);
  return row.id;
}

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
  owner = await registerAgent(server);
  await seedOwnersObjects();
  // Registered last, it owns nothing seeded: everything above is another agent's.
  stranger = await registerAgent(server);
});
afterAll(() => server.close());

it('reads the types implementing Node from the schema', () => {
  expect(nodeTypes.length).toBeGreaterThanOrEqual(17);
});

describe.each(nodeTypes.map((t) => [t.name] as const))('node(id:) of a %s', (typeName) => {
  it("answers for an id that names nothing exactly as for another agent's object it may not see, never with a 500", async () => {
    const id = await ownersObject(typeName);
    const missing = sibling(id);
    expect(missing).not.toBe(id);
    const logged = errorsLogged().length;

    const nothing = await gql(server, nodeQuery, { id: encodeGlobalID(typeName, missing) }, stranger.key);
    expect(nothing.body.errors).toEqual([expect.objectContaining({ message: 'No such object', path: ['node'], extensions: { code: 'NOT_FOUND' } })]);
    expect(nothing.body.data).toEqual({ node: null });
    expect(nothing.status).toBeLessThan(500);

    const foreign = await gql(server, nodeQuery, { id: encodeGlobalID(typeName, id) }, stranger.key);
    if (PUBLIC.has(typeName)) {
      expect(foreign.body).toEqual({ data: { node: { id: encodeGlobalID(typeName, id), __typename: typeName } } });
    } else {
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: nothing.status, body: nothing.body });
    }
    // Its owner reads it by the same id.
    const own = await gql(server, nodeQuery, { id: encodeGlobalID(typeName, id) }, owner.key);
    expect(own.body).toEqual({ data: { node: { id: encodeGlobalID(typeName, id), __typename: typeName } } });
    expect(errorsLogged().slice(logged)).toEqual([]);
  });
});

describe('nodes(ids:)', () => {
  it('answers each id on its own: the objects found, and the same error for an id naming nothing and for one the caller may not see', async () => {
    const logged = errorsLogged().length;
    const task = await ownersObject('Task');
    const mine = encodeGlobalID('Agent', stranger.agentId);
    const res = await gql(
      server,
      'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }',
      { ids: [mine, encodeGlobalID('Task', sibling(task)), encodeGlobalID('Task', task)] },
      stranger.key,
    );
    expect(res.status).toBeLessThan(500);
    expect(res.body.data).toEqual({ nodes: [{ id: mine }, null, null] });
    const errors = (res.body.errors ?? []) as { message: string; path?: unknown[]; extensions?: Record<string, unknown> }[];
    expect(errors.map((e) => e.path)).toEqual([
      ['nodes', 1],
      ['nodes', 2],
    ]);
    for (const e of errors) expect(e).toMatchObject({ message: 'No such object', extensions: { code: 'NOT_FOUND' } });
    expect(errorsLogged().slice(logged)).toEqual([]);
  });
});

it('answers "No such object" for a global id whose id cannot be one of its type (not a UUID where one is kept)', async () => {
  const logged = errorsLogged().length;
  const res = await gql(server, nodeQuery, { id: encodeGlobalID('Execution', 'not-a-uuid') }, stranger.key);
  expect(res.body).toMatchObject({ data: { node: null }, errors: [{ message: 'No such object', extensions: { code: 'NOT_FOUND' } }] });
  expect(errorsLogged().slice(logged)).toEqual([]);
});
