// The REST surface: each route's document is compiled (src/pipeline/compile.ts) and every request runs it
// through the pipeline, in-process on the same schema, resolvers and context as /graphql, its variables read
// from the path, query, headers and body in both spellings. Errors become problem+json (CONTRACT §4) with
// the request id. The dispatcher sits on node:http in front of Express, whose routing costs more than these
// routes' own work (docs/benchmarks.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { coerceInputValue, getNamedType, GraphQLError, GraphQLInputObjectType, isNonNullType, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import type { Services } from '../src/domain/context';
import { createContext, rateSubject } from '../src/domain/request-context';
import { compileOperation, fieldOf, type CompiledOperation } from '../src/pipeline/compile';
import { runOperation, type Charge, type Input } from '../src/pipeline/pipeline';
import { fieldError, Spelling } from '../src/pipeline/spelling';
import { BadRequest, codeOf, problem, problemFromError, ValidationFailed, type FieldError, type Problem } from '../src/platform/errors';
import {
  clientAddress,
  factsOf,
  jsonBytes,
  parseJsonBody,
  readBodyText,
  refuseUpgrade,
  writeError,
  writeJson,
  writeProblem,
  writeText,
} from '../src/platform/http';
import { readIdempotencyKey, requestHash, type Keeping } from '../src/platform/idempotency';
import { textProblem } from '../src/platform/input-boundary';
import { otherSpelling } from '../src/platform/naming';
import type { AnswerMeta, Route, Source } from './route';
import { StreamBridge } from './streams';

export interface CompiledRoute extends CompiledOperation {
  route: Route;
  paths: string[];
  variables: { name: string; type: GraphQLInputType; source: Source }[];
  /** Whether any variable is read from the JSON body. */
  hasBody: boolean;
  /**
   * What the JSON body is read as: the input type of a `body` variable, or an input object of the
   * route's `bodyField` variables. Its fields are read in both spellings (spelling.ts).
   */
  bodyType?: GraphQLInputType;
  /** A creating POST: it honours Idempotency-Key (CONTRACT §8). */
  idempotent: boolean;
  /** `POST /keys/provision/:serviceKey`: for metrics, usage and idempotency records. */
  label: string;
  /**
   * A cacheable route none of whose variables comes from a header: its variables are a function of the
   * request's URL and body text alone, so a kept answer can be found by them before they are read.
   */
  keptByRequest: boolean;
  /** The rate bucket it spends, as the pipeline takes it. */
  charges: readonly Charge[];
}

export function compileRoutes(schema: GraphQLSchema, routes: Route[]): CompiledRoute[] {
  return routes.map((route) => {
    const paths = Array.isArray(route.path) ? route.path : [route.path];
    const label = `${route.method} ${paths[0]}`;
    const op = compileOperation(schema, `route ${label}`, route.document);
    if (op.stream && route.method !== 'GET') throw new Error(`route ${label}: a subscription (an SSE stream) is served on GET`);
    // No read changes state: a GET (and the HEAD answered by it) runs a query or a stream, never a mutation.
    if (route.method === 'GET' && op.operation.operation === 'mutation') throw new Error(`route ${label}: a GET runs a query, not a mutation`);
    if (route.cacheable && (op.operation.operation !== 'query' || route.produces)) {
      throw new Error(`route ${label}: only a query answering JSON can keep its answers`);
    }
    if (route.produces && getNamedType(fieldOf(schema, op).type).name !== 'String') {
      throw new Error(`route ${label}: a route that produces ${route.produces} answers a String root field`);
    }
    const variables = op.variableTypes.map(({ name, type }) => {
      const source = route.variables?.[name];
      if (!source) throw new Error(`route ${label}: variable $${name} has no source`);
      if (source.from === 'path' && !paths.every((p) => p.includes(`:${source.name}`))) {
        throw new Error(`route ${label}: path parameter :${source.name} is not in the path`);
      }
      return { name, type, source };
    });
    for (const name of Object.keys(route.variables ?? {})) {
      if (!variables.some((v) => v.name === name)) throw new Error(`route ${label}: $${name} is mapped but not declared`);
    }
    return {
      ...op,
      rootIsObject: op.rootIsObject && !route.keyed,
      route,
      paths,
      variables,
      hasBody: variables.some((v) => v.source.from === 'body' || v.source.from === 'bodyField'),
      bodyType: bodyTypeOf(label, variables),
      idempotent: route.method === 'POST' && op.operation.operation === 'mutation',
      label,
      keptByRequest: route.cacheable === true && !variables.some((v) => v.source.from === 'header'),
      charges: route.bucket ? [{ bucket: route.bucket, points: 1 }] : [],
    };
  });
}

