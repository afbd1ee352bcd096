// Relay connections (CONTRACT §9) of the lists that grow: an agent's reputation events, its services'
// ticket endpoints, an entry's versions and a store's search results. Each pages forwards (first/after)
// and backwards (last/before) over the same list with the same cursors, says where it is (pageInfo) and
// how long the list is (totalCount), while its REST route answers the spec's shape through the same field.
import { api, gql as graphql, registerAgent, registerService, startServer, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

interface Connection<T> {
  totalCount: number;
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

/** Runs a query that must succeed and answers its one root field. */
async function must<T>(key: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await graphql(server, query, variables, key);
  if (res.body.errors?.length || !res.body.data) throw new Error(`${res.status} ${res.text}`);
  return Object.values(res.body.data)[0] as T;
}

/**
 * Holds a connection field to Relay's paging over a list whose whole order is `all` (by `id` of each
 * node): forward pages of `size` joined are the list, backward pages from the end joined are the list,
 * and `before` and `after` bound each other's pages.
 */
type Node = { id: string | number };

async function holdsRelayPaging(read: (args: Record<string, unknown>) => Promise<Connection<Node>>, all: (string | number)[], size: number) {
  const ids = (c: Connection<Node>) => c.edges.map((e) => e.node.id);
  // Forwards.
  const forwards: (string | number)[] = [];
  let after: string | null = null;
  for (;;) {
    const page: Connection<Node> = await read({ first: size, after });
    expect(page.totalCount).toBe(all.length);
    expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
    expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
    forwards.push(...ids(page));
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  expect(forwards).toEqual(all);
  // Backwards: `last` alone is the end of the list, `before` the page before it.
  const backwards: (string | number)[] = [];
  let before: string | null = null;
  for (;;) {
    const page: Connection<Node> = await read({ last: size, before });
    expect(page.totalCount).toBe(all.length);
    backwards.unshift(...ids(page));
    if (!page.pageInfo.hasPreviousPage) break;
    before = page.pageInfo.startCursor;
  }
  expect(backwards).toEqual(all);
  // A window: after the first item and before the last.
  const whole = await read({ first: all.length });
  const first = whole.edges[0].cursor;
  const last = whole.edges[whole.edges.length - 1].cursor;
  expect(ids(await read({ first: all.length, after: first, before: last }))).toEqual(all.slice(1, -1));
  expect(ids(await read({ last: 2, after: first, before: last }))).toEqual(all.slice(-3, -1));
}

describe('myReputation', () => {
  it('pages the events that moved the score, newest first, beside the score and tier', async () => {
    const me = await registerAgent(server);
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 7; i++) {
      await server.app.services.sql.query(
        `INSERT INTO reputation_events (id, agent_id, delta, score_after, reason, created_at) VALUES (gen_random_uuid(), $1, 1, $2, $3, $4)`,
        [me.agentId, 21 + i, `event ${i}`, new Date(base + i * 60_000)],
      );
    }
    const read = (args: Record<string, unknown>) =>
      must<Connection<{ id: string; reason: string }>>(
        me.key,
        `query($first: Int, $after: String, $last: Int, $before: String) {
          myReputation(first: $first, after: $after, last: $last, before: $before) { reputation tier totalCount edges { cursor node { id: eventId reason } } ${PAGE_INFO} }
        }`,
        args,
      );
    const all = (await read({ first: 100 })).edges.map((e) => e.node);
    // Registration's event is the newest (the others are dated January).
    expect(all.map((e) => e.reason)).toEqual(['registered', 'event 6', 'event 5', 'event 4', 'event 3', 'event 2', 'event 1', 'event 0']);
    const page = (await read({ first: 2 })) as unknown as { reputation: number; tier: string };
    expect(page).toMatchObject({ reputation: me.body.reputation, tier: 'newcomer' });
    await holdsRelayPaging(
      read,
      all.map((e) => e.id),
      3,
    );
    // REST answers the spec's `reputation` and `events`, through the same field.
    const rest = await call('GET', '/my/reputation?limit=2&offset=1', { key: me.key });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ reputation: me.body.reputation, tier: 'newcomer', total: 8 });
    expect(rest.body.events.map((e: any) => e.reason)).toEqual(['event 6', 'event 5']);
  });
});

