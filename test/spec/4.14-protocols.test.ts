// Spec §4.14 (the WebMCP tool index and the protocol entry points) and CONTRACT §2's surfaces, as a new
// client meets them: the tool index over REST, the MCP server through the official MCP SDK client, A2A
// through the official A2A SDK client, and the manifests at their well-known paths.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Task } from '@a2a-js/sdk' with { 'resolution-mode': 'import' };
import { createClient as createWsClient } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import WebSocket from 'ws';
import { errorPaths, expectProblem } from '../support/expect';
import { api, http, registerAgent, startServer, type TestServer } from '../support/server';

type ClientModule = typeof import('@a2a-js/sdk/client', { with: { 'resolution-mode': 'import' } });
type CoreModule = typeof import('@a2a-js/sdk', { with: { 'resolution-mode': 'import' } });
const { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } = require('@a2a-js/sdk/client') as ClientModule;
const { SendMessageRequest, TaskState } = require('@a2a-js/sdk') as CoreModule;

let server: TestServer;
let call: ReturnType<typeof api>;
const mcpClients: Client[] = [];

beforeAll(async () => {
  server = await startServer();
  call = api(server);
});
afterAll(async () => {
  await Promise.all(mcpClients.map((c) => c.close().catch(() => {})));
  await server.close();
});

const MANIFEST_TOOLS = [
  'searchCapabilities',
  'getCapabilityDetails',
  'browseProviders',
  'executeCapability',
  'registerAgent',
  'getReputation',
  'getMarketplaceStats',
  'listSparks',
];

async function mcp(key?: string): Promise<Client> {
  const client = new Client({ name: 'spec-4.14', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: key ? { headers: { Authorization: `Bearer ${key}` } } : undefined }),
  );
  mcpClients.push(client);
  return client;
}

/** An input schema as the spec's table writes it: each input's type, and which are required. */
function inputs(schema: { properties?: Record<string, { type?: string }>; required?: string[] }) {
  return {
    properties: Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, v.type])),
    required: [...(schema.required ?? [])].sort(),
  };
}

describe('§4.14 the tool index (WebMCP)', () => {
  it('§4.14 GET /webmcp/tools answers tools and total, narrowed by the optional q and category', async () => {
    const all = await call('GET', '/webmcp/tools');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ tools: expect.any(Array), total: expect.any(Number) });
    expect(all.body.total).toBeGreaterThanOrEqual(MANIFEST_TOOLS.length);
    const found = await call('GET', '/webmcp/tools?q=search capabilities');
    expect(found.status).toBe(200);
    expect(found.body.tools.map((t: { name: string }) => t.name)).toContain('searchCapabilities');
    const category = found.body.tools.find((t: { name: string }) => t.name === 'searchCapabilities').category as string;
    const inCategory = await call('GET', `/webmcp/tools?category=${encodeURIComponent(category)}`);
    expect(inCategory.status).toBe(200);
    expect(inCategory.body.total).toBeGreaterThanOrEqual(1);
    expect(inCategory.body.tools.every((t: { category: string }) => t.category === category)).toBe(true);
  });

  it('§4.14 POST /webmcp/submit with a url answers 202 queued; the url is required', async () => {
    const res = await call('POST', '/webmcp/submit', { body: { url: 'https://tools.example.com/.well-known/webmcp.json' } });
    expect(res.status).toBe(202);
    expect(res.body.queued).toBe(true);
    const missing = await call('POST', '/webmcp/submit', { body: {} });
    expectProblem(missing, 400, 'validation_failed');
    expect(errorPaths(missing)).toContain('url');
  });

  it('§4.14 GET /webmcp/stats answers total_tools', async () => {
    const res = await call('GET', '/webmcp/stats');
    expect(res.status).toBe(200);
    expect(res.body.total_tools).toBeGreaterThanOrEqual(MANIFEST_TOOLS.length);
  });

  it('§4.14 GET /webmcp/manifest answers the manifest: version 1.0.0 with the eight tools', async () => {
    const res = await call('GET', '/webmcp/manifest');
    expect(res.status).toBe(200);
    expect(res.body.version).toBe('1.0.0');
    expect(res.body.tools.map((t: { name: string }) => t.name)).toEqual(MANIFEST_TOOLS);
  });
});

