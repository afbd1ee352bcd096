// Memory stores (spec §2, §4.7): stores by type and access level, batch writes with versions and TTL,
// background purging, search of each kind (true nearest neighbours for vectors, with pgvector and with the
// exact scan; words beside the vector, fused by reciprocal rank), tier limits and bad input.
import { hybridSearch } from '../../src/domain/memory/hybrid';
import { nearestNeighbours } from '../../src/domain/memory/vectors';
import { purgeExpiredEntries } from '../../src/domain/memory/entries';
import { FakeClock } from '../support/clock';
import { errorPaths, expectProblem } from '../support/expect';
import { api, gql as graphql, registerAgent, startServer, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
const clock = new FakeClock(new Date('2026-11-01T00:00:00Z'));

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' }, clock });
  call = api(server);
});
afterAll(() => server.close());

async function newStore(key: string, body: Record<string, unknown>) {
  const res = await call('POST', '/memory/stores', { key, body: { name: `store-${Math.random().toString(36).slice(2)}`, ...body } });
  if (res.status !== 201) throw new Error(`store creation failed: ${res.status} ${res.text}`);
  return res.body as { id: string; storeType: string; accessLevel: string; dimensions: number | null; default_ttl_seconds: number | null };
}

const write = (key: string, storeId: string, entries: unknown[]) => call('PUT', `/memory/stores/${storeId}/entries`, { key, body: { entries } });

describe('POST /memory/stores', () => {
  it('creates a store with its type and access level, private by default', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/memory/stores', { key: me.key, body: { name: 'notes', storeType: 'kv' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'notes', storeType: 'kv', accessLevel: 'private', owner_agent_id: me.agentId });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await call('GET', '/memory/stores', { key: me.key });
    expect(listed.body).toMatchObject({ total: 1, stores: [{ id: res.body.id, name: 'notes' }] });
  });

  it('answers 409 to a second store of the same name', async () => {
    const me = await registerAgent(server);
    await newStore(me.key, { name: 'dup', storeType: 'kv' });
    expectProblem(await call('POST', '/memory/stores', { key: me.key, body: { name: 'dup', storeType: 'structured' } }), 409, 'conflict');
  });

  it('names each bad field', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/memory/stores', { key: me.key, body: { name: '', storeType: 'graph', accessLevel: 'world', dimensions: 3 } });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['accessLevel', 'dimensions', 'name', 'storeType']);
  });

  it("stops at the tier's store count with 403", async () => {
    const me = await registerAgent(server);
    for (let i = 0; i < 5; i++) await newStore(me.key, { storeType: 'kv' });
    const res = await call('POST', '/memory/stores', { key: me.key, body: { name: 'one-too-many', storeType: 'kv' } });
    expectProblem(res, 403, 'forbidden');
    expect(res.body.detail).toMatch(/at most 5/);
  });
});

