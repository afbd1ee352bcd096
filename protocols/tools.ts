// Tools as data (MCP, and the WebMCP manifest): a tool names the GraphQL operation it runs, its own
// document or a REST route's, and where each of its arguments goes; it runs through the same compiled
// document, authentication and rate buckets as REST. Its input schema is built from the operation's
// variable types and the fields they feed (descriptions, ranges), its output schema from the selection
// set, its description from the root field's.
import {
  coerceInputValue,
  getNamedType,
  GraphQLInputObjectType,
  GraphQLNonNull,
  isInputObjectType,
  Kind,
  type GraphQLInputFieldConfig,
  type GraphQLInputType,
  type GraphQLSchema,
  type ValueNode,
} from 'graphql';
import type { AnswerMeta, Auth } from '../rest/route';
import type { CompiledRoute } from '../rest/runner';
import { compileOperation, fieldOf, type CompiledOperation } from '../src/pipeline/compile';
import { runOperation, type Charge, type Surface } from '../src/pipeline/pipeline';
import { fieldError, Spelling } from '../src/pipeline/spelling';
import type { Ctx } from '../src/domain/context';
import { codeOf, problemFromError, ValidationFailed, type FieldError, type Problem } from '../src/platform/errors';
import { inputProblem } from '../src/platform/input-boundary';
import { camelCase } from '../src/platform/naming';
import type { Bucket } from '../src/platform/rate-limit';
import { answerSchema, inputSchema, refineSchema, variableUses } from './openapi';
import { TOOLSET_META } from './toolsets';

type JsonSchema = Record<string, unknown>;

/** An MCP tool as tools/list shows it: the operation tools here, the capability tools (capability-tools.ts). */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
  /** Its toolset (`marketplace/toolset`), for clients that group tools. */
  _meta?: Record<string, unknown>;
}

export interface ToolSpec {
  /** The tool's name (camelCase, as the spec's tool manifest writes them). */
  name: string;
  title: string;
  /**
   * The REST route whose operation the tool runs (`'POST /services/register'`): its document, bucket and auth. Its
   * path, query, header (optional: `paymentSignature`) and body parameters become camelCase arguments, and a whole-body
   * input's fields become arguments themselves.
   */
  route?: string;
  /** Or the tool's own document (each variable an argument of its name), with its bucket and auth. */
  document?: string;
  bucket?: Bucket | null;
  auth?: Auth;
  /**
   * A document run instead when the caller sent no key and the operation needs one (its variables are
   * arguments of the tool): what to do, rather than a refusal.
   */
  withoutKey?: string;
  /** JSON Schema a tool promises for an argument beyond what the fields it feeds say (a page's maximum). */
  refine?: Record<string, JsonSchema>;
  /** Instead of the root field's description. */
  description?: string;
  /** One of the tools of the spec's tool manifest (§4.14), listed in /.well-known/webmcp.json. */
  manifest?: true;
  /** Its category in the tool index (default: its route's tag). */
  category?: string;
  /**
   * The MCP toolset it is served in (toolsets.ts): `default` for the 25 of /mcp, else the one a client
   * names to get it (`/mcp?toolsets=memory`). Every tool of the MCP server names one.
   */
  toolset?: string;
  /**
   * A variable of the tool's own document that takes an x402 payment (as PAYMENT-SIGNATURE carries it) from
   * the call's `_meta["x402/payment"]` alone, not from an argument (x402's MCP transport). A route's
   * PAYMENT-SIGNATURE is both: its `paymentSignature` argument and `_meta`.
   */
  paymentVariable?: string;
  /** What a success says beyond its value (as Route.answer); a route's tool has its route's. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the value's shape is the document's
  answer?: (value: any) => AnswerMeta | undefined;
}

/** The key of an x402 payment in a tools/call's `_meta`, and of its settlement in the result's (x402 MCP transport). */
export const X402_PAYMENT_META = 'x402/payment';
export const X402_PAYMENT_RESPONSE_META = 'x402/payment-response';

/**
 * An x402 v2 PaymentRequired, the structured answer of a paid tool called without a payment that pays
 * (x402's MCP transport): part of every paid tool's output schema, since MCP clients hold every
 * structuredContent to it.
 */
export const PAYMENT_REQUIRED_SCHEMA: JsonSchema = {
  type: 'object',
  title: 'x402 PaymentRequired',
  description: 'The call is paid and nothing paid it: pay one of `accepts` and call again with the payment in `_meta["x402/payment"]` (x402 MCP transport)',
  required: ['x402Version', 'resource', 'accepts'],
  properties: {
    x402Version: { type: 'integer', enum: [2] },
    error: { type: 'string' },
    resource: { type: 'object', required: ['url'], properties: { url: { type: 'string' }, description: { type: 'string' }, mimeType: { type: 'string' } } },
    accepts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['scheme', 'network', 'asset', 'amount', 'payTo', 'maxTimeoutSeconds'],
        properties: {
          scheme: { type: 'string' },
          network: { type: 'string' },
          asset: { type: 'string' },
          amount: { type: 'string' },
          payTo: { type: 'string' },
          maxTimeoutSeconds: { type: 'integer' },
          extra: { type: 'object' },
        },
      },
    },
  },
};

