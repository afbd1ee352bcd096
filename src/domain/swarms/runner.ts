// Runs swarm steps on any number of instances. A round claims runnable steps (FOR UPDATE SKIP LOCKED): a parallel
// swarm's pending ones up to PARALLEL_CAP, a sequential one's next once all before it succeeded, and any whose lease
// passed. A step executes as the swarm's creator under the execution id fixed when it was made, so one already recorded
// is finished from that record, never called twice; finishing it, and ending the session, is one transaction fenced
// by the claim's attempt.
import type { Agent, SwarmSession, SwarmStep } from '../../db/generated/prisma/client';
import { newRequestId } from '../../platform/ids';
import { idleUntilDue, Worker } from '../../platform/worker';
import type { Services } from '../context';
import { transact } from '../events';
import { execute } from '../execution/execute';
import { createContext } from '../request-context';
import { endEventOf, endSession, PARALLEL_CAP, resolveReferences, stepEventOf } from './swarms';

declare module '../context' {
  interface Services {
    /** Claims and runs swarm steps; set once the services exist. */
    swarmRunner?: SwarmRunner;
  }
}

/** Steps claimed per round, and run at once by one instance. */
const CLAIM_BATCH = 20;
const MAX_IN_FLIGHT = 32;
/** How often sessions left running with nothing to run (a closing cut off) are looked for. */
const SWEEP_MS = 5_000;

interface Outcome {
  status: 'succeeded' | 'failed';
  result: unknown;
  error: string | null;
  costCents: number | null;
}

/** The fence a finish must pass: the step still running under the claim that ran it. */
class LostClaim extends Error {}

export class SwarmRunner {
  private readonly worker: Worker;
  private readonly inFlight = new Set<Promise<void>>();
  /** Steps this instance has performed (tests, metrics). */
  performed = 0;
  private lastSweep = -Infinity;

  constructor(private readonly services: Services) {
    this.worker = new Worker({
      name: 'swarms',
      round: () => this.round(),
      log: services.log,
      pollMs: services.config.schedulerPollMs * 4,
      fullBatch: CLAIM_BATCH,
      // A swarm made here wakes the runner; while any swarm runs, it polls as usual (leases, closings).
      ...idleUntilDue(services.sql, services.clock, () => this.nextDue()),
    });
  }

  /** How long a claim lasts: long enough for execute's three provider calls and its recording. */
  get leaseMs(): number {
    return 3 * this.services.config.providerTimeoutMs + 5_000;
  }

  start(): void {
    this.worker.start();
  }

  /** A swarm was made, or a step finished: look for runnable steps at once. */
  wake(): void {
    this.worker.wake();
  }

  /** Waits until no round runs and no step is in flight (tests). */
  async settled(): Promise<void> {
    do {
      await this.worker.settled();
      await Promise.all([...this.inFlight]);
    } while (this.inFlight.size);
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    await Promise.all([...this.inFlight]);
  }

  /** Now while any swarm runs; none (until a wake) otherwise. */
  private async nextDue(): Promise<number | null> {
    const running = await this.services.sql.query(`SELECT 1 FROM swarm_sessions WHERE status = 'running' LIMIT 1`, []);
    return running.length ? this.services.clock.now().getTime() : null;
  }

