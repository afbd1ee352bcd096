// ACP views (spec §4.12): the priced offers as offerings in the network token at the configured rate or in
// USDC, their payment terms (404 for an unknown offering), and the marketplace's fee revenue on
// GET /admin/revenue once offerings are bought.
import { api, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { fund } from '../support/payments';

const ADMIN_KEY = `key_admin_${'A'.repeat(40)}`;
let server: TestServer;
let call: ReturnType<typeof api>;
let p: Provider;

beforeAll(async () => {
  assertTestCaTrusted();
  p = await startProvider();
  server = await startServer({
    env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', ADMIN_KEY, ACP_TOKEN_USD_RATE: '1.25', MARKETPLACE_FEE_BPS: '1500' },
  });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await p.close();
});

async function offer(capabilities: string[], cents: number) {
  const agent = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: agent.key,
    body: {
      name: `acp ${capabilities[0]}`,
      endpoint: p.url,
      capabilities,
      description: 'An ACP offering under test',
      pricing_model: cents ? 'per_call' : 'free',
      cost_per_call: cents,
    },
  });
  return { agent, serviceKey: res.body.service_key as string, serviceId: res.body.service_id as string };
}

describe('GET /acp/status', () => {
  it('answers enabled and the network, without a key', async () => {
    const res = await call('GET', '/acp/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      enabled: true,
      network: 'base-sepolia',
      chain_id: 84532,
      token: { symbol: 'VIRTUAL', decimals: 18, usd_rate: '1.25' },
      settlement: 'sandbox',
      offerings: expect.any(Number),
    });
  });
});

describe('GET /acp/offerings', () => {
  it('lists the priced offers, in the network token at the configured rate and in USDC, and no free ones', async () => {
    const cap = uniqueSlug('acp-a');
    const cheap = await offer([cap], 5);
    const dear = await offer([cap], 7);
    await offer([cap], 0);
    const inToken = (await call('GET', '/acp/offerings?limit=100')).body;
    const mine = inToken.offerings.filter((o: { capability: string }) => o.capability === cap);
    expect(mine).toEqual([
      {
        offering_id: `${cheap.serviceKey}:${cap}`,
        capability: cap,
        service_id: cheap.serviceId,
        service_key: cheap.serviceKey,
        name: `acp ${cap}`,
        description: 'An ACP offering under test',
        provider: { agent_id: cheap.agent.agentId, name: cheap.agent.name, reputation: 20 },
        price_cents: 5,
        // $0.05 at $1.25 a token: 0.04 VIRTUAL.
        price: { amount: '0.040000000000000000', base_units: '40000000000000000', currency: 'VIRTUAL', decimals: 18 },
      },
      expect.objectContaining({
        offering_id: `${dear.serviceKey}:${cap}`,
        price: { amount: '0.056000000000000000', base_units: '56000000000000000', currency: 'VIRTUAL', decimals: 18 },
      }),
    ]);
    expect(inToken.total).toBeGreaterThanOrEqual(2);
    const inUsdc = (await call('GET', '/acp/offerings/usdc?limit=100')).body;
    expect(inUsdc.offerings.filter((o: { capability: string }) => o.capability === cap).map((o: { price: unknown }) => o.price)).toEqual([
      { amount: '0.050000', base_units: '50000', currency: 'USDC', decimals: 6 },
      { amount: '0.070000', base_units: '70000', currency: 'USDC', decimals: 6 },
    ]);
    expect(inUsdc.total).toBe(inToken.total);
  });

  it('rounds a price in the token up, so a provider is never paid less', async () => {
    const cap = uniqueSlug('acp-round');
    const svc = await offer([cap], 1);
    const terms = (await call('GET', `/acp/offerings/${svc.serviceKey}:${cap}/payment-terms`)).body.terms;
    // $0.01 / 1.25 = 0.008 exactly; the USDC side is exact too.
    expect(terms.price_token).toEqual({ amount: '0.008000000000000000', base_units: '8000000000000000', currency: 'VIRTUAL', decimals: 18 });
  });
});

