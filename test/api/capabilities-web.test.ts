// The web capabilities the marketplace serves as the provider of last resort (issue 35): web-browse,
// web-extract, web-monitor and web-research through POST /execute, against pages of a local HTTPS site —
// an article with OpenGraph, Twitter cards, JSON-LD and a table, a page that changes between calls (with
// an ETag), redirects, a plain-text page, an oversized, a binary and a hanging one — each answer checked
// against the capability's output schema; the outbound guard refusing loopback; bad input naming
// `input.<field>`; web-monitor run by a capability subscription; web-research over the WebMCP index.
import type { IncomingMessage, ServerResponse } from 'node:http';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { WEB_CAPABILITIES } from '../../src/domain/first-party/web';
import { errorPaths, eventually, within } from '../support/expect';
import { assertTestCaTrusted, startCanary, startHttpsServer, type HttpsTestServer } from '../support/https';
import { api, http, registerAgent, startServer, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
let site: HttpsTestServer;
/** Every request the site saw: its path and headers. */
const seen: { path: string; headers: IncomingMessage['headers'] }[] = [];
/** When each call of the hanging page saw its connection closed. */
const hangsClosed: number[] = [];
/** The page that changes: its version (text and title), status, and whether it sends an ETag. */
const changing = { version: 1, status: 200 };

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const outputOf = new Map(WEB_CAPABILITIES.map((c) => [c.slug, ajv.compile(c.outputSchema)]));

const paragraph = (topic: string, n: number) =>
  `${topic} paragraph ${n}: a teapot is a vessel for steeping tea leaves or a herbal mix in boiling or near-boiling water, and for serving the infusion. It usually has a lid, a handle and a spout.`;

const ARTICLE = `<!doctype html>
<html lang="en"><head>
<title>The Teapot Almanac</title>
<meta charset="utf-8">
<meta name="description" content="All about teapots.">
<meta name="author" content="Ada Kettle">
<meta name="keywords" content="tea, teapots , brewing">
<meta property="og:title" content="Teapots, explained">
<meta property="og:type" content="article">
<meta property="og:image" content="https://cdn.example/teapot.png">
<meta property="og:image" content="https://cdn.example/second.png">
<meta property="article:published_time" content="2026-01-02T03:04:05Z">
<meta name="twitter:card" content="summary_large_image">
<link rel="canonical" href="/article">
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"Teapots, explained","author":{"@type":"Person","name":"Ada Kettle"}}</script>
<script type="application/ld+json">{ this is not json</script>
<script>window.secret = "SCRIPT-TEXT";</script>
<style>p { color: red } /* STYLE-TEXT */</style>
</head><body>
<nav><a href="/">Home</a> <a href="#top">Top</a> <a href="javascript:void(0)">Menu</a> <a href="https://elsewhere.example/about?x=1">About us</a> <a href="/">Home again</a></nav>
<article>
<h1>Teapots, explained</h1>
<p class="lead">${paragraph('Lead', 0)}</p>
${[1, 2, 3, 4, 5].map((n) => `<p>${paragraph('Body', n)}</p>`).join('\n')}
<p>Read the <a href="guide/brewing" title="Brewing">brewing guide</a> before you start.</p>
<table id="prices"><caption>Prices</caption>
<thead><tr><th>Model</th><th>Price</th></tr></thead>
<tbody><tr><td>Brown Betty</td><td>25</td></tr><tr><td>Yixing <b>clay</b></td><td>80</td></tr></tbody>
</table>
</article>
<footer>Copyright Teapot Almanac</footer>
</body></html>`;

const researchPage = (title: string, lines: string[]) =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>${lines.map((l) => `<p>${l}</p>`).join('')}</article></body></html>`;
const TEA = researchPage('Brewing tea', [
  'Green tea is brewed with water between 70 and 80 degrees Celsius for about two minutes; hotter water makes it bitter.',
  'Black tea wants water at a full boil, 100 degrees Celsius, and steeps for three to five minutes.',
  'Oolong sits between the two: about 90 degrees, and it can be steeped many times.',
]);
const COFFEE = researchPage('Roasting coffee', [
  'Coffee beans are roasted between 180 and 240 degrees Celsius; the first crack marks a light roast.',
  'A dark roast continues past the second crack, where oils come to the surface of the bean.',
  'Roasted coffee rests a few days so that carbon dioxide can escape before brewing.',
]);
const HOME = researchPage('Forecast Works', [
  'Forecast Works publishes hourly weather forecasts for every city in Europe, with rain radar and wind warnings.',
  'Our forecasts are updated every ten minutes from national weather services.',
]);
const MANIFEST = {
  version: '1.0.0',
  name: 'Forecast Works',
  description: 'Weather forecasts',
  tools: [
    {
      name: 'getCityForecast',
      description: 'The weather forecast of a city for the next seven days: temperature, rain and wind',
      category: 'weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
    {
      name: 'listWarnings',
      description: 'Storm and wind warnings in force for a region',
      category: 'weather',
      inputSchema: { type: 'object', properties: { region: { type: 'string' } } },
    },
  ],
};

function changingPage(): { body: string; title: string } {
  const title = changing.version === 1 ? 'Status board' : `Status board v${changing.version}`;
  const lines = ['All systems operational.', 'Next maintenance: Sunday.', `Release ${changing.version === 1 ? '1.0' : '2.0'} is live.`];
  if (changing.version >= 2) lines.push('The API has a new endpoint.');
  return { title, body: researchPage(title, lines).replace(`<h1>${title}</h1>`, '') };
}

function serve(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://site.test');
  seen.push({ path: url.pathname, headers: req.headers });
  const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
    void res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
  switch (url.pathname) {
    case '/':
      return html(HOME);
    case '/.well-known/webmcp.json':
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(MANIFEST));
    case '/article':
      return html(ARTICLE);
    case '/tea':
      return html(TEA);
    case '/coffee':
      return html(COFFEE);
    case '/plain':
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('First line of the notes.\n\nSecond line, after a blank one.\n');
    case '/image':
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case '/big':
      return html(`<html><body><p>${'x'.repeat(3 * 1024 * 1024)}</p></body></html>`);
    case '/big-chunked': {
      // No declared length: the client stops reading at the bound.
      res.writeHead(200, { 'content-type': 'text/html' });
      for (let i = 0; i < 48; i++) res.write(`<p>${'y'.repeat(64 * 1024)}</p>`);
      return void res.end();
    }
    case '/hang':
      res.on('close', () => hangsClosed.push(Date.now()));
      return; // never answers
    case '/missing':
      return html('<html><body><p>Not here.</p></body></html>', 404);
    case '/redirect':
      return void res.writeHead(302, { location: '/article' }).end();
    case '/redirect/twice':
      return void res.writeHead(301, { location: 'https://' + req.headers.host + '/redirect' }).end();
    case '/loop':
      return void res.writeHead(307, { location: '/loop' }).end();
    case '/to-http':
      return void res.writeHead(302, { location: `http://${req.headers.host}/article` }).end();
    case '/changing': {
      const page = changingPage();
      const etag = `"v${changing.version}-${changing.status}"`;
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
      return html(page.body, changing.status, { etag });
    }
    case '/steady':
      return html(researchPage('Steady', ['This page never changes.', 'Nor does this line.']));
    default:
      return html('<html><body>no such page</body></html>', 404);
  }
}

