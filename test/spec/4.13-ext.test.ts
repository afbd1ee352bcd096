// Spec §4.13 the third-party agent gateway, with §6.6's polled events and broadcast stream: external agents,
// capabilities, the gateway, vault tokens, delegation, the tool hub, reputation passports (checked with
// jose against the published JWKS), payment offers and their checkout, paid by the official x402 client
// (@x402/fetch) with a GET, as x402 clients pay a paywalled URL, and the radio.
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { api, registerAgent, startServer, uniqueSlug, type HttpResult, type TestServer } from '../support/server';
import { assertTestCaTrusted, startHttpsServer, type HttpsTestServer } from '../support/https';
import { expectProblem } from '../support/expect';
import { fund, NETWORK, payFor, paymentRequiredOf, settlementOf, throwAwayAccount } from '../support/payments';
import { openSse } from '../support/sse';

// jose is ESM-only: loaded with a dynamic import.
let jose: typeof import('jose', { with: { 'resolution-mode': 'import' } });
let server: TestServer;
let call: ReturnType<typeof api>;
let instance: HttpsTestServer;

beforeAll(async () => {
  assertTestCaTrusted();
  jose = await import('jose');
  // An external agent's instance on loopback HTTPS: its agent card, and a 202 for every delegation.
  instance = await startHttpsServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: 'Forecaster',
            description: 'Knows the weather',
            url: `${instance.url}/a2a`,
            version: '1.0.0',
            protocolVersion: '0.3.0',
            capabilities: {},
            defaultInputModes: ['application/json'],
            defaultOutputModes: ['application/json'],
            skills: [{ id: 'weather-forecast', name: 'Forecast', description: 'A forecast', tags: ['weather'] }],
          }),
        );
        return;
      }
      res.writeHead(202).end();
    });
  });
  server = await startServer({ env: { OUTBOUND_ALLOW_PRIVATE: '1' } });
  call = api(server);
});
afterAll(async () => {
  await server?.close();
  await instance?.close();
});

async function registerExternalAgent(key: string, capabilities = ['weather-forecast']) {
  const res = await call('POST', '/ext/agents/register', { key, body: { instance_url: `${instance.url}/${uniqueSlug('agent')}`, capabilities } });
  expect(res.status).toBe(201);
  return res.body.external_agent.external_agent_id as string;
}

describe('§4.13 external agents, capabilities and the gateway', () => {
  it('§4.13 POST /ext/agents/register with instance_url and capabilities answers 201 registered', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/ext/agents/register', { key: me.key, body: { instance_url: `${instance.url}/mine`, capabilities: ['weather-forecast'] } });
    expect(res.status).toBe(201);
    expect(res.body.registered).toBe(true);
  });

  it('§4.13 POST /ext/capabilities/register answers 201 registered; GET /ext/capabilities/search answers capabilities', async () => {
    const me = await registerAgent(server);
    const name = uniqueSlug('find-me');
    const res = await call('POST', '/ext/capabilities/register', {
      key: me.key,
      body: { name, description: 'Finds things', input_schema: { type: 'object' }, endpoint: `${instance.url}/find` },
    });
    expect(res.status).toBe(201);
    expect(res.body.registered).toBe(true);
    const found = await call('GET', `/ext/capabilities/search?capability=${name}`, { key: me.key });
    expect(found.status).toBe(200);
    expect(found.body.capabilities).toEqual(expect.arrayContaining([expect.objectContaining({ endpoint: `${instance.url}/find` })]));
  });

  it('§4.13 POST /ext/gateway/connect answers connected; §6.6 gateway events are polled at GET /ext/gateway/events', async () => {
    const me = await registerAgent(server);
    const reg = await call('POST', '/ext/agents/register', { key: me.key, body: { instance_url: instance.url, capabilities: ['weather-forecast'] } });
    const res = await call('POST', '/ext/gateway/connect', { key: me.key, body: { external_agent_id: reg.body.external_agent.external_agent_id } });
    expect(res.status).toBe(200);
    expect(res.body.connected).toBe(true);
    const events = await call('GET', '/ext/gateway/events', { key: me.key });
    expect(events.status).toBe(200);
    expect(events.body.events).toEqual([expect.objectContaining({ type: 'gateway.connected' })]);
  });
});

