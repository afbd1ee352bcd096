// The MCP server at /mcp: the official SDK's low-level Server on its Streamable HTTP transport (POST,
// the GET event stream, DELETE), one session per client. Tools are tools.ts projections of GraphQL
// operations, served by toolset (toolsets.ts: the default 25 at /mcp, more by name); the capability
// catalog is offered as resources. The bearer key on each HTTP request is the credential of the calls
// that request carries.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Ctx, Services } from '../src/domain/context';
import { createContext, rateSubject, type RequestFacts } from '../src/domain/request-context';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { clientAddress, factsOf } from '../src/platform/http';
import { VERSION } from '../src/config';
import { problemFromError, type Problem } from '../src/platform/errors';
import { INTERNAL_ERROR, INVALID_PARAMS } from './json-rpc';
import { runTool, X402_PAYMENT_META, X402_PAYMENT_RESPONSE_META, type CompiledTool } from './tools';
import type { CatalogResources } from './resources';
import type { CapabilityAnswer, CapabilityTools } from './capability-tools';
import { askedToolsets, groupTools, isMcpPath, serves, toolsetInstructions, UnknownToolset, type ToolsetSelection } from './toolsets';

export const MCP_PATH = '/mcp';
/** A client's session ends after this long without a request (it re-initializes, as the protocol asks). */
const SESSION_IDLE_MS = 30 * 60_000;
const MAX_SESSIONS = 10_000;
const MAX_BODY_BYTES = 1024 * 1024;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  /** The toolsets it was opened with: its later requests keep them, whatever their URL says. */
  toolsets: ToolsetSelection;
}

/** Where a capability tool's answer says which execution produced it. */
const EXECUTION_META = 'marketplace/execution';

type Sdk = {
  Server: typeof import('@modelcontextprotocol/sdk/server/index.js').Server;
  StreamableHTTPServerTransport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
  Protocol: typeof import('@modelcontextprotocol/sdk/shared/protocol.js').Protocol;
  types: typeof import('@modelcontextprotocol/sdk/types.js');
  /** tools/call with any params object: the name and arguments are checked by the handler (callTool). */
  lenientCallTool: ReturnType<typeof import('@modelcontextprotocol/sdk/types.js').RequestSchema.extend>;
};
let loadedSdk: Sdk | undefined;

/**
 * The SDK, loaded when the first session opens: a process that serves no MCP client never loads it (docs/operations.md,
 * Footprint), and the first session of one that does waits for it once.
 */
function sdk(): Sdk {
  if (!loadedSdk) {
    const types = require('@modelcontextprotocol/sdk/types.js') as Sdk['types'];
    loadedSdk = {
      Server: (require('@modelcontextprotocol/sdk/server/index.js') as typeof import('@modelcontextprotocol/sdk/server/index.js')).Server,
      StreamableHTTPServerTransport: (
        require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')
      ).StreamableHTTPServerTransport,
      Protocol: (require('@modelcontextprotocol/sdk/shared/protocol.js') as typeof import('@modelcontextprotocol/sdk/shared/protocol.js')).Protocol,
      types,
      lenientCallTool: types.RequestSchema.extend({ method: types.CallToolRequestSchema.shape.method }),
    };
  }
  return loadedSdk;
}

const INSTRUCTIONS =
  'The Agent Capability Marketplace: find capabilities and the providers that offer them, and execute them with automatic ' +
  'routing and fallback. Discovery tools work without a key. Everything done as an agent (executing, keys, services, tasks, ' +
  'memory, orchestration) needs the agent\'s master key as "Authorization: Bearer key_master_…" on the MCP connection: ' +
  'registerAgent says how to get one.';

