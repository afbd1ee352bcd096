// Bad input anywhere in the slice answers a 4xx problem (or GraphQL errors), never a 5xx: random bodies,
// headers, paths and queries thrown at every route, and the administrator key shown once at first start.
import fc from 'fast-check';
import { routes } from '../../rest/routes';
import { api, gql, http, registerAgent, startServer, type TestServer } from '../support/server';

let server: TestServer;
let key: string;

beforeAll(async () => {
  // Limits off: this suite sends many requests on purpose.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  key = (await registerAgent(server)).key;
});
afterAll(() => server.close());

const anyJson = fc.jsonValue({ maxDepth: 3 });
const fieldish = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 60 }), fc.integer(), fc.constant(null), anyJson),
    description: fc.oneof(fc.string({ maxLength: 40 }), fc.boolean(), anyJson),
    ownerEmail: fc.oneof(fc.emailAddress(), fc.string({ maxLength: 30 }), anyJson),
    capabilities: fc.oneof(fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }), anyJson),
  },
  { requiredKeys: [] },
);

function expectClientError(res: { status: number; headers: Headers; body: any; text: string }) {
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(res.body.code).toEqual(expect.any(String));
  }
}

it('answers random bodies on every body-taking route with 2xx or a 4xx problem', async () => {
  const bodyRoutes = routes.filter((r) => r.method !== 'GET');
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...bodyRoutes), fc.oneof(fieldish, anyJson), async (route, body) => {
      const path = Array.isArray(route.path) ? route.path[0] : route.path;
      const res = await api(server)(route.method, path, { key, body });
      expectClientError(res);
    }),
    { numRuns: 150 },
  );
});

it('answers random query strings, paths and headers without a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('/uptime', '/agents/me', '/health', '/no/such', '/agents/%E0%A4%A', '/agents/me/'),
      fc.dictionary(fc.constantFrom('days', 'x', 'limit'), fc.string({ maxLength: 12 }), { maxKeys: 3 }),
      fc.oneof(
        fc.constant(undefined),
        fc.string({ maxLength: 60 }).map((s) => `Bearer ${s.replace(/[\r\n]/g, '')}`),
      ),
      async (path, query, authorization) => {
        const qs = new URLSearchParams(query).toString();
        const res = await http(server.url, 'GET', `/api/v1${path}${qs ? `?${qs}` : ''}`, { headers: authorization ? { authorization } : {} });
        expectClientError(res);
      },
    ),
    { numRuns: 150 },
  );
});

it('answers random GraphQL variables without a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(anyJson, async (input) => {
      const res = await gql(server, 'mutation($i: UpdateMeInput!) { updateMe(input: $i) { name } }', { i: input }, key);
      expect(res.status).toBeLessThan(500);
    }),
    { numRuns: 100 },
  );
});

it('generates the administrator key at first start, shows it once, and accepts it as the admin', async () => {
  const line = server.logs.find((l) => l.includes('admin_key_shown_once'));
  expect(line).toBeDefined();
  const adminKey = JSON.parse(line!).admin_key_shown_once as string;
  expect(adminKey).toMatch(/^key_admin_[0-9A-Za-z]{40}$/);
  expect(server.logs.filter((l) => l.includes(adminKey))).toHaveLength(1);
  // Recognised as the administrator (403: not an agent), unlike an unknown key (401).
  expect((await api(server)('GET', '/agents/me', { key: adminKey })).status).toBe(403);
  expect((await api(server)('GET', '/agents/me', { key: `key_admin_${'Q'.repeat(40)}` })).status).toBe(401);
});
