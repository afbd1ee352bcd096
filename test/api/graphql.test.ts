// The GraphQL surface: the same operations as REST, errors with codes and HTTP statuses, and
// Subscription.agentEvents delivered over WebSocket (graphql-ws) and SSE (graphql-sse).
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { api, gql, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';
import { within } from '../support/expect';
import { registerPayingAgent } from '../support/payments';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const AGENT_EVENTS = 'subscription { agentEvents { id type createdAt data } }';

/** Collects the first `count` results of a subscription from a sink-style client. */
function collect(subscribe: (sink: { next: (v: any) => void; error: (e: unknown) => void; complete: () => void }) => () => void, count: number) {
  const results: any[] = [];
  let dispose: () => void = () => {};
  const done = new Promise<any[]>((resolve, reject) => {
    dispose = subscribe({
      next: (v) => {
        results.push(v);
        if (results.length >= count) resolve(results);
      },
      error: reject,
      complete: () => resolve(results),
    });
  });
  return { done, dispose: () => dispose() };
}

describe('GraphQL over HTTP', () => {
  it('registers an agent and reads it back with me', async () => {
    const name = uniqueName('gql');
    const reg = await gql(
      server,
      'mutation($i: RegisterAgentInput!) { registerAgent(input: $i) { agent { id agentId name tier reputation } masterKey agentKey } }',
      {
        i: { name, description: 'Over GraphQL', ownerEmail: 'g@example.com' },
      },
    );
    expect(reg.status).toBe(200);
    const { agent, masterKey } = reg.body.data!.registerAgent;
    expect(agent).toMatchObject({ name, tier: 'newcomer', reputation: 20 });
    expect(masterKey).toMatch(/^key_master_/);
    const me = await gql(server, '{ me { id agentId name ownerEmail status autonomyLevel } }', undefined, masterKey);
    expect(me.body.data!.me).toEqual({ id: agent.id, agentId: agent.agentId, name, ownerEmail: 'g@example.com', status: 'ACTIVE', autonomyLevel: 'GOVERN' });
    const node = await gql(server, 'query($id: ID!) { node(id: $id) { __typename ... on Agent { name } } }', { id: agent.id }, masterKey);
    expect(node.body.data).toEqual({ node: { __typename: 'Agent', name } });
  });

  it('answers 401 with code UNAUTHORIZED for me without a key', async () => {
    const res = await gql(server, '{ me { id } }');
    expect(res.status).toBe(401);
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('carries validation errors with the failing fields', async () => {
    const res = await gql(server, 'mutation { registerAgent(input: { name: "ab", description: "d", ownerEmail: "nope" }) { agentKey } }');
    expect(res.status).toBe(400);
    expect(res.body.errors![0].extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: expect.arrayContaining([expect.objectContaining({ path: 'name' }), expect.objectContaining({ path: 'ownerEmail' })]),
    });
  });

  it('rejects a malformed query with errors and never a 5xx', async () => {
    // GraphQL over HTTP: 400 for application/graphql-response+json, 200 with errors for legacy JSON.
    for (const query of ['{ me { ', '{ nope }']) {
      const modern = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query }),
      });
      expect(modern.status).toBe(400);
      const legacy = await gql(server, query);
      expect(legacy.status).toBeLessThan(500);
      expect(legacy.body.errors!.length).toBeGreaterThan(0);
    }
  });

  it('updates the profile with updateMe', async () => {
    const me = await registerPayingAgent(server);
    const res = await gql(server, 'mutation { updateMe(input: { capabilities: ["summarize"] }) { capabilities } }', undefined, me.key);
    expect(res.body).toEqual({ data: { updateMe: { capabilities: ['summarize'] } } });
  });

  it("shares the REST twin's rate budget and reports it in headers", async () => {
    const me = await registerPayingAgent(server);
    const rest = await api(server)('GET', '/agents/me', { key: me.key });
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('59');
    const res = await gql(server, '{ me { id } }', undefined, me.key);
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('58');
  });

  it('answers the same through the fast path and through yoga (GET)', async () => {
    const me = await registerPayingAgent(server);
    const query = '{ me { agentId name tier } version { version } }';
    const post = await gql(server, query, undefined, me.key);
    const get = await fetch(`${server.url}/graphql?query=${encodeURIComponent(query)}`, {
      headers: { authorization: `Bearer ${me.key}`, accept: 'application/json' },
    });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual(post.body);
    expect(post.body.data.me).toEqual({ agentId: me.agentId, name: me.name, tier: 'newcomer' });
  });

  it('answers request errors by the GraphQL-over-HTTP rules', async () => {
    const post = (body: string, accept = 'application/graphql-response+json') =>
      fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body });
    for (const body of ['{"query":', '[]', '{"query":"{ ping }","variables":[1]}', '{}', '{"query":"subscription { agentEvents { id } }"}']) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
      const json = await res.json();
      expect(json.errors[0].message).toEqual(expect.any(String));
      expect(json.errors[0].extensions?.http).toBeUndefined();
    }
    const big = await post(JSON.stringify({ query: '{ ping }', variables: { pad: 'x'.repeat(1024 * 1024) } }));
    expect(big.status).toBe(413);
    const two = await post('{"query":"query A { ping } query B { ping }"}');
    expect(two.status).toBe(400);
    const named = await post('{"query":"query A { ping } query B { pong: ping }","operationName":"B"}');
    expect(await named.json()).toEqual({ data: { pong: true } });
  });

  it('hands other content types and event streams to yoga', async () => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/graphql+json', accept: 'application/json' },
      body: '{"query":"{ ping }"}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { ping: true } });
  });

  it('serves GraphiQL to a browser', async () => {
    const res = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/graphiql/i);
  });
});

