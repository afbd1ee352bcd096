// The gate every GraphQL operation passes before it runs, on every surface: a document from outside (POST
// and GET /graphql, graphql-sse, graphql-ws) is checked at the boundary, parsed with a token limit,
// measured (aliases, repeated names, complexity with list sizes multiplied, introspection; linear in the
// document) and validated once, and kept in a cache bounded in bytes; each request then has its variables
// checked at the input boundary, its cost counted with the request's page sizes when one comes from a
// variable (once for each document and set of sizes, then kept), and its root fields' rate buckets (and
// the introspection bucket) spent. The documents REST routes and MCP tools run are held to the same
// limits when compiled, and pass the same variable check on every run (rest/runner.ts compileOperation),
// so no surface reaches a resolver without it. An operation that only introspects answers the same for
// every caller of the schema: admitted like any other, it is computed once and its answer kept.
import {
  getIntrospectionQuery,
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Ctx } from '../src/domain/context';
import { BoundedCache, stringBytes } from '../src/platform/bounded-cache';
import { AppError, BadRequest, RateLimited, ValidationFailed } from '../src/platform/errors';
import { documentProblem, inputProblem, StorableTextRule } from '../src/platform/input-boundary';
import { costProblem, measureDocument, measureOperation, sizesKey, type CostLimits, type OperationCost } from '../src/platform/operation-cost';
import type { Bucket, RateDecision } from '../src/platform/rate-limit';
import type { FieldRateLimits } from './rate-limits';

/** Lexical tokens a document may have: enough for any real operation (a full introspection has 184). */
export const MAX_TOKENS = 2_000;
/** What the parsed documents kept for reuse may weigh together. */
export const DOCUMENT_CACHE_BYTES = 32 * 1024 * 1024;
/** What one parsed token may weigh (its token record and its share of the AST and locations), erring high. */
const BYTES_PER_TOKEN = 400;
/** Every operation that introspects spends one request of this bucket too. */
export const INTROSPECTION_BUCKET: Bucket = { name: 'introspection', perMinute: 30 };
/** What the kept answers of introspection operations may weigh together (a full one of this schema is some hundreds of KiB). */
export const INTROSPECTION_CACHE_BYTES = 16 * 1024 * 1024;

const LIMITS: Omit<CostLimits, 'maxIntrospectionComplexity'> = {
  // The longest REST or MCP document has 24 aliases (the spec's keys are aliases of the schema's fields).
  maxAliases: 30,
  // graphql-js's validation compares the fields of one response name pairwise: a name selected hundreds
  // of times in one selection set costs it a tenth of a second.
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
    const full = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true });
    const open = { ...LIMITS, maxIntrospectionComplexity: Infinity };
    const cost = [...measureDocument(schema, parse(full), open).values()][0];
    limits = { ...open, maxIntrospectionComplexity: 2 * cost.introspectionComplexity };
    limitsBySchema.set(schema, limits);
  }
  return limits;
}

/** A request error: 400 with application/graphql-response+json, as GraphQL over HTTP says of such errors. */
export function requestError(message: string, nodes?: GraphQLError['nodes'], code = 'BAD_REQUEST'): GraphQLError {
  return new GraphQLError(message, { nodes, extensions: { code, http: { spec: true, status: 400 } } });
}

/** A document from outside, ready to run: parsed, measured and validated once. */
export interface PreparedDocument {
  document?: DocumentNode;
  /** Why the document is refused before validation (its text, its tokens, its cost, introspection turned off). */
  refused?: GraphQLError;
  /** What validation found (none for a valid document). */
  validationErrors: readonly GraphQLError[];
  /** The cost of each operation, by name ('' for an anonymous one), with variables' page sizes at their defaults. */
  costs: Map<string, OperationCost>;
  /** What keeping it weighs: its text and its tokens. */
  bytes: number;
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

/**
 * The checks an operation's variables pass on every run: the input boundary, then, when a page size comes
 * from a variable, the cost again with the request's values. Returns the refusal, or undefined.
 *
 * The cost with a request's values is measured once for each operation and set of page sizes, and kept:
 * it depends on the variables only through the values of the few that give a page size (sizesKey), and a
 * route's or a client's requests take a few sizes (resolve's limit, a listing's page), while measuring
 * walks the whole document again (2% of the main thread under varied resolves).
 */
export function variablesProblem(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  cost: OperationCost,
  variables: Record<string, unknown> | null | undefined,
): AppError | undefined {
  const problem = inputProblem(variables, '');
  if (problem) return new ValidationFailed(problem);
  if (!cost.variableSized) return undefined;
  const limits = costLimitsFor(schema);
  let kept = sizedCosts.get(schema);
  if (!kept) sizedCosts.set(schema, (kept = new BoundedCache(SIZED_COST_CACHE_BYTES, (key, refused) => stringBytes(key) + stringBytes(refused ?? '') + 64)));
  let id = documentIds.get(document);
  if (id === undefined) documentIds.set(document, (id = ++documentCount));
  const key = `${id}\n${operation.name?.value ?? ''}\n${sizesKey(cost, variables, limits)}`;
  let refused = kept.get(key);
  if (refused === undefined) {
    refused = costProblem(measureOperation(schema, document, operation, limits, variables ?? {}), limits) ?? null;
    kept.set(key, refused);
  }
  return refused === null ? undefined : new BadRequest(refused);
}

/** The tokens of a parsed document (they stay linked from its location). */
function tokenCount(document: DocumentNode): number {
  let n = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) n++;
  return n;
}

