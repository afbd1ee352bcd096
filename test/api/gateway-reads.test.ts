// No read changes state (issue 34): every GET route runs a GraphQL query. Gateway events are polled after
// a cursor the owner passes back (a poll only reads; its `after` acknowledges what the owner has seen) and
// purged after their retention; a checkout URL's GET answers its x402 requirements or its receipt and pays
// nothing, unless it carries a payment (x402 clients retry the method they were given); a HEAD never pays.
import { OperationTypeNode, parse, type OperationDefinitionNode } from 'graphql';
import { routes } from '../../rest/routes';
import { GATEWAY_EVENT_RETENTION_DAYS, purgeOldGatewayEvents } from '../../src/domain/ext/gateway-events';
import { FakeClock } from '../support/clock';
import { expectProblem } from '../support/expect';
import { fund, payFor, paymentRequiredOf, settlementOf, throwAwayAccount } from '../support/payments';
import { api, gql, registerAgent, startServer, type HttpResult, type TestServer } from '../support/server';

const DAY = 86_400_000;
let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

it('runs a query (or, for an event stream, a subscription) for every GET route, never a mutation', () => {
  const gets = routes.filter((r) => r.method === 'GET');
  expect(gets.length).toBeGreaterThan(50);
  const operations = gets.map((r) => {
    const op = parse(r.document).definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
    return `${r.method} ${String(r.path)} → ${op.operation}`;
  });
  expect(operations.filter((o) => o.endsWith(`→ ${OperationTypeNode.MUTATION}`))).toEqual([]);
  // The one exception, by the x402 convention: a GET carrying a payment pays, as its POST does.
  expect(gets.filter((r) => r.paidWith).map((r) => `${String(r.path)} ${r.paidWith}`)).toEqual(['/ext/payments/checkout/:id PAYMENT-SIGNATURE']);
});

describe('GET /ext/gateway/events', () => {
  /** An owner whose external agent was delegated `count` times: events 1…count (`delegation.requested`). */
  async function ownerWithEvents(count: number, on = server) {
    const call = api(on);
    const owner = await registerAgent(on);
    const ext = await call('POST', '/ext/agents/register', {
      key: owner.key,
      body: { instance_url: 'https://agent.invalid/inbox', capabilities: ['summarize'] },
    });
    expect(ext.status).toBe(201);
    const externalAgentId = ext.body.external_agent.external_agent_id as string;
    const delegate = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await call('POST', '/ext/swarm/delegate', {
          key: owner.key,
          body: { external_agent_id: externalAgentId, capability: 'summarize', input: { i } },
        });
        expect(res.status).toBe(200);
      }
    };
    await delegate(count);
    const poll = async (query = '') => {
      const res = await call('GET', `/ext/gateway/events${query}`, { key: owner.key });
      expect(res.status).toBe(200);
      return { seqs: res.body.events.map((e: { seq: number }) => e.seq) as number[], cursor: res.body.cursor as number, hasMore: res.body.has_more as boolean };
    };
    return { owner, delegate, poll };
  }

  it('is a read: a HEAD, and a GET without a cursor, hand out the same events again, however often', async () => {
    const { owner, poll } = await ownerWithEvents(3);
    const head = await fetch(`${server.url}/api/v1/ext/gateway/events`, { method: 'HEAD', headers: { authorization: `Bearer ${owner.key}` } });
    expect(head.status).toBe(200);
    expect(await poll()).toEqual({ seqs: [1, 2, 3], cursor: 3, hasMore: false });
    expect(await poll()).toEqual({ seqs: [1, 2, 3], cursor: 3, hasMore: false });
    expect(await poll('?limit=2')).toEqual({ seqs: [1, 2], cursor: 2, hasMore: true });
    expect(await poll()).toEqual({ seqs: [1, 2, 3], cursor: 3, hasMore: false });
  });

  it('acknowledges through the cursor passed back as `after`: a poll without one starts there, and the events after it stay deliverable', async () => {
    const { delegate, poll } = await ownerWithEvents(5);
    expect(await poll('?limit=2')).toEqual({ seqs: [1, 2], cursor: 2, hasMore: true });
    // The answer with 3 and 4 is lost: 2 is acknowledged, nothing after it.
    expect(await poll('?after=2&limit=2')).toEqual({ seqs: [3, 4], cursor: 4, hasMore: true });
    expect(await poll()).toEqual({ seqs: [3, 4, 5], cursor: 5, hasMore: false });
    expect(await poll('?after=5')).toEqual({ seqs: [], cursor: 5, hasMore: false });
    expect(await poll()).toEqual({ seqs: [], cursor: 5, hasMore: false });
    await delegate(1);
    expect(await poll()).toEqual({ seqs: [6], cursor: 6, hasMore: false });
    // Re-reading from earlier answers them again and takes no acknowledgement back.
    expect((await poll('?after=0')).seqs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await poll()).toEqual({ seqs: [6], cursor: 6, hasMore: false });
  });

  it('never acknowledges past the last event: a cursor ahead of the stream skips nothing that comes later', async () => {
    const { delegate, poll } = await ownerWithEvents(2);
    expect(await poll('?after=1000')).toEqual({ seqs: [], cursor: 1000, hasMore: false });
    await delegate(1);
    expect(await poll()).toEqual({ seqs: [3], cursor: 3, hasMore: false });
  });

  it('answers only the caller’s events, with 400 for a bad cursor or limit', async () => {
    const { poll } = await ownerWithEvents(1);
    const stranger = await registerAgent(server);
    expect((await call('GET', '/ext/gateway/events', { key: stranger.key })).body).toEqual({ events: [], cursor: 0, has_more: false });
    expect((await poll()).seqs).toEqual([1]);
    expectProblem(await call('GET', '/ext/gateway/events?after=-1', { key: stranger.key }), 400, 'validation_failed');
    expectProblem(await call('GET', '/ext/gateway/events?limit=101', { key: stranger.key }), 400, 'validation_failed');
  });

  it('is Query.gatewayEvents over GraphQL; no mutation polls the events any more', async () => {
    const { owner } = await ownerWithEvents(2);
    const res = await gql(server, 'query { gatewayEvents(limit: 1) { cursor hasMore events { seq type } } }', undefined, owner.key);
    expect(res.body).toEqual({ data: { gatewayEvents: { cursor: 1, hasMore: true, events: [{ seq: 1, type: 'delegation.requested' }] } } });
    const mutation = await gql(server, 'mutation { pollGatewayEvents { cursor } }', undefined, owner.key);
    expect(mutation.body.errors?.[0]?.message).toMatch(/pollGatewayEvents/);
  });

  it(`forgets events ${GATEWAY_EVENT_RETENTION_DAYS} days after they happened, acknowledged or not`, async () => {
    // A server of its own, whose clock moves a month.
    const clock = new FakeClock();
    const later = await startServer({ clock, env: { RATE_LIMIT_DISABLED: '1' } });
    try {
      const { delegate, poll } = await ownerWithEvents(2, later);
      expect(await poll('?after=1')).toEqual({ seqs: [2], cursor: 2, hasMore: false });
      clock.advance((GATEWAY_EVENT_RETENTION_DAYS - 1) * DAY);
      await delegate(1);
      clock.advance(DAY + 1000);
      // Purged in batches until none is left.
      let batches = 0;
      while ((await purgeOldGatewayEvents(later.app.services, 1)) === 1) batches += 1;
      expect(batches).toBe(2);
      expect(await poll()).toEqual({ seqs: [3], cursor: 3, hasMore: false });
      expect((await poll('?after=0')).seqs).toEqual([3]);
      await delegate(1);
      expect(await poll('?after=3')).toEqual({ seqs: [4], cursor: 4, hasMore: false });
    } finally {
      await later.close();
    }
  });
});