/** A query-string value read as the variable's scalar type. */
function fromQueryString(raw: string, type: GraphQLInputType): unknown {
  const named = getNamedType(type).name;
  if (named === 'Int') return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (named === 'Float') return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  if (named === 'Boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

/** What a route's variables are read from. */
export interface RestRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  header(name: string): string | undefined;
}

/**
 * The route's variables from the request. Body fields (at any depth) and query parameters are read in
 * both spellings; every refusal names the field as the client spelled it. Returns the spelling too, for
 * naming the fields of the operation's own validation errors.
 */
export function readVariables(compiled: CompiledRoute, req: RestRequest): { values: Record<string, unknown>; spelling: Spelling } {
  const values: Record<string, unknown> = {};
  const spelling = new Spelling();
  const errors: FieldError[] = [];
  let body: Record<string, unknown> | undefined;
  if (compiled.bodyType) {
    const raw = req.body ?? {};
    if (typeof raw !== 'object' || Array.isArray(raw) || raw === null) throw new BadRequest('The request body must be a JSON object');
    body = spelling.read(raw, compiled.bodyType) as Record<string, unknown>;
    errors.push(...spelling.errors);
    coerceInputValue(body, compiled.bodyType, (path, _value, error) => {
      const e = fieldError(path, error, '');
      errors.push({ ...e, path: spelling.clientPath(e.path, compiled.bodyType) });
    });
  }
  for (const { name, type, source } of compiled.variables) {
    let raw: unknown;
    switch (source.from) {
      case 'body':
        values[name] = body;
        continue;
      case 'bodyField':
        if (body?.[source.name] !== undefined) values[name] = body[source.name];
        continue;
      case 'path':
        raw = req.params[source.name];
        spelling.note(name, source.name);
        break;
      case 'query': {
        const other = otherSpelling(source.name);
        const given = req.query.getAll(source.name);
        const alsoGiven = other === source.name ? [] : req.query.getAll(other);
        spelling.note(name, given.length || !alsoGiven.length ? source.name : other);
        if (given.length > 1 || alsoGiven.length > 1) {
          errors.push({ path: given.length > 1 ? source.name : other, message: 'must be given once' });
          continue;
        }
        if (given.length && alsoGiven.length && given[0] !== alsoGiven[0]) {
          errors.push({ path: other, message: `is given twice, as ${source.name} and ${other}, with different values` });
          continue;
        }
        const value = given[0] ?? alsoGiven[0];
        raw = value === undefined ? undefined : fromQueryString(value, type);
        break;
      }
      case 'header': {
        const value = req.header(source.name);
        raw = value === undefined ? undefined : fromQueryString(value, type);
        spelling.note(name, source.name);
        break;
      }
    }
    const client = spelling.clientPath(name, undefined);
    if (raw === undefined) {
      if (isNonNullType(type)) errors.push({ path: client, message: 'is required' });
      continue;
    }
    coerceInputValue(raw, type, (path, _value, error) => errors.push(fieldError(path, error, client)));
    values[name] = raw;
  }
  if (errors.length) throw new ValidationFailed(errors);
  return { values, spelling };
}

/**
 * What identifies a request for Idempotency-Key: its path, query and body. Headers are not part of it: a
 * retry may carry another PAYMENT-SIGNATURE (it is answered with the first answer, and not charged).
 */
function requestOf(compiled: CompiledRoute, values: Record<string, unknown>): Record<string, unknown> {
  const headerVariables = compiled.variables.filter((v) => v.source.from === 'header');
  if (!headerVariables.length) return values;
  const rest = { ...values };
  for (const v of headerVariables) delete rest[v.name];
  return rest;
}

/** The route's JSON body as one input type: its `body` variable's, or an object of its `bodyField`s. */
function bodyTypeOf(label: string, variables: CompiledRoute['variables']): GraphQLInputType | undefined {
  const whole = variables.filter((v) => v.source.from === 'body');
  const fields = variables.filter((v) => v.source.from === 'bodyField');
  if (whole.length > 1 || (whole.length && fields.length)) throw new Error(`route ${label}: the body is one variable, or named fields`);
  if (whole.length) return whole[0].type;
  if (!fields.length) return undefined;
  return new GraphQLInputObjectType({
    name: `${label.replace(/[^A-Za-z0-9]+/g, '_')}_Body`,
    fields: Object.fromEntries(fields.map((v) => [(v.source as { name: string }).name, { type: v.type }])),
  });
}

/** A validation error from the operation, with its field paths named as the client spelled them. */
function clientNames(err: GraphQLError, compiled: CompiledRoute, spelling: Spelling): unknown {
  const original = err.originalError;
  if (!(original instanceof ValidationFailed)) return err;
  return new ValidationFailed(original.errors.map((e) => ({ ...e, path: spelling.clientPath(e.path, compiled.bodyType) })));
}

/**
 * The longest body text that a kept answer is also found by (resolve's are about 100 characters); a
 * longer one is read and its variables looked up as usual, rather than kept as a key of its size.
 */
const ASKED_KEY_MAX = 2048;

/** An answer's headers as an idempotent replay gives them again: all but its timing. */
function kept(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers?.['Server-Timing']) return headers;
  const { 'Server-Timing': _timing, ...rest } = headers;
  return rest;
}

