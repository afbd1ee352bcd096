// Runs capability subscriptions on their schedules, on any number of instances. A round claims due subscriptions (FOR
// UPDATE SKIP LOCKED) and in the same transaction writes one run per due tick (unique per subscription and instant) and
// moves each on, so each tick runs once across instances and missed ticks run once, not once each. Runs execute
// through the execute engine (recorded and billed like any call); one cut off by a crash is taken over after its lease.
import type { Agent, CapabilitySubscription, SubscriptionRun } from '../../db/generated/prisma/client';
import { newRequestId } from '../../platform/ids';
import { inLanes } from '../../platform/lanes';
import { idleUntilDue, Worker } from '../../platform/worker';
import type { Services } from '../context';
import { transact, type ExtraDelivery } from '../events';
import { execute } from '../execution/execute';
import { plainEntry, writeEntriesIn } from '../memory/entries';
import { createContext } from '../request-context';
import { nextRunAfter } from './cron';
import { runEventOf, type DeliveryConfig } from './subscriptions';

declare module '../context' {
  interface Services {
    /** Claims and performs due subscription runs; set once the services exist. */
    subscriptionScheduler?: SubscriptionScheduler;
  }
}

/**
 * Due subscriptions claimed per round (small, so that other instances claim the rest meanwhile), and runs
 * executed at once.
 */
const CLAIM_BATCH = 25;
const CONCURRENCY = 8;
const RECLAIM_EVERY_MS = 5_000;
/** How late, at worst, a poll sees a subscription another instance made or moved earlier than any it knew. */
const RECHECK_MS = 1_000;

interface ClaimedRun {
  run: SubscriptionRun;
  subscription: CapabilitySubscription;
}

export class SubscriptionScheduler {
  private readonly worker: Worker;
  /** Runs this instance has performed (metrics, tests). */
  performed = 0;
  private lastReclaim = -Infinity;
  /** The earliest tick of an active subscription, as last read (ms); -Infinity: read it on the next poll. */
  private nextDue = -Infinity;
  private lastCheck = -Infinity;

  constructor(private readonly services: Services) {
    this.worker = new Worker({
      name: 'subscriptions',
      round: () => this.round(),
      log: services.log,
      pollMs: services.config.schedulerPollMs,
      fullBatch: CLAIM_BATCH,
      // Subscriptions made or moved here wake the scheduler; its own rounds move ticks and leases.
      ...idleUntilDue(services.sql, services.clock, () => this.nextWork()),
    });
  }

  /** Longest a run may take before another instance assumes it was cut off and runs it again. */
  private get leaseMs(): number {
    return 3 * this.services.config.providerTimeoutMs + 30_000;
  }

  start(): void {
    this.worker.start();
  }

  /** A subscription of this instance's was made or moved: look again at once. */
  wake(): void {
    this.nextDue = -Infinity;
    this.worker.wake();
  }

