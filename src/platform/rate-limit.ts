// Fixed-window rate limits per bucket per subject (a credential hash or a client address), kept in
// memory or, with REDIS_URL, in Redis so that every instance shares the counters.
import type Redis from 'ioredis';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { onFirstUse } from './lazy';

/** The limiters' library, loaded when the first bucket is spent: an idle start never needs it (docs/operations.md, Start). */
const flexible = onFirstUse(() => require('rate-limiter-flexible') as typeof import('rate-limiter-flexible'));

export interface Bucket {
  name: string;
  perMinute: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly redis?: Redis,
    private readonly disabled = false,
  ) {}

  private limiter(bucket: Bucket): RateLimiterAbstract {
    let limiter = this.limiters.get(bucket.name);
    if (!limiter) {
      const { RateLimiterMemory, RateLimiterRedis } = flexible();
      const opts = { keyPrefix: `rl:${bucket.name}`, points: bucket.perMinute, duration: 60 };
      // If Redis is unreachable the instance keeps limiting on its own rather than failing requests.
      limiter = this.redis
        ? new RateLimiterRedis({ ...opts, storeClient: this.redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(opts) })
        : new RateLimiterMemory(opts);
      this.limiters.set(bucket.name, limiter);
    }
    return limiter;
  }

  /** Spends `points` (default 1) of the bucket for `subject`. */
  async consume(bucket: Bucket, subject: string, points = 1): Promise<RateDecision> {
    if (this.disabled) {
      return { allowed: true, limit: bucket.perMinute, remaining: bucket.perMinute, reset: Math.ceil(Date.now() / 1000) + 60, retryAfterSeconds: 0 };
    }
    const decide = (res: RateLimiterRes, allowed: boolean): RateDecision => ({
      allowed,
      limit: bucket.perMinute,
      remaining: Math.max(0, res.remainingPoints),
      reset: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    });
    try {
      return decide(await this.limiter(bucket).consume(subject, points), true);
    } catch (res) {
      if (res instanceof flexible().RateLimiterRes) return decide(res, false);
      throw res;
    }
  }
}
