// Spec §7 errors, with CONTRACT §4's body (problem+json with code and request_id): 400 for missing fields and
// invalid JSON, 401, 404, 409 for a duplicate agent name, 429 with X-RateLimit-Reset. Rate limits are on, as on
// a fresh install, since 429 is one of the sentences; registration's bucket is per address (30 a minute), so
// this file registers well under 30 agents.
import { errorPaths, expectProblem } from '../support/expect';
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer();
  call = api(server);
});
afterAll(() => server.close());

describe('§7 errors', () => {
  it('§7 400 for missing fields, each named', async () => {
    const missing = await call('POST', '/agents/register', { body: {} });
    expectProblem(missing, 400, 'validation_failed');
    expect(errorPaths(missing)).toEqual(['description', 'name', 'ownerEmail']);
    const me = await registerAgent(server);
    const execute = await call('POST', '/execute', { key: me.key, body: {} });
    expectProblem(execute, 400, 'validation_failed');
    expect(errorPaths(execute)).toEqual(['capability', 'input']);
    for (const e of execute.body.errors) expect(e).toEqual({ path: expect.any(String), message: expect.any(String) });
  });

  it('§7 400 for invalid JSON', async () => {
    const open = await call('POST', '/agents/register', { raw: '{"name": "half-written",', headers: { 'content-type': 'application/json' } });
    expectProblem(open, 400, 'bad_request');
    const me = await registerAgent(server);
    const closed = await call('POST', '/resolve', { key: me.key, raw: '{capability: summarize}', headers: { 'content-type': 'application/json' } });
    expectProblem(closed, 400, 'bad_request');
  });

  it('§7 401 for a missing or invalid credential, and for /keys/verify with an invalid or revoked key', async () => {
    expectProblem(await call('GET', '/agents/me'), 401, 'unauthorized');
    expectProblem(await call('GET', '/agents/me', { key: `key_master_${'q'.repeat(40)}` }), 401, 'unauthorized');
    const owner = await registerAgent(server);
    const svc = await call('POST', '/services/register', {
      key: owner.key,
      body: {
        name: uniqueName('svc'),
        endpoint: 'https://provider.example.com/run',
        capabilities: ['summarize'],
        description: 'A service with sub-keys',
        pricing_model: 'free',
      },
    });
    const made = await call('POST', `/keys/provision/${svc.body.service_key}`, { key: owner.key, body: {} });
    expect((await call('POST', '/keys/verify', { body: { key: made.body.sub_key } })).status).toBe(200);
    expect((await call('DELETE', `/keys/${made.body.sub_key_id}`, { key: owner.key })).status).toBe(200);
    const revoked = await call('POST', '/keys/verify', { body: { key: made.body.sub_key } });
    const invalid = await call('POST', '/keys/verify', { body: { key: `key_service_${'n'.repeat(40)}` } });
    expectProblem(revoked, 401, 'unauthorized');
    expectProblem(invalid, 401, 'unauthorized');
    // One identical answer, so a caller learns nothing of which it was.
    expect(revoked.body.detail).toBe(invalid.body.detail);
  });

  it('§7 404 for what is not there: an unknown path, an unknown object, and (CONTRACT §4) another agent’s object', async () => {
    expectProblem(await call('GET', '/no-such-resource'), 404, 'not_found');
    const me = await registerAgent(server);
    expectProblem(await call('GET', '/tickets/ST-999999', { key: me.key }), 404, 'not_found');
    expectProblem(await call('GET', '/subscriptions/00000000-0000-4000-8000-000000000000', { key: me.key }), 404, 'not_found');
    const store = await call('POST', '/memory/stores', { key: me.key, body: { name: 'private-notes', storeType: 'kv' } });
    const other = await registerAgent(server);
    expectProblem(await call('GET', `/memory/stores/${store.body.id}/entries`, { key: other.key }), 404, 'not_found');
  });

  it('§7 409 for a duplicate agent name at registration', async () => {
    const name = uniqueName('dup');
    expect((await call('POST', '/agents/register', { body: { name, description: 'The first of the name', ownerEmail: 'a@example.com' } })).status).toBe(201);
    const again = await call('POST', '/agents/register', { body: { name, description: 'The second of the name', ownerEmail: 'b@example.com' } });
    expectProblem(again, 409, 'conflict');
  });

  it('§7 429 when a rate limit is exceeded; X-RateLimit-Reset tells when to retry', async () => {
    const me = await registerAgent(server);
    const resolve = () => call('POST', '/resolve', { key: me.key, body: { capability: 'summarize' } });
    for (let i = 0; i < 30; i++) expect((await resolve()).status).toBe(200);
    const refused = await resolve();
    expectProblem(refused, 429, 'rate_limited');
    const now = Date.now() / 1000;
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(now);
    expect(reset).toBeLessThanOrEqual(now + 61);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('CONTRACT §4 the error body', () => {
  it('CONTRACT §4 every error is application/problem+json: type, title, status, detail, code and request_id, the request id also in X-Request-Id', async () => {
    const res = await call('GET', '/agents/me');
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual({
      type: `${server.url}/problems/unauthorized`,
      title: expect.any(String),
      status: 401,
      detail: expect.any(String),
      code: 'unauthorized',
      request_id: res.headers.get('x-request-id'),
    });
    // The type URL serves a short human-readable page about the error.
    const page = await fetch(res.body.type);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // A success carries a request id too.
    expect((await call('GET', '/ping')).headers.get('x-request-id')).toEqual(expect.any(String));
  });

  it('CONTRACT §4 a validation error lists every bad field in errors [{path, message}]', async () => {
    const res = await call('POST', '/agents/register', { body: { name: 'x', description: 'Too short a name', ownerEmail: 'not-an-email' } });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([
      { path: 'name', message: expect.any(String) },
      { path: 'ownerEmail', message: expect.any(String) },
    ]);
  });
});