  settled(): Promise<void> {
    return this.worker.settled();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  private async round(): Promise<number> {
    const now = this.services.clock.now().getTime();
    // Runs cut off by a crash are looked for now and then; their lease is long anyway.
    const stale = now - this.lastReclaim >= RECLAIM_EVERY_MS ? await this.reclaimStale() : [];
    if (stale.length || now - this.lastReclaim >= RECLAIM_EVERY_MS) this.lastReclaim = now;
    const claimed = [...(await this.claimDue()), ...stale];
    await inLanes(claimed, CONCURRENCY, (c) => this.perform(c));
    return claimed.length;
  }

  /** The earliest tick of an active subscription, or lapse of a pending run's lease; null for neither. */
  private async nextWork(): Promise<number | null> {
    const [{ due, lapse }] = await this.services.sql.query<{ due: Date | null; lapse: Date | null }>(
      `SELECT (SELECT min(next_run_at) FROM capability_subscriptions WHERE status = 'active') AS due,
         (SELECT min(lease_until) FROM subscription_runs WHERE status = 'pending') AS lapse`,
      [],
    );
    const times = [due, lapse].filter((t): t is Date => t !== null).map((t) => new Date(t).getTime());
    return times.length ? Math.min(...times) : null;
  }

  /** Claims due ticks: one run each, and the subscription moved to its next tick after now. */
  private async claimDue(): Promise<ClaimedRun[]> {
    const { db, clock } = this.services;
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + this.leaseMs);
    // The earliest tick is remembered between polls: until it is due, a poll reads nothing, except once a
    // RECHECK_MS for subscriptions other instances made or moved (this instance's own changes wake it).
    if (now.getTime() < this.nextDue && now.getTime() - this.lastCheck < RECHECK_MS) return [];
    this.lastCheck = now.getTime();
    const [{ due }] = await this.services.sql.query<{ due: Date | null }>(
      `SELECT min(next_run_at) AS due FROM capability_subscriptions WHERE status = 'active'`,
      [],
      'subscriptions_next_due',
    );
    this.nextDue = due ? new Date(due).getTime() : Infinity;
    if (this.nextDue > now.getTime()) return [];
    // Claimed below; the next due tick is read again on the next poll.
    this.nextDue = -Infinity;
    return db.$transaction(async (tx) => {
      const due = await tx.$queryRawUnsafe<CapabilitySubscription[]>(
        `SELECT id, agent_id AS "agentId", capability_id AS "capabilityId", input_payload AS "inputPayload", schedule, timezone,
           delivery_method AS "deliveryMethod", delivery_config AS "deliveryConfig", status, next_run_at AS "nextRunAt", run_count AS "runCount"
         FROM capability_subscriptions
         WHERE status = 'active' AND next_run_at <= $1
         ORDER BY next_run_at LIMIT $2
         FOR NO KEY UPDATE SKIP LOCKED`,
        now,
        CLAIM_BATCH,
      );
      if (!due.length) return [];
      const next = due.map((s) => {
        try {
          // The tick after this one, unless that too is long past: then the instance was down (or far
          // behind), and the missed ticks collapse into this one run.
          const following = nextRunAfter(s.schedule, s.timezone, s.nextRunAt!);
          return following && following.getTime() >= now.getTime() - this.services.config.missedTickGraceMs
            ? following
            : nextRunAfter(s.schedule, s.timezone, now);
        } catch {
          return null;
        }
      });
      const runs = await tx.$queryRawUnsafe<SubscriptionRun[]>(
        `WITH due AS (
           SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS d(id, tick, next)
         ), moved AS (
           UPDATE capability_subscriptions s SET next_run_at = due.next, last_run_at = due.tick, run_count = s.run_count + 1, updated_at = $4
           FROM due WHERE s.id = due.id
           RETURNING s.id, s.run_count, due.tick
         )
         INSERT INTO subscription_runs (id, subscription_id, seq, scheduled_for, status, lease_until, started_at, created_at)
         SELECT gen_random_uuid(), moved.id, moved.run_count, moved.tick, 'pending', $5, $4, $4 FROM moved
         ON CONFLICT (subscription_id, scheduled_for) DO NOTHING
         RETURNING id, subscription_id AS "subscriptionId", seq, scheduled_for AS "scheduledFor", status, execution_id AS "executionId", result, error,
           lease_until AS "leaseUntil", started_at AS "startedAt", finished_at AS "finishedAt", created_at AS "createdAt"`,
        due.map((s) => s.id),
        due.map((s) => s.nextRunAt),
        next,
        now,
        leaseUntil,
      );
      const byId = new Map(due.map((s) => [s.id, s]));
      return runs.map((run) => ({ run, subscription: byId.get(run.subscriptionId)! }));
    });
  }

  /** Runs whose lease passed while pending: the instance running them stopped. */
  private async reclaimStale(): Promise<ClaimedRun[]> {
    const { db, clock } = this.services;
    const now = clock.now();
    const runs = await db.$queryRawUnsafe<SubscriptionRun[]>(
      `WITH stale AS (
         SELECT id FROM subscription_runs WHERE status = 'pending' AND lease_until < $1 ORDER BY lease_until LIMIT $3 FOR UPDATE SKIP LOCKED
       )
       UPDATE subscription_runs r SET lease_until = $2, started_at = $1 FROM stale WHERE r.id = stale.id
       RETURNING r.id, r.subscription_id AS "subscriptionId", r.seq, r.scheduled_for AS "scheduledFor", r.status`,
      now,
      new Date(now.getTime() + this.leaseMs),
      CLAIM_BATCH,
    );
    if (!runs.length) return [];
    const subs = await db.capabilitySubscription.findMany({ where: { id: { in: runs.map((r) => r.subscriptionId) } } });
    const byId = new Map(subs.map((s) => [s.id, s]));
    return runs.filter((r) => byId.has(r.subscriptionId)).map((run) => ({ run, subscription: byId.get(run.subscriptionId)! }));
  }

