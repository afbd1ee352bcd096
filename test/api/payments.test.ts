// Paid capabilities (issue 16; CONTRACT §8): a priced call is paid by its caller from the prepaid balance
// of its wallet, or with an x402 v2 payment (EIP-3009, signed in the test with throw-away keys) after a
// 402; the provider is paid its price less the marketplace's fee, through an append-only ledger that always
// balances; one payment settles once, however often it is replayed.
import { decodePaymentRequiredHeader } from '@x402/core/http';
import fc from 'fast-check';
import { api, gql, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { eventually, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { fund, NETWORK, payFor, paymentRequiredOf, settlementOf, signAuthorization, throwAwayAccount } from '../support/payments';
import { ACCOUNTS } from '../../src/domain/payments/setup';
import { releaseLapsedHolds } from '../../src/domain/payments/ledger';
import { settlePayment } from '../../src/domain/payments/payments';
import { readPayment } from '../../src/domain/payments/x402';
import { createContext } from '../../src/domain/request-context';
import { requireAgent } from '../../src/domain/agents/principal';
import { requestHash } from '../../src/platform/idempotency';
import { recordTogether } from '../../src/domain/execution/execute';
import { batchRecord } from '../support/records';
import { randomUUID } from 'node:crypto';

const ADMIN_KEY = `key_admin_${'P'.repeat(40)}`;
let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  // Wallets open empty here (no sandbox starting balance), so that each test funds exactly what it needs;
  // test/api/first-call.test.ts has the starting balance. A provider has 30 s: thirty calls at once beside
  // two busy loops took over 2 s, and a call that timed out is charged nothing, which left room for more.
  server = await startServer({
    env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '30000', ADMIN_KEY, SANDBOX_STARTING_BALANCE: '0' },
  });
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

/** A provider agent with a service for `capability` at `cents` per call. */
async function offer(capability: string, cents: number, p?: Provider) {
  const endpoint = p ?? (await provider());
  const agent = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: agent.key,
    body: {
      name: `svc ${capability}`,
      endpoint: endpoint.url,
      capabilities: [capability],
      description: 'A paid provider under test',
      pricing_model: cents ? 'per_call' : 'free',
      cost_per_call: cents,
    },
  });
  if (res.status !== 201) throw new Error(`service registration failed: ${res.status} ${res.text}`);
  return { agent, provider: endpoint, serviceKey: res.body.service_key as string, serviceId: res.body.service_id as string };
}

const run = (key: string, body: unknown, headers: Record<string, string> = {}) => call('POST', '/execute', { key, body, headers });

/** An agent's balance in base units (0 without a wallet). */
async function balanceOf(agentId: string): Promise<bigint> {
  const w = await server.app.services.db.wallet.findUnique({ where: { agentId } });
  return w?.balance ?? 0n;
}

/** The ledger's invariants: every transfer sums to zero, and every agent wallet's balance is its entries' sum, never below what it holds. */
async function expectLedgerBalanced() {
  const db = server.app.services.db;
  const byTransfer = await db.walletEntry.groupBy({ by: ['transferId'], _sum: { amount: true } });
  expect(byTransfer.filter((t) => t._sum.amount !== 0n)).toEqual([]);
  const wallets = await db.wallet.findMany({ where: { account: 'agent' } });
  const sums = await db.walletEntry.groupBy({ by: ['walletId'], _sum: { amount: true } });
  const sumOf = new Map(sums.map((s) => [s.walletId, s._sum.amount ?? 0n]));
  for (const w of wallets) {
    expect({ wallet: w.id, balance: w.balance }).toEqual({ wallet: w.id, balance: sumOf.get(w.id) ?? 0n });
    expect(w.balance >= w.held && w.held >= 0n).toBe(true);
  }
}

