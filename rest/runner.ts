// Runs the route tables: each document is parsed once at start-up, and validated and compiled once at its
// first run; every request runs it in-process on the same schema, resolvers and context as /graphql. Errors
// become problem+json (CONTRACT §4) with the request id. The dispatcher sits on node:http in front of Express:
// Express alone would cost most of the throughput budget of these routes (see README, Benchmarks).
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  coerceInputValue,
  createSourceEventStream,
  getNamedType,
  getNullableType,
  GraphQLError,
  GraphQLInputObjectType,
  isListType,
  isLeafType,
  isNonNullType,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { authorize } from '../schema/auth';
import { costLimitsFor, MAX_TOKENS, variablesProblem } from '../schema/operation-gate';
import { costProblem, measureOperation, type OperationCost } from '../src/platform/operation-cost';
import type { Ctx, Services } from '../src/domain/context';
import { createContext, rateSubject } from '../src/domain/request-context';
import { AppError, BadRequest, codeOf, problem, problemFromError, RateLimited, ValidationFailed, type FieldError, type Problem } from '../src/platform/errors';
import { clientAddress, jsonBytes, parseJsonBody, readBodyText, refuseUpgrade, writeError, writeJson, writeProblem, writeText } from '../src/platform/http';
import { readIdempotencyKey, requestHash, type Keeping } from '../src/platform/idempotency';
import { textProblem } from '../src/platform/input-boundary';
import type { Bucket, RateDecision } from '../src/platform/rate-limit';
import type { Route, Source } from './route';
import { otherSpelling } from '../src/platform/naming';
import { Spelling } from './spelling';
import { StreamBridge } from './streams';
import type { Duplex } from 'node:stream';

/** A GraphQL document of one operation with one root field, parsed once, validated and compiled once. */
export interface CompiledOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The response key of the one root field. */
  rootKey: string;
  rootField: string;
  /** Whether the root field is an object (its value is the answer) or a leaf or list (the data object is). */
  rootIsObject: boolean;
  /** The operation's variables and their types, in declaration order. */
  variableTypes: { name: string; type: GraphQLInputType }[];
  /** A subscription (a stream of results). */
  stream: boolean;
  /**
   * Runs the operation: its variables pass the gate's check (the input boundary, and the cost again when
   * a page size comes from a variable: schema/operation-gate.ts), then the document compiled to a function
   * once, on its first run (graphql-jit), runs: the same schema, resolvers and errors as graphql `execute`, without re-walking
   * the document per request. For a ten-match resolve answer (~200 fields) interpreting the document cost
   * more than every other part of the request in Node.
   */
  execute: CompiledQuery['query'];
  /** Validates and compiles the document now (a test's check that every document does; runs do on first use). */
  compile(): void;
  /** Validates and measures the document now (what its first run does before compiling it). */
  validate(): void;
  /** For a subscription: its source stream, after the same check of its variables. */
  subscribe(ctx: Ctx, variables: Record<string, unknown>): Promise<AsyncIterable<unknown> | ExecutionResult>;
}

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
}

/**
 * Leaves of the built-in scalars and of enums are answered as the resolvers give them. graphql-js's
 * serialization of such a leaf checks and converts what is already a string, number or boolean, and in
 * graphql-jit each call builds the leaf's path and argument arrays: for a ten-match resolve answer (about
 * 150 leaves) that was 17 KiB of garbage per request. What a resolver gives is already the answer's type
 * (the schema's types are the domain's, checked by TypeScript), every enum's values are their names (a
 * unit test holds the schema to it), and the custom scalars (DateTime, JSON) are still serialized.
 */
const JIT_OPTIONS = { disableLeafSerialization: true } as const;

/**
 * Parses, validates and compiles a document that must hold one operation selecting one root field (what
 * a REST route or an MCP tool runs); `label` names it in the start-up error that a bad document is.
 */
