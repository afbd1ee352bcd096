// Sub-keys (spec §2, §4.1, §8.5, §8.7; CONTRACT §3): provisioning within the tier's allowance,
// verification by providers, rotation with a grace period, revocation and the caller's listing.
// Time moves on a fake clock; rate limits are not under test here (verify is counted per address).
import { api, gql, registerAgent, startServer, type TestServer } from '../support/server';
import { FakeClock } from '../support/clock';
import { errorPaths, expectProblem } from '../support/expect';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SUB_KEY = /^key_service_[0-9A-Za-z]{40}$/;
/** A secret sub-key anywhere in a text. */
const ANY_SUB_KEY = /key_service_[0-9A-Za-z]{40}/;

const ADMIN_KEY = `key_admin_${'K'.repeat(40)}`;
const clock = new FakeClock();
let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ clock, env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

/**
 * An agent with a registered service: returns the agent and the service's `svc_` key. `policy` is the
 * service's sub-key policy (`sub_key_policy`); none leaves it unset (the default: read and write, at most
 * 60 a minute).
 */
async function provider(policy?: Record<string, unknown>) {
  const agent = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: agent.key,
    body: {
      name: 'Summariser',
      endpoint: 'https://provider.example.com/run',
      capabilities: ['summarize'],
      description: 'Summarises long documents',
      pricing_model: 'free',
      ...(policy ? { sub_key_policy: policy } : {}),
    },
  });
  if (res.status !== 201) throw new Error(`service registration failed: ${res.status} ${res.text}`);
  return { ...agent, serviceKey: res.body.service_key as string, serviceId: res.body.service_id as string, registration: res.body };
}

/** A policy that lets sub-keys write as well as read, at up to 100 a minute and 10,000 a day. */
const READ_WRITE = { permissions: ['read', 'write'], max_requests_per_minute: 100, max_requests_per_day: 10_000 };
/** The policy of a service whose owner has set none. */
const UNSET = { permissions: ['read', 'write'], max_requests_per_minute: 60, max_requests_per_day: null, set_by_owner: false };

/** A consumer agent and a service (of another agent, with the sub-key policy given) to provision keys for. */
async function consumerAndService(policy?: Record<string, unknown>) {
  const [svc, consumer] = await Promise.all([provider(policy), registerAgent(server)]);
  return { consumer, serviceKey: svc.serviceKey, provider: svc };
}

async function provision(key: string, serviceKey: string, body: Record<string, unknown> = {}) {
  const res = await call('POST', `/keys/provision/${serviceKey}`, { key, body });
  if (res.status !== 201) throw new Error(`provision failed: ${res.status} ${res.text}`);
  return { subKey: res.body.sub_key as string, id: res.body.sub_key_id as string, body: res.body };
}

const verify = (subKey: string) => call('POST', '/keys/verify', { body: { key: subKey } });
const rotate = (key: string, keyId: string, body: Record<string, unknown> = {}) => call('POST', `/keys/${keyId}/rotate`, { key, body });
const revoke = (key: string, keyId: string) => call('DELETE', `/keys/${keyId}`, { key });
const withoutRequestId = ({ request_id: _r, ...rest }: Record<string, unknown>) => rest;
const randomSubKey = () => `key_service_${Array.from({ length: 40 }, () => 'abcXYZ019'[Math.floor(Math.random() * 9)]).join('')}`;
/** Sets an agent's own status as the administrator does (a sub-agent's status in force follows its parent's). */
async function setStatus(agentId: string, status: 'ACTIVE' | 'SUSPENDED' | 'BANNED') {
  const res = await call('PATCH', `/admin/agents/${agentId}/status`, { key: ADMIN_KEY, body: { status } });
  if (res.status !== 200) throw new Error(`status change failed: ${res.status} ${res.text}`);
}

/**
 * A service whose provider is a sub-agent of `parent`: suspending the parent suspends the provider (its
 * status in force) without the provider's own status changing.
 */