describe('entries', () => {
  it('writes a batch, counts it, and keeps earlier versions readable', async () => {
    const me = await registerAgent(server);
    const store = await newStore(me.key, { storeType: 'kv' });
    const first = await write(me.key, store.id, [
      { key: 'a', value: { n: 1 } },
      { key: 'b', value: 'bee' },
    ]);
    expect(first.status).toBe(200);
    expect(first.body.written).toBe(2);
    expect(first.body.entries.map((e: any) => [e.key, e.version]).sort()).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    const second = await write(me.key, store.id, [{ key: 'a', value: { n: 2 } }]);
    expect(second.body.entries[0]).toMatchObject({ key: 'a', version: 2 });

    expect((await call('GET', `/memory/stores/${store.id}/entries/a`, { key: me.key })).body).toMatchObject({ key: 'a', version: 2, value: { n: 2 } });
    expect((await call('GET', `/memory/stores/${store.id}/entries/a?version=1`, { key: me.key })).body).toMatchObject({
      key: 'a',
      version: 1,
      value: { n: 1 },
    });
    const versions = await call('GET', `/memory/stores/${store.id}/entries/a/versions`, { key: me.key });
    expect(versions.body.versions.map((v: any) => [v.version, v.value])).toEqual([
      [2, { n: 2 }],
      [1, { n: 1 }],
    ]);
    expectProblem(await call('GET', `/memory/stores/${store.id}/entries/a?version=7`, { key: me.key }), 404, 'not_found');

    const list = await call('GET', `/memory/stores/${store.id}/entries`, { key: me.key });
    expect(list.body.total).toBe(2);
    expect(list.body.entries.map((e: any) => [e.key, e.version])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('reads keys with slashes and spaces through URL-encoding, and deletes an entry with its history', async () => {
    const me = await registerAgent(server);
    const store = await newStore(me.key, { storeType: 'kv' });
    await write(me.key, store.id, [{ key: 'users/42 name', value: 'Ada' }]);
    const path = `/memory/stores/${store.id}/entries/${encodeURIComponent('users/42 name')}`;
    expect((await call('GET', path, { key: me.key })).body.value).toBe('Ada');
    expect((await call('DELETE', path, { key: me.key })).body).toEqual({ deleted: true, key: 'users/42 name' });
    expectProblem(await call('GET', path, { key: me.key }), 404, 'not_found');
    expect((await write(me.key, store.id, [{ key: 'users/42 name', value: 'again' }])).body.entries[0].version).toBe(1);
  });

  it('hides an entry the moment its TTL passes, purges it later, and starts its versions again', async () => {
    const me = await registerAgent(server);
    const store = await newStore(me.key, { storeType: 'kv' });
    await write(me.key, store.id, [
      { key: 'short', value: 1, ttlSeconds: 60 },
      { key: 'long', value: 2 },
    ]);
    await write(me.key, store.id, [{ key: 'short', value: 11, ttlSeconds: 60 }]);
    clock.advance(59_000);
    expect((await call('GET', `/memory/stores/${store.id}/entries/short`, { key: me.key })).body.value).toBe(11);
    clock.advance(2_000);
    expectProblem(await call('GET', `/memory/stores/${store.id}/entries/short`, { key: me.key }), 404, 'not_found');
    expectProblem(await call('GET', `/memory/stores/${store.id}/entries/short?version=1`, { key: me.key }), 404, 'not_found');
    const list = await call('GET', `/memory/stores/${store.id}/entries`, { key: me.key });
    expect(list.body.entries.map((e: any) => e.key)).toEqual(['long']);
    const search = await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { prefix: 's' } });
    expect(search.body.results).toEqual([]);

    const rows = () => server.app.services.db.memoryEntryVersion.count({ where: { storeId: store.id, key: 'short' } });
    expect(await rows()).toBe(2);
    expect(await purgeExpiredEntries(server.app.services)).toBeGreaterThanOrEqual(1);
    expect(await rows()).toBe(0);
    expect(await server.app.services.db.memoryEntry.count({ where: { storeId: store.id } })).toBe(1);

    expect((await write(me.key, store.id, [{ key: 'short', value: 'new' }])).body.entries[0].version).toBe(1);
  });

  it("applies the store's default TTL to entries written without one", async () => {
    const me = await registerAgent(server);
    const store = await newStore(me.key, { storeType: 'kv', defaultTtlSeconds: 10 });
    const res = await write(me.key, store.id, [
      { key: 'k', value: 1 },
      { key: 'forever-ish', value: 2, ttlSeconds: 3600 },
    ]);
    const byKey = Object.fromEntries(res.body.entries.map((e: any) => [e.key, Date.parse(e.expires_at) - clock.now().getTime()]));
    expect(byKey).toEqual({ k: 10_000, 'forever-ish': 3_600_000 });
  });

  it('reads TTLs in both spellings, for entries as for the store (ttl_seconds was refused as unknown)', async () => {
    const me = await registerAgent(server);
    const store = await newStore(me.key, { storeType: 'kv', default_ttl_seconds: 10 });
    expect(store.default_ttl_seconds).toBe(10);
    const res = await write(me.key, store.id, [
      { key: 'snake', value: 1, ttl_seconds: 30 },
      { key: 'camel', value: 2, ttlSeconds: 40 },
    ]);
    expect(res.status).toBe(200);
    const byKey = Object.fromEntries(res.body.entries.map((e: any) => [e.key, Date.parse(e.expires_at) - clock.now().getTime()]));
    expect(byKey).toEqual({ snake: 30_000, camel: 40_000 });
    const twice = await write(me.key, store.id, [{ key: 'both', value: 1, ttl_seconds: 30, ttlSeconds: 31 }]);
    expectProblem(twice, 400, 'validation_failed');
    expect(errorPaths(twice)).toEqual(['entries.0.ttlSeconds']);
  });

  it('names each bad entry, and enforces the batch and entry-size limits of the tier', async () => {
    const me = await registerAgent(server);
    const kv = await newStore(me.key, { storeType: 'kv' });
    const structured = await newStore(me.key, { storeType: 'structured' });
    let res = await write(me.key, kv.id, [
      { key: 'x', value: 1 },
      { key: 'x', value: 2 },
      { value: 3 },
      { key: 'y' },
      { key: 'z', value: 1, ttlSeconds: 0 },
      { key: 'e', value: 1, embedding: [1] },
    ]);
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['entries.1.key', 'entries.2.key', 'entries.3.value', 'entries.4.ttlSeconds', 'entries.5.embedding']);
    res = await write(me.key, structured.id, [{ key: 'doc', value: 'not an object' }]);
    expect(errorPaths(res)).toEqual(['entries.0.value']);
    res = await write(
      me.key,
      kv.id,
      Array.from({ length: 101 }, (_, i) => ({ key: `k${i}`, value: i })),
    );
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0]).toMatchObject({ path: 'entries', message: expect.stringMatching(/at most 100/) });
    res = await write(me.key, kv.id, [{ key: 'big', value: 'x'.repeat(17 * 1024) }]);
    expect(res.body.errors[0]).toMatchObject({ path: 'entries.0.value', message: expect.stringMatching(/at most 16384/) });
    expectProblem(await call('PUT', `/memory/stores/${kv.id}/entries`, { key: me.key, body: { entries: 'nope' } }), 400, 'validation_failed');
  });
});

