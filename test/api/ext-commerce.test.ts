// The gateway's commerce and broadcast (issue 17): payment offers, checkout URLs that answer x402
// requirements and settle through the payments engine (paid with the official x402 client and real EIP-712
// signatures from throw-away keys), and the radio: channels, the SSE stream with Last-Event-ID, the GraphQL
// subscription, and announcements.
import WebSocket from 'ws';
import { createClient as createWsClient } from 'graphql-ws';
import { api, gql, registerAgent, registerService, startServer, uniqueSlug, type HttpResult, type TestServer } from '../support/server';
import { errorPaths, eventually, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { FakeClock } from '../support/clock';
import { fund, NETWORK, payFor, paymentRequiredOf, settlementOf, signAuthorization, throwAwayAccount } from '../support/payments';
import { openSse } from '../support/sse';
import { startProvider, type Provider } from '../support/provider';
import { ACCOUNTS } from '../../src/domain/payments/setup';

const ADMIN_KEY = `key_admin_${'R'.repeat(40)}`;
const clock = new FakeClock();
let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Provider;

beforeAll(async () => {
  assertTestCaTrusted();
  // Wallets open empty (no sandbox starting balance), so that every balance here is what a checkout moved.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', ADMIN_KEY, SANDBOX_STARTING_BALANCE: '0' }, clock });
  call = api(server);
  provider = await startProvider('radio-provider');
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

const balanceOf = async (agentId: string) => (await server.app.services.db.wallet.findUnique({ where: { agentId } }))?.balance ?? 0n;

async function expectLedgerBalanced() {
  const db = server.app.services.db;
  const byTransfer = await db.walletEntry.groupBy({ by: ['transferId'], _sum: { amount: true } });
  expect(byTransfer.filter((t) => t._sum.amount !== 0n)).toEqual([]);
}

/** A throw-away key whose address is a funded wallet of a sponsor agent (it pays x402 payments in sandbox mode). */
async function payingAccount(amount = '5') {
  const account = await throwAwayAccount();
  const sponsor = await registerAgent(server);
  expect((await call('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: account.address } })).status).toBe(201);
  await fund(server, sponsor.key, amount);
  return Object.assign(account, { agentId: sponsor.agentId });
}

/** Fetches a checkout URL as any client would: no key. */
async function atUrl(url: string, method: 'GET' | 'POST' = 'GET', headers: Record<string, string> = {}): Promise<HttpResult> {
  const res = await fetch(url, { method, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

async function sellerWithExternalAgent() {
  const seller = await registerAgent(server);
  const ext = await call('POST', '/ext/agents/register', {
    key: seller.key,
    body: { instance_url: `https://seller-${Date.now()}.example/agent`, capabilities: ['translate'] },
  });
  expect(ext.status).toBe(201);
  return { seller, externalAgentId: ext.body.external_agent.external_agent_id as string };
}

describe('payment offers', () => {
  it('creates an offer (201 offer_id) in cents or base units, paid to the caller, a sub-agent or an external agent of its own', async () => {
    const { seller, externalAgentId } = await sellerWithExternalAgent();
    const res = await call('POST', '/ext/payments/offer', {
      key: seller.key,
      body: { description: 'A translated page', price_cents: 25, payee_external_agent_id: externalAgentId, expires_in: 3600 },
    });
    expect(res.status).toBe(201);
    expect(res.body.offer_id).toMatch(/^offer_[0-9A-Za-z]{24}$/);
    expect(res.body.offer).toMatchObject({
      offer_id: res.body.offer_id,
      agent_id: seller.agentId,
      description: 'A translated page',
      price_cents: 25,
      price: '0.250000',
      price_base_units: '250000',
      payee_agent_id: seller.agentId,
      payee_external_agent_id: externalAgentId,
    });
    expect(new Date(res.body.offer.expires_at).getTime() - clock.now().getTime()).toBe(3_600_000);
    // camelCase, base units, the default expiry (30 days), paid to the caller.
    const units = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'Units', priceBaseUnits: '1500000' } });
    expect(units.status).toBe(201);
    expect(units.body.offer).toMatchObject({ price_cents: 150, payee_agent_id: seller.agentId, payee_external_agent_id: null });
    expect(new Date(units.body.offer.expires_at).getTime() - clock.now().getTime()).toBe(30 * 86_400_000);
    // Readable by any agent that knows its id.
    const stranger = await registerAgent(server);
    expect((await call('GET', `/ext/payments/offers/${res.body.offer_id}`, { key: stranger.key })).body).toMatchObject({
      offer_id: res.body.offer_id,
      price_cents: 25,
    });
    expectProblem(await call('GET', '/ext/payments/offers/offer_nope', { key: stranger.key }), 404, 'not_found');
  });

  it('refuses bad offers naming the fields, and a payee that is not the caller’s (404)', async () => {
    const { seller } = await sellerWithExternalAgent();
    const bad = await call('POST', '/ext/payments/offer', {
      key: seller.key,
      body: { price_cents: 0, payee_agent_id: 'x', payee_external_agent_id: 'y', expires_in: 5 },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['description', 'expires_in', 'payee_external_agent_id', 'price_cents']);
    const mismatch = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'x', price_cents: 3, price_base_units: '40000' } });
    expect(errorPaths(mismatch)).toEqual(['price_base_units']);
    const fraction = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'x', price_base_units: '12345' } });
    expect(errorPaths(fraction)).toEqual(['price_base_units']);
    expect(errorPaths(await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'x' } }))).toEqual(['price_cents']);
    const other = await sellerWithExternalAgent();
    expectProblem(
      await call('POST', '/ext/payments/offer', {
        key: seller.key,
        body: { description: 'x', price_cents: 1, payee_external_agent_id: other.externalAgentId },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'x', price_cents: 1, payee_agent_id: other.seller.agentId } }),
      404,
      'not_found',
    );
  });
});