async function serviceOfSubAgent() {
  const parent = await registerAgent(server);
  const sub = await call('POST', `/agents/${parent.agentId}/sub-agents`, {
    key: parent.key,
    body: {
      name: `sub-provider-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      description: 'Provides for its parent',
      autonomyLevel: 'EXECUTE_ONLY',
      authorityScope: [],
    },
  });
  if (sub.status !== 201) throw new Error(`sub-agent failed: ${sub.status} ${sub.text}`);
  const res = await call('POST', '/services/register', {
    key: sub.body.master_key,
    body: {
      name: 'Sub-agent summariser',
      endpoint: 'https://provider.example.com/run',
      capabilities: ['summarize'],
      description: 'Summarises long documents',
      pricing_model: 'free',
    },
  });
  if (res.status !== 201) throw new Error(`service registration failed: ${res.status} ${res.text}`);
  return { parent, providerId: sub.body.agent_id as string, serviceKey: res.body.service_key as string, serviceId: res.body.service_id as string };
}

describe('POST /keys/provision/:serviceKey', () => {
  it('provisions a read-only key with default limits for another agent’s service, showing the secret once', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const res = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      sub_key: expect.stringMatching(SUB_KEY),
      sub_key_id: expect.stringMatching(UUID),
      service: serviceKey,
      permissions: ['read'],
      rate_limits: { requests_per_minute: 60, requests_per_day: null },
      expires_at: new Date(clock.now().getTime() + 365 * DAY).toISOString(),
      created_at: expect.any(String),
      bounds: [],
    });
    expect(Number.isNaN(Date.parse(res.body.created_at))).toBe(false);
    expect(server.logs.join('\n')).not.toContain(res.body.sub_key);
  });

  it('replays a provisioning sent again with the same Idempotency-Key (CONTRACT §8)', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const headers = { 'idempotency-key': `provision-${consumer.agentId}` };
    const body = { permissions: ['read'], rate_limits: { requests_per_minute: 5 } };
    const first = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body, headers });
    expect(first.status).toBe(201);
    // The same request in the other spelling, keys in another order, is the same request.
    const respelled = { rateLimits: { requestsPerMinute: 5 }, permissions: ['read'] };
    const replay = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: respelled, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.sub_key_id).toBe(first.body.sub_key_id);
    expect(replay.body.sub_key).toBe(first.body.sub_key);
    // Stored sealed with the caller's master key: the database holds no sub-key to read.
    const rows = await server.app.services.sql.query<{ body: unknown }>(`SELECT body FROM idempotency_records WHERE key = $1`, [headers['idempotency-key']]);
    expect(JSON.stringify(rows[0].body)).not.toContain('key_service_');
    expect((await call('GET', '/my/keys', { key: consumer.key })).body.total).toBe(1);
    const otherBody = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: { permissions: ['write'] }, headers });
    expectProblem(otherBody, 409, 'conflict');
  });

  it('provisions without a body at all', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const res = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key });
    expect(res.status).toBe(201);
    expect(res.body.permissions).toEqual(['read']);
  });

  it('gives every key an expiry: 365 days when none is asked for (it answered null before), earlier or up to 730 days when asked', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const now = clock.now().getTime();
    const plain = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key });
    expect(plain.body.expires_at).toBe(new Date(now + 365 * DAY).toISOString());
    for (const days of [1, 400, 730]) {
      const asked = new Date(now + days * DAY).toISOString();
      const res = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: { expiresAt: asked } });
      expect(res.status).toBe(201);
      expect(res.body.expires_at).toBe(asked);
    }
    const tooLate = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: { expires_at: new Date(now + 731 * DAY).toISOString() } });
    expectProblem(tooLate, 400, 'validation_failed');
    expect(tooLate.body.errors).toEqual([{ path: 'expires_at', message: 'must be within 730 days' }]);
    // Every listed key shows its expiry.
    const listed = await call('GET', '/my/keys', { key: consumer.key });
    expect(listed.body.keys.every((k: any) => typeof k.expires_at === 'string')).toBe(true);
  });

  it('takes custom permissions, rate limits and expiry within the service’s sub-key policy', async () => {
    const { consumer, serviceKey } = await consumerAndService(READ_WRITE);
    const expiresAt = new Date(clock.now().getTime() + 7 * DAY).toISOString();
    const res = await call('POST', `/keys/provision/${serviceKey}`, {
      key: consumer.key,
      body: { permissions: ['read', 'write', 'read'], rate_limits: { requests_per_minute: 10, requests_per_day: 1000 }, expires_at: expiresAt },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      service: serviceKey,
      permissions: ['read', 'write'],
      rate_limits: { requests_per_minute: 10, requests_per_day: 1000 },
      expires_at: expiresAt,
    });
    const verified = await verify(res.body.sub_key);
    expect(verified.body).toMatchObject({
      permissions: ['read', 'write'],
      rate_limits: { requests_per_minute: 10, requests_per_day: 1000 },
      expires_at: expiresAt,
    });
  });

  it.each([
    [{ rate_limits: { foo: 5 } }, ['rate_limits.foo']],
    [{ rate_limits: { requestsPerDay: 0 } }, ['rate_limits.requestsPerDay']],
    [{ rate_limits: { requests_per_minute: 0 } }, ['rate_limits.requests_per_minute']],
    [{ rate_limits: { requests_per_minute: 'many' } }, ['rate_limits.requests_per_minute']],
    [{ expires_at: '2000-01-01T00:00:00Z' }, ['expires_at']],
    [{ expires_at: 'next tuesday' }, ['expires_at']],
    [{ permissions: ['read', 'Not Valid', ''] }, ['permissions.1', 'permissions.2']],
    [{ permissions: [] }, ['permissions']],
    [{ scope: 'everything' }, ['scope']],
  ])('answers 400 for %j naming %j', async (body, paths) => {
    const { consumer, serviceKey } = await consumerAndService();
    const res = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(paths);
  });

  it('names every bad field in one 400', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const past = new Date(clock.now().getTime() - 1000).toISOString();
    const res = await call('POST', `/keys/provision/${serviceKey}`, {
      key: consumer.key,
      body: { permissions: ['BAD'], rate_limits: { requests_per_minute: 0 }, expires_at: past },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['expires_at', 'permissions.0', 'rate_limits.requests_per_minute']);
  });

  it('answers 404 for an unknown service key and for an inactive service', async () => {
    const { consumer, serviceKey, provider: svc } = await consumerAndService();
    expectProblem(await call('POST', '/keys/provision/svc_000000000000000000000000', { key: consumer.key, body: {} }), 404, 'not_found');
    await server.app.services.db.service.update({ where: { id: svc.serviceId }, data: { status: 'inactive' } });
    expectProblem(await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} }), 404, 'not_found');
  });

  it('answers 401 without a master key', async () => {
    const { serviceKey } = await consumerAndService();
    expectProblem(await call('POST', `/keys/provision/${serviceKey}`, { body: {} }), 401, 'unauthorized');
  });

  it('answers 404, as for an inactive service, for an active service whose provider is suspended or banned', async () => {
    const { consumer, serviceKey, provider: svc } = await consumerAndService();
    const refusals = [];
    for (const status of ['SUSPENDED', 'BANNED'] as const) {
      await setStatus(svc.agentId, status);
      refusals.push(await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} }));
    }
    expect(await server.app.services.db.subKey.count({ where: { agentId: consumer.agentId } })).toBe(0);
    // Restored, the provider's service takes provisioning again; made inactive, it answers as it did.
    await setStatus(svc.agentId, 'ACTIVE');
    expect((await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} })).status).toBe(201);
    await server.app.services.db.service.update({ where: { id: svc.serviceId }, data: { status: 'inactive' } });
    const inactive = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} });
    expectProblem(inactive, 404, 'not_found');
    for (const res of refusals) {
      expectProblem(res, 404, 'not_found');
      expect(withoutRequestId(res.body)).toEqual(withoutRequestId(inactive.body));
    }
  });

  it('answers 404 for the service of a provider suspended through an ancestor, and provisions again once it is restored', async () => {
    const { parent, serviceKey } = await serviceOfSubAgent();
    const consumer = await registerAgent(server);
    await setStatus(parent.agentId, 'SUSPENDED');
    expectProblem(await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} }), 404, 'not_found');
    await setStatus(parent.agentId, 'ACTIVE');
    expect((await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} })).status).toBe(201);
  });
});

describe("the service's sub-key policy (issue 34: trust signals that cannot be self-granted)", () => {
  const policyOf = async (serviceKey: string) => (await call('GET', `/services/${serviceKey}`)).body.sub_key_policy;
  const updatePolicy = (key: string | undefined, serviceKey: string, policy: Record<string, unknown>) =>
    call('PATCH', `/services/${serviceKey}`, { key, body: { sub_key_policy: policy } });

  it("grants read and write as asked on a service whose owner set no policy, and refuses anything else with 403 naming it: admin needs the owner's allowance", async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const res = await call('POST', `/keys/provision/${serviceKey}`, {
      key: consumer.key,
      body: { permissions: ['admin', 'write', 'delete'], rate_limits: { requests_per_minute: 1_000_000 } },
    });
    expectProblem(res, 403, 'forbidden');
    const unset = `is not allowed on ${serviceKey} without its owner's allowance: its owner has set no sub-key policy, and without one a sub-key may hold "read", "write"`;
    expect(res.body.errors).toEqual([
      { path: 'permissions.0', message: `"admin" ${unset}` },
      { path: 'permissions.2', message: `"delete" ${unset}` },
    ]);
    expect((await call('GET', '/my/keys', { key: consumer.key })).body.total).toBe(0);
    // What the default allows is granted as asked.
    expect((await provision(consumer.key, serviceKey, { permissions: ['read', 'write'] })).body.permissions).toEqual(['read', 'write']);
  });

  it("refuses with 403, naming them, permissions an owner's policy does not allow", async () => {
    const { consumer, serviceKey } = await consumerAndService({ permissions: ['read'] });
    const res = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: { permissions: ['admin', 'write', 'read'] } });
    expectProblem(res, 403, 'forbidden');
    expect(res.body.errors).toEqual(
      ['admin', 'write'].map((p, i) => ({
        path: `permissions.${i}`,
        message: `"${p}" is not allowed by the sub-key policy of ${serviceKey}, which allows "read"`,
      })),
    );
    expect((await call('GET', '/my/keys', { key: consumer.key })).body.total).toBe(0);
    // Only the permissions not allowed are named.
    const mixed = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: { permissions: ['read', 'admin'] } });
    expectProblem(mixed, 403, 'forbidden');
    expect(errorPaths(mixed)).toEqual(['permissions.1']);
    // What the policy allows is granted.
    expect((await provision(consumer.key, serviceKey, { permissions: ['read'] })).body.permissions).toEqual(['read']);
  });

  it("grants admin once the owner's policy lists it, at rates within the policy", async () => {
    const { consumer, serviceKey } = await consumerAndService({ permissions: ['read', 'write', 'admin'], max_requests_per_minute: 30 });
    const res = await provision(consumer.key, serviceKey, { permissions: ['admin'], rate_limits: { requests_per_minute: 1_000_000 } });
    expect(res.body).toMatchObject({ permissions: ['admin'], rate_limits: { requests_per_minute: 30, requests_per_day: null } });
  });

  it('caps rates above the policy’s maxima to them, and provisioning and verify say what was granted, the answer why', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const capped = await provision(consumer.key, serviceKey, { rate_limits: { requests_per_minute: 1_000_000, requests_per_day: 5 } });
    expect(capped.body.rate_limits).toEqual({ requests_per_minute: 60, requests_per_day: 5 });
    expect(capped.body.bounds).toEqual([
      {
        field: 'rate_limits.requests_per_minute',
        asked: 1_000_000,
        granted: 60,
        reason: `the default sub-key policy of ${serviceKey} (its owner has set none) allows at most 60 requests a minute`,
      },
    ]);
    expect((await verify(capped.subKey)).body).toMatchObject({ permissions: ['read'], rate_limits: { requests_per_minute: 60, requests_per_day: 5 } });

    const limited = await consumerAndService(READ_WRITE);
    // Nothing asked: the default 60 a minute, and the policy's daily maximum (no daily limit would exceed it).
    const plain = await provision(limited.consumer.key, limited.serviceKey);
    expect(plain.body).toMatchObject({ permissions: ['read'], rate_limits: { requests_per_minute: 60, requests_per_day: 10_000 } });
    const policy = `the sub-key policy of ${limited.serviceKey}`;
    expect(plain.body.bounds).toEqual([
      {
        field: 'rate_limits.requests_per_day',
        asked: null,
        granted: 10_000,
        reason: `${policy} allows at most 10000 requests a day, so every key has a daily limit`,
      },
    ]);
    const above = await provision(limited.consumer.key, limited.serviceKey, {
      permissions: ['write'],
      rate_limits: { requests_per_minute: 500, requests_per_day: 20_000 },
    });
    expect(above.body).toMatchObject({ permissions: ['write'], rate_limits: { requests_per_minute: 100, requests_per_day: 10_000 } });
    expect(above.body.bounds).toEqual([
      { field: 'rate_limits.requests_per_minute', asked: 500, granted: 100, reason: `${policy} allows at most 100 requests a minute` },
      { field: 'rate_limits.requests_per_day', asked: 20_000, granted: 10_000, reason: `${policy} allows at most 10000 requests a day` },
    ]);
    expect((await verify(above.subKey)).body).toMatchObject({ permissions: ['write'], rate_limits: { requests_per_minute: 100, requests_per_day: 10_000 } });
    const below = await provision(limited.consumer.key, limited.serviceKey, { rate_limits: { requests_per_minute: 7, requests_per_day: 70 } });
    expect(below.body.rate_limits).toEqual({ requests_per_minute: 7, requests_per_day: 70 });
    expect(below.body.bounds).toEqual([]);
  });

  it('is set at registration, shown to the owner and to anyone who reads the service; unset, the default: read and write at 60 a minute', async () => {
    const plain = await provider();
    expect(plain.registration.sub_key_policy).toEqual(UNSET);
    expect(await policyOf(plain.serviceKey)).toEqual(UNSET);
    const set = await provider(READ_WRITE);
    const setByOwner = { ...READ_WRITE, set_by_owner: true };
    expect(set.registration.sub_key_policy).toEqual(setByOwner);
    expect(await policyOf(set.serviceKey)).toEqual(setByOwner);
    const listed = await call('GET', '/services?limit=100');
    expect(listed.body.services.find((s: any) => s.service_key === set.serviceKey).sub_key_policy).toEqual(setByOwner);
  });

  it('is changed by the owner alone (another agent gets 404), field by field, null restoring a default', async () => {
    const svc = await provider(READ_WRITE);
    const other = await registerAgent(server);
    expectProblem(await updatePolicy(other.key, svc.serviceKey, { permissions: ['read', 'admin'] }), 404, 'not_found');
    expectProblem(await updatePolicy(undefined, svc.serviceKey, { permissions: ['read', 'admin'] }), 401, 'unauthorized');
    expect(await policyOf(svc.serviceKey)).toEqual({ ...READ_WRITE, set_by_owner: true });

    const widened = await updatePolicy(svc.key, svc.serviceKey, { permissions: ['read', 'write', 'admin'] });
    expect(widened.status).toBe(200);
    expect(widened.body).toMatchObject({
      service_key: svc.serviceKey,
      sub_key_policy: { permissions: ['read', 'write', 'admin'], max_requests_per_minute: 100, max_requests_per_day: 10_000 },
    });
    const cleared = await call('PATCH', `/services/${svc.serviceKey}`, {
      key: svc.key,
      body: { subKeyPolicy: { maxRequestsPerDay: null, maxRequestsPerMinute: null } },
    });
    expect(cleared.body.sub_key_policy).toEqual({
      permissions: ['read', 'write', 'admin'],
      max_requests_per_minute: 60,
      max_requests_per_day: null,
      set_by_owner: true,
    });
    expect(await policyOf(svc.serviceKey)).toEqual(cleared.body.sub_key_policy);
    // A null policy takes it back to none set: the default applies again.
    const unset = await call('PATCH', `/services/${svc.serviceKey}`, { key: svc.key, body: { sub_key_policy: null } });
    expect(unset.body.sub_key_policy).toEqual(UNSET);
    expectProblem(await call('POST', `/keys/provision/${svc.serviceKey}`, { key: other.key, body: { permissions: ['admin'] } }), 403, 'forbidden');
  });

  it.each([
    [{ permissions: [] }, ['sub_key_policy.permissions']],
    [{ permissions: ['read', 'Not Valid'] }, ['sub_key_policy.permissions.1']],
    [{ max_requests_per_minute: 0 }, ['sub_key_policy.max_requests_per_minute']],
    [{ max_requests_per_day: 10_000_001 }, ['sub_key_policy.max_requests_per_day']],
  ])('answers 400 for the policy %j, at registration and on update, naming %j', async (policy, paths) => {
    const agent = await registerAgent(server);
    const body = {
      name: 'Summariser',
      endpoint: 'https://provider.example.com/run',
      capabilities: ['summarize'],
      description: 'Summarises long documents',
      pricing_model: 'free',
    };
    const registered = await call('POST', '/services/register', { key: agent.key, body: { ...body, sub_key_policy: policy } });
    expectProblem(registered, 400, 'validation_failed');
    expect(errorPaths(registered)).toEqual(paths);
    const svc = await provider();
    const updated = await updatePolicy(svc.key, svc.serviceKey, policy);
    expectProblem(updated, 400, 'validation_failed');
    expect(errorPaths(updated)).toEqual(paths);
  });

  it('holds the owner to its own policy on its own service, until it widens it', async () => {
    const svc = await provider();
    expectProblem(await call('POST', `/keys/provision/${svc.serviceKey}`, { key: svc.key, body: { permissions: ['read', 'admin'] } }), 403, 'forbidden');
    // A policy without read refuses a key asked without permissions (the default, read), naming the field.
    expect((await updatePolicy(svc.key, svc.serviceKey, { permissions: ['write'] })).status).toBe(200);
    const byDefault = await call('POST', `/keys/provision/${svc.serviceKey}`, { key: svc.key, body: {} });
    expectProblem(byDefault, 403, 'forbidden');
    expect(errorPaths(byDefault)).toEqual(['permissions']);
    expect((await updatePolicy(svc.key, svc.serviceKey, { permissions: ['read', 'admin'], max_requests_per_minute: 1000 })).status).toBe(200);
    const own = await provision(svc.key, svc.serviceKey, { permissions: ['read', 'admin'], rate_limits: { requests_per_minute: 1000 } });
    expect(own.body).toMatchObject({ permissions: ['read', 'admin'], rate_limits: { requests_per_minute: 1000, requests_per_day: null } });
  });

  it('leaves keys provisioned earlier as they were when the policy narrows; later ones follow the new policy', async () => {
    const { consumer, serviceKey, provider: svc } = await consumerAndService(READ_WRITE);
    const before = await provision(consumer.key, serviceKey, { permissions: ['read', 'write'], rate_limits: { requests_per_minute: 100 } });
    expect((await updatePolicy(svc.key, serviceKey, { permissions: ['read'], max_requests_per_minute: 10, max_requests_per_day: null })).status).toBe(200);
    expect((await verify(before.subKey)).body).toMatchObject({
      permissions: ['read', 'write'],
      rate_limits: { requests_per_minute: 100, requests_per_day: 10_000 },
    });
    expectProblem(await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: { permissions: ['write'] } }), 403, 'forbidden');
    const after = await provision(consumer.key, serviceKey);
    expect(after.body).toMatchObject({ permissions: ['read'], rate_limits: { requests_per_minute: 10, requests_per_day: null } });
  });

  it('re-checks a key against the policy when it is rotated: the new key gets what the policy now allows, and the answer says what was dropped or lowered', async () => {
    const { consumer, serviceKey, provider: svc } = await consumerAndService(READ_WRITE);
    const before = await provision(consumer.key, serviceKey, { permissions: ['read', 'write'], rate_limits: { requests_per_minute: 100 } });
    expect((await updatePolicy(svc.key, serviceKey, { permissions: ['read'], max_requests_per_minute: 10, max_requests_per_day: null })).status).toBe(200);
    const rotated = await rotate(consumer.key, before.id);
    expect(rotated.status).toBe(201);
    const policy = `the sub-key policy of ${serviceKey}`;
    expect(rotated.body).toMatchObject({
      permissions: ['read'],
      rate_limits: { requests_per_minute: 10, requests_per_day: 10_000 },
      bounds: [
        { field: 'permissions', asked: ['read', 'write'], granted: ['read'], reason: `"write" is no longer allowed by ${policy}, which allows "read"` },
        { field: 'rate_limits.requests_per_minute', asked: 100, granted: 10, reason: `${policy} allows at most 10 requests a minute` },
      ],
    });
    expect((await verify(rotated.body.new_sub_key)).body).toMatchObject({
      permissions: ['read'],
      rate_limits: { requests_per_minute: 10, requests_per_day: 10_000 },
    });
    // The old key keeps its grant for its grace period, as it was.
    expect((await verify(before.subKey)).body).toMatchObject({ permissions: ['read', 'write'], rate_limits: { requests_per_minute: 100 } });
    // Within the policy, a rotation carries the grant over unchanged.
    const again = await rotate(consumer.key, rotated.body.sub_key_id);
    expect(again.body).toMatchObject({ permissions: ['read'], rate_limits: { requests_per_minute: 10, requests_per_day: 10_000 }, bounds: [] });
  });

  it('refuses (403) to rotate a key none of whose permissions the policy allows any more, and leaves it as it was', async () => {
    const { consumer, serviceKey, provider: svc } = await consumerAndService({ permissions: ['read', 'admin'] });
    const admin = await provision(consumer.key, serviceKey, { permissions: ['admin'] });
    expect((await call('PATCH', `/services/${serviceKey}`, { key: svc.key, body: { sub_key_policy: null } })).status).toBe(200);
    const refused = await rotate(consumer.key, admin.id);
    expectProblem(refused, 403, 'forbidden');
    expect(refused.body.detail).toContain('revoke it');
    expect((await verify(admin.subKey)).status).toBe(200);
    expect((await rotate(consumer.key, admin.id, { grace_period_seconds: 0 })).status).toBe(403);
  });

  it('is the GraphQL field Service.subKeyPolicy, set by registerService and updateService', async () => {
    const svc = await provider();
    const res = await gql(
      server,
      'mutation ($svc: String!) { updateService(serviceKey: $svc, input: { subKeyPolicy: { permissions: ["read", "write"], maxRequestsPerDay: 50 } }) { serviceKey subKeyPolicy { permissions maxRequestsPerMinute maxRequestsPerDay } } }',
      { svc: svc.serviceKey },
      svc.key,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      updateService: { serviceKey: svc.serviceKey, subKeyPolicy: { permissions: ['read', 'write'], maxRequestsPerMinute: 60, maxRequestsPerDay: 50 } },
    });
  });
});

