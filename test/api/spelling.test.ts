// Every body route of the route tables, sent over HTTP with its fields (at every depth) in one spelling and
// then in the other, by two fresh agents: the same answer both times. Generated from the tables, so a
// route added later is covered without writing anything.
import { routes } from '../../rest/routes';
import { compileRoutes, type CompiledRoute } from '../../rest/runner';
import { camelCase } from '../../src/platform/naming';
import { schema } from '../../schema';
import { hasRespellableField, respell, sampleValue } from '../support/sample-input';
import { api, registerAgent, startServer, type HttpResult, type TestServer } from '../support/server';

const ADMIN_KEY = `key_admin_${'S'.repeat(40)}`;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', ADMIN_KEY } });
});
afterAll(() => server.close());

const bodyRoutes = compileRoutes(schema, routes).filter((c) => c.bodyType && hasRespellableField(c.bodyType) && !c.stream);

async function send(c: CompiledRoute, body: unknown): Promise<HttpResult> {
  const agent = await registerAgent(server);
  // A path's own agent id is the sender's (sub-agents, wallets); any other parameter names nothing.
  const path = c.paths[0].replace(/:(\w+)/g, (_m, name: string) => (/^(id|agentId)$/.test(name) && c.paths[0].startsWith('/agents/') ? agent.agentId : 'none'));
  const key = { admin: ADMIN_KEY, agent: agent.key, none: undefined }[c.route.auth];
  return api(server)(c.route.method, path, { key, body });
}

/** What must be the same: the status, and the problem's code and fields, or the answer's keys. */
function gist(res: HttpResult) {
  if (res.status >= 400) {
    const paths = ((res.body.errors ?? []) as { path: string }[]).map((e) => e.path.split('.').map(camelCase).join('.')).sort();
    return { status: res.status, code: res.body.code, paths };
  }
  return { status: res.status, keys: Object.keys(res.body ?? {}).sort() };
}

it('covers the body routes of the route tables', () => {
  expect(bodyRoutes.length).toBeGreaterThan(10);
});

it.each(bodyRoutes.map((c) => [c.label, c] as const))('%s answers the same in both spellings', async (_label, c) => {
  const first = sampleValue(c.bodyType!);
  const second = respell(sampleValue(c.bodyType!), c.bodyType!);
  const [a, b] = [await send(c, first), await send(c, second)];
  expect(a.status).toBeLessThan(500);
  expect(gist(b)).toEqual(gist(a));
  // Neither answer calls a field of the input unknown: both spellings are read.
  for (const res of [a, b]) expect(JSON.stringify(res.body?.errors ?? [])).not.toMatch(/not a known field/);
});
