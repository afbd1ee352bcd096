// The operation compiler: a GraphQL document of one operation selecting one root field (what a REST route,
// an MCP tool or a capability tool runs) parsed once at start-up, validated, held to the limits and
// compiled once at its first run, then run by the pipeline on the same schema, resolvers and context as
// /graphql.
import {
  createSourceEventStream,
  getNamedType,
  getNullableType,
  isListType,
  isLeafType,
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
import type { Ctx } from '../domain/context';
import { costProblem, measureOperation, type OperationCost } from '../platform/operation-cost';
import { costLimitsFor, MAX_TOKENS, sizedCostProblem } from './limits';

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
   * Runs the operation: the document compiled to a function once, on its first run (graphql-jit), with the
   * same schema, resolvers and errors as graphql `execute`, without re-walking the document per request.
   * Run it through the pipeline (runOperation), which holds its variables to the boundary and its cost.
   */
  execute: CompiledQuery['query'];
  /** Its cost with a request's page sizes, when a variable gives one: the refusal, or undefined. */
  costProblem(variables: Record<string, unknown>): Error | undefined;
  /** Validates and compiles the document now (a test's check that every document does; runs do on first use). */
  compile(): void;
  /** Validates and measures the document now (what its first run does before compiling it). */
  validate(): void;
  /** For a subscription: its source stream. */
  subscribe(ctx: Ctx, variables: Record<string, unknown>): Promise<AsyncIterable<unknown> | ExecutionResult>;
}

/**
 * Leaves of the built-in scalars and enums are answered as the resolvers give them: serializing them re-checked what
 * TypeScript already holds to the answer's type and made garbage per leaf (docs/benchmarks.md, The bare `node:http`
 * reference). Enum values are their names (a unit test holds the schema to it); DateTime and JSON are still serialized.
 */
const JIT_OPTIONS = { disableLeafSerialization: true } as const;

/**
 * Parses, validates and compiles a document that must hold one operation selecting one root field (what
 * a REST route or an MCP tool runs); `label` names it in the start-up error that a bad document is.
 */
export function compileOperation(schema: GraphQLSchema, label: string, text: string): CompiledOperation {
  // The limits every document from outside is held to (limits.ts) hold for ours too.
  const document = parse(text, { maxTokens: MAX_TOKENS });
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  if (operations.length !== 1) throw new Error(`${label}: the document must hold exactly one operation`);
  const operation = operations[0];
  const fields = operation.selectionSet.selections;
  if (fields.length !== 1 || fields[0].kind !== 'Field') throw new Error(`${label}: the operation must select exactly one root field`);
  const root = fields[0];
  const rootType =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  const fieldDef = rootType?.getFields()[root.name.value];
  if (!fieldDef) throw new Error(`${label}: unknown root field ${root.name.value}`);
  const variableTypes = (operation.variableDefinitions ?? []).map((def) => {
    const name = def.variable.name.value;
    const type = typeFromAST(schema, def.type as never) as GraphQLInputType | undefined;
    if (!type) throw new Error(`${label}: unknown type for $${name}`);
    return { name, type };
  });
  // Validated, measured and compiled on its first run, not here: a server starts with some 200 documents of which a
  // process serves a few, and doing them all cost every start time and memory (docs/operations.md, Start). Every
  // document is ours, and a test checks each validates, keeps within the limits and compiles (test/unit/tools.test.ts).
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
  return {
    execute: (root, ctx, variables) => compiled()(root, ctx, variables),
    costProblem: (variables) => sizedCostProblem(schema, document, operation, checked(), variables),
    compile: () => void compiled(),
    validate: () => void checked(),
    subscribe: async (ctx, variables) => createSourceEventStream({ schema, document, contextValue: ctx, variableValues: variables }),
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

/** The schema's definition of the operation's root field. */
export function fieldOf(schema: GraphQLSchema, op: CompiledOperation) {
  const kind = op.operation.operation;
  const rootType = kind === 'mutation' ? schema.getMutationType()! : kind === 'subscription' ? schema.getSubscriptionType()! : schema.getQueryType()!;
  return rootType.getFields()[op.rootField];
}
