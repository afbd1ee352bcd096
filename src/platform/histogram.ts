// Latency histograms: counts of durations in fixed buckets, from which percentiles are read.

/** Upper bounds of the latency buckets in milliseconds; one more bucket holds everything slower. */
export const LATENCY_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000] as const;

export function bucketOf(latencyMs: number): number {
  const i = LATENCY_BUCKETS_MS.findIndex((bound) => latencyMs <= bound);
  return i === -1 ? LATENCY_BUCKETS_MS.length : i;
}

/** The q-quantile of a bucketed histogram, interpolated linearly inside its bucket; null when empty. */
export function percentile(buckets: readonly number[], q: number): number | null {
  const total = buckets.reduce((n, c) => n + c, 0);
  if (!total) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    if (!buckets[i]) continue;
    if (seen + buckets[i] >= rank) {
      const low = i === 0 ? 0 : LATENCY_BUCKETS_MS[i - 1];
      const high = i < LATENCY_BUCKETS_MS.length ? LATENCY_BUCKETS_MS[i] : LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1] * 2;
      return Math.round(low + ((rank - seen) / buckets[i]) * (high - low));
    }
    seen += buckets[i];
  }
  return LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1];
}
