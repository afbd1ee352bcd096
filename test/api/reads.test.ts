// No read changes state: every GET route runs a query (the runner refuses to start otherwise), HEAD learns
// what GET would answer without its body or its stream, and counts as no usage.
import { parse } from 'graphql';
import { routes } from '../../rest/routes';
import { compileRoutes } from '../../rest/runner';
import { schema } from '../../schema/index';
import { api, registerAgent, startServer, type TestServer } from '../support/server';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer();
  call = api(server);
});
afterAll(() => server.close());

it('runs a query behind every GET route, and refuses to start with a GET that would run a mutation', () => {
  for (const route of routes.filter((r) => r.method === 'GET')) {
    const operation = parse(route.document).definitions.find((d) => d.kind === 'OperationDefinition');
    expect({ route: route.path, operation: operation?.kind === 'OperationDefinition' ? operation.operation : undefined }).toEqual({
      route: route.path,
      operation: expect.stringMatching(/^(query|subscription)$/),
    });
  }
  const writingRead = { ...routes.find((r) => r.method === 'PATCH' && r.path === '/agents/me')!, method: 'GET' as const, path: '/agents/me/written' };
  expect(() => compileRoutes(schema, [writingRead])).toThrow(/a GET runs a query, not a mutation/);
});

it('answers HEAD of an event stream with its headers at once, without opening the stream, and 404 for another agent’s', async () => {
  const me = await registerAgent(server);
  const stranger = await registerAgent(server);
  const session = await call('POST', '/streaming/sessions', { key: me.key, body: { capabilityId: 'summarize' } });
  expect(session.status).toBe(201);
  const started = Date.now();
  const head = await call('HEAD', `/streaming/sessions/${session.body.id}/events`, { key: me.key });
  expect(head.status).toBe(200);
  expect(head.headers.get('content-type')).toMatch(/text\/event-stream/);
  expect(head.text).toBe('');
  expect(Date.now() - started).toBeLessThan(2_000);
  const foreign = await call('HEAD', `/streaming/sessions/${session.body.id}/events`, { key: stranger.key });
  expect(foreign.status).toBe(404);
  // The stream's slot was given back: the agent may still open as many as before.
  expect(server.app.services.streamSlots.count(me.agentId)).toBe(0);
});

it('counts HEAD as no usage of the route', async () => {
  const me = await registerAgent(server);
  for (let i = 0; i < 3; i++) expect((await call('HEAD', '/agents/me', { key: me.key })).status).toBe(200);
  await call('GET', '/agents/me', { key: me.key });
  await server.app.services.usage.flush(server.app.services);
  const usage = await call('GET', '/agents/me/usage', { key: me.key });
  expect(usage.body.endpoints).toEqual(expect.arrayContaining([{ endpoint: 'GET /agents/me', requests: 1 }]));
});
