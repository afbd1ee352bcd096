// The read cache as execute uses it (src/platform/read-cache.ts): a repeated call reaches its provider without
// a lookup, and no change that matters outlives it — this instance's own mutations empty it at once,
// changes made anywhere else through the database's change notification, the rest within its TTL.
import { api, onPostgres, registerAgent, startServer, uniqueSlug, type TestServer } from '../support/server';
import { registerPayingAgent } from '../support/payments';
import { expectProblem, within } from '../support/expect';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';

const ADMIN_KEY = `key_admin_${'C'.repeat(40)}`;
let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  // A TTL far beyond any test: whatever a test sees change was emptied by a notification or a mutation.
  server = await startServer({ env: { ADMIN_KEY, RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', READ_CACHE_MS: '60000' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

async function offer(capability: string) {
  const p = await startProvider();
  providers.push(p);
  const owner = await registerAgent(server);
  const res = await call('POST', '/services/register', {
    key: owner.key,
    body: { name: `svc for ${capability}`, endpoint: p.url, capabilities: [capability], description: 'A provider under test', pricing_model: 'free' },
  });
  expect(res.status).toBe(201);
  return { p, owner, serviceId: res.body.service_id as string };
}

const run = (key: string, capability: string) => call('POST', '/execute', { key, body: { capability, input: { text: 'hi' } } });

it('serves a repeated call from the cache, and empties it when a change that matters is committed anywhere', async () => {
  const cap = uniqueSlug('hot');
  const { serviceId } = await offer(cap);
  const me = await registerPayingAgent(server);
  expect((await run(me.key, cap)).body.provider.name).toBe(`svc for ${cap}`);
  // A change no notification reports (the ranking's copy of the name, edited behind its back): the cache
  // still answers what it holds, which shows that the second call looked nothing up.
  await server.app.services.sql.query(
    `UPDATE service_offers SET listing = jsonb_set(listing::jsonb, '{2}', '"renamed behind the cache"')::json WHERE service_id = $1`,
    [serviceId],
  );
  expect((await run(me.key, cap)).body.provider.name).toBe(`svc for ${cap}`);
  // A change that matters, written straight to the database as another instance would: the notification
  // empties the cache, and the next call sees the service as it now is.
  await server.app.services.db.service.update({ where: { id: serviceId }, data: { costPerCall: 3, name: 'Renamed' } });
  const took = await within(2_000, async () => (await run(me.key, cap)).body.provider?.name === 'Renamed');
  expect(took).toBeLessThan(2_000);
  expect((await run(me.key, cap)).body.transaction.cost_cents).toBe(3);
});

it('refuses a caller suspended by a mutation on this instance on its very next call', async () => {
  const cap = uniqueSlug('hot');
  const { p } = await offer(cap);
  const me = await registerPayingAgent(server);
  expect((await run(me.key, cap)).status).toBe(200);
  const suspended = await call('PATCH', `/admin/agents/${me.agentId}/status`, { key: ADMIN_KEY, body: { status: 'SUSPENDED' } });
  expect(suspended.status).toBe(200);
  expectProblem(await run(me.key, cap), 403, 'forbidden');
  expect(p.calls).toHaveLength(1);
});

it('refuses a caller whose credential is revoked in the database, through the change notification', async () => {
  const cap = uniqueSlug('hot');
  const { p } = await offer(cap);
  const me = await registerPayingAgent(server);
  expect((await run(me.key, cap)).status).toBe(200);
  await server.app.services.db.credential.updateMany({ where: { agentId: me.agentId }, data: { revokedAt: new Date() } });
  await within(2_000, async () => (await run(me.key, cap)).status === 401);
  // Once refused, never served again: a refused caller is not cached.
  expectProblem(await run(me.key, cap), 401, 'unauthorized');
  expect(p.calls.length).toBeLessThanOrEqual(2);
});

it('stops calling a provider that cooled down or was deactivated', async () => {
  const cap = uniqueSlug('hot');
  const { serviceId } = await offer(cap);
  const me = await registerPayingAgent(server);
  expect((await run(me.key, cap)).status).toBe(200);
  await server.app.services.db.service.update({ where: { id: serviceId }, data: { status: 'inactive' } });
  await within(2_000, async () => (await run(me.key, cap)).status === 404);
});

(onPostgres() ? it : it.skip)('keeps nothing while its listening connection is down, and resumes once it is back', async () => {
  const cache = server.app.services.readCache;
  expect(cache.enabled).toBe(true);
  const [killed] = await server.app.services.sql.query<{ killed: boolean }>(
    `SELECT bool_or(pg_terminate_backend(pid)) AS killed FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN marketplace_changes'`,
    [],
  );
  expect(killed.killed).toBe(true);
  await within(2_000, async () => !cache.enabled);
  // Meanwhile calls still work, each looking its caller and providers up.
  const cap = uniqueSlug('hot');
  await offer(cap);
  const me = await registerPayingAgent(server);
  expect((await run(me.key, cap)).status).toBe(200);
  await within(5_000, async () => cache.enabled);
});