beforeAll(async () => {
  assertTestCaTrusted();
  // The marketplace's budget for its own handler is the larger of PROVIDER_TIMEOUT_MS and LLM_TIMEOUT_MS: 4 s.
  server = await startServer({
    env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '4000', LLM_TIMEOUT_MS: '100', SCHEDULER_POLL_MS: '50' },
  });
  call = api(server);
  site = await startHttpsServer(serve);
});
afterAll(async () => {
  await server.close();
  await site.close();
});

async function execute(key: string, capability: string, input: Record<string, unknown>) {
  return call('POST', '/execute', { key, body: { capability, input } });
}

/** A successful execution's result, checked against the capability's output schema. */
async function served(key: string, capability: string, input: Record<string, unknown>): Promise<any> {
  const res = await execute(key, capability, input);
  expect({ status: res.status, outcome: res.body.status, error: res.body.error }).toEqual({ status: 200, outcome: 'success', error: null });
  expect(res.body.provider).toMatchObject({ service_key: 'marketplace' });
  const valid = outputOf.get(capability)!;
  expect({ capability, problems: valid(res.body.result) ? null : valid.errors }).toEqual({ capability, problems: null });
  return res.body.result;
}

/** An execution the marketplace could not serve: recorded as an error, the attempt's reason and the message given. */
async function failed(key: string, capability: string, input: Record<string, unknown>, reason: string, message: RegExp) {
  const res = await execute(key, capability, input);
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('error');
  expect(res.body.result).toBeNull();
  expect(res.body.attempts.map((a: any) => [a.service_key, a.outcome, a.reason])).toEqual([['marketplace', 'failure', reason]]);
  expect(res.body.error).toMatch(message);
  return res.body;
}