describe('access levels', () => {
  it("hides another agent's private store (404) and lets anyone read, but only the owner write, a public one", async () => {
    const owner = await registerAgent(server);
    const other = await registerAgent(server);
    const priv = await newStore(owner.key, { storeType: 'kv' });
    const pub = await newStore(owner.key, { storeType: 'kv', accessLevel: 'public' });
    await write(owner.key, priv.id, [{ key: 'secret', value: 1 }]);
    await write(owner.key, pub.id, [{ key: 'hello', value: 'world' }]);

    expectProblem(await call('GET', `/memory/stores/${priv.id}`, { key: other.key }), 404, 'not_found');
    expectProblem(await call('GET', `/memory/stores/${priv.id}/entries`, { key: other.key }), 404, 'not_found');
    expectProblem(await write(other.key, priv.id, [{ key: 'x', value: 1 }]), 404, 'not_found');

    expect((await call('GET', `/memory/stores/${pub.id}/entries/hello`, { key: other.key })).body.value).toBe('world');
    expectProblem(await write(other.key, pub.id, [{ key: 'x', value: 1 }]), 403, 'forbidden');
    expectProblem(await call('DELETE', `/memory/stores/${pub.id}`, { key: other.key }), 404, 'not_found');
    const gone = await newStore(owner.key, { storeType: 'kv' });
    expect((await call('DELETE', `/memory/stores/${gone.id}`, { key: owner.key })).body).toEqual({ deleted: true, id: gone.id, name: expect.any(String) });
    expectProblem(await call('GET', `/memory/stores/${gone.id}`, { key: owner.key }), 404, 'not_found');

    const listing = await call('GET', '/memory/stores/public?limit=100');
    expect(listing.status).toBe(200);
    expect(listing.body.stores.map((s: any) => s.id)).toContain(pub.id);
    expect(listing.body.stores.map((s: any) => s.id)).not.toContain(priv.id);
  });

  it("shares a shared store with the owner's sub-agents, and no one else", async () => {
    const owner = await registerAgent(server);
    const sub = await call('POST', `/agents/${owner.agentId}/sub-agents`, {
      key: owner.key,
      body: { name: `sub-${Date.now()}`, description: 'a helper', autonomyLevel: 'EXECUTE_ONLY', authorityScope: ['summarize'] },
    });
    expect(sub.status).toBe(201);
    const subKey = sub.body.master_key as string;
    const stranger = await registerAgent(server);
    const shared = await newStore(owner.key, { storeType: 'kv', accessLevel: 'shared' });
    const priv = await newStore(owner.key, { storeType: 'kv' });

    expect((await write(subKey, shared.id, [{ key: 'from-sub', value: 1 }])).status).toBe(200);
    expect((await call('GET', `/memory/stores/${shared.id}/entries/from-sub`, { key: owner.key })).body.value).toBe(1);
    expect((await call('GET', '/memory/stores', { key: subKey })).body.stores.map((s: any) => s.id)).toEqual([shared.id]);
    expectProblem(await call('GET', `/memory/stores/${priv.id}`, { key: subKey }), 404, 'not_found');
    expectProblem(await call('GET', `/memory/stores/${shared.id}`, { key: stranger.key }), 404, 'not_found');
  });
});

