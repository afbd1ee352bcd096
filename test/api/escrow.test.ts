// Escrow through the dispute window (docs/payments.md, Escrow): a paid call's provider share is pending, part of
// the provider's balance but not spendable, until the window ends; then it settles, exactly once however many
// settle together; a dispute opened inside the window freezes it, and a refund is taken from it, never from what
// the provider could spend. The ledger audit holds after each.
import { settleDueEscrows } from '../../src/domain/payments/escrow';
import { ACCOUNTS } from '../../src/domain/payments/setup';
import { FakeClock } from '../support/clock';
import { expectLedgerAudited, fund } from '../support/payments';
import { api, registerAgent, registerService, startServer, uniqueSlug, type TestServer } from '../support/server';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';

const ADMIN_KEY = `key_admin_${'E'.repeat(40)}`;
const WINDOW_S = 600;
const clock = new FakeClock(new Date('2026-11-30T12:00:00Z'));
let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Provider;

beforeAll(async () => {
  assertTestCaTrusted();
  provider = await startProvider('escrow');
  server = await startServer({
    clock,
    // Wallets open empty: what a provider has is what it earned.
    env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', SANDBOX_STARTING_BALANCE: '0', DISPUTE_WINDOW_SECONDS: String(WINDOW_S) },
  });
  call = api(server);
  // The tests settle escrows when they choose (settleDueEscrows, the worker's round); the worker runs in one of them.
  await server.app.services.escrow.stop();
});
afterAll(async () => {
  await server.close();
  await provider.close();
});

/** A seller of a fresh capability at `cents`, and a buyer with 1 USDC who called it once. */
async function paidCall(cents = 5) {
  const capability = uniqueSlug('escrow');
  const seller = await registerAgent(server);
  await registerService(server, seller.key, { endpoint: provider.url, capabilities: [capability], pricing_model: 'per_call', cost_per_call: cents });
  const buyer = await registerAgent(server);
  await fund(server, buyer.key, '1');
  const res = await call('POST', '/execute', { key: buyer.key, body: { capability, input: { n: 1 } } });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('success');
  return { capability, seller, buyer, executionId: res.body.execution_id as string, transactionId: res.body.transaction.transaction_id as string };
}

const wallet = async (agent: { agentId: string; key: string }) => (await call('GET', `/agents/${agent.agentId}/wallet`, { key: agent.key })).body;
const escrowOf = (executionId: string) => server.app.services.db.escrow.findUniqueOrThrow({ where: { executionId } });

