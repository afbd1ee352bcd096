// Provider statistics (success and failure counts, latency percentiles, last success and failure,
// cooldown after consecutive failures) and the providers' reputation, folded from execution attempts right
// after each execution commits, off the request path: a request never waits on a hot service's row lock.
import type { DbTx } from '../../db/database';
import type { Services } from '../context';
import { transact, type Emit } from '../events';
import { Worker } from '../../platform/worker';
import { applyReputation, clampReputation } from '../reputation/reputation';

/** Upper bounds of the latency buckets in milliseconds; one more bucket holds everything slower. */
export const LATENCY_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000] as const;
/** Past this many samples the histogram is halved, so that recent calls weigh more than old ones. */
const HISTOGRAM_CAP = 10_000;
/** Three failures in a row start a cooldown of 30 s, doubling with each further failure up to 10 minutes. */
export const COOLDOWN_AFTER = 3;
const COOLDOWN_BASE_MS = 30_000;
const COOLDOWN_MAX_MS = 600_000;
/** A provider gains a point of reputation per 10 successful calls and loses one per 5 failed calls. */
export const SUCCESSES_PER_POINT = 10;
export const FAILURES_PER_POINT = 5;
/** Attempts folded per round. */
const BATCH = 1000;
/** Statistics trail the executions by at most about this much (plus a fold's own time). */
const FOLD_INTERVAL_MS = 1000;

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

export function cooldownMs(consecutiveFailures: number): number {
  if (consecutiveFailures < COOLDOWN_AFTER) return 0;
  return Math.min(COOLDOWN_MAX_MS, COOLDOWN_BASE_MS * 2 ** (consecutiveFailures - COOLDOWN_AFTER));
}

interface AttemptRow {
  service_id: string | null;
  outcome: string;
  latency_ms: number;
  created_at: Date;
}

interface ServiceRow {
  id: string;
  agent_id: string;
  success_count: number;
  failure_count: number;
  latency_buckets: number[];
  consecutive_failures: number;
  last_success_at: Date | null;
  last_failure_at: Date | null;
}

/** Folds one batch of unfolded attempts inside `tx`; returns how many attempts it folded. */
async function foldBatch(tx: DbTx, emit: Emit, batch: number): Promise<number> {
  const attempts = await tx.$queryRaw<AttemptRow[]>`
    UPDATE execution_attempts a SET folded = true FROM (
      SELECT id FROM execution_attempts WHERE NOT folded ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED
    ) due WHERE a.id = due.id
    RETURNING a.service_id, a.outcome, a.latency_ms, a.created_at`;
  // Attempts of a service deleted since (its id cleared) are marked folded and count for nothing: left
  // unfolded, they would be claimed again by every round, and a batch of them would stop the fold for good.
  const ids = [...new Set(attempts.flatMap((a) => (a.service_id ? [a.service_id] : [])))];
  if (!ids.length) return attempts.length;
  // Lock order: agents, then services (see marketplace_sync_offers). NO KEY UPDATE, like the UPDATEs that
  // follow: it does not conflict with the KEY SHARE locks that inserts referencing these rows take, so an
  // execution being recorded never waits on (or deadlocks with) a fold.
  const agents = await tx.$queryRaw<{ id: string; reputation: number }[]>`
    SELECT a.id, a.reputation FROM agents a WHERE a.id IN (SELECT agent_id FROM services WHERE id = ANY(${ids}::uuid[])) ORDER BY a.id FOR NO KEY UPDATE`;
  const reputationOf = new Map(agents.map((a) => [a.id, a.reputation]));
  const services = await tx.$queryRaw<ServiceRow[]>`
    SELECT id, agent_id, success_count, failure_count, latency_buckets, consecutive_failures, last_success_at, last_failure_at
    FROM services WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;
  const reputation = new Map<string, { delta: number; successes: number; failures: number }>();
  for (const s of services) {
    const mine = attempts.filter((a) => a.service_id === s.id).sort((x, y) => new Date(x.created_at).getTime() - new Date(y.created_at).getTime());
    const buckets = Array.from({ length: LATENCY_BUCKETS_MS.length + 1 }, (_, i) => s.latency_buckets[i] ?? 0);
    let { consecutive_failures: streak, last_success_at: lastSuccess, last_failure_at: lastFailure } = s;
    let successes = 0;
    let failures = 0;
    for (const a of mine) {
      if (a.outcome === 'success') {
        successes++;
        streak = 0;
        lastSuccess = new Date(a.created_at);
        buckets[bucketOf(a.latency_ms)]++;
      } else {
        failures++;
        streak++;
        lastFailure = new Date(a.created_at);
      }
    }
    if (buckets.reduce((n, c) => n + c, 0) > HISTOGRAM_CAP) for (let i = 0; i < buckets.length; i++) buckets[i] = Math.floor(buckets[i] / 2);
    const cooldown = streak >= COOLDOWN_AFTER && lastFailure ? new Date(lastFailure.getTime() + cooldownMs(streak)) : null;
    await tx.$executeRaw`
      UPDATE services SET success_count = success_count + ${successes}, failure_count = failure_count + ${failures},
        latency_buckets = ${buckets}::int[], latency_p50_ms = ${percentile(buckets, 0.5)}, latency_p95_ms = ${percentile(buckets, 0.95)},
        last_success_at = ${lastSuccess}, last_failure_at = ${lastFailure}, consecutive_failures = ${streak}, cooldown_until = ${cooldown}
      WHERE id = ${s.id}::uuid`;
    const points =
      Math.floor((s.success_count + successes) / SUCCESSES_PER_POINT) - Math.floor(s.success_count / SUCCESSES_PER_POINT) -
      (Math.floor((s.failure_count + failures) / FAILURES_PER_POINT) - Math.floor(s.failure_count / FAILURES_PER_POINT));
    const r = reputation.get(s.agent_id) ?? { delta: 0, successes: 0, failures: 0 };
    reputation.set(s.agent_id, { delta: r.delta + points, successes: r.successes + successes, failures: r.failures + failures });
  }
  for (const [agentId, r] of reputation) {
    // A change the clamp would cancel (a busy star provider at 100, every fold) is not recorded moving nowhere.
    const current = reputationOf.get(agentId);
    if (current === undefined || clampReputation(current + r.delta) === current) continue;
    await applyReputation(tx, emit, {
      agentId,
      delta: r.delta,
      reason: `provider calls: ${r.successes} succeeded, ${r.failures} failed`,
      sourceType: 'provider_stats',
    });
  }
  return attempts.length;
}

/**
 * Runs folds: `wake()` after an execution commits, and a poll for attempts other instances left (FOR
 * UPDATE SKIP LOCKED lets any number of instances share the work).
 */
export class ProviderStats {
  private readonly worker: Worker;

  constructor(private readonly services: Services) {
    // Executions wake it, at most every FOLD_INTERVAL_MS: under load one fold takes many attempts at once.
    this.worker = new Worker({ name: 'provider-stats', round: () => this.foldOnce(), log: services.log, pollMs: 5_000, fullBatch: BATCH, minIntervalMs: FOLD_INTERVAL_MS });
  }

  start(): void {
    this.worker.start({ runNow: false });
  }

  wake(): void {
    this.worker.wake();
  }

  /** One batch; resolves with the number of attempts folded. */
  foldOnce(batch = BATCH): Promise<number> {
    return transact({ db: this.services.db, services: this.services }, (tx, emit) => foldBatch(tx, emit, batch));
  }

  /** Waits for the fold in progress (tests use it to see statistics settle). */
  settled(): Promise<void> {
    return this.worker.settled();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}
