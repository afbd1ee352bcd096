// The input boundary: JSON nested too deeply, text the database cannot store (NUL, lone surrogates),
// numbers its columns cannot hold, and headers too large are refused with a 4xx naming what, on every
// surface (REST bodies, path and query parameters, GraphQL documents and variables over HTTP and yoga).
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { expectProblem, errorPaths } from '../support/expect';
import { api, gql, http, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
let me: { key: string; agentId: string };

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
  me = await registerAgent(server);
});
afterAll(() => server.close());

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
/** JSON text nested `depth` levels, written without recursion (JSON.stringify recurses). */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('JSON nesting', () => {
  it('refuses a body nested deeper than 32 levels with 400 naming where, and takes one within the limit', async () => {
    for (const path of ['/resolve', '/execute', '/subscriptions', '/memory/stores', '/agents/register']) {
      const res = await http(server.url, 'POST', `/api/v1${path}`, { key: me.key, raw: nestedText(10_000), headers: { 'content-type': 'application/json' } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].message).toBe('is nested deeper than 32 levels');
    }
    const deep = await call('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: nested(40) } });
    expectProblem(deep, 400, 'validation_failed');
    expect(errorPaths(deep)[0]).toMatch(/^input(\.a){31}$/);
    // Within the limit, the body passes the boundary and reaches the capability, whose schema has no `extra`.
    const within = await call('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: me.agentId, extra: nested(29) } } });
    expectProblem(within, 400, 'validation_failed');
    expect(within.body.errors).toEqual([{ path: 'input.extra', message: 'is not a field of this input' }]);
  });

  it('refuses GraphQL variables and documents nested too deeply, without overflowing the parser', async () => {
    const vars = await http(server.url, 'POST', '/graphql', {
      key: me.key,
      raw: `{"query":"query($i: ResolveInput!) { resolve(input: $i) { total } }","variables":{"i":${nestedText(5_000)}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(vars.status).toBe(400);
    expect(vars.body.errors[0].message).toMatch(/nested deeper than 32 levels/);
    // A request error: 400 to graphql-response+json clients, 200 with errors to legacy JSON ones.
    const doc = await http(server.url, 'POST', '/graphql', {
      key: me.key,
      body: { query: `{ ${'me {'.repeat(10_000)} id ${'}'.repeat(10_000)} }` },
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(doc.status).toBe(400);
    expect(doc.body.errors![0].message).toMatch(/nested deeper than 64 levels/);
    // The same through yoga (GET).
    const get = await http(server.url, 'GET', `/graphql?query=${encodeURIComponent(`{ ${'me {'.repeat(100)} id ${'}'.repeat(100)} }`)}`, {
      headers: { accept: 'application/json' },
    });
    expect(get.status).toBeLessThan(500);
    expect(JSON.stringify(get.body)).toMatch(/nested deeper than 64 levels/);
  });
});

describe('text the database cannot store', () => {
  it('refuses a NUL or a lone surrogate in a body field, naming it', async () => {
    for (const bad of ['a\u0000b', 'x\ud800y', '\udc00']) {
      const res = await call('POST', '/agents/register', { body: { name: uniqueName(), description: bad, ownerEmail: 'o@example.com' } });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['description']);
    }
  });

  it('refuses them inside JSON values and keys, naming the path', async () => {
    const store = (await call('POST', '/memory/stores', { key: me.key, body: { name: uniqueName('s'), storeType: 'structured' } })).body;
    const value = await call('PUT', `/memory/stores/${store.id}/entries`, { key: me.key, body: { entries: [{ key: 'k', value: { text: 'nul\u0000' } }] } });
    expect(errorPaths(value)).toEqual(['entries.0.value.text']);
    const key = await call('PUT', `/memory/stores/${store.id}/entries`, { key: me.key, body: { entries: [{ key: 'k', value: { ['bad\u0000key']: 1 } }] } });
    expect(errorPaths(key)).toEqual(['entries.0.value.bad?key']);
    const filter = await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { filter: { a: '\ud800' } } });
    expect(errorPaths(filter)).toEqual(['filter.a']);
    expect((await call('GET', `/memory/stores/${store.id}/entries`, { key: me.key })).body.total).toBe(0);
  });

  it('refuses them in path and query parameters', async () => {
    const path = await call('POST', '/keys/provision/%00', { key: me.key });
    expectProblem(path, 400, 'validation_failed');
    expect(errorPaths(path)).toEqual(['serviceKey']);
    const query = await call('GET', '/memory/stores?storeType=%00', { key: me.key });
    expect(errorPaths(query)).toEqual(['storeType']);
    const store = (await call('POST', '/memory/stores', { key: me.key, body: { name: uniqueName('s'), storeType: 'kv' } })).body;
    expect(errorPaths(await call('GET', `/memory/stores/${store.id}/entries/a%00b`, { key: me.key }))).toEqual(['key']);
  });

  it('refuses them in GraphQL variables and in string literals', async () => {
    const vars = await gql(server, 'mutation($i: UpdateMeInput!) { updateMe(input: $i) { name } }', { i: { description: 'a\u0000b' } }, me.key);
    expect(vars.status).toBe(400);
    expect(vars.body.errors![0]).toMatchObject({
      message: expect.stringMatching(/variables\.i\.description: must not contain the NUL/),
      extensions: { code: 'VALIDATION_FAILED' },
    });
    const literal = await gql(server, 'mutation { updateMe(input: { description: "a\\u0000b" }) { name } }', undefined, me.key);
    expect(literal.body.errors![0].message).toMatch(/string literal must not contain the NUL/);
    // graphql-js's lexer refuses a lone surrogate escape itself.
    const surrogate = await gql(server, 'mutation { updateMe(input: { description: "\\ud800" }) { name } }', undefined, me.key);
    expect(surrogate.body.errors![0].message).toMatch(/Invalid Unicode escape|lone UTF-16 surrogate/);
    expect((await call('GET', '/agents/me', { key: me.key })).body.description).not.toMatch(/\u0000/);
  });
});

describe('over WebSocket (graphql-ws)', () => {
  it('refuses the same variables before running the operation', async () => {
    const client = createWsClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${me.key}` },
      retryAttempts: 0,
      lazy: true,
    });
    try {
      const result = await new Promise<any>((resolve) => {
        let got: unknown;
        client.subscribe(
          { query: 'mutation($i: UpdateMeInput!) { updateMe(input: $i) { name } }', variables: { i: { description: 'x\u0000' } } },
          { next: (v) => (got = v), error: (e) => resolve({ error: e }), complete: () => resolve(got) },
        );
      });
      expect(JSON.stringify(result)).toMatch(/must not contain the NUL/);
    } finally {
      await client.dispose();
    }
  });
});

describe('numbers a column cannot hold', () => {
  it('refuses embeddings beyond float4, in writes and in searches', async () => {
    const store = (await call('POST', '/memory/stores', { key: me.key, body: { name: uniqueName('v'), storeType: 'vector', dimensions: 3 } })).body;
    const write = await call('PUT', `/memory/stores/${store.id}/entries`, {
      key: me.key,
      body: { entries: [{ key: 'k', value: 1, embedding: [1e308, 1, 1] }] },
    });
    expectProblem(write, 400, 'validation_failed');
    expect(errorPaths(write)).toEqual(['entries.0.embedding']);
    const search = await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { vector: [1, -1e39, 0] } });
    expect(errorPaths(search)).toEqual(['vector']);
    expect(
      (await call('PUT', `/memory/stores/${store.id}/entries`, { key: me.key, body: { entries: [{ key: 'k', value: 1, embedding: [3e38, 1, 1] }] } })).status,
    ).toBe(200);
  });

  it('refuses integers beyond 32 bits where a column is an integer (cents, limits)', async () => {
    const res = await call('POST', '/services/register', {
      key: me.key,
      body: {
        name: 'Big',
        endpoint: 'https://x.example.com',
        capabilities: ['summarize'],
        description: 'a big price here',
        pricing_model: 'per_call',
        costPerCall: 1e20,
      },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['costPerCall']);
  });
});

describe('headers', () => {
  it('answers a request with oversized headers or URL with a problem+json 431', async () => {
    const res = await fetch(`${server.url}/api/v1/services?q=${'x'.repeat(100_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 431, code: 'bad_request' });
    const big = await fetch(`${server.url}/api/v1/health`, { headers: { 'x-big': 'y'.repeat(64 * 1024) } });
    expect(big.status).toBe(431);
    // The server goes on serving.
    expect((await call('GET', '/health')).status).toBe(200);
  });
});