describe('checkout', () => {
  async function openCheckout(cents = 20) {
    const { seller, externalAgentId } = await sellerWithExternalAgent();
    const offer = await call('POST', '/ext/payments/offer', {
      key: seller.key,
      body: { description: 'A report', price_cents: cents, payee_external_agent_id: externalAgentId },
    });
    const buyer = await registerAgent(server);
    const res = await call('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: offer.body.offer_id } });
    expect(res.status).toBe(200);
    return { seller, externalAgentId, buyer, offerId: offer.body.offer_id as string, checkout: res.body };
  }

  it('answers a checkout_url under PUBLIC_BASE_URL that asks for the offer’s x402 payment, settles it once and pays the payee', async () => {
    const { seller, buyer, offerId, checkout } = await openCheckout(20);
    const base = server.app.services.config.publicBaseUrl;
    expect(checkout).toMatchObject({
      offer_id: offerId,
      status: 'open',
      price_cents: 20,
      amount_base_units: '200000',
      buyer_agent_id: buyer.agentId,
      payee_agent_id: seller.agentId,
    });
    expect(checkout.checkout_url).toBe(`${base}/api/v1/ext/payments/checkout/${checkout.checkout_id}`);
    const url = `${server.url}/api/v1/ext/payments/checkout/${checkout.checkout_id}`;

    const asked = await atUrl(url);
    expectProblem(asked, 402, 'payment_required');
    const required = paymentRequiredOf(asked);
    expect(required.resource.url).toBe(checkout.checkout_url);
    expect(required.resource.description).toContain('A report');
    expect(required.accepts).toEqual([expect.objectContaining({ scheme: 'exact', network: NETWORK, amount: '200000' })]);

    const payer = await payingAccount('1');
    const headers = await payFor(asked, payer);
    const paid = await atUrl(url, 'POST', headers);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ paid: true, checkout: { checkout_id: checkout.checkout_id, status: 'paid', payer: payer.address.toLowerCase() } });
    const settled = settlementOf(paid);
    expect(settled).toMatchObject({
      success: true,
      network: NETWORK,
      payer: payer.address.toLowerCase(),
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    // The payer's address paid 0.20; the buyer was credited and charged it; the payee got it less the 10% fee.
    expect(await balanceOf(payer.agentId)).toBe(800_000n);
    expect(await balanceOf(buyer.agentId)).toBe(0n);
    expect(await balanceOf(seller.agentId)).toBe(180_000n);
    const entries = await server.app.services.db.walletEntry.findMany({ where: { reference: `checkout ${checkout.checkout_id}` } });
    expect(entries.map((e) => [e.kind, e.amount]).sort()).toEqual([
      ['fee', 20_000n],
      ['purchase', -200_000n],
      ['sale', 180_000n],
    ]);
    expect(entries.find((e) => e.kind === 'fee')!.walletId).toBe(ACCOUNTS.revenue);

    // A replay (GET or POST) answers the same receipt; the URL without a payment answers it too.
    for (const again of [await atUrl(url, 'GET', headers), await atUrl(url, 'POST', headers), await atUrl(url)]) {
      expect(again.status).toBe(200);
      expect(again.body.checkout.payment_id).toBe(paid.body.checkout.payment_id);
      expect(settlementOf(again).transaction).toBe(settled.transaction);
    }
    // Another payment for a paid checkout moves nothing.
    const late = await signAuthorization(payer, required.accepts[0]);
    expectProblem(await atUrl(url, 'POST', { 'PAYMENT-SIGNATURE': late.header }), 409, 'conflict');
    expect(await balanceOf(payer.agentId)).toBe(800_000n);
    await expectLedgerBalanced();

    // The external agent's owner hears of it through its gateway events.
    const events = await call('GET', '/ext/gateway/events', { key: seller.key });
    expect(events.body.events).toEqual([
      expect.objectContaining({
        type: 'payment.received',
        data: expect.objectContaining({
          checkout_id: checkout.checkout_id,
          offer_id: offerId,
          amount: '200000',
          fee: '20000',
          payer: payer.address.toLowerCase(),
          transaction: settled.transaction,
        }),
      }),
    ]);
  });

  it('settles 20 concurrent copies of one payment once, half of them sent with GET and half with POST', async () => {
    const { seller, checkout } = await openCheckout(7);
    const url = `${server.url}/api/v1/ext/payments/checkout/${checkout.checkout_id}`;
    const payer = await payingAccount('1');
    const headers = await payFor(await atUrl(url), payer);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => atUrl(url, i % 2 ? 'GET' : 'POST', headers)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => settlementOf(a).transaction)).size).toBe(1);
    expect(await balanceOf(payer.agentId)).toBe(930_000n);
    expect(await balanceOf(seller.agentId)).toBe(63_000n);
    expect(await server.app.services.db.x402Payment.count({ where: { payer: payer.address.toLowerCase() } })).toBe(1);
    await expectLedgerBalanced();
  });

  it('lets one of several different payments sent at once pay the checkout; nothing is lost from the others', async () => {
    const { seller, buyer, checkout } = await openCheckout(5);
    const url = `${server.url}/api/v1/ext/payments/checkout/${checkout.checkout_id}`;
    const required = paymentRequiredOf(await atUrl(url)).accepts[0];
    const payer = await payingAccount('1');
    const signed = await Promise.all(Array.from({ length: 8 }, () => signAuthorization(payer, required)));
    const answers = await Promise.all(signed.map((s) => atUrl(url, 'POST', { 'PAYMENT-SIGNATURE': s.header })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expectProblem(a, 409, 'conflict');
    // Payments settled at the very same moment as the winner stay the buyer's: whatever left the payer is accounted for.
    const settledCount = await server.app.services.db.x402Payment.count({ where: { payer: payer.address.toLowerCase(), status: 'settled' } });
    expect(settledCount).toBeGreaterThanOrEqual(1);
    expect(await balanceOf(payer.agentId)).toBe(1_000_000n - 50_000n * BigInt(settledCount));
    expect(await balanceOf(buyer.agentId)).toBe(50_000n * BigInt(settledCount - 1));
    expect(await balanceOf(seller.agentId)).toBe(45_000n);
    await expectLedgerBalanced();
  });

  it('refuses a tampered or mismatched payment with 402 and moves nothing; a payment that paid a checkout cannot pay another', async () => {
    const first = await openCheckout(3);
    const url = `${server.url}/api/v1/ext/payments/checkout/${first.checkout.checkout_id}`;
    const required = paymentRequiredOf(await atUrl(url)).accepts[0];
    const payer = await payingAccount('1');
    const short = await signAuthorization(payer, required, { value: 20_000n });
    const refused = await atUrl(url, 'POST', { 'PAYMENT-SIGNATURE': short.header });
    expectProblem(refused, 402, 'payment_required');
    const elsewhere = await signAuthorization(payer, { ...required, amount: '20000' });
    const mismatch = await atUrl(url, 'POST', { 'PAYMENT-SIGNATURE': elsewhere.header });
    expectProblem(mismatch, 402, 'payment_required');
    expect(mismatch.body.error).toBe('payment_requirements_mismatch');
    for (const method of ['GET', 'POST'] as const) {
      const notAPayment = await atUrl(url, method, { 'PAYMENT-SIGNATURE': 'not a payment' });
      expectProblem(notAPayment, 400, 'validation_failed');
      expect(errorPaths(notAPayment)).toEqual(['PAYMENT-SIGNATURE']);
    }
    expect(await balanceOf(payer.agentId)).toBe(1_000_000n);

    const good = await signAuthorization(payer, required);
    expect((await atUrl(url, 'POST', { 'PAYMENT-SIGNATURE': good.header })).status).toBe(200);
    const second = await openCheckout(3);
    const reused = await atUrl(`${server.url}/api/v1/ext/payments/checkout/${second.checkout.checkout_id}`, 'POST', { 'PAYMENT-SIGNATURE': good.header });
    expectProblem(reused, 402, 'payment_required');
    expect(reused.body.error).toBe('payment_already_used');
    expect(await balanceOf(payer.agentId)).toBe(970_000n);
    await expectLedgerBalanced();
  });

  it('refuses to check out an unknown, expired or own offer; an expired checkout is 409; strangers see 404', async () => {
    const { seller } = await sellerWithExternalAgent();
    const buyer = await registerAgent(server);
    expectProblem(await call('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: 'offer_missing' } }), 404, 'not_found');
    expect(errorPaths(await call('POST', '/ext/payments/checkout', { key: buyer.key, body: {} }))).toEqual(['offer_id']);
    const own = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'mine', price_cents: 2 } });
    expectProblem(await call('POST', '/ext/payments/checkout', { key: seller.key, body: { offer_id: own.body.offer_id } }), 409, 'conflict');
    const brief = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'brief', price_cents: 2, expires_in: 60 } });
    const opened = await call('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: brief.body.offer_id } });
    expect(new Date(opened.body.expires_at).getTime()).toBe(new Date(brief.body.offer.expires_at).getTime());
    const url = `${server.url}/api/v1/ext/payments/checkout/${opened.body.checkout_id}`;
    expectProblem(await atUrl(url), 402, 'payment_required');
    clock.advance(61_000);
    try {
      expectProblem(await atUrl(url), 409, 'conflict');
      expectProblem(await call('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: brief.body.offer_id } }), 409, 'conflict');
    } finally {
      clock.advance(-61_000);
    }
    expectProblem(await atUrl(`${server.url}/api/v1/ext/payments/checkout/chk_${'x'.repeat(24)}`), 404, 'not_found');
    expectProblem(await atUrl(`${server.url}/api/v1/ext/payments/checkout/nope`), 404, 'not_found');
    // GraphQL: the buyer and the seller see the checkout; a stranger does not; payCheckout answers PAYMENT_REQUIRED.
    const q = 'query($id: ID!) { checkout(id: $id) { checkoutId status checkoutUrl } }';
    expect((await gql(server, q, { id: opened.body.checkout_id }, buyer.key)).body.data.checkout).toMatchObject({
      checkoutId: opened.body.checkout_id,
      status: 'open',
    });
    expect((await gql(server, q, { id: opened.body.checkout_id }, seller.key)).body.data.checkout.checkoutId).toBe(opened.body.checkout_id);
    const stranger = await registerAgent(server);
    expect((await gql(server, q, { id: opened.body.checkout_id }, stranger.key)).body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const pay = await gql(server, 'mutation($id: ID!) { payCheckout(id: $id) { paid } }', { id: opened.body.checkout_id });
    expect(pay.body.errors![0].extensions).toMatchObject({ code: 'PAYMENT_REQUIRED', x402Version: 2, accepts: [expect.objectContaining({ amount: '20000' })] });
  });
});

