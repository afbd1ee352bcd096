// Execute (spec §4.3, CONTRACT §6) against real HTTPS providers on loopback that succeed, fail, hang and
// answer garbage: signed calls, fallback in auto mode, exactly one provider in chosen mode, every attempt
// recorded with the execution and its transaction, statistics and cooldowns folded from the attempts.
import { randomUUID } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { api, gql, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { registerPayingAgent } from '../support/payments';
import { errorPaths, expectProblem } from '../support/expect';
import { assertTestCaTrusted, startCanary } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { FakeClock } from '../support/clock';
import { ProviderStats } from '../../src/domain/execution/provider-stats';
import { recordTogether } from '../../src/domain/execution/execute';
import { batchRecord } from '../support/records';

let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];
const clock = new FakeClock();

beforeAll(async () => {
  assertTestCaTrusted();
  // A provider has 3 s: fifteen calls at once, beside the rest of the suite on a slow machine, have taken over 1.5.
  server = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '3000', SANDBOX_FAUCET_CAP: '100' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

async function provider(name = 'provider') {
  const p = await startProvider(name);
  providers.push(p);
  return p;
}

/** A provider agent with a service for `capability` at `cost` cents, answered by `p`. */
async function offer(capability: string, p: Provider, cost = 0, name = `svc for ${capability}`) {
  const agent = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: agent.key,
    body: {
      name,
      endpoint: p.url,
      capabilities: [capability],
      description: 'A provider under test',
      pricing_model: cost ? 'per_call' : 'free',
      cost_per_call: cost,
    },
  });
  if (res.status !== 201) throw new Error(`service registration failed: ${res.status} ${res.text}`);
  return { agent, serviceId: res.body.service_id as string, serviceKey: res.body.service_key as string, secret: res.body.signing_secret as string };
}

const run = (key: string, body: unknown, headers: Record<string, string> = {}) => call('POST', '/execute', { key, body, headers });

