// The input boundary on the protocols that are not REST: every MCP tool the server lists (so a tool added
// later is fuzzed without writing anything) and A2A messages of both method generations, each sent with
// the boundary's bad inputs — a NUL, a lone surrogate, nesting past the limit — in every argument. Never
// an internal error; the refusal is invalid params naming the argument; no provider is ever called.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { http, registerService, startServer, uniqueSlug, type TestServer } from '../support/server';
import { registerPayingAgent } from '../support/payments';

let server: TestServer;
let provider: Provider;
let capability: string;
let key: string;

/** The boundary's bad inputs, each as a value a client can send. */
const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);
const BAD: Record<string, unknown> = {
  nul: 'a\u0000b',
  'lone surrogate': '\ud800 tail',
  'nested 41 deep': nested(41),
  'a key with a NUL': { 'k\u0000': 1 },
};

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
  provider = await startProvider('fuzz-provider');
  capability = uniqueSlug('fuzz-cap');
  const owner = await registerPayingAgent(server);
  await registerService(server, owner.key, { endpoint: provider.url, capabilities: [capability] });
  key = (await registerPayingAgent(server)).key;
});
afterAll(async () => {
  await server.close();
  await provider.close();
});

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; required?: string[] };

/** A plausible value of a tool argument's JSON Schema (capabilities point at the fuzz provider's). */
function sample(name: string, schema: Schema | undefined): unknown {
  if (!schema) return 'fuzz';
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (name === 'capability' || name === 'capabilityId') return capability;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(k, v)]));
    case 'array':
      return [sample(name, schema.items)];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'string':
      return 'fuzz';
    default:
      return { any: 'json' };
  }
}

it('refuses the boundary’s bad inputs in every argument of every MCP tool as invalid params naming it, calling no provider', async () => {
  const client = new Client({ name: 'fuzz', version: '1.0.0' });
  // Every tool: the default toolset's and every other one's.
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/x/all`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  try {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(128);
    let calls = 0;
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      const args = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, sample(k, v)]));
      // A tool's calls go at once (the client sends each as a request of its own); each answer is checked.
      const cases = (Object.keys(properties).length ? Object.keys(properties) : ['extra']).flatMap((argument) =>
        Object.entries(BAD).map(([kind, bad]) => ({ argument, kind, bad })),
      );
      calls += cases.length;
      const outcomes = await Promise.all(
        cases.map(({ argument, kind, bad }) => {
          const where = `${tool.name}(${argument}: ${kind})`;
          return client.callTool({ name: tool.name, arguments: { ...args, [argument]: bad } }).then(
            (result) => ({ argument, outcome: { where, rpc: 0, result: JSON.stringify(result).slice(0, 300) } as object }),
            (err: { code?: number; data?: { errors?: { path: string }[] } }) => ({
              argument,
              outcome: { where, rpc: err.code ?? 0, path: err.data?.errors?.[0]?.path } as object,
            }),
          );
        }),
      );
      for (const [i, { argument, outcome }] of outcomes.entries()) {
        const where = `${tool.name}(${argument}: ${cases[i].kind})`;
        expect(outcome).toEqual({ where, rpc: -32602, path: expect.stringMatching(new RegExp(`^${argument}(\\.|$)`)) });
      }
    }
    expect(calls).toBeGreaterThan(200);
    expect(provider.calls).toHaveLength(0);
  } finally {
    await client.close();
  }
}, 120_000);

it('refuses the boundary’s bad inputs in A2A messages of both generations as invalid params, storing and calling nothing', async () => {
  const rpc = async (method: string, parts: unknown[]) => {
    const res = await http(server.url, 'POST', '/api/a2a', {
      key,
      body: {
        jsonrpc: '2.0',
        id: randomUUID(),
        method,
        params: { message: { messageId: randomUUID(), role: method === 'SendMessage' ? 'ROLE_USER' : 'user', kind: 'message', parts } },
      },
    });
    return res;
  };
  for (const method of ['message/send', 'SendMessage', 'message/stream', 'SendStreamingMessage']) {
    for (const [kind, bad] of Object.entries(BAD)) {
      for (const parts of [
        [{ kind: 'data', data: { capability, input: { text: bad } } }],
        [
          { kind: 'text', text: typeof bad === 'string' ? `${capability}: ${bad}` : capability },
          { kind: 'data', data: { note: bad } },
        ],
      ]) {
        const res = await rpc(method, parts);
        const where = `${method} ${kind}`;
        expect({
          where,
          status: res.status,
          code: res.body?.error?.code,
          leak: /prisma|SELECT|invalid byte sequence|\\u0000|at .+\.ts:\d+/i.test(res.text),
        }).toEqual({
          where,
          status: 200,
          code: -32602,
          leak: false,
        });
      }
    }
  }
  expect(provider.calls).toHaveLength(0);
  // Nothing was stored as a task either.
  const listed = await http(server.url, 'POST', '/api/a2a', { key, body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} } });
  expect(listed.body.result).toMatchObject({ tasks: [] });
});
