// Rate limits for GraphQL: each root field of an operation spends the budget of its REST twin's bucket
// (CONTRACT §5), or a per-field default bucket when it has none, once for each time the operation selects
// it. Applies over HTTP, WebSocket and SSE (schema/operation-gate.ts admits every operation).
import type { Ctx } from '../src/domain/context';
import { rateSubject } from '../src/domain/request-context';
import type { Bucket, RateDecision } from '../src/platform/rate-limit';

export const DEFAULT_FIELD_PER_MINUTE = 60;

/** The decision to report in X-RateLimit-* headers for an HTTP request. */
export const rateDecisions = new WeakMap<object, RateDecision>();

export class FieldRateLimits {
  constructor(private readonly fieldBuckets: Map<string, Bucket>) {}

  bucketFor(coordinate: string): Bucket {
    return this.fieldBuckets.get(coordinate) ?? { name: `gql:${coordinate}`, perMinute: DEFAULT_FIELD_PER_MINUTE };
  }

  /**
   * Spends, for each root field (by coordinate), one unit of its bucket per selection, and one unit of
   * `also` when given; returns the tightest decision (undefined for nothing spent), stopping at a refusal.
   */
  async charge(ctx: Ctx, rootFields: ReadonlyMap<string, number>, also?: Bucket): Promise<RateDecision | undefined> {
    if (!rootFields.size && !also) return undefined;
    const known = rateSubject(ctx);
    const subject = typeof known === 'string' ? known : await known;
    let tightest: RateDecision | undefined;
    const spend = async (bucket: Bucket, points: number) => {
      const decision = await ctx.services.limiter.consume(bucket, subject, points);
      if (!tightest || !decision.allowed || decision.remaining < tightest.remaining) tightest = decision;
      return decision.allowed;
    };
    for (const [coordinate, times] of rootFields) if (!(await spend(this.bucketFor(coordinate), times))) return tightest;
    if (also) await spend(also, 1);
    return tightest;
  }
}