describe('a paid call from a prepaid balance', () => {
  it('charges the caller the price, pays the provider its share and the marketplace its fee, in one ledger transfer', async () => {
    const cap = uniqueSlug('paid');
    const svc = await offer(cap, 5);
    const me = await registerAgent(server);
    await fund(server, me.key, '1');
    const res = await run(me.key, { capability: cap, input: { n: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.transaction.cost_cents).toBe(5);
    expect(res.body.payment).toEqual({
      method: 'prepaid',
      wallet_address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      held: '0.050000',
      held_base_units: '50000',
      charged: '0.050000',
      charged_base_units: '50000',
      charged_cents: 5,
      fee: '0.005000',
      fee_base_units: '5000',
      provider_share: '0.045000',
      provider_share_base_units: '45000',
      balance_after: '0.950000',
      balance_after_base_units: '950000',
      x402: null,
      // The caller paid: no spend mandate did (docs/payments.md, Spend mandates).
      mandate: null,
      // A price per call: nothing metered (docs/payments.md, Metered calls).
      metered: null,
    });
    expect(res.headers.get('payment-response')).toBeNull();
    expect(await balanceOf(me.agentId)).toBe(1_000_000n - 50_000n);
    expect(await balanceOf(svc.agent.agentId)).toBe(45_000n);
    const entries = await server.app.services.db.walletEntry.findMany({ where: { executionId: res.body.execution_id } });
    expect(entries.map((e) => [e.kind, e.amount]).sort()).toEqual([
      ['charge', -50_000n],
      ['earning', 45_000n],
      ['fee', 5_000n],
    ]);
    expect(new Set(entries.map((e) => e.transferId)).size).toBe(1);
    expect(entries.find((e) => e.kind === 'fee')!.walletId).toBe(ACCOUNTS.revenue);
    // This instance keeps a float of the caller's wallet for its next calls (a lease), and gives it back when idle.
    const leased = await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(leased.body).toMatchObject({ balance: '0.950000', held: '0.950000', available: '0.000000' });
    await server.app.services.payments.leases.releaseIdle(0);
    const wallet = await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(wallet.body).toMatchObject({ balance: '0.950000', held: '0.000000', available: '0.950000' });
    expect(
      await server.app.services.db.walletHold.count({
        where: { walletId: (await server.app.services.db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } })).id },
      }),
    ).toBe(0);
    await expectLedgerBalanced();
  });

  it("tops a steady caller's lease up while it still covers calls, so that no call waits for the top-up", async () => {
    const cap = uniqueSlug('ahead');
    await offer(cap, 1);
    const me = await registerAgent(server);
    await fund(server, me.key, '1');
    const db = server.app.services.db;
    const walletId = (await db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } })).id;
    // The lease takes fifty calls' worth (0.50); the 26th call leaves it under twenty-five and tops it up
    // behind the call, back to fifty calls' worth.
    for (let i = 0; i < 26; i++) expect((await run(me.key, { capability: cap, input: { i } })).status).toBe(200);
    const wallet = await eventually(
      () => db.wallet.findUniqueOrThrow({ where: { id: walletId } }),
      (w) => w.held === 500_000n,
      10_000,
    );
    // Waiting for need, it would hold what is left of the first fifty: 24 calls' worth.
    expect({ balance: wallet.balance, held: wallet.held }).toEqual({ balance: 740_000n, held: 500_000n });
    expect(await db.walletHold.count({ where: { walletId } })).toBe(1);
    await server.app.services.payments.leases.releaseIdle(0);
    expect((await db.wallet.findUniqueOrThrow({ where: { id: walletId } })).held).toBe(0n);
    await expectLedgerBalanced();
  });

  it('admits exactly as many of 30 concurrent calls as the balance pays for, and answers the rest 402 before calling', async () => {
    const cap = uniqueSlug('exact');
    const svc = await offer(cap, 4);
    svc.provider.setDefault({ delayMs: 20 });
    const me = await registerAgent(server);
    await fund(server, me.key, '0.4');
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => run(me.key, { capability: cap, input: { i } })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 402)).toHaveLength(20);
    expect(svc.provider.calls).toHaveLength(10);
    expect(await balanceOf(me.agentId)).toBe(0n);
    await expectLedgerBalanced();
  });

  it("gives back what a stopped instance's lease still held, from what was charged against it", async () => {
    const cap = uniqueSlug('lapsed');
    await offer(cap, 3);
    const me = await registerAgent(server);
    await fund(server, me.key, '1');
    for (let i = 0; i < 4; i++) expect((await run(me.key, { capability: cap, input: { i } })).status).toBe(200);
    const db = server.app.services.db;
    const wallet = await db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } });
    const [lease] = await db.walletHold.findMany({ where: { walletId: wallet.id } });
    // Reserved 1.00 (all there was: fifty calls' worth is more), 0.12 charged against it: 0.88 still held.
    expect({ reserved: lease.amount, held: wallet.held, balance: wallet.balance }).toEqual({ reserved: 1_000_000n, held: 880_000n, balance: 880_000n });
    // As if its instance had stopped: the row lapses, and the sweep gives back exactly what it still held.
    await db.walletHold.update({ where: { id: lease.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await releaseLapsedHolds(server.app.services)).toBe(1);
    expect(await db.wallet.findUniqueOrThrow({ where: { id: wallet.id } })).toMatchObject({ held: 0n, balance: 880_000n });
    await expectLedgerBalanced();
  });

  it('charges nothing when every provider fails, and gives the hold back', async () => {
    const cap = uniqueSlug('failing');
    const svc = await offer(cap, 7);
    svc.provider.setDefault({ status: 500 });
    const me = await registerAgent(server);
    await fund(server, me.key, '1');
    const res = await run(me.key, { capability: cap, input: {} });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('error');
    expect(res.body.payment).toMatchObject({ method: 'prepaid', held_base_units: '70000', charged_base_units: '0', fee_base_units: '0' });
    expect(await balanceOf(me.agentId)).toBe(1_000_000n);
    expect(await balanceOf(svc.agent.agentId)).toBe(0n);
    await server.app.services.payments.leases.releaseIdle(0);
    const wallet = await server.app.services.db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } });
    expect(wallet.held).toBe(0n);
    await expectLedgerBalanced();
  });

  it('answers a free capability as before, with no payment and no wallet', async () => {
    const cap = uniqueSlug('free');
    await offer(cap, 0);
    const me = await registerAgent(server);
    const res = await run(me.key, { capability: cap, input: {} });
    expect(res.status).toBe(200);
    expect(res.body.payment).toBeNull();
    expect(await server.app.services.db.wallet.findUnique({ where: { agentId: me.agentId } })).toBeNull();
  });
});

