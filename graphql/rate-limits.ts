// Rate limits for GraphQL: each root field of an operation spends the budget of its REST twin's bucket
// (CONTRACT §5), or a per-field default bucket when it has none, once for each time the operation selects
// it. Spent by the pipeline's rate guard over HTTP, WebSocket and SSE (src/pipeline).
import type { Bucket } from '../src/platform/rate-limit';

export const DEFAULT_FIELD_PER_MINUTE = 60;

/** The headers the pipeline's guards gave an HTTP request's answer (X-RateLimit-*), by request. */
export const answerHeaders = new WeakMap<object, Record<string, string>>();

export class FieldRateLimits {
  constructor(private readonly fieldBuckets: Map<string, Bucket>) {}

  bucketFor(coordinate: string): Bucket {
    return this.fieldBuckets.get(coordinate) ?? { name: `gql:${coordinate}`, perMinute: DEFAULT_FIELD_PER_MINUTE };
  }
}
