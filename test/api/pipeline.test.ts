// One pipeline under every surface (src/pipeline): a guard added once, in the running instance, is passed
// by an operation on each surface the pipeline names (REST, REST's WebSocket streams, GraphQL over HTTP,
// WebSocket and SSE, MCP, A2A), and its refusal is what each surface answers.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { SURFACES, type Guard, type Surface } from '../../src/pipeline/pipeline';
import { Forbidden } from '../../src/platform/errors';
import { api, registerAgent, startServer, type TestServer } from '../support/server';

let server: TestServer;
let key: string;
let sessionEndpoint: string;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  key = (await registerAgent(server)).key;
  const session = await api(server)('POST', '/streaming/sessions', { key, body: { capabilityId: 'summarize', streamType: 'websocket' } });
  sessionEndpoint = session.body.eventEndpoint;
});
afterAll(() => server.close());

const REFUSAL = 'refused by the test guard';

/** An operation on each surface; each answers what the client got, as text. */
const calls: Record<Surface, () => Promise<string>> = {
  rest: async () => (await api(server)('GET', '/agents/me', { key })).text,
  'rest-websocket': () =>
    new Promise((resolve) => {
      const socket = new WebSocket(sessionEndpoint, { headers: { authorization: `Bearer ${key}` } });
      socket.on('open', () => {
        socket.close();
        resolve('open');
      });
      socket.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve(`${res.statusCode} ${body}`));
      });
      socket.on('error', (err) => resolve(String(err)));
    }),
  graphql: async () =>
    (
      await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: '{ me { id } }' }),
      })
    ).text(),
  'graphql-ws': async () => {
    const client = createWsClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
    });
    try {
      return await once(client, '{ me { id } }');
    } finally {
      await client.dispose();
    }
  },
  'graphql-sse': async () => {
    const client = createSseClient({ url: `${server.url}/graphql/stream`, headers: { authorization: `Bearer ${key}` }, retryAttempts: 0 });
    try {
      return await once(client, '{ me { id } }');
    } finally {
      client.dispose();
    }
  },
  mcp: async () => {
    const client = new Client({ name: 'pipeline-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const result = (await client.callTool({ name: 'getMarketplaceStats', arguments: {} })) as CallToolResult;
      return JSON.stringify(result);
    } finally {
      await client.close();
    }
  },
  a2a: async () =>
    (
      await fetch(`${server.url}/api/a2a`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: randomUUID() } }),
      })
    ).text(),
};

/** The first result of a GraphQL operation on a graphql-ws or graphql-sse client, as JSON text (or its error). */
function once(
  client: { subscribe(payload: { query: string }, sink: { next(v: unknown): void; error(e: unknown): void; complete(): void }): () => void },
  query: string,
): Promise<string> {
  return new Promise((resolve) => {
    let answered = false;
    client.subscribe(
      { query },
      {
        next: (v) => {
          answered = true;
          resolve(JSON.stringify(v));
        },
        error: (e) => resolve(e instanceof Error ? e.message : JSON.stringify(e)),
        complete: () => answered || resolve('completed without a result'),
      },
    );
  });
}

it('names every surface, and each one has a call here', () => {
  expect(Object.keys(calls).sort()).toEqual([...SURFACES].sort());
});

it('runs a guard added once on every surface, before the operation', async () => {
  const seen: Surface[] = [];
  const guard: Guard = { name: 'probe', stage: 'request', check: ({ call }) => void seen.push(call.surface) };
  const remove = server.app.services.pipeline.use(guard);
  try {
    for (const surface of SURFACES) {
      const before = seen.length;
      const answer = await calls[surface]();
      expect({ surface, passed: seen.slice(before).includes(surface), refused: answer.includes(REFUSAL) }).toEqual({ surface, passed: true, refused: false });
    }
  } finally {
    remove();
  }
});

it("answers a guard's refusal on every surface", async () => {
  const ran: string[] = [];
  const refuse: Guard = {
    name: 'refuse',
    stage: 'operation',
    check: ({ call }) => {
      ran.push(call.surface);
      throw new Forbidden(REFUSAL);
    },
  };
  const remove = server.app.services.pipeline.use(refuse);
  try {
    for (const surface of SURFACES) {
      const answer = await calls[surface]();
      // The refusal itself, or its status where the client reports only that (graphql-sse's client).
      const refused = answer.includes(REFUSAL) || /\b403\b/.test(answer);
      expect({ surface, answer: refused ? 'refused' : answer }).toEqual({ surface, answer: 'refused' });
    }
    expect(new Set(ran)).toEqual(new Set(SURFACES));
  } finally {
    remove();
  }
  // Removed, it refuses nothing.
  expect(await calls.rest()).not.toContain(REFUSAL);
});