describe('Subscription.agentEvents', () => {
  let ws: WsClient | undefined;
  afterEach(async () => {
    await ws?.dispose();
    ws = undefined;
    // Each test starts with no stream open, so that attached() sees its own.
    await within(5_000, async () => server.app.services.events.openStreams === 0);
  });

  /** Resolves once the server holds the test's subscription: an event committed from now on reaches it. */
  const attached = () => within(5_000, async () => server.app.services.events.openStreams > 0);

  function wsClient(key?: string) {
    return createWsClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: key ? { authorization: `Bearer ${key}` } : {},
      retryAttempts: 0,
      lazy: true,
    });
  }

  it('delivers agent.updated over WebSocket', async () => {
    const me = await registerPayingAgent(server);
    ws = wsClient(me.key);
    const sub = collect((sink) => ws!.subscribe({ query: AGENT_EVENTS }, sink), 1);
    await attached();
    await api(server)('PATCH', '/agents/me', { key: me.key, body: { description: 'Changed over REST' } });
    const [result] = await sub.done;
    expect(result.data.agentEvents).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'agent.updated',
      data: { agent_id: me.agentId, changed: ['description'], description: 'Changed over REST' },
    });
  });

  it('marks a relayed event published, and relays one a crash kept from the streams, once', async () => {
    const me = await registerPayingAgent(server);
    const sql = server.app.services.sql;
    const queued = (id: string) => sql.query('SELECT 1 FROM outbox_unpublished WHERE event_id = $1', [id]);
    ws = wsClient(me.key);
    const sub = collect((sink) => ws!.subscribe({ query: AGENT_EVENTS }, sink), 2);
    await attached();

    // Committed and relayed: its queue row goes with the published mark, a tenth of a second later.
    await api(server)('PATCH', '/agents/me', { key: me.key, body: { description: 'Relayed at once' } });
    const [{ id: relayed }] = await sql.query<{ id: string }>(`SELECT id FROM outbox_events WHERE agent_id = $1 AND type = 'agent.updated'`, [me.agentId]);
    await within(2_000, async () => (await queued(relayed)).length === 0);

    // Committed by a process that died before relaying it: its queue row is still there, 10 s old.
    const at = new Date(Date.now() - 10_000);
    const orphan = `evt_orphan${Date.now()}`;
    await sql.query(
      `WITH e AS (INSERT INTO outbox_events (id, type, agent_id, data, created_at) VALUES ($1, 'agent.updated', $2::uuid, $3::jsonb, $4::timestamptz) RETURNING id, created_at)
       INSERT INTO outbox_unpublished (created_at, event_id) SELECT created_at, id FROM e`,
      [orphan, me.agentId, JSON.stringify({ agent_id: me.agentId, changed: ['description'], description: 'Recovered' }), at],
    );
    // Recovered by whichever runs first, the scheduler's round or this one; taken by exactly one of them.
    await server.app.services.outbox.recover();
    const [first, second] = await sub.done;
    expect(first.data.agentEvents).toMatchObject({ id: relayed, data: { description: 'Relayed at once' } });
    expect(second.data.agentEvents).toMatchObject({ id: orphan, createdAt: at.toISOString(), data: { description: 'Recovered' } });
    expect(await queued(orphan)).toEqual([]);
    expect(await server.app.services.outbox.recover()).toBe(0);
  });

  it("does not deliver another agent's events", async () => {
    const me = await registerPayingAgent(server);
    const other = await registerAgent(server);
    ws = wsClient(me.key);
    const sub = collect((sink) => ws!.subscribe({ query: AGENT_EVENTS }, sink), 1);
    await attached();
    await api(server)('PATCH', '/agents/me', { key: other.key, body: { description: 'Not yours' } });
    await api(server)('PATCH', '/agents/me', { key: me.key, body: { description: 'Yours' } });
    const [result] = await sub.done;
    expect(result.data.agentEvents.data).toMatchObject({ agent_id: me.agentId, description: 'Yours' });
  });

  it('refuses the subscription without a key', async () => {
    ws = wsClient();
    const sub = collect((sink) => ws!.subscribe({ query: AGENT_EVENTS }, sink), 1);
    const [result] = await sub.done;
    expect(result.data ?? null).toBeNull();
    expect(result.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'UNAUTHORIZED' }) })]);
  });

  it('closes the socket for a credential that is not live with 4403 Forbidden, as the protocol has a refused connection_init', async () => {
    ws = wsClient(`key_master_${'Z'.repeat(40)}`);
    const sub = collect((sink) => ws!.subscribe({ query: AGENT_EVENTS }, sink), 1);
    await expect(sub.done).rejects.toMatchObject({ code: 4403, reason: 'Forbidden: the credential is unknown or revoked' });
  });

  it('delivers agent.updated over SSE (graphql-sse, distinct connections)', async () => {
    const me = await registerPayingAgent(server);
    const sse = createSseClient({ url: `${server.url}/graphql/stream`, headers: { authorization: `Bearer ${me.key}` }, retryAttempts: 0 });
    try {
      const sub = collect((sink) => sse.subscribe({ query: AGENT_EVENTS }, sink), 1);
      await attached();
      await api(server)('PATCH', '/agents/me', { key: me.key, body: { capabilities: ['translate'] } });
      const [result] = await sub.done;
      expect(result.data.agentEvents).toMatchObject({ type: 'agent.updated', data: { agent_id: me.agentId, capabilities: ['translate'] } });
      sub.dispose();
    } finally {
      sse.dispose();
    }
  });

  it('counts open streams in /health', async () => {
    const me = await registerPayingAgent(server);
    ws = wsClient(me.key);
    const sub = collect((sink) => ws!.subscribe({ query: AGENT_EVENTS }, sink), 1);
    await attached();
    const health = await api(server)('GET', '/health');
    expect(health.body.components.sse.open_streams).toBeGreaterThanOrEqual(1);
    sub.dispose();
  });
});