describe('paid calls recorded together', () => {
  it('records paid calls answered at once in shared statements, one provider paid by several callers, every wallet exact', async () => {
    const cap = uniqueSlug('together');
    const svc = await offer(cap, 3);
    // Twenty-four calls answered at the same moment (the provider holds each until all have arrived): their
    // records queue behind the two statements running, however the machine spreads the calls' starts.
    let arrived!: () => void;
    const allArrived = new Promise<void>((resolve) => (arrived = resolve));
    svc.provider.setDefault({ until: allArrived });
    const callers = [await registerAgent(server), await registerAgent(server), await registerAgent(server)];
    for (const c of callers) await fund(server, c.key, '1');
    const sql = server.app.services.sql;
    const query = sql.query;
    const statements: string[] = [];
    sql.query = ((text: string, params: unknown[], name?: string) => {
      if (name?.startsWith('record_')) statements.push(name);
      return query.call(sql, text, params, name);
    }) as typeof sql.query;
    let answers: Awaited<ReturnType<typeof run>>[];
    try {
      const calls = Array.from({ length: 24 }, (_, i) => run(callers[i % 3].key, { capability: cap, input: { i } }));
      await svc.provider.waitFor(svc.provider.calls.length + 24, 20_000);
      arrived();
      answers = await Promise.all(calls);
    } finally {
      sql.query = query;
    }
    expect(answers.map((a) => [a.status, a.body.status, a.body.payment?.charged_base_units])).toEqual(Array(24).fill([200, 'success', '30000']));
    // Fewer statements than calls, all of them the shared one.
    expect(new Set(statements)).toEqual(new Set(['record_paid_executions']));
    expect(statements.length).toBeLessThan(24);
    for (const c of callers) expect(await balanceOf(c.agentId)).toBe(1_000_000n - 8n * 30_000n);
    expect(await balanceOf(svc.agent.agentId)).toBe(24n * 27_000n);
    const entries = await server.app.services.db.walletEntry.findMany({ where: { executionId: { in: answers.map((a) => a.body.execution_id) } } });
    expect(entries).toHaveLength(72);
    for (const a of answers) {
      const own = entries.filter((e) => e.executionId === a.body.execution_id);
      expect(own.map((e) => [e.kind, e.amount]).sort()).toEqual([
        ['charge', -30_000n],
        ['earning', 27_000n],
        ['fee', 3_000n],
      ]);
      expect(new Set(own.map((e) => e.transferId)).size).toBe(1);
    }
    await expectLedgerBalanced();
  });

  it('writes again, alone, each paid record of a statement a wallet refused, so that the others are charged', async () => {
    const cap = uniqueSlug('refused');
    const svc = await offer(cap, 3);
    const [rich, poor, other] = [await registerAgent(server), await registerAgent(server), await registerAgent(server)];
    await fund(server, rich.key, '1');
    await fund(server, poor.key, '0.01');
    await fund(server, other.key, '1');
    await fund(server, svc.agent.key, '0.01');
    const db = server.app.services.db;
    const walletOf = async (agentId: string) => (await db.wallet.findUniqueOrThrow({ where: { agentId } })).id;
    const provider = await walletOf(svc.agent.agentId);
    const record = async (agentId: string) =>
      batchRecord({
        agent_id: agentId,
        capability: cap,
        service_id: svc.serviceId,
        cost_cents: 3,
        // A hold of the call's own that is no longer there (it lapsed): nothing is released, the balance pays.
        caller_wallet: await walletOf(agentId),
        provider_wallet: provider,
        earning_wallet: provider,
        caller_delta: '-30000',
        share: '27000',
        release: null,
        hold: randomUUID(),
        charge: '30000',
        fee: '3000',
        transfer: randomUUID(),
      });
    const records = [await record(rich.agentId), await record(poor.agentId), await record(other.agentId)];
    const settled = await recordTogether(server.app.services.sql, 'paid', records);
    expect(settled.map((s) => s.ok)).toEqual([true, false, true]);
    // The refusal is the wallet's check (what execute turns into a record of the call, unpaid).
    expect((settled[1] as { error: { code?: string } }).error.code).toBe('23514');
    expect(await balanceOf(rich.agentId)).toBe(970_000n);
    expect(await balanceOf(poor.agentId)).toBe(10_000n);
    expect(await balanceOf(other.agentId)).toBe(970_000n);
    expect(await balanceOf(svc.agent.agentId)).toBe(10_000n + 2n * 27_000n);
    expect((await db.execution.findMany({ where: { id: { in: records.map((r) => r.id) } } })).map((e) => e.id).sort()).toEqual(
      [records[0].id, records[2].id].sort(),
    );
    await expectLedgerBalanced();
  });

  it('says what each wallet of a paid statement has once its charges are made, so that an answer needs no read of its own', async () => {
    const cap = uniqueSlug('balances');
    const svc = await offer(cap, 3);
    const [caller, other] = [await registerAgent(server), await registerAgent(server)];
    await fund(server, caller.key, '1');
    await fund(server, other.key, '0.5');
    await fund(server, svc.agent.key, '0.01');
    const db = server.app.services.db;
    const walletOf = async (agentId: string) => (await db.wallet.findUniqueOrThrow({ where: { agentId } })).id;
    const [callerWallet, otherWallet, providerWallet] = [await walletOf(caller.agentId), await walletOf(other.agentId), await walletOf(svc.agent.agentId)];
    const record = (agentId: string, wallet: string) =>
      batchRecord({
        agent_id: agentId,
        capability: cap,
        service_id: svc.serviceId,
        cost_cents: 3,
        caller_wallet: wallet,
        provider_wallet: providerWallet,
        earning_wallet: providerWallet,
        caller_delta: '-30000',
        share: '27000',
        release: null,
        hold: randomUUID(),
        charge: '30000',
        fee: '3000',
        transfer: randomUUID(),
      });
    // Two calls of one caller and one of another, in one statement.
    const settled = await recordTogether(server.app.services.sql, 'paid', [
      record(caller.agentId, callerWallet),
      record(other.agentId, otherWallet),
      record(caller.agentId, callerWallet),
    ]);
    expect(settled.map((s) => s.ok)).toEqual([true, true, true]);
    const { balances } = (settled[0] as { value: { balances: Record<string, string> } }).value;
    expect(balances).toEqual({ [callerWallet]: '940000', [otherWallet]: '470000', [providerWallet]: String(10_000 + 3 * 27_000) });
    for (const [agentId, wallet] of [
      [caller.agentId, callerWallet],
      [other.agentId, otherWallet],
      [svc.agent.agentId, providerWallet],
    ]) {
      expect(String(await balanceOf(agentId))).toBe(balances[wallet]);
    }
    await expectLedgerBalanced();
  });
});