describe('the tier allowance of live sub-keys', () => {
  it('lets a newcomer hold 5 live keys and refuses a 6th with 403', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    for (let i = 0; i < 5; i++) await provision(consumer.key, serviceKey);
    const sixth = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} });
    expectProblem(sixth, 403, 'forbidden');
    expect(sixth.body.detail).toMatch(/5/);
  });

  it('frees a place when a key is revoked', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await provision(consumer.key, serviceKey));
    expect((await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} })).status).toBe(403);
    expect((await revoke(consumer.key, keys[0].id)).status).toBe(200);
    expect((await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} })).status).toBe(201);
    expect((await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} })).status).toBe(403);
  });

  it('frees a place when a key expires', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    await provision(consumer.key, serviceKey, { expires_at: new Date(clock.now().getTime() + 60_000).toISOString() });
    for (let i = 0; i < 4; i++) await provision(consumer.key, serviceKey);
    expect((await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} })).status).toBe(403);
    clock.advance(2 * 60_000);
    expect((await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} })).status).toBe(201);
  });

  it('still lets a newcomer at the allowance rotate a key', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await provision(consumer.key, serviceKey));
    expect((await rotate(consumer.key, keys[0].id)).status).toBe(201);
  });

  it('gives the last free place to only one of several concurrent requests', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    for (let i = 0; i < 4; i++) await provision(consumer.key, serviceKey);
    const answers = await Promise.all([1, 2, 3].map(() => call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 403, 403]);
  });

  it('allows a contributor (reputation 31-60) 20 live keys', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    await server.app.services.db.agent.update({ where: { id: consumer.agentId }, data: { reputation: 40 } });
    for (let i = 0; i < 20; i++) await provision(consumer.key, serviceKey);
    const over = await call('POST', `/keys/provision/${serviceKey}`, { key: consumer.key, body: {} });
    expectProblem(over, 403, 'forbidden');
    expect(over.body.detail).toMatch(/20/);
  });
});