describe('POST /execute, auto mode', () => {
  it('calls the best provider with a signed request and answers its result, recorded everywhere', async () => {
    const cap = uniqueSlug('exec');
    const p = await provider('best');
    const svc = await offer(cap, p, 7);
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: { text: 'hello' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      execution_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      capability: cap,
      mode: 'auto',
      status: 'success',
      result: { served_by: 'best', echo: { text: 'hello' } },
      error: null,
      provider: { service_id: svc.serviceId, service_key: svc.serviceKey, name: `svc for ${cap}`, reputation: 20 },
      transaction: { transaction_id: expect.any(String), cost_cents: 7, latency_ms: expect.any(Number) },
      attempts: [
        {
          ordinal: 1,
          service_id: svc.serviceId,
          service_key: svc.serviceKey,
          outcome: 'success',
          reason: null,
          category: null,
          status_code: 200,
          retry_after_seconds: null,
          latency_ms: expect.any(Number),
          score: expect.any(Number),
          costPerCall: 7,
          usage: null,
          // Priced per call, not metered (docs/payments.md, Metered calls).
          metered: null,
        },
      ],
      // No routing policy, and nobody passed over.
      routing: null,
      // Paid from the caller's wallet (test/api/payments.test.ts has the rest).
      payment: expect.objectContaining({ method: 'prepaid', charged_cents: 7, charged_base_units: '70000' }),
      created_at: expect.any(String),
      // The receipt as a compact JWS (test/api/receipts.test.ts verifies it).
      signed_receipt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    // The provider got CONTRACT §6's body, signed with the service's signing secret.
    const [got] = p.calls;
    expect(got.json).toEqual({ execution_id: res.body.execution_id, capability: cap, input: { text: 'hello' }, agent_id: me.agentId });
    expect(new StandardWebhook(svc.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(got.json);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(got.headers['webhook-id']).toBe(res.body.execution_id);
    // Recorded: the execution, the transaction.
    const executions = await call('GET', '/my/executions', { key: me.key });
    expect(executions.body.executions[0]).toMatchObject({ execution_id: res.body.execution_id, status: 'success', cost_cents: 7, service_id: svc.serviceId });
    const transactions = await call('GET', '/my/transactions', { key: me.key });
    expect(transactions.body.transactions[0]).toMatchObject({
      transaction_id: res.body.transaction.transaction_id,
      kind: 'charge',
      amount_cents: 7,
      execution_id: res.body.execution_id,
    });
    expect((await call('GET', '/my/usage', { key: me.key })).body.total_executions).toBe(1);
  });

  it('falls back to the next-ranked provider when the best one fails', async () => {
    const cap = uniqueSlug('fallback');
    const [bad, good] = [await provider('bad'), await provider('good')];
    bad.setDefault({ status: 503 });
    const first = await offer(cap, bad, 0);
    const second = await offer(cap, good, 30);
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: {} });
    expect(res.body).toMatchObject({
      status: 'success',
      result: { served_by: 'good' },
      provider: { service_key: second.serviceKey },
      transaction: { cost_cents: 30 },
    });
    expect(res.body.attempts.map((a: any) => [a.service_key, a.outcome, a.reason])).toEqual([
      [first.serviceKey, 'failure', 'http_503'],
      [second.serviceKey, 'success', null],
    ]);
    expect(bad.calls[0].headers['webhook-id']).toBe(good.calls[0].headers['webhook-id']);
  });

  it('records an error, free of charge, when every provider fails, after at most three', async () => {
    const cap = uniqueSlug('allfail');
    const ps = [await provider('p500'), await provider('garbage'), await provider('empty'), await provider('fourth')];
    ps[0].setDefault({ status: 500 });
    ps[1].setDefault({ body: '<html>not json</html>' });
    ps[2].setDefault({ body: '' });
    const offered = [await offer(cap, ps[0], 0), await offer(cap, ps[1], 10), await offer(cap, ps[2], 20), await offer(cap, ps[3], 90)];
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: { n: 1 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'error', result: null, transaction: { cost_cents: 0 } });
    expect(res.body.error).toMatch(/All 3 providers failed/);
    expect(res.body.attempts.map((a: any) => a.reason)).toEqual(['http_500', 'invalid_json', 'empty_body']);
    expect(ps[3].calls).toHaveLength(0);
    expect(res.body.provider.service_key).toBe(offered[2].serviceKey);
    const executions = await call('GET', '/my/executions', { key: me.key });
    expect(executions.body.executions[0]).toMatchObject({ status: 'error', cost_cents: 0 });
  });

  it('gives up on a provider that does not answer within the timeout', async () => {
    const cap = uniqueSlug('hang');
    const [slow, quick] = [await provider('slow'), await provider('quick')];
    slow.setDefault({ hang: true });
    await offer(cap, slow, 0);
    await offer(cap, quick, 50);
    const me = await registerPayingAgent(server);
    const started = Date.now();
    const res = await run(me.key, { capability: cap, input: {} });
    expect(Date.now() - started).toBeLessThan(6000);
    expect(res.body.attempts.map((a: any) => a.reason)).toEqual(['timeout', null]);
    expect(res.body.status).toBe('success');
  });

  it('answers 404 when no active provider offers the capability', async () => {
    const me = await registerPayingAgent(server);
    expectProblem(await run(me.key, { capability: uniqueSlug('nobody'), input: {} }), 404, 'not_found');
  });

  it('skips a provider cooling down after three failures in a row, until the cooldown ends', async () => {
    const cap = uniqueSlug('cool');
    const [flaky, steady] = [await provider('flaky'), await provider('steady')];
    flaky.setDefault({ status: 500 });
    const f = await offer(cap, flaky, 0);
    // Dear enough that the flaky one still ranks first after its failures: only the cooldown skips it.
    await offer(cap, steady, 1000);
    const me = await registerPayingAgent(server, '100');
    // Three failures in a row (chosen, so the other provider gathers no statistics meanwhile).
    for (let i = 0; i < 3; i++) {
      const res = await run(me.key, { capability: cap, input: {}, mode: 'chosen', provider: f.serviceKey });
      expect(res.body.attempts[0].reason).toBe('http_500');
    }
    await server.app.services.providerStats.settled();
    await server.app.services.providerStats.foldOnce();
    const cooled = await server.app.services.db.service.findUniqueOrThrow({ where: { id: f.serviceId } });
    expect(cooled).toMatchObject({ consecutiveFailures: 3, failureCount: 3 });
    expect(cooled.cooldownUntil!.getTime()).toBeGreaterThan(clock.now().getTime());
    const skipped = await run(me.key, { capability: cap, input: {} });
    expect(skipped.body.attempts.map((a: any) => a.service_key)).not.toContain(f.serviceKey);
    expect(flaky.calls).toHaveLength(3);
    // Once the cooldown is over it is a candidate again (the other one now failing too, both are tried).
    clock.advance(31_000);
    steady.setDefault({ status: 500 });
    const back = await run(me.key, { capability: cap, input: {} });
    expect(back.body.attempts.map((a: any) => a.service_key)).toContain(f.serviceKey);
    expect(flaky.calls).toHaveLength(4);
  });
});

