// Provider statistics (success and failure counts, latency percentiles, last success and failure,
// cooldown after consecutive failures) and the providers' reputation, folded from the queue of provider
// attempts (attempts_to_fold, written with each execution) shortly after each execution commits, off the
// request path: a request never waits on a hot service's row lock. The statistics count every call; the
// reputation moves only with calls that put a price at stake for a caller outside the provider's family.
import { retryTransient } from '../../db/database';
import type { Services } from '../context';
import type { OutboxRecord } from '../../platform/outbox';
import { announceCommitted, eventCtes, makeEvent } from '../events';
import { Worker } from '../../platform/worker';
import { bucketOf, LATENCY_BUCKETS_MS, percentile } from '../../platform/histogram';
import { daysUpsert, DayDeltas } from '../services/quality';
import { categoryOf } from './receipts';
import { DAILY_GAIN_CAP, FAMILY_ROOTS, GAIN_WINDOW_MS, gainedSince, reputationMove, rootsOf, type FamilyRoot } from '../reputation/reputation';

declare module '../context' {
  interface Services {
    /** Folds execution attempts into provider statistics and reputation after each execution. */
    providerStats: ProviderStats;
  }
}

/** Past this many samples the histogram is halved, so that recent calls weigh more than old ones. */
const HISTOGRAM_CAP = 10_000;
/** Three failures in a row start a cooldown of 30 s, doubling with each further failure up to 10 minutes. */
export const COOLDOWN_AFTER = 3;
const COOLDOWN_BASE_MS = 30_000;
const COOLDOWN_MAX_MS = 600_000;
/**
 * A provider gains a point of reputation per 10 successful calls and loses one per 5 failed calls, of the
 * calls that count for it (countsForReputation).
 */
export const SUCCESSES_PER_POINT = 10;
export const FAILURES_PER_POINT = 5;
/** Attempts folded per round. */
const BATCH = 1000;
/** After a failed attempt, statistics (and a cooldown) trail the executions by at most about this much (plus a fold's own time). */
const FOLD_INTERVAL_MS = 1000;
/**
 * After successes only, at most about this much: a fold holds the embedded database's one session a while
 * and every call recorded meanwhile waits behind it, while what a success moves changes slowly anyway.
 */
const LAZY_FOLD_MS = 5000;

export function cooldownMs(consecutiveFailures: number): number {
  if (consecutiveFailures < COOLDOWN_AFTER) return 0;
  return Math.min(COOLDOWN_MAX_MS, COOLDOWN_BASE_MS * 2 ** (consecutiveFailures - COOLDOWN_AFTER));
}

interface QueuedAttempt {
  id: string;
  service_id: string;
  outcome: string;
  latency_ms: number;
  created_at: Date;
  /** Who called (null for attempts queued before it was recorded). */
  caller_id: string | null;
  /** A success's price as charged, a failure's as held (attempts_to_fold.price_cents). */
  price_cents: number;
  /** A provider's 429: the seconds its Retry-After asked for. */
  retry_after_seconds: number | null;
  /** A failure's reason and HTTP status, of which its category is taken. */
  reason: string | null;
  status_code: number | null;
}

/**
 * Whether a call moves its provider's reputation: only when it put a price at stake for a caller outside the
 * provider's family. A success counts when its caller was charged for it (a reputation bought only from
 * oneself, one's sub-agents or with free calls would cost nothing); a failure when its caller held the price
 * for it (failed calls are never charged), so that nobody sinks a competitor with free calls or with calls of
 * a free service, and a family's own calls neither raise nor sink it. A caller the database no longer knows
 * (deleted since) is in no family that can be shown to be another: its calls do not count.
 */
function countsForReputation(a: Pick<QueuedAttempt, 'caller_id' | 'price_cents'>, provider: string, roots: Map<string, string>): boolean {
  if (!atStakeFromAnother(a, provider)) return false;
  const [caller, own] = [roots.get(a.caller_id!), roots.get(provider)];
  return caller !== undefined && own !== undefined && caller !== own;
}

