// Spec §4.12 payments and on-chain commerce, with CONTRACT §8 and §4.1's wallet rows: the x402 sandbox's
// status and test payment, the ACP status, offerings and payment terms, a paid capability's 402 with the x402
// requirements, paid with PAYMENT-SIGNATURE (signed by the official x402 client with a throw-away key) and
// answered with PAYMENT-RESPONSE, settled once however often it is replayed, and an agent's wallet.
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { api, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { assertTestCaTrusted } from '../support/https';
import { expectProblem } from '../support/expect';
import { startProvider, type Provider } from '../support/provider';
import { fund, NETWORK, payFor, settlementOf, throwAwayAccount } from '../support/payments';

let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Provider;

beforeAll(async () => {
  assertTestCaTrusted();
  provider = await startProvider('paid-provider');
  // Wallets open empty (a documented setting), so that a new caller's paid call asks for a payment.
  server = await startServer({ env: { OUTBOUND_ALLOW_PRIVATE: '1', SANDBOX_STARTING_BALANCE: '0' } });
  call = api(server);
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

/** A provider's service offering a new capability at `cents` per call. */
async function paidCapability(cents: number) {
  const capability = uniqueSlug('paid');
  const seller = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: seller.key,
    body: {
      name: `Paid ${capability}`,
      endpoint: provider.url,
      capabilities: [capability],
      description: 'A paid capability under test',
      pricing_model: 'per_call',
      cost_per_call: cents,
    },
  });
  expect(res.status).toBe(201);
  return { capability, seller, serviceKey: res.body.service_key as string };
}

/** A throw-away key whose address is the wallet of a funded agent (the sandbox settles its payments). */
async function payingAccount(amount = '1') {
  const account = await throwAwayAccount();
  const sponsor = await registerAgent(server);
  expect((await call('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: account.address } })).status).toBe(201);
  await fund(server, sponsor.key, amount);
  return Object.assign(account, { agentId: sponsor.agentId, key: sponsor.key });
}

const balanceOf = async (a: { agentId: string; key: string }) =>
  BigInt((await call('GET', `/agents/${a.agentId}/wallet`, { key: a.key })).body.balance_base_units);

describe('§4.12 the x402 sandbox', () => {
  it('§4.12 GET /x402/sandbox/status (no key) answers 200 sandbox', async () => {
    const res = await call('GET', '/x402/sandbox/status');
    expect(res.status).toBe(200);
    expect(res.body.sandbox).toBe(true);
  });

  it('§4.12 POST /x402/sandbox/test-payment answers 200 simulated', async () => {
    const me = await registerAgent(server);
    await fund(server, me.key, '1');
    const res = await call('POST', '/x402/sandbox/test-payment', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.simulated).toBe(true);
  });
});

describe('§4.12 on-chain agent commerce (ACP)', () => {
  it('§4.12 GET /acp/status (no key) answers 200 enabled and network', async () => {
    const res = await call('GET', '/acp/status');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ enabled: expect.any(Boolean), network: expect.any(String) });
  });

  it('§4.12 GET /acp/offerings answers offerings priced in a network token; /acp/offerings/usdc answers offerings; /acp/offerings/:id/payment-terms answers terms', async () => {
    const { capability, serviceKey } = await paidCapability(8);
    const inToken = await call('GET', '/acp/offerings?limit=100');
    expect(inToken.status).toBe(200);
    const status = (await call('GET', '/acp/status')).body;
    const offering = inToken.body.offerings.find((o: { capability: string }) => o.capability === capability);
    expect(offering.price.currency).toBe(status.token.symbol);
    const inUsdc = await call('GET', '/acp/offerings/usdc?limit=100');
    expect(inUsdc.status).toBe(200);
    expect(inUsdc.body.offerings.find((o: { capability: string }) => o.capability === capability).price).toMatchObject({
      currency: 'USDC',
      base_units: '80000',
    });
    const terms = await call('GET', `/acp/offerings/${encodeURIComponent(offering.offering_id)}/payment-terms`);
    expect(terms.status).toBe(200);
    expect(terms.body.terms.offering).toMatchObject({ offering_id: `${serviceKey}:${capability}` });
  });
});

describe('CONTRACT §8 paid capabilities', () => {
  it('CONTRACT §8 a paid capability executed without payment answers 402: x402Version and accepts in the problem+json body, the same requirements base64 in PAYMENT-REQUIRED', async () => {
    const { capability } = await paidCapability(12);
    const me = await registerAgent(server);
    const res = await call('POST', '/execute', { key: me.key, body: { capability, input: {} } });
    expectProblem(res, 402, 'payment_required');
    expect(res.body.x402Version).toBe(2);
    expect(res.body.accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        network: NETWORK,
        amount: '120000',
        asset: expect.any(String),
        payTo: expect.any(String),
        maxTimeoutSeconds: expect.any(Number),
      }),
    ]);
    const header = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    expect(header).toMatchObject({ x402Version: 2, accepts: res.body.accepts });
  });

  it('CONTRACT §8 the client retries with PAYMENT-SIGNATURE; success adds PAYMENT-RESPONSE', async () => {
    const { capability } = await paidCapability(7);
    const payer = await payingAccount();
    const me = await registerAgent(server);
    const first = await call('POST', '/execute', { key: me.key, body: { capability, input: { q: 1 } } });
    expectProblem(first, 402, 'payment_required');
    const paid = await call('POST', '/execute', { key: me.key, body: { capability, input: { q: 1 } }, headers: await payFor(first, payer) });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('success');
    expect(settlementOf(paid)).toMatchObject({ success: true, network: NETWORK, payer: payer.address.toLowerCase() });
  });

  it('CONTRACT §8 one payment settles once, however often it is replayed', async () => {
    const { capability, seller } = await paidCapability(9);
    const payer = await payingAccount();
    const me = await registerAgent(server);
    const body = { capability, input: { once: true } };
    const first = await call('POST', '/execute', { key: me.key, body });
    const headers = await payFor(first, payer);
    const before = await balanceOf(payer);
    const answers = await Promise.all(Array.from({ length: 5 }, () => call('POST', '/execute', { key: me.key, body, headers })));
    const again = await call('POST', '/execute', { key: me.key, body, headers });
    for (const a of [...answers, again]) {
      expect(a.status).toBe(200);
      expect(a.body.execution_id).toBe(answers[0].body.execution_id);
      expect(settlementOf(a).transaction).toBe(settlementOf(answers[0]).transaction);
    }
    // Paid once: 0.09 from the payer, the provider's share (less the 10% fee) to the seller, one call made.
    expect(before - (await balanceOf(payer))).toBe(90_000n);
    expect(await balanceOf(seller)).toBe(81_000n);
    expect(provider.calls.filter((c) => c.json?.capability === capability)).toHaveLength(1);
    expect(await server.app.services.db.x402Payment.count({ where: { payer: payer.address.toLowerCase() } })).toBe(1);
  });
});

describe('§4.1 wallets', () => {
  it('§4.1 POST /agents/:agentId/wallet answers 201 wallet_address; GET /agents/:agentId/wallet answers 200 balance', async () => {
    const me = await registerAgent(server);
    const created = await call('POST', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(created.status).toBe(201);
    expect(created.body.wallet_address).toMatch(/^0x[0-9a-f]{40}$/);
    const read = await call('GET', `/agents/${me.agentId}/wallet`, { key: me.key });
    expect(read.status).toBe(200);
    expect(read.body.balance).toMatch(/^\d+\.\d+$/);
  });
});
