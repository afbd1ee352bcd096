// Spec §4.4 disputes, with §2's Dispute record and §3's row (a new dispute is open and triggers the automated
// resolution pipeline): both request forms over REST, the pipeline seen deciding, and the caller's list.
import { errorPaths, eventually, expectProblem } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { api, registerAgent, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', PROVIDER_TIMEOUT_MS: '30000' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

/** A free service on a real HTTPS provider answering `status`, and a new agent who called it once. */
async function calledOnce(status = 200) {
  const p = await startProvider('disputed');
  providers.push(p);
  p.setDefault({ status });
  const capability = uniqueSlug('spec-dispute');
  const owner = await registerAgent(server);
  const svc = await call('POST', '/services/register', {
    key: owner.key,
    body: { name: uniqueName('svc'), endpoint: p.url, capabilities: [capability], description: 'A service a buyer disputes', pricing_model: 'free' },
  });
  if (svc.status !== 201) throw new Error(svc.text);
  const buyer = await registerAgent(server);
  const ran = await call('POST', '/execute', { key: buyer.key, body: { capability, input: { q: 1 } } });
  if (ran.status !== 200) throw new Error(ran.text);
  return { buyer, serviceId: svc.body.service_id as string, transactionId: ran.body.transaction.transaction_id as string, execution: ran.body };
}

/** The dispute as its filer reads it once the pipeline has moved it on from open. */
const decided = (key: string, id: string) =>
  eventually(
    () => call('GET', `/disputes/${id}`, { key }),
    (r) => r.status === 200 && r.body.status !== 'open',
  );

describe('§4.4 POST /disputes', () => {
  it('§4.4 form A (serviceId, type, description, evidence) answers 201 dispute_id and status open', async () => {
    const { buyer, serviceId } = await calledOnce();
    const res = await call('POST', '/disputes', {
      key: buyer.key,
      body: { serviceId, type: 'quality', description: 'The answers were nonsense', evidence: { sample: 'lorem ipsum' } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ dispute_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'open' });
    const read = await call('GET', `/disputes/${res.body.dispute_id}`, { key: buyer.key });
    expect(read.body).toMatchObject({ dispute_id: res.body.dispute_id, service_id: serviceId, type: 'quality', evidence: { sample: 'lorem ipsum' } });
  });

  it('§4.4 form A takes type billing, quality or availability', async () => {
    const { buyer, serviceId } = await calledOnce();
    for (const type of ['billing', 'quality', 'availability']) {
      const res = await call('POST', '/disputes', { key: buyer.key, body: { serviceId, type, description: `A ${type} problem` } });
      expect({ type, status: res.status }).toEqual({ type, status: 201 });
    }
    const bad = await call('POST', '/disputes', { key: buyer.key, body: { serviceId, type: 'weather', description: 'It rained' } });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['type']);
  });

  it('§4.4 form B (transaction_id, reason, optional description) answers 201 dispute_id and status open', async () => {
    const { buyer, transactionId } = await calledOnce();
    const res = await call('POST', '/disputes', { key: buyer.key, body: { transaction_id: transactionId, reason: 'other' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ dispute_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'open' });
    expect((await call('GET', `/disputes/${res.body.dispute_id}`, { key: buyer.key })).body).toMatchObject({ transaction_id: transactionId, reason: 'other' });
  });

  it('§4.4 form B takes reason provider_error, billing_error, service_failure or other', async () => {
    const me = await registerAgent(server);
    for (const reason of ['provider_error', 'billing_error', 'service_failure', 'other']) {
      const { buyer, transactionId } = await calledOnce();
      const res = await call('POST', '/disputes', { key: buyer.key, body: { transaction_id: transactionId, reason, description: `Disputed as ${reason}` } });
      expect({ reason, status: res.status }).toEqual({ reason, status: 201 });
    }
    const bad = await call('POST', '/disputes', { key: me.key, body: { transaction_id: '00000000-0000-4000-8000-000000000000', reason: 'bad_mood' } });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['reason']);
  });

  it('§4.4 the required fields of each form are named when missing', async () => {
    const me = await registerAgent(server);
    const formA = await call('POST', '/disputes', { key: me.key, body: { type: 'quality' } });
    expectProblem(formA, 400, 'validation_failed');
    expect(errorPaths(formA)).toEqual(expect.arrayContaining(['description', 'serviceId']));
    const formB = await call('POST', '/disputes', { key: me.key, body: { reason: 'other' } });
    expectProblem(formB, 400, 'validation_failed');
    expect(errorPaths(formB)).toEqual(['transaction_id']);
  });
});

describe('§3 the automated resolution pipeline', () => {
  it('§3 a new dispute triggers the automated resolution pipeline: a call whose attempts all failed is decided by it', async () => {
    const { buyer, transactionId, execution } = await calledOnce(500);
    expect(execution.status).toBe('error');
    const res = await call('POST', '/disputes', {
      key: buyer.key,
      body: { transaction_id: transactionId, reason: 'service_failure', description: 'It never answered' },
    });
    expect(res.body.status).toBe('open');
    const after = await decided(buyer.key, res.body.dispute_id);
    expect(after.body).toMatchObject({ status: 'resolved', resolved: true, resolved_by: 'pipeline', resolution: expect.any(String) });
  });

  it('§3 the pipeline sends what the records cannot decide on to review', async () => {
    const { buyer, serviceId } = await calledOnce();
    const res = await call('POST', '/disputes', { key: buyer.key, body: { serviceId, type: 'availability', description: 'Down every morning' } });
    const after = await decided(buyer.key, res.body.dispute_id);
    expect(after.body).toMatchObject({ status: 'under_review', resolved: false });
  });
});

describe('§4.1 the caller’s disputes', () => {
  it('§4.1 GET /agents/me/disputes shows a filed dispute with its status and resolution', async () => {
    const { buyer, transactionId } = await calledOnce(500);
    const res = await call('POST', '/disputes', { key: buyer.key, body: { transaction_id: transactionId, reason: 'provider_error' } });
    await decided(buyer.key, res.body.dispute_id);
    for (const path of ['/agents/me/disputes', '/my/disputes']) {
      const mine = await call('GET', path, { key: buyer.key });
      expect(mine.status).toBe(200);
      expect(mine.body.disputes).toEqual([expect.objectContaining({ dispute_id: res.body.dispute_id, status: 'resolved', resolution: expect.any(String) })]);
    }
    // Nobody else sees it.
    const other = await registerAgent(server);
    expect((await call('GET', '/agents/me/disputes', { key: other.key })).body.disputes).toEqual([]);
    expectProblem(await call('GET', `/disputes/${res.body.dispute_id}`, { key: other.key }), 404, 'not_found');
  });
});