/** Which argument each variable takes: one argument, or (a whole input object) the arguments that are its fields. */
type Placement = { variable: string; arg: string } | { variable: string; fields: string[] };

interface Runnable {
  op: CompiledOperation;
  placements: Placement[];
}

export interface CompiledTool extends Runnable {
  spec: ToolSpec;
  auth: Auth;
  bucket: Bucket | null;
  /** The bucket as the pipeline spends it. */
  charges: readonly Charge[];
  /** What a success says beyond its value (a paid call's PAYMENT-RESPONSE): its route's, or the spec's. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the value's shape is the document's
  answer?: (value: any) => AnswerMeta | undefined;
  /** The arguments as one input object type: read in both spellings and coerced like a REST body. */
  argsType: GraphQLInputObjectType;
  /**
   * Where the root field's arguments come from, as argument paths: `first` → `limit` (the argument that
   * feeds `$limit`, which feeds `first:`), `input` → '' (an input whose fields are the arguments). A
   * refusal from the operation names the field's argument; the tool's caller knows the tool's.
   */
  argPaths: Map<string, string>;
  /**
   * The root field's one input-object argument, when it has one (`execute(input: …)`): the operation
   * names a refusal of its fields relative to it, as REST reads them in the body (`input` is the field
   * `input.input`, the tool's argument `input`, not the whole input).
   */
  inputRoot?: string;
  /** The root field's other arguments: a refusal naming one of them names it (`first` → `limit`). */
  otherRoots: ReadonlySet<string>;
  withoutKey?: Runnable;
  /** The operation's variable that takes an x402 payment (from `_meta["x402/payment"]`, or its argument). */
  paymentVariable?: string;
  /** The argument that also takes it, when there is one (`paymentSignature`). */
  paymentArg?: string;
  /** Its category in the WebMCP tool index. */
  category: string;
  definition: ToolDefinition;
}