describe('search', () => {
  it('finds kv entries by key prefix and by text in key or value', async () => {
    const me = await registerAgent(server);
    const store = await newStore(me.key, { storeType: 'kv' });
    await write(me.key, store.id, [
      { key: 'user:1', value: { name: 'Ada Lovelace' } },
      { key: 'user:2', value: { name: 'Alan Turing' } },
      { key: 'team:1', value: 'Lovelace team' },
    ]);
    const search = async (body: object) => (await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body })).body.results.map((r: any) => r.key);
    expect(await search({ prefix: 'user:' })).toEqual(['user:1', 'user:2']);
    expect(await search({ query: 'lovelace' })).toEqual(['team:1', 'user:1']);
    expect(await search({ prefix: 'user:', query: 'LOVE' })).toEqual(['user:1']);
    expect(await search({ limit: 1 })).toEqual(['team:1']);
    const bad = await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { filter: { a: 1 }, vector: [1] } });
    expect(errorPaths(bad)).toEqual(['filter', 'vector']);
  });

  it('filters structured documents by fields and operators', async () => {
    const me = await registerAgent(server);
    const store = await newStore(me.key, { storeType: 'structured' });
    await write(me.key, store.id, [
      { key: 'o1', value: { status: 'open', total: 10, customer: { tier: 'gold' }, tags: ['a', 'b'] } },
      { key: 'o2', value: { status: 'open', total: 250, customer: { tier: 'silver' } } },
      { key: 'o3', value: { status: 'closed', total: 99.5, customer: { tier: 'gold' }, note: 'late' } },
    ]);
    const search = async (filter: object) => {
      const res = await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { filter } });
      expect(res.status).toBe(200);
      return res.body.results.map((r: any) => r.key);
    };
    expect(await search({ status: 'open' })).toEqual(['o1', 'o2']);
    expect(await search({ 'customer.tier': 'gold' })).toEqual(['o1', 'o3']);
    expect(await search({ total: { $gte: 99.5 } })).toEqual(['o2', 'o3']);
    expect(await search({ total: { $gt: 5, $lt: 100 }, 'customer.tier': 'gold' })).toEqual(['o1', 'o3']);
    expect(await search({ status: { $ne: 'open' } })).toEqual(['o3']);
    expect(await search({ status: { $in: ['closed', 'void'] } })).toEqual(['o3']);
    expect(await search({ note: { $exists: true } })).toEqual(['o3']);
    expect(await search({ tags: ['b'] })).toEqual(['o1']);
    const bad = await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { filter: { total: { $gt: true, $like: 'x' }, '': 1 } } });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['filter.', 'filter.total.$gt', 'filter.total.$like']);
  });

  describe('vector stores', () => {
    const DIM = 16;
    // A deterministic pseudo-random set, so a failure can be reproduced.
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const vectors = Array.from({ length: 300 }, (_, i) => ({ key: `v${String(i).padStart(3, '0')}`, embedding: Array.from({ length: DIM }, rand) }));
    const f32 = (v: number[]) => Array.from(Float32Array.from(v));
    const cosine = (a: number[], b: number[]) => {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < a.length; i++) {
        dot += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
      }
      return 1 - dot / Math.sqrt(na * nb);
    };
    const trueNearest = (q: number[], k: number) =>
      vectors
        .map((v) => ({ key: v.key, d: cosine(f32(v.embedding), f32(q)) }))
        .sort((a, b) => a.d - b.d)
        .slice(0, k)
        .map((v) => v.key);

    let me: Awaited<ReturnType<typeof registerAgent>>;
    let store: { id: string };
    beforeAll(async () => {
      me = await registerAgent(server);
      store = await newStore(me.key, { storeType: 'vector' });
      for (let i = 0; i < vectors.length; i += 100) {
        const res = await write(
          me.key,
          store.id,
          vectors.slice(i, i + 100).map((v) => ({ key: v.key, value: { i: v.key }, embedding: v.embedding })),
        );
        expect(res.status).toBe(200);
      }
    });

    it('fixes the dimensions at the first write and says which search the database uses', async () => {
      const got = await call('GET', `/memory/stores/${store.id}`, { key: me.key });
      expect(got.body).toMatchObject({ dimensions: DIM, vector_search: server.app.services.vectorSearch });
      const health = await call('GET', '/health');
      expect(health.body.components.memory.vector_search).toBe(server.app.services.vectorSearch);
      // PGlite ships pgvector; this machine's PostgreSQL does not.
      if (server.app.services.dbKind === 'pglite') expect(server.app.services.vectorSearch).toBe('pgvector');
    });

    it('returns the true nearest neighbours by cosine distance', async () => {
      for (let q = 0; q < 10; q++) {
        const query = Array.from({ length: DIM }, rand);
        const res = await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { vector: query, limit: 10 } });
        expect(res.status).toBe(200);
        expect(res.body.results.map((r: any) => r.key)).toEqual(trueNearest(query, 10));
        for (const r of res.body.results) {
          expect(r.score).toBeCloseTo(1 - cosine(f32(vectors.find((v) => v.key === r.key)!.embedding), f32(query)), 5);
          expect(r.distance).toBeCloseTo(1 - r.score, 9);
        }
      }
    });

    it('answers the same with the exact scan as with the index', async () => {
      const services = server.app.services;
      const dims = { id: store.id, dimensions: DIM };
      for (let q = 0; q < 10; q++) {
        const query = f32(Array.from({ length: DIM }, rand));
        const exact = await nearestNeighbours(services.db, 'exact', dims, query, 20, clock.now());
        const used = await nearestNeighbours(services.db, services.vectorSearch, dims, query, 20, clock.now());
        expect(used.map((n) => n.key)).toEqual(exact.map((n) => n.key));
        used.forEach((n, i) => expect(n.distance).toBeCloseTo(exact[i].distance, 5));
      }
    });

    it('searches with the words entries are written with: `embedding` for `vector`, `top_k` for `limit`', async () => {
      const query = Array.from({ length: DIM }, rand);
      const search = (body: Record<string, unknown>) => call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body });
      const usual = await search({ vector: query, limit: 5 });
      for (const body of [
        { embedding: query, top_k: 5 },
        { embedding: query, topK: 5 },
        { vector: query, embedding: query, limit: 5, top_k: 5 },
      ]) {
        const res = await search(body);
        expect(res.status).toBe(200);
        expect(res.body.results).toEqual(usual.body.results);
      }
      expect(usual.body.results.map((r: any) => r.key)).toEqual(trueNearest(query, 5));
      const differing = await search({ vector: query, embedding: vectors[0].embedding, limit: 5, top_k: 6 });
      expectProblem(differing, 400, 'validation_failed');
      expect(errorPaths(differing)).toEqual(['embedding', 'top_k']);
    });

    it('leaves out expired vectors and rejects embeddings of the wrong size', async () => {
      const query = vectors[7].embedding;
      await write(me.key, store.id, [{ key: 'twin', value: 'soon gone', embedding: query, ttlSeconds: 5 }]);
      const search = async () =>
        (await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { vector: query, limit: 2 } })).body.results.map((r: any) => r.key);
      expect((await search()).sort()).toEqual(['twin', 'v007']);
      clock.advance(6_000);
      expect(await search()).toEqual(['v007', trueNearest(query, 2)[1]]);
      const bad = await write(me.key, store.id, [
        { key: 'short', value: 1, embedding: [1, 2] },
        { key: 'zero', value: 1, embedding: new Array(DIM).fill(0) },
        { key: 'none', value: 1 },
      ]);
      expect(errorPaths(bad)).toEqual(['entries.0.embedding', 'entries.1.embedding', 'entries.2.embedding']);
      const badQuery = await call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body: { vector: [1, 2, 3] } });
      expect(errorPaths(badQuery)).toEqual(['vector']);
    });
  });
});

