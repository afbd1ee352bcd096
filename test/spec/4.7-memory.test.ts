// Spec §4.7 memory stores, with §2's Memory store record (kv, vector or structured; private, shared or public;
// stores support TTL and versioning), as a new user meets them over REST. Time moves on a fake clock.
import { FakeClock } from '../support/clock';
import { errorPaths, expectProblem } from '../support/expect';
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';

const clock = new FakeClock();
let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

async function store(key: string, body: Record<string, unknown>) {
  const res = await call('POST', '/memory/stores', { key, body: { name: uniqueName('store'), ...body } });
  if (res.status !== 201) throw new Error(`store creation failed: ${res.status} ${res.text}`);
  return res.body as { id: string; name: string; storeType: string; accessLevel: string };
}

const write = (key: string, id: string, entries: unknown[]) => call('PUT', `/memory/stores/${id}/entries`, { key, body: { entries } });
const entry = (key: string, id: string, entryKey: string, query = '') =>
  call('GET', `/memory/stores/${id}/entries/${encodeURIComponent(entryKey)}${query}`, { key });

describe('§4.7 stores', () => {
  it('§4.7 POST /memory/stores with name and storeType answers 201 id, storeType, accessLevel', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/memory/stores', { key: me.key, body: { name: 'notes', storeType: 'kv', accessLevel: 'shared' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'notes', storeType: 'kv', accessLevel: 'shared' });
    expect((await call('GET', `/memory/stores/${res.body.id}`, { key: me.key })).body).toMatchObject({
      id: res.body.id,
      storeType: 'kv',
      accessLevel: 'shared',
    });
  });

  it('§2 storeType is kv, vector or structured; accessLevel is private, shared or public, and optional', async () => {
    const me = await registerAgent(server);
    for (const storeType of ['kv', 'vector', 'structured']) {
      const res = await call('POST', '/memory/stores', { key: me.key, body: { name: `${storeType}-store`, storeType } });
      expect({ storeType, status: res.status, accessLevel: res.body.accessLevel }).toEqual({ storeType, status: 201, accessLevel: 'private' });
    }
    const other = await registerAgent(server);
    for (const accessLevel of ['private', 'shared', 'public']) {
      const res = await call('POST', '/memory/stores', { key: other.key, body: { name: `${accessLevel}-store`, storeType: 'kv', accessLevel } });
      expect({ accessLevel, status: res.status, answered: res.body.accessLevel }).toEqual({ accessLevel, status: 201, answered: accessLevel });
    }
    const bad = await call('POST', '/memory/stores', { key: me.key, body: { name: 'graph-store', storeType: 'graph', accessLevel: 'world' } });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['accessLevel', 'storeType']);
    const missing = await call('POST', '/memory/stores', { key: me.key, body: {} });
    expectProblem(missing, 400, 'validation_failed');
    expect(errorPaths(missing)).toEqual(['name', 'storeType']);
  });

  it('§4.7 GET /memory/stores answers the caller’s stores', async () => {
    const me = await registerAgent(server);
    const a = await store(me.key, { storeType: 'kv' });
    const b = await store(me.key, { storeType: 'structured', accessLevel: 'public' });
    const res = await call('GET', '/memory/stores', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.stores.map((s: any) => s.id).sort()).toEqual([a.id, b.id].sort());
    const other = await registerAgent(server);
    expect((await call('GET', '/memory/stores', { key: other.key })).body.stores).toEqual([]);
  });

  it('§4.7 GET /memory/stores/public answers the public stores, with no credential', async () => {
    const me = await registerAgent(server);
    const open = await store(me.key, { storeType: 'kv', accessLevel: 'public' });
    const closed = await store(me.key, { storeType: 'kv', accessLevel: 'private' });
    const shared = await store(me.key, { storeType: 'kv', accessLevel: 'shared' });
    const ids: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await call('GET', `/memory/stores/public?limit=100&offset=${offset}`);
      expect(page.status).toBe(200);
      ids.push(...page.body.stores.map((s: any) => s.id));
      if (page.body.stores.length < 100) break;
    }
    expect(ids).toContain(open.id);
    expect(ids).not.toContain(closed.id);
    expect(ids).not.toContain(shared.id);
  });
});