describe('web-browse', () => {
  it("reads a page's title, readable text (no scripts, styles or navigation) and its links, absolute and once each", async () => {
    const me = await registerAgent(server);
    const out = await served(me.key, 'web-browse', { url: `${site.url}/article#section-2` });
    expect(out).toMatchObject({
      url: `${site.url}/article`,
      final_url: `${site.url}/article`,
      redirects: [],
      status: 200,
      content_type: 'text/html',
      title: 'The Teapot Almanac',
      lang: 'en',
      readable: true,
      truncated: false,
    });
    expect(out.text).toContain(paragraph('Lead', 0));
    expect(out.text.split('\n')).toContain(paragraph('Body', 3));
    // A table row is one line, its cells joined.
    expect(out.text.split('\n')).toContain('Yixing clay | 80');
    expect(out.text).not.toMatch(/SCRIPT-TEXT|STYLE-TEXT|Copyright Teapot/);
    expect(out.text_chars).toBe(out.text.length);
    expect(out.links).toEqual([
      { url: `${site.url}/`, text: 'Home' },
      { url: 'https://elsewhere.example/about?x=1', text: 'About us' },
      { url: `${site.url}/guide/brewing`, text: 'brewing guide' },
    ]);
    expect(out.link_count).toBe(3);
  });

  it('cuts the text at max_chars and the links at max_links (camelCase read too), saying so', async () => {
    const me = await registerAgent(server);
    const out = await served(me.key, 'web-browse', { url: `${site.url}/article`, maxChars: 150, max_links: 1 });
    expect(out.text).toHaveLength(150);
    expect(out.truncated).toBe(true);
    expect(out.text_chars).toBeGreaterThan(150);
    expect(out.links).toHaveLength(1);
    expect(out.link_count).toBe(3);
  });

  it('follows redirects through the guarded client, each hop listed, up to five', async () => {
    const me = await registerAgent(server);
    const before = seen.length;
    const out = await served(me.key, 'web-browse', { url: `${site.url}/redirect/twice` });
    expect(out).toMatchObject({
      url: `${site.url}/redirect/twice`,
      final_url: `${site.url}/article`,
      redirects: [`${site.url}/redirect`, `${site.url}/article`],
      title: 'The Teapot Almanac',
    });
    expect(seen.slice(before).map((s) => s.path)).toEqual(['/redirect/twice', '/redirect', '/article']);
    const loop = seen.length;
    await failed(me.key, 'web-browse', { url: `${site.url}/loop` }, 'invalid_input', /input\.url could not be read \(redirects\): .*more than 5 redirects/);
    expect(seen.length - loop).toBe(6);
    await failed(
      me.key,
      'web-browse',
      { url: `${site.url}/to-http` },
      'invalid_input',
      /input\.url could not be read \(invalid_url\): .*redirected to a http URL; only https:\/\/ is followed/,
    );
  });

  it('reads text/plain as its lines; refuses a type that is not text, a page over 2 MiB and an error status, naming input.url', async () => {
    const me = await registerAgent(server);
    const plain = await served(me.key, 'web-browse', { url: `${site.url}/plain` });
    expect(plain).toMatchObject({
      content_type: 'text/plain',
      title: null,
      text: 'First line of the notes.\nSecond line, after a blank one.',
      links: [],
      link_count: 0,
      readable: false,
    });
    await failed(
      me.key,
      'web-browse',
      { url: `${site.url}/image` },
      'invalid_input',
      /input\.url could not be read \(content_type\): .*answered image\/png, which is not a web page or text/,
    );
    await failed(me.key, 'web-browse', { url: `${site.url}/big` }, 'invalid_input', /input\.url could not be read \(too_large\): .*larger than 2097152 bytes/);
    await failed(me.key, 'web-browse', { url: `${site.url}/big-chunked` }, 'invalid_input', /input\.url could not be read \(too_large\)/);
    await failed(me.key, 'web-browse', { url: `${site.url}/missing` }, 'invalid_input', /input\.url could not be read \(status\): .*answered 404/);
  });

  it('gives up when the execution runs out of time, honouring its signal rather than the page budget', async () => {
    const me = await registerAgent(server);
    const started = Date.now();
    const before = hangsClosed.length;
    await failed(me.key, 'web-browse', { url: `${site.url}/hang` }, 'timeout', /marketplace timeout/);
    const answered = Date.now();
    // The execution's budget here is 4 s; the page's own budget (10 s) never came into play.
    expect(answered - started).toBeLessThan(8_000);
    // The abandoned call's connection is closed as the execution gives up, not kept to the page's own deadline.
    await within(2_000, async () => hangsClosed.length > before);
    expect(hangsClosed.at(-1)! - started).toBeLessThan(8_000);
  });
});