describe('hybrid search: words beside the vector', () => {
  const DIM = 8;
  let seed = 2026;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  const vector = () => Array.from({ length: DIM }, rand);
  const f32 = (v: number[]) => Array.from(Float32Array.from(v));
  const cosine = (a: number[], b: number[]) => {
    const [fa, fb] = [f32(a), f32(b)];
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < DIM; i++) {
      dot += fa[i] * fb[i];
      na += fa[i] * fa[i];
      nb += fb[i] * fb[i];
    }
    return 1 - dot / Math.sqrt(na * nb);
  };
  // Sixty notes about the weather, and three about lighthouses: in a value, in plural (stemming), in a key.
  const entries = [
    ...Array.from({ length: 60 }, (_, i) => ({
      key: `note:${String(i).padStart(2, '0')}`,
      value: { text: `Note ${i} on the weather and the tides` },
      embedding: vector(),
    })),
    { key: 'keeper', value: { text: 'The lighthouse keeper lit the lighthouse lamp at dusk' }, embedding: vector() },
    { key: 'harbour', value: { text: 'Ships leaving the harbour passed two lighthouses' }, embedding: vector() },
    { key: 'lighthouse-log', value: { text: 'a log kept every night' }, embedding: vector() },
  ];
  const WORDY = ['harbour', 'keeper', 'lighthouse-log'];
  const query = vector();
  /** The whole list by vector similarity, as the exact scan ranks it (ties by key). */
  const byVector = entries.map((e) => ({ key: e.key, d: cosine(e.embedding, query) })).sort((a, b) => a.d - b.d || (a.key < b.key ? -1 : 1));

  let me: Awaited<ReturnType<typeof registerAgent>>;
  let store: { id: string };
  beforeAll(async () => {
    me = await registerAgent(server);
    store = await newStore(me.key, { storeType: 'vector', dimensions: DIM });
    expect((await write(me.key, store.id, entries)).status).toBe(200);
  });
  const search = (body: Record<string, unknown>) => call('POST', `/memory/stores/${store.id}/search`, { key: me.key, body });

  it('fuses the vector ranking with the words’ by reciprocal rank: Σ 1 / (60 + rank)', async () => {
    const res = await search({ vector: query, query: 'Lighthouse', limit: 100 });
    expect(res.status).toBe(200);
    const results = res.body.results as { key: string; distance: number; score: number; text_rank: number | null; fused_score: number }[];
    expect(res.body.total).toBe(entries.length);
    expect(results).toHaveLength(entries.length);
    // Every entry holding the word, and only those, has a text rank (plural and key words match too).
    expect(
      results
        .filter((r) => r.text_rank !== null)
        .map((r) => r.key)
        .sort(),
    ).toEqual(WORDY);
    // The text ranking is the text ranks' order; the vector ranking is the exact cosine order.
    const byText = results.filter((r) => r.text_rank !== null).sort((a, b) => b.text_rank! - a.text_rank! || (a.key < b.key ? -1 : 1));
    const fused = new Map(entries.map((e) => [e.key, 0]));
    byVector.forEach((v, i) => fused.set(v.key, fused.get(v.key)! + 1 / (60 + i + 1)));
    byText.forEach((t, i) => fused.set(t.key, fused.get(t.key)! + 1 / (60 + i + 1)));
    const expected = [...fused].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    expect(results.map((r) => r.key)).toEqual(expected.map(([key]) => key));
    results.forEach((r, i) => {
      expect(r.fused_score).toBeCloseTo(expected[i][1], 9);
      expect(r.distance).toBeCloseTo(cosine(entries.find((e) => e.key === r.key)!.embedding, query), 5);
      expect(r.score).toBeCloseTo(1 - r.distance, 9);
    });
    // The vector alone ranks by similarity, as before.
    const plain = await search({ vector: query, limit: 5 });
    expect(plain.body.results.map((r: any) => r.key)).toEqual(byVector.slice(0, 5).map((v) => v.key));
    expect(plain.body.results.every((r: any) => r.text_rank === null && r.fused_score === null)).toBe(true);
  });

  it('ranks by the words alone when no vector is given, and words that say nothing match nothing', async () => {
    const words = await search({ query: 'lighthouses keeper' });
    expect(words.status).toBe(200);
    expect(words.body.total).toBe(3);
    const keys = words.body.results.map((r: any) => r.key);
    expect([...keys].sort()).toEqual(WORDY);
    // The keeper has both words (and one twice): the most relevant.
    expect(keys[0]).toBe('keeper');
    const ranks = words.body.results.map((r: any) => r.text_rank);
    expect(ranks).toEqual([...ranks].sort((a: number, b: number) => b - a));
    expect(words.body.results.every((r: any) => r.distance === null && r.fused_score === null)).toBe(true);
    // Stop words carry no meaning: alone they find nothing; beside a vector, the vector's order stands.
    expect((await search({ query: 'the and of' })).body).toMatchObject({ total: 0, results: [] });
    const stop = await search({ vector: query, query: 'the and of', limit: 10 });
    expect(stop.body.results.map((r: any) => r.key)).toEqual(byVector.slice(0, 10).map((v) => v.key));
    // Text that would be tsquery syntax is only words.
    expect((await search({ query: "lighthouse' & !(:* \\ |" })).body.results.map((r: any) => r.key).sort()).toEqual(WORDY);
  });

  it('answers the same with the exact scan as with the index', async () => {
    const services = server.app.services;
    const dims = { id: store.id, dimensions: DIM };
    const page = { offset: 0, limit: 100 };
    const exact = await hybridSearch(services.db, 'exact', dims, f32(query), 'lighthouse', page, clock.now());
    const used = await hybridSearch(services.db, services.vectorSearch, dims, f32(query), 'lighthouse', page, clock.now());
    expect(used.items.map((r) => r.key)).toEqual(exact.items.map((r) => r.key));
    used.items.forEach((r, i) => expect(r.fusedScore).toBeCloseTo(exact.items[i].fusedScore!, 9));
    expect(used.total).toBe(exact.total);
  });

  it('pages the fused ranking with cursors over GraphQL', async () => {
    const gql = (first: number, after?: string) =>
      graphql(
        server,
        `
          query ($s: ID!, $i: MemorySearchInput!, $first: Int, $after: String) {
            searchMemory(storeId: $s, input: $i, first: $first, after: $after) {
              totalCount
              edges {
                node {
                  key
                  fusedScore
                }
              }
              pageInfo {
                hasNextPage
                endCursor
              }
            }
          }
        `,
        { s: store.id, i: { vector: query, query: 'lighthouse' }, first, after },
        me.key,
      );
    const whole = (await gql(20)).body.data!.searchMemory;
    const one = (await gql(10)).body.data!.searchMemory;
    const two = (await gql(10, one.pageInfo.endCursor)).body.data!.searchMemory;
    expect([...one.edges, ...two.edges].map((e: any) => e.node.key)).toEqual(whole.edges.map((e: any) => e.node.key));
    expect(one.totalCount).toBe(entries.length);
    expect(one.pageInfo.hasNextPage).toBe(true);
  });

  it('names what a vector store cannot be searched by', async () => {
    const bad = await search({ prefix: 'note:', filter: { a: 1 } });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['filter', 'prefix', 'vector']);
    expect(errorPaths(await search({ query: 'x'.repeat(201) }))).toEqual(['query']);
  });
});

