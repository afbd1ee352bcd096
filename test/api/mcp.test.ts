// The MCP server at /mcp (spec §4.14) through the official SDK client over Streamable HTTP: the tool
// list and the spec's eight manifest tools, toolsets (the default 25, more by name, all), a tool of every
// area with and without a key, errors as isError results with the problem, the catalog as resources,
// sessions and the transport's rules.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { api, http, registerAgent, registerService, startServer, uniqueSlug, type TestServer } from '../support/server';
import { fund, NETWORK, registerPayingAgent, signAuthorization, throwAwayAccount } from '../support/payments';
import { x402Client } from '@x402/core/client';
import { isPaymentRequired } from '@x402/core/schemas';
import type { PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { FIRST_PARTY } from '../../src/domain/first-party/first-party';
import { capabilitySchemaName } from '../../protocols/openapi';
import { toolSpecs } from '../../protocols/mcp-tools';
import type { EvmAccount } from '../../src/platform/evm';

const ADMIN_KEY = `key_admin_${'M'.repeat(40)}`;
let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  // Wallets open empty (no sandbox starting balance): a new agent's paid call is the 402 an MCP client handles.
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1', ADMIN_KEY, SANDBOX_STARTING_BALANCE: '0' } });
  call = api(server);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

/** A client of the MCP server at `path` (`/mcp`: the default toolset; `/mcp/x/all`: every tool). */
async function connect(key?: string, on: { url: string } = server, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'marketplace-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${on.url}${path}`), {
    requestInit: key ? { headers: { Authorization: `Bearer ${key}` } } : undefined,
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A tool call's structured answer (failing the test with the problem when it is an error). */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${(result.content[0] as { text: string }).text}`);
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent as any;
}

/** A tool call refused as invalid params (JSON-RPC -32602): the problem it carries as data. */
async function invalid(client: Client, name: string, args: Record<string, unknown> = {}) {
  const err = await client.callTool({ name, arguments: args }).then(
    () => undefined,
    (e: { code?: number; data?: unknown }) => e,
  );
  expect(err).toMatchObject({ code: -32602 });
  return err!.data as any;
}

/** A tool call's problem (failing the test when it succeeded). */
async function refused(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return JSON.parse((result.content[0] as { text: string }).text);
}

async function echoCapability() {
  const provider = await startProvider('mcp-provider');
  providers.push(provider);
  const capability = uniqueSlug('mcp-cap');
  const owner = await registerAgent(server);
  const service = await registerService(server, owner.key, { endpoint: provider.url, capabilities: [capability], cost_per_call: 3, languages: ['en'] });
  return { capability, provider, owner, service };
}

describe('MCP at /mcp', () => {
  it('negotiates the current protocol version and lists tools with input and output schemas, 25 by default', async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe('agent-capability-marketplace');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    expect((await client.listTools()).tools).toHaveLength(25);
    const { tools } = await (await connect(undefined, server, '/mcp/x/all')).listTools();
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(10);
    }
    const names = tools.map((t) => t.name);
    for (const area of [
      'resolve',
      'execute',
      'provisionSubKey',
      'registerService',
      'ticket',
      'writeMemoryEntries',
      'createSubscription',
      'createTask',
      'createSwarmSession',
      'createUtoTicket',
      'createConglomerate',
      'installSkill',
    ]) {
      expect(names).toContain(area);
    }
    const init = await http(server.url, 'POST', '/mcp', {
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      },
    });
    expect(init.status).toBe(200);
    expect(init.text).toContain('"protocolVersion":"2024-11-05"');
    expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
  });

  it("offers the eight tools of the spec's manifest with exactly its inputs", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const schema = (name: string) => tools.find((t) => t.name === name)?.inputSchema as { properties: Record<string, any>; required?: string[] };
    const shape = (name: string) => {
      const s = schema(name);
      return { properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, v.type])), required: s.required ?? [] };
    };
    expect(shape('searchCapabilities')).toEqual({
      properties: { query: 'string', category: 'string', language: 'string', minReputation: 'number', maxPricePerCall: 'number' },
      required: ['query'],
    });
    expect(schema('searchCapabilities').properties.minReputation).toMatchObject({ minimum: 0, maximum: 100 });
    expect(schema('searchCapabilities').properties.maxPricePerCall).toMatchObject({ minimum: 0 });
    expect(shape('getCapabilityDetails')).toEqual({ properties: { serviceKey: 'string' }, required: ['serviceKey'] });
    expect(shape('browseProviders')).toEqual({ properties: { capability: 'string', prefer: 'string' }, required: ['capability'] });
    expect(schema('browseProviders').properties.prefer.enum.sort()).toEqual(['balanced', 'cost', 'latency', 'reputation']);
    expect(shape('executeCapability')).toEqual({ properties: { capability: 'string', input: 'object' }, required: ['capability'] });
    expect(shape('registerAgent')).toEqual({ properties: { name: 'string', description: 'string', capabilities: 'string' }, required: ['name'] });
    expect(shape('getReputation')).toEqual({ properties: { agentId: 'string' }, required: ['agentId'] });
    expect(schema('getReputation').properties.agentId.format).toBe('uuid');
    expect(shape('getMarketplaceStats')).toEqual({ properties: {}, required: [] });
    expect(shape('listSparks')).toEqual({ properties: { limit: 'integer', agentId: 'string' }, required: [] });
    expect(schema('listSparks').properties.limit.maximum).toBe(50);
  });

  describe('toolsets', () => {
    const TOOLSET = 'marketplace/toolset';
    const inToolset = (toolset: string) => toolSpecs.filter((t) => t.toolset === toolset).map((t) => t.name);
    const offered = () => server.app.mcp.toolsets;
    const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
    /** A raw JSON-RPC message of a Streamable HTTP answer (JSON, or the first SSE event's data). */
    const message = (text: string) => JSON.parse(text.replace(/^[\s\S]*?data: /, ''));

    it('serves the 25 tools of the default toolset at /mcp, the eight of the manifest and support-ticket among them, each naming its toolset', async () => {
      const client = await connect();
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(25);
      expect(tools.map((t) => t.name).sort()).toEqual([...inToolset('default'), 'support-ticket'].sort());
      for (const tool of tools) expect(tool._meta?.[TOOLSET]).toBe('default');
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          'searchCapabilities',
          'getCapabilityDetails',
          'browseProviders',
          'executeCapability',
          'registerAgent',
          'getReputation',
          'getMarketplaceStats',
          'listSparks',
        ]),
      );
    });

    it('adds the toolsets a client names, in the query or the path, to the default ones', async () => {
      const base = [...offered().get('default')!];
      const byQuery = await names(await connect(undefined, server, '/mcp?toolsets=memory,uto'));
      expect(byQuery).toEqual([...base, ...offered().get('memory')!, ...offered().get('uto')!].sort());
      expect(byQuery).toEqual(expect.arrayContaining(['memoryStores', 'createUtoTicket', 'advanceUtoTicket']));
      expect(await names(await connect(undefined, server, '/mcp/x/memory'))).toEqual([...base, ...inToolset('memory')].sort());
      // A toolset of capability tools, and one that mixes both kinds.
      expect(await names(await connect(undefined, server, '/mcp/x/web'))).toEqual([...base, 'web-browse', 'web-extract', 'web-monitor', 'web-research'].sort());
      const tickets = await names(await connect(undefined, server, '/mcp?toolsets=tickets'));
      expect(tickets).toEqual(expect.arrayContaining(['tickets', 'updateTicketStatus', 'addTicketComment', 'ticket-status', 'ticket-list']));
      // Naming the default, or a toolset twice, changes nothing.
      expect(await names(await connect(undefined, server, '/mcp/x/default?toolsets=memory,memory'))).toEqual([...base, ...inToolset('memory')].sort());
    });

    it('serves every tool with all, more than one list of some clients holds', async () => {
      const all = await names(await connect(undefined, server, '/mcp/x/all'));
      const every = [...offered().values()].flat();
      expect(all).toEqual([...every].sort());
      expect(new Set(all).size).toBe(all.length);
      expect(all.length).toBe(toolSpecs.length + [...FIRST_PARTY.values()].filter((c) => !c.available || c.available(server.app.services)).length);
      expect(all.length).toBeGreaterThan(128);
      expect(await names(await connect(undefined, server, '/mcp?toolsets=all'))).toEqual(all);
    });

    it('refuses an unknown toolset with a clear error naming it and the toolsets there are, opening no session', async () => {
      const before = server.app.mcp.sessionCount;
      await expect(connect(undefined, server, '/mcp?toolsets=memory,nope')).rejects.toThrow(
        /Unknown toolset 'nope': the toolsets are default, account, .*, or all for every tool/,
      );
      await expect(connect(undefined, server, '/mcp/x/nope')).rejects.toThrow(/Unknown toolset 'nope'/);
      const raw = await http(server.url, 'POST', '/mcp/x/Memory', {
        headers: { accept: 'application/json, text/event-stream' },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
        },
      });
      expect(raw.status).toBe(400);
      expect(raw.body.error.message).toMatch(/^Unknown toolset 'Memory': the toolsets are default, account/);
      expect(server.app.mcp.sessionCount).toBe(before);
    });

    it("keeps a session's toolsets: a tool outside them is refused naming its toolset, and later requests at another URL list the same tools", async () => {
      const client = await connect();
      await expect(client.callTool({ name: 'createUtoTicket', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/createUtoTicket is in the toolset uto, which this session did not ask for: connect to \/mcp\?toolsets=uto/),
      });
      await expect(client.callTool({ name: 'web-browse', arguments: { url: 'https://example.com' } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/toolset web/),
      });
      const accept = { accept: 'application/json, text/event-stream' };
      const init = await http(server.url, 'POST', '/mcp/x/memory', {
        headers: accept,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
        },
      });
      const session = { ...accept, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
      await http(server.url, 'POST', '/mcp', { headers: session, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
      for (const path of ['/mcp', '/mcp/x/uto']) {
        const listed = message((await http(server.url, 'POST', path, { headers: session, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } })).text);
        expect(listed.result.tools.map((t: { name: string }) => t.name).sort()).toEqual([...offered().get('default')!, ...inToolset('memory')].sort());
      }
    });

    it('says in its instructions which toolsets it serves, and each other one with its count and how to ask for it', async () => {
      const instructions = (await connect()).getInstructions()!;
      expect(instructions).toContain('This session serves the toolset default (25 tools).');
      expect(instructions).toContain(`${server.url}/mcp?toolsets=<name>,<name>`);
      expect(instructions).toContain(`${server.url}/mcp/x/<name>`);
      for (const [name, tools] of offered()) if (name !== 'default' && tools.length) expect(instructions).toContain(`${name} (${tools.length}): `);
      expect((await connect(undefined, server, '/mcp?toolsets=memory')).getInstructions()).toContain(
        `the toolsets default (25 tools), memory (${offered().get('memory')!.length} tools)`,
      );
      expect((await connect(undefined, server, '/mcp/x/all')).getInstructions()).toContain('This session serves every toolset');
    });
  });

  it('answers the discovery tools without a key, with answers that match their output schemas', async () => {
    const { capability, owner, service } = await echoCapability();
    const client = await connect();
    const found = await ok(client, 'searchCapabilities', { query: capability.split('-').slice(0, 2).join(' ') });
    expect(found.capabilities.map((c: { slug: string }) => c.slug)).toContain(capability);
    const mine = (await ok(client, 'searchCapabilities', { query: capability })).capabilities[0];
    expect(mine).toMatchObject({ slug: capability, providers: 1, min_price_cents: 3, category: 'community' });
    // Limits narrow to the providers that meet them.
    expect((await ok(client, 'searchCapabilities', { query: capability, maxPricePerCall: 2 })).total).toBe(0);
    expect((await ok(client, 'searchCapabilities', { query: capability, language: 'fr' })).total).toBe(0);
    expect((await ok(client, 'searchCapabilities', { query: capability, language: 'en', maxPricePerCall: 3.5 })).total).toBe(1);

    const details = await ok(client, 'getCapabilityDetails', { serviceKey: service.service_key });
    expect(details).toMatchObject({ service_key: service.service_key, capabilities: [capability], costPerCall: 3, provider: { agent_id: owner.agentId } });
    const providers = await ok(client, 'browseProviders', { capability, prefer: 'cost' });
    expect(providers.matches[0]).toMatchObject({ service_key: service.service_key });
    const reputation = await ok(client, 'getReputation', { agentId: owner.agentId });
    expect(reputation).toMatchObject({ agent_id: owner.agentId, reputation: expect.any(Number), tier: expect.any(String) });
    const stats = await ok(client, 'getMarketplaceStats');
    expect(stats.total_agents).toBeGreaterThanOrEqual(1);
    expect(await ok(client, 'listSparks', { limit: 5 })).toMatchObject({ total: expect.any(Number), sparks: expect.any(Array) });
  });

  it('answers executeCapability and registerAgent without a key with the calls to make, under the public URL', async () => {
    const client = await connect();
    const instructions = await ok(client, 'executeCapability', { capability: 'summarize', input: { text: 'hi' } });
    expect(instructions.authentication_required).toBe(true);
    const execute = instructions.steps.find((s: { url: string }) => s.url.endsWith('/api/v1/execute'));
    expect(execute).toMatchObject({ method: 'POST', url: `${server.url}/api/v1/execute`, body: { capability: 'summarize', input: { text: 'hi' } } });
    const registration = await ok(client, 'registerAgent', { name: 'Helpful agent', capabilities: 'summarize, translate' });
    expect(registration.steps[0]).toMatchObject({ method: 'POST', url: `${server.url}/api/v1/agents/register`, body: { name: 'Helpful agent' } });
    expect(registration.steps[1].body.capabilities).toEqual(['summarize', 'translate']);
    expect(registration.message).toContain(`${server.url}/mcp`);
    // The other tools that act as an agent refuse, saying what is missing.
    const problem = await refused(client, 'me');
    expect(problem).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('executes a capability for the key on the connection, recorded like a REST execute', async () => {
    const { capability, provider } = await echoCapability();
    const me = await registerPayingAgent(server);
    const client = await connect(me.key);
    const receipt = await ok(client, 'executeCapability', { capability, input: { text: 'from mcp' } });
    expect(receipt).toMatchObject({
      status: 'success',
      capability,
      result: { served_by: 'mcp-provider', echo: { text: 'from mcp' } },
      transaction: { cost_cents: 3 },
    });
    expect(provider.calls.at(-1)!.json).toMatchObject({ capability, agent_id: me.agentId, input: { text: 'from mcp' } });
    const history = await call('GET', '/agents/me/executions', { key: me.key });
    expect(history.body.executions.map((e: { execution_id: string }) => e.execution_id)).toContain(receipt.execution_id);
    // The same tool with a key answers an execution, never instructions; without input it sends {}.
    const bare = await ok(client, 'executeCapability', { capability });
    expect(bare.status).toBe('success');
    expect(provider.calls.at(-1)!.json.input).toEqual({});
  });

  it('answers a paid call without funds with the 402 problem, and takes an x402 payment in paymentSignature', async () => {
    const { capability, provider } = await echoCapability();
    const me = await registerAgent(server);
    const client = await connect(me.key);
    const result = (await client.callTool({ name: 'execute', arguments: { capability, input: { via: 'mcp' } } })) as CallToolResult;
    expect(result.isError).toBe(true);
    const problem = JSON.parse((result.content[0] as { text: string }).text);
    expect(problem).toMatchObject({
      status: 402,
      code: 'payment_required',
      x402Version: 2,
      accepts: [expect.objectContaining({ amount: '30000', scheme: 'exact' })],
    });
    // x402's MCP transport: the same requirements as structured content, for the tool named as the resource.
    expect(result.structuredContent).toEqual({
      x402Version: 2,
      error: problem.detail,
      resource: expect.objectContaining({ url: 'mcp://tool/execute' }),
      accepts: problem.accepts,
    });
    // A sponsor's key pays it, as a client holding the 402 would.
    const account = await throwAwayAccount();
    const sponsor = await registerAgent(server);
    await call('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: account.address } });
    await fund(server, sponsor.key, '1');
    const signed = await signAuthorization(account, problem.accepts[0]);
    const paid = await ok(client, 'execute', { capability, input: { via: 'mcp' }, paymentSignature: signed.header });
    expect(paid).toMatchObject({ status: 'success', payment: { method: 'x402', charged_base_units: '30000', x402: { payer: account.address.toLowerCase() } } });
    expect(provider.calls).toHaveLength(1);
  });

  it('runs a tool of every area for the key on the connection', async () => {
    const { capability, service } = await echoCapability();
    const me = await registerPayingAgent(server);
    const client = await connect(me.key, server, '/mcp/x/all');
    expect((await ok(client, 'me')).agent_id).toBe(me.agentId);
    expect((await ok(client, 'resolve', { capability })).matches[0].service_key).toBe(service.service_key);
    const key = await ok(client, 'provisionSubKey', { serviceKey: service.service_key });
    expect(key.sub_key).toMatch(/^key_service_/);
    expect((await ok(client, 'myKeys')).keys.map((k: { sub_key_id: string }) => k.sub_key_id)).toContain(key.sub_key_id);
    const registered = await ok(client, 'registerService', {
      name: 'Via MCP',
      endpoint: 'https://provider.example.com/mcp',
      capabilities: [uniqueSlug('via-mcp')],
      description: 'Registered by a tool',
      pricingModel: 'free',
    });
    expect(registered.service_key).toMatch(/^svc_/);
    const store = await ok(client, 'createMemoryStore', { name: 'notes', storeType: 'kv' });
    await ok(client, 'writeMemoryEntries', { id: store.store_id ?? store.id, entries: [{ key: 'a', value: { n: 1 } }] });
    expect((await ok(client, 'memoryEntry', { id: store.store_id ?? store.id, key: 'a' })).value).toEqual({ n: 1 });
    const task = await ok(client, 'createTask', { intent: 'Summarise the day', success_criteria: ['done'] });
    expect(task.task_id).toMatch(/^task_/);
    expect((await ok(client, 'task', { id: task.task_id })).status).toBe('pending');
    const ticket = await ok(client, 'createUtoTicket', { intent: 'Plan a launch', domain: 'marketing', context: { product: 'x' } });
    expect(ticket.state).toBe('submitted');
    const swarm = await ok(client, 'createSwarmSession', { goal: 'Two steps', strategy: 'sequential', steps: [{ capability, input: {} }] });
    expect(swarm.session_id).toMatch(/^swarm_/);
    const sub = await ok(client, 'createSubscription', { capabilityId: capability, schedule: '0 * * * *', inputPayload: {}, deliveryMethod: 'sse' });
    expect(sub.status).toBe('active');
    expect((await ok(client, 'pauseSubscription', { id: sub.id })).status).toBe('paused');
    expect((await ok(client, 'skillMarketplace')).total).toEqual(expect.any(Number));
    const cong = await ok(client, 'createConglomerate', { goal: 'Trade well', max_budget_usd: 100 });
    expect(cong.id ?? cong.conglomerate_id).toMatch(/^cong_/);
  });

  it("refuses bad arguments as invalid params (-32602) naming each as the tool spells it, and another agent's object as a not-found result", async () => {
    const me = await registerPayingAgent(server);
    const other = await registerAgent(server);
    const client = await connect(me.key);
    const bad = await invalid(client, 'searchCapabilities', { query: 'x', minReputation: 300, category: 'nope' });
    expect(bad).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(bad.errors.map((e: { path: string }) => e.path).sort()).toEqual(['category', 'minReputation']);
    const unknown = await invalid(client, 'getReputation', { agentId: 'x', extra: 1 });
    expect(unknown.errors.map((e: { path: string }) => e.path)).toContain('extra');
    // Both spellings are read, and named back as sent.
    const snake = await invalid(client, 'createTask', { intent: 'x', success_criteria: [1], budget: -1 });
    expect(snake.errors.map((e: { path: string }) => e.path)).toContain('success_criteria.0');
    // The operation's own refusals name the tool's argument, not the field's (`sparks(first: $limit)`) nor REST's spelling.
    expect((await invalid(client, 'listSparks', { limit: 500 })).errors).toEqual([{ path: 'limit', message: expect.stringMatching(/1 to 50/) }]);
    expect((await invalid(client, 'getCapabilityDetails', {})).errors).toEqual([{ path: 'serviceKey', message: 'is required' }]);
    // What the database cannot store is refused at the boundary, named by the argument's path.
    expect((await invalid(client, 'executeCapability', { capability: 'x', input: { text: 'a\u0000b' } })).errors).toEqual([
      { path: 'input.text', message: expect.stringMatching(/NUL/) },
    ]);
    const theirs = await call('POST', '/tasks', { key: other.key, body: { intent: 'Theirs' } });
    const notMine = await refused(client, 'task', { id: theirs.body.task_id });
    expect(notMine).toMatchObject({ status: 404, code: 'not_found' });
    await expect(client.callTool({ name: 'noSuchTool', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool/),
    });
  });

  it('answers arguments that are not an object with -32602 naming them, not an internal error', async () => {
    const init = await http(server.url, 'POST', '/mcp', {
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
    });
    const session = init.headers.get('mcp-session-id')!;
    const headers = { accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    await http(server.url, 'POST', '/mcp', { headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    const res = await http(server.url, 'POST', '/mcp', {
      headers,
      body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'listSparks', arguments: 'x' } },
    });
    const message = JSON.parse(res.text.replace(/^[\s\S]*?data: /, ''));
    expect(message.error).toMatchObject({ code: -32602, message: 'Invalid params: arguments: must be an object', data: { code: 'validation_failed' } });
  });

  it("names the operation's refusal of an argument as the tool spells it, a field named like the input itself included", async () => {
    const me = await registerPayingAgent(server);
    const client = await connect(me.key);
    // execute's arguments are the fields of its whole input: the field `input` is the argument `input`.
    for (const input of ['x', [1], 3]) {
      const err = await client.callTool({ name: 'execute', arguments: { capability: 'summarize', input } }).then(
        () => undefined,
        (e: { code?: number; message?: string; data?: any }) => e,
      );
      expect(err).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/Invalid params: input: must be a JSON object$/),
        data: { errors: [{ path: 'input', message: 'must be a JSON object' }] },
      });
    }
    expect((await invalid(client, 'execute', { capability: 'Not A Slug', input: {} })).errors).toEqual([{ path: 'capability', message: expect.any(String) }]);
    expect((await invalid(client, 'executeCapability', { capability: 'summarize', input: 'x' })).errors).toEqual([
      { path: 'input', message: expect.any(String) },
    ]);
  });

  it("refuses a suspended agent's key with 403, like every surface", async () => {
    const me = await registerPayingAgent(server);
    const client = await connect(me.key);
    expect((await ok(client, 'me')).agent_id).toBe(me.agentId);
    await call('PATCH', `/admin/agents/${me.agentId}/status`, { key: ADMIN_KEY, body: { status: 'SUSPENDED' } });
    expect(await refused(client, 'me')).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await refused(client, 'executeCapability', { capability: 'summarize', input: {} })).toMatchObject({ status: 403 });
    // Discovery still answers: it needs no key, and a suspended one is not asked for.
    expect((await ok(client, 'getMarketplaceStats')).total_agents).toEqual(expect.any(Number));
  });

  it('spends the same rate bucket as the REST route of the operation', async () => {
    const limited = await startServer();
    try {
      const client = await connect(undefined, limited);
      const first = await http(limited.url, 'GET', '/api/v1/capabilities/search?q=summarize');
      const before = Number(first.headers.get('x-ratelimit-remaining'));
      await ok(client, 'searchCapabilities', { query: 'summarize' });
      await ok(client, 'searchCapabilities', { query: 'translate' });
      const after = await http(limited.url, 'GET', '/api/v1/capabilities/search?q=summarize');
      expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(before - 3);
      // A tool on its own bucket answers 429 as a problem once it is spent.
      for (let i = 0; i < 30; i++) await client.callTool({ name: 'registerAgent', arguments: { name: `agent-${i}` } });
      expect(await refused(client, 'registerAgent', { name: 'one too many' })).toMatchObject({ status: 429, code: 'rate_limited' });
    } finally {
      await limited.close();
    }
  });

  it('offers the capability catalog as resources, one per capability at its REST URL', async () => {
    const { capability } = await echoCapability();
    const client = await connect();
    let cursor: string | undefined;
    const uris: string[] = [];
    do {
      const page = await client.listResources(cursor ? { cursor } : undefined);
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor);
    expect(uris).toContain(`${server.url}/api/v1/capabilities`);
    expect(uris).toContain(`${server.url}/api/v1/capabilities/summarize`);
    expect(uris).toContain(`${server.url}/api/v1/capabilities/${capability}`);
    const read = await client.readResource({ uri: `${server.url}/api/v1/capabilities/${capability}` });
    const content = read.contents[0] as { text: string; mimeType: string };
    expect(content.mimeType).toBe('application/json');
    expect(JSON.parse(content.text)).toMatchObject({ slug: capability, providers: 1 });
    const rest = await call('GET', `/capabilities/${capability}`);
    expect(JSON.parse(content.text)).toEqual(rest.body);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0].uriTemplate).toBe(`${server.url}/api/v1/capabilities/{slug}`);
    await expect(client.readResource({ uri: `${server.url}/api/v1/capabilities/no-such-capability` })).rejects.toThrow(/not found/i);
  });

  it('keeps sessions: a GET stream, DELETE to end, 404 for an unknown session, and Origin checked', async () => {
    const version = { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    const accept = { accept: 'application/json, text/event-stream' };
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const init = await http(server.url, 'POST', '/mcp', { headers: accept, body: initialize });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const session = { ...version, 'mcp-session-id': sessionId };
    expect(
      (await http(server.url, 'POST', '/mcp', { headers: { ...accept, ...session }, body: { jsonrpc: '2.0', method: 'notifications/initialized' } })).status,
    ).toBe(202);
    const controller = new AbortController();
    const stream = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream', ...session }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    // One stream per session, as the transport allows.
    expect((await http(server.url, 'GET', '/mcp', { headers: { accept: 'text/event-stream', ...session } })).status).toBe(409);
    controller.abort();

    const unknown = await http(server.url, 'POST', '/mcp', {
      headers: { ...accept, ...version, 'mcp-session-id': 'not-a-session' },
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe(-32001);
    expect((await http(server.url, 'GET', '/mcp', { headers: { accept: 'text/event-stream' } })).status).toBe(400);
    // Not initialize, and no session: refused, and nothing stays open.
    const before = server.app.mcp.sessionCount;
    const stray = await http(server.url, 'POST', '/mcp', { headers: { ...accept, ...version }, body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } });
    expect(stray.status).toBe(400);
    expect(server.app.mcp.sessionCount).toBe(before);

    const evil = await http(server.url, 'POST', '/mcp', { headers: { ...accept, origin: 'https://evil.example' }, body: initialize });
    expect(evil.status).toBe(403);
    expect(evil.body.error.message).toContain('evil.example');
    expect((await http(server.url, 'POST', '/mcp', { headers: { ...accept, origin: 'http://localhost:5173' }, body: initialize })).status).toBe(200);
    expect((await http(server.url, 'POST', '/mcp', { headers: { ...accept, origin: server.url }, body: initialize })).status).toBe(200);
    const put = await http(server.url, 'PUT', '/mcp');
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');

    const open = server.app.mcp.sessionCount;
    expect((await http(server.url, 'DELETE', '/mcp', { headers: session })).status).toBe(200);
    expect(server.app.mcp.sessionCount).toBe(open - 1);
    const after = await http(server.url, 'POST', '/mcp', { headers: { ...accept, ...session }, body: { jsonrpc: '2.0', id: 4, method: 'tools/list' } });
    expect(after.status).toBe(404);
  });

  describe("the marketplace's own capabilities as tools", () => {
    const offered = () => [...FIRST_PARTY.values()].filter((c) => !c.available || c.available(server.app.services));

    it("offers one tool per capability this instance serves, with the capability's own input and output schemas", async () => {
      const client = await connect(undefined, server, '/mcp/x/all');
      const { tools } = await client.listTools();
      for (const c of offered()) {
        const tool = tools.find((t) => t.name === c.slug);
        expect(tool).toBeDefined();
        expect(tool!.inputSchema).toEqual({ ...c.inputSchema, type: 'object' });
        expect(tool!.outputSchema).toEqual({ ...c.outputSchema, type: 'object' });
        expect(tool!.description).toContain(c.summary.replace(/\.$/, ''));
      }
      // One the instance cannot serve (a model-backed one without a backend) is neither listed nor callable.
      for (const c of FIRST_PARTY.values()) {
        if (offered().includes(c)) continue;
        expect(tools.map((t) => t.name)).not.toContain(c.slug);
        await expect(client.callTool({ name: c.slug, arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool/) });
      }
    });

    it('offers the model-backed ones, as tools and in the OpenAPI document, once the instance has a model backend', async () => {
      const withModel = await startServer({ env: { RATE_LIMIT_DISABLED: '1', LLM_BASE_URL: 'https://127.0.0.1:9/v1', LLM_MODEL: 'test-model' } });
      try {
        const needsModel = [...FIRST_PARTY.values()].filter((c) => c.available && !c.available(server.app.services) && c.available(withModel.app.services));
        expect(needsModel.length).toBeGreaterThan(0);
        const { tools } = await (await connect(undefined, withModel, '/mcp/x/all')).listTools();
        const doc = (await api(withModel)('GET', '/openapi.json')).body;
        for (const c of needsModel) {
          expect(tools.find((t) => t.name === c.slug)?.inputSchema).toEqual({ ...c.inputSchema, type: 'object' });
          expect(doc.components.schemas[`${capabilitySchemaName(c.slug)}Output`]).toMatchObject({ 'x-capability': c.slug });
        }
        const plain = (await api(server)('GET', '/openapi.json')).body;
        for (const c of needsModel) expect(plain.components.schemas[`${capabilitySchemaName(c.slug)}Output`]).toBeUndefined();
      } finally {
        await withModel.close();
      }
    });

    it('runs a capability through execute with the marketplace as the provider, recorded like any execution', async () => {
      const me = await registerAgent(server);
      const client = await connect(me.key, server, '/mcp?toolsets=security');
      const result = (await client.callTool({
        name: 'support-ticket',
        arguments: { type: 'question', subject: 'Via a capability tool', description: 'Opened by the support-ticket tool', agentName: 'mcp' },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const ticket = result.structuredContent as { ticket_key: string };
      expect(ticket.ticket_key).toMatch(/^ST-\d+$/);
      const execution = (result._meta as Record<string, any>)['marketplace/execution'];
      expect(execution).toMatchObject({
        capability: 'support-ticket',
        status: 'success',
        mode: 'chosen',
        provider: expect.objectContaining({ service_key: 'marketplace' }),
      });
      // The same ticket and execution every other surface sees.
      expect((await call('GET', `/tickets/${ticket.ticket_key}`, { key: me.key })).body.subject).toBe('Via a capability tool');
      const history = await call('GET', '/agents/me/executions', { key: me.key });
      expect(history.body.executions.map((e: { execution_id: string }) => e.execution_id)).toContain(execution.execution_id);
      const trust = await ok(client, 'trust-score', { agent_id: me.agentId });
      expect(trust).toMatchObject({ agent_id: me.agentId, trust_score: expect.any(Number) });
    });

    it("refuses arguments the capability's schema refuses as invalid params naming each argument, and a call without a key", async () => {
      const me = await registerAgent(server);
      const client = await connect(me.key, server, '/mcp/x/security');
      const bad = await invalid(client, 'trust-score', { agent_id: 'not-a-uuid', extra: 1 });
      expect(bad).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(bad.errors.map((e: { path: string }) => e.path).sort()).toEqual(expect.arrayContaining(['agent_id']));
      expect(bad.errors.every((e: { path: string }) => !e.path.startsWith('input'))).toBe(true);
      const anonymous = await connect(undefined, server, '/mcp/x/security');
      expect(await refused(anonymous, 'trust-score', { agent_id: me.agentId })).toMatchObject({ status: 401, code: 'unauthorized' });
    });
  });

  describe("paid calls over x402's MCP transport", () => {
    /**
     * An MCP client written to x402's MCP transport and nothing of ours: the requirements from the tool
     * result (structuredContent, else the first text), a payment made by the official x402 client, sent in
     * `_meta["x402/payment"]`, the settlement read from `_meta["x402/payment-response"]`.
     */
    async function callPaying(client: Client, account: EvmAccount, name: string, args: Record<string, unknown>) {
      const first = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const fromText = () => {
        const text = (first.content[0] as { type: string; text?: string } | undefined)?.text;
        if (typeof text !== 'string') return undefined;
        const parsed = JSON.parse(text);
        return isPaymentRequired(parsed) ? parsed : isPaymentRequired(parsed?.['x402/error']?.data) ? parsed['x402/error'].data : undefined;
      };
      const required = (first.isError ? (isPaymentRequired(first.structuredContent) ? first.structuredContent : fromText()) : undefined) as
        PaymentRequired | undefined;
      if (!required) return { first, paid: undefined, required: undefined, payment: undefined };
      const payment = await new x402Client().register(NETWORK, new ExactEvmScheme(account)).createPaymentPayload(required);
      const paid = (await client.callTool({ name, arguments: args, _meta: { 'x402/payment': payment } })) as CallToolResult;
      return { first, paid, required, payment };
    }

    async function payerAccount() {
      const account = await throwAwayAccount();
      const sponsor = await registerAgent(server);
      await call('POST', `/agents/${sponsor.agentId}/wallet`, { key: sponsor.key, body: { address: account.address } });
      await fund(server, sponsor.key, '1');
      return account;
    }

    it('pays a paid tool with no code of ours: requirements in the result, payment in _meta, settlement in _meta', async () => {
      const { capability, provider } = await echoCapability();
      const me = await registerAgent(server);
      const client = await connect(me.key);
      const account = await payerAccount();
      for (const name of ['execute', 'executeCapability']) {
        const { first, paid, required } = await callPaying(client, account, name, { capability, input: { via: name } });
        expect(first.isError).toBe(true);
        // Both places a client looks hold the same requirements.
        expect(isPaymentRequired(first.structuredContent)).toBe(true);
        expect(isPaymentRequired(JSON.parse((first.content[0] as { text: string }).text))).toBe(true);
        expect(required!.resource.url).toBe(`mcp://tool/${name}`);
        expect(required!.accepts[0]).toMatchObject({ scheme: 'exact', network: NETWORK, amount: '30000' });
        expect(paid!.isError).toBeFalsy();
        expect(paid!.structuredContent).toMatchObject({
          status: 'success',
          capability,
          payment: { method: 'x402', x402: { payer: account.address.toLowerCase() } },
        });
        const settlement = (paid!._meta as Record<string, any>)['x402/payment-response'];
        expect(settlement).toMatchObject({ success: true, network: NETWORK, payer: account.address.toLowerCase(), transaction: expect.stringMatching(/^0x/) });
        expect(provider.calls.at(-1)!.json.input).toEqual({ via: name });
      }
      expect(provider.calls).toHaveLength(2);
    });

    it('pays a checkout through payCheckout the same way', async () => {
      const seller = await registerAgent(server);
      const buyer = await registerAgent(server);
      const offer = await call('POST', '/ext/payments/offer', { key: seller.key, body: { description: 'A page, translated', price_cents: 20 } });
      const checkout = await call('POST', '/ext/payments/checkout', { key: buyer.key, body: { offer_id: offer.body.offer_id } });
      expect(checkout.status).toBe(200);
      const client = await connect(buyer.key, server, '/mcp/x/ext');
      const { first, paid, required } = await callPaying(client, await payerAccount(), 'payCheckout', { id: checkout.body.checkout_id });
      expect(first.isError).toBe(true);
      expect(required!.resource.url).toBe('mcp://tool/payCheckout');
      expect(paid!.isError).toBeFalsy();
      expect(paid!.structuredContent).toMatchObject({ paid: true });
      expect((paid!._meta as Record<string, any>)['x402/payment-response']).toMatchObject({ success: true, network: NETWORK });
    });

    it('takes the same payment in _meta and in paymentSignature as one, refuses two different ones, and names a malformed one', async () => {
      const { capability, provider } = await echoCapability();
      const me = await registerAgent(server);
      const client = await connect(me.key);
      const account = await payerAccount();
      const unpaid = (await client.callTool({ name: 'execute', arguments: { capability, input: {} } })) as CallToolResult;
      const accepts = (unpaid.structuredContent as unknown as PaymentRequired).accepts[0];
      const one = await signAuthorization(account, accepts);
      const two = await signAuthorization(account, accepts);
      const refusal = (args: Record<string, unknown>, meta: Record<string, unknown>) =>
        client.callTool({ name: 'execute', arguments: args, _meta: meta }).then(
          () => undefined,
          (e: { code?: number; data?: any }) => e,
        );
      expect(await refusal({ capability, input: {}, paymentSignature: one.header }, { 'x402/payment': two.payload })).toMatchObject({
        code: -32602,
        data: { errors: [expect.objectContaining({ path: '_meta.x402/payment' })] },
      });
      expect(await refusal({ capability, input: {} }, { 'x402/payment': { x402Version: 2 } })).toMatchObject({
        code: -32602,
        data: { errors: [expect.objectContaining({ path: '_meta.x402/payment' })] },
      });
      expect(provider.calls).toHaveLength(0);
      const paid = (await client.callTool({
        name: 'execute',
        arguments: { capability, input: {}, paymentSignature: one.header },
        _meta: { 'x402/payment': one.payload },
      })) as CallToolResult;
      expect(paid.structuredContent).toMatchObject({ status: 'success', payment: { method: 'x402' } });
      expect((paid._meta as Record<string, any>)['x402/payment-response']).toMatchObject({ success: true });
      expect(provider.calls).toHaveLength(1);
    });

    it("states the requirements in every paid tool's output schema, and none in a free tool's", async () => {
      const client = await connect(undefined, server, '/mcp?toolsets=ext');
      const { tools } = await client.listTools();
      const schemaOf = (name: string) => tools.find((t) => t.name === name)!.outputSchema as { anyOf?: { title?: string }[] };
      for (const name of ['execute', 'executeCapability', 'payCheckout']) expect(schemaOf(name).anyOf?.map((s) => s.title)).toContain('x402 PaymentRequired');
      expect(schemaOf('me').anyOf).toBeUndefined();
    });
  });
});