export class McpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly byName: Map<string, CompiledTool>;
  private readonly sweep: NodeJS.Timeout;
  /** Each toolset's tools, by name (every tool checked to name a known toolset, the default 25). */
  readonly toolsets: Map<string, string[]>;

  constructor(
    private readonly services: Services,
    private readonly tools: CompiledTool[],
    private readonly resources: CatalogResources,
    /** The first-party capabilities as tools, offered as this instance serves them. */
    private readonly capabilityTools?: CapabilityTools,
  ) {
    this.byName = new Map(tools.map((t) => [t.spec.name, t]));
    this.toolsets = groupTools([
      ...tools.map((t) => ({ name: t.spec.name, toolset: t.spec.toolset })),
      ...(capabilityTools?.offered(services).map((t) => ({ name: t.definition.name, toolset: t.toolset })) ?? []),
    ]);
    this.sweep = setInterval(() => this.closeIdle(), 60_000).unref();
  }

  /** Answers the request when it is for /mcp (or a toolset's /mcp/x/…); returns false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, requestId: string): boolean {
    const url = req.url ?? '/';
    const pathname = url.split('?')[0];
    if (!isMcpPath(pathname, MCP_PATH)) return false;
    void this.serve(req, res, requestId).catch((err) => {
      this.services.log.error({ err, request_id: requestId }, 'mcp request failed');
      if (!res.headersSent) jsonRpcError(res, 500, INTERNAL_ERROR, 'Internal error');
      else res.end();
    });
    return true;
  }

  /** Sessions open on this instance (for tests and metrics). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Ends every session (their event streams close); at shutdown. */
  async close(): Promise<void> {
    clearInterval(this.sweep);
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.transport.close().catch(() => {})));
  }

  private async serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    // DNS rebinding (the transport's security rules): a browser page may only reach us from our own
    // origin or loopback. Clients that are not browsers send no Origin.
    const origin = req.headers.origin;
    if (origin !== undefined && !this.originAllowed(origin)) {
      jsonRpcError(res, 403, -32000, `Origin ${origin} is not allowed: use ${this.ownOrigin()} or a loopback origin`);
      return;
    }
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      res.setHeader('Allow', 'GET, POST, DELETE');
      jsonRpcError(res, 405, -32000, `${req.method} is not allowed on ${MCP_PATH}; use GET, POST or DELETE`);
      return;
    }
    const sessionId = header(req, 'mcp-session-id');
    let session: Session | undefined;
    if (sessionId !== undefined) {
      session = this.sessions.get(sessionId);
      if (!session) {
        // Unknown here: ended, idle too long, or opened on another instance. The client starts a new one.
        jsonRpcError(res, 404, -32001, 'Session not found: initialize a new session');
        return;
      }
    } else if (req.method !== 'POST') {
      jsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return;
    } else {
      let toolsets: ToolsetSelection;
      try {
        toolsets = askedToolsets(req.url ?? MCP_PATH, MCP_PATH);
      } catch (err) {
        if (!(err instanceof UnknownToolset)) throw err;
        jsonRpcError(res, 400, -32000, err.message);
        return;
      }
      if (this.sessions.size >= MAX_SESSIONS) this.closeIdle(true);
      // A session is held until it ends or idles out: it takes a connection slot of its caller.
      const caller = createContext(this.services, {
        authorization: req.headers.authorization,
        requestId,
        clientAddress: clientAddress(req, this.services.config.trustProxy),
      });
      let release: () => void;
      try {
        release = this.services.connectionSlots.take(await rateSubject(caller));
      } catch (err) {
        const problem = problemFromError(this.services.config.publicBaseUrl, err, requestId);
        res.setHeader('Retry-After', '5');
        jsonRpcError(res, problem.status, -32000, problem.detail);
        return;
      }
      session = await this.open(requestId, release, toolsets);
    }
    session.lastSeen = Date.now();
    // What the messages of this request run as: its credential, its address, its request id. The SDK hands
    // this to the handlers of the messages the request carries (`extra.authInfo`).
    const facts: RequestFacts = {
      authorization: req.headers.authorization,
      clientAddress: clientAddress(req, this.services.config.trustProxy),
      requestId,
      response: factsOf(res),
    };
    const withFacts = Object.assign(req, { auth: { token: String(req.headers.authorization ?? ''), clientId: 'bearer', scopes: [], extra: { facts } } });
    await session.transport.handleRequest(withFacts, res);
    // A POST without a session that did not initialize one (the transport refused it) leaves nothing open.
    if (sessionId === undefined && session.transport.sessionId === undefined) await session.transport.close().catch(() => {});
  }

  private ownOrigin(): string {
    return new URL(this.services.config.publicBaseUrl).origin;
  }

  private originAllowed(origin: string): boolean {
    if (origin === this.ownOrigin()) return true;
    try {
      const host = new URL(origin).hostname;
      return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost');
    } catch {
      return false;
    }
  }

  private async open(requestId: string, release: () => void, toolsets: ToolsetSelection): Promise<Session> {
    const { Server, StreamableHTTPServerTransport, Protocol, types, lenientCallTool } = sdk();
    const { ListToolsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ReadResourceRequestSchema } = types;
    const instructions = `${INSTRUCTIONS} ${toolsetInstructions(`${this.services.config.publicBaseUrl}${MCP_PATH}`, this.toolsets, toolsets)}`;
    const server = new Server(
      { name: 'agent-capability-marketplace', title: 'Agent Capability Marketplace', version: VERSION },
      { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions },
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (id) => void this.sessions.set(id, session),
      onsessionclosed: (id) => {
        this.sessions.delete(id);
        release();
      },
    });
    const session: Session = { transport, server, lastSeen: Date.now(), toolsets };
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
      release();
    };
    transport.onerror = (err) => this.services.log.debug({ err, request_id: requestId }, 'mcp transport');

    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        ...this.tools.filter((t) => serves(toolsets, t.spec.toolset!)).map((t) => t.definition),
        ...(this.capabilityTools
          ?.offered(this.services)
          .filter((t) => serves(toolsets, t.toolset))
          .map((t) => t.definition) ?? []),
      ],
    }));
    // Registered past the SDK's Server, whose own check of tools/call answers arguments of the wrong shape
    // with a dump of its schema validator's findings: the arguments are ours to check, and a refusal says
    // which argument, as the tool names it.
    const callTool = async (
      request: { params: { name?: unknown; arguments?: unknown; _meta?: unknown } },
      extra: { authInfo?: AuthInfo },
    ): Promise<CallToolResult> => {
      const name = request.params.name;
      const tool = typeof name === 'string' ? this.byName.get(name) : undefined;
      const capability = tool === undefined && typeof name === 'string' ? this.capabilityTools?.find(name, this.services) : undefined;
      const toolset = tool ? tool.spec.toolset! : capability?.toolset;
      if (toolset === undefined) throw invalidParams(typeof name === 'string' ? `Unknown tool: ${name}` : 'Invalid params: name must be a tool name');
      if (!serves(toolsets, toolset)) {
        throw invalidParams(
          `Tool ${String(name)} is in the toolset ${toolset}, which this session did not ask for: connect to ${MCP_PATH}?toolsets=${toolset} (or ${MCP_PATH}/x/${toolset})`,
        );
      }
      if (!tool) return capabilityResult(await this.capabilityTools!.run(capability!, this.context(extra.authInfo), request.params.arguments ?? {}));
      // x402's MCP transport: a payment rides in the call's `_meta`.
      const meta = request.params._meta;
      const payment =
        typeof meta === 'object' && meta !== null && X402_PAYMENT_META in meta ? { payment: (meta as Record<string, unknown>)[X402_PAYMENT_META] } : undefined;
      const answer = await runTool(tool, this.context(extra.authInfo), request.params.arguments ?? {}, payment);
      if (answer.ok) return toolResult(answer.value, answer.settlement ? { [X402_PAYMENT_RESPONSE_META]: answer.settlement } : undefined);
      return refusal(answer.problem, tool.spec.name);
    };
    Protocol.prototype.setRequestHandler.call(server, lenientCallTool, callTool as never);
    server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => this.resources.list(this.context(extra.authInfo), request.params?.cursor));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: this.resources.templates() }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => this.resources.read(this.context(extra.authInfo), request.params.uri));
    await server.connect(transport);
    return session;
  }

  /** A request context for one MCP message, from the HTTP request that carried it. */
  private context(auth: AuthInfo | undefined): Ctx {
    const facts = auth?.extra?.facts as RequestFacts | undefined;
    return createContext(this.services, facts ?? { authorization: undefined, requestId: `req_${randomUUID().replace(/-/g, '')}`, clientAddress: '' });
  }

  private closeIdle(force = false): void {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, session] of this.sessions) {
      if (force || session.lastSeen < cutoff) {
        this.sessions.delete(id);
        void session.transport.close().catch(() => {});
        if (force && this.sessions.size < MAX_SESSIONS * 0.9) break;
      }
    }
  }
}