export function compileOperation(schema: GraphQLSchema, label: string, text: string): CompiledOperation {
  // The limits every document from outside is held to (schema/operation-gate.ts) hold for ours too.
  const document = parse(text, { maxTokens: MAX_TOKENS });
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  if (operations.length !== 1) throw new Error(`${label}: the document must hold exactly one operation`);
  const operation = operations[0];
  const fields = operation.selectionSet.selections;
  if (fields.length !== 1 || fields[0].kind !== 'Field') throw new Error(`${label}: the operation must select exactly one root field`);
  const root = fields[0];
  const rootType =
    operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  const fieldDef = rootType?.getFields()[root.name.value];
  if (!fieldDef) throw new Error(`${label}: unknown root field ${root.name.value}`);
  const variableTypes = (operation.variableDefinitions ?? []).map((def) => {
    const name = def.variable.name.value;
    const type = typeFromAST(schema, def.type as never) as GraphQLInputType | undefined;
    if (!type) throw new Error(`${label}: unknown type for $${name}`);
    return { name, type };
  });
  // Validated, measured and compiled on its first run, not here: a server starts with some 200 documents
  // of which a process serves a few. Validating them all took a third of a second of every start, and
  // compiling them all half a second and their code's memory. Every document is ours, and a test checks
  // that each one validates, keeps within the limits and compiles (test/unit/tools.test.ts).
  let cost: OperationCost | undefined;
  const checked = (): OperationCost => {
    if (cost) return cost;
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`${label}: invalid document: ${errors.map((e) => e.message).join('; ')}`);
    const limits = costLimitsFor(schema);
    const measured = measureOperation(schema, document, operation, limits);
    const overLimits = costProblem(measured, limits) ?? (measured.introspection ? 'it introspects' : undefined);
    if (overLimits) throw new Error(`${label}: over the limits of every document: ${overLimits}`);
    return (cost = measured);
  };
  let query: CompiledQuery['query'] | undefined;
  const compiled = (): CompiledQuery['query'] => {
    if (query) return query;
    checked();
    const jit = compileQuery(schema, document, undefined, JIT_OPTIONS);
    if (!isCompiledQuery(jit)) throw new Error(`${label}: cannot compile: ${jit.errors?.map((e) => e.message).join('; ')}`);
    query = jit.query.bind(jit);
    return query;
  };
  const refusal = (variables: Record<string, unknown> | null | undefined) => variablesProblem(schema, document, operation, checked(), variables);
  return {
    execute: (root, ctx, variables) => {
      const refused = refusal(variables);
      return refused ? { errors: [refused] } : compiled()(root, ctx, variables);
    },
    compile: () => void compiled(),
    validate: () => void checked(),
    subscribe: async (ctx, variables) => {
      const refused = refusal(variables);
      return refused ? { errors: [refused] } : createSourceEventStream({ schema, document, contextValue: ctx, variableValues: variables });
    },
    document,
    operation,
    rootKey: root.alias?.value ?? root.name.value,
    rootField: root.name.value,
    rootIsObject: !isLeafType(getNamedType(fieldDef.type)) && !isListType(getNullableType(fieldDef.type)),
    variableTypes,
    stream: operation.operation === 'subscription',
  };
}

/** The root field's type name on the schema: `Mutation.execute`, for buckets and descriptions. */
export function coordinateOf(compiled: CompiledOperation): string {
  const kind = compiled.operation.operation;
  return `${kind === 'mutation' ? 'Mutation' : kind === 'subscription' ? 'Subscription' : 'Query'}.${compiled.rootField}`;
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
    };
  });
}

/** The schema's definition of the operation's root field. */
export function fieldOf(schema: GraphQLSchema, op: CompiledOperation) {
  const kind = op.operation.operation;
  const rootType = kind === 'mutation' ? schema.getMutationType()! : kind === 'subscription' ? schema.getSubscriptionType()! : schema.getQueryType()!;
  return rootType.getFields()[op.rootField];
}

