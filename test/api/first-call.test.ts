// A new user's first calls (issue 35): on a fresh server in sandbox mode (the default) an agent's wallet
// opens at its first need — a priced call, a test payment, a task or a swarm — credited the starting
// balance once, through the ledger as a faucet transfer; every paid answer says what it cost and what is
// left, and a spent balance is 402 naming the faucet. With a remote facilitator (live mode) wallets open
// empty and a new agent's priced call is 402, as before.
import { api, gql, registerAgent, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';
import { eventually, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { startFacilitator, type TestFacilitator } from '../support/facilitator';
import { ACCOUNTS } from '../../src/domain/payments/setup';
import { STARTING_BALANCE_REFERENCE } from '../../src/domain/payments/ledger';

let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Provider;

beforeAll(async () => {
  assertTestCaTrusted();
  provider = await startProvider('first-call');
  // Nothing about money is configured: the defaults are what a new user gets.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '30000' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await provider.close();
});

/** A new agent offering a new capability at `cents` per call, on the local HTTPS provider. */
async function pricedCapability(cents: number) {
  const seller = await registerAgent(server);
  const capability = uniqueSlug('first');
  const res = await call('POST', '/services/register', {
    key: seller.key,
    body: {
      name: 'A priced service',
      endpoint: provider.url,
      capabilities: [capability],
      description: 'Answers for a price',
      pricing_model: 'per_call',
      cost_per_call: cents,
    },
  });
  expect(res.status).toBe(201);
  return { seller, capability };
}

const execute = (key: string, capability: string, input: Record<string, unknown> = {}) => call('POST', '/execute', { key, body: { capability, input } });

/** The ledger entries that credited an agent's starting balance. */
async function startingCredits(agentId: string) {
  const db = server.app.services.db;
  const wallet = await db.wallet.findUniqueOrThrow({ where: { agentId } });
  return db.walletEntry.findMany({ where: { walletId: wallet.id, reference: STARTING_BALANCE_REFERENCE } });
}

/** Every transfer sums to zero, and every agent wallet's balance is the sum of its entries. */
async function expectLedgerBalanced() {
  const db = server.app.services.db;
  const byTransfer = await db.walletEntry.groupBy({ by: ['transferId'], _sum: { amount: true } });
  expect(byTransfer.filter((t) => t._sum.amount !== 0n)).toEqual([]);
  const sums = new Map((await db.walletEntry.groupBy({ by: ['walletId'], _sum: { amount: true } })).map((g) => [g.walletId, g._sum.amount ?? 0n]));
  for (const w of await db.wallet.findMany({ where: { account: 'agent' } }))
    expect({ wallet: w.id, balance: w.balance }).toEqual({ wallet: w.id, balance: sums.get(w.id) ?? 0n });
}

describe('a new agent in sandbox mode', () => {
  it('says what a wallet starts with: the faucet cap by default', async () => {
    const status = await call('GET', '/x402/sandbox/status');
    expect(status.body).toMatchObject({ sandbox: true, faucet_cap: '10.000000', starting_balance: '10.000000', starting_balance_base_units: '10000000' });
  });

  it('registers, calls a priced service and is charged from its starting balance, the answer saying what is left', async () => {
    const { seller, capability } = await pricedCapability(3);
    const me = await registerAgent(server);
    const before = provider.calls.length;
    const res = await execute(me.key, capability, { text: 'hello' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'success',
      result: { served_by: 'first-call', echo: { text: 'hello' } },
      transaction: { cost_cents: 3 },
      payment: {
        method: 'prepaid',
        wallet_address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
        charged: '0.030000',
        charged_cents: 3,
        balance_after: '9.970000',
        balance_after_base_units: '9970000',
        x402: null,
      },
    });
    expect(provider.calls.length - before).toBe(1);
    // The wallet it now has: opened with the starting balance, a faucet transfer, and charged the price.
    const wallet = await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(wallet.body).toMatchObject({ wallet_address: res.body.payment.wallet_address, balance: '9.970000', key_custody: 'marketplace' });
    const entries = (await call('GET', `/agents/${me.agentId}/wallet/entries`, { key: me.key })).body.entries;
    expect(entries.map((e: { kind: string; amount: string; reference: string }) => [e.kind, e.amount, e.reference])).toEqual([
      ['charge', '-0.030000', expect.any(String)],
      ['faucet', '10.000000', STARTING_BALANCE_REFERENCE],
    ]);
    const mine = await server.app.services.db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } });
    const sides = await server.app.services.db.walletEntry.findMany({ where: { transferId: entries[1].transfer_id }, orderBy: { amount: 'asc' } });
    expect(sides.map((e) => [e.walletId, e.amount])).toEqual([
      [ACCOUNTS.faucet, -10_000_000n],
      [mine.id, 10_000_000n],
    ]);
    // The seller was paid into a wallet of its own, which opened with a starting balance too.
    expect((await call('GET', `/agents/${seller.agentId}/wallet`, { key: seller.key })).body.balance).toBe('10.027000');
    await expectLedgerBalanced();
  });

  it("makes a new agent's test payment with no other step: 200, simulated", async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/x402/sandbox/test-payment', { key: me.key, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      simulated: true,
      amount: '0.010000',
      balance_before: '10.000000',
      balance_after: '10.000000',
      settlement: { success: true },
    });
    expect(await startingCredits(me.agentId)).toHaveLength(1);
  });

  it('answers 402 naming the faucet once the balance is spent, and the faucet refills it', async () => {
    // Ten dollars a call: the starting balance pays for exactly one.
    const { capability } = await pricedCapability(1000);
    const me = await registerAgent(server);
    const first = await execute(me.key, capability);
    expect(first.status).toBe(200);
    expect(first.body.payment).toMatchObject({ charged: '10.000000', balance_after: '0.000000' });
    const before = provider.calls.length;
    const spent = await execute(me.key, capability);
    expectProblem(spent, 402, 'payment_required');
    expect(spent.body.detail).toContain('POST /api/v1/x402/sandbox/faucet');
    expect(spent.body.detail).toContain('0.000000 USDC available');
    expect(spent.body.detail).not.toMatch(/no wallet/);
    expect(spent.body.accepts[0]).toMatchObject({ scheme: 'exact', amount: '10000000' });
    expect(provider.calls.length).toBe(before);
    const refill = await call('POST', '/x402/sandbox/faucet', { key: me.key, body: {} });
    expect(refill.body).toMatchObject({ credited: true, amount: '10.000000', balance: '10.000000' });
    expect((await execute(me.key, capability)).status).toBe(200);
    expect(await startingCredits(me.agentId)).toHaveLength(1);
  });

  it('credits the starting balance once when first calls of every kind arrive together', async () => {
    const { capability } = await pricedCapability(3);
    const me = await registerAgent(server);
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => execute(me.key, capability)),
      ...Array.from({ length: 3 }, () => call('POST', '/x402/sandbox/test-payment', { key: me.key, body: {} })),
      call('POST', '/x402/sandbox/faucet', { key: me.key, body: {} }),
      call('POST', `/agents/${me.agentId}/wallet`, { key: me.key }),
    ]);
    expect(answers.slice(0, 12).map((a) => a.status)).toEqual(Array(12).fill(200));
    expect([201, 409]).toContain(answers[12].status);
    expect(await startingCredits(me.agentId)).toHaveLength(1);
    // Eight calls at 3 cents from 10 USDC; the test payments are credited back; the faucet found the wallet
    // at its cap, or topped it up to the cap after some calls were charged.
    const wallet = await server.app.services.db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } });
    expect(wallet.balance).toBe(10_000_000n - 8n * 30_000n + BigInt(answers[11].body.amount_base_units));
    await expectLedgerBalanced();
  });

  it('gives a sub-agent a wallet and starting balance of its own, and opens none for its parent', async () => {
    const { capability } = await pricedCapability(5);
    const parent = await registerAgent(server);
    const sub = await call('POST', `/agents/${parent.agentId}/sub-agents`, {
      key: parent.key,
      body: { name: uniqueName('sub'), description: 'Calls on its own', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
    });
    expect(sub.status).toBe(201);
    const res = await execute(sub.body.master_key, capability);
    expect(res.body.payment).toMatchObject({ charged_cents: 5, balance_after: '9.950000' });
    expect(await startingCredits(sub.body.agent_id)).toHaveLength(1);
    expectProblem(await call('GET', `/agents/${parent.agentId}/wallet`, { key: parent.key }), 404, 'not_found');
  });

  it("pays a task's call from the new delegate's wallet, the answer saying what it cost and what is left", async () => {
    const { capability } = await pricedCapability(4);
    const lead = await registerAgent(server);
    const sub = await call('POST', `/agents/${lead.agentId}/sub-agents`, {
      key: lead.key,
      body: { name: uniqueName('delegate'), description: 'Does the task', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] },
    });
    const task = await call('POST', '/tasks', { key: lead.key, body: { intent: 'Ask the priced service', budget: 10, success_criteria: ['done == true'] } });
    await call('POST', `/tasks/${task.body.task_id}/delegate`, { key: lead.key, body: { sub_agent_id: sub.body.agent_id } });
    const done = await call('POST', `/tasks/${task.body.task_id}/execute`, {
      key: sub.body.master_key,
      body: { capability, input: {}, result: { done: true } },
    });
    expect(done.status).toBe(200);
    expect(done.body.execution).toMatchObject({
      status: 'success',
      cost_cents: 4,
      payment: { method: 'prepaid', charged: '0.040000', charged_cents: 4, balance_after: '9.960000', balance_after_base_units: '9960000' },
    });
    expect(done.body.task).toMatchObject({ status: 'completed', spent: 4, budget_remaining: 6 });
  });

  it("runs a new agent's swarm of priced steps with no other step", async () => {
    const { capability } = await pricedCapability(2);
    const me = await registerAgent(server);
    const res = await call('POST', '/swarm/sessions', {
      key: me.key,
      body: {
        goal: 'Two priced steps',
        strategy: 'parallel',
        steps: [
          { capability, input: { n: 1 } },
          { capability, input: { n: 2 } },
        ],
      },
    });
    expect(res.status).toBe(201);
    const session = (
      await eventually(
        () => call('GET', `/swarm/sessions/${res.body.session_id}`, { key: me.key }),
        (r) => r.body.status !== 'running',
        15_000,
      )
    ).body;
    expect(session).toMatchObject({ status: 'completed', completed_steps: 2 });
    expect(session.steps.map((s: { cost_cents: number }) => s.cost_cents)).toEqual([2, 2]);
    expect((await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key })).body.balance).toBe('9.960000');
  });

  it("answers balanceAfter on GraphQL's execute", async () => {
    const { capability } = await pricedCapability(7);
    const me = await registerAgent(server);
    const res = await gql(
      server,
      'mutation($input: ExecuteInput!) { execute(input: $input) { payment { chargedCents balanceAfter balanceAfterBaseUnits } } }',
      { input: { capability, input: {} } },
      me.key,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.execute.payment).toEqual({ chargedCents: 7, balanceAfter: '9.930000', balanceAfterBaseUnits: '9930000' });
  });
});