describe('§4.14 protocol entry points', () => {
  it('§4.14 the MCP server at /mcp speaks streamable HTTP: initialize answers with a session over POST', async () => {
    const init = await http(server.url, 'POST', '/mcp', {
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spec', version: '1' } },
      },
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toEqual(expect.any(String));
    expect(init.text).toContain('"protocolVersion":"2025-06-18"');
  });

  it('§4.14 the MCP server at /mcp offers 25 tools', async () => {
    const client = await mcp();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(25);
    expect(new Set(tools.map((t) => t.name)).size).toBe(25);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(MANIFEST_TOOLS));
  });

  it("§4.14 the tool manifest (version 1.0.0) lists eight tools with exactly the spec's names and inputs", async () => {
    const manifest = await call('GET', '/webmcp/manifest');
    expect(manifest.body.version).toBe('1.0.0');
    const { tools: listed } = await (await mcp()).listTools();
    const expected: Record<string, ReturnType<typeof inputs>> = {
      searchCapabilities: {
        properties: { query: 'string', category: 'string', language: 'string', minReputation: 'number', maxPricePerCall: 'number' },
        required: ['query'],
      },
      getCapabilityDetails: { properties: { serviceKey: 'string' }, required: ['serviceKey'] },
      browseProviders: { properties: { capability: 'string', prefer: 'string' }, required: ['capability'] },
      executeCapability: { properties: { capability: 'string', input: 'object' }, required: ['capability'] },
      registerAgent: { properties: { name: 'string', description: 'string', capabilities: 'string' }, required: ['name'] },
      getReputation: { properties: { agentId: 'string' }, required: ['agentId'] },
      getMarketplaceStats: { properties: {}, required: [] },
      listSparks: { properties: { limit: 'integer', agentId: 'string' }, required: [] },
    };
    for (const tools of [manifest.body.tools as { name: string; inputSchema: any }[], listed as { name: string; inputSchema: any }[]]) {
      const byName = Object.fromEntries(tools.filter((t) => MANIFEST_TOOLS.includes(t.name)).map((t) => [t.name, t.inputSchema]));
      expect(Object.keys(byName).sort()).toEqual([...MANIFEST_TOOLS].sort());
      for (const name of MANIFEST_TOOLS) expect([name, inputs(byName[name])]).toEqual([name, expected[name]]);
      expect(byName.searchCapabilities.properties.minReputation).toMatchObject({ minimum: 0, maximum: 100 });
      expect(byName.browseProviders.properties.prefer.enum.sort()).toEqual(['balanced', 'cost', 'latency', 'reputation']);
      expect(byName.getReputation.properties.agentId.format).toBe('uuid');
      expect(byName.listSparks.properties.limit.maximum).toBe(50);
    }
  });

  it('§4.14 executeCapability and registerAgent without a key return instructions (authentication is required) and the URL', async () => {
    const client = await mcp();
    const execute = (await client.callTool({ name: 'executeCapability', arguments: { capability: 'summarize', input: { text: 'x' } } })) as CallToolResult;
    expect(execute.isError).toBeFalsy();
    expect(execute.structuredContent).toMatchObject({ authentication_required: true });
    const register = (await client.callTool({
      name: 'registerAgent',
      arguments: { name: 'Spec agent', capabilities: 'summarize, translate' },
    })) as CallToolResult;
    expect((register.structuredContent as { steps: { url: string }[] }).steps[0].url).toBe(`${server.url}/api/v1/agents/register`);
  });

  it('§4.14 agent-to-agent JSON-RPC 2.0 at /api/a2a, its agent card at /.well-known/agent.json', async () => {
    const me = await registerAgent(server);
    const withKey: typeof fetch = (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${me.key}`);
      return fetch(input, { ...init, headers });
    };
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: withKey }),
    });
    const client = await new ClientFactory(options).createFromUrl(server.url, '.well-known/agent.json');
    const card = await client.getAgentCard();
    expect(card.name).toBe('Agent Capability Marketplace');
    const message = SendMessageRequest.fromJSON({
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { capability: 'trust-score', input: { agent_id: me.agentId } } }] },
    });
    const task = (await client.sendMessage(message)) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // JSON-RPC 2.0 on the wire: a request's id comes back, an unknown method is -32601.
    const raw = await http(server.url, 'POST', '/api/a2a', { key: me.key, body: { jsonrpc: '2.0', id: 'spec-1', method: 'no/such/method', params: {} } });
    expect(raw.body).toMatchObject({ jsonrpc: '2.0', id: 'spec-1', error: { code: -32601 } });
    const legacy = await http(server.url, 'GET', '/.well-known/agent.json');
    expect(legacy.status).toBe(200);
    expect(legacy.body.url).toBe(`${server.url}/api/a2a`);
  });

  it('§4.14 the tool-index manifest is at /.well-known/webmcp.json', async () => {
    const res = await http(server.url, 'GET', '/.well-known/webmcp.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await call('GET', '/webmcp/manifest')).body);
  });

  it('§4.14 the machine-readable API description is at /api/v1/openapi.json, info.version 2.0.0', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1\./);
    expect(res.body.info.version).toBe('2.0.0');
  });

  it('§4.14 the plugin manifest is at /.well-known/ai-plugin.json', async () => {
    const res = await http(server.url, 'GET', '/.well-known/ai-plugin.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ schema_version: 'v1', api: { type: 'openapi', url: `${server.url}/api/v1/openapi.json` } });
  });
});

describe('CONTRACT §2 surfaces on one port', () => {
  it('CONTRACT §2 /.well-known/agent-card.json is the same A2A card as /.well-known/agent.json', async () => {
    const [a, b] = await Promise.all([http(server.url, 'GET', '/.well-known/agent.json'), http(server.url, 'GET', '/.well-known/agent-card.json')]);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });

  it('CONTRACT §2 /graphql answers POST and GET, and subscriptions over graphql-ws on the same path and graphql-sse at /graphql/stream', async () => {
    const post = await http(server.url, 'POST', '/graphql', { body: { query: '{ stats { totalAgents } }' } });
    expect(post.status).toBe(200);
    expect(post.body.data.stats.totalAgents).toEqual(expect.any(Number));
    const get = await http(server.url, 'GET', `/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/json' } });
    expect(get.body).toEqual({ data: { __typename: 'Query' } });
    const me = await registerAgent(server);
    const ws = createWsClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${me.key}` },
      retryAttempts: 0,
    });
    const sse = createSseClient({ url: `${server.url}/graphql/stream`, headers: { authorization: `Bearer ${me.key}` }, retryAttempts: 0 });
    try {
      for (const client of [ws, sse]) {
        const result = await new Promise<any>((resolve, reject) => {
          client.subscribe({ query: '{ me { agentId } }' }, { next: resolve, error: reject, complete: () => {} });
        });
        expect(result.data.me.agentId).toBe(me.agentId);
      }
    } finally {
      await ws.dispose();
      sse.dispose();
    }
  });

  it('CONTRACT §2 /.well-known/jwks.json, /llms.txt and /metrics (Prometheus) are served', async () => {
    const jwks = await http(server.url, 'GET', '/.well-known/jwks.json');
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    const llms = await fetch(`${server.url}/llms.txt`);
    expect(llms.status).toBe(200);
    expect(await llms.text()).toContain(`${server.url}/mcp`);
    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toContain('# TYPE http_requests_total counter');
  });
});
