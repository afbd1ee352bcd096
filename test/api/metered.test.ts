// Metered calls (docs/payments.md, Metered calls): a service priced per unit holds the most a call can cost, is told
// the call's budget in units, answers what it used in X-Usage-Units, and is paid that at its unit price (rounded up
// to a whole cent, never above what was held); the rest goes back. The ledger audit holds after each test.
import { expectLedgerAudited, fund } from '../support/payments';
import { api, registerAgent, registerService, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { expectProblem } from '../support/expect';

let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Provider;

beforeAll(async () => {
  assertTestCaTrusted();
  provider = await startProvider('metered');
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', SANDBOX_STARTING_BALANCE: '0', DISPUTE_WINDOW_SECONDS: '0' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await provider.close();
});

/** 0.04 cents a token, at most 1,000 tokens a call: a call costs at most 40 cents. */
const METERED = { unit: 'token', cents_per_unit: 0.04, max_units: 1000 };

/** A seller of a fresh capability, metered as `metered`, and a funded buyer. */
async function market(metered: Record<string, unknown> = METERED) {
  const capability = uniqueSlug('metered');
  const seller = await registerAgent(server);
  const service = await registerService(server, seller.key, {
    endpoint: provider.url,
    capabilities: [capability],
    pricing_model: 'per_call',
    pricing_details: { notes: 'per token', metered },
    // Left out: a metered service's price per call is the most a call can cost.
    cost_per_call: undefined,
  });
  const buyer = await registerAgent(server);
  await fund(server, buyer.key, '5');
  return { capability, seller, service, buyer };
}

const balanceOf = async (agent: { agentId: string; key: string }) =>
  BigInt((await call('GET', `/agents/${agent.agentId}/wallet`, { key: agent.key })).body.balance_base_units ?? '0');

describe('registering a metered service', () => {
  it('prices a call at the most it can cost, read in either spelling', async () => {
    const { service, seller } = await market();
    const read = (await call('GET', `/services/${service.service_key}`, { key: seller.key })).body;
    expect(read).toMatchObject({ costPerCall: 40, pricing_details: { notes: 'per token', metered: METERED } });
    const camel = await registerService(server, seller.key, {
      endpoint: provider.url,
      capabilities: [uniqueSlug('metered')],
      pricing_model: undefined,
      cost_per_call: undefined,
      pricingModel: 'per_call',
      pricingDetails: { metered: { unit: 'page', centsPerUnit: 2.5, maxUnits: 9 } },
      costPerCall: 23,
    });
    expect((await call('GET', `/services/${camel.service_key}`, { key: seller.key })).body).toMatchObject({
      costPerCall: 23,
      pricing_details: { metered: { unit: 'page', cents_per_unit: 2.5, max_units: 9 } },
    });
  });

  it('names each bad field of its metering as the client spelled it', async () => {
    const seller = await registerAgent(server);
    const register = (body: Record<string, unknown>) =>
      call('POST', '/services/register', {
        key: seller.key,
        body: {
          name: uniqueName('metered'),
          description: 'A metered service',
          endpoint: provider.url,
          capabilities: ['metered-bad'],
          pricing_model: 'per_call',
          ...body,
        },
      });
    const snake = await register({ pricing_details: { metered: { unit: 'Token!', cents_per_unit: 0, max_units: 1.5 } } });
    expectProblem(snake, 400, 'validation_failed');
    expect(snake.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'pricing_details.metered.cents_per_unit',
      'pricing_details.metered.max_units',
      'pricing_details.metered.unit',
    ]);
    const camel = await register({ pricingDetails: { metered: { unit: 'token', centsPerUnit: 0.00001, maxUnits: 10 } } });
    expect(camel.body.errors.map((e: { path: string }) => e.path)).toEqual(['pricingDetails.metered.centsPerUnit']);
    // The most a call can cost is the price per call: another one is refused, and so is a free metered service.
    const price = await register({ pricing_details: { metered: METERED }, cost_per_call: 10 });
    expect(price.body.errors).toEqual([expect.objectContaining({ path: 'cost_per_call', message: expect.stringContaining('40') })]);
    const free = await register({ pricing_details: { metered: METERED }, pricing_model: 'free' });
    expect(free.body.errors.map((e: { path: string }) => e.path)).toContain('pricing_model');
    const tooDear = await register({ pricing_details: { metered: { unit: 'token', cents_per_unit: 1000, max_units: 1_000_000 } } });
    expect(tooDear.body.errors.map((e: { path: string }) => e.path)).toEqual(['pricing_details.metered.max_units']);
  });
});

