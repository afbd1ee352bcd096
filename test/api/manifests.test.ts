// The manifests of spec §4.14: the plugin manifest pointing at the OpenAPI document, and /llms.txt telling a
// language-model agent what the marketplace is and where each surface lives, with absolute URLs that work.
import { http, startServer, type TestServer } from '../support/server';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => server.close());

it('serves /.well-known/ai-plugin.json pointing at the OpenAPI document, with bearer auth', async () => {
  const res = await http(server.url, 'GET', '/.well-known/ai-plugin.json');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ schema_version: 'v1', auth: { type: 'user_http', authorization_type: 'bearer' }, api: { type: 'openapi', url: `${server.url}/api/v1/openapi.json` } });
  const openapi = await fetch(res.body.api.url);
  expect(openapi.status).toBe(200);
  expect((await openapi.json()).openapi).toBe('3.1.0');
  const logo = await fetch(res.body.logo_url);
  expect(logo.headers.get('content-type')).toContain('image/svg+xml');
});

it('serves /llms.txt: what the marketplace is, where each surface lives, every MCP tool and REST operation', async () => {
  const res = await fetch(`${server.url}/llms.txt`);
  expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  const text = await res.text();
  expect(text.startsWith('# Agent Capability Marketplace\n\n> ')).toBe(true);
  for (const surface of ['/mcp', '/api/a2a', '/.well-known/agent-card.json', '/.well-known/webmcp.json', '/api/v1/openapi.json', '/graphql', '/.well-known/jwks.json']) {
    expect(text).toContain(`${server.url}${surface}`);
  }
  for (const tool of server.app.services.ownTools!.all) expect(text).toContain(`\`${tool.name}\``);
  for (const c of server.app.compiled) expect(text).toContain(`\`${c.route.method} ${c.paths[0]}\``);
  // Every link answers (the JSON-RPC and MCP endpoints take POST).
  const links = [...text.matchAll(/\]\((http[^)]+)\)/g)].map((m) => m[1]);
  expect(links.length).toBeGreaterThanOrEqual(8);
  for (const link of links) {
    const answer = await fetch(link, link.endsWith('/mcp') ? { headers: { accept: 'text/event-stream' } } : {});
    if (link.endsWith('/mcp') || link.endsWith('/api/a2a')) expect([400, 405]).toContain(answer.status);
    else expect(answer.status).toBe(200);
  }
});