/** A request without a query string (read only: nothing adds to it). */
const NO_QUERY = new URLSearchParams();
/** The spelling of a route without variables: nothing to name (read only: nothing notes into it). */
const NO_SPELLING = new Spelling();

/** What the REST surface answers: a payload (or its kept bytes) with its status, or a stream already served. */
interface RestAnswer {
  status: number;
  payload?: unknown;
  /** The answer's bytes, as kept for a cacheable read. */
  kept?: Buffer;
  /** The status and headers the route reads from the payload, or an idempotent replay's. */
  meta?: AnswerMeta;
  /** An idempotent replay: the first answer, counted once. */
  replayed?: true;
}

/** A stream route's answer: the stream is served. */
const STREAMED = { status: 200 } as RestAnswer;

/** A request header's value, repeated ones joined. */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** The input boundary for path and query parameters: text the database can store. */
function checkParameters(params: Record<string, string>, query: URLSearchParams): void {
  const errors: FieldError[] = [];
  for (const name in params) {
    const problem = textProblem(params[name]);
    if (problem) errors.push({ path: name, message: problem });
  }
  if (query !== NO_QUERY) {
    for (const [name, value] of query) {
      const problem = textProblem(value) ?? textProblem(name);
      if (problem) errors.push({ path: name.replace(/[\u0000\ud800-\udfff]/g, '?'), message: problem });
    }
  }
  if (errors.length) throw new ValidationFailed(errors);
}

type Segment = string | { param: string };

interface PathEntry {
  pattern: string;
  /** The pattern under the prefix, as metrics name the route. */
  route: string;
  segments: Segment[];
  methods: Map<string, CompiledRoute>;
}

function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}

export interface DispatchResult {
  /** The route pattern, for metrics (`/api/v1/agents/me`), or 'unmatched'. */
  route: string;
}

/**
 * The REST surface: every compiled route under `prefix`, 405 with Allow for a known path and another
 * method, 404 for an unknown path, plus static documents (the OpenAPI description).
 */
export class RestDispatcher {
  private readonly staticPaths = new Map<string, PathEntry>();
  private readonly paramPaths: PathEntry[] = [];

