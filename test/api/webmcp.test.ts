// The WebMCP tool index (spec §4.14): the marketplace's own manifest and tools, a local HTTPS site
// submitted and indexed by the background job, re-indexing, full-text search and categories, malformed
// manifests reported as failed with why, and private addresses refused by the outbound guard.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { eventually, errorPaths, expectProblem } from '../support/expect';
import { assertTestCaTrusted, startCanary, startHttpsServer, type HttpsTestServer } from '../support/https';
import { indexOwnTools } from '../../src/domain/webmcp/index-sites';
import { api, http, startServer, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
let site: HttpsTestServer;
/** What the site serves, by path: a manifest object, or [status, raw body]. */
const served = new Map<string, unknown>();
const fetched: string[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
  call = api(server);
  site = await startHttpsServer((req: IncomingMessage, res: ServerResponse) => {
    fetched.push(req.url ?? '');
    const answer = served.get(req.url ?? '');
    if (answer === undefined) return void res.writeHead(404).end('not here');
    if (Array.isArray(answer)) return void res.writeHead(answer[0] as number, { 'content-type': 'application/json' }).end(answer[1] as string);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
});
afterAll(async () => {
  await server.close();
  await site.close();
});

const tool = (name: string, description: string, category?: string) => ({
  name,
  description,
  ...(category ? { category } : {}),
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
});

async function indexed(id: string) {
  return eventually(
    () => call('GET', `/webmcp/submissions/${id}`),
    (r) => r.body.state !== 'queued',
  );
}

describe('the marketplace manifest', () => {
  it('serves version 1.0.0 with the eight tools of the spec and their inputs, at the root and under /api/v1', async () => {
    const root = await http(server.url, 'GET', '/.well-known/webmcp.json');
    const api1 = await call('GET', '/webmcp/manifest');
    expect(root.status).toBe(200);
    expect(root.body).toEqual(api1.body);
    expect(root.body.version).toBe('1.0.0');
    expect(root.body.url).toBe(server.url);
    const byName = Object.fromEntries(root.body.tools.map((t: { name: string }) => [t.name, t]));
    expect(Object.keys(byName)).toEqual([
      'searchCapabilities',
      'getCapabilityDetails',
      'browseProviders',
      'executeCapability',
      'registerAgent',
      'getReputation',
      'getMarketplaceStats',
      'listSparks',
    ]);
    expect(byName.searchCapabilities.inputSchema.required).toEqual(['query']);
    expect(Object.keys(byName.searchCapabilities.inputSchema.properties)).toEqual(['query', 'category', 'language', 'minReputation', 'maxPricePerCall']);
    expect(byName.browseProviders.inputSchema.properties.prefer.enum).toEqual(expect.arrayContaining(['cost', 'reputation', 'latency', 'balanced']));
    expect(byName.listSparks.inputSchema.properties.limit.maximum).toBe(50);
    expect(byName.getMarketplaceStats.inputSchema.properties).toEqual({});
  });

  it("has the marketplace's own tools in the index", async () => {
    const found = await call('GET', '/webmcp/tools?q=search capabilities');
    expect(found.status).toBe(200);
    expect(found.body.tools[0]).toMatchObject({ name: 'searchCapabilities', category: 'discovery', site_name: 'Agent Capability Marketplace' });
    // One site of its own: a site submitted with the same name is another site.
    expect(
      new Set(
        found.body.tools
          .filter((t: { site_name: string }) => t.site_name === 'Agent Capability Marketplace')
          .map((t: { site_origin: string }) => t.site_origin),
      ).size,
    ).toBe(1);
    const memory = await call('GET', '/webmcp/tools?category=memory');
    expect(memory.body.total).toBeGreaterThanOrEqual(3);
    expect(memory.body.tools.every((t: { category: string }) => t.category === 'memory')).toBe(true);
  });

  it('indexes its own tools again at a start only when they changed', async () => {
    const services = server.app.services;
    const own = services.ownTools!;
    const written = async () =>
      (
        await services.sql.query<{ indexed_at: Date; ids: string }>(
          `SELECT s.indexed_at, (SELECT string_agg(t.id::text, ',' ORDER BY t.name) FROM webmcp_tools t WHERE t.site_id = s.id) AS ids FROM webmcp_sites s WHERE s.own`,
          [],
        )
      )[0];
    // Under the origin the server has now (its port was chosen after the start indexed them), then again.
    await indexOwnTools(services, own.all, own.name, own.description);
    const before = await written();
    await indexOwnTools(services, own.all, own.name, own.description);
    expect(await written()).toEqual(before);
    const changed = own.all.map((t, i) => (i === 0 ? { ...t, description: `${t.description} (changed)` } : t));
    await indexOwnTools(services, changed, own.name, own.description);
    expect((await written()).ids).not.toEqual(before.ids);
    expect((await call('GET', '/webmcp/tools?q=changed')).body.tools.map((t: { name: string }) => t.name)).toEqual([changed[0].name]);
    await indexOwnTools(services, own.all, own.name, own.description);
    expect((await call('GET', '/webmcp/tools?q=changed')).body.total).toBe(0);
  });
});

describe('submitting a site', () => {
  it('indexes its /.well-known/webmcp.json in the background, and the tools are found by words and category', async () => {
    served.set('/.well-known/webmcp.json', {
      version: '1.0.0',
      name: 'Weather site',
      tools: [tool('getForecast', 'The forecast for a city, hour by hour', 'weather'), tool('getTideTable', 'Tide times for a harbour')],
    });
    const res = await call('POST', '/webmcp/submit', { body: { url: `${site.url}/some/page` } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ queued: true, state: 'queued', url: `${site.url}/some/page`, submission_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const done = await indexed(res.body.submission_id);
    expect(done.body).toMatchObject({ state: 'indexed', queued: false, tool_count: 2, error: null, site_origin: site.url, site_name: 'Weather site' });
    expect(fetched).toContain('/.well-known/webmcp.json');

    const forecast = await call('GET', '/webmcp/tools?q=forecast hour');
    expect(forecast.body.tools.map((t: { name: string }) => t.name)).toEqual(['getForecast']);
    expect(forecast.body.tools[0]).toMatchObject({
      category: 'weather',
      site_origin: site.url,
      manifest_url: `${site.url}/.well-known/webmcp.json`,
      input_schema: { type: 'object' },
    });
    const tides = await call('GET', '/webmcp/tools?q=tide');
    expect(tides.body.tools[0]).toMatchObject({ name: 'getTideTable', category: 'general' });
    const weather = await call('GET', '/webmcp/tools?category=weather');
    expect(weather.body.total).toBe(1);
    const stats = await call('GET', '/webmcp/stats');
    expect(stats.body.sites).toBeGreaterThanOrEqual(2);
    expect(stats.body.total_tools).toBeGreaterThanOrEqual(server.app.services.ownTools!.all.length + 2);
    expect(stats.body.by_category).toEqual(expect.arrayContaining([{ category: 'weather', tools: 1 }]));
    expect(stats.body.submissions_indexed).toBeGreaterThanOrEqual(1);

    // Submitted again with another manifest, the site is indexed anew: the old tools are gone.
    served.set('/.well-known/webmcp.json', { version: '1.1.0', name: 'Weather site', tools: [tool('getRadar', 'Rain radar images', 'weather')] });
    const again = await call('POST', '/webmcp/submit', { body: { url: site.url } });
    expect((await indexed(again.body.submission_id)).body).toMatchObject({ state: 'indexed', tool_count: 1 });
    expect((await call('GET', '/webmcp/tools?q=forecast')).body.total).toBe(0);
    expect((await call('GET', '/webmcp/tools?q=radar')).body.tools[0].name).toBe('getRadar');
  });

  it('reads the URL itself when it names a manifest', async () => {
    served.set('/tools/manifest.json', { version: '1.0.0', tools: [tool('translateMenu', 'Translate a restaurant menu', 'food')] });
    const res = await call('POST', '/webmcp/submit', { body: { url: `${site.url}/tools/manifest.json` } });
    expect((await indexed(res.body.submission_id)).body).toMatchObject({ state: 'indexed', tool_count: 1 });
    expect((await call('GET', '/webmcp/tools?q=menu')).body.tools[0]).toMatchObject({ manifest_url: `${site.url}/tools/manifest.json` });
  });

  it('reports a malformed manifest, a body that is not JSON and a missing manifest as failed, with why', async () => {
    served.set('/bad/manifest.json', { version: 'one', tools: [{ name: '9lives', description: '', inputSchema: { type: 'string' } }] });
    const bad = await indexed((await call('POST', '/webmcp/submit', { body: { url: `${site.url}/bad/manifest.json` } })).body.submission_id);
    expect(bad.body.state).toBe('failed');
    expect(bad.body.error).toMatch(/not valid/);
    for (const place of ['version', 'tools.0.name', 'tools.0.description', 'tools.0.inputSchema.type']) expect(bad.body.error).toContain(place);
    served.set('/garbage.json', [200, '<html>no</html>']);
    const garbage = await indexed((await call('POST', '/webmcp/submit', { body: { url: `${site.url}/garbage.json` } })).body.submission_id);
    expect(garbage.body).toMatchObject({ state: 'failed', error: expect.stringMatching(/not JSON/) });
    const missing = await indexed((await call('POST', '/webmcp/submit', { body: { url: `${site.url}/nothing-here.json` } })).body.submission_id);
    expect(missing.body).toMatchObject({ state: 'failed', error: expect.stringMatching(/answered 404/) });
    expect((await call('GET', '/webmcp/stats')).body.submissions_failed).toBeGreaterThanOrEqual(3);
  });

  it('takes up a submission whose claim lapsed (its instance died mid-fetch), and gives up after three cut-off tries', async () => {
    served.set('/lapsed/manifest.json', { version: '1.0.0', tools: [tool('lapsedTool', 'Indexed after its first claim lapsed')] });
    const { sql } = server.app.services;
    // As a dead instance leaves them: claimed (attempts counted), the lease run out.
    const [lapsed] = await sql.query<{ id: string }>(
      `INSERT INTO webmcp_submissions (id, url, attempts, run_at) VALUES (gen_random_uuid(), $1, 1, now() - interval '1 second') RETURNING id::text`,
      [`${site.url}/lapsed/manifest.json`],
    );
    const [spent] = await sql.query<{ id: string }>(
      `INSERT INTO webmcp_submissions (id, url, attempts, run_at) VALUES (gen_random_uuid(), $1, 3, now() - interval '1 second') RETURNING id::text`,
      [`${site.url}/lapsed/manifest.json`],
    );
    server.app.services.webmcpIndexer!.wake();
    expect((await indexed(lapsed.id)).body).toMatchObject({ state: 'indexed', tool_count: 1 });
    expect((await indexed(spent.id)).body).toMatchObject({ state: 'failed', error: 'gave up after 3 tries' });
  });

  it('refuses what is not an https URL, and names the field', async () => {
    expectProblem(await call('POST', '/webmcp/submit', { body: {} }), 400, 'validation_failed');
    const plain = await call('POST', '/webmcp/submit', { body: { url: 'http://example.com' } });
    expect(errorPaths(plain)).toEqual(['url']);
    expectProblem(await call('GET', '/webmcp/submissions/00000000-0000-0000-0000-000000000000'), 404, 'not_found');
    expectProblem(await call('GET', '/webmcp/submissions/not-an-id'), 404, 'not_found');
  });
});

describe('the outbound guard', () => {
  it('refuses a private address: a literal at once, a name that resolves to one when it is fetched; nothing is reached', async () => {
    const guarded = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
    const canary = await startCanary();
    try {
      const literal = await http(guarded.url, 'POST', '/api/v1/webmcp/submit', { body: { url: canary.url } });
      expectProblem(literal, 400, 'validation_failed');
      expect(literal.body.errors[0]).toMatchObject({ path: 'url', message: expect.stringMatching(/private, loopback or link-local/) });
      const named = await http(guarded.url, 'POST', '/api/v1/webmcp/submit', { body: { url: `https://localhost:${canary.port}/` } });
      expect(named.status).toBe(202);
      const failed = await eventually(
        () => http(guarded.url, 'GET', `/api/v1/webmcp/submissions/${named.body.submission_id}`),
        (r) => r.body.state !== 'queued',
      );
      expect(failed.body).toMatchObject({ state: 'failed', error: expect.stringMatching(/refused by the outbound guard/) });
      expect(canary.connections()).toBe(0);
    } finally {
      await canary.close();
      await guarded.close();
    }
  });
});