describe('web-extract', () => {
  it('extracts metadata, OpenGraph, Twitter cards, JSON-LD (and what could not be read), tables and the selectors asked for', async () => {
    const me = await registerAgent(server);
    const out = await served(me.key, 'web-extract', {
      url: `${site.url}/redirect`,
      selectors: [
        { selector: 'p.lead' },
        { name: 'links', selector: 'article a', attribute: 'href' },
        { name: 'titles', selector: 'article a', attribute: 'data-missing' },
        { name: 'cells', selector: '#prices td', limit: 3 },
      ],
    });
    expect(out).toMatchObject({ final_url: `${site.url}/article`, redirects: [`${site.url}/article`], status: 200 });
    expect(out.metadata).toEqual({
      title: 'The Teapot Almanac',
      description: 'All about teapots.',
      canonical: `${site.url}/article`,
      lang: 'en',
      author: 'Ada Kettle',
      keywords: ['tea', 'teapots', 'brewing'],
      feeds: [`${site.url}/feed.xml`],
      meta: { description: 'All about teapots.', author: 'Ada Kettle', keywords: 'tea, teapots , brewing' },
    });
    expect(out.opengraph).toEqual({
      'og:title': 'Teapots, explained',
      'og:type': 'article',
      'og:image': 'https://cdn.example/teapot.png',
      'article:published_time': '2026-01-02T03:04:05Z',
    });
    expect(out.twitter).toEqual({ 'twitter:card': 'summary_large_image' });
    expect(out.json_ld).toEqual([
      { '@context': 'https://schema.org', '@type': 'Article', headline: 'Teapots, explained', author: { '@type': 'Person', name: 'Ada Kettle' } },
    ]);
    expect(out.json_ld_errors).toEqual([{ index: 1, message: expect.stringMatching(/^is not JSON/) }]);
    expect(out.tables).toEqual([
      {
        index: 0,
        caption: 'Prices',
        headers: ['Model', 'Price'],
        rows: [
          ['Brown Betty', '25'],
          ['Yixing clay', '80'],
        ],
        row_count: 2,
        truncated: false,
      },
    ]);
    expect(out.table_count).toBe(1);
    expect(out.selected).toEqual([
      { name: 'p.lead', selector: 'p.lead', attribute: null, count: 1, values: [paragraph('Lead', 0)] },
      { name: 'links', selector: 'article a', attribute: 'href', count: 1, values: ['guide/brewing'] },
      { name: 'titles', selector: 'article a', attribute: 'data-missing', count: 1, values: [null] },
      { name: 'cells', selector: '#prices td', attribute: null, count: 4, values: ['Brown Betty', '25', 'Yixing clay'] },
    ]);
  });

  it('refuses a selector it cannot read, and a page that is not HTML, naming the field', async () => {
    const me = await registerAgent(server);
    const before = seen.length;
    await failed(
      me.key,
      'web-extract',
      { url: `${site.url}/article`, selectors: [{ selector: 'p' }, { selector: 'p[' }] },
      'invalid_input',
      /input\.selectors\.1\.selector is not a CSS selector/,
    );
    // A bad selector is found before any fetch.
    expect(seen.length).toBe(before);
    await failed(
      me.key,
      'web-extract',
      { url: `${site.url}/article`, selectors: [{ selector: 'p' }, { selector: 'p' }] },
      'invalid_input',
      /input\.selectors\.1\.selector is asked for a second time/,
    );
    await failed(
      me.key,
      'web-extract',
      { url: `${site.url}/plain` },
      'invalid_input',
      /input\.url could not be read \(content_type\): .*text\/plain; web-extract reads HTML pages/,
    );
  });
});