describe('POST /execute, chosen mode', () => {
  it('calls exactly the named provider, by key or by id, even when another ranks higher', async () => {
    const cap = uniqueSlug('chosen');
    const [cheap, dear] = [await provider('cheap'), await provider('dear')];
    await offer(cap, cheap, 0);
    const named = await offer(cap, dear, 99);
    const me = await registerPayingAgent(server);
    for (const provider of [named.serviceKey, named.serviceId]) {
      const res = await run(me.key, { capability: cap, input: {}, mode: 'chosen', provider });
      expect(res.body).toMatchObject({ mode: 'chosen', status: 'success', result: { served_by: 'dear' }, transaction: { cost_cents: 99 } });
      expect(res.body.attempts).toHaveLength(1);
    }
    expect(cheap.calls).toHaveLength(0);
  });

  it('does not fall back when the chosen provider fails', async () => {
    const cap = uniqueSlug('chosenfail');
    const [failing, other] = [await provider('failing'), await provider('other')];
    failing.setDefault({ status: 502 });
    const named = await offer(cap, failing, 0);
    await offer(cap, other, 0);
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: {}, mode: 'chosen', provider: named.serviceKey });
    expect(res.body).toMatchObject({ status: 'error', attempts: [{ reason: 'http_502' }] });
    expect(other.calls).toHaveLength(0);
  });

  it('answers 400 without a provider or for one that does not offer the capability, 404 for an unknown one', async () => {
    const cap = uniqueSlug('chosenbad');
    const p = await provider();
    const svc = await offer(cap, p, 0);
    const me = await registerPayingAgent(server);
    expect(errorPaths(await run(me.key, { capability: cap, input: {}, mode: 'chosen' }))).toEqual(['provider']);
    expect(errorPaths(await run(me.key, { capability: 'summarize', input: {}, mode: 'chosen', provider: svc.serviceKey }))).toEqual(['provider']);
    expectProblem(await run(me.key, { capability: cap, input: {}, mode: 'chosen', provider: 'svc_doesnotexist000000000000' }), 404, 'not_found');
  });
});