export function compileTools(schema: GraphQLSchema, specs: ToolSpec[], routes: CompiledRoute[]): CompiledTool[] {
  const names = new Set<string>();
  return specs.map((spec) => {
    const label = `tool ${spec.name}`;
    if (names.has(spec.name)) throw new Error(`${label}: a second tool of that name`);
    names.add(spec.name);
    if (!!spec.route === !!spec.document) throw new Error(`${label}: name a route or a document, not both`);
    let op: CompiledOperation;
    let auth: Auth;
    let bucket: Bucket | null;
    let paymentVariable: string | undefined;
    let paymentArg: string | undefined;
    let answerMeta = spec.answer;
    let bodyRules: JsonSchema | undefined;
    const placements: Placement[] = [];
    const fields: Record<string, GraphQLInputFieldConfig> = {};
    const uses = new Map<string, ReturnType<typeof variableUses> extends Map<string, infer U> ? U : never>();
    const addArg = (arg: string, config: GraphQLInputFieldConfig) => {
      if (fields[arg]) throw new Error(`${label}: two arguments named ${arg}`);
      const extra = { ...((config.extensions?.jsonSchema as JsonSchema | undefined) ?? {}), ...spec.refine?.[arg] };
      fields[arg] = { ...config, extensions: { ...config.extensions, jsonSchema: extra } };
    };
    const spread = (variable: string, type: GraphQLInputType) => {
      const named = getNamedType(type);
      if (!isInputObjectType(named)) throw new Error(`${label}: $${variable} is not an input object`);
      const own = Object.values(named.getFields());
      for (const f of own) addArg(f.name, { type: f.type, description: f.description, defaultValue: f.defaultValue, extensions: f.extensions });
      placements.push({ variable, fields: own.map((f) => f.name) });
    };
    if (spec.route) {
      const route = routes.find((r) => r.label === spec.route);
      if (!route) throw new Error(`${label}: no route ${spec.route}`);
      if (route.stream || route.route.produces) throw new Error(`${label}: ${spec.route} does not answer JSON`);
      op = route;
      auth = spec.auth ?? route.route.auth;
      bucket = spec.bucket === undefined ? route.route.bucket : spec.bucket;
      answerMeta ??= route.route.answer;
      for (const [name, use] of variableUses(schema, op)) uses.set(name, use);
      for (const v of route.variables) {
        if (v.source.from === 'body') {
          spread(v.name, v.type);
          bodyRules = route.route.bodySchema;
        } else if (v.source.from === 'header') {
          if (v.type instanceof GraphQLNonNull) throw new Error(`${label}: $${v.name} comes from a header`);
          // A header's input (PAYMENT-SIGNATURE) is an optional argument, named in camelCase (paymentSignature).
          const arg = camelCase(v.source.name.toLowerCase().replace(/-/g, '_'));
          addArg(arg, { type: v.type, description: v.source.description, extensions: { jsonSchema: uses.get(v.name)?.schema ?? {} } });
          placements.push({ variable: v.name, arg });
          if (v.source.name.toUpperCase() === 'PAYMENT-SIGNATURE') {
            paymentVariable = v.name;
            paymentArg = arg;
          }
        } else {
          const arg = camelCase(v.source.name);
          addArg(arg, {
            type: v.type,
            description: ('description' in v.source && v.source.description) || uses.get(v.name)?.description,
            extensions: { jsonSchema: uses.get(v.name)?.schema ?? {} },
          });
          placements.push({ variable: v.name, arg });
        }
      }
    } else {
      op = compileOperation(schema, label, spec.document!);
      if (op.stream) throw new Error(`${label}: a subscription is not a tool`);
      auth = spec.auth ?? 'none';
      bucket = spec.bucket ?? null;
      for (const [name, use] of variableUses(schema, op)) uses.set(name, use);
      if (spec.paymentVariable) {
        const v = op.variableTypes.find((t) => t.name === spec.paymentVariable);
        if (!v || v.type instanceof GraphQLNonNull) throw new Error(`${label}: $${spec.paymentVariable} is not an optional variable of its document`);
        paymentVariable = spec.paymentVariable;
      }
      for (const v of op.variableTypes) {
        if (v.name === paymentVariable) continue;
        const use = uses.get(v.name);
        addArg(v.name, { type: v.type, description: use?.description, extensions: { jsonSchema: use?.schema ?? {} } });
        placements.push({ variable: v.name, arg: v.name });
      }
    }
    for (const arg of Object.keys(spec.refine ?? {})) if (!fields[arg]) throw new Error(`${label}: refines ${arg}, which is not an argument`);
    const argsType = new GraphQLInputObjectType({ name: `${spec.name}_arguments`, fields });

    let withoutKey: Runnable | undefined;
    if (spec.withoutKey) {
      if (auth === 'none') throw new Error(`${label}: needs no key, so nothing runs without one`);
      const alt = compileOperation(schema, `${label} (without a key)`, spec.withoutKey);
      const altPlacements = alt.variableTypes.map((v) => {
        if (!fields[v.name]) throw new Error(`${label}: the document without a key takes $${v.name}, which is not an argument`);
        return { variable: v.name, arg: v.name };
      });
      withoutKey = { op: alt, placements: altPlacements };
    }

    const argPaths = argumentPaths(op, placements);
    const { inputRoot, otherRoots } = rootArguments(schema, op);
    const answerOf = (o: CompiledOperation) => {
      try {
        return answerSchema(o, schema);
      } catch (err) {
        throw new Error(`${label}: ${(err as Error).message}`);
      }
    };
    const answer = answerOf(op);
    // Every structuredContent the tool can answer: its answer, the instructions without a key, the x402 requirements.
    const answers = [answer, ...(withoutKey ? [answerOf(withoutKey.op)] : []), ...(paymentVariable ? [PAYMENT_REQUIRED_SCHEMA] : [])];
    const outputSchema = answers.length > 1 ? { type: 'object', anyOf: answers } : answer;
    const field = fieldOf(schema, op);
    const needs = auth === 'agent' ? " Needs the caller's key (`Authorization: Bearer key_master_…` on the MCP connection)." : '';
    const description = `${spec.description ?? field.description ?? spec.title}.${needs}`.replace(/\.\./g, '.');
    const mutation = op.operation.operation === 'mutation';
    const category = (spec.category ?? (spec.route ? routes.find((r) => r.label === spec.route)!.route.tag : 'marketplace'))
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-');
    return {
      spec,
      category,
      op,
      placements,
      auth,
      bucket,
      charges: bucket ? [{ bucket, points: 1 }] : [],
      answer: answerMeta,
      argsType,
      argPaths,
      inputRoot,
      otherRoots,
      withoutKey,
      paymentVariable,
      paymentArg,
      definition: {
        name: spec.name,
        title: spec.title,
        description,
        // What the operation requires of a whole-body input beyond its type (Route.bodySchema), over the arguments it spreads into.
        inputSchema: bodyRules ? refineSchema(inputSchema(argsType), bodyRules) : inputSchema(argsType),
        outputSchema,
        annotations: {
          title: spec.title,
          readOnlyHint: !mutation,
          destructiveHint: mutation && (/^(delete|revoke|cancel)/.test(op.rootField) || spec.route?.startsWith('DELETE ') === true),
          // Execute calls providers outside the marketplace.
          openWorldHint: op.rootField === 'execute' || op.rootField === 'executeTask',
        },
        ...(spec.toolset ? { _meta: { [TOOLSET_META]: spec.toolset } } : {}),
      },
    };
  });
}

