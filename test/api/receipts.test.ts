// Signed execution receipts (docs/execution.md, Signed receipts): every execute answers its receipt as a compact
// JWS (a field and a header), verified here with jose against the published JWKS and refused once any field is
// changed; the same token read later over REST, GraphQL and MCP by either party to the call, 404 to anyone else;
// a dispute citing it, checked on the way in and read by the pipeline.
import { createHash, randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { api, besideServer, gql, registerAgent, registerService, startServer, uniqueSlug, type TestServer } from '../support/server';
import { registerPayingAgent } from '../support/payments';
import { errorPaths, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';

// jose is ESM-only: loaded with a dynamic import.
let jose: typeof import('jose', { with: { 'resolution-mode': 'import' } });
let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  jose = await import('jose');
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '10000' } });
  call = api(server);
});
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
  await server.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The published key set, fetched as a verifier would. */
async function jwks() {
  const res = await fetch(`${server.url}/.well-known/jwks.json`);
  expect(res.status).toBe(200);
  return jose.createLocalJWKSet(await res.json());
}

/** A provider agent and its service for a fresh capability at `cost` cents, answering `answer`. */
async function offered(cost = 0, answer?: unknown) {
  const p = await startProvider('receipts');
  providers.push(p);
  if (answer !== undefined) p.setDefault({ json: answer });
  const capability = uniqueSlug('rcpt');
  const owner = await registerAgent(server);
  const service = await registerService(server, owner.key, {
    endpoint: p.url,
    capabilities: [capability],
    pricing_model: cost ? 'per_call' : 'free',
    cost_per_call: cost,
  });
  return { capability, owner, serviceKey: service.service_key as string, provider: p };
}

describe('the execute answer', () => {
  it('carries the receipt as a JWS that jose verifies against the JWKS, binding the call', async () => {
    const { capability, serviceKey } = await offered(0, { z: [1, 2.5, 'ü'], a: { y: null, b: true } });
    const me = await registerAgent(server);
    const res = await call('POST', '/execute', { key: me.key, body: { capability, input: { query: 'q', count: 3, nested: { b: 2, a: 1 } } } });
    expect(res.status).toBe(200);
    const token = res.body.signed_receipt as string;
    expect(res.headers.get('signed-receipt')).toBe(token);

    const { payload, protectedHeader } = await jose.jwtVerify(token, await jwks(), { issuer: server.url, typ: 'receipt+jwt' });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'receipt+jwt', kid: expect.stringMatching(/^mk_/) });
    expect(payload).toMatchObject({ iss: server.url, sub: me.agentId, jti: res.body.execution_id, iat: Math.floor(Date.parse(res.body.created_at) / 1000) });
    // The digests are of RFC 8785's canonical JSON: keys sorted, no whitespace.
    expect(payload.receipt).toEqual({
      execution_id: res.body.execution_id,
      capability,
      mode: 'auto',
      status: 'success',
      caller: me.agentId,
      provider: serviceKey,
      input_sha256: sha256('{"count":3,"nested":{"a":1,"b":2},"query":"q"}'),
      result_sha256: sha256('{"a":{"b":true,"y":null},"z":[1,2.5,"ü"]}'),
      error: null,
      price_cents: 0,
      latency_ms: res.body.transaction.latency_ms,
      transaction_id: res.body.transaction.transaction_id,
      payment: null,
      attempts: [
        {
          ordinal: 1,
          service_key: serviceKey,
          outcome: 'success',
          reason: null,
          category: null,
          status_code: 200,
          latency_ms: res.body.attempts[0].latency_ms,
          price_cents: 0,
        },
      ],
      created_at: res.body.created_at,
    });
  });

  it('is refused by jose once any field of it is changed', async () => {
    const { capability } = await offered(5);
    const me = await registerPayingAgent(server);
    const res = await call('POST', '/execute', { key: me.key, body: { capability, input: { text: 'paid' } } });
    expect(res.status).toBe(200);
    const token = res.body.signed_receipt as string;
    const keys = await jwks();
    const [header, body, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    expect(claims.receipt.payment).toEqual({
      method: 'prepaid',
      charged_base_units: res.body.payment.charged_base_units,
      fee_base_units: res.body.payment.fee_base_units,
      provider_share_base_units: res.body.payment.provider_share_base_units,
      x402: null,
    });
    expect(claims.receipt.price_cents).toBe(5);
    await expect(jose.jwtVerify(token, keys)).resolves.toBeTruthy();
    const forged = (receipt: Record<string, unknown>) => `${header}.${Buffer.from(JSON.stringify({ ...claims, receipt })).toString('base64url')}.${signature}`;
    const changes: Record<string, unknown> = {
      execution_id: randomUUID(),
      capability: 'other',
      mode: 'chosen',
      status: 'error',
      caller: randomUUID(),
      provider: 'svc_other',
      input_sha256: sha256('{}'),
      result_sha256: null,
      error: 'no',
      price_cents: 1,
      latency_ms: 1,
      transaction_id: randomUUID(),
      payment: { ...claims.receipt.payment, charged_base_units: '1' },
      attempts: [],
      created_at: new Date(0).toISOString(),
    };
    expect(Object.keys(changes).sort()).toEqual(Object.keys(claims.receipt).sort());
    for (const [field, value] of Object.entries(changes)) {
      await expect(jose.jwtVerify(forged({ ...claims.receipt, [field]: value }), keys)).rejects.toThrow(/signature verification failed/);
    }
    // And the header: another type is refused as well.
    const retyped = `${Buffer.from(JSON.stringify({ ...jose.decodeProtectedHeader(token), typ: 'JWT' })).toString('base64url')}.${body}.${signature}`;
    await expect(jose.jwtVerify(retyped, keys)).rejects.toThrow(/signature verification failed/);
  });
});