  private async round(): Promise<number> {
    const now = performance.now();
    if (now - this.lastSweep >= SWEEP_MS) {
      this.lastSweep = now;
      await this.closeDone();
    }
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0) return 0;
    const claimed = await this.claim(Math.min(CLAIM_BATCH, room));
    if (!claimed.length) return 0;
    // The sessions of the claimed steps (and their creators), read once for the round.
    const sessions = new Map(
      (await this.services.db.swarmSession.findMany({ where: { id: { in: [...new Set(claimed.map((s) => s.sessionId))] } }, include: { agent: true } })).map(
        (s) => [s.id, s],
      ),
    );
    for (const step of claimed) {
      const session = sessions.get(step.sessionId);
      if (!session) continue;
      const full = this.inFlight.size >= MAX_IN_FLIGHT - 1;
      const run = this.perform(step, session).then((next) => {
        this.inFlight.delete(run);
        // A sequential swarm's next step, or room for steps this instance had to leave: look again.
        if (next || full) this.wake();
      });
      this.inFlight.add(run);
    }
    return claimed.length;
  }

  private claim(limit: number): Promise<SwarmStep[]> {
    return claimSteps(this.services.db, this.services.clock.now(), this.leaseMs, limit);
  }

  /** Runs and finishes one step; answers whether another step may have become runnable. */
  private async perform(step: SwarmStep, session: SwarmSession & { agent: Agent }): Promise<boolean> {
    this.performed += 1;
    try {
      const outcome = await this.run(step, session);
      return await this.finish(step, outcome);
    } catch (err) {
      // Left running: its lease passes and it is claimed again (its recorded call, if any, is adopted).
      if (!(err instanceof LostClaim)) this.services.log.warn({ step: step.id, err: (err as Error).message }, 'a swarm step could not be finished');
      return false;
    }
  }

  /** The step's outcome: from its execution if that was already recorded, else by executing it now. */
  private async run(step: SwarmStep, session: SwarmSession & { agent: Agent }): Promise<Outcome> {
    // Only a step claimed before (its instance stopped) can have a recorded call.
    const recorded = step.attempt > 1 ? await this.recordedOutcome(step.executionId) : undefined;
    if (recorded) return recorded;
    if (session.agent.status !== 'ACTIVE')
      return { status: 'failed', result: null, error: `The swarm's agent is ${session.agent.status.toLowerCase()}`, costCents: null };
    const earlier = hasReferences(step.input)
      ? await this.services.db.swarmStep.findMany({
          where: { sessionId: step.sessionId, ordinal: { lt: step.ordinal }, status: 'succeeded' },
          select: { ordinal: true, result: true },
        })
      : [];
    const input = resolveReferences(step.input, step.ordinal, new Map(earlier.map((s) => [s.ordinal, s.result])));
    try {
      const receipt = await execute(
        this.ownerContext(session.agent),
        { capability: step.capability, input, provider: step.provider ?? undefined, mode: step.provider ? 'chosen' : 'auto' },
        { executionId: step.executionId },
      );
      return {
        status: receipt.status === 'success' ? 'succeeded' : 'failed',
        result: receipt.result ?? null,
        error: receipt.error,
        costCents: receipt.transaction.costCents,
      };
    } catch (err) {
      // Another claim recorded this step's call first: that record is the outcome.
      const adopted = await this.recordedOutcome(step.executionId);
      if (adopted) return adopted;
      return { status: 'failed', result: null, error: err instanceof Error ? err.message : String(err), costCents: null };
    }
  }

  private async recordedOutcome(executionId: string): Promise<Outcome | undefined> {
    const row = await this.services.db.execution.findUnique({
      where: { id: executionId },
      select: { status: true, result: true, error: true, costCents: true },
    });
    if (!row) return undefined;
    return { status: row.status === 'success' ? 'succeeded' : 'failed', result: row.result ?? null, error: row.error, costCents: row.costCents };
  }

  private ownerContext(owner: Agent) {
    const ctx = createContext(this.services, { authorization: undefined, requestId: newRequestId(), clientAddress: 'swarm' });
    ctx.seedPrincipal({ kind: 'agent', agent: owner, credentialId: 'swarm' });
    return ctx;
  }

  /**
   * Records the step's outcome under the session stream's next number, in one statement fenced by the claim's attempt (a
   * lost claim records nothing); a step that leaves nothing to run closes the session. Answers whether the session goes
   * on with another step.
   */
  private async finish(step: SwarmStep, outcome: Outcome): Promise<boolean> {
    const { services } = this;
    const now = services.clock.now();
    const ok = outcome.status === 'succeeded';
    const [row] = await services.sql.query<SwarmStep & { session: SwarmSession }>(
      FINISH_STEP_SQL,
      [
        step.id,
        step.attempt,
        step.sessionId,
        now,
        ok ? 1 : 0,
        outcome.status,
        outcome.result === null ? null : JSON.stringify(outcome.result),
        outcome.error,
        outcome.costCents,
      ],
      'swarm_finish_step',
    );
    if (!row) return false;
    const { session, ...finished } = row;
    services.swarmStreams.announce(step.sessionId, stepEventOf(session, { ...finished, finishedAt: new Date(finished.finishedAt!) } as SwarmStep));
    const last = session.completedSteps + session.failedSteps === session.stepCount;
    if (last || (!ok && session.strategy === 'sequential')) {
      await this.closeSession(step.sessionId);
      return false;
    }
    return session.strategy === 'sequential';
  }

  /**
   * Ends a running session that has nothing left to run: a sequential swarm's steps after a failure are
   * skipped first. Safe to call at any time (it ends only what is done), and run now and then for every
   * session, so a session whose last step was recorded just before its instance stopped still ends.
   */
  private async closeSession(sessionId: string): Promise<void> {
    const { services } = this;
    const now = services.clock.now();
    let ended: SwarmSession | undefined;
    await transact({ db: services.db, services }, async (tx, emit) => {
      const [session] = await tx.$queryRaw<SwarmSession[]>`
        SELECT id, agent_id AS "agentId", goal, strategy, status, step_count AS "stepCount", completed_steps AS "completedSteps",
          failed_steps AS "failedSteps", last_seq AS "lastSeq"
        FROM swarm_sessions WHERE id = ${sessionId} AND status = 'running' FOR NO KEY UPDATE`;
      if (!session) return;
      if (session.strategy === 'sequential' && session.failedSteps > 0) {
        await tx.swarmStep.updateMany({ where: { sessionId, status: 'pending' }, data: { status: 'skipped', finishedAt: now } });
      }
      if (await tx.swarmStep.count({ where: { sessionId, status: { in: ['pending', 'running'] } } })) return;
      const clean = session.failedSteps === 0 && session.completedSteps === session.stepCount;
      ended = await endSession(tx, emit, null, session, clean ? 'completed' : 'failed', now);
    });
    if (ended) {
      services.swarmStreams.announce(sessionId, endEventOf(ended));
      services.swarmStreams.announce(sessionId, { end: true, seq: ended.endSeq! });
    }
  }

  /** Running sessions with nothing left to run (their closing was cut off): closed now. */
  private async closeDone(): Promise<void> {
    const done = await this.services.db.$queryRaw<{ id: string }[]>`
      SELECT s.id FROM swarm_sessions s
      WHERE s.status = 'running'
        AND NOT EXISTS (SELECT 1 FROM swarm_steps st WHERE st.session_id = s.id AND st.status = 'running')
        AND (s.completed_steps + s.failed_steps >= s.step_count OR (s.strategy = 'sequential' AND s.failed_steps > 0))
      LIMIT 100`;
    for (const { id } of done) await this.closeSession(id);
  }
}

