// A2A at /api/a2a with the official SDK: JSON-RPC 2.0 in both method generations the SDK speaks (v0.3's
// `message/send`, `tasks/get`, … and the current `SendMessage`, `GetTask`, …), dispatched by method name.
// A message names a capability (a data part `{capability, input}`, or text that starts with one) and runs
// the `execute` tool for the bearer's agent; the task's artifact is the execution. Tasks live in the
// database (any instance answers for them). The agent card lists the catalog as skills.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { AgentCard as Card, Task as A2aTask, Part } from '@a2a-js/sdk' with { 'resolution-mode': 'import' };
import type { AgentExecutor, ExecutionEventBus, RequestContext, ServerCallContext as CallContext, TaskStore, User } from '@a2a-js/sdk/server' with {
  'resolution-mode': 'import',
};
import type { CompiledRoute } from '../rest/runner';
import { runOperation, type Charge } from '../src/pipeline/pipeline';
import { VERSION } from '../src/config';
import { loadA2aTask, listA2aTasks, saveA2aTask } from '../src/domain/a2a/tasks';
import { CAPABILITY_SLUG } from '../src/domain/capabilities/catalog';
import type { Ctx, Services } from '../src/domain/context';
import { createContext } from '../src/domain/request-context';
import { problemFromError, ValidationFailed } from '../src/platform/errors';
import { clientAddress, factsOf } from '../src/platform/http';
import { onFirstUse } from '../src/platform/lazy';
import { bucket } from '../rest/route';
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR } from './json-rpc';
import { compileTools, runTool, type CompiledTool } from './tools';

type CoreModule = typeof import('@a2a-js/sdk', { with: { 'resolution-mode': 'import' } });
type ServerModule = typeof import('@a2a-js/sdk/server', { with: { 'resolution-mode': 'import' } });
type CompatModule = typeof import('@a2a-js/sdk/compat/v0_3', { with: { 'resolution-mode': 'import' } });
type CompatServerModule = typeof import('@a2a-js/sdk/compat/v0_3/server', { with: { 'resolution-mode': 'import' } });
type Sdk = { core: CoreModule; sdk: ServerModule; compat: CompatModule; compatServer: CompatServerModule };

/**
 * The SDK, loaded by the first A2A request or agent card, so a process no A2A client calls never holds it
 * (docs/operations.md, Start). Its types resolve as ES modules only, hence `typeof import` types and `require`.
 */
const a2aSdk = onFirstUse((): Sdk => ({
  core: require('@a2a-js/sdk') as CoreModule,
  sdk: require('@a2a-js/sdk/server') as ServerModule,
  compat: require('@a2a-js/sdk/compat/v0_3') as CompatModule,
  compatServer: require('@a2a-js/sdk/compat/v0_3/server') as CompatServerModule,
}));

export const A2A_PATH = '/api/a2a';
export const AGENT_CARD_PATHS = ['/.well-known/agent-card.json', '/.well-known/agent.json'];
const A2A_CHARGES: Charge[] = [{ bucket: bucket('a2a', 120), points: 1 }];
const MAX_BODY_BYTES = 1024 * 1024;
/** How long the card's skills (the catalog) are reused before they are read again. */
const CARD_TTL_MS = 60_000;
/** Capabilities declared by services that the card lists beside the built-in catalog, most offered first. */
const CARD_COMMUNITY_SKILLS = 200;
const CTX_KEY = 'marketplace.ctx';

/** Implementation-defined server errors: the caller's credential (HTTP 401/403 carries the same). */
const UNAUTHORIZED = -32000;