/**
 * A tool's answer: the operation's value as JSON (and the x402 settlement when a payment paid it), or the
 * problem that refused it.
 */
export type ToolAnswer = { ok: true; value: Record<string, unknown>; settlement?: Record<string, unknown> } | { ok: false; problem: Problem };

/** Where a call's x402 payment came from: `_meta["x402/payment"]` (x402's MCP transport), as the client sent it. */
export interface ToolPayment {
  payment: unknown;
}

const META_PAYMENT_PATH = `_meta.${X402_PAYMENT_META}`;

/**
 * Runs a tool for the caller in `ctx` through the pipeline: its rate bucket, the key (or the keyless document), the
 * arguments read in both spellings, coerced and held to the boundary and cost, then the operation. Every refusal is
 * REST's problem, naming the argument as the tool spells it.
 */
export async function runTool(tool: CompiledTool, ctx: Ctx, args: unknown, paid?: ToolPayment, surface: Surface = 'mcp'): Promise<ToolAnswer> {
  const base = ctx.services.config.publicBaseUrl;
  // A field the caller did not send is named as the tool names its arguments (camelCase), not as REST documents it.
  const spelling = new Spelling((field) => field);
  const runnable = tool.withoutKey && ctx.bearer.kind === 'none' ? tool.withoutKey : tool;
  // A payment in `_meta` (a tool that takes none leaves it unread, as x402 servers do with free tools).
  const fromMeta = paid !== undefined && runnable === tool && tool.paymentVariable !== undefined;
  const pathOf = (path: string) => {
    const arg = runnable === tool ? operationPath(tool, path) : path;
    // A refused payment is named where it came from.
    if (fromMeta && (arg === tool.paymentArg || path === tool.paymentVariable)) return META_PAYMENT_PATH;
    return spelling.clientPath(arg, tool.argsType);
  };
  const named = (err: unknown) => (err instanceof ValidationFailed ? new ValidationFailed(err.errors.map((e) => ({ ...e, path: pathOf(e.path) }))) : err);
  try {
    return await runOperation<ToolAnswer>({
      surface,
      ctx,
      label: `tool ${tool.spec.name}`,
      charges: tool.charges,
      auth: runnable === tool ? tool.auth : 'none',
      headers: {},
      read: () => {
        const values = readArguments(tool, runnable, args ?? {}, spelling);
        if (fromMeta) values[tool.paymentVariable!] = metaPayment(paid!.payment, values[tool.paymentVariable!], tool.paymentArg);
        return { variables: values };
      },
      cost: (variables) => named(runnable.op.costProblem(variables)) as Error | undefined,
      run: async (variables) => {
        const result = await runnable.op.execute(undefined, ctx, variables);
        if (result.errors?.length) {
          const first = result.errors[0];
          if (codeOf(first) === 'internal')
            ctx.services.log.error({ err: first.originalError ?? first, request_id: ctx.requestId, tool: tool.spec.name }, 'tool failed');
          const original = first instanceof ValidationFailed ? first : first.originalError;
          return { ok: false, problem: problemFromError(base, original instanceof ValidationFailed ? named(original) : first, ctx.requestId) };
        }
        const data = result.data as Record<string, unknown>;
        const value = (runnable.op.rootIsObject ? data[runnable.op.rootKey] : data) as Record<string, unknown>;
        const caller = ctx.resolvedPrincipal;
        if (caller?.kind === 'agent') ctx.services.usage.record(caller.agent.id, `MCP ${tool.spec.name}`, ctx.services.clock.now());
        const settlement = runnable === tool ? settlementOf(tool.answer?.(value)) : undefined;
        return { ok: true, value, ...(settlement ? { settlement } : {}) };
      },
    });
  } catch (err) {
    const problem = problemFromError(base, named(err), ctx.requestId);
    if (problem.code === 'internal') ctx.services.log.error({ err, request_id: ctx.requestId, tool: tool.spec.name }, 'tool failed');
    return { ok: false, problem };
  }
}