describe('POST /keys/verify', () => {
  it("answers the holder's id, reputation and tier without any credential", async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const key = await provision(consumer.key, serviceKey);
    const res = await verify(key.subKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: true,
      agent_id: consumer.agentId,
      reputation: 20,
      tier: 'newcomer',
      sub_key_id: key.id,
      service: serviceKey,
      permissions: ['read'],
      rate_limits: { requests_per_minute: 60, requests_per_day: null },
      expires_at: key.body.expires_at,
    });
  });

  it("follows the holder's reputation and tier", async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const key = await provision(consumer.key, serviceKey);
    await server.app.services.db.agent.update({ where: { id: consumer.agentId }, data: { reputation: 70 } });
    expect((await verify(key.subKey)).body).toMatchObject({ reputation: 70, tier: 'trusted' });
  });

  it('answers 400 naming `key` when no key is given', async () => {
    const res = await call('POST', '/keys/verify', { body: {} });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['key']);
  });

  it('answers one identical 401 for unknown, malformed, revoked, expired and past-grace keys and keys of an inactive service', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const revoked = await provision(consumer.key, serviceKey);
    expect((await revoke(consumer.key, revoked.id)).status).toBe(200);
    const expiring = await provision(consumer.key, serviceKey, { expires_at: new Date(clock.now().getTime() + HOUR).toISOString() });
    const rotated = await provision(consumer.key, serviceKey);
    expect((await rotate(consumer.key, rotated.id, { grace_period_seconds: 60 })).status).toBe(201);
    const other = await consumerAndService();
    const ofInactiveService = await provision(other.consumer.key, other.serviceKey);
    await server.app.services.db.service.update({ where: { id: other.provider.serviceId }, data: { status: 'inactive' } });
    expect((await verify(expiring.subKey)).status).toBe(200);
    expect((await verify(rotated.subKey)).status).toBe(200);
    clock.advance(HOUR + 1000);

    const answers = [
      await verify(randomSubKey()),
      await verify('key_service_short'),
      await verify('not a key at all'),
      await verify(`key_master_${'A'.repeat(40)}`),
      await verify(revoked.subKey),
      await verify(expiring.subKey),
      await verify(rotated.subKey),
      await verify(ofInactiveService.subKey),
    ];
    for (const res of answers) expectProblem(res, 401, 'unauthorized');
    const bodies = answers.map((res) => JSON.stringify(withoutRequestId(res.body)));
    expect(new Set(bodies).size).toBe(1);
    expect(new Set(answers.map((res) => res.headers.get('content-type'))).size).toBe(1);
  });

  it('expires a key whose expires_at is set in the database', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const key = await provision(consumer.key, serviceKey);
    await server.app.services.db.subKey.update({ where: { id: key.id }, data: { expiresAt: new Date(clock.now().getTime() - 1000) } });
    expectProblem(await verify(key.subKey), 401, 'unauthorized');
  });

  it('answers 401 for a key whose holder is suspended, and 200 again once reactivated', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const key = await provision(consumer.key, serviceKey);
    const unknown = await verify(randomSubKey());
    await server.app.services.db.agent.update({ where: { id: consumer.agentId }, data: { status: 'SUSPENDED' } });
    const suspended = await verify(key.subKey);
    expectProblem(suspended, 401, 'unauthorized');
    expect(withoutRequestId(suspended.body)).toEqual(withoutRequestId(unknown.body));
    await server.app.services.db.agent.update({ where: { id: consumer.agentId }, data: { status: 'ACTIVE' } });
    expect((await verify(key.subKey)).status).toBe(200);
  });

  it("answers the unknown key's 401 for a key of a service whose provider is suspended or banned, and 200 again once restored", async () => {
    const { consumer, serviceKey, provider: svc } = await consumerAndService();
    const key = await provision(consumer.key, serviceKey);
    expect((await verify(key.subKey)).status).toBe(200);
    const unknown = await verify(randomSubKey());
    for (const status of ['SUSPENDED', 'BANNED'] as const) {
      await setStatus(svc.agentId, status);
      const refused = await verify(key.subKey);
      expectProblem(refused, 401, 'unauthorized');
      expect(withoutRequestId(refused.body)).toEqual(withoutRequestId(unknown.body));
    }
    await setStatus(svc.agentId, 'ACTIVE');
    expect((await verify(key.subKey)).status).toBe(200);
  });

  it('answers 401 for a key of a service whose provider is suspended through an ancestor', async () => {
    const { parent, serviceKey } = await serviceOfSubAgent();
    const consumer = await registerAgent(server);
    const key = await provision(consumer.key, serviceKey);
    expect((await verify(key.subKey)).status).toBe(200);
    await setStatus(parent.agentId, 'SUSPENDED');
    const refused = await verify(key.subKey);
    expectProblem(refused, 401, 'unauthorized');
    expect(withoutRequestId(refused.body)).toEqual(withoutRequestId((await verify(randomSubKey())).body));
    // GraphQL's verifySubKey is the same check.
    const viaGraphql = await gql(server, 'query($key: String!) { verifySubKey(key: $key) { agentId } }', { key: key.subKey });
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('UNAUTHORIZED');
    await setStatus(parent.agentId, 'ACTIVE');
    expect((await verify(key.subKey)).status).toBe(200);
  });

  it('is also the GraphQL query verifySubKey, as provisionSubKey is the mutation', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const provisioned = await gql<{ provisionSubKey: { subKey: string; subKeyId: string } }>(
      server,
      'mutation ($svc: String!) { provisionSubKey(serviceKey: $svc) { subKey subKeyId } }',
      { svc: serviceKey },
      consumer.key,
    );
    expect(provisioned.status).toBe(200);
    expect(provisioned.body.errors).toBeUndefined();
    const { subKey, subKeyId } = provisioned.body.data!.provisionSubKey;
    expect(subKey).toMatch(SUB_KEY);
    expect(subKeyId).toMatch(UUID);
    const verified = await gql(server, 'query ($key: String!) { verifySubKey(key: $key) { valid agentId } }', { key: subKey });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ verifySubKey: { valid: true, agentId: consumer.agentId } });
  });
});