describe('bad input and limits', () => {
  it('names each bad field', async () => {
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: 'Not A Slug', input: 'text' });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['capability', 'input']);
    expect(errorPaths(await run(me.key, { capability: 'summarize', input: {}, mode: 'sometimes' }))).toEqual(['mode']);
    expect(errorPaths(await run(me.key, { capability: 'summarize' }))).toEqual(['input']);
    expect(errorPaths(await run(me.key, { input: {} }))).toEqual(['capability']);
  });

  it('refuses an unknown key, a suspended agent and no key with a well-formed request, on both surfaces, calling nobody', async () => {
    // A valid auto-mode request is where execute looks the caller up together with the providers.
    const cap = uniqueSlug('authz');
    const p = await provider();
    await offer(cap, p, 0);
    const suspended = await registerAgent(server);
    await server.app.services.db.agent.update({ where: { id: suspended.agentId }, data: { status: 'SUSPENDED' } });
    const body = { capability: cap, input: { text: 'hello' } };
    expectProblem(await run(`key_master_${'U'.repeat(40)}`, body), 401, 'unauthorized');
    expectProblem(await call('POST', '/execute', { body }), 401, 'unauthorized');
    expectProblem(await run(suspended.key, body), 403, 'forbidden');
    const query = 'mutation($input: ExecuteInput!) { execute(input: $input) { status } }';
    const anonymous = await gql(server, query, { input: body }, `key_master_${'U'.repeat(40)}`);
    expect(anonymous.body.errors?.[0].extensions?.code).toBe('UNAUTHORIZED');
    const refused = await gql(server, query, { input: body }, suspended.key);
    expect(refused.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(p.calls).toHaveLength(0);
    // The same request with a live key goes through.
    const me = await registerPayingAgent(server);
    expect((await run(me.key, body)).body).toMatchObject({ status: 'success', result: { echo: { text: 'hello' } } });
  });

  it('keeps a sub-agent inside its authority scope', async () => {
    const parent = await registerAgent(server);
    const sub = await call('POST', `/agents/${parent.agentId}/sub-agents`, {
      key: parent.key,
      body: { name: uniqueSlug('scoped').slice(0, 40), description: 'Translates only', autonomyLevel: 'EXECUTE_ONLY', authorityScope: ['translate'] },
    });
    expectProblem(await run(sub.body.master_key, { capability: 'summarize', input: {} }), 403, 'forbidden');
  });

  it('replays an execution sent again with the same Idempotency-Key, calling the provider once', async () => {
    const cap = uniqueSlug('idem');
    const p = await provider();
    await offer(cap, p, 0);
    const me = await registerPayingAgent(server);
    const body = { capability: cap, input: { once: true } };
    const first = await run(me.key, body, { 'idempotency-key': 'exec-once-1' });
    const again = await run(me.key, body, { 'idempotency-key': 'exec-once-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.execution_id).toBe(first.body.execution_id);
    expect(p.calls).toHaveLength(1);
    expectProblem(await run(me.key, { ...body, input: { once: false } }, { 'idempotency-key': 'exec-once-1' }), 409, 'conflict');
  });

  it('never reaches a private address without OUTBOUND_ALLOW_PRIVATE, even through a registered service', async () => {
    const canary = await startCanary();
    const guarded = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
    try {
      const owner = await registerAgent(guarded);
      // Registration refuses the address outright...
      const refused = await api(guarded)('POST', '/services/register', {
        key: owner.key,
        body: { name: 'sneaky', endpoint: `${canary.url}/run`, capabilities: ['ssrf-probe'], description: 'Points at loopback', pricing_model: 'free' },
      });
      expect(errorPaths(refused)).toEqual(['endpoint']);
      // ...and one that slipped in (written straight to the database) is refused at call time.
      const service = await guarded.app.services.db.service.create({
        data: {
          serviceKey: 'svc_ssrfprobe00000000000000',
          agentId: owner.agentId,
          name: 'sneaky',
          description: 'Points at loopback',
          endpoint: `${canary.url}/run`,
          capabilities: ['ssrf-probe'],
          pricingModel: 'free',
          signingSecret: 'whsec_AAAA',
        },
      });
      const res = await api(guarded)('POST', '/execute', {
        key: owner.key,
        body: { capability: 'ssrf-probe', input: {}, mode: 'chosen', provider: service.serviceKey },
      });
      expect(res.body).toMatchObject({ status: 'error', attempts: [{ reason: 'blocked_address' }] });
      expect(canary.connections()).toBe(0);
    } finally {
      await guarded.close();
      await canary.close();
    }
  });
});

describe('provider statistics and reputation', () => {
  type Attempt = [outcome: 'success' | 'failure', latencyMs: number, atMs: number];
  /** The agent whose paid calls the queued attempts are: another family's, so that they count for reputation too. */
  let customer: { agentId: string };
  beforeAll(async () => {
    customer = await registerAgent(server);
  });
  /**
   * Attempts of `svc`'s service at the given offsets from `base` (ms), under one execution of the customer's
   * at 5 cents, in the order given, queued for the fold as the record statement queues them.
   */
  async function insertAttempts(svc: { agent: { agentId: string }; serviceId: string | null; serviceKey: string }, base: number, list: Attempt[]) {
    const { db } = server.app.services;
    const executionId = randomUUID();
    await db.$executeRawUnsafe(
      `INSERT INTO executions (id, agent_id, capability, service_id, status, input, cost_cents, latency_ms, mode, created_at) VALUES ($1::uuid, $2::uuid, 'rules', $3::uuid, 'success', '{}', 5, 1, 'auto', now())`,
      executionId,
      customer.agentId,
      svc.serviceId,
    );
    for (const [i, [outcome, latencyMs, atMs]] of list.entries()) {
      await db.$executeRawUnsafe(
        `INSERT INTO execution_attempts (execution_id, ordinal, service_id, service_key, outcome, latency_ms, price_cents, created_at) VALUES ($1::uuid, $2, $3::uuid, $4, $5, $6, 5, $7)`,
        executionId,
        i + 1,
        svc.serviceId,
        svc.serviceKey,
        outcome,
        latencyMs,
        new Date(base + atMs),
      );
      await db.$executeRawUnsafe(
        `INSERT INTO attempts_to_fold (service_id, outcome, latency_ms, created_at, caller_id, price_cents) VALUES ($1::uuid, $2, $3, $4, $5::uuid, 5)`,
        svc.serviceId,
        outcome,
        latencyMs,
        new Date(base + atMs),
        customer.agentId,
      );
    }
  }
  async function fold() {
    await server.app.services.providerStats.settled();
    await server.app.services.providerStats.foldOnce();
  }

  /**
   * Runs `steps` with the background worker stopped: the folds in them are the test's own, and its poll,
   * landing between them, would fold the queue in one batch of its own.
   */
  async function ownFolds(steps: () => Promise<void>) {
    const stats = server.app.services.providerStats;
    await stats.stop();
    try {
      await steps();
    } finally {
      stats.start();
    }
  }

  it('folds attempts into the service statistics and moves the provider’s reputation', async () => {
    const cap = uniqueSlug('stats');
    const p = await provider();
    p.setDefault({ delayMs: 30 });
    // Paid calls of another agent's: the ones that move a provider's reputation (test/api/reputation.test.ts has the rules).
    const svc = await offer(cap, p, 1);
    const me = await registerPayingAgent(server);
    for (let i = 0; i < 10; i++) expect((await run(me.key, { capability: cap, input: { i } })).body.status).toBe('success');
    await server.app.services.providerStats.settled();
    await server.app.services.providerStats.foldOnce();
    const service = await server.app.services.db.service.findUniqueOrThrow({ where: { id: svc.serviceId } });
    expect(service).toMatchObject({ successCount: 10, failureCount: 0, consecutiveFailures: 0, cooldownUntil: null });
    expect(service.latencyP50Ms).toBeGreaterThanOrEqual(25);
    expect(service.latencyP95Ms).toBeGreaterThanOrEqual(service.latencyP50Ms!);
    expect(service.lastSuccessAt).not.toBeNull();
    const rep = await call('GET', '/my/reputation', { key: svc.agent.key });
    expect(rep.body.reputation).toBe(21);
    // Folded as the executions committed: the tenth success is worth a point.
    // (Found by its source: the fake clock stands still, so it and the registration's event share an instant.)
    const folded = rep.body.events.filter((e: { source_type: string | null }) => e.source_type === 'provider_stats');
    expect(folded).toEqual([
      expect.objectContaining({ delta: 1, reason: expect.stringMatching(/^provider calls paid from outside its family: \d+ succeeded, 0 failed$/) }),
    ]);
    // With the event applyReputation writes, for the provider's streams and webhooks.
    const event = await server.app.services.db.outboxEvent.findFirstOrThrow({ where: { agentId: svc.agent.agentId, type: 'reputation.changed' } });
    expect(event.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(event.data).toEqual({
      agent_id: svc.agent.agentId,
      delta: 1,
      reputation: 21,
      previous: 20,
      tier: 'newcomer',
      previous_tier: 'newcomer',
      reason: folded[0].reason,
    });
    // The ranking sees the statistics.
    const resolved = await call('POST', '/resolve', { key: me.key, body: { capability: cap } });
    expect(resolved.body.matches[0]).toMatchObject({ success_rate: 0.92, latency_p50_ms: service.latencyP50Ms, reputation: 21 });
  });

  it('folds by the rules: latency buckets and their percentiles, failures in a row across folds, and the cooldown they start', async () => {
    const p = await provider();
    const svc = await offer(uniqueSlug('rules'), p, 0);
    const base = Date.now();
    const attempts = (list: Attempt[]) => insertAttempts(svc, base, list);
    const stats = async () => {
      await fold();
      return server.app.services.db.service.findUniqueOrThrow({ where: { id: svc.serviceId } });
    };
    // A failure before the successes does not count in the streak; the two after them do.
    await attempts([
      ['failure', 1, 0],
      ['success', 30, 40],
      ['success', 3, 10],
      ['success', 20_000, 50],
      ['success', 7, 20],
      ['success', 7, 30],
      ['failure', 5, 70],
      ['failure', 5, 60],
    ]);
    const first = await stats();
    expect(first).toMatchObject({
      successCount: 5,
      failureCount: 3,
      consecutiveFailures: 2,
      cooldownUntil: null,
      latencyBuckets: [1, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1],
    });
    // p50: rank 2.5 falls in (5, 10] holding two: 5 + 1.5/2 × 5. p95: rank 4.75 in the last bucket, (10000, 20000].
    expect(first).toMatchObject({ latencyP50Ms: 9, latencyP95Ms: 17_500 });
    expect(first.lastSuccessAt!.getTime()).toBe(base + 50);
    expect(first.lastFailureAt!.getTime()).toBe(base + 70);
    // The third failure in a row starts a 30 s cooldown from it; the fourth doubles it.
    await attempts([['failure', 5, 80]]);
    expect((await stats()).cooldownUntil!.getTime()).toBe(base + 80 + 30_000);
    await attempts([['failure', 5, 90]]);
    expect(await stats()).toMatchObject({ consecutiveFailures: 4, failureCount: 5, cooldownUntil: new Date(base + 90 + 60_000) });
    // A success ends the streak and the cooldown.
    await attempts([['success', 12, 100]]);
    expect(await stats()).toMatchObject({ consecutiveFailures: 0, cooldownUntil: null, successCount: 6, latencyBuckets: [1, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1] });
  });

  it('records nothing for a provider whose reputation is already at its bound, and moves it down from there', async () => {
    const svc = await offer(uniqueSlug('capped'), await provider(), 0);
    const { db } = server.app.services;
    await db.agent.update({ where: { id: svc.agent.agentId }, data: { reputation: 100 } });
    const recorded = () => db.reputationEvent.count({ where: { agentId: svc.agent.agentId } });
    const before = await recorded();
    await insertAttempts(
      svc,
      Date.now(),
      Array.from({ length: 20 }, (_, i): Attempt => ['success', 5, i]),
    );
    await fold();
    expect(await recorded()).toBe(before);
    expect((await db.agent.findUniqueOrThrow({ where: { id: svc.agent.agentId } })).reputation).toBe(100);
    await insertAttempts(
      svc,
      Date.now() + 100,
      Array.from({ length: 5 }, (_, i): Attempt => ['failure', 5, i]),
    );
    await fold();
    expect(await recorded()).toBe(before + 1);
    expect((await db.agent.findUniqueOrThrow({ where: { id: svc.agent.agentId } })).reputation).toBe(99);
  });

  it('folds past the attempts of a deleted service, however many are left unfolded', async () => {
    const gone = await offer(uniqueSlug('gone'), await provider(), 0);
    const kept = await offer(uniqueSlug('kept'), await provider(), 0);
    await fold();
    await ownFolds(async () => {
      // Queued before the deletion, ahead of the next calls.
      await insertAttempts(gone, Date.now() - 60_000, [
        ['success', 5, 0],
        ['success', 5, 1],
        ['failure', 5, 2],
      ]);
      await server.app.services.db.service.delete({ where: { id: gone.serviceId } });
      await insertAttempts(kept, Date.now(), [['success', 5, 0]]);
      // Rounds of three: the first takes the deleted service's three off the queue (left there, they would be
      // read by every round after, and a batch-full of them would stop the fold), the next gets to the others.
      expect(await server.app.services.providerStats.foldOnce(3)).toBe(3);
      expect(await server.app.services.providerStats.foldOnce(3)).toBe(1);
    });
    const { db } = server.app.services;
    expect(await db.attemptToFold.count({ where: { serviceId: { in: [gone.serviceId!, kept.serviceId!] } } })).toBe(0);
    expect((await db.service.findUniqueOrThrow({ where: { id: kept.serviceId } })).successCount).toBe(1);
  });

  it('folds the queue oldest first, in batches, its ids compared as numbers', async () => {
    const svc = await offer(uniqueSlug('order'), await provider(), 0);
    await fold();
    const { db } = server.app.services;
    await ownFolds(async () => {
      // The next ids are 9, 10, 11, 12: in text order 10 and 11 would come first.
      await db.$queryRawUnsafe(`SELECT setval(pg_get_serial_sequence('attempts_to_fold', 'id'), 8)`);
      await insertAttempts(svc, Date.now(), [
        ['success', 5, 0],
        ['success', 5, 1],
        ['failure', 5, 2],
        ['failure', 5, 3],
      ]);
      expect(await server.app.services.providerStats.foldOnce(2)).toBe(2);
      expect(await db.service.findUniqueOrThrow({ where: { id: svc.serviceId } })).toMatchObject({ successCount: 2, failureCount: 0 });
      expect(await server.app.services.providerStats.foldOnce(2)).toBe(2);
      expect(await db.service.findUniqueOrThrow({ where: { id: svc.serviceId } })).toMatchObject({ successCount: 2, failureCount: 2, consecutiveFailures: 2 });
    });
  });

  it('counts each attempt once when two folds read the same queue, the later one reading again', async () => {
    const svc = await offer(uniqueSlug('twice'), await provider(), 0);
    await fold();
    const { db } = server.app.services;
    const before = (await db.agent.findUniqueOrThrow({ where: { id: svc.agent.agentId } })).reputation;
    await ownFolds(async () => {
      await insertAttempts(
        svc,
        Date.now(),
        Array.from({ length: 10 }, (_, i): Attempt => ['success', 5, i]),
      );
      // Two folders, as two instances would be: both read the queue before either writes. The one that
      // writes second read five attempts and statistics that have moved since: written as read, they would
      // put the count back to 5; its statement writes nothing and it reads again, finding the queue empty.
      // Held in that order however the connections are scheduled: each folder's first read of the
      // statistics waits until the other's has been read too, and the five's first write waits for the ten's.
      const services = server.app.services;
      const signal = () => {
        let fire!: () => void;
        const fired = new Promise<void>((resolve) => (fire = resolve));
        return { fire, fired };
      };
      const [bothRead, tenWritten] = [signal(), signal()];
      let reads = 0;
      const held = (first: { writes?: boolean; waitsToWrite?: Promise<void> }): typeof services.sql => {
        let read = false;
        let wrote = false;
        return {
          ...services.sql,
          query: async <T>(text: string, params: unknown[], name?: string): Promise<T[]> => {
            const applying = name?.startsWith('fold_apply') && !wrote;
            if (applying) await first.waitsToWrite;
            const rows = await services.sql.query<T>(text, params, name).finally(() => {
              if (applying) {
                wrote = true;
                if (first.writes) tenWritten.fire();
              }
            });
            if (name === 'fold_read_services' && !read) {
              read = true;
              if (++reads === 2) bothRead.fire();
              await bothRead.fired;
            }
            return rows;
          },
        };
      };
      const [a, b] = [
        new ProviderStats({ ...services, sql: held({ writes: true }) }),
        new ProviderStats({ ...services, sql: held({ waitsToWrite: tenWritten.fired }) }),
      ];
      const counted = await Promise.all([a.foldOnce(10), b.foldOnce(5)]);
      expect(counted.sort()).toEqual([0, 10]);
    });
    const service = await db.service.findUniqueOrThrow({ where: { id: svc.serviceId } });
    expect(service).toMatchObject({ successCount: 10, failureCount: 0, latencyBuckets: [10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] });
    // Ten successes are a point, recorded once.
    const events = await db.reputationEvent.findMany({ where: { agentId: svc.agent.agentId, sourceType: 'provider_stats' } });
    expect(events.map((e) => e.delta)).toEqual(before < 100 ? [1] : []);
    expect((await db.agent.findUniqueOrThrow({ where: { id: svc.agent.agentId } })).reputation).toBe(Math.min(100, before + 1));
  });

  it('records executions in parallel with the folds that lock the provider and its service, never deadlocking', async () => {
    // The provider runs its own service, so each recorded execution references the rows a fold locks.
    const cap = uniqueSlug('busy');
    const p = await provider();
    const svc = await offer(cap, p, 0);
    const failed: unknown[] = [];
    for (let wave = 0; wave < 4; wave++) {
      const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => run(svc.agent.key, { capability: cap, input: { wave, i } })));
      failed.push(...answers.filter((a) => a.status !== 200 || a.body.status !== 'success').map((a) => ({ status: a.status, body: a.body })));
    }
    expect(failed).toEqual([]);
    await server.app.services.providerStats.settled();
    await server.app.services.providerStats.foldOnce();
    const service = await server.app.services.db.service.findUniqueOrThrow({ where: { id: svc.serviceId } });
    expect(service.successCount).toBe(60);
  });
});

