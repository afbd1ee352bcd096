// The marketplace as a provider (issue 35): every identifier of spec §1 is in its table with documented
// input and output schemas; its own systems' capabilities are always answered by it and by nobody else;
// generic ones are served as the last resort after registered providers, listed after them by resolve,
// reached by name in chosen mode, and not offered at all when this instance cannot serve them. Their input
// schemas are the marketplace's own: a registered seller gets the caller's input as sent.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';
import { errorPaths, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';

const SPEC: Record<string, string[]> = {
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
const OWN_GROUPS = ['radio', 'security', 'books', 'ticketing'];
/** What the marketplace serves without a model backend (a library does the work). */
const WITHOUT_MODEL = ['sentiment', 'classify', 'summarize', 'code-review', 'code-explain'];

let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '1500' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

async function provider() {
  const p = await startProvider('seller');
  providers.push(p);
  return p;
}

async function offer(capability: string, p: Provider) {
  const agent = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: agent.key,
    body: { name: uniqueName('svc'), endpoint: p.url, capabilities: [capability], description: 'A seller under test', pricing_model: 'free', cost_per_call: 0 },
  });
  expect(res.status).toBe(201);
  return res.body as { service_id: string; service_key: string };
}

const run = (key: string, body: unknown) => call('POST', '/execute', { key, body });

describe('GET /capabilities', () => {
  it('shows every identifier of spec §1 with how the marketplace serves it and valid JSON Schemas', async () => {
    const res = await call('GET', '/capabilities');
    expect(res.status).toBe(200);
    const bySlug = new Map<string, any>(res.body.capabilities.map((c: any) => [c.slug, c]));
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    for (const [group, slugs] of Object.entries(SPEC)) {
      for (const slug of slugs) {
        const c = bySlug.get(slug);
        expect({ slug, group: c?.group }).toEqual({ slug, group });
        expect({ slug, kind: c.marketplace?.kind }).toEqual({ slug, kind: OWN_GROUPS.includes(group) ? 'own' : 'generic' });
        expect(typeof c.marketplace.summary).toBe('string');
        // Without a model backend, the model-only nlp capabilities are not served here, and say what they need.
        const available = group !== 'nlp' || WITHOUT_MODEL.includes(slug);
        expect({ slug, available: c.marketplace.available }).toEqual({ slug, available });
        if (!available) expect(c.marketplace.unavailable_because).toMatch(/LLM_BASE_URL/);
        for (const schema of [c.marketplace.input_schema, c.marketplace.output_schema]) {
          expect(schema).toMatchObject({ type: 'object' });
          expect(() => ajv.compile(schema)).not.toThrow();
        }
      }
    }
  });
});

describe('its own systems', () => {
  it('answers them itself, reading camelCase and snake_case, and refuses unknown and missing fields by name', async () => {
    const me = await registerAgent(server);
    const ok = await run(me.key, { capability: 'support-ticket', input: { type: 'question', subject: 'How?', description: 'Tell me', agentName: 'me' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      status: 'success',
      provider: { service_key: 'marketplace', service_id: null },
      result: { ticket_key: expect.stringMatching(/^ST-\d+$/), status: 'open' },
    });
    expect(ok.body.attempts).toEqual([expect.objectContaining({ service_key: 'marketplace', outcome: 'success', usage: null })]);

    const bad = await run(me.key, { capability: 'support-ticket', input: { type: 'nonsense', description: 'x', agentName: 'me', colour: 'blue' } });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['input.colour', 'input.subject', 'input.type']);

    const twice = await run(me.key, { capability: 'ticket-status', input: { ticket_key: 'ST-1', ticketKey: 'ST-2' } });
    expectProblem(twice, 400, 'validation_failed');
    expect(errorPaths(twice)).toEqual(['input.ticketKey']);
  });

  it('cannot be intercepted: a service offering one is never called, resolve lists the marketplace alone, chosen mode names it', async () => {
    const p = await provider();
    const svc = await offer('trust-score', p);
    const me = await registerAgent(server);
    const res = await run(me.key, { capability: 'trust-score', input: { agent_id: me.agentId } });
    expect(res.status).toBe(200);
    expect(res.body.provider.service_key).toBe('marketplace');
    expect(res.body.result).toMatchObject({ agent_id: me.agentId, trust_score: expect.any(Number) });
    expect(p.calls).toHaveLength(0);

    const chosen = await run(me.key, { capability: 'trust-score', mode: 'chosen', provider: svc.service_key, input: { agent_id: me.agentId } });
    expectProblem(chosen, 400, 'validation_failed');
    expect(errorPaths(chosen)).toEqual(['provider']);
    const named = await run(me.key, { capability: 'trust-score', mode: 'chosen', provider: 'marketplace', input: { agent_id: me.agentId } });
    expect(named.status).toBe(200);

    const resolved = await call('POST', '/resolve', { key: me.key, body: { capability: 'trust-score' } });
    expect(resolved.status).toBe(200);
    expect(resolved.body.total).toBe(1);
    expect(resolved.body.matches).toEqual([expect.objectContaining({ service_key: 'marketplace', service_id: null, first_party: true, score: null })]);
  });
});