describe('GET /acp/offerings/:id/payment-terms', () => {
  it('answers the terms of one offering', async () => {
    const cap = uniqueSlug('acp-terms');
    const svc = await offer([cap], 12);
    const before = Date.now();
    const res = await call('GET', `/acp/offerings/${svc.serviceKey}:${cap}/payment-terms`);
    expect(res.status).toBe(200);
    const { terms } = res.body;
    expect(terms.offering).toMatchObject({ offering_id: `${svc.serviceKey}:${cap}`, price_cents: 12 });
    expect(terms.price_usdc).toEqual({ amount: '0.120000', base_units: '120000', currency: 'USDC', decimals: 6 });
    expect(terms.price_token).toMatchObject({ amount: '0.096000000000000000', currency: 'VIRTUAL' });
    expect(terms.token).toBe('VIRTUAL');
    expect(terms.phases.map((ph: { phase: string }) => ph.phase)).toEqual(['request', 'negotiation', 'transaction', 'evaluation', 'completed']);
    expect(terms.escrow).toEqual({ holder: expect.stringMatching(/^0x[0-9a-f]{40}$/), funded: expect.any(String), released: expect.any(String) });
    expect(terms.evaluation).toMatchObject({ evaluator: 'marketplace', window_seconds: 86400 });
    expect(terms.refund_policy).toMatch(/refunded/);
    expect(terms.delivery_seconds).toBe(3600);
    expect(new Date(terms.deadline).getTime()).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    expect(terms.payment).toMatchObject({ scheme: 'exact', network: 'eip155:84532', amount: '120000', payTo: terms.escrow.holder });
    expect(terms.purchase).toEqual({ method: 'POST', path: '/api/v1/execute', body: { capability: cap, provider: svc.serviceKey, mode: 'chosen', input: {} } });
  });

  it('answers 404 for an unknown offering, a free one, and one that is not an offering id', async () => {
    const cap = uniqueSlug('acp-free');
    const free = await offer([cap], 0);
    expectProblem(await call('GET', `/acp/offerings/${free.serviceKey}:${cap}/payment-terms`), 404, 'not_found');
    expectProblem(await call('GET', `/acp/offerings/svc_${'x'.repeat(24)}:${cap}/payment-terms`), 404, 'not_found');
    expectProblem(await call('GET', '/acp/offerings/nonsense/payment-terms'), 404, 'not_found');
  });
});

describe('buying an offering, and the marketplace fee on GET /admin/revenue', () => {
  it('is a paid call of the chosen service: the fee shows in revenue', async () => {
    const cap = uniqueSlug('acp-buy');
    const svc = await offer([cap], 20);
    const buyer = await registerAgent(server);
    await fund(server, buyer.key, '1');
    const before = (await call('GET', '/admin/revenue', { key: ADMIN_KEY })).body;
    const terms = (await call('GET', `/acp/offerings/${svc.serviceKey}:${cap}/payment-terms`)).body.terms;
    const bought = await call('POST', '/execute', { key: buyer.key, body: { ...terms.purchase.body, input: { job: 1 } } });
    expect(bought.status).toBe(200);
    // 15% of $0.20.
    expect(bought.body.payment).toMatchObject({ charged_base_units: '200000', fee_base_units: '30000', provider_share_base_units: '170000' });
    const after = (await call('GET', '/admin/revenue', { key: ADMIN_KEY })).body;
    expect(after.fees).toMatchObject({ fee_bps: 1500, asset: 'USDC' });
    expect(BigInt(after.fees.fees_base_units) - BigInt(before.fees.fees_base_units)).toBe(30_000n);
    expect(BigInt(after.fees.net_base_units) - BigInt(before.fees.net_base_units)).toBe(30_000n);
    const today = after.by_day[after.by_day.length - 1];
    expect(BigInt(today.fees_base_units)).toBeGreaterThanOrEqual(30_000n);
  });
});