describe('live mode (a remote facilitator)', () => {
  const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
  let live: TestServer;
  let facilitator: TestFacilitator;

  beforeAll(async () => {
    facilitator = await startFacilitator(USDC);
    live = await startServer({
      env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', X402_FACILITATOR_URL: facilitator.url, X402_PAY_TO: `0x${'7a'.repeat(20)}` },
    });
  });
  afterAll(async () => {
    await live.close();
    await facilitator.close();
  });

  it("keeps a new agent's 402: no wallet is opened and nothing is credited", async () => {
    const liveCall = api(live);
    expect((await liveCall('GET', '/x402/sandbox/status')).body).toMatchObject({ sandbox: false, starting_balance: '0.000000' });
    const seller = await registerAgent(live);
    const capability = uniqueSlug('live');
    await liveCall('POST', '/services/register', {
      key: seller.key,
      body: {
        name: 'Live-paid',
        endpoint: provider.url,
        capabilities: [capability],
        description: 'Paid on chain',
        pricing_model: 'per_call',
        cost_per_call: 3,
      },
    });
    const me = await registerAgent(live);
    const res = await liveCall('POST', '/execute', { key: me.key, body: { capability, input: {} } });
    expectProblem(res, 402, 'payment_required');
    expect(res.body.detail).toMatch(/has no wallet/);
    expect(res.body.detail).not.toMatch(/faucet/);
    expect(await live.app.services.db.wallet.findUnique({ where: { agentId: me.agentId } })).toBeNull();
    // A wallet created there opens empty.
    expect((await liveCall('POST', `/agents/${me.agentId}/wallet`, { key: me.key })).body.balance).toBe('0.000000');
    expect(await live.app.services.db.walletEntry.count({ where: { reference: STARTING_BALANCE_REFERENCE } })).toBe(0);
  });
});
