// GraphQL over HTTP at the edges the GraphQL-over-HTTP spec and the gate decide: methods (405 with Allow),
// graphql-sse refusing as POST /graphql does, the cost limits with a code, introspection counted in a
// bucket, computed once and switchable off, and a client's error logged once, not as a server error.
import { getIntrospectionQuery } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { eventually } from '../support/expect';
import { http, registerAgent, startServer, type TestServer } from '../support/server';
import { newMasterKey } from '../../src/platform/ids';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const GRAPHQL_RESPONSE = { accept: 'application/graphql-response+json' };

describe('methods', () => {
  it('answers a mutation over GET with 405 and Allow: POST, whatever the client accepts', async () => {
    const query = encodeURIComponent('mutation { registerAgent(input: { name: "over-get", description: "d", ownerEmail: "a@example.com" }) { agentKey } }');
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const res = await http(server.url, 'GET', `/graphql?query=${query}`, { headers: { accept } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.body.errors[0].message).toMatch(/mutation/);
    }
    // Nothing was registered: the name is still free.
    const registered = await http(server.url, 'POST', '/api/v1/agents/register', { body: { name: 'over-get', description: 'd', ownerEmail: 'a@example.com' } });
    expect(registered.status).toBe(201);
  });

  it.each(['PUT', 'PATCH', 'DELETE'])('answers %s /graphql with 405 and Allow: GET, POST', async (method) => {
    const res = await http(server.url, method, '/graphql', { body: { query: '{ __typename }' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
  });
});

describe('graphql-sse', () => {
  const sse = (body: unknown, authorization?: string) =>
    http(server.url, 'POST', '/graphql/stream', { body, headers: { accept: 'text/event-stream', ...(authorization ? { authorization } : {}) } });

  it('refuses a credential that is not live as POST /graphql does: 401 UNAUTHORIZED, before any stream opens', async () => {
    const subscription = { query: 'subscription { agentEvents { type } }' };
    const viaSse = await sse(subscription, `Bearer ${newMasterKey()}`);
    expect(viaSse.status).toBe(401);
    expect(viaSse.headers.get('content-type')).toMatch(/application\/json/);
    expect(viaSse.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    expect(viaSse.text).not.toMatch(/operation AST/);
    const viaPost = await http(server.url, 'POST', '/graphql', { body: { query: '{ me { id } }' }, key: newMasterKey() });
    expect(viaPost.status).toBe(401);
    expect(viaPost.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
  });

  it('refuses an invalid or over-limit document with 400 and a code, never a 500', async () => {
    const invalid = await sse({ query: '{ nope }' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const fan = `{ me { ...F0 } } ${Array.from({ length: 30 }, (_, i) => `fragment F${i} on Agent { ${i < 29 ? `...F${i + 1} ...F${i + 1}` : 'id'} }`).join(' ')}`;
    const over = await sse({ query: fan });
    expect(over.status).toBe(400);
    expect(over.body.errors[0].message).toMatch(/selects one response name/);
    const garbage = await sse({ query: '{ me { ' });
    expect(garbage.status).toBe(400);
    expect(garbage.text).not.toMatch(/at .+\.ts:\d+/);
  });

  it('streams a subscription the caller may open', async () => {
    const me = await registerAgent(server);
    const aborter = new AbortController();
    const res = await fetch(`${server.url}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${me.key}` },
      body: JSON.stringify({ query: 'subscription { agentEvents { type } }' }),
      signal: aborter.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    aborter.abort();
  });
});

describe('cost limits', () => {
  it('refuses aliases, repeats and complexity over the limits with 400 BAD_REQUEST, naming the limit', async () => {
    const cases: [string, RegExp][] = [
      [`{ ${Array.from({ length: 65 }, (_, i) => `a${i}: __typename`).join(' ')} }`, /65 aliases .* at most 64/],
      [`{ me { ${'id '.repeat(51)} } }`, /selects one response name 51 times .* at most 50/],
      [
        `{ tasks(first: 100) { edges { node { ${Array.from({ length: 20 }, (_, i) => `d${i}: delegations { delegationId status }`).join(' ')} } } } }`,
        /complexity is \d+ .* budget is 50000/,
      ],
      [`{ me { ${'__typename '.repeat(2001)} } }`, /more than 2000 tokens/],
    ];
    for (const [query, message] of cases) {
      const res = await http(server.url, 'POST', '/graphql', { body: { query }, headers: GRAPHQL_RESPONSE });
      expect({ query: query.slice(0, 40), status: res.status, code: res.body.errors[0].extensions.code, message: res.body.errors[0].message }).toEqual({
        query: query.slice(0, 40),
        status: 400,
        code: 'BAD_REQUEST',
        message: expect.stringMatching(message),
      });
    }
  });

  it('counts a page size given by a variable with the request’s value', async () => {
    const query = `query($n: Int) { tasks(first: $n) { edges { node { ${Array.from({ length: 20 }, (_, i) => `d${i}: delegations { delegationId status }`).join(' ')} } } } }`;
    const me = await registerAgent(server);
    const small = await http(server.url, 'POST', '/graphql', { body: { query, variables: { n: 5 } }, key: me.key });
    expect(small.status).toBe(200);
    const large = await http(server.url, 'POST', '/graphql', { body: { query, variables: { n: 100 } }, key: me.key, headers: GRAPHQL_RESPONSE });
    expect(large.status).toBe(400);
    expect(large.body.errors[0].message).toMatch(/complexity/);
  });
});

describe('introspection', () => {
  it('spends the introspection bucket (30 a minute) besides the fields', async () => {
    const other = await startServer();
    try {
      const query = getIntrospectionQuery();
      // Sent at once: the bucket is spent as each arrives, so the 31st is refused however long the thirty
      // answers take (one after another, a slow machine spent more than the minute the bucket refills in).
      const answers = await Promise.all(Array.from({ length: 31 }, () => http(other.url, 'POST', '/graphql', { body: { query } })));
      const refused = answers.filter((a) => a.status === 429);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(30);
      expect(refused).toHaveLength(1);
      expect(refused[0].body.errors[0].extensions.code).toBe('RATE_LIMITED');
      // A document without introspection is not held back by it.
      expect((await http(other.url, 'POST', '/graphql', { body: { query: '{ __typename }' } })).status).toBe(200);
    } finally {
      await other.close();
    }
  }, 120_000);

  it('computes an introspection once and answers it on every surface, each run admitted by the gate', async () => {
    const other = await startServer();
    try {
      const kept = async () => Number(/^graphql_introspection_cache_entries (\S+)$/m.exec(await (await fetch(`${other.url}/metrics`)).text())?.[1]);
      expect(await kept()).toBe(0);
      const query = getIntrospectionQuery();
      const first = await http(other.url, 'POST', '/graphql', { body: { query } });
      expect(first.status).toBe(200);
      expect(first.body.data.__schema.queryType.name).toBe('Query');
      const again = await http(other.url, 'POST', '/graphql', { body: { query } });
      const get = await http(other.url, 'GET', `/graphql?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json' } });
      const subscribeOnce = (client: {
        subscribe: (p: { query: string }, sink: { next: (v: any) => void; error: (e: unknown) => void; complete: () => void }) => () => void;
      }) => new Promise<any>((resolve, reject) => client.subscribe({ query }, { next: resolve, error: reject, complete: () => {} }));
      const ws = createWsClient({ url: `${other.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
      const sse = createSseClient({ url: `${other.url}/graphql/stream`, retryAttempts: 0 });
      try {
        for (const answer of [again.body, get.body, await subscribeOnce(ws), await subscribeOnce(sse)]) expect(answer).toEqual(first.body);
      } finally {
        await ws.dispose();
        sse.dispose();
      }
      // One answer kept for the document, whichever surface asked.
      expect(await kept()).toBe(1);
      // Each run spent the introspection bucket all the same (30 a minute): five so far.
      const sixth = await http(other.url, 'POST', '/graphql', { body: { query } });
      expect(sixth.headers.get('x-ratelimit-remaining')).toBe('24');
      // Other variables are another answer; an operation that reads the schema's own fields is never kept.
      const named = 'query($n: String!) { __type(name: $n) { name kind } }';
      for (const n of ['Agent', 'Service', 'Agent']) {
        expect((await http(other.url, 'POST', '/graphql', { body: { query: named, variables: { n } } })).body).toEqual({
          data: { __type: { name: n, kind: 'OBJECT' } },
        });
      }
      expect((await http(other.url, 'POST', '/graphql', { body: { query: '{ __schema { queryType { name } } stats { totalAgents } }' } })).status).toBe(200);
      expect(await kept()).toBe(3);
    } finally {
      await other.close();
    }
  });

  it('is refused with GRAPHQL_INTROSPECTION=0, while __typename still answers', async () => {
    const closed = await startServer({ env: { GRAPHQL_INTROSPECTION: '0' } });
    try {
      for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Agent") { name } }']) {
        const res = await http(closed.url, 'POST', '/graphql', { body: { query }, headers: GRAPHQL_RESPONSE });
        expect(res.status).toBe(400);
        expect(res.body.errors[0].message).toMatch(/Introspection is turned off/);
      }
      expect((await http(closed.url, 'POST', '/graphql', { body: { query: '{ __typename }' } })).body).toEqual({ data: { __typename: 'Query' } });
    } finally {
      await closed.close();
    }
  });
});

it('logs a client’s error once, at info, and never as a server error', async () => {
  for (const send of [
    () => http(server.url, 'GET', `/graphql?query=${encodeURIComponent('{ me { id } }')}`, { headers: GRAPHQL_RESPONSE }),
    () => http(server.url, 'POST', '/graphql/stream', { body: { query: '{ me { id } }' }, headers: { accept: 'text/event-stream' } }),
  ]) {
    const before = server.logs.length;
    expect((await send()).status).toBe(401);
    // Until its line is written (yoga reports an error twice in the same turn of answering, the duplicate before it).
    const lines = await eventually(
      async () => server.logs.slice(before).map((l) => JSON.parse(l) as { level: number; msg: string; errors?: string[] }),
      (ls) => ls.some((l) => JSON.stringify(l).includes('A valid bearer credential is required')),
      5_000,
    );
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.filter((l) => JSON.stringify(l).includes('A valid bearer credential is required'))).toEqual([
      expect.objectContaining({ level: 30, msg: 'graphql client error' }),
    ]);
  }
});