describe('GET /ext/payments/checkout/:id', () => {
  /** Fetches a checkout URL as any client would: no key. */
  async function atUrl(url: string, method: 'GET' | 'HEAD' | 'POST' = 'GET', headers: Record<string, string> = {}): Promise<HttpResult> {
    const res = await fetch(url, { method, headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
  }

  it('pays nothing without a payment, nor with a payment sent with a HEAD; a GET carrying the same payment pays it, as a POST does', async () => {
    const seller = await registerAgent(server);
    const offer = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'Read, not paid', price_cents: 10 } });
    const buyer = await registerAgent(server);
    const checkout = await call('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: offer.body.offer_id } });
    expect(checkout.status).toBe(200);
    const url = `${server.url}/api/v1/ext/payments/checkout/${checkout.body.checkout_id}`;
    const account = await throwAwayAccount();
    const sponsor = await registerAgent(server);
    expect((await call('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: account.address } })).status).toBe(201);
    await fund(server, sponsor.key, '1');
    const db = server.app.services.db;
    const balances = async () =>
      (await db.wallet.findMany({ where: { agentId: { in: [sponsor.agentId, buyer.agentId, seller.agentId] } }, orderBy: { agentId: 'asc' } })).map((w) => [
        w.agentId,
        w.balance,
      ]);
    const before = await balances();

    const asked = await atUrl(url);
    expectProblem(asked, 402, 'payment_required');
    expect(asked.body.detail).toContain('PAYMENT-SIGNATURE');
    expect(paymentRequiredOf(await atUrl(url)).accepts).toEqual(paymentRequiredOf(asked).accepts);
    const headers = await payFor(asked, account);
    const head = await atUrl(url, 'HEAD', headers);
    expect(head.status).toBe(402);
    expect(head.headers.get('payment-response')).toBeNull();
    expect(await db.checkoutSession.findUniqueOrThrow({ where: { id: checkout.body.checkout_id } })).toMatchObject({ status: 'open', paymentId: null });
    expect(await db.x402Payment.count({ where: { payer: account.address.toLowerCase() } })).toBe(0);
    expect(await balances()).toEqual(before);

    const paid = await atUrl(url, 'GET', headers);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ paid: true, checkout: { status: 'paid' } });
    // Once paid, a GET reads the receipt, with the settlement in PAYMENT-RESPONSE.
    const receipt = await atUrl(url);
    expect(receipt.status).toBe(200);
    expect(receipt.body.checkout.payment_id).toBe(paid.body.checkout.payment_id);
    expect(settlementOf(receipt).transaction).toBe(settlementOf(paid).transaction);
  });

  it('is Query.checkoutReceipt over GraphQL, which takes no payment', async () => {
    const seller = await registerAgent(server);
    const offer = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'Asked over GraphQL', price_cents: 3 } });
    const buyer = await registerAgent(server);
    const checkout = await call('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: offer.body.offer_id } });
    const res = await gql(server, 'query($id: ID!) { checkoutReceipt(id: $id) { paid } }', { id: checkout.body.checkout_id });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'PAYMENT_REQUIRED', accepts: [expect.objectContaining({ amount: '30000' })] });
    const withPayment = await gql(server, 'query($id: ID!) { checkoutReceipt(id: $id, payment: "x") { paid } }', { id: checkout.body.checkout_id });
    expect(withPayment.body.errors?.[0]?.message).toMatch(/payment/);
  });
});