/** Whether a call put a price at stake for a caller other than `provider` itself (its family is looked up apart). */
const atStakeFromAnother = (a: Pick<QueuedAttempt, 'caller_id' | 'price_cents'>, provider: string) =>
  a.caller_id !== null && a.price_cents > 0 && a.caller_id !== provider;

interface ServiceRow {
  id: string;
  agent_id: string;
  /** The provider's reputation. */
  reputation: number;
  /** What the provider has gained in the last 24 hours (DAILY_GAIN_CAP bounds its points too). */
  gained: number;
  success_count: number;
  failure_count: number;
  latency_buckets: number[];
  consecutive_failures: number;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  cooldown_until: Date | null;
  excused_count: number;
  /** The successes and failures counted so far for the provider's reputation (countsForReputation). */
  reputation_success_count: number;
  reputation_failure_count: number;
}

/**
 * A service's statistics with `attempts` (in any order) counted, every one of them, and the reputation
 * points earned by those that `count` for it.
 */
function foldService(
  s: Omit<ServiceRow, 'id' | 'agent_id' | 'reputation' | 'gained'>,
  attempts: readonly (Pick<QueuedAttempt, 'outcome' | 'latency_ms' | 'created_at'> &
    Partial<Pick<QueuedAttempt, 'retry_after_seconds' | 'reason' | 'status_code'>> & { counts: boolean })[],
) {
  const ordered = [...attempts].sort((x, y) => new Date(x.created_at).getTime() - new Date(y.created_at).getTime());
  const buckets = Array.from({ length: LATENCY_BUCKETS_MS.length + 1 }, (_, i) => s.latency_buckets[i] ?? 0);
  let { consecutive_failures: streak, last_success_at: lastSuccess, last_failure_at: lastFailure } = s;
  let until = s.cooldown_until ? new Date(s.cooldown_until).getTime() : null;
  let successes = 0;
  let failures = 0;
  let excused = 0;
  let lastFailureReason: string | null = null;
  // Of those, the ones that count for the provider's reputation.
  const counted = { successes: 0, failures: 0 };
  for (const a of ordered) {
    if (a.outcome === 'success') {
      successes++;
      if (a.counts) counted.successes++;
      streak = 0;
      until = null;
      lastSuccess = new Date(a.created_at);
      buckets[bucketOf(a.latency_ms)]++;
    } else if (a.outcome === 'excused') {
      // Not the provider's fault (a refusal of the caller's input, the caller's deadline): counted apart.
      excused++;
    } else {
      failures++;
      if (a.counts) counted.failures++;
      lastFailureReason = categoryOf({ outcome: 'failure', reason: a.reason ?? 'internal', statusCode: a.status_code ?? null, serviceId: 'folded' });
      const at = new Date(a.created_at).getTime();
      lastFailure = new Date(at);
      const retryAfter = a.retry_after_seconds ?? null;
      // A 429 with Retry-After: a cooldown as long as the provider asked, no longer; its streak is left alone.
      if (retryAfter !== null) until = Math.max(until ?? 0, at + Math.min(retryAfter * 1000, COOLDOWN_MAX_MS));
      else if (++streak >= COOLDOWN_AFTER) until = Math.max(until ?? 0, at + cooldownMs(streak));
    }
  }
  if (buckets.reduce((n, c) => n + c, 0) > HISTOGRAM_CAP) for (let i = 0; i < buckets.length; i++) buckets[i] = Math.floor(buckets[i] / 2);
  const [rs, rf] = [s.reputation_success_count, s.reputation_failure_count];
  const points =
    Math.floor((rs + counted.successes) / SUCCESSES_PER_POINT) -
    Math.floor(rs / SUCCESSES_PER_POINT) -
    (Math.floor((rf + counted.failures) / FAILURES_PER_POINT) - Math.floor(rf / FAILURES_PER_POINT));
  return {
    counted,
    points,
    stats: {
      succeeded: successes > 0,
      last_failure_reason: lastFailureReason,
      success_count: s.success_count + successes,
      failure_count: s.failure_count + failures,
      reputation_success_count: rs + counted.successes,
      reputation_failure_count: rf + counted.failures,
      latency_buckets: buckets,
      latency_p50_ms: percentile(buckets, 0.5),
      latency_p95_ms: percentile(buckets, 0.95),
      last_success_at: lastSuccess,
      last_failure_at: lastFailure,
      consecutive_failures: streak,
      cooldown_until: until === null ? null : new Date(until),
      excused_count: s.excused_count + excused,
    },
  };
}