describe('402 before any provider is called', () => {
  it('answers the x402 requirements in the body and in PAYMENT-REQUIRED when the wallet does not cover the price', async () => {
    const cap = uniqueSlug('unpaid');
    const svc = await offer(cap, 12);
    const me = await registerAgent(server);
    await fund(server, me.key, '0.1');
    const res = await run(me.key, { capability: cap, input: {} });
    expectProblem(res, 402, 'payment_required');
    expect(res.body.detail).toMatch(/0\.120000 USDC.*0\.100000 USDC available/);
    const sandbox = (await call('GET', '/x402/sandbox/status')).body;
    expect(res.body.x402Version).toBe(2);
    expect(res.body.resource).toEqual({ url: `${server.url}/api/v1/execute`, description: expect.stringContaining(cap), mimeType: 'application/json' });
    expect(res.body.accepts).toEqual([
      {
        scheme: 'exact',
        network: NETWORK,
        asset: sandbox.asset.address,
        amount: '120000',
        payTo: sandbox.pay_to,
        maxTimeoutSeconds: sandbox.max_timeout_seconds,
        extra: { name: sandbox.asset.eip712_name, version: sandbox.asset.eip712_version },
      },
    ]);
    const header = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    expect(header).toEqual({ x402Version: 2, resource: res.body.resource, accepts: res.body.accepts });
    expect(svc.provider.calls).toHaveLength(0);
    expect(await balanceOf(me.agentId)).toBe(100_000n);
  });

  it('answers 402 to a caller with nothing in its wallet, naming the faucet, and the same on GraphQL as a typed error', async () => {
    const cap = uniqueSlug('walletless');
    const svc = await offer(cap, 3);
    const me = await registerAgent(server);
    const refused = await run(me.key, { capability: cap, input: {} });
    expectProblem(refused, 402, 'payment_required');
    expect(refused.body.detail).toContain('0.000000 USDC available');
    expect(refused.body.detail).toContain('POST /api/v1/x402/sandbox/faucet');
    const res = await gql(
      server,
      'mutation($input: ExecuteInput!) { execute(input: $input) { executionId } }',
      { input: { capability: cap, input: {} } },
      me.key,
    );
    expect(res.body.data?.execute ?? null).toBeNull();
    expect(res.body.errors![0].extensions).toMatchObject({
      code: 'PAYMENT_REQUIRED',
      x402Version: 2,
      accepts: [expect.objectContaining({ amount: '30000', scheme: 'exact' })],
    });
    expect(svc.provider.calls).toHaveLength(0);
  });
});

