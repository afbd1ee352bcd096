// The read cache (src/platform/read-cache.ts) as resolve and the skills marketplace use it: a repeated read
// is answered from memory, and no change that matters outlives it — this instance's own mutations empty it
// at once, changes made anywhere else through the database's change notification. Statistics (here a
// skill's install count) move within its TTL, which these servers set beyond any test.
import { listMarketplace, MARKETPLACE_HEAD } from '../../src/domain/skills/skills';
import type { Ctx } from '../../src/domain/context';
import { ReadCache } from '../../src/platform/read-cache';
import { within } from '../support/expect';
import { api, registerAgent, registerService, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', READ_CACHE_MS: '60000' } });
  call = api(server);
});
afterAll(() => server.close());

describe('resolve', () => {
  it('answers a repeated ranking from memory and follows every change that matters', async () => {
    const me = await registerAgent(server);
    const provider = await registerAgent(server);
    const cap = uniqueSlug('cached');
    const first = await registerService(server, provider.key, { capabilities: [cap], cost_per_call: 10 });
    const resolve = async (body: Record<string, unknown> = {}) => (await call('POST', '/resolve', { key: me.key, body: { capability: cap, ...body } })).body;
    expect((await resolve()).matches.map((m: any) => m.name)).toEqual([first.name]);

    // A change no notification reports, made behind the cache's back: the next answer is the kept one.
    const sql = server.app.services.sql;
    await sql.query(`UPDATE service_offers SET listing = jsonb_set(listing::jsonb, '{2}', '"renamed behind the cache"')::json WHERE service_id = $1`, [
      first.service_id,
    ]);
    expect((await resolve()).matches[0].name).toBe(first.name);

    // A service registered here (a mutation on this instance) is ranked by the very next request.
    const second = await registerService(server, provider.key, { capabilities: [cap], cost_per_call: 0, pricing_model: 'free' });
    const both = await resolve({ prefer: 'cost' });
    expect(both.total).toBe(2);
    expect(both.matches.map((m: any) => m.service_id)).toEqual([second.service_id, first.service_id]);

    // A reputation written straight to the database, as another instance would: min_reputation admits by it,
    // so the notification empties the cache.
    expect((await resolve({ min_reputation: 80 })).total).toBe(0);
    await server.app.services.db.agent.update({ where: { id: provider.agentId }, data: { reputation: 90 } });
    await within(2_000, async () => (await resolve({ min_reputation: 80 })).total === 2);

    // So does a provider withdrawn elsewhere.
    await server.app.services.db.service.update({ where: { id: first.service_id }, data: { status: 'inactive' } });
    await within(2_000, async () => (await resolve()).total === 1);
    expect((await resolve()).matches.map((m: any) => m.service_id)).toEqual([second.service_id]);
  });

  it('answers the same query again as it answered it, and another query on its own', async () => {
    const me = await registerAgent(server);
    const provider = await registerAgent(server);
    const cap = uniqueSlug('cached');
    await registerService(server, provider.key, { capabilities: [cap] });
    const a = await call('POST', '/resolve', { key: me.key, body: { capability: cap } });
    const b = await call('POST', '/resolve', { key: me.key, body: { capability: cap } });
    expect(b.text).toBe(a.text);
    expect(typeof b.body.resolution_time_ms).toBe('number');
    const cost = await call('POST', '/resolve', { key: me.key, body: { capability: cap, prefer: 'cost' } });
    expect(cost.body.query.prefer).toBe('cost');
    expect(cost.body.matches[0].score).not.toBe(a.body.matches[0].score);
    // The route's authentication still comes first.
    expect((await call('POST', '/resolve', { body: { capability: cap } })).status).toBe(401);
  });

  it('finds a kept answer by the request itself, and still checks the caller and the media type first', async () => {
    const me = await registerAgent(server);
    const provider = await registerAgent(server);
    const cap = uniqueSlug('cached');
    await registerService(server, provider.key, { capabilities: [cap] });
    const raw = JSON.stringify({ capability: cap, min_reputation: 0 });
    const json = { 'content-type': 'application/json' };
    const first = await call('POST', '/resolve', { key: me.key, raw, headers: json });
    expect(first.status).toBe(200);
    expect((await call('POST', '/resolve', { key: me.key, raw, headers: json })).text).toBe(first.text);
    // The same query written another way is the same variables, so the same answer.
    const spelled = await call('POST', '/resolve', { key: me.key, raw: JSON.stringify({ capability: cap, minReputation: 0 }), headers: json });
    expect(spelled.text).toBe(first.text);
    // The very text kept is still refused without a caller, with an unknown one, and as another media type.
    expect((await call('POST', '/resolve', { raw, headers: json })).status).toBe(401);
    expect((await call('POST', '/resolve', { key: 'mk_live_unknown', raw, headers: json })).status).toBe(401);
    expect((await call('POST', '/resolve', { key: me.key, raw, headers: { 'content-type': 'text/plain' } })).status).toBe(415);
  });
});