  constructor(
    compiled: CompiledRoute[],
    private readonly services: Services,
    private readonly prefix: string,
    private readonly documents: Record<string, () => unknown> = {},
    /** Paths also answered outside the prefix (load balancers probe /health at the root). */
    private readonly rootAliases: string[] = [],
    /** Serves the routes whose document is a subscription (SSE, or WebSocket on upgrade). */
    readonly streams?: StreamBridge,
  ) {
    for (const c of compiled) {
      for (const path of c.paths) {
        const segments: Segment[] = splitPath(path).map((s) => (s.startsWith(':') ? { param: s.slice(1) } : s));
        const isStatic = segments.every((s) => typeof s === 'string');
        let entry = isStatic ? this.staticPaths.get(path) : this.paramPaths.find((e) => e.pattern === path);
        if (!entry) {
          entry = { pattern: path, route: `${prefix}${path}`, segments, methods: new Map() };
          if (isStatic) this.staticPaths.set(path, entry);
          else this.paramPaths.push(entry);
        }
        if (entry.methods.has(c.route.method)) throw new Error(`duplicate route ${c.route.method} ${path}`);
        entry.methods.set(c.route.method, c);
      }
    }
    for (const entry of [...this.staticPaths.values(), ...this.paramPaths]) {
      const header = entry.methods.get('GET')?.route.paidWith;
      const post = entry.methods.get('POST');
      if (header && !post?.variables.some((v) => v.source.from === 'header' && v.source.name.toLowerCase() === header.toLowerCase())) {
        throw new Error(`route GET ${entry.pattern}: paid with ${header}, but no POST route of the path reads it`);
      }
    }
  }

