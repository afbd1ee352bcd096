// The principal cache (src/domain/agents/principal-cache.ts): an authenticated request finds its caller
// without a database round trip, and no change of the caller outlives it — this instance's own mutations
// empty it at once, changes made anywhere else through the database's change notification.
import { parseBearer } from '../../src/platform/auth';
import { lookupPrincipal } from '../../src/domain/agents/principal';
import { api, gql, onPostgres, registerAgent, startServer, type TestServer } from '../support/server';
import { expectProblem, within } from '../support/expect';

const ADMIN_KEY = `key_admin_${'P'.repeat(40)}`;
let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

/**
 * Writes to the database with the principal triggers off: a change no notification reports. What the
 * server answers afterwards shows whether it looked the caller up again.
 */
async function behindTheCache(sql: string, params: unknown[]): Promise<void> {
  const q = server.app.services.sql;
  await q.query('ALTER TABLE agents DISABLE TRIGGER agents_principal_changed', []);
  try {
    await q.query(sql, params);
  } finally {
    await q.query('ALTER TABLE agents ENABLE TRIGGER agents_principal_changed', []);
  }
}

it('answers a known caller from memory', async () => {
  const me = await registerAgent(server);
  expect((await call('GET', '/agents/me', { key: me.key })).body.name).toBe(me.name);
  await behindTheCache('UPDATE agents SET description = $2 WHERE id = $1', [me.agentId, 'Edited behind the cache']);
  const res = await call('GET', '/agents/me', { key: me.key });
  expect(res.body.description).toBe('An agent made by a test');
  // GraphQL and the lookup itself answer the same remembered caller.
  const principal = await lookupPrincipal(server.app.services, parseBearer(`Bearer ${me.key}`));
  expect(principal.kind === 'agent' && principal.agent.description).toBe('An agent made by a test');
  expect(server.app.services.principals.size).toBeGreaterThan(0);
});

it("sees the caller's own change on its very next request", async () => {
  const me = await registerAgent(server);
  await call('GET', '/agents/me', { key: me.key });
  expect((await call('PATCH', '/agents/me', { key: me.key, body: { description: 'Changed by myself' } })).status).toBe(200);
  expect((await call('GET', '/agents/me', { key: me.key })).body.description).toBe('Changed by myself');
});

it('refuses an agent suspended by the administrator here on its very next request, and serves it again once restored', async () => {
  const me = await registerAgent(server);
  expect((await call('GET', '/agents/me', { key: me.key })).status).toBe(200);
  expect((await call('PATCH', `/admin/agents/${me.agentId}/status`, { key: ADMIN_KEY, body: { status: 'SUSPENDED' } })).status).toBe(200);
  expectProblem(await call('GET', '/agents/me', { key: me.key }), 403, 'forbidden');
  const viaGraphql = await gql(server, '{ me { name } }', undefined, me.key);
  expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  expect((await call('PATCH', `/admin/agents/${me.agentId}/status`, { key: ADMIN_KEY, body: { status: 'ACTIVE' } })).status).toBe(200);
  expect((await call('GET', '/agents/me', { key: me.key })).status).toBe(200);
});

it('never keeps a suspended agent: lifting the suspension anywhere is seen by its next request, notification or not', async () => {
  const me = await registerAgent(server);
  expect((await call('PATCH', `/admin/agents/${me.agentId}/status`, { key: ADMIN_KEY, body: { status: 'SUSPENDED' } })).status).toBe(200);
  expectProblem(await call('GET', '/agents/me', { key: me.key }), 403, 'forbidden');
  expectProblem(await call('GET', '/agents/me', { key: me.key }), 403, 'forbidden');
  // Restored behind this instance's back, with no notification: had the refused caller been kept, it would
  // still be refused.
  await behindTheCache("UPDATE agents SET status = 'ACTIVE' WHERE id = $1", [me.agentId]);
  expect((await call('GET', '/agents/me', { key: me.key })).status).toBe(200);
});