describe('web-monitor', () => {
  const snapshot = (agentId: string, url: string) => server.app.services.db.webSnapshot.findUnique({ where: { agentId_url: { agentId, url } } });

  it("snapshots a page for its caller and reports what changed since that caller's last snapshot", async () => {
    changing.version = 1;
    changing.status = 200;
    const me = await registerAgent(server);
    const url = `${site.url}/changing`;
    const first = await served(me.key, 'web-monitor', { url });
    expect(first).toMatchObject({
      url,
      status: 200,
      title: 'Status board',
      first_check: true,
      changed: false,
      not_modified: false,
      previous: null,
      changes: null,
      checks: 1,
    });
    expect(first.summary).toMatch(/^First snapshot of the page: 3 lines, status 200\.$/);
    const stored = await snapshot(me.agentId, url);
    expect(stored).toMatchObject({ contentHash: first.content_hash, title: 'Status board', status: 200, etag: '"v1-200"', checks: 1 });
    expect(stored!.content.split('\n')).toEqual(['All systems operational.', 'Next maintenance: Sunday.', 'Release 1.0 is live.']);

    // Unchanged: asked with the ETag, the page answers 304.
    const second = await served(me.key, 'web-monitor', { url });
    expect(seen[seen.length - 1].headers['if-none-match']).toBe('"v1-200"');
    expect(second).toMatchObject({
      status: 304,
      first_check: false,
      changed: false,
      not_modified: true,
      checks: 2,
      content_hash: first.content_hash,
      title: 'Status board',
    });
    expect(second.previous).toMatchObject({ taken_at: first.checked_at, status: 200, content_hash: first.content_hash });

    changing.version = 2;
    const third = await served(me.key, 'web-monitor', { url, max_lines: 1 });
    expect(third).toMatchObject({ status: 200, first_check: false, changed: true, not_modified: false, checks: 3, title: 'Status board v2' });
    expect(third.previous).toMatchObject({ taken_at: second.checked_at, title: 'Status board', content_hash: first.content_hash });
    expect(third.changes).toEqual({
      status: null,
      title: { from: 'Status board', to: 'Status board v2' },
      lines_before: 3,
      lines_after: 4,
      lines_added: 2,
      lines_removed: 1,
      added: ['Release 2.0 is live.'],
      removed: ['Release 1.0 is live.'],
      truncated: true,
    });
    expect(third.summary).toBe(`Changed since ${second.checked_at}: title "Status board" → "Status board v2"; 2 lines added, 1 removed.`);

    changing.status = 503;
    const fourth = await served(me.key, 'web-monitor', { url });
    expect(fourth).toMatchObject({ status: 503, changed: true, checks: 4 });
    expect(fourth.changes).toMatchObject({ status: { from: 200, to: 503 }, title: null, lines_added: 0, lines_removed: 0 });
    expect(fourth.summary).toMatch(/status 200 → 503/);
    expect(await snapshot(me.agentId, url)).toMatchObject({ status: 503, checks: 4, contentHash: fourth.content_hash });
  });

  it('keeps snapshots per caller: another agent starts its own, and an unchanged page without an ETag is compared line by line', async () => {
    changing.version = 1;
    changing.status = 200;
    const a = await registerAgent(server);
    const b = await registerAgent(server);
    await served(a.key, 'web-monitor', { url: `${site.url}/changing` });
    const other = await served(b.key, 'web-monitor', { url: `${site.url}/changing` });
    expect(other).toMatchObject({ first_check: true, checks: 1 });
    const steady = `${site.url}/steady`;
    await served(a.key, 'web-monitor', { url: steady });
    const again = await served(a.key, 'web-monitor', { url: steady });
    expect(again).toMatchObject({ first_check: false, changed: false, not_modified: false, checks: 2 });
    expect(again.changes).toMatchObject({ lines_added: 0, lines_removed: 0, lines_before: 2, lines_after: 2 });
    expect(again.summary).toMatch(/^No change since .*; 2 checks so far\.$/);
    expect(await snapshot(b.agentId, steady)).toBeNull();
  });

  it('leaves the snapshot as it was when the page cannot be read', async () => {
    const me = await registerAgent(server);
    const url = `${site.url}/steady`;
    const first = await served(me.key, 'web-monitor', { url });
    await failed(me.key, 'web-monitor', { url: `${site.url}/image` }, 'invalid_input', /input\.url could not be read \(content_type\)/);
    expect(await snapshot(me.agentId, `${site.url}/image`)).toBeNull();
    expect(await snapshot(me.agentId, url)).toMatchObject({ checks: 1, contentHash: first.content_hash });
  });

  it('keeps at most 500 pages per caller: a new page past them replaces the one checked longest ago', async () => {
    const me = await registerAgent(server);
    const db = server.app.services.db;
    // 500 earlier snapshots, the one of page 0 the oldest.
    await db.$executeRaw`
      INSERT INTO web_snapshots (agent_id, url, content_hash, title, content, status, taken_at)
      SELECT ${me.agentId}::uuid, 'https://old.example/' || n, 'h', NULL, '', 200, now() - interval '1 day' + n * interval '1 second'
      FROM generate_series(0, 499) AS n`;
    await served(me.key, 'web-monitor', { url: `${site.url}/steady` });
    expect(await db.webSnapshot.count({ where: { agentId: me.agentId } })).toBe(500);
    expect(await snapshot(me.agentId, 'https://old.example/0')).toBeNull();
    expect(await snapshot(me.agentId, 'https://old.example/1')).not.toBeNull();
    expect(await snapshot(me.agentId, `${site.url}/steady`)).not.toBeNull();
  });

  it('runs on a schedule through a capability subscription, reaching the marketplace through execute', async () => {
    changing.version = 1;
    changing.status = 200;
    const me = await registerAgent(server);
    const url = `${site.url}/steady`;
    const created = await call('POST', '/subscriptions', {
      key: me.key,
      body: { capabilityId: 'web-monitor', schedule: '* * * * * *', deliveryMethod: 'sse', inputPayload: { url } },
    });
    expect(created.status).toBe(201);
    const runs = await eventually(
      () => call('GET', `/subscriptions/${created.body.id}/runs`, { key: me.key }),
      (r) => r.body.runs.filter((x: any) => x.status !== 'pending').length >= 2,
      15_000,
    );
    await call('POST', `/subscriptions/${created.body.id}/cancel`, { key: me.key });
    const done = runs.body.runs.filter((x: any) => x.status !== 'pending');
    expect(done.length).toBeGreaterThanOrEqual(2);
    for (const run of done) expect(run).toMatchObject({ status: 'success' });
    const results = done.map((r: any) => r.result).sort((x: any, y: any) => x.checks - y.checks);
    expect(results[0]).toMatchObject({ url, first_check: true, checks: 1 });
    expect(results[1]).toMatchObject({ url, first_check: false, changed: false, checks: 2 });
    expect((await snapshot(me.agentId, url))!.checks).toBeGreaterThanOrEqual(2);
  });
});

