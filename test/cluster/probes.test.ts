// Three instances on one PostgreSQL probe a provider that gets no calls as often as one instance would
// (docs/execution.md, Live providers): each probe is claimed from the database, so the rate per provider does
// not grow with the instances.
import { clonePostgres } from '../support/databases';
import { api, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';
import { startProvider, type Provider } from '../support/provider';
import { assertTestCaTrusted } from '../support/https';

const INTERVAL_MS = 600;
const servers: TestServer[] = [];
let provider: Provider;
let drop: () => Promise<void>;

beforeAll(async () => {
  assertTestCaTrusted();
  const db = await clonePostgres(process.env.DATABASE_URL!);
  drop = db.drop;
  const env = { OUTBOUND_ALLOW_PRIVATE: '1', RATE_LIMIT_DISABLED: '1', PROBE_INTERVAL_MS: String(INTERVAL_MS), PROBE_HOST_GAP_MS: '0' };
  for (let i = 0; i < 3; i++) servers.push(await startServer({ databaseUrl: db.url, redisUrl: process.env.REDIS_URL, env }));
  provider = await startProvider('idle');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await provider?.close();
  await drop?.();
});

it('probes an idle provider at one instance’s rate, whichever instance sends each probe', async () => {
  const call = api(servers[0]);
  const agent = await call('POST', '/agents/register', { body: { name: uniqueName(), description: 'An agent made by a test', ownerEmail: 'o@example.com' } });
  expect(agent.status).toBe(201);
  const res = await call('POST', '/services/register', {
    key: agent.body.master_key,
    body: { name: 'idle', description: 'A provider nobody calls', endpoint: provider.url, capabilities: [uniqueSlug('idle')], pricing_model: 'free' },
  });
  expect(res.status).toBe(201);
  // Eight probes; one instance alone would space them an interval apart, three uncoordinated ones a third of it.
  const probes = await provider.waitFor(8, 60_000);
  const gaps = probes.slice(1).map((p, i) => p.at - probes[i].at);
  const span = probes[probes.length - 1].at - probes[0].at;
  expect(probes.every((p) => p.method === 'GET')).toBe(true);
  // Seven gaps of an interval each (a round's poll and the probe's own time only lengthen them).
  expect({ span: span >= 7 * INTERVAL_MS * 0.9, shortGaps: gaps.filter((g) => g < INTERVAL_MS * 0.5) }).toEqual({ span: true, shortGaps: [] });
});