describe('§4.13 vault, delegation and the hub', () => {
  it('§4.13 POST /ext/vault/token answers 201 token; POST /ext/vault/verify answers valid', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/ext/vault/token', { key: me.key, body: { scopes: ['execute'], audience: 'https://agent.example' } });
    expect(res.status).toBe(201);
    expect(res.body.token).toEqual(expect.any(String));
    const verified = await call('POST', '/ext/vault/verify', { key: me.key, body: { token: res.body.token } });
    expect(verified.status).toBe(200);
    expect(verified.body.valid).toBe(true);
  });

  it('§4.13 POST /ext/swarm/delegate answers delegated', async () => {
    const owner = await registerAgent(server);
    const external = await registerExternalAgent(owner.key);
    const me = await registerAgent(server);
    const res = await call('POST', '/ext/swarm/delegate', {
      key: me.key,
      body: { external_agent_id: external, capability: 'weather-forecast', input: { city: 'Lyon' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.delegated).toBe(true);
  });

  it('§4.13 POST /ext/hub/convert answers converted; POST /ext/hub/import answers 201 imported', async () => {
    const me = await registerAgent(server);
    const tool = {
      name: `forecast_${Date.now()}`,
      description: 'The weather for a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    };
    const converted = await call('POST', '/ext/hub/convert', { key: me.key, body: { from: 'mcp', to: 'a2a', tool } });
    expect(converted.status).toBe(200);
    expect(converted.body.converted).toBe(true);
    const imported = await call('POST', '/ext/hub/import', { key: me.key, body: { format: 'mcp', tool } });
    expect(imported.status).toBe(201);
    expect(imported.body.imported).toBe(true);
  });
});

describe('§4.13 reputation passports', () => {
  it('§4.13 GET /ext/reputation/passport/:agentId answers passport and signature, which verifies against /.well-known/jwks.json; POST /ext/reputation/verify (no key) answers valid', async () => {
    const me = await registerAgent(server);
    const subject = await registerAgent(server);
    const res = await call('GET', `/ext/reputation/passport/${subject.agentId}`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.passport).toMatchObject({ agent_id: subject.agentId });
    const jwks = jose.createLocalJWKSet(await (await fetch(`${server.url}/.well-known/jwks.json`)).json());
    const { payload } = await jose.jwtVerify(res.body.signature, jwks);
    expect(payload.passport).toEqual(res.body.passport);
    const verified = await call('POST', '/ext/reputation/verify', { body: { signature: res.body.signature, passport: res.body.passport } });
    expect(verified.status).toBe(200);
    expect(verified.body.valid).toBe(true);
  });
});

describe('§4.13 payment offers and checkout', () => {
  /** A seller's offer, and a buyer's checkout of it. */
  async function openCheckout(cents: number) {
    const seller = await registerAgent(server);
    const offer = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'A weather report', price_cents: cents } });
    const buyer = await registerAgent(server);
    const checkout = await call('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: offer.body.offer_id } });
    return { seller, buyer, offer, checkout };
  }

  /** A throw-away key (viem) whose address is the wallet of a funded agent: the sandbox settles its payments. */
  async function payingAccount() {
    const account = await throwAwayAccount();
    const sponsor = await registerAgent(server);
    const wallet = await call('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: account.address } });
    expect(wallet.status).toBe(201);
    await fund(server, sponsor.key, '1');
    return Object.assign(account, { agentId: sponsor.agentId, key: sponsor.key });
  }

  it('§4.13 POST /ext/payments/offer answers 201 offer_id', async () => {
    const seller = await registerAgent(server);
    const res = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'A weather report', price_cents: 25 } });
    expect(res.status).toBe(201);
    expect(res.body.offer_id).toEqual(expect.any(String));
  });

  it('§4.13 POST /ext/payments/checkout answers 200 checkout_url', async () => {
    const { checkout } = await openCheckout(25);
    expect(checkout.status).toBe(200);
    expect(checkout.body.checkout_url).toMatch(/^http/);
  });

  it('§4.13 the checkout_url is paid by the official x402 client (@x402/fetch) with GET: payer, payee and fee moved once; a replay moves nothing and answers the same receipt', async () => {
    const { seller, buyer, checkout } = await openCheckout(20);
    const url: string = checkout.body.checkout_url;
    const payer = await payingAccount();
    // Wallets opened first, so that a wallet's starting balance is not counted as moved by the payment.
    for (const a of [buyer, seller]) expect((await call('POST', `/agents/${a.agentId}/wallet`, { key: a.key })).status).toBe(201);
    const balances = () =>
      Promise.all([payer, buyer, seller].map(async (a) => BigInt((await call('GET', `/agents/${a.agentId}/wallet`, { key: a.key })).body.balance_base_units)));
    const before = await balances();

    // The official client, with every request it sends recorded.
    const sent: Request[] = [];
    const recorded = (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      sent.push(request.clone());
      return fetch(request);
    };
    const client = new x402Client().register(NETWORK, new ExactEvmScheme(payer));
    const res = await wrapFetchWithPayment(recorded, client)(url);
    const paid: HttpResult = { status: res.status, headers: res.headers, text: '', body: await res.json() };

    expect(sent.map((r) => [r.method, r.headers.has('payment-signature')])).toEqual([
      ['GET', false],
      ['GET', true],
    ]);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ paid: true, checkout: { checkout_id: checkout.body.checkout_id, status: 'paid', payer: payer.address.toLowerCase() } });
    const settled = settlementOf(paid);
    expect(settled).toMatchObject({ success: true, network: NETWORK, payer: payer.address.toLowerCase() });

    // The payer paid 0.20; the buyer was credited it and paid it on; the payee got it less the fee, once.
    const after = await balances();
    expect(after.map((b, i) => b - before[i])).toEqual([-200_000n, 0n, 180_000n]);
    const entries = await server.app.services.db.walletEntry.findMany({ where: { reference: `checkout ${checkout.body.checkout_id}` } });
    expect(entries.map((e) => [e.kind, e.amount]).sort()).toEqual([
      ['fee', 20_000n],
      ['purchase', -200_000n],
      ['sale', 180_000n],
    ]);

    // The same payment again, with GET: the same receipt, nothing moved.
    const payment = sent[1].headers.get('payment-signature')!;
    const replay = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': payment } });
    expect(replay.status).toBe(200);
    const replayed: HttpResult = { status: replay.status, headers: replay.headers, text: '', body: await replay.json() };
    expect(replayed.body.checkout.payment_id).toBe(paid.body.checkout.payment_id);
    expect(settlementOf(replayed).transaction).toBe(settled.transaction);
    expect(await balances()).toEqual(after);
    expect(await server.app.services.db.walletEntry.count({ where: { reference: `checkout ${checkout.body.checkout_id}` } })).toBe(3);
  });

  it('§4.13 a GET of the checkout_url without a payment moves nothing: 402 with the x402 requirements', async () => {
    const { checkout } = await openCheckout(15);
    const res = await fetch(checkout.body.checkout_url);
    const asked: HttpResult = { status: res.status, headers: res.headers, text: '', body: await res.json() };
    expectProblem(asked, 402, 'payment_required');
    expect(paymentRequiredOf(asked).accepts).toEqual([expect.objectContaining({ scheme: 'exact', network: NETWORK, amount: '150000' })]);
    expect((await server.app.services.db.checkoutSession.findUniqueOrThrow({ where: { id: checkout.body.checkout_id } })).status).toBe('open');
  });

  it('§4.13 a HEAD of the checkout_url carrying a payment moves nothing', async () => {
    const { checkout } = await openCheckout(15);
    const url: string = checkout.body.checkout_url;
    const res = await fetch(url);
    const asked: HttpResult = { status: res.status, headers: res.headers, text: '', body: await res.json() };
    const payer = await payingAccount();
    const headers = await payFor(asked, payer);
    const head = await fetch(url, { method: 'HEAD', headers });
    expect(head.status).toBe(402);
    const db = server.app.services.db;
    expect(await db.checkoutSession.findUniqueOrThrow({ where: { id: checkout.body.checkout_id } })).toMatchObject({ status: 'open', paymentId: null });
    expect(await db.x402Payment.count({ where: { payer: payer.address.toLowerCase() } })).toBe(0);
    // The same payment sent with a GET pays.
    expect((await fetch(url, { headers })).status).toBe(200);
  });
});

describe('§4.13 the radio', () => {
  it('§4.13 POST /ext/radio/subscribe answers subscribed; §6.6 GET /ext/radio/stream is the broadcast stream (SSE)', async () => {
    const listener = await registerAgent(server);
    const res = await call('POST', '/ext/radio/subscribe', { key: listener.key, body: { channels: ['social-broadcast'] } });
    expect(res.status).toBe(200);
    expect(res.body.subscribed).toBe(true);
    const stream = await openSse(`${server.url}/api/v1/ext/radio/stream`, { authorization: `Bearer ${listener.key}` });
    try {
      expect(stream.status).toBe(200);
      const poster = await registerAgent(server);
      const post = await call('POST', '/execute', {
        key: poster.key,
        body: { capability: 'social-broadcast', input: { channel: 'weather', message: 'Sunny in Lyon' } },
      });
      expect(post.body.status).toBe('success');
      const [heard] = await stream.waitFor(1, 10_000);
      expect(heard.event).toBe('execution');
      expect(JSON.parse(heard.data)).toMatchObject({ channel: 'social-broadcast', data: { capability: 'social-broadcast', agent_id: poster.agentId } });
    } finally {
      stream.close();
    }
  });
});