describe('web-research', () => {
  it('ranks passages of the given pages by BM25 and cites each; a page that fails is reported, not fatal', async () => {
    const me = await registerAgent(server);
    const out = await served(me.key, 'web-research', {
      question: 'At what temperature should green tea be brewed?',
      urls: [`${site.url}/tea`, `${site.url}/coffee`, `${site.url}/missing`, `${site.url}/tea#again`],
      max_results: 3,
    });
    expect(out).toMatchObject({ question: 'At what temperature should green tea be brewed?', corpus: 'urls', tools_searched: 0 });
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.results.length).toBeLessThanOrEqual(3);
    expect(out.results[0]).toMatchObject({ url: `${site.url}/tea`, title: 'Brewing tea', kind: 'page' });
    expect(out.results[0].passage).toMatch(/Green tea is brewed with water between 70 and 80 degrees/);
    const scores = out.results.map((r: any) => r.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    expect(scores.every((s: number) => s > 0)).toBe(true);
    expect(out.sources).toEqual([
      { url: `${site.url}/tea`, final_url: `${site.url}/tea`, title: 'Brewing tea', outcome: 'read', error: null, passages: expect.any(Number) },
      { url: `${site.url}/coffee`, final_url: `${site.url}/coffee`, title: 'Roasting coffee', outcome: 'read', error: null, passages: expect.any(Number) },
      {
        url: `${site.url}/missing`,
        final_url: null,
        title: null,
        outcome: 'failed',
        error: expect.stringMatching(/could not be read \(status\): .*answered 404/),
        passages: 0,
      },
    ]);
    expect(out.fetched_bytes).toBe(Buffer.byteLength(TEA) + Buffer.byteLength(COFFEE));

    const coffee = await served(me.key, 'web-research', { question: 'dark roast second crack', urls: [`${site.url}/tea`, `${site.url}/coffee`] });
    expect(coffee.results[0]).toMatchObject({ url: `${site.url}/coffee`, title: 'Roasting coffee' });
    expect(coffee.results.every((r: any) => r.url === `${site.url}/coffee`)).toBe(true);
  });

  it('fails naming every URL when none could be read, and refuses a question of function words only', async () => {
    const me = await registerAgent(server);
    await failed(
      me.key,
      'web-research',
      { question: 'teapots', urls: [`${site.url}/missing`, `${site.url}/image`] },
      'invalid_input',
      /input\.urls\.0 could not be read \(status\).*input\.urls\.1 could not be read \(content_type\)/,
    );
    await failed(me.key, 'web-research', { question: 'what is it', urls: [`${site.url}/tea`] }, 'invalid_input', /input\.question holds no words/);
  });

  it('without URLs, searches the WebMCP index: the matching tools and their sites’ pages', async () => {
    const submitted = await call('POST', '/webmcp/submit', { body: { url: site.url } });
    expect(submitted.status).toBe(202);
    const state = await eventually(
      () => call('GET', `/webmcp/submissions/${submitted.body.submission_id}`),
      (r) => r.body.state !== 'queued',
    );
    expect(state.body.state).toBe('indexed');
    const me = await registerAgent(server);
    const out = await served(me.key, 'web-research', { question: 'weather forecast for a city', max_results: 10 });
    expect(out.corpus).toBe('webmcp_index');
    expect(out.tools_searched).toBeGreaterThanOrEqual(1);
    const manifestUrl = `${site.url}/.well-known/webmcp.json`;
    expect(out.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'webmcp_tool',
          url: manifestUrl,
          title: 'Forecast Works: getCityForecast',
          passage: expect.stringMatching(/^getCityForecast: The weather forecast of a city/),
        }),
        expect.objectContaining({
          kind: 'page',
          url: `${site.url}/`,
          title: 'Forecast Works',
          passage: expect.stringMatching(/hourly weather forecasts for every city/),
        }),
      ]),
    );
    expect(out.sources).toEqual([
      { url: `${site.url}/`, final_url: `${site.url}/`, title: 'Forecast Works', outcome: 'read', error: null, passages: expect.any(Number) },
    ]);
    // A question the index has no words for answers nothing, and fetches nothing.
    const nothing = await served(me.key, 'web-research', { question: 'zzyzx quux' });
    expect(nothing).toMatchObject({ corpus: 'webmcp_index', results: [], sources: [], tools_searched: 0, fetched_bytes: 0 });
  });
});