  private match(path: string): { entry: PathEntry; params: Record<string, string> } | undefined {
    const exact = this.staticPaths.get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);
    if (exact) return { entry: exact, params: {} };
    const parts = splitPath(path);
    for (const entry of this.paramPaths) {
      if (entry.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = entry.segments[i];
        if (typeof seg === 'string') ok = seg === parts[i];
        else {
          try {
            params[seg.param] = decodeURIComponent(parts[i]);
          } catch {
            ok = false;
          }
          ok &&= params[seg.param] !== '';
        }
      }
      if (ok) return { entry, params };
    }
    return undefined;
  }

  /** Answers the request when its path belongs to the REST surface; returns undefined otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, requestId: string): DispatchResult | undefined {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q === -1 ? url : url.slice(0, q);
    let relative: string;
    if (pathname.startsWith(this.prefix) && pathname.charCodeAt(this.prefix.length) === 47 /* / */) relative = pathname.slice(this.prefix.length);
    else if (this.rootAliases.includes(pathname)) relative = pathname;
    else return undefined;

    const base = this.services.config.publicBaseUrl;
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const document = this.documents[relative];
    if (document && method === 'GET') {
      writeJson(res, 200, document());
      return { route: pathname };
    }
    const found = this.match(relative);
    if (!found) {
      writeProblem(res, problem(base, 'not_found', `No route ${req.method} ${pathname}`, requestId));
      return { route: 'unmatched' };
    }
    let compiled = found.entry.methods.get(method);
    const paidWith = req.method === 'GET' ? compiled?.route.paidWith : undefined;
    if (paidWith && req.headers[paidWith.toLowerCase()] !== undefined) compiled = found.entry.methods.get('POST');
    const route = found.entry.route;
    if (!compiled) {
      const allowed = [...found.entry.methods.keys()];
      if (allowed.includes('GET')) allowed.push('HEAD');
      writeProblem(res, problem(base, 'bad_request', `${req.method} is not allowed on ${pathname}; use ${allowed.join(', ')}`, requestId, {}, 405), {
        Allow: allowed.join(', '),
      });
      return { route };
    }
    void this.run(compiled, req, res, requestId, found.params, q === -1 ? '' : url.slice(q + 1));
    return { route };
  }

  private async run(compiled: CompiledRoute, req: IncomingMessage, res: ServerResponse, requestId: string, params: Record<string, string>, search: string) {
    const { services } = this;
    const { route } = compiled;
    const ctx = createContext(services, {
      authorization: req.headers.authorization,
      requestId,
      clientAddress: clientAddress(req, services.config.trustProxy),
      response: factsOf(res),
    });
    const headers: Record<string, string> = {};
    let claimed: { subject: string; key: string; keeping: Keeping } | undefined;
    let idempotencyKey: string | undefined;
    let spelling = NO_SPELLING;
    let asked: string | undefined;
    const readInput = (bodyText: string | undefined): Input<RestAnswer> => {
      // A cacheable route's answer kept for this very request (URL and body text), found before its body is
      // parsed and its variables read: what that reading would give (the same variables, the same checks
      // passed) is what the kept answer was made from. A kept answer is its bytes, as sent (jsonBytes).
      asked =
        compiled.keptByRequest && (bodyText === undefined || bodyText.length <= ASKED_KEY_MAX) ? `${compiled.label}\n${req.url}\n${bodyText ?? ''}` : undefined;
      const kept = asked === undefined ? undefined : (services.readCache.peek(asked) as Buffer | undefined);
      if (kept !== undefined) return { kept: { status: route.status, kept } };
      const body = compiled.hasBody ? parseJsonBody(bodyText) : undefined;
      const query = search === '' ? NO_QUERY : new URLSearchParams(search);
      checkParameters(params, query);
      if (!compiled.variables.length) return { variables: {} };
      const read = readVariables(compiled, { params, query, body, header: (name) => headerOf(req, name) });
      spelling = read.spelling;
      return { variables: read.values };
    };
    try {
      const answer = await runOperation<RestAnswer>({
        surface: 'rest',
        ctx,
        label: compiled.label,
        charges: compiled.charges,
        auth: route.auth,
        headers,
        read: () => {
          idempotencyKey = compiled.idempotent ? readIdempotencyKey(req.headers['idempotency-key']) : undefined;
          // A request without a body is read at once, with no turn of the event loop.
          return compiled.hasBody ? readBodyText(req, res).then(readInput) : readInput(undefined);
        },
        cost: compiled.costProblem,
        run: async (variables): Promise<RestAnswer> => {
          if (compiled.stream) {
            const frames = await this.streams!.subscribe(compiled, ctx, variables);
            if ('problem' in frames) throw frames.problem;
            // HEAD learns what GET would answer (the subscription opened, so its checks ran) without a stream.
            if (req.method === 'HEAD') {
              frames.stop();
              res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream; charset=utf-8' }).end();
            } else this.streams!.serveSse(frames, req, res, headers);
            return STREAMED;
          }
          if (idempotencyKey) {
            const subject = await rateSubject(ctx);
            // Kept sealed with the caller's credential; an issued credential is not kept for a caller without one.
            const keeping =
              subject.startsWith('key:') && ctx.bearer.kind === 'key' ? { sealWith: ctx.bearer.secret } : { withhold: route.issuesCredential === true };
            const claim = await services.idempotency.claim(
              subject,
              idempotencyKey,
              compiled.label,
              requestHash(compiled.label, [requestOf(compiled, variables)]),
              keeping,
            );
            if (claim.kind === 'replay')
              return { status: claim.status, payload: claim.body, meta: { headers: { ...claim.headers, 'Idempotent-Replayed': 'true' } }, replayed: true };
            claimed = { subject, key: idempotencyKey, keeping };
          }
          // A listing's or ranking's answer kept a moment ago for the same variables (Route.cacheable), found
          // in one lookup that also makes it this request's text's answer from now on, until it expires under
          // its variables.
          const keptUnder = route.cacheable ? `${compiled.label}\n${JSON.stringify(variables)}` : undefined;
          const kept = keptUnder === undefined ? undefined : (services.readCache.peek(keptUnder, asked) as Buffer | undefined);
          if (kept !== undefined) return { status: route.status, kept };
          const since = performance.now();
          const result = await compiled.execute(undefined, ctx, variables);
          if (result.errors?.length) {
            const first = result.errors[0];
            if (codeOf(first) === 'internal')
              services.log.error({ err: first.originalError ?? first, request_id: requestId, path: first.path }, 'resolver failed');
            const problem = problemFromError(services.config.publicBaseUrl, clientNames(first, compiled, spelling), requestId);
            // Headers an error asks for (GraphQL over HTTP's extensions.http.headers): a cooldown's Retry-After.
            const errorHeaders = (first.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers;
            return { status: problem.status, payload: problem, ...(errorHeaders ? { meta: { headers: errorHeaders } } : {}) };
          }
          const data = result.data as Record<string, unknown>;
          const payload = compiled.rootIsObject || route.produces ? data[compiled.rootKey] : data;
          const meta = route.answer?.(payload);
          if (keptUnder !== undefined && !meta) {
            const bytes = jsonBytes(payload);
            services.readCache.keep(keptUnder, bytes, since);
            if (asked !== undefined) services.readCache.keep(asked, bytes, since);
            return { status: route.status, kept: bytes };
          }
          return { status: meta?.status ?? route.status, payload, meta };
        },
      });
      if (answer === STREAMED) return;
      if (answer.meta?.headers) Object.assign(headers, answer.meta.headers);
      // A replay answers what was answered, but not how long it took then (Server-Timing is each answer's own).
      if (claimed)
        await services.idempotency.complete(claimed.subject, claimed.key, answer.status, answer.payload, kept(answer.meta?.headers), claimed.keeping);
      if (answer.kept !== undefined) writeText(res, answer.status, answer.kept, headers);
      else this.answer(res, answer.status, answer.payload, headers, route.produces);
      const caller = ctx.resolvedPrincipal;
      if (answer.status < 400 && !answer.replayed && caller?.kind === 'agent' && req.method !== 'HEAD')
        services.usage.record(caller.agent.id, compiled.label, services.clock.now());
    } catch (err) {
      if (claimed) await services.idempotency.release(claimed.subject, claimed.key).catch(() => {});
      const problem = writeError(res, services.config.publicBaseUrl, err, requestId, headers);
      if (problem.code === 'internal') services.log.error({ err, request_id: requestId }, 'request failed');
    }
  }

  /**
   * A WebSocket upgrade of a stream route (a `websocket` streaming session's eventEndpoint): the same
   * pipeline, variables and subscription as its SSE form. Answers false for other paths.
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, requestId: string): boolean {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q === -1 ? url : url.slice(0, q);
    if (!pathname.startsWith(`${this.prefix}/`)) return false;
    const found = this.match(pathname.slice(this.prefix.length));
    const compiled = found?.entry.methods.get('GET');
    if (!found || !compiled?.stream || !this.streams) return false;
    const { services } = this;
    const ctx = createContext(services, { authorization: req.headers.authorization, requestId, clientAddress: clientAddress(req, services.config.trustProxy) });
    const headers: Record<string, string> = {};
    const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
    runOperation({
      surface: 'rest-websocket',
      ctx,
      label: compiled.label,
      charges: compiled.charges,
      auth: compiled.route.auth,
      headers,
      read: () => {
        checkParameters(found.params, query);
        // A WebSocket client resumes with ?after=<id> (it cannot always set headers).
        const header = (name: string) => headerOf(req, name) ?? (name.toLowerCase() === 'last-event-id' ? (query.get('after') ?? undefined) : undefined);
        return { variables: readVariables(compiled, { params: found.params, query, body: undefined, header }).values };
      },
      cost: compiled.costProblem,
      run: async (variables) => {
        const frames = await this.streams!.subscribe(compiled, ctx, variables);
        if ('problem' in frames) throw frames.problem;
        this.streams!.serveWebSocket(frames, req, socket, head);
      },
    }).catch((err: unknown) => refuseUpgrade(socket, problemFromError(services.config.publicBaseUrl, err, requestId), headers));
    return true;
  }

  /** A success as JSON (or the route's media type), an error as problem+json (a report answered with a 5xx stays JSON). */
  private answer(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string>, produces?: string) {
    if (status >= 400 && (payload as Problem | null)?.code !== undefined) writeProblem(res, payload as Problem, headers);
    else if (produces && typeof payload === 'string') writeText(res, status, payload, headers, `${produces}; charset=utf-8`);
    else writeJson(res, status, payload, headers);
  }
}