describe('the skills marketplace', () => {
  async function publishedSkill(key: string, category: string) {
    const name = uniqueName('skill')
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-')
      .slice(0, 60);
    const created = await call('POST', '/agent-skills', {
      key,
      body: { name, runtime: 'python', entrypoint: 'main.run', description: 'Summarises a page', category },
    });
    expect(created.status).toBe(201);
    expect((await call('POST', `/agent-skills/${created.body.id}/publish`, { key })).status).toBe(200);
    return created.body.id as string;
  }

  it('answers a repeated page from memory, and follows publication here and withdrawal anywhere', async () => {
    const me = await registerAgent(server);
    const category = uniqueSlug('cat');
    const page = async () => (await call('GET', `/agent-skills/marketplace?category=${category}`)).body;
    const first = await publishedSkill(me.key, category);
    expect((await page()).skills.map((s: any) => s.id)).toEqual([first]);

    // Install counts are statistics: one written behind the cache shows only once the kept page expires.
    await server.app.services.db.skill.update({ where: { id: first }, data: { installCount: 7 } });
    expect((await page()).skills[0].install_count).toBe(0);

    // Published here: on the very next page, with the count as it now is.
    const second = await publishedSkill(me.key, category);
    const listed = await page();
    expect(listed.total).toBe(2);
    expect(listed.skills.map((s: any) => [s.id, s.install_count])).toEqual([
      [first, 7],
      [second, 0],
    ]);

    // Withdrawn straight in the database, as another instance would: the notification empties the cache.
    await server.app.services.db.skill.update({ where: { id: first }, data: { published: false } });
    await within(2_000, async () => (await page()).total === 1);
    expect((await page()).skills.map((s: any) => s.id)).toEqual([second]);
  });

  it(`cuts a page within a listing's first ${MARKETPLACE_HEAD} skills from them, as the page reads alone`, async () => {
    const me = await registerAgent(server);
    const category = uniqueSlug('cat');
    // More skills than the head holds, installed and published at varied counts and instants (ties too).
    await server.app.services.sql.query(
      `INSERT INTO skills (id, agent_id, name, description, runtime, entrypoint, category, version, published, published_version, published_hash,
         published_at, listed_name, listed_description, listed_runtime, listed_category, listed_entrypoint, install_count, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'head-skill-' || i, 'A skill of the head test', r, 'main.run', $2, '1.0.0', true, '1.0.0', md5(i::text) || md5(i::text),
         now() - ((i % 40) || ' seconds')::interval, 'head-skill-' || i, 'A skill of the head test', r, $2, 'main.run', (i * 7) % 30, now(), now()
       FROM generate_series(1, $3::int) AS i, LATERAL (SELECT (ARRAY['python', 'wasm'])[1 + i % 2] AS r) AS runtimes`,
      [me.agentId, category, MARKETPLACE_HEAD + 25],
    );
    const services = server.app.services;
    const kept = { services } as Ctx;
    const alone = { services: { ...services, readCache: new ReadCache(0) } } as Ctx;
    const pages = [
      { offset: 0, limit: 20 },
      { offset: 20, limit: 20 },
      { offset: 45, limit: 15 },
      { offset: 50, limit: 20 },
      { offset: 70, limit: 20 },
      { offset: 0, limit: 100 },
      { offset: 200, limit: 20 },
    ];
    for (const sort of ['popular', 'newest'])
      for (const runtime of [null, 'wasm'])
        for (const page of pages) {
          const filter = { category, runtime, sort };
          const what = JSON.stringify({ ...filter, ...page });
          const [a, b] = [await listMarketplace(kept, page, filter), await listMarketplace(alone, page, filter)];
          expect({ what, ...a }).toEqual({ what, ...b });
        }
    // The pages within the head were cut from it (kept under the statement of its first rows, as their text).
    const head = services.readCache.peek(`skills_head_cp\n${JSON.stringify([MARKETPLACE_HEAD, 0, category])}`) as { rows: string[] };
    expect(head.rows).toHaveLength(MARKETPLACE_HEAD);
    expect(typeof head.rows[0]).toBe('string');
  });

  it("keeps each page's answer apart, and never a refusal", async () => {
    const me = await registerAgent(server);
    const category = uniqueSlug('cat');
    const skills = [await publishedSkill(me.key, category), await publishedSkill(me.key, category)];
    const page = async (query: string) => call('GET', `/agent-skills/marketplace?category=${category}${query}`);
    const whole = (await page('')).body;
    expect(whole.total).toBe(2);
    expect((await page('&limit=1')).body.skills).toHaveLength(1);
    expect((await page('&limit=1&offset=1')).body.skills.map((s: any) => s.id)).toEqual(whole.skills.slice(1).map((s: any) => s.id));
    expect((await page('&runtime=wasm')).body.total).toBe(0);
    expect(new Set(whole.skills.map((s: any) => s.id))).toEqual(new Set(skills));
    // A refused page is answered with its own request id each time, not kept.
    const refused = [await page('&sort=oldest'), await page('&sort=oldest')];
    expect(refused.map((r) => r.status)).toEqual([400, 400]);
    expect(refused[0].body.request_id).not.toBe(refused[1].body.request_id);
    // The kept answer is the same as the first, with headers of its own.
    const first = await page('&limit=2');
    const again = await page('&limit=2');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});