describe('recording', () => {
  it('records calls answered together in shared statements, each with its attempts, transaction and event', async () => {
    const cap = uniqueSlug('together');
    const p = await provider('together');
    // Twelve calls answered at about the same moment: their records queue behind the two statements running.
    p.setDefault({ delayMs: 40 });
    const svc = await offer(cap, p, 0);
    const me = await registerPayingAgent(server);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, n) => run(me.key, { capability: cap, input: { n } })));
    expect(answers.map((a) => [a.status, a.body.status])).toEqual(Array(12).fill([200, 'success']));
    const ids = answers.map((a) => a.body.execution_id as string);
    const db = server.app.services.db;
    const executions = await db.execution.findMany({ where: { id: { in: ids } } });
    expect(executions).toHaveLength(12);
    for (const a of answers) {
      expect(executions.find((e) => e.id === a.body.execution_id)).toMatchObject({
        agentId: me.agentId,
        capability: cap,
        serviceId: svc.serviceId,
        status: 'success',
        input: a.body.result.echo,
        result: a.body.result,
        costCents: 0,
        mode: 'auto',
        createdAt: new Date(a.body.created_at),
      });
    }
    const attempts = await db.executionAttempt.findMany({ where: { executionId: { in: ids } } });
    expect(attempts.map((a) => [a.executionId, a.ordinal, a.serviceKey, a.outcome]).sort()).toEqual(ids.map((id) => [id, 1, svc.serviceKey, 'success']).sort());
    const transactions = await db.transaction.findMany({ where: { executionId: { in: ids } } });
    expect(transactions.map((t) => [t.id, t.executionId, t.kind, t.amountCents]).sort()).toEqual(
      answers.map((a) => [a.body.transaction.transaction_id, a.body.execution_id, 'charge', 0]).sort(),
    );
    const events = await db.outboxEvent.findMany({ where: { agentId: me.agentId, type: 'execution.succeeded' } });
    expect(events.map((e) => (e.data as { execution_id: string }).execution_id).sort()).toEqual([...ids].sort());
  });

  it('writes again, alone, each record of a statement the database refused, so that one bad record loses no other', async () => {
    const me = await registerPayingAgent(server);
    const record = (result: unknown) => batchRecord({ agent_id: me.agentId, result });
    // PostgreSQL refuses a NUL character in JSON text.
    const records = [record({ ok: 1 }), record({ text: 'a\u0000b' }), record({ ok: 3 })];
    const settled = await recordTogether(server.app.services.sql, 'free', records);
    expect(settled.map((s) => s.ok)).toEqual([true, false, true]);
    const db = server.app.services.db;
    expect((await db.execution.findMany({ where: { id: { in: records.map((r) => r.id) } } })).map((e) => e.id).sort()).toEqual(
      [records[0].id, records[2].id].sort(),
    );
  });

  it('takes an answer the marketplace cannot store (a NUL character, nesting past 32 levels) for invalid JSON, and falls back', async () => {
    const cap = uniqueSlug('unstorable');
    const [nul, deep, good] = [await provider('nul'), await provider('deep'), await provider('good')];
    nul.setDefault({ body: '{"text":"a\\u0000b"}' });
    deep.setDefault({ body: `${'['.repeat(40)}1${']'.repeat(40)}` });
    await offer(cap, nul, 0);
    await offer(cap, deep, 10);
    await offer(cap, good, 20);
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: {} });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', result: { served_by: 'good' } });
    expect(res.body.attempts.map((a: any) => [a.outcome, a.reason])).toEqual([
      ['failure', 'invalid_json'],
      ['failure', 'invalid_json'],
      ['success', null],
    ]);
  });
});