describe('POST /keys/:keyId/rotate', () => {
  it('issues a new key and keeps the old sub-key valid for the 24-hour grace period', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const old = await provision(consumer.key, serviceKey);
    const rotatedAt = clock.now().getTime();
    const res = await rotate(consumer.key, old.id);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      new_sub_key: expect.stringMatching(SUB_KEY),
      sub_key_id: expect.stringMatching(UUID),
      previous_sub_key_id: old.id,
      grace_period_ends: new Date(rotatedAt + DAY).toISOString(),
    });
    expect(res.body.new_sub_key).not.toBe(old.subKey);
    expect(res.body.sub_key_id).not.toBe(old.id);

    const newer = await verify(res.body.new_sub_key);
    expect(newer.status).toBe(200);
    expect(newer.body).toMatchObject({ agent_id: consumer.agentId, sub_key_id: res.body.sub_key_id });
    const older = await verify(old.subKey);
    expect(older.status).toBe(200);
    expect(older.body).toMatchObject({ agent_id: consumer.agentId, sub_key_id: old.id });

    clock.advance(DAY - 1000);
    expect((await verify(old.subKey)).status).toBe(200);
    clock.advance(2000);
    expectProblem(await verify(old.subKey), 401, 'unauthorized');
    expect((await verify(res.body.new_sub_key)).status).toBe(200);
  });

  it('ends the grace at once with grace_period_seconds 0', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const old = await provision(consumer.key, serviceKey);
    const res = await rotate(consumer.key, old.id, { grace_period_seconds: 0 });
    expect(res.status).toBe(201);
    expect(res.body.grace_period_ends).toBe(clock.now().toISOString());
    expectProblem(await verify(old.subKey), 401, 'unauthorized');
    expect((await verify(res.body.new_sub_key)).status).toBe(200);
  });

  it('takes a shorter grace period in seconds', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const old = await provision(consumer.key, serviceKey);
    const res = await rotate(consumer.key, old.id, { grace_period_seconds: 300 });
    expect(res.body.grace_period_ends).toBe(new Date(clock.now().getTime() + 300_000).toISOString());
    clock.advance(299_000);
    expect((await verify(old.subKey)).status).toBe(200);
    clock.advance(2000);
    expect((await verify(old.subKey)).status).toBe(401);
  });

  it.each([[-1], [86_401], [1.5], ['soon']])('answers 400 naming grace_period_seconds for %j', async (grace) => {
    const { consumer, serviceKey } = await consumerAndService();
    const key = await provision(consumer.key, serviceKey);
    const res = await rotate(consumer.key, key.id, { grace_period_seconds: grace });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['grace_period_seconds']);
    expect((await verify(key.subKey)).status).toBe(200);
  });

  it("ends the earlier key's grace at once when the new key is rotated again", async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const first = await provision(consumer.key, serviceKey);
    const second = await rotate(consumer.key, first.id);
    const third = await rotate(consumer.key, second.body.sub_key_id);
    expect(third.status).toBe(201);
    expect(third.body.previous_sub_key_id).toBe(second.body.sub_key_id);
    expectProblem(await verify(first.subKey), 401, 'unauthorized');
    expect((await verify(second.body.new_sub_key)).status).toBe(200);
    expect((await verify(third.body.new_sub_key)).status).toBe(200);
  });

  it('lets only one of two concurrent rotations of a key succeed', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const key = await provision(consumer.key, serviceKey);
    const answers = await Promise.all([rotate(consumer.key, key.id), rotate(consumer.key, key.id)]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    const listed = await call('GET', '/my/keys', { key: consumer.key });
    expect(listed.body.total).toBe(2);
  });

  it('carries the expiry, permissions and rate limits over to the new key', async () => {
    const { consumer, serviceKey } = await consumerAndService(READ_WRITE);
    const expiresAt = new Date(clock.now().getTime() + 30 * DAY).toISOString();
    const old = await provision(consumer.key, serviceKey, { permissions: ['read', 'write'], rate_limits: { requests_per_minute: 5 }, expires_at: expiresAt });
    const res = await rotate(consumer.key, old.id);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ expires_at: expiresAt, permissions: ['read', 'write'] });
    const verified = await verify(res.body.new_sub_key);
    expect(verified.body).toMatchObject({
      service: serviceKey,
      permissions: ['read', 'write'],
      rate_limits: { requests_per_minute: 5 },
      expires_at: expiresAt,
    });
  });

  it('answers 409 for a key that is already rotated, revoked or expired', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const rotated = await provision(consumer.key, serviceKey);
    expect((await rotate(consumer.key, rotated.id)).status).toBe(201);
    expectProblem(await rotate(consumer.key, rotated.id), 409, 'conflict');

    const revoked = await provision(consumer.key, serviceKey);
    expect((await revoke(consumer.key, revoked.id)).status).toBe(200);
    expectProblem(await rotate(consumer.key, revoked.id), 409, 'conflict');

    const expired = await provision(consumer.key, serviceKey, { expires_at: new Date(clock.now().getTime() + 60_000).toISOString() });
    clock.advance(61_000);
    expectProblem(await rotate(consumer.key, expired.id), 409, 'conflict');
  });

  it("answers 404 for another agent's key and for an id that is no key", async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const stranger = await registerAgent(server);
    const key = await provision(consumer.key, serviceKey);
    expectProblem(await rotate(stranger.key, key.id), 404, 'not_found');
    expectProblem(await rotate(consumer.key, '00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    expectProblem(await rotate(consumer.key, 'not-a-uuid'), 404, 'not_found');
    expect((await verify(key.subKey)).status).toBe(200);
  });
});

