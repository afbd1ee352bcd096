// Tools as data (MCP, and the WebMCP manifest): a tool names the GraphQL operation it runs, its own
// document or a REST route's, and where each of its arguments goes; it runs through the same compiled
// document, authentication and rate buckets as REST. Its input schema is built from the operation's
// variable types and the fields they feed (descriptions, ranges), its output schema from the selection
// set, its description from the root field's.
import { coerceInputValue, getNamedType, GraphQLInputObjectType, GraphQLNonNull, isInputObjectType, Kind, type GraphQLInputFieldConfig, type GraphQLInputType, type GraphQLSchema, type ValueNode } from 'graphql';
import { authorize } from '../../schema/auth';
import type { Auth } from '../../rest/route';
import { compileOperation, fieldError, fieldOf, spendBucket, type CompiledOperation, type CompiledRoute } from '../../rest/runner';
import { Spelling } from '../../rest/spelling';
import type { Ctx } from '../domain/context';
import { codeOf, problemFromError, ValidationFailed, type FieldError, type Problem } from '../platform/errors';
import { inputProblem } from '../platform/input-boundary';
import { camelCase } from '../platform/naming';
import type { Bucket } from '../platform/rate-limit';
import { answerSchema, inputSchema, variableUses } from './openapi';

type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  /** The tool's name (camelCase, as the spec's tool manifest writes them). */
  name: string;
  title: string;
  /**
   * The REST route whose operation the tool runs (`'POST /services/register'`): its document, bucket and
   * auth. Its path, query, header and body-field parameters become arguments under their camelCase names
   * (a header's as optional ones: `paymentSignature`), and the fields of a whole-body input become
   * arguments themselves.
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
}

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
  /** The arguments as one input object type: read in both spellings and coerced like a REST body. */
  argsType: GraphQLInputObjectType;
  /**
   * Where the root field's arguments come from, as argument paths: `first` → `limit` (the argument that
   * feeds `$limit`, which feeds `first:`), `input` → '' (an input whose fields are the arguments). A
   * refusal from the operation names the field's argument; the tool's caller knows the tool's.
   */
  argPaths: Map<string, string>;
  withoutKey?: Runnable;
  /** Its category in the WebMCP tool index. */
  category: string;
  definition: {
    name: string;
    title: string;
    description: string;
    inputSchema: JsonSchema;
    outputSchema: JsonSchema;
    annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
  };
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
      for (const [name, use] of variableUses(schema, op)) uses.set(name, use);
      for (const v of route.variables) {
        if (v.source.from === 'body') spread(v.name, v.type);
        else if (v.source.from === 'header') {
          if (v.type instanceof GraphQLNonNull) throw new Error(`${label}: $${v.name} comes from a header`);
          // A header's input (PAYMENT-SIGNATURE) is an optional argument, named in camelCase (paymentSignature).
          const arg = camelCase(v.source.name.toLowerCase().replace(/-/g, '_'));
          addArg(arg, { type: v.type, description: v.source.description, extensions: { jsonSchema: uses.get(v.name)?.schema ?? {} } });
          placements.push({ variable: v.name, arg });
        } else {
          const arg = camelCase(v.source.name);
          addArg(arg, { type: v.type, description: ('description' in v.source && v.source.description) || uses.get(v.name)?.description, extensions: { jsonSchema: uses.get(v.name)?.schema ?? {} } });
          placements.push({ variable: v.name, arg });
        }
      }
    } else {
      op = compileOperation(schema, label, spec.document!);
      if (op.stream) throw new Error(`${label}: a subscription is not a tool`);
      auth = spec.auth ?? 'none';
      bucket = spec.bucket ?? null;
      for (const [name, use] of variableUses(schema, op)) uses.set(name, use);
      for (const v of op.variableTypes) {
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
    const answer = answerSchema(op, schema);
    const outputSchema = withoutKey ? { type: 'object', anyOf: [answer, answerSchema(withoutKey.op, schema)] } : answer;
    const field = fieldOf(schema, op);
    const needs = auth === 'agent' ? ' Needs the caller\'s key (`Authorization: Bearer key_master_…` on the MCP connection).' : '';
    const description = `${spec.description ?? field.description ?? spec.title}.${needs}`.replace(/\.\./g, '.');
    const mutation = op.operation.operation === 'mutation';
    const category = (spec.category ?? (spec.route ? routes.find((r) => r.label === spec.route)!.route.tag : 'marketplace')).toLowerCase().replace(/[^a-z0-9]+/g, '-');
    return {
      spec,
      category,
      op,
      placements,
      auth,
      bucket,
      argsType,
      argPaths,
      withoutKey,
      definition: {
        name: spec.name,
        title: spec.title,
        description,
        inputSchema: inputSchema(argsType),
        outputSchema,
        annotations: {
          title: spec.title,
          readOnlyHint: !mutation,
          destructiveHint: mutation && (/^(delete|revoke|cancel)/.test(op.rootField) || spec.route?.startsWith('DELETE ') === true),
          // Execute calls providers outside the marketplace.
          openWorldHint: op.rootField === 'execute' || op.rootField === 'executeTask',
        },
      },
    };
  });
}