describe('the ledger without foreign keys to agents and services', () => {
  it('clears the service of executions and attempts when a service is deleted, and deletes an agent’s executions with it', async () => {
    const cap = uniqueSlug('ledger');
    const p = await provider();
    const svc = await offer(cap, p, 0);
    const me = await registerPayingAgent(server);
    const res = await run(me.key, { capability: cap, input: {} });
    expect(res.body.status).toBe('success');
    const db = server.app.services.db;
    await db.service.delete({ where: { id: svc.serviceId } });
    expect(await db.execution.findUniqueOrThrow({ where: { id: res.body.execution_id } })).toMatchObject({ serviceId: null });
    expect(await db.executionAttempt.findMany({ where: { executionId: res.body.execution_id } })).toEqual([
      expect.objectContaining({ serviceId: null, serviceKey: svc.serviceKey }),
    ]);
    await db.agent.delete({ where: { id: me.agentId } });
    expect(await db.execution.findUnique({ where: { id: res.body.execution_id } })).toBeNull();
    expect(await db.executionAttempt.count({ where: { executionId: res.body.execution_id } })).toBe(0);
    // The charge stays in the ledger, detached from the execution, as a foreign key's SET NULL left it.
    expect(await db.transaction.findUniqueOrThrow({ where: { id: res.body.transaction.transaction_id } })).toMatchObject({ executionId: null });
  });
});