  /** Executes one run as its subscription's owner, then records and delivers the outcome in one transaction. */
  private async perform({ run, subscription }: ClaimedRun): Promise<void> {
    const { services } = this;
    this.performed += 1;
    let status: 'success' | 'error' = 'error';
    let executionId: string | null = null;
    let result: unknown = null;
    let error: string | null = null;
    const owner = await services.db.agent.findUnique({ where: { id: subscription.agentId } });
    if (!owner || owner.status !== 'ACTIVE') {
      error = `The subscription's agent is ${owner ? owner.status.toLowerCase() : 'gone'}`;
    } else {
      try {
        const receipt = await execute(this.ownerContext(owner), {
          capability: subscription.capabilityId,
          input: subscription.inputPayload as Record<string, unknown>,
          mode: 'auto',
        });
        status = receipt.status;
        executionId = receipt.executionId;
        result = receipt.result ?? null;
        error = receipt.error;
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
    }
    try {
      const finished = await this.record(run, subscription, { status, executionId, result, error });
      if (finished) services.runStreams.announce(subscription.id, runEventOf(finished));
    } catch (err) {
      // The run stays pending; its lease passes and it is run again.
      services.log.warn({ subscription: subscription.id, run: run.id, err: (err as Error).message }, 'recording a subscription run failed');
    }
  }

  private ownerContext(owner: Agent) {
    const ctx = createContext(this.services, { authorization: undefined, requestId: newRequestId(), clientAddress: 'scheduler' });
    ctx.seedPrincipal({ kind: 'agent', agent: owner, credentialId: 'scheduler' });
    return ctx;
  }

  /**
   * Marks the run finished and delivers it, in one transaction: a `subscription.delivered` event (to the
   * owner's webhooks and, for webhook delivery, to deliveryConfig.webhookUrl signed with the subscription's
   * secret), or the output written into the owner's store. A run someone else finished is left alone.
   */
  private async record(
    run: SubscriptionRun,
    sub: CapabilitySubscription,
    outcome: { status: string; executionId: string | null; result: unknown; error: string | null },
  ) {
    const { services } = this;
    const now = services.clock.now();
    const config = sub.deliveryConfig as DeliveryConfig;
    return transact({ db: services.db, services }, async (tx, emit) => {
      const [finished] = await tx.$queryRawUnsafe<SubscriptionRun[]>(
        `UPDATE subscription_runs SET status = $2, execution_id = $3::uuid, result = $4::jsonb, error = $5, finished_at = $6, lease_until = NULL
         WHERE id = $1::uuid AND status = 'pending'
         RETURNING id, subscription_id AS "subscriptionId", seq, scheduled_for AS "scheduledFor", status, execution_id AS "executionId", result, error, finished_at AS "finishedAt"`,
        run.id,
        outcome.status,
        outcome.executionId,
        JSON.stringify(outcome.result ?? null),
        outcome.error,
        now,
      );
      if (!finished) return null;
      const data = {
        subscription_id: sub.id,
        run_id: finished.id,
        sequence: finished.seq,
        capability: sub.capabilityId,
        scheduled_for: finished.scheduledFor.toISOString(),
        delivery_method: sub.deliveryMethod,
        status: finished.status,
        execution_id: finished.executionId,
        result: finished.result,
        error: finished.error,
      };
      if (sub.deliveryMethod === 'store' && config.storeId) {
        const store = await tx.memoryStore.findFirst({ where: { id: config.storeId, agentId: sub.agentId } });
        // A store deleted since is a delivery error recorded on the run; the event still goes out.
        if (store)
          await writeEntriesIn(tx, services.vectorSearch, store, sub.agentId, [plainEntry(store, config.key ?? `subscriptions/${sub.id}`, data, now)], now);
        else {
          await tx.subscriptionRun.update({
            where: { id: finished.id },
            data: { error: `${finished.error ? `${finished.error}; ` : ''}the delivery store ${config.storeId} no longer exists` },
          });
        }
      }
      const extra: ExtraDelivery[] =
        sub.deliveryMethod === 'webhook' && config.webhookUrl ? [{ kind: 'subscription_webhook', subscriptionId: sub.id, url: config.webhookUrl }] : [];
      await emit(sub.agentId, 'subscription.delivered', data, extra);
      return finished;
    });
  }
}