describe('ticketEndpoints', () => {
  it("pages the ticket endpoints of the caller's services, oldest first", async () => {
    const me = await registerAgent(server);
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) {
      const service = await registerService(server, me.key, { cost_per_call: 0, pricing_model: 'free' });
      const res = await call('POST', '/tickets/register-endpoint', {
        key: me.key,
        body: { service_key: service.service_key, ticket_receive_url: `https://receiver.example.com/t/${i}`, name: `desk ${i}` },
      });
      expect(res.status).toBe(201);
      keys.push(service.service_key);
    }
    // Another agent's endpoint is not in the list.
    const other = await registerAgent(server);
    const theirs = await registerService(server, other.key, { cost_per_call: 0, pricing_model: 'free' });
    await call('POST', '/tickets/register-endpoint', {
      key: other.key,
      body: { service_key: theirs.service_key, ticket_receive_url: 'https://receiver.example.com/theirs' },
    });
    const read = (args: Record<string, unknown>) =>
      must<Connection<{ id: string }>>(
        me.key,
        `query($first: Int, $after: String, $last: Int, $before: String) {
          ticketEndpoints(first: $first, after: $after, last: $last, before: $before) { totalCount edges { cursor node { id: serviceKey } } ${PAGE_INFO} }
        }`,
        args,
      );
    expect((await read({ first: 100 })).edges.map((e) => e.node.id)).toEqual(keys);
    await holdsRelayPaging(read, keys, 2);
    const rest = await call('GET', '/tickets/endpoints', { key: me.key });
    expect(rest.status).toBe(200);
    expect(rest.body.total).toBe(5);
    expect(rest.body.endpoints[0]).toMatchObject({ service_key: keys[0], ticket_receive_url: 'https://receiver.example.com/t/0', name: 'desk 0' });
    expect((await call('GET', '/tickets/endpoints?limit=2&offset=4', { key: me.key })).body.endpoints.map((e: any) => e.service_key)).toEqual([keys[4]]);
  });
});

describe('memoryEntryVersions', () => {
  it("pages an entry's kept versions, newest first", async () => {
    const me = await registerAgent(server);
    const store = (await call('POST', '/memory/stores', { key: me.key, body: { name: 'versions', storeType: 'kv' } })).body;
    for (let v = 1; v <= 6; v++) await call('PUT', `/memory/stores/${store.id}/entries`, { key: me.key, body: { entries: [{ key: 'k', value: { v } }] } });
    const read = (args: Record<string, unknown>) =>
      must<Connection<Node>>(
        me.key,
        `query($s: ID!, $first: Int, $after: String, $last: Int, $before: String) {
          memoryEntryVersions(storeId: $s, key: "k", first: $first, after: $after, last: $last, before: $before) { totalCount edges { cursor node { id: version } } ${PAGE_INFO} }
        }`,
        { s: store.id, ...args },
      );
    const all = (await read({})).edges.map((e) => e.node.id);
    expect(all).toEqual([6, 5, 4, 3, 2, 1]);
    await holdsRelayPaging(read, all, 4);
    const rest = await call('GET', `/memory/stores/${store.id}/entries/k/versions`, { key: me.key });
    expect(rest.body.total).toBe(6);
    expect(rest.body.versions.map((v: any) => v.value.v)).toEqual([6, 5, 4, 3, 2, 1]);
    // A key with no live entry is 404 whatever page is asked for.
    const missing = await graphql(
      server,
      `
        query ($s: ID!) {
          memoryEntryVersions(storeId: $s, key: "nope", last: 2) {
            totalCount
          }
        }
      `,
      { s: store.id },
      me.key,
    );
    expect(missing.body.errors![0].extensions!.code).toBe('NOT_FOUND');
  });
});