type RpcId = string | number | null;
type Envelope = { jsonrpc: '2.0'; id: RpcId; result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** What a message asks for: the execute tool's arguments. */
export type CallRequest = { args: Record<string, unknown> } | { problem: string };

/**
 * The call a message asks for, from its parts (either generation's shape): the first data part that is an object with
 * a `capability` is execute's arguments; otherwise a text part starting with a capability identifier names it, and the
 * rest of the text (after an optional colon) is the input's `text`.
 */
export function callOf(parts: { data?: unknown; text?: string }[]): CallRequest {
  for (const p of parts) {
    if (p.data && typeof p.data === 'object' && !Array.isArray(p.data) && typeof (p.data as { capability?: unknown }).capability === 'string') {
      return { args: p.data as Record<string, unknown> };
    }
  }
  for (const p of parts) {
    if (typeof p.text !== 'string') continue;
    const m = /^\s*([a-z0-9][a-z0-9.-]*)\s*(?::\s*)?([\s\S]*)$/.exec(p.text);
    if (m && CAPABILITY_SLUG.test(m[1]) && m[1].length <= 64) return { args: { capability: m[1], input: m[2].trim() ? { text: m[2].trim() } : {} } };
  }
  return { problem: 'the message must carry a data part {"capability": …, "input": {…}} or a text part that starts with a capability identifier' };
}

/** The parts of a message as sent (v0.3 `{kind, data|text}` or current `{data}|{text}`). */
function wireParts(message: unknown): { data?: unknown; text?: string }[] | undefined {
  const parts = (message as { parts?: unknown } | undefined)?.parts;
  if (!Array.isArray(parts)) return undefined;
  return parts.map((p) => (p && typeof p === 'object' ? { data: (p as { data?: unknown }).data, text: (p as { text?: string }).text } : {}));
}

/** The caller, as the SDK's user: the agent the bearer key belongs to. */
class AgentUser implements User {
  constructor(readonly agentId: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.agentId;
  }
}

function ctxOf(context: CallContext | undefined): Ctx {
  const ctx = context?.state.get(CTX_KEY) as Ctx | undefined;
  if (!ctx) throw new Error('A2A call without a marketplace context');
  return ctx;
}

function agentOf(context: CallContext | undefined): string {
  return (context?.user as AgentUser).agentId;
}

/** Tasks in the database, each visible to its agent only. */
class DatabaseTaskStore implements TaskStore {
  constructor(private readonly services: Services) {}

  async save(task: A2aTask, context?: CallContext): Promise<void> {
    const { core } = a2aSdk();
    await saveA2aTask(this.services, agentOf(context), {
      id: task.id,
      contextId: task.contextId,
      state: core.TaskState[task.status?.state ?? core.TaskState.TASK_STATE_UNSPECIFIED] ?? 'TASK_STATE_UNSPECIFIED',
      body: core.Task.toJSON(task),
    });
  }

  async load(taskId: string, context?: CallContext): Promise<A2aTask | undefined> {
    const body = await loadA2aTask(this.services, agentOf(context), taskId);
    const { core } = a2aSdk();
    return body === undefined ? undefined : core.Task.fromJSON(body);
  }

  async list(params: Parameters<TaskStore['list']>[0], context?: CallContext): ReturnType<TaskStore['list']> {
    const { core } = a2aSdk();
    const limit = Math.min(Math.max(params.pageSize ?? 50, 1), 100);
    const offset = /^\d+$/.test(params.pageToken ?? '') ? Number(params.pageToken) : 0;
    const state = params.status ? core.TaskState[params.status] : undefined;
    const { bodies, total } = await listA2aTasks(this.services, agentOf(context), { contextId: params.contextId || undefined, state }, { offset, limit });
    const tasks = bodies.map((b) => core.Task.fromJSON(b));
    return { tasks, nextPageToken: offset + tasks.length < total ? String(offset + tasks.length) : '', pageSize: tasks.length, totalSize: total };
  }
}

/** Runs the message's call as an execute for the caller; the task ends completed (the execution succeeded) or failed. */
class ExecuteExecutor implements AgentExecutor {
  constructor(private readonly executeTool: CompiledTool) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { core, sdk } = a2aSdk();
    const now = () => new Date().toISOString();
    const ids = { taskId: request.taskId, contextId: request.contextId, metadata: undefined };
    const { TaskState } = core;
    bus.publish(
      sdk.AgentEvent.task({
        id: request.taskId,
        contextId: request.contextId,
        history: [request.userMessage],
        artifacts: [],
        metadata: undefined,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
      }),
    );
    bus.publish(sdk.AgentEvent.statusUpdate({ ...ids, status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() } }));
    const call = callOf(request.userMessage.parts.map(partOf));
    const answer = 'problem' in call ? undefined : await runTool(this.executeTool, ctxOf(request.context), call.args, undefined, 'a2a');
    const artifact = (value: unknown) =>
      sdk.AgentEvent.artifactUpdate({
        ...ids,
        append: false,
        lastChunk: true,
        artifact: {
          artifactId: 'execution',
          name: 'execution',
          description: 'The execution: its status, result, provider and cost',
          extensions: [],
          metadata: undefined,
          parts: [dataPart(value)],
        },
      });
    const finish = (state: number, why?: { text: string; data?: unknown }) =>
      bus.publish(
        sdk.AgentEvent.statusUpdate({
          ...ids,
          status: {
            state,
            timestamp: now(),
            message: why && {
              messageId: `${request.taskId}-status`,
              contextId: request.contextId,
              taskId: request.taskId,
              role: core.Role.ROLE_AGENT,
              parts: [textPart(why.text), ...(why.data === undefined ? [] : [dataPart(why.data)])],
              metadata: undefined,
              extensions: [],
              referenceTaskIds: [],
            },
          },
        }),
      );
    if (!answer) finish(TaskState.TASK_STATE_REJECTED, { text: (call as { problem: string }).problem });
    else if (!answer.ok) finish(TaskState.TASK_STATE_FAILED, { text: answer.problem.detail, data: answer.problem });
    else {
      bus.publish(artifact(answer.value));
      const receipt = answer.value as { status?: string; error?: string | null };
      if (receipt.status === 'success') finish(TaskState.TASK_STATE_COMPLETED);
      else finish(TaskState.TASK_STATE_FAILED, { text: receipt.error ?? 'every provider failed' });
    }
    bus.finished();
  }

  /** An execute cannot be stopped once it runs; the handler refuses to cancel a finished task. */
  async cancelTask(): Promise<void> {}
}