describe('reading a receipt later', () => {
  it('answers the same token to the caller and to the provider, over REST, GraphQL and MCP; 404 to anyone else', async () => {
    const { capability, owner } = await offered();
    const me = await registerAgent(server);
    const executed = await call('POST', '/execute', { key: me.key, body: { capability, input: { n: 1 } } });
    const id = executed.body.execution_id as string;

    const mine = await call('GET', `/executions/${id}/receipt`, { key: me.key });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({
      execution_id: id,
      signed_receipt: executed.body.signed_receipt,
      key_id: jose.decodeProtectedHeader(executed.body.signed_receipt).kid,
      claims: jose.decodeJwt(executed.body.signed_receipt),
    });
    const theirs = await call('GET', `/executions/${id}/receipt`, { key: owner.key });
    expect(theirs.body.signed_receipt).toBe(executed.body.signed_receipt);

    const byGraphql = await gql(server, 'query($id: ID!) { executionReceipt(executionId: $id) { signedReceipt keyId } }', { id }, me.key);
    expect(byGraphql.body.data.executionReceipt.signedReceipt).toBe(executed.body.signed_receipt);

    const client = new Client({ name: 'receipts-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?toolsets=account`), { requestInit: { headers: { Authorization: `Bearer ${me.key}` } } }),
    );
    try {
      const result = (await client.callTool({ name: 'executionReceipt', arguments: { id } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { signed_receipt: string }).signed_receipt).toBe(executed.body.signed_receipt);
    } finally {
      await client.close();
    }

    const stranger = await registerAgent(server);
    const notFound = await call('GET', `/executions/${id}/receipt`, { key: stranger.key });
    expectProblem(notFound, 404, 'not_found');
    const nobody = await call('GET', `/executions/${randomUUID()}/receipt`, { key: stranger.key });
    expect(nobody.status).toBe(404);
    expect(nobody.body.detail.replace(/[0-9a-f-]{36}/, 'ID')).toBe(notFound.body.detail.replace(/[0-9a-f-]{36}/, 'ID'));
    expect((await call('GET', '/executions/not-an-id/receipt', { key: me.key })).status).toBe(404);
    expect((await call('GET', `/executions/${id}/receipt`)).status).toBe(401);
  });

  it("signs the marketplace's own capabilities and failed calls too", async () => {
    const { capability, provider } = await offered();
    provider.setDefault({ status: 503 });
    const me = await registerAgent(server);
    const failed = await call('POST', '/execute', { key: me.key, body: { capability, input: {} } });
    expect(failed.body.status).toBe('error');
    const claims = (await jose.jwtVerify(failed.body.signed_receipt, await jwks())).payload.receipt as any;
    expect(claims).toMatchObject({ status: 'error', result_sha256: null, attempts: [{ outcome: 'failure', reason: 'http_503', category: 'provider_5xx' }] });
    const read = await call('GET', `/executions/${failed.body.execution_id}/receipt`, { key: me.key });
    expect(read.body.signed_receipt).toBe(failed.body.signed_receipt);

    const own = await call('POST', '/execute', { key: me.key, body: { capability: 'trust-score', input: { agent_id: me.agentId } } });
    expect(own.status).toBe(200);
    const ownClaims = (await jose.jwtVerify(own.body.signed_receipt, await jwks())).payload.receipt as any;
    expect(ownClaims).toMatchObject({
      status: 'success',
      provider: 'marketplace',
      capability: 'trust-score',
      input_sha256: sha256(`{"agent_id":"${me.agentId}"}`),
    });
    expect(ownClaims.result_sha256).toMatch(/^[0-9a-f]{64}$/);
    const ownRead = await call('GET', `/executions/${own.body.execution_id}/receipt`, { key: me.key });
    expect(ownRead.body.signed_receipt).toBe(own.body.signed_receipt);
  });
});

describe('a dispute citing a receipt', () => {
  async function paidCall(cost = 10) {
    const { capability } = await offered(cost);
    const me = await registerPayingAgent(server);
    const res = await call('POST', '/execute', { key: me.key, body: { capability, input: { q: 1 } } });
    expect(res.status).toBe(200);
    return { me, receipt: res.body.signed_receipt as string, transactionId: res.body.transaction.transaction_id as string };
  }
  const settle = async (disputeId: string, key: string) => {
    await server.app.services.disputes.settled();
    await server.app.services.disputes.settled();
    return (await call('GET', `/disputes/${disputeId}`, { key })).body;
  };

  it('keeps a verified receipt as evidence; refuses a changed one or another call’s, naming receipt', async () => {
    const first = await paidCall();
    const other = await paidCall();
    const [h, p, s] = first.receipt.split('.');
    const changed = `${h}.${Buffer.from(JSON.stringify({ ...jose.decodeJwt(first.receipt), sub: randomUUID() })).toString('base64url')}.${s}`;
    const refusedChanged = await call('POST', '/disputes', {
      key: first.me.key,
      body: { transaction_id: first.transactionId, reason: 'billing_error', receipt: changed },
    });
    expectProblem(refusedChanged, 400, 'validation_failed');
    expect(errorPaths(refusedChanged)).toEqual(['receipt']);
    expect(JSON.stringify(refusedChanged.body)).toMatch(/bad_signature/);
    expect(p).not.toBe(changed.split('.')[1]);
    const refusedOther = await call('POST', '/disputes', {
      key: first.me.key,
      body: { transactionId: first.transactionId, reason: 'billing_error', receipt: other.receipt },
    });
    expectProblem(refusedOther, 400, 'validation_failed');
    expect(errorPaths(refusedOther)).toEqual(['receipt']);

    const opened = await call('POST', '/disputes', {
      key: first.me.key,
      body: { transaction_id: first.transactionId, reason: 'provider_error', receipt: first.receipt },
    });
    expect(opened.status).toBe(201);
    const settled = await settle(opened.body.dispute_id, first.me.key);
    // Nothing the receipt proves against the records: a person looks at it, with the receipt as evidence.
    expect(settled).toMatchObject({
      status: 'under_review',
      evidence: { signed_receipt: first.receipt, key_id: jose.decodeProtectedHeader(first.receipt).kid },
    });
  });

  it('refunds what records changed after the call charge beyond the price the receipt names', async () => {
    const { me, receipt, transactionId } = await paidCall(10);
    // The records say 25 cents, and the attempt's price with them: only the receipt says 10.
    const beside = besideServer(server);
    const charge = await beside.transaction.update({ where: { id: transactionId }, data: { amountCents: 25 } });
    await beside.executionAttempt.updateMany({ where: { executionId: charge.executionId! }, data: { priceCents: 25 } });
    const opened = await call('POST', '/disputes', { key: me.key, body: { transaction_id: transactionId, reason: 'billing_error', receipt } });
    const settled = await settle(opened.body.dispute_id, me.key);
    expect(settled).toMatchObject({ status: 'resolved', resolved_by: 'pipeline', refund_cents: 15 });
    expect(settled.resolution).toMatch(/signed receipt cited names 10/);
  });
});