/**
 * The payment variable's value from `_meta["x402/payment"]`: the PaymentPayload's JSON, as PAYMENT-SIGNATURE
 * may carry it. The same payment may also come in the argument; two different ones are refused.
 */
export function metaPayment(payment: unknown, fromArgument: unknown, paymentArg: string | undefined): string {
  if (typeof payment !== 'object' || payment === null || Array.isArray(payment)) {
    throw new ValidationFailed([{ path: META_PAYMENT_PATH, message: 'must be an x402 PaymentPayload (an object)' }]);
  }
  const outside = inputProblem(payment, META_PAYMENT_PATH);
  if (outside) throw new ValidationFailed(outside);
  const text = JSON.stringify(payment);
  if (typeof fromArgument === 'string') {
    let same = false;
    try {
      const given = fromArgument.trim();
      same = JSON.stringify(JSON.parse(given.startsWith('{') ? given : Buffer.from(given, 'base64').toString('utf8'))) === text;
    } catch {
      same = false;
    }
    if (!same)
      throw new ValidationFailed([{ path: META_PAYMENT_PATH, message: `and ${paymentArg ?? 'the payment argument'} carry two different payments: send one` }]);
  }
  return text;
}

/** The x402 settlement a paid operation answered with (what REST sends base64-encoded in PAYMENT-RESPONSE). */
export function settlementOf(meta: AnswerMeta | undefined): Record<string, unknown> | undefined {
  const header = meta?.headers?.['PAYMENT-RESPONSE'];
  if (!header) return undefined;
  try {
    const settlement = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as unknown;
    return typeof settlement === 'object' && settlement !== null ? (settlement as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The operation's variables from the tool's arguments: read like a REST body, every refusal naming the argument. */
function readArguments(tool: CompiledTool, runnable: Runnable, args: unknown, spelling: Spelling): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new ValidationFailed([{ path: 'arguments', message: 'must be an object' }]);
  // The input boundary, on the arguments as sent (the operation checks its variables again: the same rule).
  const outside = inputProblem(args);
  if (outside) throw new ValidationFailed(outside);
  const read = spelling.read(args, tool.argsType) as Record<string, unknown>;
  const errors: FieldError[] = [...spelling.errors];
  // Without a key, only the arguments that document takes are checked (the others may be left out).
  const type = runnable === tool ? tool.argsType : narrowed(tool, runnable);
  const checked =
    runnable === tool ? read : Object.fromEntries(Object.entries(read).filter(([k]) => k in type.getFields() || !(k in tool.argsType.getFields())));
  coerceInputValue(checked, type, (path, _value, error) => {
    const e = fieldError(path, error, '');
    errors.push({ ...e, path: spelling.clientPath(e.path, tool.argsType) });
  });
  if (errors.length) throw new ValidationFailed(errors);
  const values: Record<string, unknown> = {};
  for (const p of runnable.placements) {
    if ('arg' in p) {
      if (read[p.arg] !== undefined) values[p.variable] = read[p.arg];
    } else {
      values[p.variable] = Object.fromEntries(p.fields.filter((f) => read[f] !== undefined).map((f) => [f, read[f]]));
    }
  }
  return values;
}

const narrowedTypes = new WeakMap<Runnable, GraphQLInputObjectType>();

/** The arguments the document for callers without a key takes, as their own input type. */
function narrowed(tool: CompiledTool, runnable: Runnable): GraphQLInputObjectType {
  let type = narrowedTypes.get(runnable);
  if (!type) {
    const all = tool.argsType.getFields();
    const takes = new Set(runnable.placements.map((p) => ('arg' in p ? p.arg : '')));
    type = new GraphQLInputObjectType({
      name: `${tool.spec.name}_without_key`,
      fields: Object.fromEntries(
        Object.values(all)
          .filter((f) => takes.has(f.name))
          .map((f) => [f.name, { type: runnable.op.variableTypes.find((v) => v.name === f.name)!.type, description: f.description }]),
      ),
    });
    narrowedTypes.set(runnable, type);
  }
  return type;
}

/** The root field's arguments fed by variables, as argument paths of the tool (see CompiledTool.argPaths). */
function argumentPaths(op: CompiledOperation, placements: Placement[]): Map<string, string> {
  const argOf = new Map<string, string>();
  for (const p of placements) argOf.set(p.variable, 'arg' in p ? p.arg : '');
  const paths = new Map<string, string>();
  const visit = (value: ValueNode, path: string) => {
    if (value.kind === Kind.VARIABLE) {
      const arg = argOf.get(value.name.value);
      if (arg !== undefined) paths.set(path, arg);
    } else if (value.kind === Kind.OBJECT) {
      for (const f of value.fields) visit(f.value, `${path}.${f.name.value}`);
    }
  };
  const root = op.operation.selectionSet.selections[0];
  if (root.kind === Kind.FIELD) for (const a of root.arguments ?? []) visit(a.value, a.name.value);
  return paths;
}

/**
 * The root field's arguments the operation gives: its one input-object argument, if it has exactly one,
 * and the others.
 */
function rootArguments(schema: GraphQLSchema, op: CompiledOperation): { inputRoot?: string; otherRoots: Set<string> } {
  const root = op.operation.selectionSet.selections[0];
  const defined = new Map(fieldOf(schema, op).args.map((a) => [a.name, a.type]));
  const objects: string[] = [];
  const otherRoots = new Set<string>();
  if (root.kind === Kind.FIELD) {
    for (const a of root.arguments ?? []) {
      const type = defined.get(a.name.value);
      if (type && isInputObjectType(getNamedType(type))) objects.push(a.name.value);
      else otherRoots.add(a.name.value);
    }
  }
  if (objects.length !== 1) for (const o of objects) otherRoots.add(o);
  return { inputRoot: objects.length === 1 ? objects[0] : undefined, otherRoots };
}

/**
 * A path the operation's refusal named, as the tool's argument path: a root argument by the argument that
 * feeds it, a field of the input-object argument by the argument its field comes from. Every refusal of
 * every tool is named here.
 */
function operationPath(tool: Pick<CompiledTool, 'argPaths' | 'inputRoot' | 'otherRoots'>, path: string): string {
  const first = path.split('.', 1)[0];
  if (tool.inputRoot === undefined || tool.otherRoots.has(first)) return argumentPath(tool.argPaths, path);
  return argumentPath(tool.argPaths, path === '' ? tool.inputRoot : `${tool.inputRoot}.${path}`);
}

/** A path the operation named (its root field's argument, or inside it) as the tool's argument path. */
function argumentPath(paths: Map<string, string>, path: string): string {
  const segments = path.split('.');
  for (let n = segments.length; n > 0; n--) {
    const arg = paths.get(segments.slice(0, n).join('.'));
    if (arg !== undefined) return [arg, ...segments.slice(n)].filter((s) => s !== '').join('.');
  }
  return path;
}