describe('§4.7 entries', () => {
  it('§4.7 PUT /memory/stores/:id/entries answers 200 written (count); GET answers entries', async () => {
    const me = await registerAgent(server);
    const s = await store(me.key, { storeType: 'kv' });
    const res = await write(me.key, s.id, [
      { key: 'city', value: 'Lisbon' },
      { key: 'profile', value: { languages: ['pt', 'en'] } },
      { key: 'count', value: 3 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.written).toBe(3);
    const listed = await call('GET', `/memory/stores/${s.id}/entries`, { key: me.key });
    expect(listed.status).toBe(200);
    expect(Object.fromEntries(listed.body.entries.map((e: any) => [e.key, e.value]))).toEqual({
      city: 'Lisbon',
      profile: { languages: ['pt', 'en'] },
      count: 3,
    });
  });

  it('§4.7 POST /memory/stores/:id/search answers results: kv by text, structured by fields, vector by nearness', async () => {
    const me = await registerAgent(server);
    const kv = await store(me.key, { storeType: 'kv' });
    await write(me.key, kv.id, [
      { key: 'greeting', value: 'hello world' },
      { key: 'farewell', value: 'goodbye' },
    ]);
    const byText = await call('POST', `/memory/stores/${kv.id}/search`, { key: me.key, body: { query: 'world' } });
    expect(byText.status).toBe(200);
    expect(byText.body.results.map((r: any) => r.key)).toEqual(['greeting']);

    const structured = await store(me.key, { storeType: 'structured' });
    await write(me.key, structured.id, [
      { key: 'a', value: { kind: 'invoice', total: 120 } },
      { key: 'b', value: { kind: 'receipt', total: 40 } },
    ]);
    const byField = await call('POST', `/memory/stores/${structured.id}/search`, { key: me.key, body: { filter: { kind: 'invoice' } } });
    expect(byField.status).toBe(200);
    expect(byField.body.results.map((r: any) => r.key)).toEqual(['a']);

    const vector = await store(me.key, { storeType: 'vector' });
    await write(me.key, vector.id, [
      { key: 'north', value: 'up', embedding: [0, 1, 0] },
      { key: 'east', value: 'right', embedding: [1, 0, 0] },
    ]);
    const byVector = await call('POST', `/memory/stores/${vector.id}/search`, { key: me.key, body: { vector: [0.1, 0.9, 0], limit: 1 } });
    expect(byVector.status).toBe(200);
    expect(byVector.body.results).toEqual([expect.objectContaining({ key: 'north', score: expect.any(Number) })]);
  });

  it('§2 stores support versioning: a key written again keeps its earlier versions', async () => {
    const me = await registerAgent(server);
    const s = await store(me.key, { storeType: 'kv' });
    expect((await write(me.key, s.id, [{ key: 'plan', value: 'draft' }])).body.entries[0]).toMatchObject({ key: 'plan', version: 1 });
    expect((await write(me.key, s.id, [{ key: 'plan', value: 'final' }])).body.entries[0]).toMatchObject({ key: 'plan', version: 2 });
    expect((await entry(me.key, s.id, 'plan')).body).toMatchObject({ value: 'final', version: 2 });
    expect((await entry(me.key, s.id, 'plan', '?version=1')).body).toMatchObject({ value: 'draft', version: 1 });
    const versions = await call('GET', `/memory/stores/${s.id}/entries/plan/versions`, { key: me.key });
    expect(versions.body.versions.map((v: any) => [v.version, v.value])).toEqual([
      [2, 'final'],
      [1, 'draft'],
    ]);
  });

  it('§2 stores support TTL: an entry is gone once its TTL passes, and a store’s default TTL applies to entries written without one', async () => {
    const me = await registerAgent(server);
    const s = await store(me.key, { storeType: 'kv' });
    await write(me.key, s.id, [
      { key: 'short', value: 1, ttl_seconds: 60 },
      { key: 'lasting', value: 2 },
    ]);
    const written = (await entry(me.key, s.id, 'short')).body;
    expect(Date.parse(written.expires_at) - clock.now().getTime()).toBe(60_000);
    expect((await entry(me.key, s.id, 'lasting')).body.expires_at).toBeNull();
    clock.advance(59_000);
    expect((await entry(me.key, s.id, 'short')).status).toBe(200);
    clock.advance(2_000);
    expectProblem(await entry(me.key, s.id, 'short'), 404, 'not_found');
    expect((await call('GET', `/memory/stores/${s.id}/entries`, { key: me.key })).body.entries.map((e: any) => e.key)).toEqual(['lasting']);

    const expiring = await store(me.key, { storeType: 'kv', default_ttl_seconds: 3600 });
    await write(me.key, expiring.id, [{ key: 'session', value: 'abc' }]);
    expect(Date.parse((await entry(me.key, expiring.id, 'session')).body.expires_at) - clock.now().getTime()).toBe(3_600_000);
    clock.advance(3_601_000);
    expectProblem(await entry(me.key, expiring.id, 'session'), 404, 'not_found');
  });

  it("§4.7 another agent's private store is not found", async () => {
    const me = await registerAgent(server);
    const s = await store(me.key, { storeType: 'kv' });
    const other = await registerAgent(server);
    expectProblem(await call('GET', `/memory/stores/${s.id}/entries`, { key: other.key }), 404, 'not_found');
    expectProblem(await write(other.key, s.id, [{ key: 'x', value: 1 }]), 404, 'not_found');
    expectProblem(await call('POST', `/memory/stores/${s.id}/search`, { key: other.key, body: { query: 'x' } }), 404, 'not_found');
  });
});