/**
 * What a tool answered: the object as structured content, and the same as text for clients that read text;
 * `meta` says more about the call (the x402 settlement of a paid call, the execution behind a capability).
 */
function toolResult(value: Record<string, unknown>, meta?: Record<string, unknown>): CallToolResult {
  return { structuredContent: value, content: [{ type: 'text', text: JSON.stringify(value) }], ...(meta ? { _meta: meta } : {}) };
}

/**
 * A problem as MCP answers it: arguments the tool refuses are invalid params (JSON-RPC -32602, thrown), with
 * the problem as data; what the call found (not found, payment required, a conflict) is the tool's answer.
 */
function refusal(problem: Problem, toolName: string): CallToolResult {
  if (problem.code === 'validation_failed' || problem.code === 'bad_request') throw invalidParams(`Invalid params: ${problem.detail}`, problem);
  if (problem.status === 402 && Array.isArray(problem.accepts)) return paymentRequired(problem, toolName);
  return toolError(problem);
}

/**
 * A paid call nothing paid, as x402's MCP transport has it: the PaymentRequired as structured content (the
 * tool's output schema admits it) and as the first text, which is REST's 402 body (the problem with the
 * x402 members) so one JSON object serves x402 clients and problem readers alike. The resource is the tool.
 */
function paymentRequired(problem: Problem, toolName: string): CallToolResult {
  const given = (problem.resource ?? {}) as Record<string, unknown>;
  const resource = { ...given, url: `mcp://tool/${toolName}`, mimeType: 'application/json' };
  const required = {
    x402Version: problem.x402Version,
    error: typeof problem.error === 'string' ? problem.error : problem.detail,
    resource,
    accepts: problem.accepts,
  };
  return { isError: true, structuredContent: required, content: [{ type: 'text', text: JSON.stringify({ ...required, ...problem, resource }) }] };
}

/** A capability tool's answer: the capability's output, its failed execution, or the problem that refused it. */
function capabilityResult(answer: CapabilityAnswer): CallToolResult {
  if (answer.kind === 'output') return toolResult(answer.output, { [EXECUTION_META]: answer.execution });
  if (answer.kind === 'failed') {
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(answer.execution) }], _meta: { [EXECUTION_META]: answer.execution } };
  }
  return refusal(answer.problem, '');
}

/** A refusal: the problem REST would answer, as JSON text (code, detail, and which fields were wrong). */
function toolError(problem: Problem): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }] };
}

/** JSON-RPC's -32602 as the SDK sends a thrown error's code, message and data (McpError would prefix the message). */
function invalidParams(message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code: INVALID_PARAMS, data });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}