describe('a paid call', () => {
  it("credits the provider's share as pending: in its balance, not available, until the window ends", async () => {
    const { seller, executionId } = await paidCall(5);
    expect(await wallet(seller)).toMatchObject({
      balance: '0.045000',
      balance_base_units: '45000',
      pending: '0.045000',
      pending_base_units: '45000',
      held_base_units: '0',
      available: '0.000000',
      available_base_units: '0',
    });
    const escrow = await escrowOf(executionId);
    expect(escrow).toMatchObject({ amount: 45_000n, status: 'pending', settledAt: null });
    expect(escrow.releaseAt.getTime() - escrow.createdAt.getTime()).toBe(WINDOW_S * 1000);
    // The fee is the marketplace's at once; the provider's earning entry is in the ledger as before.
    const entries = await server.app.services.db.walletEntry.findMany({ where: { executionId } });
    expect(entries.map((e) => [e.kind, e.amount]).sort()).toEqual([
      ['charge', -50_000n],
      ['earning', 45_000n],
      ['fee', 5_000n],
    ]);
    await expectLedgerAudited(server);
  });

  it('cannot be spent while pending: the provider paying for a call of its own is refused, 402', async () => {
    const { seller } = await paidCall(5);
    const other = await paidCall(1);
    const spend = await call('POST', '/execute', { key: seller.key, body: { capability: other.capability, input: {} } });
    expect(spend.status).toBe(402);
    expect(spend.body.detail).toMatch(/has 0(\.0+)? USDC available/);
    await expectLedgerAudited(server);
  });

  it('settles after the window, exactly once, however many settle at the same time', async () => {
    const calls = await Promise.all([paidCall(2), paidCall(2), paidCall(2)]);
    const sellers = calls.map((c) => c.seller);
    // Not yet: the window has not ended.
    expect(await settleDueEscrows(server.app.services)).toBe(0);
    clock.advance(WINDOW_S * 1000 + 1);
    // Four rounds at once, and the worker beside them.
    server.app.services.escrow.start();
    const settled = await Promise.all([1, 2, 3, 4].map(() => settleDueEscrows(server.app.services)));
    await server.app.services.escrow.settled();
    await server.app.services.escrow.stop();
    const escrows = await Promise.all(calls.map((c) => escrowOf(c.executionId)));
    expect(escrows.map((e) => e.status)).toEqual(['settled', 'settled', 'settled']);
    // Every due escrow settled by one of the rounds (the worker may have taken some of them too).
    expect(settled.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(await server.app.services.db.escrow.count({ where: { status: 'settled' } }));
    for (const s of sellers) expect(await wallet(s)).toMatchObject({ balance_base_units: '18000', pending_base_units: '0', available_base_units: '18000' });
    expect(await settleDueEscrows(server.app.services)).toBe(0);
    await expectLedgerAudited(server);
  });
});

describe('a dispute inside the window', () => {
  it('freezes the escrow; a refund comes from it, and what is left settles when the dispute is decided', async () => {
    const { seller, buyer, executionId, transactionId } = await paidCall(5);
    const opened = await call('POST', '/disputes', {
      key: buyer.key,
      body: { transaction_id: transactionId, reason: 'other', description: 'half of it was wrong' },
    });
    expect(opened.status).toBe(201);
    expect(await escrowOf(executionId)).toMatchObject({ status: 'frozen', disputeId: opened.body.dispute_id });
    await server.app.services.disputes.settled();
    // The window passes: a frozen escrow does not settle by itself.
    clock.advance(WINDOW_S * 1000 + 1);
    await settleDueEscrows(server.app.services);
    expect(await escrowOf(executionId)).toMatchObject({ status: 'frozen', amount: 45_000n });

    const resolved = await call('PATCH', `/admin/disputes/${opened.body.dispute_id}/resolve`, {
      key: ADMIN_KEY,
      body: { resolution: 'two cents back', refund_cents: 2 },
    });
    expect(resolved.status).toBe(200);
    // 2 cents back to the buyer: 18,000 of the provider's share from escrow, 2,000 of the fee.
    expect(await wallet(buyer)).toMatchObject({ balance_base_units: String(1_000_000 - 50_000 + 20_000) });
    expect(await wallet(seller)).toMatchObject({ balance_base_units: '27000', pending_base_units: '0', available_base_units: '27000' });
    expect(await escrowOf(executionId)).toMatchObject({ status: 'settled', amount: 27_000n });
    const refund = await server.app.services.db.walletEntry.findMany({ where: { executionId, reference: `dispute ${opened.body.dispute_id}` } });
    expect(refund.map((e) => [e.kind, e.walletId === ACCOUNTS.revenue ? 'revenue' : e.amount]).sort()).toEqual([
      ['escrow_refund', -18_000n],
      ['refund', 20_000n],
      ['refund', 'revenue'],
    ]);
    await expectLedgerAudited(server);
  });

  it("refunds the whole share from escrow when the pipeline decides a refund, the provider's available funds untouched", async () => {
    const { seller, buyer, executionId, transactionId } = await paidCall(5);
    await fund(server, seller.key, '0.1');
    expect(await wallet(seller)).toMatchObject({ balance_base_units: '145000', pending_base_units: '45000', available_base_units: '100000' });
    // The records say every attempt failed (as a provider's lost answer would): the pipeline refunds the charge.
    await server.app.services.db.executionAttempt.updateMany({ where: { executionId }, data: { outcome: 'failure', reason: 'http_500', statusCode: 500 } });
    const opened = await call('POST', '/disputes', { key: buyer.key, body: { transaction_id: transactionId, reason: 'provider_error' } });
    await server.app.services.disputes.settled();
    await server.app.services.disputes.settled();
    const decided = (await call('GET', `/disputes/${opened.body.dispute_id}`, { key: buyer.key })).body;
    expect(decided).toMatchObject({ status: 'resolved', resolved_by: 'pipeline', refund_cents: 5 });
    expect(await escrowOf(executionId)).toMatchObject({ status: 'refunded', amount: 0n });
    expect(await wallet(seller)).toMatchObject({ balance_base_units: '100000', pending_base_units: '0', available_base_units: '100000' });
    expect(await wallet(buyer)).toMatchObject({ balance_base_units: '1000000' });
    await expectLedgerAudited(server);
  });
});

describe('a dispute after the window', () => {
  it('finds the share settled: a refund claws back what the provider has available, the marketplace bearing the rest', async () => {
    const { seller, buyer, executionId, transactionId } = await paidCall(5);
    clock.advance(WINDOW_S * 1000 + 1);
    await settleDueEscrows(server.app.services);
    expect(await escrowOf(executionId)).toMatchObject({ status: 'settled' });
    const opened = await call('POST', '/disputes', { key: buyer.key, body: { transaction_id: transactionId, reason: 'other', description: 'late' } });
    expect((await escrowOf(executionId)).status).toBe('settled');
    await server.app.services.disputes.settled();
    const resolved = await call('PATCH', `/admin/disputes/${opened.body.dispute_id}/resolve`, {
      key: ADMIN_KEY,
      body: { resolution: 'all back', refund_cents: 5 },
    });
    expect(resolved.status).toBe(200);
    expect(await wallet(seller)).toMatchObject({ balance_base_units: '0', available_base_units: '0' });
    expect(await wallet(buyer)).toMatchObject({ balance_base_units: '1000000' });
    await expectLedgerAudited(server);
  });

  it('settles a share whose window ended before the worker reached it, then claws back from it', async () => {
    const { seller, buyer, executionId, transactionId } = await paidCall(5);
    clock.advance(WINDOW_S * 1000 + 1);
    // The worker has not run since: the share is still pending, its window over.
    expect((await escrowOf(executionId)).status).toBe('pending');
    const opened = await call('POST', '/disputes', {
      key: buyer.key,
      body: { transaction_id: transactionId, reason: 'other', description: 'late, unsettled' },
    });
    expect((await escrowOf(executionId)).status).toBe('pending');
    await server.app.services.disputes.settled();
    const resolved = await call('PATCH', `/admin/disputes/${opened.body.dispute_id}/resolve`, {
      key: ADMIN_KEY,
      body: { resolution: 'all back', refund_cents: 5 },
    });
    expect(resolved.status).toBe(200);
    expect(await escrowOf(executionId)).toMatchObject({ status: 'settled' });
    const refund = await server.app.services.db.walletEntry.findMany({ where: { executionId, reference: `dispute ${opened.body.dispute_id}` } });
    expect(refund.find((e) => e.kind === 'clawback')?.amount).toBe(-45_000n);
    expect(await wallet(seller)).toMatchObject({ balance_base_units: '0', pending_base_units: '0', available_base_units: '0' });
    expect(await wallet(buyer)).toMatchObject({ balance_base_units: '1000000' });
    await expectLedgerAudited(server);
  });
});
