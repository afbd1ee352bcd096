// Spend mandates (docs/payments.md, Spend mandates): an agent lets a sub-agent pay for its calls from the agent's
// wallet, within caps per call, per day and per month. Calls racing against a cap never overrun it; the alerts at 50,
// 80 and 100 % are sent once each; the report reads the counter the enforcement reads. The ledger audit holds after each.
import { expectLedgerAudited, fund } from '../support/payments';
import { api, registerAgent, registerService, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { expectProblem, within } from '../support/expect';
import { createClient as createSseClient } from 'graphql-sse';

let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Provider;

beforeAll(async () => {
  assertTestCaTrusted();
  provider = await startProvider('mandates');
  // Wallets open empty: a sub-agent has nothing of its own, so every call it pays is its grantor's money.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', SANDBOX_STARTING_BALANCE: '0', DISPUTE_WINDOW_SECONDS: '0' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await provider.close();
});

/** A funded agent with a sub-agent (and the sub-agent's own sub-agent), and a seller of a fresh capability at `cents`. */
async function family(cents = 10) {
  const capability = uniqueSlug('mandate');
  const seller = await registerAgent(server);
  await registerService(server, seller.key, { endpoint: provider.url, capabilities: [capability], pricing_model: 'per_call', cost_per_call: cents });
  const owner = await registerAgent(server);
  await fund(server, owner.key, '5');
  const subAgent = async (parentId: string) => {
    const res = await call('POST', `/agents/${parentId}/sub-agents`, {
      key: owner.key,
      body: { name: uniqueName('sub'), description: 'A helper', autonomyLevel: 'CREATE', authorityScope: [] },
    });
    expect(res.status).toBe(201);
    return { key: res.body.master_key as string, agentId: res.body.id as string };
  };
  const sub = await subAgent(owner.agentId);
  const subSub = await subAgent(sub.agentId);
  return { capability, seller, owner, sub, subSub };
}

const grant = (key: string, body: Record<string, unknown>) => call('POST', '/mandates', { key, body });
const wallet = async (agent: { agentId: string; key: string }) => (await call('GET', `/agents/${agent.agentId}/wallet`, { key: agent.key })).body;

describe('granting a mandate', () => {
  it('grants one to a sub-agent at any depth, read by either side, not by anyone else', async () => {
    const { owner, sub, subSub } = await family();
    const res = await grant(owner.key, { agent_id: subSub.agentId, daily_cents: 100, per_call_cents: 20, capabilities: ['mandate'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      grantor_id: owner.agentId,
      agent_id: subSub.agentId,
      per_call_cents: 20,
      daily_cents: 100,
      monthly_cents: null,
      capabilities: ['mandate'],
      in_force: true,
      revoked_at: null,
      today: { period: 'day', cap_cents: 100, spent_cents: 0, held_cents: 0, calls: 0, remaining_cents: 100, alerted: [] },
      this_month: { period: 'month', cap_cents: null, spent_cents: 0, remaining_cents: null },
    });
    const id = res.body.mandate_id as string;
    expect((await call('GET', `/mandates/${id}`, { key: subSub.key })).body.mandate_id).toBe(id);
    expect((await call('GET', '/mandates?role=held', { key: subSub.key })).body).toMatchObject({ total: 1, mandates: [{ mandate_id: id }] });
    expect((await call('GET', '/mandates', { key: owner.key })).body).toMatchObject({ total: 1, mandates: [{ mandate_id: id }] });
    // Its parent sub-agent did not grant it and does not hold it; a stranger neither.
    expectProblem(await call('GET', `/mandates/${id}`, { key: sub.key }), 404, 'not_found');
    const stranger = await registerAgent(server);
    expectProblem(await call('GET', `/mandates/${id}`, { key: stranger.key }), 404, 'not_found');
    // Only its grantor changes or revokes it.
    expectProblem(await call('DELETE', `/mandates/${id}`, { key: subSub.key }), 404, 'not_found');
  });

  it('refuses a mandate without a cap, to the caller itself, to another agent, or beside one in force', async () => {
    const { owner, sub } = await family();
    expectProblem(await grant(owner.key, { agent_id: sub.agentId }), 400, 'validation_failed');
    const self = await grant(owner.key, { agentId: owner.agentId, dailyCents: 10 });
    expectProblem(self, 400, 'validation_failed');
    expect(self.body.errors[0].path).toBe('agentId');
    const stranger = await registerAgent(server);
    expectProblem(await grant(owner.key, { agent_id: stranger.agentId, daily_cents: 10 }), 404, 'not_found');
    expect((await grant(owner.key, { agent_id: sub.agentId, monthly_cents: 10 })).status).toBe(201);
    expectProblem(await grant(owner.key, { agent_id: sub.agentId, monthly_cents: 10 }), 409, 'conflict');
    const zero = await grant(owner.key, { agent_id: sub.agentId, daily_cents: 0 });
    expectProblem(zero, 400, 'validation_failed');
    expect(zero.body.errors[0].path).toBe('daily_cents');
  });
});

describe('paying under a mandate', () => {
  it("pays a sub-agent's calls from its grantor's wallet and says what the mandate has left", async () => {
    const { capability, owner, sub } = await family(10);
    const id = (await grant(owner.key, { agent_id: sub.agentId, daily_cents: 100, monthly_cents: 1000 })).body.mandate_id;
    const before = await wallet(owner);
    const res = await call('POST', '/execute', { key: sub.key, body: { capability, input: { n: 1 } } });
    expect(res.status).toBe(200);
    expect(res.body.payment).toMatchObject({
      method: 'prepaid',
      charged_cents: 10,
      wallet_address: before.wallet_address,
      mandate: { mandate_id: id, grantor_id: owner.agentId, per_call_cents: null, remaining_today_cents: 90, remaining_this_month_cents: 990 },
    });
    expect(BigInt((await wallet(owner)).balance_base_units)).toBe(BigInt(before.balance_base_units) - 100_000n);
    expect((await wallet(sub)).balance_base_units ?? '0').toBe('0');
    const report = (await call('GET', `/mandates/${id}`, { key: owner.key })).body;
    expect(report.today).toMatchObject({ spent_cents: 10, calls: 1, held_cents: 0, remaining_cents: 90 });
    expect(report.this_month).toMatchObject({ spent_cents: 10, calls: 1, remaining_cents: 990 });
    // The signed receipt names the mandate and who paid, read again or not.
    const again = await call('GET', `/executions/${res.body.execution_id}/receipt`, { key: sub.key });
    expect(again.status).toBe(200);
    expect(again.body.claims.receipt.payment).toMatchObject({ mandate_id: id, paid_by: owner.agentId });
    expect(again.body.signed_receipt).toBe(res.body.signed_receipt);
    await expectLedgerAudited(server);
  });

  it('lets exactly 10 of 50 racing calls through a 10-call daily mandate, and sends each alert once', async () => {
    const { capability, owner, sub } = await family(10);
    const id = (await grant(owner.key, { agent_id: sub.agentId, daily_cents: 100 })).body.mandate_id as string;
    const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => call('POST', '/execute', { key: sub.key, body: { capability, input: { n } } })));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(10);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expectProblem(refused, 402, 'payment_required');
      expect(refused.body.detail).toMatch(new RegExp(`mandate ${id} has \\d+ of its 100 cents left today`));
    }
    expect(ok.map((a) => a.body.payment.charged_cents)).toEqual(Array(10).fill(10));
    const report = (await call('GET', `/mandates/${id}`, { key: sub.key })).body;
    expect(report.today).toMatchObject({ spent_cents: 100, calls: 10, held_cents: 0, remaining_cents: 0, alerted: [50, 80, 100] });
    // The provider was called for the ten paid calls only.
    const alerts = await server.app.services.db.outboxEvent.findMany({ where: { type: 'mandate.threshold_reached' } });
    const mine = alerts.filter((e) => (e.data as { mandate_id: string }).mandate_id === id);
    const seen = mine.map((e) => `${e.agentId} ${(e.data as { threshold_percent: number }).threshold_percent}`).sort();
    expect(seen).toEqual([owner.agentId, sub.agentId].flatMap((who) => [50, 80, 100].map((p) => `${who} ${p}`)).sort());
    expect(mine.every((e) => (e.data as { period: string }).period === 'day')).toBe(true);
    await expectLedgerAudited(server);
  });

  it('passes over providers priced above its per-call cap, and is 402 when nobody is under it', async () => {
    const { capability, owner, sub } = await family(30);
    const id = (await grant(owner.key, { agent_id: sub.agentId, per_call_cents: 20 })).body.mandate_id as string;
    const refused = await call('POST', '/execute', { key: sub.key, body: { capability, input: {} } });
    expectProblem(refused, 402, 'payment_required');
    expect(refused.body.detail).toContain(`mandate ${id} pays a call`);
    const cheap = await registerAgent(server);
    await registerService(server, cheap.key, { endpoint: provider.url, capabilities: [capability], pricing_model: 'per_call', cost_per_call: 15 });
    const res = await call('POST', '/execute', { key: sub.key, body: { capability, input: {} } });
    expect(res.status).toBe(200);
    expect(res.body.payment.charged_cents).toBe(15);
    expect(res.body.routing.skipped).toEqual([expect.objectContaining({ reason: 'over_max_cost', detail: expect.stringContaining(`mandate ${id}`) })]);
    await expectLedgerAudited(server);
  });

  it('pays a task its sub-agent was delegated, counted against the task budget and the mandate both', async () => {
    const { capability, owner, sub } = await family(10);
    const id = (await grant(owner.key, { agent_id: sub.agentId, daily_cents: 25 })).body.mandate_id as string;
    const task = (await call('POST', '/tasks', { key: owner.key, body: { intent: 'Run it under a mandate', budget: 100 } })).body;
    expect((await call('POST', `/tasks/${task.task_id}/delegate`, { key: owner.key, body: { sub_agent_id: sub.agentId } })).status).toBe(200);
    const run = () => call('POST', '/execute', { key: sub.key, body: { capability, input: {}, task_id: task.task_id } });
    const first = await run();
    expect(first.status).toBe(200);
    expect(first.body.payment.mandate).toMatchObject({ mandate_id: id, remaining_today_cents: 15 });
    expect((await run()).body.payment.mandate).toMatchObject({ remaining_today_cents: 5 });
    // The mandate's day has 5 cents left: the third call is refused before anything is charged.
    expectProblem(await run(), 402, 'payment_required');
    expect((await call('GET', `/tasks/${task.task_id}`, { key: owner.key })).body).toMatchObject({ spent: 20, budget_remaining: 80 });
    expect((await call('GET', `/mandates/${id}`, { key: owner.key })).body.today).toMatchObject({ spent_cents: 20, calls: 2, held_cents: 0 });
    await expectLedgerAudited(server);
  });

  it("stops paying once revoked or for capabilities it does not cover: the sub-agent's own wallet pays", async () => {
    const { capability, owner, sub } = await family(10);
    const id = (await grant(owner.key, { agent_id: sub.agentId, daily_cents: 100, capabilities: ['other'] })).body.mandate_id as string;
    // Not covered: the sub-agent pays, and has nothing.
    expectProblem(await call('POST', '/execute', { key: sub.key, body: { capability, input: {} } }), 402, 'payment_required');
    expect((await call('PATCH', `/mandates/${id}`, { key: owner.key, body: { capabilities: [] } })).status).toBe(200);
    expect((await call('POST', '/execute', { key: sub.key, body: { capability, input: {} } })).status).toBe(200);
    expect((await call('DELETE', `/mandates/${id}`, { key: owner.key })).body).toMatchObject({ in_force: false, revoked_at: expect.any(String) });
    expectProblem(await call('DELETE', `/mandates/${id}`, { key: owner.key }), 409, 'conflict');
    expectProblem(await call('POST', '/execute', { key: sub.key, body: { capability, input: {} } }), 402, 'payment_required');
    // A new one can be granted once the last is revoked.
    expect((await grant(owner.key, { agent_id: sub.agentId, daily_cents: 50 })).status).toBe(201);
    await expectLedgerAudited(server);
  });

  it('alerts its sub-agent on the GraphQL subscription mandateAlerts, each threshold of each period once', async () => {
    const { capability, owner, sub } = await family(25);
    const id = (await grant(owner.key, { agent_id: sub.agentId, daily_cents: 100, monthly_cents: 1000 })).body.mandate_id as string;
    const sse = createSseClient({ url: `${server.url}/graphql/stream`, headers: { authorization: `Bearer ${sub.key}` }, retryAttempts: 0 });
    const seen: { type: string; data: Record<string, unknown> }[] = [];
    const dispose = sse.subscribe<{ mandateAlerts: { type: string; data: Record<string, unknown> } }>(
      { query: 'subscription($m: ID) { mandateAlerts(mandateId: $m) { type data } }', variables: { m: id } },
      { next: (r) => void (r.data && seen.push(r.data.mandateAlerts)), error: () => {}, complete: () => {} },
    );
    try {
      await within(5_000, async () => server.app.services.events.openStreams > 0);
      // 25, 50, 75, 100 of a daily 100: 50 % at the second call, 80 % and 100 % at the fourth; a fifth is refused.
      for (let n = 0; n < 4; n++) expect((await call('POST', '/execute', { key: sub.key, body: { capability, input: { n } } })).status).toBe(200);
      expectProblem(await call('POST', '/execute', { key: sub.key, body: { capability, input: { n: 5 } } }), 402, 'payment_required');
      await within(5_000, async () => seen.length >= 3);
      expect(seen.map((e) => [e.type, e.data.period, e.data.threshold_percent, e.data.spent_cents])).toEqual([
        ['mandate.threshold_reached', 'day', 50, 50],
        ['mandate.threshold_reached', 'day', 80, 100],
        ['mandate.threshold_reached', 'day', 100, 100],
      ]);
      expect(seen[0].data).toMatchObject({ mandate_id: id, grantor_id: owner.agentId, agent_id: sub.agentId, cap_cents: 100 });
    } finally {
      dispose();
      sse.dispose();
    }
    await expectLedgerAudited(server);
  });
});