describe('paying with x402', () => {
  it('settles a payment signed by the official client, runs the call and answers PAYMENT-RESPONSE', async () => {
    const cap = uniqueSlug('x402');
    const svc = await offer(cap, 5);
    const payer = await throwAwayAccount();
    const sponsor = await registerAgent(server);
    expect((await call('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: payer.address } })).status).toBe(201);
    await fund(server, sponsor.key, '1');
    const me = await registerAgent(server);
    const first = await run(me.key, { capability: cap, input: { q: 'paid' } });
    expect(first.status).toBe(402);
    const headers = await payFor(first, payer);
    const res = await run(me.key, { capability: cap, input: { q: 'paid' } }, headers);
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ served_by: 'provider', echo: { q: 'paid' } });
    const settled = settlementOf(res);
    expect(settled).toMatchObject({
      success: true,
      network: NETWORK,
      payer: payer.address.toLowerCase(),
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(res.body.payment).toMatchObject({
      method: 'x402',
      charged_base_units: '50000',
      x402: { payer: payer.address.toLowerCase(), amount: '0.050000', amount_base_units: '50000', transaction: settled.transaction, network: NETWORK },
    });
    // The sponsor's address paid; the caller was credited the payment and charged the call.
    expect(await balanceOf(sponsor.agentId)).toBe(950_000n);
    expect(await balanceOf(me.agentId)).toBe(0n);
    expect(await balanceOf(svc.agent.agentId)).toBe(45_000n);
    expect(svc.provider.calls).toHaveLength(1);
    await expectLedgerBalanced();
  });

  it('answers a replay of the payment for the same request with the first answer, charging once', async () => {
    const cap = uniqueSlug('replay');
    const svc = await offer(cap, 4);
    const { me, payer } = await payingCaller('1');
    const first = await run(me.key, { capability: cap, input: { x: 1 } });
    const headers = await payFor(first, payer);
    const paid = await run(me.key, { capability: cap, input: { x: 1 } }, headers);
    const again = await run(me.key, { capability: cap, input: { x: 1 } }, headers);
    expect(again.status).toBe(200);
    expect(again.body.execution_id).toBe(paid.body.execution_id);
    expect(again.body.result).toEqual(paid.body.result);
    expect(again.body.payment).toEqual(paid.body.payment);
    expect(settlementOf(again).transaction).toBe(settlementOf(paid).transaction);
    expect(svc.provider.calls).toHaveLength(1);
    expect(await balanceOf(payer.agentId)).toBe(1_000_000n - 40_000n);
    // Made for one request, the payment cannot pay for another.
    const other = await run(me.key, { capability: cap, input: { x: 2 } }, headers);
    expectProblem(other, 402, 'payment_required');
    expect(other.body.error).toBe('payment_already_used');
    expect(svc.provider.calls).toHaveLength(1);
    await expectLedgerBalanced();
  });

  it('charges 50 concurrent copies of one paid call once, and answers each with the first answer', async () => {
    const cap = uniqueSlug('copies');
    const svc = await offer(cap, 3);
    svc.provider.setDefault({ delayMs: 50 });
    const { me, payer } = await payingCaller('1');
    const headers = await payFor(await run(me.key, { capability: cap, input: { same: true } }), payer);
    const answers = await Promise.all(Array.from({ length: 50 }, () => run(me.key, { capability: cap, input: { same: true } }, headers)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((a) => a.body.execution_id)).size).toBe(1);
    expect(svc.provider.calls).toHaveLength(1);
    expect(await balanceOf(payer.agentId)).toBe(1_000_000n - 30_000n);
    expect(await server.app.services.db.x402Payment.count({ where: { payer: payer.address.toLowerCase() } })).toBe(1);
    await expectLedgerBalanced();
  });

  it("keeps what a call whose providers all failed did not spend in the caller's wallet", async () => {
    const cap = uniqueSlug('x402-fail');
    const svc = await offer(cap, 6);
    svc.provider.setDefault({ status: 503 });
    const { me, payer } = await payingCaller('1');
    const res = await run(me.key, { capability: cap, input: {} }, await payFor(await run(me.key, { capability: cap, input: {} }), payer));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('error');
    expect(res.body.payment).toMatchObject({ method: 'x402', charged_base_units: '0' });
    expect(await balanceOf(me.agentId)).toBe(60_000n);
    expect(await balanceOf(svc.agent.agentId)).toBe(0n);
    await expectLedgerBalanced();
  });
});

/** A caller with no funds of its own, and a sponsor's throw-away key (its registered wallet funded) to pay with. */
async function payingCaller(amount: string) {
  const account = await throwAwayAccount();
  const sponsor = await registerAgent(server);
  await call('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: account.address } });
  await fund(server, sponsor.key, amount);
  const me = await registerAgent(server);
  return { me, payer: Object.assign(account, { agentId: sponsor.agentId }) };
}

describe('a payment whose first copy stopped after settling it', () => {
  it('is taken over once its claim lapses: the call is made once, under the execution id the payment fixed', async () => {
    const cap = uniqueSlug('takeover');
    const svc = await offer(cap, 5);
    const { me, payer } = await payingCaller('1');
    const input = { t: 1 };
    const first = await run(me.key, { capability: cap, input });
    const headers = await payFor(first, payer);
    // What the first copy did before it stopped: the payment settled and credited, the call's price held,
    // the execution id fixed, and no call made (settlePayment is the step execute takes before calling).
    const services = server.app.services;
    const ctx = createContext(services, { authorization: `Bearer ${me.key}`, requestId: 'req_takeover', clientAddress: '127.0.0.1' });
    const agent = await requireAgent(ctx);
    const executionId = '00000000-0000-4000-8000-00000000aaaa';
    const settled = await settlePayment(ctx, agent, readPayment(headers['PAYMENT-SIGNATURE']), paymentRequiredOf(first).accepts[0], {
      purpose: 'execute',
      requestHash: requestHash('execute', [me.agentId, cap, input, 'auto', null, null]),
      executionId,
      holdAmount: 50_000n,
      holdMs: 90_000,
      refused: () => new Error('refused'),
    });
    expect(svc.provider.calls).toHaveLength(0);
    // While the claim stands, a copy waits; once it lapses, the copy takes it over.
    await services.db.x402Payment.update({ where: { id: settled!.paymentId }, data: { claimedUntil: new Date(Date.now() - 1000) } });
    const res = await run(me.key, { capability: cap, input }, headers);
    expect(res.status).toBe(200);
    expect(res.body.execution_id).toBe(executionId);
    expect(res.body.payment).toMatchObject({ method: 'x402', charged_base_units: '50000' });
    const again = await run(me.key, { capability: cap, input }, headers);
    expect(again.body.execution_id).toBe(executionId);
    expect(svc.provider.calls).toHaveLength(1);
    expect(await balanceOf(payer.agentId)).toBe(1_000_000n - 50_000n);
    expect(await balanceOf(me.agentId)).toBe(0n);
    expect((await services.db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } })).held).toBe(0n);
    await expectLedgerBalanced();
  });
});

describe('payments that must be refused, with nothing moved', () => {
  let cap: string;
  let svc: Awaited<ReturnType<typeof offer>>;
  beforeAll(async () => {
    cap = uniqueSlug('refused');
    svc = await offer(cap, 5);
  });

  async function refused(
    make: (required: ReturnType<typeof paymentRequiredOf>['accepts'][number], payer: Awaited<ReturnType<typeof payingCaller>>['payer']) => Promise<string>,
    reason: RegExp,
  ) {
    const { me, payer } = await payingCaller('1');
    const first = await run(me.key, { capability: cap, input: {} });
    const required = paymentRequiredOf(first).accepts[0];
    const before = await balanceOf(payer.agentId);
    const calls = svc.provider.calls.length;
    const res = await run(me.key, { capability: cap, input: {} }, { 'PAYMENT-SIGNATURE': await make(required, payer) });
    expectProblem(res, 402, 'payment_required');
    expect(res.body.error).toMatch(reason);
    expect(res.body.accepts).toEqual([required]);
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).error).toBe(res.body.error);
    expect(await balanceOf(payer.agentId)).toBe(before);
    expect(await balanceOf(me.agentId)).toBe(0n);
    expect(svc.provider.calls.length).toBe(calls);
    expect(await server.app.services.db.x402Payment.count({ where: { payer: payer.address.toLowerCase() } })).toBe(0);
    return res;
  }

  it('refuses a wrong amount', async () => {
    await refused(
      async (required, payer) => (await signAuthorization(payer, required, { value: BigInt(required.amount) - 1n })).header,
      /value_mismatch|amount/,
    );
    await refused(async (required, payer) => (await signAuthorization(payer, { ...required, amount: '1' })).header, /^payment_requirements_mismatch$/);
  });

  it('refuses a wrong recipient', async () => {
    const elsewhere = await throwAwayAccount();
    await refused(async (required, payer) => (await signAuthorization(payer, required, { to: elsewhere.address })).header, /recipient/);
  });

  it('refuses an expired validity window, and one not yet open', async () => {
    const now = BigInt(Math.floor(Date.now() / 1000));
    await refused(async (required, payer) => (await signAuthorization(payer, required, { validBefore: now - 10n })).header, /valid_before|expired/);
    await refused(async (required, payer) => (await signAuthorization(payer, required, { validAfter: now + 3600n })).header, /valid_after|not_yet/);
  });

  it('refuses a tampered signature, and one signed for another chain', async () => {
    await refused(async (required, payer) => {
      const signed = await signAuthorization(payer, required);
      const sig = signed.signature;
      const flipped = `${sig.slice(0, 10)}${sig[10] === '0' ? '1' : '0'}${sig.slice(11)}`;
      const payload = { ...signed.payload, payload: { ...signed.payload.payload, signature: flipped } };
      return Buffer.from(JSON.stringify(payload)).toString('base64');
    }, /signature/);
    await refused(async (required, payer) => (await signAuthorization(payer, required, { chainId: 1 })).header, /signature/);
  });

  it('refuses a nonce that was already used', async () => {
    await refused(async (required, payer) => {
      // A test payment from the same key uses the nonce first.
      const used = await signAuthorization(payer, required);
      await server.app.services.db.sandboxAuthorization.create({
        data: {
          asset: required.asset.toLowerCase(),
          payer: payer.address.toLowerCase(),
          nonce: used.authorization.nonce,
          payee: required.payTo,
          value: 1n,
          transaction: '0x01',
        },
      });
      return (await signAuthorization(payer, required, { nonce: used.authorization.nonce })).header;
    }, /nonce/);
  });

  it('refuses a payer without the funds, and a header that is not a payment (400)', async () => {
    await refused(async (required) => (await signAuthorization(await throwAwayAccount(), required)).header, /insufficient|balance/);
    const { me } = await payingCaller('1');
    const bad = await run(me.key, { capability: cap, input: {} }, { 'PAYMENT-SIGNATURE': 'not a payment' });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('PAYMENT-SIGNATURE');
  });
});

