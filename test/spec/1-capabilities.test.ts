// Spec §1: the 33 capability identifiers available to execute, in their six groups. GET /capabilities lists
// them; a fresh install answers each through execute (the marketplace serving it, a page for the web ones
// on a real HTTPS server on loopback) or, for the eight nlp ones that need a model backend it lacks, the
// documented 503 capability_unavailable naming LLM_BASE_URL (docs/capabilities/nlp.md); resolve takes each.
import { expectProblem } from '../support/expect';
import { assertTestCaTrusted, startHttpsServer, type HttpsTestServer } from '../support/https';
import { api, registerAgent, startServer, type TestServer } from '../support/server';

const GROUPS: Record<string, string[]> = {
  nlp: [
    'summarize',
    'translate',
    'sentiment',
    'classify',
    'code-review',
    'code-explain',
    'document-draft',
    'content-rewrite',
    'research-synthesize',
    'research-compare',
    'arabic-cultural',
    'arabic-poetry',
    'agent-vibe',
  ],
  web_automation: ['web-browse', 'web-extract', 'web-monitor', 'web-research'],
  radio: [
    'social-broadcast',
    'social-listen',
    'social-respond',
    'social-digest',
    'social-trending',
    'radio-caller-profile',
    'radio-leaderboard',
    'radio-agent-followers',
  ],
  security: ['skill-audit', 'trust-score'],
  books: ['partner-books-discover', 'partner-books-contribute'],
  ticketing: ['support-ticket', 'ticket-status', 'ticket-comment', 'ticket-list'],
};
const ALL = Object.values(GROUPS).flat();
/** The nlp identifiers a model backend serves, which a fresh install without LLM_BASE_URL does not offer. */
const NEEDS_MODEL = [
  'translate',
  'document-draft',
  'content-rewrite',
  'research-synthesize',
  'research-compare',
  'arabic-cultural',
  'arabic-poetry',
  'agent-vibe',
];

const PAGE = `<!doctype html><html><head><title>Tide tables of Lisbon</title></head><body>
<main><article><h1>Tide tables of Lisbon</h1>
<p>High tide in Lisbon comes twice a day, about twelve hours and twenty-five minutes apart.</p>
<p>Spring tides follow the new and the full moon; neap tides the quarter moons.</p>
<p class="note">The Tagus estuary sees a tidal range of up to four metres.</p>
<a href="https://example.com/tides">More tides</a>
</article></main></body></html>`;

let server: TestServer;
let call: ReturnType<typeof api>;
let page: HttpsTestServer;

beforeAll(async () => {
  assertTestCaTrusted();
  page = await startHttpsServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
  // A fresh install: no model backend configured. Loopback pages need OUTBOUND_ALLOW_PRIVATE (HTTPS still).
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await page.close();
});

const SOURCE = 'export function total(items: number[]): number {\n  let sum = 0;\n  for (const n of items) sum += n;\n  return sum;\n}\n';

