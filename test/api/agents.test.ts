// Agents over REST: registration, the caller's profile, and the bad input each must refuse with a 4xx.
import { lookupPrincipal } from '../../src/domain/agents/principal';
import { parseBearer } from '../../src/platform/auth';
import { sha256Hex } from '../../src/platform/ids';
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';
import { expectProblem } from '../support/expect';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer();
  call = api(server);
});
afterAll(() => server.close());

describe('POST /agents/register', () => {
  it('creates an agent and shows its master key once, storing only its hash', async () => {
    const name = uniqueName('reg');
    const res = await call('POST', '/agents/register', { body: { name, description: 'Summarises things', ownerEmail: 'Owner@Example.com' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      agent_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name,
      reputation: 20,
      tier: 'newcomer',
      agent_key: expect.stringMatching(/^ag_[0-9A-Za-z]{24}$/),
      master_key: expect.stringMatching(/^key_master_[0-9A-Za-z]{40}$/),
    });
    const creds = await server.app.services.db.credential.findMany({ where: { agentId: res.body.agent_id } });
    expect(creds).toHaveLength(1);
    expect(creds[0].hash).toBe(sha256Hex(res.body.master_key));
    expect(JSON.stringify(creds)).not.toContain(res.body.master_key);
    expect(server.logs.join('\n')).not.toContain(res.body.master_key);
  });

  it('never replays a master key to a request without a credential, and keeps none in the idempotency records', async () => {
    const body = { name: uniqueName('idem'), description: 'Registered twice', ownerEmail: 'o@example.com' };
    const headers = { 'idempotency-key': `register-${body.name}` };
    const first = await call('POST', '/agents/register', { body, headers });
    expect(first.status).toBe(201);
    // Another client behind the same address, with the same key and body, could not have read the first answer.
    const again = await call('POST', '/agents/register', { body, headers });
    expectProblem(again, 409, 'conflict');
    expect(again.text).not.toContain(first.body.master_key);
    expect(again.body.detail).toMatch(/shown once/);
    const rows = await server.app.services.sql.query<{ body: unknown }>(`SELECT body FROM idempotency_records WHERE key = $1`, [headers['idempotency-key']]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0].body)).not.toContain('key_master_');
  });

  it('answers 409 for a name that is taken', async () => {
    const { name } = await registerAgent(server);
    const res = await call('POST', '/agents/register', { body: { name, description: 'Another one', ownerEmail: 'x@example.com' } });
    expectProblem(res, 409, 'conflict');
  });

  it('names every missing field in one 400', async () => {
    const res = await call('POST', '/agents/register', { body: {} });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: any) => e.path).sort()).toEqual(['description', 'name', 'ownerEmail']);
  });

  it.each([
    [{ name: 'ab' }, 'name', /at least 3/],
    [{ name: 'x'.repeat(51) }, 'name', /at most 50/],
    [{ name: 42 }, 'name', /string/],
    [{ ownerEmail: 'not-an-email' }, 'ownerEmail', /email/],
    [{ description: '   ' }, 'description', /empty/],
    [{ unexpected: true }, 'unexpected', /not a known field/],
  ])('rejects %j naming %s', async (override, path, message) => {
    const body = { name: uniqueName('bad'), description: 'Valid description', ownerEmail: 'a@example.com', ...override };
    const res = await call('POST', '/agents/register', { body });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path, message: expect.stringMatching(message) })]));
  });

  it('answers 400 for invalid JSON, a non-object body, and 415 for a non-JSON content type', async () => {
    expectProblem(await call('POST', '/agents/register', { raw: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'bad_request');
    expectProblem(await call('POST', '/agents/register', { body: ['a'] }), 400, 'bad_request');
    expectProblem(
      await call('POST', '/agents/register', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'bad_request',
    );
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const res = await call('POST', '/agents/register', { body: { name: 'big', description: 'x'.repeat(1024 * 1024 + 10), ownerEmail: 'a@example.com' } });
    expectProblem(res, 413, 'bad_request');
  });

  it('registers at once when the request carries a bearer key, holding nobody up (it stalled the database for 5 s)', async () => {
    const me = await registerAgent(server);
    const started = Date.now();
    const body = () => ({ name: uniqueName(), description: 'Registered by an agent', ownerEmail: 'o@example.com' });
    const [withKey, withBadKey, profile, health] = await Promise.all([
      call('POST', '/agents/register', { key: me.key, body: body() }),
      call('POST', '/agents/register', { key: 'key_master_not-a-real-one', body: body() }),
      call('GET', '/agents/me', { key: me.key }),
      call('GET', '/health'),
    ]);
    expect([withKey.status, withBadKey.status, profile.status, health.status]).toEqual([201, 201, 200, 200]);
    expect(Date.now() - started).toBeLessThan(1000);
    // The registration is audited as the act of the agent whose key it carried.
    const log = await call('GET', '/my/audit-log', { key: withKey.body.master_key });
    expect(log.body.events.find((e: any) => e.action === 'agent.registered')).toMatchObject({ actor_kind: 'agent', actor_id: me.agentId });
  });
});

describe('GET /agents/me', () => {
  it("answers the caller's profile", async () => {
    const me = await registerAgent(server);
    const res = await call('GET', '/agents/me', { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      agent_id: me.agentId,
      agent_key: expect.stringMatching(/^ag_/),
      name: me.name,
      description: 'An agent made by a test',
      reputation_score: 20,
      tier: 'newcomer',
      status: 'ACTIVE',
      autonomy_level: 'GOVERN',
      capabilities: [],
      authorityScope: [],
      parent_id: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('loads the caller with exactly the fields Prisma reads for an Agent', async () => {
    const me = await registerAgent(server);
    await call('PATCH', '/agents/me', { key: me.key, body: { capabilities: ['summarize'] } });
    const principal = await lookupPrincipal(server.app.services, parseBearer(`Bearer ${me.key}`));
    const row = await server.app.services.db.agent.findUniqueOrThrow({ where: { id: me.agentId } });
    expect(principal).toEqual({ kind: 'agent', agent: row, credentialId: expect.any(String) });
  });

  it.each([
    ['no credential', undefined],
    ['a malformed credential', 'Bearer nope'],
    ['an unknown master key', `Bearer key_master_${'A'.repeat(40)}`],
    ['an agent key, which is not a credential', 'Bearer ag_abcdefghijklmnopqrstuvwx'],
  ])('answers 401 with %s', async (_label, authorization) => {
    const res = await call('GET', '/agents/me', { headers: authorization ? { authorization } : {} });
    expectProblem(res, 401, 'unauthorized');
  });

  it('answers 403 to a suspended or banned agent', async () => {
    for (const status of ['SUSPENDED', 'BANNED'] as const) {
      const me = await registerAgent(server);
      await server.app.services.db.agent.update({ where: { id: me.agentId }, data: { status } });
      expectProblem(await call('GET', '/agents/me', { key: me.key }), 403, 'forbidden');
      expectProblem(await call('PATCH', '/agents/me', { key: me.key, body: { description: 'x' } }), 403, 'forbidden');
    }
  });

  it('answers 403 to the administrator key, which is not an agent', async () => {
    const admin = `key_admin_${'B'.repeat(40)}`;
    const other = await startServer({ env: { ADMIN_KEY: admin } });
    try {
      const res = await api(other)('GET', '/agents/me', { key: admin });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    } finally {
      await other.close();
    }
  });
});

describe('PATCH /agents/me', () => {
  it('updates name, description and capabilities, and a later read sees them', async () => {
    const me = await registerAgent(server);
    const name = uniqueName('renamed');
    const res = await call('PATCH', '/agents/me', {
      key: me.key,
      body: { name, description: 'Now translates', capabilities: ['translate', 'summarize', 'translate'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ agent_id: me.agentId, name, description: 'Now translates', capabilities: ['translate', 'summarize'] });
    const read = await call('GET', '/agents/me', { key: me.key });
    expect(read.body).toMatchObject({ name, description: 'Now translates', capabilities: ['translate', 'summarize'] });
    expect(Date.parse(read.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(read.body.created_at));
  });

  it('answers 409 when renaming to a taken name', async () => {
    const a = await registerAgent(server);
    const b = await registerAgent(server);
    expectProblem(await call('PATCH', '/agents/me', { key: b.key, body: { name: a.name } }), 409, 'conflict');
  });

  it('names the bad capability and the bad fields', async () => {
    const me = await registerAgent(server);
    const res = await call('PATCH', '/agents/me', { key: me.key, body: { name: 'x', capabilities: ['ok-one', 'Not OK'] } });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: any) => e.path).sort()).toEqual(['capabilities.1', 'name']);
    const wrongType = await call('PATCH', '/agents/me', { key: me.key, body: { capabilities: [7] } });
    expectProblem(wrongType, 400, 'validation_failed');
    expect(wrongType.body.errors).toEqual([{ path: 'capabilities.0', message: 'must be a string' }]);
    const read = await call('GET', '/agents/me', { key: me.key });
    expect(read.body.name).toBe(me.name);
    expect(read.body.capabilities).toEqual([]);
  });

  it('reads a single capability as a list of one, as GraphQL input coercion does', async () => {
    const me = await registerAgent(server);
    const res = await call('PATCH', '/agents/me', { key: me.key, body: { capabilities: 'summarize' } });
    expect(res.status).toBe(200);
    expect(res.body.capabilities).toEqual(['summarize']);
  });

  it('leaves the profile alone for an empty patch', async () => {
    const me = await registerAgent(server);
    const res = await call('PATCH', '/agents/me', { key: me.key, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe(me.name);
  });
});

describe('the HTTP surface', () => {
  it('gives every response an X-Request-Id, echoing a sane incoming one', async () => {
    const echoed = await call('GET', '/ping', { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
    const generated = await call('GET', '/ping', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
    // Once per answer on every surface: the REST dispatcher's, GraphQL's, and what falls through to Express.
    const me = await registerAgent(server);
    for (const res of [
      await fetch(`${server.url}/api/v1/agents/me`, { headers: { authorization: `Bearer ${me.key}`, 'x-request-id': 'trace-rest' } }),
      await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'trace-gql' },
        body: JSON.stringify({ query: '{ __typename }' }),
      }),
      await fetch(`${server.url}/metrics`, { headers: { 'x-request-id': 'trace-express' } }),
      await fetch(`${server.url}/no-such-page`, { headers: { 'x-request-id': 'trace-404' } }),
    ]) {
      await res.arrayBuffer();
      expect(res.headers.get('x-request-id')).toMatch(/^trace-(rest|gql|express|404)$/);
    }
  });

  it('answers 404 for an unknown path and 405 with Allow for a wrong method', async () => {
    expectProblem(await call('GET', '/no/such/path'), 404, 'not_found');
    const wrong = await call('DELETE', '/agents/me');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('PATCH');
    expect(wrong.body.title).toBe('Method Not Allowed');
  });

  it('serves a page for each problem type', async () => {
    const res = await fetch(`${server.url}/problems/validation-failed`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Validation Failed');
  });
});