describe('Mutation.execute', () => {
  it('runs the same operation', async () => {
    const cap = uniqueSlug('gqlexec');
    const p = await provider('gql');
    await offer(cap, p, 3);
    const me = await registerPayingAgent(server);
    const res = await gql(
      server,
      'mutation($i: ExecuteInput!) { execute(input: $i) { status result transaction { costCents } attempts { outcome } } }',
      { i: { capability: cap, input: { a: 1 } } },
      me.key,
    );
    expect(res.body.data!.execute).toEqual({
      status: 'success',
      result: { served_by: 'gql', echo: { a: 1 } },
      transaction: { costCents: 3 },
      attempts: [{ outcome: 'success' }],
    });
  });
});

describe('the account listings, filled', () => {
  it('shows executions, transactions and analytics: trends, top capabilities, cost breakdown, latency', async () => {
    const [capA, capB] = [uniqueSlug('ana'), uniqueSlug('anb')];
    const [pa, pb] = [await provider('a'), await provider('b')];
    pb.setDefault({ status: 500 });
    await offer(capA, pa, 4);
    await offer(capB, pb, 9);
    const me = await registerPayingAgent(server);
    await run(me.key, { capability: capA, input: {} });
    await run(me.key, { capability: capA, input: {} });
    await run(me.key, { capability: capB, input: {} });
    const analytics = (await call('GET', '/my/analytics', { key: me.key })).body;
    expect(analytics.trends).toEqual([{ day: clock.now().toISOString().slice(0, 10), executions: 3, succeeded: 2, failed: 1, cost_cents: 8 }]);
    expect(analytics.top_capabilities).toEqual([
      { capability: capA, executions: 2, cost_cents: 8 },
      { capability: capB, executions: 1, cost_cents: 0 },
    ]);
    expect(analytics.cost_breakdown[0]).toEqual({ capability: capA, executions: 2, cost_cents: 8 });
    expect(analytics.total_cost_cents).toBe(8);
    expect(analytics.performance).toMatchObject({
      executions: 3,
      success_rate: 0.6667,
      p50_ms: expect.any(Number),
      p95_ms: expect.any(Number),
      p99_ms: expect.any(Number),
    });
    const history = await gql(
      server,
      '{ myExecutions(first: 10) { totalCount nodes { capability status mode attempts { serviceKey outcome reason } } } }',
      undefined,
      me.key,
    );
    expect(history.body.data!.myExecutions.totalCount).toBe(3);
    // (The fake clock stands still here, so the three share one creation time.)
    expect(history.body.data!.myExecutions.nodes.find((n: any) => n.capability === capB)).toMatchObject({
      status: 'error',
      mode: 'auto',
      attempts: [{ outcome: 'failure', reason: 'http_500' }],
    });
  });
});
