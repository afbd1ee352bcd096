// Disputes (spec §4.4, §4.15): both request forms, the pipeline that refunds through the ledger and
// resolves what the records prove (every attempt failed; a charge other than the price) and sends the
// rest to review, administrator resolution with 409 for illegal moves, and revenue from the ledger.
import { api, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { registerPayingAgent } from '../support/payments';
import { errorPaths, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';

const ADMIN_KEY = `key_admin_${'D'.repeat(40)}`;
let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '30000' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

/** A provider of a fresh capability at `cost`, and a consumer who executed it once. */
async function executed(cost: number, answer: 'ok' | 'fail' = 'ok') {
  const p = await startProvider();
  providers.push(p);
  if (answer === 'fail') p.setDefault({ status: 500 });
  const cap = uniqueSlug('disp');
  const provider = await registerAgent(server);
  const svc = await call('POST', '/services/register', {
    key: provider.key,
    body: {
      name: 'Disputed',
      endpoint: p.url,
      capabilities: [cap],
      description: 'A service to dispute',
      pricing_model: cost ? 'per_call' : 'free',
      cost_per_call: cost,
    },
  });
  const consumer = await registerPayingAgent(server);
  const res = await call('POST', '/execute', { key: consumer.key, body: { capability: cap, input: {} } });
  return {
    provider,
    consumer,
    serviceId: svc.body.service_id as string,
    execution: res.body,
    transactionId: res.body.transaction.transaction_id as string,
    capability: cap,
  };
}

async function settle(disputeId: string, key: string) {
  await server.app.services.disputes.settled();
  await server.app.services.disputes.settled();
  return (await call('GET', `/disputes/${disputeId}`, { key })).body;
}

describe('form A: a service', () => {
  it('opens a dispute about a service, which goes to review', async () => {
    const { consumer, serviceId } = await executed(0);
    const res = await call('POST', '/disputes', {
      key: consumer.key,
      body: { serviceId, type: 'quality', description: 'Answers are nonsense', evidence: { sample: 'lorem' } },
    });
    expect(res.status).toBe(201);
    // A newcomer's dispute: no priority resolution (tiers.test.ts has a Contributor's).
    expect(res.body).toEqual({ dispute_id: expect.any(String), status: 'open', form: 'service', priority_resolution: false, created_at: expect.any(String) });
    const settled = await settle(res.body.dispute_id, consumer.key);
    expect(settled).toMatchObject({
      status: 'under_review',
      resolved: false,
      resolved_by: null,
      form: 'service',
      type: 'quality',
      reason: null,
      evidence: { sample: 'lorem' },
      service_id: serviceId,
      refund_cents: 0,
      resolution: null,
    });
    const mine = await call('GET', '/my/disputes', { key: consumer.key });
    expect(mine.body.disputes[0]).toMatchObject({ dispute_id: res.body.dispute_id, status: 'under_review' });
  });

  it('names each bad field, and answers 404 for an unknown service', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/disputes', { key: me.key, body: { type: 'weather', evidence: [1] } });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['description', 'evidence', 'serviceId', 'type']);
    expectProblem(
      await call('POST', '/disputes', { key: me.key, body: { serviceId: '00000000-0000-4000-8000-000000000000', type: 'billing', description: 'x' } }),
      404,
      'not_found',
    );
  });
});

describe('form B: a transaction', () => {
  it('resolves a dispute about an execution whose attempts all failed: nothing charged, nothing refunded', async () => {
    const { consumer, transactionId, execution } = await executed(20, 'fail');
    expect(execution.status).toBe('error');
    const res = await call('POST', '/disputes', { key: consumer.key, body: { transaction_id: transactionId, reason: 'service_failure' } });
    expect(res.status).toBe(201);
    const settled = await settle(res.body.dispute_id, consumer.key);
    expect(settled).toMatchObject({ status: 'resolved', resolved_by: 'pipeline', refund_cents: 0, form: 'transaction', transaction_id: transactionId });
    expect(settled.resolution).toMatch(/nothing to refund/);
  });

  it('refunds a charge for an execution whose attempts all failed, and costs the provider reputation', async () => {
    const { consumer, provider, transactionId } = await executed(20, 'fail');
    // A charge that should never have been made (as a billing fault would leave it).
    await server.app.services.db.transaction.update({ where: { id: transactionId }, data: { amountCents: 20 } });
    const res = await call('POST', '/disputes', {
      key: consumer.key,
      body: { transaction_id: transactionId, reason: 'billing_error', description: 'Charged for nothing' },
    });
    const settled = await settle(res.body.dispute_id, consumer.key);
    expect(settled).toMatchObject({ status: 'resolved', resolved_by: 'pipeline', refund_cents: 20 });
    const ledger = await call('GET', '/my/transactions', { key: consumer.key });
    expect(ledger.body.transactions.map((t: any) => [t.kind, t.amount_cents])).toEqual([
      ['refund', -20],
      ['charge', 20],
    ]);
    const rep = await call('GET', '/my/reputation', { key: provider.key });
    expect(rep.body.reputation).toBe(18);
    expect(rep.body.events[0]).toMatchObject({ delta: -2, source_type: 'dispute', source_id: res.body.dispute_id });
    // Both parties heard of it.
    const events = await server.app.services.db.outboxEvent.findMany({
      where: { type: { startsWith: 'dispute.' }, data: { path: ['dispute_id'], equals: res.body.dispute_id } },
    });
    expect(events.map((e) => `${e.type}:${e.agentId === consumer.agentId ? 'consumer' : 'provider'}`).sort()).toEqual([
      'dispute.created:consumer',
      'dispute.created:provider',
      'dispute.resolved:consumer',
      'dispute.resolved:provider',
    ]);
  });

  it("refunds what a charge exceeds the provider's price by", async () => {
    const { consumer, transactionId } = await executed(10);
    await server.app.services.db.transaction.update({ where: { id: transactionId }, data: { amountCents: 25 } });
    const res = await call('POST', '/disputes', { key: consumer.key, body: { transaction_id: transactionId, reason: 'billing_error' } });
    const settled = await settle(res.body.dispute_id, consumer.key);
    expect(settled).toMatchObject({ status: 'resolved', refund_cents: 15 });
    expect(settled.resolution).toMatch(/Charged 25 cents for a call priced at 10/);
  });

  it('sends a dispute the records do not decide to review', async () => {
    const { consumer, transactionId } = await executed(10);
    const res = await call('POST', '/disputes', {
      key: consumer.key,
      body: { transaction_id: transactionId, reason: 'provider_error', description: 'Wrong answer' },
    });
    expect((await settle(res.body.dispute_id, consumer.key)).status).toBe('under_review');
  });

  it('answers 404 for another agent’s transaction and 409 for a second dispute of one transaction', async () => {
    const { consumer, transactionId } = await executed(0);
    const stranger = await registerAgent(server);
    expectProblem(await call('POST', '/disputes', { key: stranger.key, body: { transaction_id: transactionId, reason: 'other' } }), 404, 'not_found');
    const first = await call('POST', '/disputes', { key: consumer.key, body: { transaction_id: transactionId, reason: 'other' } });
    expect(first.status).toBe(201);
    expectProblem(await call('POST', '/disputes', { key: consumer.key, body: { transaction_id: transactionId, reason: 'other' } }), 409, 'conflict');
    expect(errorPaths(await call('POST', '/disputes', { key: consumer.key, body: { transaction_id: 'nope', reason: 'bored' } }))).toEqual([
      'reason',
      'transaction_id',
    ]);
    expectProblem(await call('GET', `/disputes/${first.body.dispute_id}`, { key: stranger.key }), 404, 'not_found');
  });
});

describe('administration', () => {
  it('lists disputes for review, resolves one with a refund, and refuses to resolve it twice', async () => {
    const { consumer, transactionId } = await executed(40);
    const opened = await call('POST', '/disputes', { key: consumer.key, body: { transaction_id: transactionId, reason: 'provider_error' } });
    await settle(opened.body.dispute_id, consumer.key);
    const queue = await call('GET', '/admin/disputes?status=under_review&limit=100', { key: ADMIN_KEY });
    expect(queue.body.disputes.map((d: any) => d.dispute_id)).toContain(opened.body.dispute_id);
    const tooMuch = await call('PATCH', `/admin/disputes/${opened.body.dispute_id}/resolve`, {
      key: ADMIN_KEY,
      body: { resolution: 'Refunding', refund_cents: 41 },
    });
    expectProblem(tooMuch, 409, 'conflict');
    expect(errorPaths(await call('PATCH', `/admin/disputes/${opened.body.dispute_id}/resolve`, { key: ADMIN_KEY, body: {} }))).toEqual(['resolution']);
    const resolved = await call('PATCH', `/admin/disputes/${opened.body.dispute_id}/resolve`, {
      key: ADMIN_KEY,
      body: { resolution: 'Half refunded', refund_cents: 20 },
    });
    expect(resolved.status).toBe(200);
    // `resolved` is a flag like every other of the spec (it answered "admin" before); who resolved it is its own field.
    expect(resolved.body).toMatchObject({
      resolved: true,
      resolved_by: 'admin',
      dispute_id: opened.body.dispute_id,
      status: 'resolved',
      resolution: 'Half refunded',
      refund_cents: 20,
    });
    const read = await call('GET', `/disputes/${opened.body.dispute_id}`, { key: consumer.key });
    expect(read.body).toMatchObject({ resolved: true, resolved_by: 'admin', form: 'transaction', reason: 'provider_error', type: null });
    expectProblem(await call('PATCH', `/admin/disputes/${opened.body.dispute_id}/resolve`, { key: ADMIN_KEY, body: { resolution: 'Again' } }), 409, 'conflict');
    expectProblem(
      await call('PATCH', '/admin/disputes/00000000-0000-4000-8000-000000000000/resolve', { key: ADMIN_KEY, body: { resolution: 'x' } }),
      404,
      'not_found',
    );
    expect(errorPaths(await call('GET', '/admin/disputes?status=lost', { key: ADMIN_KEY }))).toEqual(['status']);
  });

  it('reports revenue from the ledger: charges less refunds, by day and capability', async () => {
    const before = (await call('GET', '/admin/revenue', { key: ADMIN_KEY })).body;
    const { consumer, transactionId, capability } = await executed(30);
    await call('POST', '/execute', { key: consumer.key, body: { capability, input: {} } });
    await server.app.services.db.transaction.update({ where: { id: transactionId }, data: { amountCents: 50 } });
    const opened = await call('POST', '/disputes', { key: consumer.key, body: { transaction_id: transactionId, reason: 'billing_error' } });
    await settle(opened.body.dispute_id, consumer.key);
    const after = (await call('GET', '/admin/revenue?days=7', { key: ADMIN_KEY })).body;
    expect(after.days).toBe(7);
    expect(after.totals.gross_cents - before.totals.gross_cents).toBe(80);
    expect(after.totals.refunds_cents - before.totals.refunds_cents).toBe(20);
    expect(after.totals.net_cents).toBe(after.totals.gross_cents - after.totals.refunds_cents);
    expect(after.by_capability.find((c: any) => c.capability === capability)).toEqual({
      capability,
      gross_cents: 80,
      refunds_cents: 20,
      net_cents: 60,
      executions: 2,
    });
    expect(after.by_day.at(-1)).toMatchObject({ day: new Date().toISOString().slice(0, 10) });
    expect(errorPaths(await call('GET', '/admin/revenue?days=0', { key: ADMIN_KEY }))).toEqual(['days']);
  });
});
