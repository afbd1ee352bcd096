// The gate of GraphQL documents from outside (POST and GET /graphql, graphql-sse, graphql-ws): each is checked at the
// boundary, parsed with a token limit, measured and validated once, and kept in a cache bounded in bytes; each run goes
// through the pipeline (src/pipeline) with its rate buckets and cost at the request's page sizes. An operation that only
// introspects answers the same for every caller, so its answer is computed once and kept.
import {
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
import { documentId, MAX_TOKENS, sizedCostProblem, costLimitsFor } from '../src/pipeline/limits';
import { runOperation, type Charge, type Surface } from '../src/pipeline/pipeline';
import { BoundedCache, stringBytes } from '../src/platform/bounded-cache';
import { BadRequest } from '../src/platform/errors';
import { documentProblem, StorableTextRule } from '../src/platform/input-boundary';
import { costProblem, measureDocument, measureOperation, type CostLimits, type OperationCost } from '../src/platform/operation-cost';
import type { Bucket } from '../src/platform/rate-limit';
import type { FieldRateLimits } from './rate-limits';

/** What the parsed documents kept for reuse may weigh together. */
export const DOCUMENT_CACHE_BYTES = 32 * 1024 * 1024;
/** What one parsed token may weigh (its token record and its share of the AST and locations), erring high. */
const BYTES_PER_TOKEN = 400;
/** Every operation that introspects spends one request of this bucket too. */
export const INTROSPECTION_BUCKET: Bucket = { name: 'introspection', perMinute: 30 };
/** What the kept answers of introspection operations may weigh together (a full one of this schema is some hundreds of KiB). */
export const INTROSPECTION_CACHE_BYTES = 16 * 1024 * 1024;

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
  private readonly introspections = new BoundedCache<ExecutionResult>(
    INTROSPECTION_CACHE_BYTES,
    (key, answer) => stringBytes(key) + 2 * JSON.stringify(answer).length,
  );
  /** Those being computed, shared by the runs that ask meanwhile. */
  private readonly introspecting = new Map<string, Promise<ExecutionResult>>();
  readonly limits: CostLimits;
  /** Each measured operation's charges, made once. */
  private readonly charges = new WeakMap<OperationCost, Charge[]>();

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
      return refuse(
        tooLong
          ? requestError(`The document has more than ${MAX_TOKENS} tokens`)
          : new GraphQLError(e.message, { source: e.source, positions: e.positions, extensions: { code: 'BAD_REQUEST', http: { spec: true, status: 400 } } }),
      );
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
      (e) =>
        new GraphQLError(e.message, {
          nodes: e.nodes,
          source: e.source,
          positions: e.positions,
          extensions: { code: 'BAD_REQUEST', ...e.extensions, http: { spec: true, status: 400 } },
        }),
    );
    return { document, validationErrors, costs, bytes: tokenCount(document) * BYTES_PER_TOKEN };
  }

  /**
   * Runs `operation` for a client through the pipeline: its root fields' rate buckets (and introspection's), the input
   * boundary and its cost at the request's page sizes, then `execute`, or the kept answer when it only introspects. A
   * refusal is thrown, with the rate headers in `headers`.
   */
  operate<T>(
    ctx: Ctx,
    surface: Surface,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | null | undefined,
    headers: Record<string, string>,
    execute: () => T | Promise<T>,
  ): Promise<T> {
    const cost = this.costOf(document, operation);
    return runOperation<T>({
      surface,
      ctx,
      label: operation.name?.value ?? operation.operation,
      charges: this.chargesOf(cost),
      auth: 'fields',
      headers,
      read: () => ({ variables: variables ?? {} }),
      cost: (given) => sizedCostProblem(this.schema, document, operation, cost, given),
      run: () =>
        operation.operation === 'subscription' ? execute() : (this.run(document, operation, variables, execute as () => ExecutionResult) as Promise<T>),
    });
  }

  /** What an operation spends: each root field's bucket once per selection, and the introspection bucket. */
  private chargesOf(cost: OperationCost): Charge[] {
    let charges = this.charges.get(cost);
    if (!charges) {
      charges = [...cost.rootFields].map(([coordinate, points]) => ({ bucket: this.fieldLimits.bucketFor(coordinate), points }));
      if (cost.introspection > 0) charges.push({ bucket: INTROSPECTION_BUCKET, points: 1 });
      this.charges.set(cost, charges);
    }
    return charges;
  }

  /** How many introspection answers are kept, and what they weigh. */
  get introspectionsKept(): { bytes: number; entries: number } {
    return { bytes: this.introspections.bytes, entries: this.introspections.size };
  }

  /**
   * Where the answer of `operation` is kept when it only introspects (no field of the schema's own): it depends only on
   * the schema, document, operation and variables. Undefined for any other operation; with introspection off, no such
   * document gets this far.
   */
  introspectionKey(document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | null | undefined): string | undefined {
    if (operation.operation !== 'query') return undefined;
    const cost = this.costOf(document, operation);
    if (cost.introspection === 0 || cost.rootFields.size > 0) return undefined;
    return `${documentId(document)}\n${operation.name?.value ?? ''}\n${JSON.stringify(variables ?? {})}`;
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
    const problem =
      costProblem(cost, this.limits) ?? (cost.introspection && !this.options.introspection ? 'Introspection is turned off on this server' : undefined);
    if (problem) throw new BadRequest(problem);
    return cost;
  }

  /**
   * The gate for yoga (GET and other POSTs of /graphql, graphql-sse, graphql-ws through yoga.getEnveloped): documents
   * come from the fast path's cache (yoga's own is off), every execution and subscription runs through the pipeline,
   * and the headers its guards add are kept by request, for the answer.
   */
  plugin(answerHeaders: WeakMap<object, Record<string, string>>): Plugin<Ctx & { request?: Request; socket?: unknown }> {
    const surfaceOf = (ctx: Ctx & { request?: Request; socket?: unknown }): Surface => {
      if (ctx.socket !== undefined) return 'graphql-ws';
      const accept = ctx.request?.headers.get('accept') ?? '';
      return ctx.request && (new URL(ctx.request.url).pathname.endsWith('/stream') || accept.includes('text/event-stream')) ? 'graphql-sse' : 'graphql';
    };
    const through = <T>(
      args: { contextValue?: unknown; document: DocumentNode; operationName?: string | null; variableValues?: Record<string, unknown> | null },
      execute: () => T | Promise<T>,
    ) => {
      const ctx = args.contextValue as Ctx & { request?: Request; socket?: unknown };
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return execute();
      const headers: Record<string, string> = {};
      if (ctx.request) answerHeaders.set(ctx.request, headers);
      let ran = false;
      const run = () => {
        ran = true;
        return execute();
      };
      // A guard's refusal is the operation's error (yoga answers it with the request's status); the operation's own errors are yoga's.
      return this.operate(ctx, surfaceOf(ctx), args.document, operation, args.variableValues, headers, run).catch((err: unknown) => {
        if (ran) throw err;
        return { errors: [err as GraphQLError] } as T;
      });
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
      onExecute: ({ executeFn, setExecuteFn }) => {
        setExecuteFn((args) => through(args, () => executeFn(args)));
      },
      onSubscribe: ({ subscribeFn, setSubscribeFn }) => {
        setSubscribeFn((args) => through(args, () => subscribeFn(args)));
      },
    };
  }
}