describe('generic capabilities: the provider of last resort', () => {
  it('serves a capability nobody sells, and is listed alone', async () => {
    const me = await registerAgent(server);
    const res = await run(me.key, { capability: 'sentiment', input: { text: 'This is wonderful, I love it.' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', provider: { service_key: 'marketplace' } });
    expect(res.body.attempts).toHaveLength(1);
    const quick = await call('GET', '/resolve/quick?capability=sentiment', { key: me.key });
    expect(quick.status).toBe(200);
    expect(quick.body).toMatchObject({ service_key: 'marketplace', first_party: true, service_id: null, match_score: null });
  });

  it('answers 400 naming the field when it is the only candidate and the input is wrong', async () => {
    const me = await registerAgent(server);
    const res = await run(me.key, { capability: 'sentiment', input: { words: 'hello' } });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(expect.arrayContaining(['input.words']));
  });

  it('tries registered providers first and falls back to itself; resolve lists it after them; chosen mode reaches it by name', async () => {
    const p = await provider();
    p.setDefault({ status: 503 });
    const svc = await offer('summarize', p);
    const me = await registerAgent(server);
    const text = 'The marketplace routes calls. Providers compete on price. The marketplace is the last resort. It never competes with sellers.';
    const res = await run(me.key, { capability: 'summarize', input: { text } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.attempts.map((a: any) => [a.service_key, a.outcome])).toEqual([
      [svc.service_key, 'failure'],
      ['marketplace', 'success'],
    ]);
    expect(p.calls).toHaveLength(1);

    const resolved = await call('POST', '/resolve', { key: me.key, body: { capability: 'summarize', limit: 100 } });
    const keys = resolved.body.matches.map((m: any) => m.service_key);
    expect(keys[keys.length - 1]).toBe('marketplace');
    expect(keys).toContain(svc.service_key);
    expect(resolved.body.total).toBe(keys.length);

    const chosen = await run(me.key, { capability: 'summarize', mode: 'chosen', provider: 'marketplace', input: { text } });
    expect(chosen.status).toBe(200);
    expect(chosen.body.attempts).toHaveLength(1);
    expect(p.calls).toHaveLength(1);
  });

  it('records input it refuses after others failed as a failed attempt, quoted in the error', async () => {
    const p = await provider();
    p.setDefault({ status: 500 });
    await offer('classify', p);
    const me = await registerAgent(server);
    const res = await run(me.key, { capability: 'classify', input: { text: 'hello' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('error');
    expect(res.body.attempts.map((a: any) => a.reason)).toEqual(['http_500', 'invalid_input']);
    expect(res.body.error).toMatch(/marketplace invalid_input \(input\.labels/);
  });

  it("gives a registered seller the caller's input as sent, whatever its own schema says, in chosen and auto mode", async () => {
    const p = await provider();
    const svc = await offer('code-review', p);
    const me = await registerAgent(server);
    const input = { repository: 'acme/app', pull: 42 };
    const chosen = await run(me.key, { capability: 'code-review', mode: 'chosen', provider: svc.service_key, input });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ status: 'success', result: { echo: input }, attempts: [{ service_key: svc.service_key, outcome: 'success' }] });
    const auto = await run(me.key, { capability: 'code-review', input });
    expect(auto.body).toMatchObject({ status: 'success', result: { echo: input } });
    expect(p.calls.map((c) => c.json.input)).toEqual([input, input]);
  });

  it('answers 400 naming the field, and why it is alone, when the only seller is cooling down and its own schema refuses the input', async () => {
    const p = await provider();
    p.setDefault({ status: 500 });
    const svc = await offer('code-explain', p);
    const me = await registerAgent(server);
    const input = { repository: 'acme/app' };
    for (let i = 0; i < 3; i++) {
      const res = await run(me.key, { capability: 'code-explain', mode: 'chosen', provider: svc.service_key, input });
      expect(res.body.attempts[0].reason).toBe('http_500');
    }
    await server.app.services.providerStats.settled();
    await server.app.services.providerStats.foldOnce();
    const res = await run(me.key, { capability: 'code-explain', input });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(expect.arrayContaining(['input', 'input.repository']));
    expect(res.body.errors.find((e: any) => e.path === 'input').message).toMatch(
      /its one registered provider is cooling down after repeated failures, so the marketplace is the only provider to try now/,
    );
    expect(p.calls).toHaveLength(3);
  });

  it('does not offer what it cannot serve here: 503 capability_unavailable naming the configuration, unless a seller offers it', async () => {
    const me = await registerAgent(server);
    const res = await run(me.key, { capability: 'arabic-poetry', input: { text: 'x' } });
    expectProblem(res, 503, 'capability_unavailable');
    expect(res.body.detail).toMatch(/LLM_BASE_URL/);
    const quick = await call('GET', '/resolve/quick?capability=arabic-poetry', { key: me.key });
    expectProblem(quick, 503, 'capability_unavailable');
    const chosen = await run(me.key, { capability: 'arabic-poetry', mode: 'chosen', provider: 'marketplace', input: { text: 'x' } });
    expectProblem(chosen, 503, 'capability_unavailable');
    const resolved = await call('POST', '/resolve', { key: me.key, body: { capability: 'arabic-poetry' } });
    expect(resolved.body).toMatchObject({ matches: [], total: 0 });

    const p = await provider();
    p.setDefault({ status: 500 });
    const svc = await offer('arabic-poetry', p);
    const sold = await run(me.key, { capability: 'arabic-poetry', input: { text: 'x' } });
    expect(sold.status).toBe(200);
    expect(sold.body.attempts.map((a: any) => a.service_key)).toEqual([svc.service_key]);
  });

  it('is not a provider of capabilities outside its table', async () => {
    const me = await registerAgent(server);
    const res = await run(me.key, { capability: 'weather-forecast', mode: 'chosen', provider: 'marketplace', input: {} });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['provider']);
    const none = await run(me.key, { capability: 'weather-forecast', input: {} });
    expectProblem(none, 404, 'not_found');
  });
});