describe('Query.node', () => {
  it("resolves an agent's own sub-key by global id and answers not-found for another agent's", async () => {
    const owner = await registerAgent(server);
    const other = await registerAgent(server);
    const service = await api(server)('POST', '/services/register', {
      key: owner.key,
      body: {
        name: 'Node test',
        endpoint: 'https://provider.example.com/run',
        capabilities: ['summarize'],
        description: 'A service for node tests',
        pricing_model: 'free',
      },
    });
    const made = await gql(
      server,
      'mutation($s: String!) { provisionSubKey(serviceKey: $s) { key { id subKeyId } } }',
      { s: service.body.service_key },
      owner.key,
    );
    const id = made.body.data.provisionSubKey.key.id;
    const mine = await gql(server, 'query($id: ID!) { node(id: $id) { ... on SubKey { subKeyId hint } } }', { id }, owner.key);
    expect(mine.body.data.node.subKeyId).toBe(made.body.data.provisionSubKey.key.subKeyId);
    const theirs = await gql(server, 'query($id: ID!) { node(id: $id) { ... on SubKey { subKeyId hint } } }', { id }, other.key);
    expect(theirs.body.data?.node ?? null).toBeNull();
    expect(theirs.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect(JSON.stringify(theirs.body)).not.toContain('key_service_');
  });
});