function partOf(p: Part): { data?: unknown; text?: string } {
  const c = p.content;
  return c?.$case === 'data' ? { data: c.value } : c?.$case === 'text' ? { text: c.value } : {};
}

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function textPart(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export class A2aEndpoint {
  private readonly execute: CompiledTool;
  private readonly catalog: CompiledTool;
  /** The SDK's handlers of either generation, made with the SDK on the first JSON-RPC request. */
  private handlers?: {
    current: InstanceType<ServerModule['JsonRpcTransportHandler']>;
    legacy: InstanceType<CompatServerModule['LegacyJsonRpcTransportHandler']>;
  };
  private skills?: { at: number; value: Card['skills'] };

  constructor(
    private readonly services: Services,
    schema: GraphQLSchema,
    routes: CompiledRoute[],
  ) {
    const [execute, catalog] = compileTools(
      schema,
      [
        { name: 'execute', title: 'Execute', route: 'POST /execute' },
        // Read for the card when its minute is up, not at a client's request: no client's bucket pays.
        { name: 'catalog', title: 'Catalog', route: 'GET /capabilities', bucket: null },
      ],
      routes,
    );
    this.execute = execute;
    this.catalog = catalog;
  }

  private transportHandlers(): NonNullable<A2aEndpoint['handlers']> {
    if (!this.handlers) {
      const { sdk, compatServer } = a2aSdk();
      const handler = new sdk.DefaultRequestHandler(this.card([]), new DatabaseTaskStore(this.services), new ExecuteExecutor(this.execute));
      this.handlers = { current: new sdk.JsonRpcTransportHandler(handler), legacy: new compatServer.LegacyJsonRpcTransportHandler(handler) };
    }
    return this.handlers;
  }

  /** Answers POST /api/a2a and the agent card paths; returns false for other requests. */
  handle(req: IncomingMessage, res: ServerResponse, requestId: string): boolean {
    const pathname = (req.url ?? '/').split('?')[0];
    if (AGENT_CARD_PATHS.includes(pathname)) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        send(res, 405, { error: 'use GET' }, { Allow: 'GET, HEAD' });
        return true;
      }
      void this.serveCard(req, res, requestId);
      return true;
    }
    if (pathname !== A2A_PATH) return false;
    if (req.method !== 'POST') {
      send(res, 405, envelope(null, INVALID_REQUEST, `${req.method} is not allowed on ${A2A_PATH}: send JSON-RPC 2.0 with POST`), { Allow: 'POST' });
      return true;
    }
    void this.serve(req, res, requestId).catch((err) => {
      this.services.log.error({ err, request_id: requestId }, 'a2a request failed');
      if (!res.headersSent) send(res, 500, envelope(null, INTERNAL_ERROR, 'Internal error'));
      else res.end();
    });
    return true;
  }

  private async serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const raw = await readBody(req, MAX_BODY_BYTES);
    if (raw === undefined) return void send(res, 413, envelope(null, INVALID_REQUEST, `The request body is larger than ${MAX_BODY_BYTES} bytes`));
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return void send(res, 200, envelope(null, PARSE_ERROR, 'Parse error: the body is not JSON'));
    }
    const validId = (id: unknown) => id === undefined || id === null || typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
    const request = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    if (
      typeof body !== 'object' ||
      body === null ||
      Array.isArray(body) ||
      request.jsonrpc !== '2.0' ||
      typeof request.method !== 'string' ||
      !request.method ||
      !validId(request.id)
    ) {
      const id = typeof body === 'object' && body !== null && !Array.isArray(body) && validId(request.id) ? ((request.id as RpcId) ?? null) : null;
      return void send(res, 200, envelope(id, INVALID_REQUEST, 'Invalid Request: a JSON-RPC 2.0 request object has jsonrpc "2.0", a method and an id'));
    }
    const id = (request.id as RpcId) ?? null;
    const method = request.method;
    const { sdk, compat } = a2aSdk();
    const isLegacy = compat.isLegacyJsonRpcMethod(method);
    if (!isLegacy && !compat.isV1JsonRpcMethod(method)) return void send(res, 200, envelope(id, METHOD_NOT_FOUND, `Method not found: ${method}`));

    const ctx = createContext(this.services, {
      authorization: req.headers.authorization,
      requestId,
      clientAddress: clientAddress(req, this.services.config.trustProxy),
      response: factsOf(res),
    });
    // The message passes the pipeline before anything reads it (the task store keeps it, the execute tool runs
    // it): the A2A bucket, the agent's key, the input boundary over its params.
    const headers: Record<string, string> = {};
    try {
      await runOperation({
        surface: 'a2a',
        ctx,
        label: `A2A ${method}`,
        charges: A2A_CHARGES,
        auth: 'agent',
        headers,
        read: () => ({ variables: { params: request.params } }),
        run: () => {},
      });
    } catch (err) {
      if (err instanceof ValidationFailed) {
        const outside = err.errors[0];
        const message = `Invalid params: ${outside.path}: ${outside.message}`;
        return void send(res, 200, { ...envelope(id, INVALID_PARAMS, message), error: { code: INVALID_PARAMS, message, data: { errors: [outside] } } });
      }
      const problem = problemFromError(this.services.config.publicBaseUrl, err, requestId);
      return void send(
        res,
        problem.status,
        { ...envelope(id, UNAUTHORIZED, problem.detail), error: { code: UNAUTHORIZED, message: problem.detail, data: problem } },
        { ...headers, ...(problem.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}) },
      );
    }
    if (method === 'message/send' || method === 'message/stream' || method === 'SendMessage' || method === 'SendStreamingMessage') {
      const parts = wireParts((request.params as { message?: unknown } | undefined)?.message);
      const call = parts && callOf(parts);
      if (call && 'problem' in call) return void send(res, 200, envelope(id, INVALID_PARAMS, `Invalid params: ${call.problem}`));
    }
    const agent = ctx.resolvedPrincipal;
    const context = new sdk.ServerCallContext({
      user: new AgentUser(agent?.kind === 'agent' ? agent.agent.id : ''),
      requestedVersion: isLegacy ? '0.3' : '1.0',
      state: new Map<string, unknown>([[CTX_KEY, ctx]]),
    });
    const handlers = this.transportHandlers();
    const out = await (isLegacy ? handlers.legacy : handlers.current).handle(request as Record<string, unknown>, context);
    if (!isStream(out)) return void send(res, 200, out);
    await this.stream(res, id, out, isLegacy);
  }

  /** A streaming answer as Server-Sent Events, one JSON-RPC response each; an error before the first is plain JSON. */
  private async stream(res: ServerResponse, id: RpcId, events: AsyncGenerator<unknown>, isLegacy: boolean): Promise<void> {
    const { core, sdk, compatServer } = a2aSdk();
    const mapError = (err: unknown) =>
      isLegacy ? compatServer.LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : sdk.JsonRpcTransportHandler.mapToJSONRPCError(err);
    let first: IteratorResult<unknown>;
    try {
      first = await events.next();
    } catch (err) {
      return void send(res, 200, { jsonrpc: '2.0', id, error: mapError(err) });
    }
    res.writeHead(200, core.SSE_HEADERS);
    res.flushHeaders();
    res.on('close', () => void events.return?.(undefined));
    try {
      if (!first.done) res.write(core.formatSSEEvent(first.value));
      for (let next = await events.next(); !next.done; next = await events.next()) res.write(core.formatSSEEvent(next.value));
    } catch (err) {
      res.write(core.formatSSEErrorEvent({ jsonrpc: '2.0', id, error: mapError(err) }));
    } finally {
      res.end();
    }
  }

  /**
   * The agent card: the current form to a client that asks for A2A 1.x (`A2A-Version`), else the v0.3 form
   * (which also lists the current interfaces). Absolute URLs under PUBLIC_BASE_URL.
   */
  private async serveCard(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    try {
      const ctx = createContext(this.services, { authorization: undefined, requestId, clientAddress: clientAddress(req, this.services.config.trustProxy) });
      const card = this.card(await this.catalogSkills(ctx));
      const asked = String(req.headers['a2a-version'] ?? '0.3');
      const body = asked.startsWith('0.') ? this.legacyCard(card) : a2aSdk().core.AgentCard.toJSON(card);
      send(res, 200, body, { Vary: 'A2A-Version', 'Cache-Control': 'public, max-age=60' });
    } catch (err) {
      this.services.log.error({ err, request_id: requestId }, 'agent card failed');
      send(res, 503, { error: 'the agent card is not available right now' });
    }
  }

  private card(skills: Card['skills']): Card {
    const base = this.services.config.publicBaseUrl;
    return {
      name: 'Agent Capability Marketplace',
      description:
        'A marketplace of agent capabilities. Send a message with a data part {"capability": "<id>", "input": {…}} (or text that starts with a capability id) and the marketplace executes it for your agent: the best-ranked provider is called, with fallback, and the task\'s artifact is the execution.',
      version: VERSION,
      supportedInterfaces: a2aSdk().compat.duplicateInterfacesForLegacy(
        [{ url: `${base}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
        ['JSONRPC'],
      ),
      provider: { organization: 'Agent Capability Marketplace', url: base },
      capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
      securitySchemes: {
        bearer: {
          scheme: { $case: 'httpAuthSecurityScheme', value: { description: "An agent's master key (key_master_…)", scheme: 'bearer', bearerFormat: '' } },
        },
      },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      defaultInputModes: ['application/json', 'text/plain'],
      defaultOutputModes: ['application/json'],
      skills,
      signatures: [],
      documentationUrl: `${base}/llms.txt`,
      iconUrl: undefined,
    };
  }

  /** The v0.3 card: the same facts in that generation's names, plus the current interfaces. */
  private legacyCard(card: Card) {
    const base = this.services.config.publicBaseUrl;
    return {
      protocolVersion: '0.3',
      name: card.name,
      description: card.description,
      url: `${base}${A2A_PATH}`,
      preferredTransport: 'JSONRPC',
      version: card.version,
      provider: card.provider,
      documentationUrl: card.documentationUrl,
      capabilities: { streaming: true, pushNotifications: false },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: "An agent's master key (key_master_…)" } },
      security: [{ bearer: [] }],
      defaultInputModes: card.defaultInputModes,
      defaultOutputModes: card.defaultOutputModes,
      skills: card.skills.map((s) => ({ id: s.id, name: s.name, description: s.description, tags: s.tags, examples: s.examples })),
      supportsAuthenticatedExtendedCard: false,
      supportedInterfaces: (a2aSdk().core.AgentCard.toJSON(card) as { supportedInterfaces: unknown }).supportedInterfaces,
    };
  }

  /** The catalog as skills: the built-in capabilities, then the most offered of those services declared. */
  private async catalogSkills(ctx: Ctx): Promise<Card['skills']> {
    if (this.skills && Date.now() - this.skills.at < CARD_TTL_MS) return this.skills.value;
    const answer = await runTool(this.catalog, ctx, {}, undefined, 'a2a');
    if (!answer.ok) throw new Error(answer.problem.detail);
    type Listed = { slug: string; name: string; group: string; description: string | null; builtin: boolean; service_count: number };
    const listed = (answer.value as { capabilities: Listed[] }).capabilities;
    const chosen = [
      ...listed.filter((c) => c.builtin),
      ...listed
        .filter((c) => !c.builtin && c.service_count > 0)
        .sort((a, b) => b.service_count - a.service_count || (a.slug < b.slug ? -1 : 1))
        .slice(0, CARD_COMMUNITY_SKILLS),
    ];
    const value = chosen.map((c) => ({
      id: c.slug,
      name: c.name,
      description: c.description ?? c.name,
      tags: [c.group],
      examples: [JSON.stringify({ capability: c.slug, input: {} })],
      inputModes: ['application/json', 'text/plain'],
      outputModes: ['application/json'],
      securityRequirements: [],
    }));
    this.skills = { at: Date.now(), value };
    return value;
  }
}

function isStream(out: unknown): out is AsyncGenerator<unknown> {
  return typeof out === 'object' && out !== null && typeof (out as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

function envelope(id: RpcId, code: number, message: string): Envelope {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(res.req?.method === 'HEAD' ? undefined : text);
}

/** The body as text, or undefined when it is over the limit (the rest is not read). */
async function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