describe('Idempotency-Key on a paid call', () => {
  it('charges a retried request once, and 20 concurrent copies once, each answered with the first answer', async () => {
    const cap = uniqueSlug('idem-paid');
    const svc = await offer(cap, 2);
    svc.provider.setDefault({ delayMs: 30 });
    const me = await registerAgent(server);
    await fund(server, me.key, '1');
    const key = `idem-${cap}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => run(me.key, { capability: cap, input: { k: 1 } }, { 'Idempotency-Key': key })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.body.execution_id)).size).toBe(1);
    const retried = await run(me.key, { capability: cap, input: { k: 1 } }, { 'Idempotency-Key': key });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(answers[0].body);
    expect(svc.provider.calls).toHaveLength(1);
    expect(await balanceOf(me.agentId)).toBe(1_000_000n - 20_000n);
  });

  it('does not keep a 402: the same key retried with a payment pays, and answers PAYMENT-RESPONSE again on replay', async () => {
    const cap = uniqueSlug('idem-402');
    const svc = await offer(cap, 2);
    const { me, payer } = await payingCaller('1');
    const key = `idem-${cap}`;
    const first = await run(me.key, { capability: cap, input: {} }, { 'Idempotency-Key': key });
    expect(first.status).toBe(402);
    const headers = await payFor(first, payer);
    const paid = await run(me.key, { capability: cap, input: {} }, { ...headers, 'Idempotency-Key': key });
    expect(paid.status).toBe(200);
    // A retry with another payment is the same request: the first answer, and the new payment unused.
    const other = await payFor(first, payer);
    const replay = await run(me.key, { capability: cap, input: {} }, { ...other, 'Idempotency-Key': key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(paid.body);
    expect(replay.headers.get('payment-response')).toBe(paid.headers.get('payment-response'));
    expect(svc.provider.calls).toHaveLength(1);
    expect(await balanceOf(payer.agentId)).toBe(1_000_000n - 20_000n);
  });
});

describe('the ledger under a random sequence of calls, failures and refunds', () => {
  it('always balances: every transfer sums to zero, no wallet below zero, the payer down what provider and fee are up', async () => {
    const cap = uniqueSlug('prop');
    const good = await offer(cap, 9);
    const me = await registerAgent(server);
    await fund(server, me.key, '5');
    const charged: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constant({ kind: 'ok' as const }),
            fc.constant({ kind: 'fail' as const }),
            fc.record({ kind: fc.constant('refund' as const), cents: fc.integer({ min: 1, max: 9 }) }),
          ),
          { minLength: 3, maxLength: 8 },
        ),
        async (steps) => {
          const start = { payer: await balanceOf(me.agentId), provider: await balanceOf(good.agent.agentId), fee: await revenue() };
          for (const step of steps) {
            if (step.kind === 'refund') {
              // A dispute of the last paid call, refunded in part or in whole by an administrator.
              const transactionId = charged.pop();
              if (!transactionId) continue;
              const dispute = await call('POST', '/disputes', {
                key: me.key,
                body: { transaction_id: transactionId, reason: 'other', description: 'refund me' },
              });
              expect(dispute.status).toBe(201);
              await server.app.services.disputes.settled();
              const resolved = await call('PATCH', `/admin/disputes/${dispute.body.dispute_id}/resolve`, {
                key: ADMIN_KEY,
                body: { resolution: 'partly refunded', refund_cents: step.cents },
              });
              expect(resolved.status).toBe(200);
              continue;
            }
            good.provider.behave(step.kind === 'ok' ? {} : { status: 500 });
            // Chosen by name: failures in a row would otherwise cool the provider down out of auto mode.
            const res = await run(me.key, { capability: cap, input: { step: step.kind }, mode: 'chosen', provider: good.serviceKey });
            expect(res.status).toBe(200);
            if (res.body.status === 'success') charged.push(res.body.transaction.transaction_id);
          }
          const end = { payer: await balanceOf(me.agentId), provider: await balanceOf(good.agent.agentId), fee: await revenue() };
          expect(start.payer - end.payer).toBe(end.provider - start.provider + (end.fee - start.fee));
          expect(end.payer >= 0n && end.provider >= 0n).toBe(true);
          await expectLedgerBalanced();
        },
      ),
      { numRuns: 8 },
    );
  });
});

async function revenue(): Promise<bigint> {
  const s = await server.app.services.db.walletEntry.aggregate({ where: { walletId: ACCOUNTS.revenue }, _sum: { amount: true } });
  return s._sum.amount ?? 0n;
}

describe('the OpenAPI document', () => {
  it('documents PAYMENT-SIGNATURE, PAYMENT-RESPONSE and PAYMENT-REQUIRED on execute', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    const op = doc.paths['/execute'].post;
    expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'PAYMENT-SIGNATURE', in: 'header', required: false })]));
    expect(Object.keys(op.responses['200'].headers)).toEqual(expect.arrayContaining(['PAYMENT-RESPONSE', 'X-RateLimit-Limit']));
    expect(Object.keys(op.responses['402'].headers)).toEqual(expect.arrayContaining(['PAYMENT-REQUIRED']));
    expect(doc.paths['/x402/sandbox/status'].get.security).toEqual([]);
    expect(doc.paths['/acp/offerings/{id}/payment-terms'].get.responses['404']).toBeDefined();
  });
});
