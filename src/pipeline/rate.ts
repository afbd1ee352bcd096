// Rate buckets, spent per caller (its live credential, or its address without one: CONTRACT §5). A REST
// route, the GraphQL field it runs and the MCP tools on it share one bucket, so they share its budget.
import type { Ctx } from '../domain/context';
import { rateSubject } from '../domain/request-context';
import { RateLimited } from '../platform/errors';
import type { Bucket, RateDecision } from '../platform/rate-limit';

/** One rate bucket an operation spends, `points` times (a GraphQL document selecting a field twice spends it twice). */
export interface Charge {
  bucket: Bucket;
  points: number;
}

/**
 * Spends each charge in turn, stopping at the first refused; puts the tightest decision's X-RateLimit-*
 * headers into `headers` and throws 429 when a bucket was empty.
 */
export function spendCharges(ctx: Ctx, charges: readonly Charge[], headers: Record<string, string>): void | Promise<void> {
  if (!charges.length) return;
  const known = rateSubject(ctx);
  return typeof known === 'string' ? spend(ctx, charges, headers, known) : known.then((subject) => spend(ctx, charges, headers, subject));
}

async function spend(ctx: Ctx, charges: readonly Charge[], headers: Record<string, string>, subject: string): Promise<void> {
  let tightest: RateDecision | undefined;
  for (const { bucket, points } of charges) {
    const decision = await ctx.services.limiter.consume(bucket, subject, points);
    if (!tightest || !decision.allowed || decision.remaining < tightest.remaining) tightest = decision;
    if (!decision.allowed) break;
  }
  Object.assign(headers, rateHeaders(tightest!));
  if (!tightest!.allowed) throw new RateLimited(tightest!.retryAfterSeconds);
}

function rateHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.reset),
  };
  if (!decision.allowed) headers['Retry-After'] = String(decision.retryAfterSeconds);
  return headers;
}