export class OperationGate {
  private readonly documents: BoundedCache<PreparedDocument>;
  /** The prepared form of each document this gate parsed, for yoga's later hooks. */
  private readonly byDocument = new WeakMap<DocumentNode, PreparedDocument>();
  /** The answers of operations that only introspect, by document, operation and variables (introspectionKey). */
  private readonly introspections = new BoundedCache<ExecutionResult>(INTROSPECTION_CACHE_BYTES, (key, answer) => stringBytes(key) + 2 * JSON.stringify(answer).length);
  /** Those being computed, shared by the runs that ask meanwhile. */
  private readonly introspecting = new Map<string, Promise<ExecutionResult>>();
  readonly limits: CostLimits;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fieldLimits: FieldRateLimits,
    private readonly options: { introspection: boolean },
  ) {
    this.limits = costLimitsFor(schema);
    // The text is held twice (the key, and the document's source).
    this.documents = new BoundedCache(DOCUMENT_CACHE_BYTES, (text, prepared) => 2 * stringBytes(text) + prepared.bytes);
  }

  /** What the kept documents weigh, and how many there are (for /metrics). */
  get cached(): { bytes: number; entries: number } {
    return { bytes: this.documents.bytes, entries: this.documents.size };
  }

  /** The document `text` parsed, measured and validated, from the cache when it was seen before. */
  prepare(text: string): PreparedDocument {
    const kept = this.documents.get(text);
    if (kept) return kept;
    const prepared = this.prepareNew(text);
    this.documents.set(text, prepared);
    if (prepared.document) this.byDocument.set(prepared.document, prepared);
    return prepared;
  }

  private prepareNew(text: string): PreparedDocument {
    const refuse = (refused: GraphQLError): PreparedDocument => ({ refused, validationErrors: [], costs: new Map(), bytes: 1024 });
    const boundary = documentProblem(text);
    if (boundary) return refuse(requestError(boundary, undefined, 'VALIDATION_FAILED'));
    let document: DocumentNode;
    try {
      document = parse(text, { maxTokens: MAX_TOKENS });
    } catch (err) {
      const e = err as GraphQLError;
      const tooLong = /contains more th(?:at|an) \d+ tokens/.test(e.message);
      return refuse(tooLong ? requestError(`The document has more than ${MAX_TOKENS} tokens`) : new GraphQLError(e.message, { source: e.source, positions: e.positions, extensions: { code: 'BAD_REQUEST', http: { spec: true, status: 400 } } }));
    }
    const costs = measureDocument(this.schema, document, this.limits);
    for (const [name, cost] of costs) {
      if (cost.introspection && !this.options.introspection) {
        return refuse(requestError('Introspection is turned off on this server (GRAPHQL_INTROSPECTION=0); the schema is published as schema.graphql'));
      }
      const problem = costProblem(cost, this.limits);
      if (problem) return refuse(requestError(costs.size > 1 && name ? `${problem} (operation ${name})` : problem));
    }
    const validationErrors = validate(this.schema, document, [...specifiedRules, StorableTextRule]).map(
      (e) => new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, extensions: { code: 'BAD_REQUEST', ...e.extensions, http: { spec: true, status: 400 } } }),
    );
    return { document, validationErrors, costs, bytes: tokenCount(document) * BYTES_PER_TOKEN };
  }

  /**
   * Admits one run of `operation`: its variables at the boundary and its cost with their page sizes
   * (throwing the refusal), then spends its root fields' rate buckets and, if it introspects, the
   * introspection bucket. Returns the tightest rate decision (for the X-RateLimit-* headers; the caller
   * refuses the run when it is not allowed).
   */
  async admit(ctx: Ctx, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | null | undefined): Promise<RateDecision | undefined> {
    const cost = this.costOf(document, operation);
    const refused = variablesProblem(this.schema, document, operation, cost, variables);
    if (refused) throw refused;
    return this.fieldLimits.charge(ctx, cost.rootFields, cost.introspection > 0 ? INTROSPECTION_BUCKET : undefined);
  }

  /** How many introspection answers are kept, and what they weigh. */
  get introspectionsKept(): { bytes: number; entries: number } {
    return { bytes: this.introspections.bytes, entries: this.introspections.size };
  }

  /**
   * Where the answer of `operation` is kept when it only introspects (`__schema`, `__type`, `__typename`,
   * no field of the schema's own): its answer depends on nothing but the schema, the document, the
   * operation and the variables. Undefined for any other operation. The introspection setting is the
   * gate's: with it off, no such document gets this far.
   */
  introspectionKey(document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | null | undefined): string | undefined {
    if (operation.operation !== 'query') return undefined;
    const cost = this.costOf(document, operation);
    if (cost.introspection === 0 || cost.rootFields.size > 0) return undefined;
    let id = documentIds.get(document);
    if (id === undefined) documentIds.set(document, (id = ++documentCount));
    return `${id}\n${operation.name?.value ?? ''}\n${JSON.stringify(variables ?? {})}`;
  }

  /** The kept answer under `key`, if any. */
  keptIntrospection(key: string): ExecutionResult | undefined {
    return this.introspections.get(key);
  }

  /** Keeps an introspection's answer (one with errors is not kept: it is computed again). */
  keepIntrospection(key: string, answer: ExecutionResult): void {
    if (!answer.errors?.length) this.introspections.set(key, answer);
  }

  /**
   * Runs an admitted operation, or answers from what is kept when it only introspects: computed once for
   * each document, operation and variables, concurrent runs sharing one computation. Call after admit,
   * so the cost, rate and auth checks stand before every answer, kept or not.
   */
  async run(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | null | undefined,
    execute: () => ExecutionResult | Promise<ExecutionResult>,
  ): Promise<ExecutionResult> {
    const key = this.introspectionKey(document, operation, variables);
    if (key === undefined) return execute();
    const kept = this.introspections.get(key) ?? this.introspecting.get(key);
    if (kept) return kept;
    const computing = Promise.resolve()
      .then(execute)
      .then((answer) => {
        this.keepIntrospection(key, answer);
        return answer;
      })
      .finally(() => this.introspecting.delete(key));
    this.introspecting.set(key, computing);
    return computing;
  }

  private costOf(document: DocumentNode, operation: OperationDefinitionNode): OperationCost {
    const known = this.byDocument.get(document)?.costs.get(operation.name?.value ?? '');
    if (known) return known;
    // A document that did not come through prepare (none should): measured and held to the limits here.
    const cost = measureOperation(this.schema, document, operation, this.limits);
    const problem = costProblem(cost, this.limits) ?? (cost.introspection && !this.options.introspection ? 'Introspection is turned off on this server' : undefined);
    if (problem) throw new BadRequest(problem);
    return cost;
  }

  /**
   * The gate for yoga (GET and other POSTs of /graphql, graphql-sse, and graphql-ws through
   * yoga.getEnveloped): documents are parsed and validated here, from the same cache as the fast path
   * (yoga's own cache is off), and every execution and subscription is admitted.
   */
  plugin(rateDecisions: WeakMap<object, RateDecision>): Plugin<Ctx & { request?: Request }> {
    const admit = async (ctx: Ctx & { request?: Request }, document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown> | null | undefined) => {
      const operation = getOperationAST(document, operationName);
      if (!operation) return undefined;
      try {
        const decision = await this.admit(ctx, document, operation, variables);
        if (decision && ctx.request) rateDecisions.set(ctx.request, decision);
        return decision && !decision.allowed ? new RateLimited(decision.retryAfterSeconds) : undefined;
      } catch (err) {
        return err as GraphQLError;
      }
    };
    return {
      onParse: ({ params, setParsedDocument }) => {
        const prepared = this.prepare(typeof params.source === 'string' ? params.source : params.source.body);
        if (prepared.refused) {
          // Refused as a validation error, not thrown: every transport answers validation errors as such
          // (graphql-sse answers a thrown parse error with a 500 and its stack).
          const placeholder = parse('{ __typename }');
          this.byDocument.set(placeholder, prepared);
          setParsedDocument(placeholder);
        } else setParsedDocument(prepared.document!);
      },
      onValidate: ({ params, setResult }) => {
        const prepared = params.schema === this.schema ? this.byDocument.get(params.documentAST) : undefined;
        if (prepared) setResult(prepared.refused ? [prepared.refused] : prepared.validationErrors);
      },
      onExecute: async ({ args, setResultAndStopExecution }) => {
        const refused = await admit(args.contextValue, args.document, args.operationName, args.variableValues);
        if (refused) return void setResultAndStopExecution({ errors: [refused] });
        const operation = getOperationAST(args.document, args.operationName);
        const key = operation ? this.introspectionKey(args.document, operation, args.variableValues) : undefined;
        if (key === undefined) return undefined;
        const kept = this.keptIntrospection(key);
        if (kept) return void setResultAndStopExecution({ ...kept });
        return {
          onExecuteDone: ({ result }) => {
            if (!(Symbol.asyncIterator in Object(result))) this.keepIntrospection(key, result as ExecutionResult);
          },
        };
      },
      async onSubscribe({ args, setResultAndStopExecution }) {
        const refused = await admit(args.contextValue, args.document, args.operationName, args.variableValues);
        if (refused) setResultAndStopExecution({ errors: [refused] });
      },
    };
  }
}