describe('key ids in the path', () => {
  it.each(['a'.repeat(36), '-'.repeat(36), '0123456789abcdef0123456789abcdef0123'])('answers 404, not 500, to rotate and revoke for %s', async (id) => {
    const { consumer } = await consumerAndService();
    expectProblem(await rotate(consumer.key, id), 404, 'not_found');
    expectProblem(await revoke(consumer.key, id), 404, 'not_found');
  });
});

describe('DELETE /keys/:keyId', () => {
  it('revokes a key at once', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const key = await provision(consumer.key, serviceKey);
    expect((await verify(key.subKey)).status).toBe(200);
    const res = await revoke(consumer.key, key.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: true, sub_key_id: key.id, revoked_at: clock.now().toISOString() });
    expectProblem(await verify(key.subKey), 401, 'unauthorized');
  });

  it('answers 409 when revoking twice', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const key = await provision(consumer.key, serviceKey);
    expect((await revoke(consumer.key, key.id)).status).toBe(200);
    expectProblem(await revoke(consumer.key, key.id), 409, 'conflict');
  });

  it('revokes with the rotated-to key the old key still in its grace period', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const old = await provision(consumer.key, serviceKey);
    const rotated = await rotate(consumer.key, old.id);
    expect((await verify(old.subKey)).status).toBe(200);
    expect((await revoke(consumer.key, rotated.body.sub_key_id)).status).toBe(200);
    expectProblem(await verify(rotated.body.new_sub_key), 401, 'unauthorized');
    expectProblem(await verify(old.subKey), 401, 'unauthorized');
  });

  it('may revoke a key in its grace period early', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const old = await provision(consumer.key, serviceKey);
    const rotated = await rotate(consumer.key, old.id);
    expect((await revoke(consumer.key, old.id)).status).toBe(200);
    expectProblem(await verify(old.subKey), 401, 'unauthorized');
    expect((await verify(rotated.body.new_sub_key)).status).toBe(200);
  });

  it("answers 404 for another agent's key", async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const stranger = await registerAgent(server);
    const key = await provision(consumer.key, serviceKey);
    expectProblem(await revoke(stranger.key, key.id), 404, 'not_found');
    expectProblem(await revoke(consumer.key, 'not-a-uuid'), 404, 'not_found');
    expect((await verify(key.subKey)).status).toBe(200);
  });
});