describe('the radio', () => {
  async function socialProvider(capability: string) {
    const owner = await registerAgent(server);
    await registerService(server, owner.key, { endpoint: provider.url, capabilities: [capability], pricing_model: 'free', cost_per_call: 0 });
    return owner;
  }

  it('follows channels: capabilities, families, announcements and *; replace; bad channels named', async () => {
    const me = await registerAgent(server);
    expect((await call('GET', '/ext/radio/subscriptions', { key: me.key })).body).toEqual({ subscribed: false, channels: [] });
    const res = await call('POST', '/ext/radio/subscribe', { key: me.key, body: { channels: ['social-broadcast', 'radio-*', 'social-broadcast'] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ subscribed: true, channels: ['radio-*', 'social-broadcast'] });
    const more = await call('POST', '/ext/radio/subscribe', { key: me.key, body: { channels: ['announcements'] } });
    expect(more.body.channels.sort()).toEqual(['announcements', 'radio-*', 'social-broadcast']);
    expect((await call('POST', '/ext/radio/subscribe', { key: me.key, body: { channels: ['*'], replace: true } })).body).toEqual({
      subscribed: true,
      channels: ['*'],
    });
    expect((await call('POST', '/ext/radio/subscribe', { key: me.key, body: { channels: [], replace: true } })).body).toEqual({
      subscribed: false,
      channels: [],
    });
    const bad = await call('POST', '/ext/radio/subscribe', { key: me.key, body: { channels: ['weather', 'social-ok', 'social-*x'] } });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['channels.0', 'channels.2']);
    expect(errorPaths(await call('POST', '/ext/radio/subscribe', { key: me.key, body: {} }))).toEqual(['channels']);
    expect(errorPaths(await call('POST', '/ext/radio/subscribe', { key: me.key, body: { channels: [] } }))).toEqual(['channels']);
    expect(
      errorPaths(await call('POST', '/ext/radio/subscribe', { key: me.key, body: { channels: Array.from({ length: 51 }, (_, i) => `social-c${i}`) } })),
    ).toEqual(['channels']);
  });

  it('streams the executions of the channels followed and every announcement, resumable with Last-Event-ID', async () => {
    const social = uniqueSlug('social-x');
    const radio = uniqueSlug('radio-x');
    const plain = uniqueSlug('plain');
    await socialProvider(social);
    await socialProvider(radio);
    await socialProvider(plain);
    const listener = await registerAgent(server);
    const other = await registerAgent(server);
    await call('POST', '/ext/radio/subscribe', { key: listener.key, body: { channels: ['social-*'] } });
    await call('POST', '/ext/radio/subscribe', { key: other.key, body: { channels: [radio] } });
    const auth = (k: string) => ({ authorization: `Bearer ${k}` });
    const mine = await openSse(`${server.url}/api/v1/ext/radio/stream`, auth(listener.key));
    const theirs = await openSse(`${server.url}/api/v1/ext/radio/stream`, auth(other.key));
    expect(mine.status).toBe(200);
    const caller = await registerAgent(server);
    for (const capability of [plain, social, radio]) {
      const run = await call('POST', '/execute', { key: caller.key, body: { capability, input: { hello: capability } } });
      expect(run.body.status).toBe('success');
    }
    const announced = await call('POST', '/admin/radio/announcements', { key: ADMIN_KEY, body: { title: 'Maintenance', message: 'Tonight at ten' } });
    expect(announced.status).toBe(201);
    expect(announced.body).toMatchObject({
      type: 'announcement',
      channel: 'announcements',
      data: { title: 'Maintenance', message: 'Tonight at ten', data: null },
    });

    const heard = await mine.waitFor(2, 5000);
    expect(heard.map((e) => e.event)).toEqual(['execution', 'announcement']);
    const execution = JSON.parse(heard[0].data);
    expect(execution).toMatchObject({
      channel: social,
      type: 'execution',
      data: { capability: social, agent_id: caller.agentId, status: 'success', result: expect.anything() },
    });
    expect(heard[0].id).toBe(String(execution.sequence));
    const theirHeard = await theirs.waitFor(2, 5000);
    expect(theirHeard.map((e) => JSON.parse(e.data).channel)).toEqual([radio, 'announcements']);
    mine.close();
    theirs.close();

    // Resuming after the execution replays the announcement only.
    const resumed = await openSse(`${server.url}/api/v1/ext/radio/stream`, { ...auth(listener.key), 'Last-Event-ID': heard[0].id! });
    const replayed = await resumed.waitFor(1, 5000);
    expect(replayed.map((e) => e.id)).toEqual([heard[1].id]);
    resumed.close();
    // Without a key: 401.
    expect((await openSse(`${server.url}/api/v1/ext/radio/stream`)).status).toBe(401);
    // Announcements are the administrator's.
    expectProblem(await call('POST', '/admin/radio/announcements', { key: listener.key, body: { message: 'hi' } }), 403, 'forbidden');
    expect(errorPaths(await call('POST', '/admin/radio/announcements', { key: ADMIN_KEY, body: { data: [1] } }))).toEqual(['data', 'message']);
  });

  it('carries the radio on Subscription.radioEvents (graphql-ws)', async () => {
    const social = uniqueSlug('social-gql');
    await socialProvider(social);
    const me = await registerAgent(server);
    await call('POST', '/ext/radio/subscribe', { key: me.key, body: { channels: [social] } });
    const ws = createWsClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${me.key}` },
      retryAttempts: 0,
    });
    const got: any[] = [];
    const stop = ws.subscribe(
      { query: 'subscription { radioEvents { sequence type channel data } }' },
      { next: (v) => got.push(v.data?.radioEvents), error: () => {}, complete: () => {} },
    );
    await eventually(
      async () => server.app.services.radioStreams.readerCount,
      (n) => n >= 1,
    );
    const caller = await registerAgent(server);
    await call('POST', '/execute', { key: caller.key, body: { capability: social, input: {} } });
    await eventually(
      async () => got.filter((e) => e?.channel === social).length,
      (n) => n === 1,
    );
    expect(got.find((e) => e?.channel === social)).toMatchObject({ type: 'execution', data: { capability: social, status: 'success' } });
    stop();
    await ws.dispose();
  });
});