describe('bad input', () => {
  it('is a 400 naming input.<field> as the client spelled it', async () => {
    const me = await registerAgent(server);
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['web-browse', {}, ['input.url']],
      ['web-browse', { url: `http://127.0.0.1:${site.port}/article` }, ['input.url']],
      ['web-browse', { url: 'not a url' }, ['input.url']],
      ['web-browse', { url: `${site.url}/article`, maxLinks: 5000 }, ['input.maxLinks']],
      ['web-browse', { url: `${site.url}/article`, max_chars: 10 }, ['input.max_chars']],
      ['web-extract', { url: `${site.url}/article`, selectors: Array.from({ length: 21 }, () => ({ selector: 'p' })) }, ['input.selectors']],
      ['web-extract', { url: `${site.url}/article`, selectors: [{ selector: '' }] }, ['input.selectors.0.selector']],
      ['web-extract', { url: `${site.url}/article`, selectors: [{ selector: 'p', limit: 0 }] }, ['input.selectors.0.limit']],
      ['web-monitor', { url: `${site.url}/steady`, extra: 1 }, ['input.extra']],
      ['web-monitor', { url: `${site.url}/steady`, max_lines: 501 }, ['input.max_lines']],
      ['web-research', {}, ['input.question']],
      ['web-research', { question: 'tea', urls: Array.from({ length: 11 }, (_, i) => `${site.url}/tea?${i}`) }, ['input.urls']],
      ['web-research', { question: 'tea', urls: [`${site.url}/tea`, `${site.url}/tea`] }, ['input.urls']],
      ['web-research', { question: 'tea', maxResults: 21 }, ['input.maxResults']],
    ];
    const before = seen.length;
    for (const [capability, input, paths] of cases) {
      const res = await execute(me.key, capability, input);
      // expectProblem's check for leaked SQL would take the field "selectors" for a SELECT.
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
      expect({ capability, input, paths: [...new Set(errorPaths(res))] }).toEqual({ capability, input, paths });
    }
    expect(seen.length).toBe(before);
  });
});

