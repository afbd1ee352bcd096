// The manifests of spec §4.14: the plugin manifest pointing at the OpenAPI document, and /llms.txt telling a
// language-model agent what the marketplace is and where each surface lives, with absolute URLs that work.
import { FIRST_PARTY } from '../../src/domain/first-party/first-party';
import { http, startServer, type TestServer } from '../support/server';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => server.close());

it('serves /.well-known/ai-plugin.json pointing at the OpenAPI document, with bearer auth', async () => {
  const res = await http(server.url, 'GET', '/.well-known/ai-plugin.json');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    schema_version: 'v1',
    auth: { type: 'user_http', authorization_type: 'bearer' },
    api: { type: 'openapi', url: `${server.url}/api/v1/openapi.json` },
  });
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
  for (const surface of [
    '/mcp',
    '/api/a2a',
    '/.well-known/agent-card.json',
    '/.well-known/webmcp.json',
    '/api/v1/openapi.json',
    '/graphql',
    '/.well-known/jwks.json',
  ]) {
    expect(text).toContain(`${server.url}${surface}`);
  }
  const parsed = parseLlmsTxt(text);
  const titles = Object.values(parsed.sections)
    .flat()
    .map((l) => l.title);
  for (const tool of server.app.services.ownTools!.all) expect(titles).toContain(tool.name);
  for (const c of server.app.compiled) expect(titles).toContain(`${c.route.method} ${c.paths[0]}`);
  // The marketplace's own capabilities are listed as the tools they are.
  for (const c of FIRST_PARTY.values()) if (!c.available || c.available(server.app.services)) expect(titles).toContain(c.slug);
  // Each MCP toolset with where it is served and its tools; every tool says its toolset.
  const toolsets = parsed.sections['MCP toolsets'];
  expect(toolsets.map((t) => t.title)).toEqual([...server.app.mcp.toolsets].filter(([, tools]) => tools.length).map(([name]) => name));
  for (const t of toolsets) {
    expect(t.url).toBe(t.title === 'default' ? `${server.url}/mcp` : `${server.url}/mcp/x/${t.title}`);
    expect(t.desc).toContain(`${server.app.mcp.toolsets.get(t.title)!.length} tools: ${server.app.mcp.toolsets.get(t.title)!.join(', ')}`);
  }
  expect(text).toContain(`${server.url}/mcp?toolsets=<name>,<name>`);
  expect(text).toContain(`${server.url}/mcp/x/all`);
  expect(text).toMatch(/- \[createUtoTicket\]\([^)]+\) \(key, toolset uto\): /);
  expect(text).toMatch(/- \[searchCapabilities\]\([^)]+\) \(toolset default\): /);
});

/**
 * llmstxt.org's reference parser (the `llms_txt` Python package's `parse_llms_file`), in TypeScript: the
 * text before the first `##` is the title, summary and info; each `##` section is a list whose every
 * non-empty line must be `- [title](url): notes` (the reference raises on a line that is not).
 */
function parseLlmsTxt(text: string) {
  const parts = text.split(/^##\s*(.*?)$/m);
  const start = parts[0];
  const sections: Record<string, { title: string; url: string; desc?: string }[]> = {};
  for (let i = 1; i < parts.length; i += 2) {
    sections[parts[i]] = parts[i + 1]
      .trim()
      .split(/\n+/)
      .filter((l) => l.trim())
      .map((line) => {
        const m = /-\s*\[(?<title>[^\]]+)\]\((?<url>[^)]+)\)(?::\s*(?<desc>.*))?/.exec(line);
        if (!m) throw new Error(`llms.txt section "${parts[i]}" has an item that is not a link: ${line}`);
        return { title: m.groups!.title, url: m.groups!.url, desc: m.groups!.desc };
      });
  }
  const head = /^#\s*(?<title>.+?)$\n+(?:^>\s*(?<summary>.+?)$)?\n+(?<info>.*)/ms.exec(start.trim());
  if (!head) throw new Error('llms.txt has no title');
  return { title: head.groups!.title, summary: head.groups!.summary, info: head.groups!.info, sections };
}

it('makes every item of every /llms.txt section a [name](url) link, as the reference parser reads it, and every link answers', async () => {
  const text = await (await fetch(`${server.url}/llms.txt`)).text();
  const parsed = parseLlmsTxt(text);
  expect(parsed.title).toBe('Agent Capability Marketplace');
  expect(parsed.summary).toMatch(/^A marketplace where software agents/);
  expect(Object.keys(parsed.sections)).toEqual(expect.arrayContaining(['Start here', 'Surfaces', 'MCP toolsets', 'MCP tools', 'REST: Agents']));
  const links = Object.values(parsed.sections).flat();
  expect(links.length).toBeGreaterThan(server.app.compiled.length + 90);
  // Every link answers (the JSON-RPC and MCP endpoints take POST); each item's page is Markdown about it.
  for (const url of new Set(links.map((l) => l.url))) {
    const mcp = /\/mcp(\/x\/[a-z]+)?$/.test(url);
    const answer = await fetch(url, mcp ? { headers: { accept: 'text/event-stream' } } : {});
    if (mcp || url.endsWith('/api/a2a')) expect([400, 405]).toContain(answer.status);
    else expect([url, answer.status]).toEqual([url, 200]);
    if (url.includes('/llms/')) {
      expect(answer.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect((await answer.text()).startsWith('# ')).toBe(true);
    } else await answer.arrayBuffer();
  }
});

it("serves each item's page: a REST operation's method, URL, schemas and statuses; a tool's schemas", async () => {
  const register = await fetch(`${server.url}/llms/rest/RegisterAgent.md`);
  expect(register.status).toBe(200);
  const page = await register.text();
  expect(page).toContain(`# POST ${server.url}/api/v1/agents/register`);
  expect(page).toContain('#/paths/~1agents~1register/post');
  expect(page).toContain('"ownerEmail"');
  expect(page).toContain('- 201:');
  const tool = await (await fetch(`${server.url}/llms/mcp/searchCapabilities.md`)).text();
  expect(tool).toContain('# MCP tool searchCapabilities');
  expect(tool).toContain('## Input schema');
  expect(tool).toContain('"minReputation"');
  expect(tool).toContain(`It is in the toolset \`default\`: served at ${server.url}/mcp`);
  const uto = await (await fetch(`${server.url}/llms/mcp/createUtoTicket.md`)).text();
  expect(uto).toContain(`It is in the toolset \`uto\`: served at ${server.url}/mcp/x/uto (Streamable HTTP) and ${server.url}/mcp?toolsets=uto`);
  const missing = await fetch(`${server.url}/llms/rest/noSuchOperation.md`);
  expect(missing.status).toBe(404);
  expect(missing.headers.get('content-type')).toContain('application/problem+json');
});

it('keeps name_for_human within the plugin format’s 20 characters', async () => {
  const res = await http(server.url, 'GET', '/.well-known/ai-plugin.json');
  expect(res.body.name_for_human.length).toBeLessThanOrEqual(20);
  expect(res.body.name_for_human).toBe('Agent Marketplace');
  expect(res.body.name_for_model).toMatch(/^[a-z_]{1,50}$/);
});
