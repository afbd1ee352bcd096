// Rate limits (CONTRACT §5): per route, per credential or per address, with headers, 429 and Retry-After.
import { newAgentKey, newMasterKey, secretHint, sha256Hex } from '../../src/platform/ids';
import { api, gql, startServer, uniqueName, type TestServer } from '../support/server';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

it('limits registration to 30 a minute per address and answers 429 with Retry-After', async () => {
  const statuses: number[] = [];
  let last;
  for (let i = 0; i < 31; i++) {
    last = await api(server)('POST', '/agents/register', { body: { name: uniqueName('rl'), description: 'rate test', ownerEmail: 'r@example.com' } });
    statuses.push(last.status);
  }
  expect(statuses.slice(0, 30).every((s) => s === 201)).toBe(true);
  expect(last!.status).toBe(429);
  expect(last!.body).toMatchObject({ code: 'rate_limited', status: 429 });
  expect(last!.headers.get('x-ratelimit-limit')).toBe('30');
  expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
  const retryAfter = Number(last!.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  const reset = Number(last!.headers.get('x-ratelimit-reset'));
  expect(reset).toBeGreaterThan(Date.now() / 1000);
  expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
  // GraphQL's registerAgent is the same operation and spends the same budget.
  const viaGraphql = await gql(server, 'mutation { registerAgent(input: { name: "x-over", description: "d", ownerEmail: "a@example.com" }) { agentKey } }');
  expect(viaGraphql.status).toBe(429);
  expect(viaGraphql.body.errors![0].extensions!.code).toBe('RATE_LIMITED');
});

it('counts a made-up credential against the address: a client past its 429 gets nothing by sending fresh random keys', async () => {
  const other = await startServer();
  try {
    const register = (authorization?: string) =>
      api(other)('POST', '/agents/register', {
        body: { name: uniqueName('rk'), description: 'rate test', ownerEmail: 'r@example.com' },
        headers: authorization ? { authorization } : {},
      });
    for (let i = 0; i < 30; i++) expect((await register()).status).toBe(201);
    expect((await register()).status).toBe(429);
    // Every unknown or malformed credential is the same client: its address's bucket, already spent.
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await register(`Bearer ${newMasterKey()}`)).status, (await register('Bearer nonsense')).status);
    expect(new Set(statuses)).toEqual(new Set([429]));
    // GraphQL fields count the same way.
    const viaGraphql = await gql(other, '{ stats { totalAgents } }', undefined, newMasterKey());
    expect(viaGraphql.headers.get('x-ratelimit-limit')).toBe('60');
    const again = await gql(other, '{ stats { totalAgents } }');
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(Number(viaGraphql.headers.get('x-ratelimit-remaining')) - 1);
  } finally {
    await other.close();
  }
});

it('counts per credential, so one agent exhausting its budget leaves another untouched', async () => {
  const a = await seedAgent();
  const b = await seedAgent();
  for (let i = 0; i < 60; i++) {
    const res = await api(server)('GET', '/agents/me', { key: a });
    expect(res.status).toBe(200);
  }
  const over = await api(server)('GET', '/agents/me', { key: a });
  expect(over.status).toBe(429);
  // GraphQL's twin of the route spends the same budget.
  const overGql = await gql(server, '{ me { id } }', undefined, a);
  expect(overGql.status).toBe(429);
  expect(overGql.body.errors![0].extensions!.code).toBe('RATE_LIMITED');
  expect(overGql.headers.get('retry-after')).toBeTruthy();
  const other = await api(server)('GET', '/agents/me', { key: b });
  expect(other.status).toBe(200);
  expect(other.headers.get('x-ratelimit-remaining')).toBe('59');
  // Another route has its own bucket.
  expect((await api(server)('PATCH', '/agents/me', { key: a, body: {} })).status).toBe(200);
});

it('counts each spec route in a bucket of its own, even routes of one area that once shared one', async () => {
  // Each group shared one bucket before (test/unit/rate-buckets.test.ts holds every route to this).
  const groups = [
    ['/acp/status', '/acp/offerings', '/acp/offerings/usdc', '/acp/offerings/svc_none:summarize/payment-terms'],
    ['/services', '/services/svc_none'],
    ['/capabilities', '/capabilities/summarize'],
  ];
  const remaining = async (path: string) => {
    const res = await api(server)('GET', path);
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    return Number(res.headers.get('x-ratelimit-remaining'));
  };
  for (const [first, ...others] of groups) {
    await remaining(first);
    await remaining(first);
    expect(await remaining(first)).toBe(57);
    for (const other of others) expect(await remaining(other)).toBe(59);
  }
});

/** An agent made directly in the database: this address's registration budget is spent above. */
async function seedAgent(): Promise<string> {
  const key = newMasterKey();
  await server.app.services.db.agent.create({
    data: {
      agentKey: newAgentKey(),
      name: uniqueName('seed'),
      description: 'seeded',
      ownerEmail: 's@example.com',
      credentials: { create: { kind: 'master', hash: sha256Hex(key), hint: secretHint(key) } },
    },
  });
  return key;
}