const READ_QUEUE = `SELECT q.id::text AS id, q.service_id, q.outcome, q.latency_ms, q.retry_after_seconds, q.created_at, q.caller_id, q.price_cents,
  q.reason, q.status_code FROM attempts_to_fold q ORDER BY q.id LIMIT $1`;
const READ_SERVICES = `
  SELECT s.id, s.agent_id, a.reputation, ${gainedSince('a.id', '$2')} AS gained,
    s.success_count, s.failure_count, s.latency_buckets, s.consecutive_failures, s.last_success_at, s.last_failure_at,
    s.cooldown_until, s.excused_count, s.reputation_success_count, s.reputation_failure_count
  FROM services s JOIN agents a ON a.id = s.agent_id WHERE s.id = ANY($1::uuid[])`;
/**
 * Everything a fold writes, in one statement: the queued attempts it counted deleted, the services'
 * statistics, and (`moves`) the providers' reputation with its events. Each write is conditional on what
 * the fold read (the attempts still queued, the statistics and the reputation as they were), and
 * marketplace_fold_unchanged aborts the whole statement unless every row was written: a serialization
 * failure, after which the fold reads again. Agents are written before services (the lock order
 * everywhere). Without moves the statement leaves agents alone: an UPDATE of no rows still runs their
 * statement trigger.
 */
const applySql = (moves: boolean) => `
  WITH ${
    moves
      ? `moves AS (
    SELECT * FROM jsonb_to_recordset($9::jsonb) AS m(agent_id uuid, previous int, reputation int, reason text, event_id text, data jsonb)
  ), moved AS (
    UPDATE agents a SET reputation = m.reputation FROM moves m WHERE a.id = m.agent_id AND a.reputation = m.previous RETURNING 1
  ), `
      : ''
  }stats AS (
    UPDATE services s SET success_count = v.success_count, failure_count = v.failure_count, latency_buckets = v.latency_buckets,
      latency_p50_ms = v.latency_p50_ms, latency_p95_ms = v.latency_p95_ms, last_success_at = v.last_success_at,
      last_failure_at = v.last_failure_at, consecutive_failures = v.consecutive_failures, cooldown_until = v.cooldown_until,
      reputation_success_count = v.reputation_success_count, reputation_failure_count = v.reputation_failure_count, excused_count = v.excused_count,
      -- A call that succeeded shows the provider alive, whatever probes found before (services/probes.ts).
      health = CASE WHEN v.succeeded THEN 'healthy' ELSE s.health END, probe_streak = CASE WHEN v.succeeded THEN 0 ELSE s.probe_streak END,
      last_failure_reason = COALESCE(v.last_failure_reason, s.last_failure_reason),
      quality_due_at = LEAST(COALESCE(s.quality_due_at, 'infinity'), $7::timestamptz)
    FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, seen_successes int, seen_failures int, seen_streak int, seen_excused int, success_count int,
      failure_count int, latency_buckets int[], latency_p50_ms int, latency_p95_ms int, last_success_at timestamptz,
      last_failure_at timestamptz, consecutive_failures int, cooldown_until timestamptz, reputation_success_count int, reputation_failure_count int,
      excused_count int, succeeded boolean, last_failure_reason text)
    WHERE s.id = v.id AND s.success_count = v.seen_successes AND s.failure_count = v.seen_failures AND s.consecutive_failures = v.seen_streak
      AND s.excused_count = v.seen_excused
    RETURNING 1
  ), claimed AS (
    -- The ids' range makes it one index range scan (the list alone is one index search per id).
    DELETE FROM attempts_to_fold WHERE id BETWEEN $3 AND $4 AND id = ANY($1::bigint[]) RETURNING 1
  ), days AS (${daysUpsert('$6')}
  )${
    moves
      ? `, noted AS (
    INSERT INTO reputation_events (id, agent_id, delta, score_after, reason, source_type, created_at)
    SELECT gen_random_uuid(), m.agent_id, m.reputation - m.previous, m.reputation, m.reason, 'provider_stats', $8::timestamptz FROM moves m
  ), ${eventCtes(`SELECT m.event_id, 'reputation.changed', m.agent_id, m.data, $8::timestamptz FROM moves m`)}`
      : ''
  }
  SELECT marketplace_fold_unchanged(${moves ? '(SELECT count(*) FROM moved) = (SELECT count(*) FROM moves) AND ' : ''}(SELECT count(*) FROM stats) = $5
      AND (SELECT count(*) FROM claimed) = cardinality($1::bigint[])) AS unchanged,
    ${moves ? '(SELECT count(*) FROM hooks)::int' : '0'} AS deliveries`;