describe('executing a metered capability', () => {
  it('tells the provider its budget, charges what it used and gives the rest back', async () => {
    const { capability, seller, buyer } = await market();
    const [buyerBefore, sellerBefore] = [await balanceOf(buyer), await balanceOf(seller)];
    provider.behave({ json: { answer: 'done' }, headers: { 'X-Usage-Units': '250' } });
    const res = await call('POST', '/execute', { key: buyer.key, body: { capability, input: { text: 'count me' } } });
    expect(res.status).toBe(200);
    expect(provider.calls.at(-1)!.json.metering).toEqual({ unit: 'token', cents_per_unit: 0.04, max_units: 1000, max_cents: 40 });
    // 250 tokens at 0.04 cents: 10 cents, of the 40 a call could cost.
    expect(res.body.payment).toMatchObject({
      charged_cents: 10,
      metered: { unit: 'token', units: 250, charged_units: 250, cents_per_unit: 0.04, max_cents: 40 },
    });
    expect(res.body.transaction.cost_cents).toBe(10);
    expect(res.body.attempts[0].metered).toEqual({ unit: 'token', units: 250, cents_per_unit: 0.04, charged_units: 250, charged_cents: 10 });
    expect(await balanceOf(buyer)).toBe(buyerBefore - 100_000n);
    expect((await balanceOf(seller)) > sellerBefore).toBe(true);
    // Read again, the execution and its signed receipt say the same.
    const receipt = (await call('GET', `/executions/${res.body.execution_id}/receipt`, { key: buyer.key })).body;
    expect(receipt.claims.receipt).toMatchObject({
      price_cents: 10,
      payment: { metered: { unit: 'token', units: 250, charged_units: 250, cents_per_unit: 0.04, max_cents: 40 } },
    });
    await expectLedgerAudited(server);
  });

  it('charges no more than the budget, whatever the provider says it used, and rounds a cent up', async () => {
    const { capability, buyer } = await market();
    provider.behave({ headers: { 'X-Usage-Units': '5000' } }, { headers: { 'X-Usage-Units': '1' } });
    const over = await call('POST', '/execute', { key: buyer.key, body: { capability, input: {} } });
    expect(over.body.payment).toMatchObject({ charged_cents: 40, metered: { units: 5000, charged_units: 1000, max_cents: 40 } });
    const little = await call('POST', '/execute', { key: buyer.key, body: { capability, input: {} } });
    expect(little.body.payment).toMatchObject({ charged_cents: 1, metered: { units: 1, charged_units: 1 } });
    await expectLedgerAudited(server);
  });

  it('pays nothing for an answer that does not say what it used', async () => {
    const { capability, buyer } = await market();
    const before = await balanceOf(buyer);
    provider.behave({ json: { answer: 'free?' } }, { json: { answer: 'free?' }, headers: { 'X-Usage-Units': 'lots' } });
    for (let i = 0; i < 2; i++) {
      const res = await call('POST', '/execute', { key: buyer.key, body: { capability, input: {} } });
      expect(res.body).toMatchObject({ status: 'error', transaction: { cost_cents: 0 }, payment: { charged_cents: 0, metered: null } });
      expect(res.body.attempts[0]).toMatchObject({ outcome: 'failure', reason: 'invalid_usage', category: 'bad_output', metered: null });
    }
    expect(await balanceOf(buyer)).toBe(before);
    await expectLedgerAudited(server);
  });

  it('is passed over by a caller whose max_cost_cents is under the most a call can cost', async () => {
    const { capability, buyer } = await market();
    const res = await call('POST', '/execute', { key: buyer.key, body: { capability, input: {}, routing: { max_cost_cents: 30 } } });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'routing.max_cost_cents', message: expect.stringContaining('at 40 cents') })]);
  });

  it('counts what a call used against a spend mandate, not what it held', async () => {
    const { capability } = await market();
    const owner = await registerAgent(server);
    await fund(server, owner.key, '5');
    const sub = await call('POST', `/agents/${owner.agentId}/sub-agents`, {
      key: owner.key,
      body: { name: uniqueName('sub'), description: 'A helper', autonomyLevel: 'CREATE', authorityScope: [] },
    });
    const mandate = await call('POST', '/mandates', { key: owner.key, body: { agent_id: sub.body.id, daily_cents: 50 } });
    provider.behave({ headers: { 'X-Usage-Units': '100' } });
    const res = await call('POST', '/execute', { key: sub.body.master_key, body: { capability, input: {} } });
    expect(res.body.payment).toMatchObject({ charged_cents: 4, mandate: { mandate_id: mandate.body.mandate_id, remaining_today_cents: 46 } });
    expect((await call('GET', `/mandates/${mandate.body.mandate_id}`, { key: owner.key })).body.today).toMatchObject({ spent_cents: 4, held_cents: 0 });
    await expectLedgerAudited(server);
  });
});
