// A2A at /api/a2a (spec §4.14) through the official SDK's clients, current and v0.3: the agent card at both
// well-known paths, a message that executes a capability on a real HTTPS provider for the bearer's agent,
// streaming over SSE, tasks read back (only by their agent), and the JSON-RPC error codes with the id.
import { randomUUID } from 'node:crypto';
import type { Task } from '@a2a-js/sdk' with { 'resolution-mode': 'import' };
import { assertTestCaTrusted } from '../support/https';
import { startProvider, type Provider } from '../support/provider';
import { api, http, registerAgent, registerService, startServer, uniqueSlug, type TestServer } from '../support/server';
import { registerPayingAgent } from '../support/payments';

type ClientModule = typeof import('@a2a-js/sdk/client', { with: { 'resolution-mode': 'import' } });
type CoreModule = typeof import('@a2a-js/sdk', { with: { 'resolution-mode': 'import' } });
type LegacyClientModule = typeof import('@a2a-js/sdk/compat/v0_3/client', { with: { 'resolution-mode': 'import' } });
const { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, Client } = require('@a2a-js/sdk/client') as ClientModule;
const { SendMessageRequest, GetTaskRequest, TaskState } = require('@a2a-js/sdk') as CoreModule;
const { LegacyJsonRpcTransport } = require('@a2a-js/sdk/compat/v0_3/client') as LegacyClientModule;

let server: TestServer;
let call: ReturnType<typeof api>;
const providers: Provider[] = [];

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' } });
  call = api(server);
});
afterAll(async () => {
  await server.close();
  await Promise.all(providers.map((p) => p.close()));
});

/** fetch with the agent's key on every request (the card too). */
const withKey =
  (key?: string): typeof fetch =>
  (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (key) headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };

async function currentClient(key?: string, path?: string) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: withKey(key) })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: withKey(key) }),
  });
  return new ClientFactory(options).createFromUrl(server.url, path);
}

function legacyClient(key: string, card: Parameters<ClientModule['ClientFactory']['prototype']['createFromAgentCard']>[0]) {
  return new Client(new LegacyJsonRpcTransport({ endpoint: `${server.url}/api/a2a`, fetchImpl: withKey(key) }), card);
}

const message = (parts: unknown[]) => SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts } });

async function echoCapability() {
  const provider = await startProvider('a2a-provider');
  providers.push(provider);
  const capability = uniqueSlug('a2a-cap');
  const owner = await registerAgent(server);
  await registerService(server, owner.key, { endpoint: provider.url, capabilities: [capability], cost_per_call: 4 });
  return { capability, provider };
}

const rpc = (body: unknown, key?: string, raw?: string) =>
  http(server.url, 'POST', '/api/a2a', { key, ...(raw === undefined ? { body } : { raw, headers: { 'content-type': 'application/json' } }) });

describe('the agent card', () => {
  it('is served at both well-known paths, in the generation the client asks for, with absolute URLs, the catalog as skills and bearer security', async () => {
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
      const legacy = await http(server.url, 'GET', path);
      expect(legacy.status).toBe(200);
      expect(legacy.body).toMatchObject({
        protocolVersion: '0.3',
        url: `${server.url}/api/a2a`,
        preferredTransport: 'JSONRPC',
        capabilities: { streaming: true },
      });
      expect(legacy.body.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(legacy.body.security).toEqual([{ bearer: [] }]);
      expect(legacy.body.skills.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(['summarize', 'translate', 'trust-score', 'support-ticket']));
      const current = await http(server.url, 'GET', path, { headers: { 'a2a-version': '1.0' } });
      expect(current.body.supportedInterfaces).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ url: `${server.url}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
          expect.objectContaining({ url: `${server.url}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
        ]),
      );
      expect(current.body.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('bearer');
    }
    // The SDK's client reads it from either path.
    for (const path of [undefined, '.well-known/agent.json']) {
      const client = await currentClient(undefined, path);
      const card = await client.getAgentCard();
      expect(card.name).toBe('Agent Capability Marketplace');
      expect(card.skills.length).toBeGreaterThanOrEqual(33);
      expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
    }
  });

  it('lists a capability that a service declares once it has a provider', async () => {
    const { capability } = await echoCapability();
    // The card's skills are kept for a minute; a fresh server reads them anew.
    const fresh = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
    try {
      const owner = await registerAgent(fresh);
      await registerService(fresh, owner.key, { capabilities: [capability] });
      const card = await http(fresh.url, 'GET', '/.well-known/agent-card.json');
      expect(card.body.skills.map((s: { id: string }) => s.id)).toContain(capability);
    } finally {
      await fresh.close();
    }
  });
});