const APPLY = { name: 'fold_apply', text: applySql(false) };
const APPLY_MOVING = { name: 'fold_apply_moving', text: applySql(true) };
/** Reads and writes again, this many times in all, when another fold (or a reputation change) moved what one read. */
const TRIES = 5;

/**
 * The family roots of the callers and providers of `queued` attempts that might count for a provider's
 * reputation (a price at stake, a caller other than the provider), read only when there are some: most
 * calls are free, and a fold of them reads nothing more.
 */
async function familiesOf(services: Services, queued: QueuedAttempt[], providerOf: Map<string, string>): Promise<Map<string, string>> {
  const agents = new Set<string>();
  for (const a of queued) {
    const provider = providerOf.get(a.service_id);
    if (provider === undefined || !atStakeFromAnother(a, provider)) continue;
    agents.add(a.caller_id!).add(provider);
  }
  if (!agents.size) return new Map();
  return rootsOf(await services.sql.query<FamilyRoot>(FAMILY_ROOTS, [[...agents]], 'fold_read_families'));
}

/**
 * Folds one batch of queued attempts; resolves with how many it counted. No transaction is held open: two
 * reads (three when a call had a price at stake), then one statement that writes everything or, when
 * something it read has moved since, nothing.
 * On the embedded database that keeps its one session free between the statements; on PostgreSQL
 * instances that fold the same attempts at once settle it by the same check (the loser reads again).
 */
