// Rate limits for GraphQL: each root field of an operation spends the budget of its REST twin's bucket
// (CONTRACT §5), or a per-field default bucket when it has none. Applies over HTTP, WebSocket and SSE.
import { getOperationAST, Kind, type DocumentNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Ctx } from '../src/domain/context';
import { rateSubject } from '../src/domain/request-context';
import { RateLimited } from '../src/platform/errors';
import type { Bucket, RateDecision } from '../src/platform/rate-limit';

export const DEFAULT_FIELD_PER_MINUTE = 60;

/** Root-field coordinates (`Query.me`) of an operation, once per occurrence. */
export function rootFieldCoordinates(document: DocumentNode, operationName?: string | null): string[] {
  const op = getOperationAST(document, operationName);
  if (!op) return [];
  const typeName = op.operation === 'query' ? 'Query' : op.operation === 'mutation' ? 'Mutation' : 'Subscription';
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const out: string[] = [];
  const walk = (set: SelectionSetNode, seen: Set<string>) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (!sel.name.value.startsWith('__')) out.push(`${typeName}.${sel.name.value}`);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet, seen);
      } else {
        const frag = fragments.get(sel.name.value);
        if (frag && !seen.has(frag.name.value)) walk(frag.selectionSet, new Set([...seen, frag.name.value]));
      }
    }
  };
  walk(op.selectionSet, new Set());
  return out;
}

/** The decision to report in X-RateLimit-* headers for an HTTP request. */
export const rateDecisions = new WeakMap<object, RateDecision>();

export class FieldRateLimits {
  constructor(private readonly fieldBuckets: Map<string, Bucket>) {}

  bucketFor(coordinate: string): Bucket {
    return this.fieldBuckets.get(coordinate) ?? { name: `gql:${coordinate}`, perMinute: DEFAULT_FIELD_PER_MINUTE };
  }

  /** Spends one unit of each root field's bucket; returns the tightest decision (undefined for no fields). */
  async charge(ctx: Ctx, document: DocumentNode, operationName?: string | null): Promise<RateDecision | undefined> {
    let tightest: RateDecision | undefined;
    for (const coordinate of rootFieldCoordinates(document, operationName)) {
      const decision = await ctx.services.limiter.consume(this.bucketFor(coordinate), rateSubject(ctx));
      if (!tightest || !decision.allowed || decision.remaining < tightest.remaining) tightest = decision;
      if (!decision.allowed) break;
    }
    return tightest;
  }

  /** The envelop plugin applying the limits to yoga's HTTP, SSE and WebSocket executions. */
  plugin(): Plugin<Ctx & { request?: Request }> {
    const charge = async (ctx: Ctx & { request?: Request }, document: DocumentNode, operationName?: string | null) => {
      const decision = await this.charge(ctx, document, operationName);
      if (decision && ctx.request) rateDecisions.set(ctx.request, decision);
      return decision && !decision.allowed ? new RateLimited(decision.retryAfterSeconds) : undefined;
    };
    return {
      async onExecute({ args, setResultAndStopExecution }) {
        const limited = await charge(args.contextValue, args.document, args.operationName);
        if (limited) setResultAndStopExecution({ errors: [limited] });
      },
      async onSubscribe({ args, setResultAndStopExecution }) {
        const limited = await charge(args.contextValue, args.document, args.operationName);
        if (limited) setResultAndStopExecution({ errors: [limited] });
      },
    };
  }
}