describe('messages', () => {
  it('executes the capability a data part names for the bearer agent (current protocol), and the task reads back', async () => {
    const { capability, provider } = await echoCapability();
    const me = await registerPayingAgent(server);
    const client = await currentClient(me.key);
    const task = (await client.sendMessage(message([{ data: { capability, input: { text: 'hello' } } }]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const execution = task.artifacts[0].parts[0].content as { $case: 'data'; value: any };
    expect(execution.$case).toBe('data');
    expect(execution.value).toMatchObject({
      status: 'success',
      capability,
      result: { served_by: 'a2a-provider', echo: { text: 'hello' } },
      transaction: { cost_cents: 4 },
    });
    expect(provider.calls.at(-1)!.json).toMatchObject({ capability, agent_id: me.agentId });
    // Recorded as the agent's execution, like any other.
    const history = await call('GET', '/agents/me/executions', { key: me.key });
    expect(history.body.executions.map((e: { execution_id: string }) => e.execution_id)).toContain(execution.value.execution_id);
    const again = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.artifacts[0].parts[0].content).toEqual(execution);
    // Another agent does not see it.
    const stranger = await registerAgent(server);
    const theirs = await rpc({ jsonrpc: '2.0', id: 'x1', method: 'GetTask', params: { id: task.id } }, stranger.key);
    expect(theirs.body).toMatchObject({ id: 'x1', error: { code: -32001 } });
  });

  it('takes text that starts with a capability, and streams the task over SSE', async () => {
    const { capability } = await echoCapability();
    const me = await registerPayingAgent(server);
    const client = await currentClient(me.key);
    const kinds: string[] = [];
    let last: any;
    for await (const event of client.sendMessageStream(message([{ text: `${capability}: the text to work on` }]))) {
      kinds.push(event.payload!.$case);
      last = event.payload;
    }
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    expect(last).toMatchObject({ $case: 'statusUpdate', value: { status: { state: TaskState.TASK_STATE_COMPLETED } } });
    const raw = await fetch(`${server.url}/api/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${me.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'message/stream',
        params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: capability }] } },
      }),
    });
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await raw.text())
      .split('\n\n')
      .filter(Boolean)
      .map((f) => JSON.parse(f.replace(/^data: /, '')));
    expect(frames.every((f) => f.id === 9 && f.jsonrpc === '2.0')).toBe(true);
    expect(frames.at(-1).result).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(frames.find((f) => f.result.kind === 'artifact-update').result.artifact.parts[0]).toMatchObject({
      kind: 'data',
      data: { status: 'success', result: { echo: {} } },
    });
  });

  it("speaks v0.3 (message/send, tasks/get) through the SDK's v0.3 transport, on the same tasks", async () => {
    const { capability } = await echoCapability();
    const me = await registerPayingAgent(server);
    const card = await (await currentClient(me.key)).getAgentCard();
    const client = legacyClient(me.key, card);
    const task = (await client.sendMessage(message([{ data: { capability, input: { n: 1 } } }]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(got.id).toBe(task.id);
    const raw = await rpc({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: task.id } }, me.key);
    expect(raw.body.result).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    expect(raw.body.result.artifacts[0].parts[0]).toMatchObject({ kind: 'data', data: { status: 'success', capability } });
  });

  it('fails the task with the problem when the call cannot run, and refuses to cancel a finished task', async () => {
    const me = await registerPayingAgent(server);
    const client = await currentClient(me.key);
    const task = (await client.sendMessage(message([{ data: { capability: uniqueSlug('nobody-offers'), input: {} } }]))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const parts = task.status!.message!.parts.map((p) => p.content);
    expect(parts[0]).toMatchObject({ $case: 'text', value: expect.stringMatching(/provider/) });
    expect(parts[1]).toMatchObject({ $case: 'data', value: { code: 'not_found', status: 404 } });
    const cancel = await rpc({ jsonrpc: '2.0', id: 4, method: 'CancelTask', params: { id: task.id } }, me.key);
    expect(cancel.body).toMatchObject({ id: 4, error: { code: -32002 } });
  });

  it('needs the bearer key of an active agent', async () => {
    const anonymous = await rpc({ jsonrpc: '2.0', id: 'a', method: 'GetTask', params: { id: 'x' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(anonymous.body).toMatchObject({ jsonrpc: '2.0', id: 'a', error: { code: -32000, data: { code: 'unauthorized' } } });
    expect((await rpc({ jsonrpc: '2.0', id: 'b', method: 'GetTask', params: { id: 'x' } }, 'key_master_unknown0000000000000000000000000000')).status).toBe(401);
  });
});

describe('JSON-RPC errors', () => {
  it('answers parse errors, invalid requests, unknown methods and bad params with their codes and the request id', async () => {
    const me = await registerPayingAgent(server);
    const parse = await rpc(undefined, me.key, '{not json');
    expect(parse.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
    expect((await rpc([], me.key)).body).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await rpc({ jsonrpc: '2.0', id: 5 }, me.key)).body).toMatchObject({ id: 5, error: { code: -32600 } });
    expect((await rpc({ jsonrpc: '1.0', id: 6, method: 'GetTask' }, me.key)).body).toMatchObject({ id: 6, error: { code: -32600 } });
    expect((await rpc({ jsonrpc: '2.0', id: 'm', method: 'tasks/explode', params: {} }, me.key)).body).toMatchObject({ id: 'm', error: { code: -32601 } });
    expect((await rpc({ jsonrpc: '2.0', id: 7, method: 'GetTask' }, me.key)).body).toMatchObject({ id: 7, error: { code: -32602 } });
    expect((await rpc({ jsonrpc: '2.0', id: 8, method: 'tasks/get', params: {} }, me.key)).body).toMatchObject({ id: 8, error: { code: -32602 } });
    const noCapability = await rpc(
      { jsonrpc: '2.0', id: 9, method: 'SendMessage', params: { message: { messageId: 'q', role: 'ROLE_USER', parts: [{ data: { nothing: 1 } }] } } },
      me.key,
    );
    expect(noCapability.body).toMatchObject({ id: 9, error: { code: -32602, message: expect.stringMatching(/capability/) } });
    const unknownTask = await rpc({ jsonrpc: '2.0', id: 10, method: 'tasks/get', params: { id: 'no-such-task' } }, me.key);
    expect(unknownTask.body).toMatchObject({ id: 10, error: { code: -32001 } });
    expect((await http(server.url, 'GET', '/api/a2a')).status).toBe(405);
  });
});
