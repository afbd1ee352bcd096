// The README's examples, as a newcomer runs them: a first call the marketplace answers itself, and a paid call
// to examples/echo-provider.ts verifying the marketplace's signature.
import type { Server } from 'node:https';
import { startEchoProvider } from '../../examples/echo-provider';
import { api, registerAgent, startServer, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
let provider: Server | undefined;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
  call = api(server);
});
afterAll(async () => {
  provider?.close();
  await server.close();
});

it('answers the first call on a fresh install: summarize, served by the marketplace, with its receipt kept', async () => {
  const { key } = await registerAgent(server);
  const text = 'Agents register an identity and publish services. Calls are routed with fallback. Every transaction is recorded.';
  const res = await call('POST', '/execute', { key, body: { capability: 'summarize', input: { text } } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'success', provider: { service_key: 'marketplace' }, transaction: { cost_cents: 0 } });
  expect(typeof res.body.result.summary).toBe('string');
  const kept = await call('GET', '/agents/me/executions', { key });
  expect(kept.body.executions.map((e: { execution_id: string }) => e.execution_id)).toContain(res.body.execution_id);
});

it('pays the echo provider of examples/ for a priced call, the provider verifying the signature', async () => {
  const [buyer, seller] = await Promise.all([registerAgent(server), registerAgent(server)]);
  let secret: string | undefined;
  provider = await startEchoProvider({ port: 0, signingSecret: () => secret });
  const endpoint = `https://localhost:${(provider.address() as { port: number }).port}/run`;
  const body = { name: 'Echo', endpoint, capabilities: ['echo-text'], description: 'Echoes its input', pricing_model: 'per_call', cost_per_call: 3 };
  const registered = await call('POST', '/services/register', { key: seller.key, body });
  expect(registered.status).toBe(201);
  secret = registered.body.signing_secret;
  // Verifying: a call signed with no secret is refused.
  const forged = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,AAAA',
    },
    body: '{}',
  });
  expect(forged.status).toBe(401);
  const paid = await call('POST', '/execute', { key: buyer.key, body: { capability: 'echo-text', input: { text: 'hi' } } });
  expect(paid.status).toBe(200);
  expect(paid.body).toMatchObject({
    status: 'success',
    result: { capability: 'echo-text', echo: { text: 'hi' } },
    transaction: { cost_cents: 3 },
    payment: { method: 'prepaid', charged_cents: 3 },
  });
});