describe('GET /agents/me/keys and /my/keys', () => {
  it('lists the keys with status and expiry, newest first, never their secrets', async () => {
    const { consumer, serviceKey } = await consumerAndService({ permissions: ['read', 'write'] });
    const active = await provision(consumer.key, serviceKey, { permissions: ['read', 'write'] });
    const rotated = await provision(consumer.key, serviceKey);
    const rotation = await rotate(consumer.key, rotated.id);
    const revoked = await provision(consumer.key, serviceKey);
    await revoke(consumer.key, revoked.id);
    const expiresAt = new Date(clock.now().getTime() + 60_000);
    const expired = await provision(consumer.key, serviceKey, { expires_at: expiresAt.toISOString() });
    clock.advance(61_000);

    const res = await call('GET', '/agents/me/keys', { key: consumer.key });
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(ANY_SUB_KEY);
    for (const secret of [active.subKey, rotated.subKey, rotation.body.new_sub_key, revoked.subKey, expired.subKey]) expect(res.text).not.toContain(secret);
    expect(res.body.total).toBe(5);
    expect(res.body.keys).toHaveLength(5);
    const byId = new Map(res.body.keys.map((k: any) => [k.sub_key_id, k]));
    expect(byId.get(active.id)).toEqual({
      sub_key_id: active.id,
      hint: expect.stringMatching(/^key_service_/),
      service: serviceKey,
      service_name: 'Summariser',
      permissions: ['read', 'write'],
      rate_limits: { requests_per_minute: 60, requests_per_day: null },
      status: 'active',
      expires_at: expect.any(String),
      grace_period_ends: null,
      revoked_at: null,
      created_at: expect.any(String),
    });
    expect(byId.get(rotated.id)).toMatchObject({ status: 'grace', grace_period_ends: rotation.body.grace_period_ends });
    expect(byId.get(rotation.body.sub_key_id)).toMatchObject({ status: 'active' });
    expect(byId.get(revoked.id)).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    expect(byId.get(expired.id)).toMatchObject({ status: 'expired', expires_at: expiresAt.toISOString() });
    const created = res.body.keys.map((k: any) => Date.parse(k.created_at));
    expect([...created].sort((a, b) => b - a)).toEqual(created);

    const alias = await call('GET', '/my/keys', { key: consumer.key });
    expect(alias.status).toBe(200);
    expect(alias.body).toEqual(res.body);
  });

  it('shows a key past its grace period as expired', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const old = await provision(consumer.key, serviceKey);
    await rotate(consumer.key, old.id, { grace_period_seconds: 10 });
    clock.advance(11_000);
    const res = await call('GET', '/my/keys', { key: consumer.key });
    expect(res.body.keys.find((k: any) => k.sub_key_id === old.id)).toMatchObject({ status: 'expired' });
  });

  it('pages with limit and offset, reporting the total', async () => {
    const { consumer, serviceKey } = await consumerAndService();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await provision(consumer.key, serviceKey)).id);
    const first = await call('GET', '/my/keys?limit=2', { key: consumer.key });
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(3);
    expect(first.body.keys).toHaveLength(2);
    const rest = await call('GET', '/my/keys?limit=2&offset=2', { key: consumer.key });
    expect(rest.body.total).toBe(3);
    expect(rest.body.keys).toHaveLength(1);
    const seen = [...first.body.keys, ...rest.body.keys].map((k: any) => k.sub_key_id);
    expect(seen.sort()).toEqual(ids.sort());
    const beyond = await call('GET', '/agents/me/keys?offset=10', { key: consumer.key });
    expect(beyond.body).toEqual({ total: 3, keys: [] });
  });

  it("shows only the caller's own keys", async () => {
    const { consumer, serviceKey, provider: svc } = await consumerAndService();
    await provision(consumer.key, serviceKey);
    const providers = await call('GET', '/my/keys', { key: svc.key });
    expect(providers.body).toEqual({ total: 0, keys: [] });
  });
});