it('forgets a caller changed in the database by anyone (another instance), through the change notification', async () => {
  const me = await registerAgent(server);
  const other = await registerAgent(server);
  await call('GET', '/agents/me', { key: me.key });
  await call('GET', '/agents/me', { key: other.key });
  // Written straight to the database, as another instance would: no mutation of this one empties anything.
  await server.app.services.sql.query('UPDATE agents SET reputation = 77 WHERE id = $1', [me.agentId]);
  await within(2_000, async () => (await call('GET', '/agents/me', { key: me.key })).body.reputation_score === 77);
  // Only that agent's callers were forgotten: the other is still answered from memory.
  await behindTheCache('UPDATE agents SET description = $2 WHERE id = $1', [other.agentId, 'Edited behind the cache']);
  await server.app.services.sql.query('UPDATE agents SET reputation = 78 WHERE id = $1', [me.agentId]);
  await within(2_000, async () => (await call('GET', '/agents/me', { key: me.key })).body.reputation_score === 78);
  expect((await call('GET', '/agents/me', { key: other.key })).body.description).toBe('An agent made by a test');

  await server.app.services.sql.query("UPDATE agents SET status = 'BANNED' WHERE id = $1", [me.agentId]);
  await within(2_000, async () => (await call('GET', '/agents/me', { key: me.key })).status === 403);
});

it('refuses a revoked credential, and never keeps one that matched nothing', async () => {
  const me = await registerAgent(server);
  expect((await call('GET', '/agents/me', { key: me.key })).status).toBe(200);
  await server.app.services.sql.query('UPDATE credentials SET revoked_at = now() WHERE agent_id = $1', [me.agentId]);
  await within(2_000, async () => (await call('GET', '/agents/me', { key: me.key })).status === 401);
  expectProblem(await call('GET', '/agents/me', { key: me.key }), 401, 'unauthorized');
  // Restored (as an operator might): a refused hash was not kept, so it works at once.
  await server.app.services.sql.query('UPDATE credentials SET revoked_at = NULL WHERE agent_id = $1', [me.agentId]);
  expect((await call('GET', '/agents/me', { key: me.key })).status).toBe(200);
});

it("refuses the administrator's key once revoked, and a deleted agent's", async () => {
  expect((await call('GET', '/admin/stats', { key: ADMIN_KEY })).status).toBe(200);
  await server.app.services.sql.query("UPDATE credentials SET revoked_at = now() WHERE kind = 'admin'", []);
  try {
    await within(2_000, async () => (await call('GET', '/admin/stats', { key: ADMIN_KEY })).status === 401);
  } finally {
    await server.app.services.sql.query("UPDATE credentials SET revoked_at = NULL WHERE kind = 'admin'", []);
  }
  const me = await registerAgent(server);
  expect((await call('GET', '/agents/me', { key: me.key })).status).toBe(200);
  await server.app.services.sql.query('DELETE FROM agents WHERE id = $1', [me.agentId]);
  await within(2_000, async () => (await call('GET', '/agents/me', { key: me.key })).status === 401);
});

it('keeps nothing when turned off', async () => {
  const off = await startServer({ env: { PRINCIPAL_CACHE: '0' } });
  try {
    const me = await registerAgent(off);
    expect((await api(off)('GET', '/agents/me', { key: me.key })).status).toBe(200);
    expect(off.app.services.principals.enabled).toBe(false);
    expect(off.app.services.principals.size).toBe(0);
  } finally {
    await off.close();
  }
});

(onPostgres() ? it : it.skip)('keeps nothing while its listening connection is down, and resumes once it is back', async () => {
  const cache = server.app.services.principals;
  expect(cache.enabled).toBe(true);
  const [killed] = await server.app.services.sql.query<{ killed: boolean }>(
    `SELECT bool_or(pg_terminate_backend(pid)) AS killed FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN marketplace_principals'`,
    [],
  );
  expect(killed.killed).toBe(true);
  await within(2_000, async () => !cache.enabled);
  const me = await registerAgent(server);
  expect((await call('GET', '/agents/me', { key: me.key })).status).toBe(200);
  await within(5_000, async () => cache.enabled);
  expect((await call('GET', '/agents/me', { key: me.key })).status).toBe(200);
  const bearer = parseBearer(`Bearer ${me.key}`);
  expect(bearer.kind === 'key' && cache.get(bearer.hash)).toBeTruthy();
});