describe('searchMemory', () => {
  it('pages ranked results with the same cursors forwards and backwards, within totalCount', async () => {
    const me = await registerAgent(server);
    const store = (await call('POST', '/memory/stores', { key: me.key, body: { name: 'search', storeType: 'kv' } })).body;
    const keys = Array.from({ length: 9 }, (_, i) => `item:${i}`);
    await call('PUT', `/memory/stores/${store.id}/entries`, {
      key: me.key,
      body: { entries: [...keys.map((k) => ({ key: k, value: 1 })), { key: 'other', value: 1 }] },
    });
    const read = (args: Record<string, unknown>) =>
      must<Connection<{ id: string }>>(
        me.key,
        `query($s: ID!, $i: MemorySearchInput!, $first: Int, $after: String, $last: Int, $before: String) {
          searchMemory(storeId: $s, input: $i, first: $first, after: $after, last: $last, before: $before) { totalCount edges { cursor node { id: key } } ${PAGE_INFO} }
        }`,
        { s: store.id, i: { prefix: 'item:' }, ...args },
      );
    await holdsRelayPaging(read, keys, 4);
    // The input's limit sizes the page when the connection's arguments do not; both, differing, is 400.
    const sized = await must<Connection<{ key: string }>>(
      me.key,
      `query($s: ID!) { searchMemory(storeId: $s, input: { prefix: "item:", limit: 3 }) { totalCount edges { node { key } } } }`,
      { s: store.id },
    );
    expect(sized.edges.map((e) => e.node.key)).toEqual(keys.slice(0, 3));
    expect(sized.totalCount).toBe(9);
    const same = await must<Connection<{ key: string }>>(
      me.key,
      `query($s: ID!) { searchMemory(storeId: $s, input: { prefix: "item:", limit: 3 }, first: 3) { edges { node { key } } } }`,
      { s: store.id },
    );
    expect(same.edges.map((e) => e.node.key)).toEqual(keys.slice(0, 3));
    const differing = await graphql(
      server,
      `
        query ($s: ID!) {
          searchMemory(storeId: $s, input: { prefix: "item:", limit: 3 }, first: 4) {
            totalCount
          }
        }
      `,
      { s: store.id },
      me.key,
    );
    expect(differing.body.errors![0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'limit' }] });
    // REST answers `results` and how many the search found.
    const rest = await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { prefix: 'item:', limit: 2 } });
    expect(rest.body).toMatchObject({ total: 9, results: [{ key: 'item:0' }, { key: 'item:1' }] });
  });

  it('refuses cursors it did not make and both first and last', async () => {
    const me = await registerAgent(server);
    const store = (await call('POST', '/memory/stores', { key: me.key, body: { name: 'refusals', storeType: 'kv' } })).body;
    const paths = async (args: string) => {
      const res = await graphql(server, `query($s: ID!) { searchMemory(storeId: $s, input: {}, ${args}) { totalCount } }`, { s: store.id }, me.key);
      expect(res.body.errors![0].extensions!.code).toBe('VALIDATION_FAILED');
      return (res.body.errors![0].extensions!.errors as { path: string }[]).map((e) => e.path);
    };
    const cursor = (text: string) => Buffer.from(text).toString('base64');
    expect(await paths(`after: "${cursor('OffsetConnection:-5')}"`)).toEqual(['after']);
    expect(await paths(`before: "${cursor('OffsetConnection:99999999999')}"`)).toEqual(['before']);
    expect(await paths(`after: "not a cursor"`)).toEqual(['after']);
    expect(await paths('first: 2, last: 2')).toEqual(['last']);
    expect(await paths('last: 0')).toEqual(['last']);
  });
});
