// Spec §4.3 (execute), §1 (the identifiers available to execute) and CONTRACT §6 (calling a provider), as a
// new user meets them over REST, against real HTTPS providers on loopback.
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { errorPaths, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { api, registerAgent, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';

const LISTED: Record<string, string[]> = {
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
/** The identifiers sellers compete on (the others are the marketplace's own systems'). */
const SOLD = [...LISTED.nlp, ...LISTED.web_automation];

let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '30000' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

async function provider(name: string) {
  const p = await startProvider(name);
  providers.push(p);
  return p;
}

/** A new agent's service offering `capabilities` at `cost` cents a call, answered by `p`. */
async function offer(p: Provider, capabilities: string[], cost = 0) {
  const owner = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: owner.key,
    body: {
      name: uniqueName('svc'),
      endpoint: p.url,
      capabilities,
      description: 'A provider a test starts',
      pricing_model: cost ? 'per_call' : 'free',
      cost_per_call: cost,
    },
  });
  if (res.status !== 201) throw new Error(`service registration failed: ${res.status} ${res.text}`);
  return {
    owner,
    serviceId: res.body.service_id as string,
    serviceKey: res.body.service_key as string,
    name: res.body.name as string,
    secret: res.body.signing_secret as string,
  };
}

/** The seller stops offering what it offered (so later tests see the marketplace alone again). */
async function withdraw(svc: Awaited<ReturnType<typeof offer>>) {
  const res = await call('PATCH', `/services/${svc.serviceKey}`, { key: svc.owner.key, body: { capabilities: [uniqueSlug('withdrawn')] } });
  if (res.status !== 200) throw new Error(`withdrawing failed: ${res.status} ${res.text}`);
}

const run = (key: string, body: unknown) => call('POST', '/execute', { key, body });

describe('§4.3 POST /execute', () => {
  it('§4.3 execute answers 200 with execution_id, status, result, provider {service_key, name, reputation} and transaction {cost_cents, latency_ms}', async () => {
    const capability = uniqueSlug('spec-exec');
    const svc = await offer(await provider('answers'), [capability], 5);
    const me = await registerAgent(server);
    const res = await run(me.key, { capability, input: { text: 'hello' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      execution_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'success',
      result: { served_by: 'answers', echo: { text: 'hello' } },
      provider: { service_key: svc.serviceKey, name: svc.name, reputation: expect.any(Number) },
      transaction: { cost_cents: 5, latency_ms: expect.any(Number) },
    });
    expect(Number.isInteger(res.body.transaction.latency_ms)).toBe(true);
  });

  it('§4.3 with mode auto the service picks the best provider, applies fallback and records the transaction', async () => {
    const capability = uniqueSlug('spec-auto');
    const failing = await provider('failing');
    failing.setDefault({ status: 503 });
    const first = await offer(failing, [capability]);
    const second = await offer(await provider('second'), [capability], 3);
    const me = await registerAgent(server);
    const res = await run(me.key, { capability, input: { n: 1 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'success',
      result: { served_by: 'second' },
      provider: { service_key: second.serviceKey },
      transaction: { cost_cents: 3 },
    });
    expect(res.body.attempts.map((a: any) => [a.service_key, a.outcome])).toEqual([
      [first.serviceKey, 'failure'],
      [second.serviceKey, 'success'],
    ]);
    const transactions = (await call('GET', '/agents/me/transactions', { key: me.key })).body.transactions;
    expect(transactions).toEqual([
      expect.objectContaining({ transaction_id: res.body.transaction.transaction_id, execution_id: res.body.execution_id, amount_cents: 3 }),
    ]);
  });

  it('§4.3 with mode chosen it uses provider', async () => {
    const capability = uniqueSlug('spec-chosen');
    const best = await provider('best');
    await offer(best, [capability]);
    const named = await provider('named');
    const svc = await offer(named, [capability]);
    const me = await registerAgent(server);
    for (const provider of [svc.serviceKey, svc.serviceId]) {
      const res = await run(me.key, { capability, mode: 'chosen', provider, input: { n: 2 } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'success', result: { served_by: 'named' }, provider: { service_key: svc.serviceKey } });
    }
    expect(named.calls).toHaveLength(2);
    expect(best.calls).toHaveLength(0);
  });

  it('§4.3 a registered provider of a listed identifier receives the input as sent, in chosen mode', async () => {
    const seller = await provider('seller');
    const svc = await offer(seller, SOLD);
    const me = await registerAgent(server);
    // Free-form: fields the marketplace's own input schema for these identifiers does not have.
    const input = { run: 'anything', options: { depth: 2, style: 'terse' }, items: [1, 'two'] };
    try {
      for (const capability of SOLD) {
        const res = await run(me.key, { capability, mode: 'chosen', provider: svc.serviceKey, input });
        expect({ capability, status: res.status, body: res.body.result }).toEqual({ capability, status: 200, body: { served_by: 'seller', echo: input } });
      }
      expect(seller.calls.map((c) => [c.json.capability, c.json.input])).toEqual(SOLD.map((capability) => [capability, input]));
    } finally {
      await withdraw(svc);
    }
  });

  it('§4.3 a registered provider of a listed identifier receives the input as sent, in auto mode', async () => {
    const seller = await provider('auto-seller');
    const svc = await offer(seller, ['summarize', 'web-extract']);
    const me = await registerAgent(server);
    const input = { run: 'the job', pages: 3 };
    try {
      for (const capability of ['summarize', 'web-extract']) {
        const res = await run(me.key, { capability, input });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ status: 'success', result: { echo: input } });
        expect(res.body.attempts[0]).toMatchObject({ service_key: svc.serviceKey, outcome: 'success' });
      }
      // Its failure falls through to the marketplace, tried last, whose own schema refuses this input: that
      // attempt fails with the reason, like any other, and the call answers an error naming both.
      seller.setDefault({ status: 500 });
      const failed = await run(me.key, { capability: 'summarize', input });
      expect(failed.status).toBe(200);
      expect(failed.body.status).toBe('error');
      expect(failed.body.attempts.map((a: any) => [a.service_key, a.reason])).toEqual([
        [svc.serviceKey, 'http_500'],
        ['marketplace', 'invalid_input'],
      ]);
      expect(failed.body.error).toMatch(/marketplace invalid_input \(.*input\.run is not a field/);
      expect(seller.calls.at(-1)!.json.input).toEqual(input);
    } finally {
      await withdraw(svc);
    }
  });

  it("§4.3 the marketplace's own input schema bounds only its own attempt: alone, or chosen by name, input outside it answers 400 naming the field", async () => {
    const me = await registerAgent(server);
    for (const body of [
      { capability: 'sentiment', input: { run: 'x' } },
      { capability: 'sentiment', mode: 'chosen', provider: 'marketplace', input: { run: 'x' } },
    ]) {
      const res = await run(me.key, body);
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toContain('input.run');
    }
  });

  it('§4.3 execute with capability support-ticket returns ticket_key, status and created_at in result', async () => {
    const me = await registerAgent(server);
    const res = await run(me.key, {
      capability: 'support-ticket',
      input: { type: 'question', subject: 'How do I start?', description: 'A first question', priority: 'low', agentName: me.name },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ ticket_key: expect.stringMatching(/^ST-\d+$/), status: 'open', created_at: expect.any(String) });
    expect(new Date(res.body.result.created_at).toISOString()).toBe(res.body.result.created_at);
    const read = await call('GET', `/tickets/${res.body.result.ticket_key}`, { key: me.key });
    expect(read.body).toMatchObject({ ticket_key: res.body.result.ticket_key, subject: 'How do I start?' });
  });

  it('§1 each of the 33 listed identifiers is known to execute', async () => {
    expect(Object.values(LISTED).flat()).toHaveLength(33);
    const me = await registerAgent(server);
    for (const capability of Object.values(LISTED).flat()) {
      const res = await run(me.key, { capability, input: {} });
      // Served; or its input named field by field; or, for a model-backed one on an instance without a
      // model backend and with no seller, 503 naming the configuration it needs. Never unknown.
      const outcome = res.status === 200 ? 'served' : res.status === 400 && errorPaths(res).every((p) => p.startsWith('input')) ? 'served' : res.body.code;
      expect({ capability, outcome }).toEqual({ capability, outcome: res.status === 503 ? 'capability_unavailable' : 'served' });
      if (res.status === 503) expect(res.body.detail).toMatch(/LLM_BASE_URL/);
    }
  });

  it('§4.3 execute is limited to 100 requests a minute', async () => {
    const limited = await startServer();
    try {
      const me = await registerAgent(limited);
      const res = await api(limited)('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: me.agentId } } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('99');
    } finally {
      await limited.close();
    }
  });
});

describe('CONTRACT §6 calling a provider', () => {
  it('CONTRACT §6 the provider gets a POST of {execution_id, capability, input, agent_id} signed with its signing secret; a 2xx JSON answer is the result', async () => {
    const capability = uniqueSlug('spec-signed');
    const p = await provider('signed');
    const svc = await offer(p, [capability]);
    const me = await registerAgent(server);
    const res = await run(me.key, { capability, input: { a: [1, { b: 'c' }] } });
    const [got] = p.calls;
    expect(got.json).toEqual({ execution_id: res.body.execution_id, capability, input: { a: [1, { b: 'c' }] }, agent_id: me.agentId });
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    expect(new StandardWebhook(svc.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(got.json);
    expect(res.body.result).toEqual({ served_by: 'signed', echo: { a: [1, { b: 'c' }] } });
  });

  it('CONTRACT §6 a failure falls to the next-ranked provider, up to 3, every attempt recorded; cost_cents is the answering provider’s price', async () => {
    const capability = uniqueSlug('spec-three');
    const ps = [await provider('p500'), await provider('garbage'), await provider('empty'), await provider('fourth')];
    ps[0].setDefault({ status: 500 });
    ps[1].setDefault({ body: 'not json' });
    ps[2].setDefault({ body: '' });
    // Dearer providers rank lower: the fourth is never reached.
    for (const [i, p] of ps.entries()) await offer(p, [capability], [0, 10, 20, 90][i]);
    const me = await registerAgent(server);
    const res = await run(me.key, { capability, input: {} });
    expect(res.body).toMatchObject({ status: 'error', transaction: { cost_cents: 0 } });
    expect(res.body.attempts.map((a: any) => a.reason)).toEqual(['http_500', 'invalid_json', 'empty_body']);
    expect(ps[3].calls).toHaveLength(0);
    const executions = (await call('GET', '/agents/me/executions', { key: me.key })).body.executions;
    expect(executions[0]).toMatchObject({ execution_id: res.body.execution_id, status: 'error' });
  });
});