/**
 * A step's outcome under the next number of its session's stream, fenced by the claim (the step still
 * running under that attempt) — with the session's counts after it.
 */
const FINISH_STEP_SQL = `
  WITH fence AS (SELECT id FROM swarm_steps WHERE id = $1::uuid AND status = 'running' AND attempt = $2 FOR UPDATE),
  s AS (
    UPDATE swarm_sessions SET last_seq = last_seq + 1, updated_at = $4, completed_steps = completed_steps + $5, failed_steps = failed_steps + 1 - $5
    WHERE id = $3 AND status = 'running' AND EXISTS (SELECT 1 FROM fence)
    RETURNING *
  ), st AS (
    UPDATE swarm_steps SET status = $6, result = $7::jsonb, error = $8, cost_cents = $9, lease_until = NULL, seq = s.last_seq, finished_at = $4
    FROM s WHERE swarm_steps.id = $1::uuid
    RETURNING swarm_steps.*
  )
  SELECT st.id, st.session_id AS "sessionId", st.ordinal, st.capability, st.input, st.provider, st.status, st.execution_id AS "executionId",
    st.result, st.error, st.cost_cents AS "costCents", st.attempt, st.lease_until AS "leaseUntil", st.seq, st.started_at AS "startedAt",
    st.finished_at AS "finishedAt",
    json_build_object('id', s.id, 'status', s.status, 'strategy', s.strategy, 'stepCount', s.step_count,
      'completedSteps', s.completed_steps, 'failedSteps', s.failed_steps) AS session
  FROM st, s`;

/**
 * Claims runnable steps (or ones whose lease passed), marking them running under a new attempt. The step's state is
 * among the locking query's own conditions: the candidates come from the snapshot, and without it a step another
 * instance claimed meanwhile was claimed again, and run twice (PostgreSQL re-checks those conditions after FOR UPDATE).
 */
export function claimSteps(db: Services['db'], now: Date, leaseMs: number, limit: number): Promise<SwarmStep[]> {
  const lease = new Date(now.getTime() + leaseMs);
  return db.$queryRaw<SwarmStep[]>`
    WITH candidates AS (
      SELECT st.id, st.session_id, s.strategy,
        row_number() OVER (PARTITION BY st.session_id ORDER BY st.ordinal) AS rank,
        (SELECT count(*) FROM swarm_steps r WHERE r.session_id = st.session_id AND r.status = 'running' AND r.lease_until >= ${now}) AS busy
      FROM swarm_steps st JOIN swarm_sessions s ON s.id = st.session_id
      WHERE s.status = 'running'
        AND (st.status = 'pending' OR (st.status = 'running' AND st.lease_until < ${now}))
        AND (s.strategy = 'parallel' OR NOT EXISTS (
          SELECT 1 FROM swarm_steps p WHERE p.session_id = st.session_id AND p.ordinal < st.ordinal AND p.status <> 'succeeded'))
    ), runnable AS (
      SELECT st.id FROM swarm_steps st
      WHERE st.id IN (SELECT id FROM candidates WHERE strategy = 'sequential' OR rank + busy <= ${PARALLEL_CAP})
        AND (st.status = 'pending' OR (st.status = 'running' AND st.lease_until < ${now}))
      ORDER BY st.session_id, st.ordinal
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE swarm_steps st SET status = 'running', attempt = st.attempt + 1, lease_until = ${lease}, started_at = COALESCE(st.started_at, ${now})
    FROM runnable WHERE st.id = runnable.id
    RETURNING st.id, st.session_id AS "sessionId", st.ordinal, st.capability, st.input, st.provider, st.status, st.execution_id AS "executionId",
      st.attempt, st.lease_until AS "leaseUntil", st.started_at AS "startedAt"`;
}

/** Whether a step's input refers to earlier steps' results (a `$previous` or `$steps.N` string). */
function hasReferences(input: unknown): boolean {
  return JSON.stringify(input).includes('"$');
}