/** graphql-js's coercion messages, said the way a REST client reads them. */
export function fieldError(path: readonly (string | number)[], error: GraphQLError, prefix: string): FieldError {
  const join = (parts: readonly (string | number)[]) => [prefix, ...parts].filter((p) => p !== '').join('.');
  let m = /^Field "([^"]+)" of required type "([^"]+)" was not provided\.$/.exec(error.message);
  if (m) return { path: join([...path, m[1]]), message: 'is required' };
  m = /^Field "([^"]+)" is not defined by type "[^"]+"\./.exec(error.message);
  if (m) return { path: join([...path, m[1]]), message: 'is not a known field' };
  m = /^Expected non-nullable type "[^"]+" not to be null\.$/.exec(error.message);
  if (m) return { path: join(path), message: 'must not be null' };
  m = /^Expected type "([^"]+)"(?: to be an object)?\.$/.exec(error.message);
  if (m) return { path: join(path), message: `must be ${error.message.includes('object') ? 'an object' : `a ${m[1]}`}` };
  m = /^Value "([^"]*)" does not exist in "[^"]+" enum\./.exec(error.message);
  if (m) return { path: join(path), message: `"${m[1]}" is not one of the allowed values` };
  m = /^(String|Int|Float|Boolean|ID) cannot represent/.exec(error.message);
  if (m) {
    const kind = { String: 'a string', Int: 'an integer', Float: 'a number', Boolean: 'a boolean', ID: 'a string or integer identifier' }[m[1]];
    return { path: join(path), message: `must be ${kind}` };
  }
  return { path: join(path), message: error.message.replace(/\.$/, '') };
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

/** A request without a query string (read only: nothing adds to it). */
const NO_QUERY = new URLSearchParams();
/** The spelling of a route without variables: nothing to name (read only: nothing notes into it). */
const NO_SPELLING = new Spelling();

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

/**
 * Spends one request of a rate bucket for the caller (its key, or its address without one), puts the
 * rate-limit headers into `headers`, and throws 429 when the bucket is empty. REST routes, GraphQL fields
 * and MCP tools that share a bucket share its budget.
 */
export async function spendBucket(ctx: Ctx, bucket: Bucket | null, headers: Record<string, string> = {}): Promise<void> {
  if (!bucket) return;
  const known = rateSubject(ctx);
  const decision = await ctx.services.limiter.consume(bucket, typeof known === 'string' ? known : await known);
  Object.assign(headers, rateHeaders(decision));
  if (!decision.allowed) throw new RateLimited(decision.retryAfterSeconds);
}

export function rateHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.reset),
  };
  if (!decision.allowed) headers['Retry-After'] = String(decision.retryAfterSeconds);
  return headers;
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
    const ctx = createContext(services, { authorization: req.headers.authorization, requestId, clientAddress: clientAddress(req, services.config.trustProxy) });
    const headers: Record<string, string> = {};
    let claimed: { subject: string; key: string; keeping: Keeping } | undefined;
    try {
      await this.chargeBucket(ctx, compiled, headers);
      // An operation that authenticates the caller itself still gets it looked up first when an
      // Idempotency-Key is to be claimed: nothing is claimed for a caller that would be refused.
      if (!compiled.route.authInOperation || (compiled.idempotent && req.headers['idempotency-key'] !== undefined)) await authorize(ctx, compiled.route.auth);
      const idempotencyKey = compiled.idempotent ? readIdempotencyKey(req.headers['idempotency-key']) : undefined;
      const bodyText = compiled.hasBody ? await readBodyText(req, res) : undefined;
      // A cacheable route's answer kept for this very request (URL and body text), found before its body is
      // parsed and its variables read: what that reading would give (the same variables, the same checks
      // passed) is what the kept answer was made from. The rate limit and authentication above, and the
      // usage record below, run as for any request. A kept answer is its bytes, as sent (jsonBytes).
      const asked = compiled.keptByRequest && (bodyText === undefined || bodyText.length <= ASKED_KEY_MAX) ? `${compiled.label}\n${req.url}\n${bodyText ?? ''}` : undefined;
      let kept = asked === undefined ? undefined : (services.readCache.peek(asked) as Buffer | undefined);
      let status = compiled.route.status;
      let payload: unknown;
      if (kept === undefined) {
        const body = compiled.hasBody ? parseJsonBody(bodyText) : undefined;
        const query = search === '' ? NO_QUERY : new URLSearchParams(search);
        checkParameters(params, query);
        const { values: variableValues, spelling } = compiled.variables.length
          ? readVariables(compiled, {
              params,
              query,
              body,
              header: (name) => {
                const v = req.headers[name.toLowerCase()];
                return Array.isArray(v) ? v.join(', ') : v;
              },
            })
          : { values: {}, spelling: NO_SPELLING };
        if (compiled.stream) {
          const frames = await this.streams!.subscribe(compiled, ctx, variableValues);
          if ('problem' in frames) throw frames.problem;
          // HEAD learns what GET would answer (the subscription opened, so its checks ran) without a stream.
          if (req.method === 'HEAD') {
            frames.stop();
            res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream; charset=utf-8' }).end();
            return;
          }
          this.streams!.serveSse(frames, req, res, headers);
          return;
        }
        if (idempotencyKey) {
          const subject = await rateSubject(ctx);
          // Kept sealed with the caller's credential; an issued credential is not kept for a caller without one.
          const keeping = subject.startsWith('key:') && ctx.bearer.kind === 'key' ? { sealWith: ctx.bearer.secret } : { withhold: compiled.route.issuesCredential === true };
          const claim = await services.idempotency.claim(subject, idempotencyKey, compiled.label, requestHash(compiled.label, [requestOf(compiled, variableValues)]), keeping);
          if (claim.kind === 'replay') {
            this.answer(res, claim.status, claim.body, { ...headers, ...claim.headers, 'Idempotent-Replayed': 'true' });
            return;
          }
          claimed = { subject, key: idempotencyKey, keeping };
        }
        // A listing's or ranking's answer kept a moment ago for the same variables (Route.cacheable), found
        // in one lookup that also makes it this request's text's answer from now on, until it expires under
        // its variables.
        const keptUnder = compiled.route.cacheable ? `${compiled.label}\n${JSON.stringify(variableValues)}` : undefined;
        kept = keptUnder === undefined ? undefined : (services.readCache.peek(keptUnder, asked) as Buffer | undefined);
        if (kept === undefined) {
          const since = performance.now();
          const result = await compiled.execute(undefined, ctx, variableValues);
          if (result.errors?.length) {
            const first = result.errors[0];
            // The operation may have refused its input before looking the caller up: 401/403 come first.
            if (codeOf(first) === 'bad_request' || codeOf(first) === 'validation_failed') await this.authorizeDeferred(ctx, compiled);
            if (codeOf(first) === 'internal') services.log.error({ err: first.originalError ?? first, request_id: requestId, path: first.path }, 'resolver failed');
            const problem = problemFromError(services.config.publicBaseUrl, clientNames(first, compiled, spelling), requestId);
            status = problem.status;
            payload = problem;
          } else {
            const data = result.data as Record<string, unknown>;
            status = ctx.httpAnswer?.status ?? compiled.route.status;
            if (ctx.httpAnswer?.headers) Object.assign(headers, ctx.httpAnswer.headers);
            payload = compiled.rootIsObject || compiled.route.produces ? data[compiled.rootKey] : data;
            if (keptUnder !== undefined && !ctx.httpAnswer) {
              kept = jsonBytes(payload);
              services.readCache.keep(keptUnder, kept, since);
              if (asked !== undefined) services.readCache.keep(asked, kept, since);
            }
          }
        }
      }
      if (claimed) await services.idempotency.complete(claimed.subject, claimed.key, status, payload, ctx.httpAnswer?.headers, claimed.keeping);
      if (kept !== undefined) writeText(res, status, kept, headers);
      else this.answer(res, status, payload, headers, compiled.route.produces);
      const caller = ctx.resolvedPrincipal;
      if (status < 400 && caller?.kind === 'agent' && req.method !== 'HEAD') services.usage.record(caller.agent.id, compiled.label, services.clock.now());
    } catch (caught) {
      let err = caught;
      if (claimed) await services.idempotency.release(claimed.subject, claimed.key).catch(() => {});
      // A body or variables refused before the operation ran: 401/403 come first.
      if (err instanceof AppError && err.status === 400) err = await this.authorizeDeferred(ctx, compiled).then(() => err, (authErr: unknown) => authErr);
      const problem = writeError(res, services.config.publicBaseUrl, err, requestId, headers);
      if (problem.code === 'internal') services.log.error({ err, request_id: requestId }, 'request failed');
    }
  }

  /**
   * A WebSocket upgrade of a stream route (a `websocket` streaming session's eventEndpoint): the same rate
   * limit, authentication, variables and subscription as its SSE form. Answers false for other paths.
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
    void (async () => {
      try {
        await this.chargeBucket(ctx, compiled, headers);
        await authorize(ctx, compiled.route.auth);
        const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
        checkParameters(found.params, query);
        const { values: variableValues } = readVariables(compiled, {
          params: found.params,
          query,
          body: undefined,
          header: (name) => {
            // A WebSocket client resumes with ?after=<id> (it cannot always set headers).
            const v = req.headers[name.toLowerCase()] ?? (name.toLowerCase() === 'last-event-id' ? (query.get('after') ?? undefined) : undefined);
            return Array.isArray(v) ? v.join(', ') : v;
          },
        });
        const frames = await this.streams!.subscribe(compiled, ctx, variableValues);
        if ('problem' in frames) throw frames.problem;
        this.streams!.serveWebSocket(frames, req, socket, head);
      } catch (err) {
        refuseUpgrade(socket, problemFromError(services.config.publicBaseUrl, err, requestId), headers);
      }
    })();
    return true;
  }

  /**
   * Spends one request of the route's rate bucket, puts the rate-limit headers into `headers` (sent with
   * the answer, a 429 too), and throws 429 when the bucket is empty.
   */
  private chargeBucket(ctx: Ctx, compiled: CompiledRoute, headers: Record<string, string>): Promise<void> {
    return spendBucket(ctx, compiled.route.bucket, headers);
  }

  /** For a route whose operation authenticates the caller itself: the check it did not get to make. */
  private async authorizeDeferred(ctx: Ctx, compiled: CompiledRoute): Promise<void> {
    // The caller may already be looked up (for its rate bucket) without having been checked.
    if (compiled.route.authInOperation) await authorize(ctx, compiled.route.auth);
  }

  /** A success as JSON (or the route's media type), an error as problem+json (a report answered with a 5xx stays JSON). */
  private answer(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string>, produces?: string) {
    if (status >= 400 && (payload as Problem | null)?.code !== undefined) writeProblem(res, payload as Problem, headers);
    else if (produces && typeof payload === 'string') writeText(res, status, payload, headers, `${produces}; charset=utf-8`);
    else writeJson(res, status, payload, headers);
  }
}