/** A tool's answer: the operation's value as JSON, or the problem that refused it. */
export type ToolAnswer = { ok: true; value: Record<string, unknown> } | { ok: false; problem: Problem };

/**
 * Runs a tool for the caller in `ctx`: its rate bucket is spent, the key checked (or, without one, the
 * document for callers without a key run), the arguments read in both spellings and coerced, then the
 * compiled operation runs. Every refusal is the problem REST would answer.
 */
export async function runTool(tool: CompiledTool, ctx: Ctx, args: unknown): Promise<ToolAnswer> {
  const base = ctx.services.config.publicBaseUrl;
  // A field the caller did not send is named as the tool names its arguments (camelCase), not as REST documents it.
  const spelling = new Spelling((field) => field);
  try {
    await spendBucket(ctx, tool.bucket);
    const runnable = tool.withoutKey && ctx.bearer.kind === 'none' ? tool.withoutKey : tool;
    if (runnable === tool) await authorize(ctx, tool.auth);
    const values = readArguments(tool, runnable, args ?? {}, spelling);
    const result = await runnable.op.execute(undefined, ctx, values);
    if (result.errors?.length) {
      const first = result.errors[0];
      if (codeOf(first) === 'internal') ctx.services.log.error({ err: first.originalError ?? first, request_id: ctx.requestId, tool: tool.spec.name }, 'tool failed');
      const original = first instanceof ValidationFailed ? first : first.originalError;
      const named =
        original instanceof ValidationFailed
          ? new ValidationFailed(original.errors.map((e) => ({ ...e, path: spelling.clientPath(argumentPath(runnable === tool ? tool.argPaths : NO_PATHS, e.path), tool.argsType) })))
          : first;
      return { ok: false, problem: problemFromError(base, named, ctx.requestId) };
    }
    const data = result.data as Record<string, unknown>;
    const value = (runnable.op.rootIsObject ? data[runnable.op.rootKey] : data) as Record<string, unknown>;
    const caller = ctx.resolvedPrincipal;
    if (caller?.kind === 'agent') ctx.services.usage.record(caller.agent.id, `MCP ${tool.spec.name}`, ctx.services.clock.now());
    return { ok: true, value };
  } catch (err) {
    const problem = problemFromError(base, err, ctx.requestId);
    if (problem.code === 'internal') ctx.services.log.error({ err, request_id: ctx.requestId, tool: tool.spec.name }, 'tool failed');
    return { ok: false, problem };
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
  const checked = runnable === tool ? read : Object.fromEntries(Object.entries(read).filter(([k]) => k in type.getFields() || !(k in tool.argsType.getFields())));
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

const NO_PATHS = new Map<string, string>();

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

/** A path the operation named (its root field's argument, or inside it) as the tool's argument path. */
function argumentPath(paths: Map<string, string>, path: string): string {
  const segments = path.split('.');
  for (let n = segments.length; n > 0; n--) {
    const arg = paths.get(segments.slice(0, n).join('.'));
    if (arg !== undefined) return [arg, ...segments.slice(n)].filter((s) => s !== '').join('.');
  }
  return path;
}