async function foldBatch(services: Services, batch: number): Promise<number> {
  return retryTransient(async () => {
    const queued = await services.sql.query<QueuedAttempt>(READ_QUEUE, [batch], 'fold_read_queue');
    if (!queued.length) return 0;
    // Attempts of a service deleted since are deleted from the queue and count for nothing.
    const byService = new Map<string, QueuedAttempt[]>();
    for (const a of queued) {
      const list = byService.get(a.service_id);
      if (list) list.push(a);
      else byService.set(a.service_id, [a]);
    }
    const at = services.clock.now();
    const rows = await services.sql.query<ServiceRow>(READ_SERVICES, [[...byService.keys()], new Date(at.getTime() - GAIN_WINDOW_MS)], 'fold_read_services');
    const roots = await familiesOf(services, queued, new Map(rows.map((s) => [s.id, s.agent_id])));
    const stats = [];
    const points = new Map<string, { previous: number; gained: number; delta: number; successes: number; failures: number }>();
    for (const s of rows) {
      const attempts = byService.get(s.id)!.map((a) => ({ ...a, counts: countsForReputation(a, s.agent_id, roots) }));
      const folded = foldService(s, attempts);
      stats.push({
        id: s.id,
        seen_successes: s.success_count,
        seen_failures: s.failure_count,
        seen_streak: s.consecutive_failures,
        seen_excused: s.excused_count,
        ...folded.stats,
      });
      const p = points.get(s.agent_id) ?? { previous: s.reputation, gained: s.gained, delta: 0, successes: 0, failures: 0 };
      points.set(s.agent_id, {
        ...p,
        delta: p.delta + folded.points,
        successes: p.successes + folded.counted.successes,
        failures: p.failures + folded.counted.failures,
      });
    }
    const events: OutboxRecord[] = [];
    const moves = [];
    for (const [agentId, p] of points) {
      // Points beyond what is left of the day's cap are not kept for later: the calls that earned them are counted.
      const room = Math.max(0, DAILY_GAIN_CAP - p.gained);
      const capped = p.delta > room;
      const reason = `provider calls paid from outside its family: ${p.successes} succeeded, ${p.failures} failed${capped ? ` (capped: at most ${DAILY_GAIN_CAP} a day)` : ''}`;
      const move = reputationMove(agentId, p.previous, capped ? room : p.delta, reason);
      // A change the clamp or the cap cancels (a busy star provider at 100, every fold) is not recorded moving nowhere.
      if (move.applied === 0) continue;
      const event = makeEvent('reputation.changed', move.data, at);
      events.push({ ...event, agentId });
      moves.push({ agent_id: agentId, previous: p.previous, reputation: move.after, reason, event_id: event.id, data: move.data });
    }
    // The queue is read in id order, so the first and last ids bound the batch.
    // Each attempt in its service's day (quality.ts): what published quality and uptime are computed from.
    const days = new DayDeltas();
    const known = new Set(rows.map((s) => s.id));
    for (const a of queued) {
      if (!known.has(a.service_id)) continue;
      const success = a.outcome === 'success';
      days.add(a.service_id, a.created_at, { success, excused: a.outcome === 'excused', ...(success && { latencyBucket: bucketOf(a.latency_ms) }) });
    }
    const params = [
      queued.map((a) => a.id),
      JSON.stringify(stats),
      queued[0].id,
      queued[queued.length - 1].id,
      stats.length,
      JSON.stringify(days.rows()),
      new Date(at.getTime() + services.config.qualityDelayMs),
    ];
    const apply = moves.length ? APPLY_MOVING : APPLY;
    const [{ deliveries }] = await services.sql.query<{ deliveries: number }>(
      apply.text,
      moves.length ? [...params, at, JSON.stringify(moves)] : params,
      apply.name,
    );
    services.qualityJob?.wake();
    announceCommitted(services, events, deliveries);
    return queued.length;
  }, TRIES);
}

/**
 * Runs folds: `wake()` after an execution commits, and a poll for attempts other instances left (any
 * number of instances may fold: the conditional write lets one of them count a batch, and the others read
 * again).
 */
export class ProviderStats {
  private readonly worker: Worker;
  /** A wake after successes only, waiting for LAZY_FOLD_MS. */
  private lazy?: NodeJS.Timeout;

  constructor(private readonly services: Services) {
    // Executions wake it, at most every FOLD_INTERVAL_MS: under load one fold takes many attempts at once.
    this.worker = new Worker({
      name: 'provider-stats',
      round: () => this.foldOnce(),
      log: services.log,
      pollMs: 5_000,
      fullBatch: BATCH,
      minIntervalMs: FOLD_INTERVAL_MS,
    });
  }

  start(): void {
    this.worker.start({ runNow: false });
  }

  /** After an execution commits: a fold soon when one of its attempts failed (a cooldown may be due), or within LAZY_FOLD_MS. */
  wake(failed = true): void {
    if (failed) {
      clearTimeout(this.lazy);
      this.lazy = undefined;
      this.worker.wake();
      return;
    }
    this.lazy ??= setTimeout(() => {
      this.lazy = undefined;
      this.worker.wake();
    }, LAZY_FOLD_MS).unref();
  }

  /** One batch; resolves with the number of attempts folded. */
  foldOnce(batch = BATCH): Promise<number> {
    return foldBatch(this.services, batch);
  }

  /** Waits for the fold in progress (tests use it to see statistics settle). */
  settled(): Promise<void> {
    if (this.lazy) this.wake(true);
    return this.worker.settled();
  }

  stop(): Promise<void> {
    clearTimeout(this.lazy);
    this.lazy = undefined;
    return this.worker.stop();
  }
}