describe('GraphQL', () => {
  it('creates, writes, reads and searches a store', async () => {
    const me = await registerAgent(server);
    const gql = (query: string, variables: Record<string, unknown>) => graphql(server, query, variables, me.key);
    const created = await gql(`mutation($i: CreateMemoryStoreInput!) { createMemoryStore(input: $i) { id storeId storeType accessLevel } }`, {
      i: { name: 'g', storeType: 'kv' },
    });
    const storeId = created.body.data!.createMemoryStore.storeId;
    const written = await gql(`mutation($s: ID!, $i: WriteMemoryEntriesInput!) { writeMemoryEntries(storeId: $s, input: $i) { written } }`, {
      s: storeId,
      i: { entries: [{ key: 'k', value: [1, 2] }] },
    });
    expect(written.body.data!.writeMemoryEntries.written).toBe(1);
    const read = await gql(
      `query($s: ID!) { memoryEntries(storeId: $s) { totalCount nodes { key value version } } memoryEntry(storeId: $s, key: "k") { value } }`,
      { s: storeId },
    );
    expect(read.body.data).toEqual({ memoryEntries: { totalCount: 1, nodes: [{ key: 'k', value: [1, 2], version: 1 }] }, memoryEntry: { value: [1, 2] } });
    const node = await gql(`query($id: ID!) { node(id: $id) { ... on MemoryStore { name } } }`, { id: created.body.data!.createMemoryStore.id });
    expect(node.body.data!.node).toEqual({ name: 'g' });
    const stranger = await registerAgent(server);
    const hidden = await graphql(
      server,
      `
        query ($id: ID!) {
          node(id: $id) {
            id
          }
        }
      `,
      { id: created.body.data!.createMemoryStore.id },
      stranger.key,
    );
    expect(hidden.body.data?.node ?? null).toBeNull();
  });
});
