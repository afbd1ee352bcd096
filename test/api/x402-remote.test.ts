// X402_FACILITATOR_URL: payments verified and settled by a remote facilitator over the standard API (a real
// HTTPS one on loopback, reached through the SSRF-guarded client), the settled amount credited to the
// caller's wallet from the marketplace's inflow account; the sandbox's own endpoints step aside. A checkout
// URL is paid the same way, by the official x402 client.
import { decodePaymentResponseHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { api, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { startFacilitator, type TestFacilitator } from '../support/facilitator';
import { NETWORK, payFor, settlementOf, throwAwayAccount } from '../support/payments';
import { ACCOUNTS } from '../../src/domain/payments/setup';

const PAY_TO = `0x${'7a'.repeat(20)}`;
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
let server: TestServer;
let call: ReturnType<typeof api>;
let facilitator: TestFacilitator;
let p: Provider;

beforeAll(async () => {
  assertTestCaTrusted();
  facilitator = await startFacilitator(USDC);
  p = await startProvider();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', X402_FACILITATOR_URL: facilitator.url, X402_PAY_TO: PAY_TO } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await facilitator.close();
  await p.close();
});

async function paidCapability(cents: number) {
  const cap = uniqueSlug('remote');
  const seller = await registerAgent(server);
  await call('POST', '/services/register', {
    key: seller.key,
    body: {
      name: 'Remote-paid',
      endpoint: p.url,
      capabilities: [cap],
      description: 'Paid through a remote facilitator',
      pricing_model: 'per_call',
      cost_per_call: cents,
    },
  });
  return { cap, seller };
}

it('says so in the sandbox status, and keeps the faucet and test payments to sandbox mode', async () => {
  const status = await call('GET', '/x402/sandbox/status');
  expect(status.body).toMatchObject({ sandbox: false, facilitator: facilitator.url, pay_to: PAY_TO });
  expect((await call('GET', '/acp/status')).body.settlement).toBe('x402');
  const me = await registerAgent(server);
  expectProblem(await call('POST', '/x402/sandbox/faucet', { key: me.key, body: {} }), 409, 'conflict');
  expectProblem(await call('POST', '/x402/sandbox/test-payment', { key: me.key, body: {} }), 409, 'conflict');
});

it('pays a call through the remote facilitator: settled on its chain, credited to the caller, charged once', async () => {
  const { cap, seller } = await paidCapability(6);
  const payer = await throwAwayAccount();
  facilitator.balances.set(payer.address.toLowerCase(), 1_000_000n);
  const me = await registerAgent(server);
  const first = await call('POST', '/execute', { key: me.key, body: { capability: cap, input: { a: 1 } } });
  expectProblem(first, 402, 'payment_required');
  expect(first.body.accepts[0]).toMatchObject({ payTo: PAY_TO, amount: '60000', network: 'eip155:84532', asset: USDC });
  const headers = await payFor(first, payer);
  const paid = await call('POST', '/execute', { key: me.key, body: { capability: cap, input: { a: 1 } }, headers });
  expect(paid.status).toBe(200);
  expect(settlementOf(paid)).toMatchObject({ success: true, payer: payer.address.toLowerCase() });
  // On the facilitator's chain the payer paid the marketplace's address.
  expect(facilitator.balances.get(payer.address.toLowerCase())).toBe(940_000n);
  expect(facilitator.balances.get(PAY_TO)).toBe(60_000n);
  // In the ledger the inflow credited the caller, who paid the provider and the fee.
  const db = server.app.services.db;
  const inflow = await db.walletEntry.aggregate({ where: { walletId: ACCOUNTS.inflow }, _sum: { amount: true } });
  expect(inflow._sum.amount).toBe(-60_000n);
  expect((await db.wallet.findUniqueOrThrow({ where: { agentId: me.agentId } })).balance).toBe(0n);
  expect((await db.wallet.findUniqueOrThrow({ where: { agentId: seller.agentId } })).balance).toBe(54_000n);
  // A replay is answered from what it paid for, with no second settlement.
  const settles = facilitator.requests.settle;
  const again = await call('POST', '/execute', { key: me.key, body: { capability: cap, input: { a: 1 } }, headers });
  expect(again.body.execution_id).toBe(paid.body.execution_id);
  expect(facilitator.requests.settle).toBe(settles);
});

it('answers 402 with the reason when the facilitator refuses, and 503 when it is down, charging nothing', async () => {
  const { cap } = await paidCapability(2);
  const poor = await throwAwayAccount();
  const me = await registerAgent(server);
  const first = await call('POST', '/execute', { key: me.key, body: { capability: cap, input: {} } });
  const refused = await call('POST', '/execute', { key: me.key, body: { capability: cap, input: {} }, headers: await payFor(first, poor) });
  expectProblem(refused, 402, 'payment_required');
  expect(refused.body.error).toMatch(/^invalid_exact_evm/);

  const payer = await throwAwayAccount();
  facilitator.balances.set(payer.address.toLowerCase(), 100_000n);
  facilitator.failWith = 502;
  try {
    const down = await call('POST', '/execute', { key: me.key, body: { capability: cap, input: {} }, headers: await payFor(first, payer) });
    expectProblem(down, 503, 'service_unavailable');
    expect(down.headers.get('retry-after')).toBeTruthy();
  } finally {
    facilitator.failWith = undefined;
  }
  expect(facilitator.balances.get(payer.address.toLowerCase())).toBe(100_000n);
  expect(p.calls.filter((c) => c.json?.capability === cap)).toHaveLength(0);
});

it('pays a checkout URL through the remote facilitator when the official client (@x402/fetch) GETs it: settled once on its chain, the payee paid once, a replay moving nothing', async () => {
  const seller = await registerAgent(server);
  const offer = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'A remote report', price_cents: 30 } });
  const buyer = await registerAgent(server);
  const checkout = await call('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: offer.body.offer_id } });
  const url: string = checkout.body.checkout_url;
  const payer = await throwAwayAccount();
  facilitator.balances.set(payer.address.toLowerCase(), 1_000_000n);
  const sent: Request[] = [];
  const recorded = (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push(request.clone());
    return fetch(request);
  };
  const res = await wrapFetchWithPayment(recorded, new x402Client().register(NETWORK, new ExactEvmScheme(payer)))(url);
  expect(res.status).toBe(200);
  expect(sent.map((r) => [r.method, r.headers.has('payment-signature')])).toEqual([
    ['GET', false],
    ['GET', true],
  ]);
  const body = await res.json();
  expect(body).toMatchObject({ paid: true, checkout: { status: 'paid', payer: payer.address.toLowerCase() } });
  const transaction = decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction;
  // On the facilitator's chain the payer paid the marketplace's address; in the ledger the inflow credited
  // the buyer, who paid the payee less the fee.
  expect(facilitator.balances.get(payer.address.toLowerCase())).toBe(700_000n);
  const db = server.app.services.db;
  const entries = await db.walletEntry.findMany({ where: { reference: `checkout ${checkout.body.checkout_id}` } });
  expect(entries.map((e) => [e.kind, e.amount]).sort()).toEqual([
    ['fee', 30_000n],
    ['purchase', -300_000n],
    ['sale', 270_000n],
  ]);
  expect((await db.wallet.findUniqueOrThrow({ where: { agentId: seller.agentId } })).balance).toBe(270_000n);
  expect((await db.wallet.findUniqueOrThrow({ where: { agentId: buyer.agentId } })).balance).toBe(0n);
  // The same payment again: the same receipt, no second settlement.
  const settles = facilitator.requests.settle;
  const again = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': sent[1].headers.get('payment-signature')! } });
  expect(again.status).toBe(200);
  expect((await again.json()).checkout.payment_id).toBe(body.checkout.payment_id);
  expect(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction).toBe(transaction);
  expect(facilitator.requests.settle).toBe(settles);
  expect(facilitator.balances.get(payer.address.toLowerCase())).toBe(700_000n);
  expect(await db.walletEntry.count({ where: { reference: `checkout ${checkout.body.checkout_id}` } })).toBe(3);
});