describe('§1 the capability identifiers', () => {
  it('§1 GET /capabilities lists the 33 identifiers of the table, each in its group', async () => {
    expect(ALL).toHaveLength(33);
    const res = await call('GET', '/capabilities');
    expect(res.status).toBe(200);
    const groupOf = new Map<string, string>(res.body.capabilities.map((c: any) => [c.slug, c.group]));
    for (const [group, slugs] of Object.entries(GROUPS)) {
      expect({ group, count: slugs.length }).toEqual({ group, count: { nlp: 13, web_automation: 4, radio: 8, security: 2, books: 2, ticketing: 4 }[group] });
      for (const slug of slugs) expect({ slug, group: groupOf.get(slug) }).toEqual({ slug, group });
    }
    // The hierarchy shows the six groups with their identifiers.
    const hierarchy = new Map<string, string[]>(res.body.hierarchy.map((h: any) => [h.group, h.capabilities]));
    for (const [group, slugs] of Object.entries(GROUPS)) expect({ group, has: hierarchy.get(group) }).toEqual({ group, has: expect.arrayContaining(slugs) });
  });

  it('§1 a fresh install answers each identifier through execute; the model-backed nlp ones without a model backend answer 503 capability_unavailable naming LLM_BASE_URL', async () => {
    const me = await registerAgent(server);
    const friend = await registerAgent(server);
    const done = new Map<string, any>();
    const run = async (capability: string, input: Record<string, unknown>) => {
      const res = await call('POST', '/execute', { key: me.key, body: { capability, input } });
      done.set(capability, res);
      return res;
    };

    // nlp, served by libraries without a model backend.
    await run('summarize', {
      text: 'The council met on Monday. It approved the transit budget. The vote was close. Buses will run every ten minutes from May.',
      max_sentences: 2,
    });
    await run('sentiment', { text: 'I love this, it is wonderful.' });
    await run('classify', { text: 'My invoice charged me twice this month.', labels: ['billing', 'shipping'] });
    await run('code-review', { source: SOURCE, language: 'typescript' });
    await run('code-explain', { source: SOURCE, language: 'typescript' });
    // nlp, model-backed: not offered here.
    await run('translate', { text: 'Hello world', target_language: 'fr' });
    await run('document-draft', { kind: 'email', brief: 'Invite the team to the offsite' });
    await run('content-rewrite', { text: 'we r late sorry', style: 'formal' });
    await run('research-synthesize', { question: 'Did it rise?', sources: [{ content: 'It rose in 2024.' }] });
    await run('research-compare', {
      items: [
        { name: 'A', content: 'Cheap' },
        { name: 'B', content: 'Fast' },
      ],
    });
    await run('arabic-cultural', { text: 'inshallah' });
    await run('arabic-poetry', { theme: 'the sea' });
    await run('agent-vibe', { text: 'A focused helper that summarises reports.' });

    // web_automation, reading a page on a real HTTPS server.
    await run('web-browse', { url: `${page.url}/tides` });
    await run('web-extract', { url: `${page.url}/tides`, selectors: [{ selector: 'p.note', name: 'range' }] });
    await run('web-monitor', { url: `${page.url}/tides` });
    await run('web-research', { question: 'How large is the tidal range of the Tagus estuary?', urls: [`${page.url}/tides`] });

    // radio.
    const post = await run('social-broadcast', { channel: 'spec-tides', message: 'High tide at noon' });
    await run('social-listen', { channels: ['spec-tides'] });
    await run('social-respond', { post_id: post.body.result?.post_id, message: 'Thanks for the tide' });
    await run('social-digest', { channel: 'spec-tides' });
    await run('social-trending', {});
    await run('radio-caller-profile', {});
    await run('radio-leaderboard', {});
    await run('radio-agent-followers', { action: 'follow', agent_id: friend.agentId });

    // security.
    await run('skill-audit', { runtime: 'nodejs', entrypoint: 'index.js', source: 'module.exports = (a, b) => a + b;\n' });
    await run('trust-score', { agent_id: friend.agentId });

    // books.
    const book = await run('partner-books-contribute', {
      book: { title: 'Tides of Lisbon', genre: 'nature writing' },
      text: 'The river breathes twice a day.',
    });
    await run('partner-books-discover', { query: 'Lisbon' });

    // ticketing.
    const ticket = await run('support-ticket', { type: 'question', subject: 'When is high tide?', description: 'Asking for a friend', agent_name: me.name });
    await run('ticket-status', { ticket_key: ticket.body.result?.ticket_key });
    await run('ticket-comment', { ticket_key: ticket.body.result?.ticket_key, content: 'Any news?' });
    await run('ticket-list', {});

    expect([...done.keys()].sort()).toEqual([...ALL].sort());
    for (const capability of ALL) {
      const res = done.get(capability);
      if (NEEDS_MODEL.includes(capability)) {
        expectProblem(res, 503, 'capability_unavailable');
        expect({ capability, detail: res.body.detail }).toEqual({ capability, detail: expect.stringMatching(/LLM_BASE_URL/) });
        expect(res.headers.get('retry-after')).toBeNull();
      } else {
        // Served: the marketplace answered, and the answer is a success.
        expect({ capability, status: res.status, outcome: res.body.status, error: res.body.error ?? null }).toEqual({
          capability,
          status: 200,
          outcome: 'success',
          error: null,
        });
        expect(res.body).toMatchObject({ execution_id: expect.any(String), provider: { service_key: 'marketplace' }, result: expect.any(Object) });
      }
    }
    // The answers are about the input given.
    expect(done.get('web-extract').body.result.selected[0].values).toEqual(['The Tagus estuary sees a tidal range of up to four metres.']);
    expect(done.get('web-research').body.result.results[0].passage).toMatch(/Tagus estuary/);
    expect(done.get('social-respond').body.result.reply_to).toBe(post.body.result.post_id);
    expect(JSON.stringify(done.get('partner-books-discover').body.result)).toContain(book.body.result.book.book_id);
    expect(done.get('ticket-status').body.result).toMatchObject({ ticket_key: ticket.body.result.ticket_key, subject: 'When is high tide?' });
    expect(done.get('trust-score').body.result).toMatchObject({ agent_id: friend.agentId, trust_score: expect.any(Number) });
    // Each served call is the caller's recorded execution.
    const executions = (await call('GET', '/my/executions?limit=100', { key: me.key })).body.executions.map((e: any) => e.capability);
    expect(executions.sort()).toEqual(ALL.filter((c) => !NEEDS_MODEL.includes(c)).sort());
  }, 60_000);

  it('§1 resolve takes each of the 33 identifiers: the marketplace is listed for those it serves here', async () => {
    const me = await registerAgent(server);
    for (const capability of ALL) {
      const res = await call('POST', '/resolve', { key: me.key, body: { capability } });
      expect({ capability, status: res.status }).toEqual({ capability, status: 200 });
      expect(res.body.query.capability).toBe(capability);
      const keys = res.body.matches.map((m: any) => m.service_key);
      expect({ capability, marketplace: keys.includes('marketplace') }).toEqual({ capability, marketplace: !NEEDS_MODEL.includes(capability) });
    }
  });
});