describe('the outbound guard', () => {
  it('refuses loopback — as a literal before any connection, as a name at connect time — and the page is never reached', async () => {
    const guarded = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
    const canary = await startCanary();
    try {
      const me = await registerAgent(guarded);
      const run = (input: Record<string, unknown>) => http(guarded.url, 'POST', '/api/v1/execute', { key: me.key, body: { capability: 'web-browse', input } });
      const literal = await run({ url: `${canary.url}/` });
      expect(literal.status).toBe(200);
      expect(literal.body).toMatchObject({ status: 'error' });
      expect(literal.body.error).toMatch(/input\.url must not point at a private, loopback or link-local address/);
      const named = await run({ url: `https://localhost:${canary.port}/` });
      expect(named.body).toMatchObject({ status: 'error' });
      expect(named.body.error).toMatch(/input\.url could not be read \(blocked_address\): .*refused by the outbound guard/);
      const research = await http(guarded.url, 'POST', '/api/v1/execute', {
        key: me.key,
        body: { capability: 'web-research', input: { question: 'anything at all', urls: [`https://localhost:${canary.port}/a`] } },
      });
      expect(research.body.error).toMatch(/input\.urls\.0 could not be read \(blocked_address\)/);
      expect(canary.connections()).toBe(0);
    } finally {
      await canary.close();
      await guarded.close();
    }
  });
});
