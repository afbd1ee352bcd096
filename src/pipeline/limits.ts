// The limits every GraphQL document is held to, on every surface: its tokens when parsed, its aliases,
// repeated names and complexity when measured (src/platform/operation-cost.ts), and its cost again with
// a request's page sizes when one comes from a variable.
import { getIntrospectionQuery, parse, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { BoundedCache, stringBytes } from '../platform/bounded-cache';
import { AppError, BadRequest, ValidationFailed } from '../platform/errors';
import { inputProblem } from '../platform/input-boundary';
import { costProblem, measureDocument, measureOperation, sizesKey, type CostLimits, type OperationCost } from '../platform/operation-cost';

/** Lexical tokens a document may have: enough for any real operation (a full introspection has 184). */
export const MAX_TOKENS = 2_000;

const LIMITS: Omit<CostLimits, 'maxIntrospectionComplexity'> = {
  // The longest REST or MCP document has 46 aliases (the spec's keys are aliases of the schema's fields: execute's
  // receipt with its routing policy, its mandate and its metering). What aliases could multiply is bounded by the
  // complexity below, which counts every aliased field.
  maxAliases: 64,
  // graphql-js's validation compares the fields of one response name pairwise: a name selected hundreds of times in
  // one selection set makes validation slow.
  maxRepeats: 50,
  // GET /tickets at its largest page (100 tickets of about 20 comments) counts 21,701, and a page of 100
  // tasks with every field of their delegations and executions 32,401.
  maxComplexity: 50_000,
  defaultListSize: 20,
  // The largest page any list serves (a memory store's entries).
  maxListSize: 1_000,
};

const limitsBySchema = new WeakMap<GraphQLSchema, CostLimits>();

/** The limits on `schema`: introspection may cost twice a full introspection of it. */
export function costLimitsFor(schema: GraphQLSchema): CostLimits {
  let limits = limitsBySchema.get(schema);
  if (!limits) {
    const full = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const open = { ...LIMITS, maxIntrospectionComplexity: Infinity };
    const cost = [...measureDocument(schema, parse(full), open).values()][0];
    limits = { ...open, maxIntrospectionComplexity: 2 * cost.introspectionComplexity };
    limitsBySchema.set(schema, limits);
  }
  return limits;
}

/** What the costs measured with requests' page sizes may weigh together (some 8,000 of them). */
export const SIZED_COST_CACHE_BYTES = 1024 * 1024;
/**
 * Per schema, what an operation's cost refuses (or null) at given page sizes: by document, operation name
 * and sizesKey.
 */
const sizedCosts = new WeakMap<GraphQLSchema, BoundedCache<string | null>>();
/** A number for each parsed document whose operations were measured with variables, naming it in sizedCosts' keys. */
const documentIds = new WeakMap<DocumentNode, number>();
let documentCount = 0;

/** How many costs with requests' page sizes are kept for `schema`, and what they weigh. */
export function sizedCostsKept(schema: GraphQLSchema): { bytes: number; entries: number } {
  const kept = sizedCosts.get(schema);
  return { bytes: kept?.bytes ?? 0, entries: kept?.size ?? 0 };
}

/** The checks an operation's variables pass on every run: the input boundary, then the cost with their page sizes. */
export function variablesProblem(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  cost: OperationCost,
  variables: Record<string, unknown> | null | undefined,
): AppError | undefined {
  const problem = inputProblem(variables, '');
  if (problem) return new ValidationFailed(problem);
  return sizedCostProblem(schema, document, operation, cost, variables);
}

/**
 * When a page size comes from a variable, the operation's cost again with the request's values: the refusal, or
 * undefined. Kept per operation and set of page sizes (sizesKey): requests take few sizes, and measuring walks the
 * whole document again.
 */
export function sizedCostProblem(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  cost: OperationCost,
  variables: Record<string, unknown> | null | undefined,
): AppError | undefined {
  if (!cost.variableSized) return undefined;
  const limits = costLimitsFor(schema);
  let kept = sizedCosts.get(schema);
  if (!kept) sizedCosts.set(schema, (kept = new BoundedCache(SIZED_COST_CACHE_BYTES, (key, refused) => stringBytes(key) + stringBytes(refused ?? '') + 64)));
  const key = `${documentId(document)}\n${operation.name?.value ?? ''}\n${sizesKey(cost, variables, limits)}`;
  let refused = kept.get(key);
  if (refused === undefined) {
    refused = costProblem(measureOperation(schema, document, operation, limits, variables ?? {}), limits) ?? null;
    kept.set(key, refused);
  }
  return refused === null ? undefined : new BadRequest(refused);
}

/** A number for each parsed document, naming it in the keys of what is kept about it. */
export function documentId(document: DocumentNode): number {
  let id = documentIds.get(document);
  if (id === undefined) documentIds.set(document, (id = ++documentCount));
  return id;
}
