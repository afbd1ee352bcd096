// Swarm sessions (spec §2 Swarm session, §3, §4.10): a goal worked through steps that the marketplace
// executes for the session's creator — in order (`sequential`, where a step may use earlier steps' results)
// or at once (`parallel`, at most PARALLEL_CAP steps of a swarm at a time). The steps run in runner.ts;
// here the sessions are made, read, cancelled and followed as a numbered stream of finished steps.
import type { DbTx } from '../../db/database';
import type { Prisma, SwarmSession, SwarmStep } from '../../db/generated/prisma/client';
import { Conflict, NotFound } from '../../platform/errors';
import { newSwarmId, newUuid } from '../../platform/ids';
import type { SequencedStreams, StreamStore } from '../../platform/sequenced-streams';
import { assertMove, type Moves } from '../../platform/state-machine';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import { recordStateChange } from '../audit/audit';
import { CAPABILITY_SLUG } from '../capabilities/catalog';
import type { Ctx, Services } from '../context';
import type { Emit } from '../events';
import { transact } from '../events';

declare module '../context' {
  interface Services {
    /** Readers of swarm sessions' progress. */
    swarmStreams: SwarmStreams;
  }
}

export const STRATEGIES = ['sequential', 'parallel'] as const;
export type SwarmStatus = 'running' | 'completed' | 'failed' | 'cancelled';
export const SWARM_MOVES: Moves<SwarmStatus> = {
  running: ['completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};
/** Steps one swarm may have. */
export const MAX_STEPS = 20;
/** Swarms one agent may have running at once (409 beyond). */
export const RUNNING_SWARMS_PER_AGENT = 10;
/** Steps of one parallel swarm run at once. */
export const PARALLEL_CAP = 10;
const STEP_INPUT_MAX_BYTES = 64 * 1024;
const SWARM_ID = /^swarm_[0-9A-Za-z]{24}$/;
/** `$previous`, `$previous.path`, `$steps.N`, `$steps.N.path`: an earlier step's result, or part of it. */
const REFERENCE = /^\$(previous|steps\.(\d+))(?:\.(.+))?$/;

export interface StepInput {
  capability?: unknown;
  input?: unknown;
  provider?: unknown;
}

export interface CreateSwarmInput {
  goal?: unknown;
  strategy?: unknown;
  steps?: unknown;
}

export type SwarmWithSteps = SwarmSession & { steps: SwarmStep[] };

/** A session's steps in the order they were given. */
export const STEPS_ORDER = { ordinal: 'asc' } as const;

/** The step numbers an input refers to (`$previous` in step n is n − 1). */
function referencesOf(value: unknown, ordinal: number, found: number[] = []): number[] {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      const m = REFERENCE.exec(v);
      if (m) found.push(m[1] === 'previous' ? ordinal - 1 : Number(m[2]));
    } else if (v && typeof v === 'object') stack.push(...Object.values(v));
  }
  return found;
}

export async function createSwarm(ctx: Ctx, input: CreateSwarmInput): Promise<SwarmWithSteps> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const goal = checks.text('goal', input.goal, { max: 2000, required: true, multiline: true });
  const strategy = checks.oneOf('strategy', input.strategy, STRATEGIES);
  const steps: { capability: string; input: Record<string, unknown>; provider: string | null }[] = [];
  if (!Array.isArray(input.steps) || input.steps.length === 0 || input.steps.length > MAX_STEPS) {
    checks.fail('steps', `must be a list of 1 to ${MAX_STEPS} steps`);
  } else {
    input.steps.forEach((raw: StepInput, i) => {
      const at = `steps.${i}`;
      const capability = checks.text(`${at}.capability`, raw?.capability, { max: 64, required: true });
      if (capability && !CAPABILITY_SLUG.test(capability)) checks.fail(`${at}.capability`, 'must be a capability identifier such as "summarize"');
      const stepInput = raw?.input ?? {};
      if (typeof stepInput !== 'object' || stepInput === null || Array.isArray(stepInput)) checks.fail(`${at}.input`, 'must be a JSON object');
      else if (Buffer.byteLength(JSON.stringify(stepInput)) > STEP_INPUT_MAX_BYTES)
        checks.fail(`${at}.input`, `must be at most ${STEP_INPUT_MAX_BYTES / 1024} KiB as JSON`);
      for (const n of referencesOf(stepInput, i + 1)) {
        if (strategy === 'parallel') checks.fail(`${at}.input`, 'refers to another step: only the steps of a sequential swarm may use earlier results');
        else if (n < 1 || n > i) checks.fail(`${at}.input`, `refers to step ${n}: a step may use only the steps before it`);
      }
      const provider = checks.text(`${at}.provider`, raw?.provider, { max: 64 });
      steps.push({ capability: capability ?? '', input: stepInput as Record<string, unknown>, provider: provider || null });
    });
  }
  checks.done();
  const now = ctx.services.clock.now();
  const id = newSwarmId();
  const rows: SwarmStep[] = steps.map((s, i) => ({
    id: newUuid(),
    sessionId: id,
    ordinal: i + 1,
    capability: s.capability,
    input: s.input as Prisma.JsonValue,
    provider: s.provider,
    status: 'pending',
    executionId: newUuid(),
    result: null,
    error: null,
    costCents: null,
    attempt: 0,
    leaseUntil: null,
    seq: null,
    startedAt: null,
    finishedAt: null,
  }));
  const created = await ctx.db.$transaction(async (tx) => {
    // Counted under the agent's row lock, so concurrent creations cannot pass the limit together; the
    // session, its steps and its first state change are written in one statement after it.
    await tx.$executeRaw`SELECT 1 FROM agents WHERE id = ${me.id}::uuid FOR NO KEY UPDATE`;
    const [session] = await tx.$queryRaw<SwarmSession[]>`
      WITH s AS (
        INSERT INTO swarm_sessions (id, agent_id, goal, strategy, step_count, created_at, updated_at)
        SELECT ${id}, ${me.id}::uuid, ${goal}, ${strategy}, ${rows.length}, ${now}, ${now}
        WHERE (SELECT count(*) FROM swarm_sessions WHERE agent_id = ${me.id}::uuid AND status = 'running') < ${RUNNING_SWARMS_PER_AGENT}
        RETURNING *
      ), st AS (
        INSERT INTO swarm_steps (id, session_id, ordinal, capability, input, provider, execution_id)
        SELECT x.id, s.id, x.ordinal, x.capability, x.input, x.provider, x.execution_id
        FROM s, jsonb_to_recordset(${JSON.stringify(rows.map((r) => ({ id: r.id, ordinal: r.ordinal, capability: r.capability, input: r.input, provider: r.provider, execution_id: r.executionId })))}::jsonb)
          AS x(id uuid, ordinal int, capability text, input jsonb, provider text, execution_id uuid)
      ), sc AS (
        INSERT INTO state_changes (id, subject_type, subject_id, from_state, to_state, actor_kind, actor_id, created_at)
        SELECT gen_random_uuid(), 'swarm', s.id, NULL, 'running', 'agent', ${me.id}, ${now} FROM s
      )
      SELECT id, agent_id AS "agentId", goal, strategy, status, step_count AS "stepCount", completed_steps AS "completedSteps", failed_steps AS "failedSteps",
        last_seq AS "lastSeq", end_seq AS "endSeq", finished_at AS "finishedAt", created_at AS "createdAt", updated_at AS "updatedAt"
      FROM s`;
    if (!session) throw new Conflict(`At most ${RUNNING_SWARMS_PER_AGENT} swarms may run at once per agent; wait for one to end or cancel one`);
    return session;
  });
  ctx.services.swarmRunner?.wake();
  return { ...created, steps: rows };
}

async function ownSwarm(ctx: Ctx, id: string): Promise<SwarmSession> {
  const me = await requireAgent(ctx);
  const session = SWARM_ID.test(id) ? await ctx.db.swarmSession.findFirst({ where: { id, agentId: me.id } }) : null;
  if (!session) throw new NotFound('swarm session', id);
  return session;
}

export async function getSwarm(ctx: Ctx, id: string): Promise<SwarmWithSteps> {
  const session = await ownSwarm(ctx, id);
  return { ...session, steps: await ctx.db.swarmStep.findMany({ where: { sessionId: session.id }, orderBy: STEPS_ORDER }) };
}

export async function listSwarms(ctx: Ctx, page: Page, status?: string | null) {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const only = status === undefined || status === null ? undefined : checks.oneOf('status', status, Object.keys(SWARM_MOVES) as SwarmStatus[]);
  checks.done();
  const where = { agentId: me.id, ...(only && { status: only }) };
  return pageOf(
    page,
    (q) => ctx.db.swarmSession.findMany({ where, ...q }),
    () => ctx.db.swarmSession.count({ where }),
  );
}

/** One item of a swarm's stream: a finished step, or the session's end. */
export interface SwarmEvent {
  seq: number;
  /** `step`, or the session's end: `completed`, `failed` or `cancelled`. */
  event: string;
  sessionId: string;
  status: string;
  completedSteps: number;
  step: SwarmStep | null;
  at: string;
}

export type SwarmStreams = SequencedStreams<SwarmEvent>;
export const SWARM_TOPIC = 'swarmEvents';

export function stepEventOf(session: Pick<SwarmSession, 'id' | 'status' | 'completedSteps'>, step: SwarmStep): SwarmEvent {
  return {
    seq: step.seq!,
    event: 'step',
    sessionId: session.id,
    status: session.status,
    completedSteps: session.completedSteps,
    step,
    at: (step.finishedAt ?? new Date()).toISOString(),
  };
}

export function endEventOf(session: SwarmSession): SwarmEvent {
  return {
    seq: session.endSeq!,
    event: session.status,
    sessionId: session.id,
    status: session.status,
    completedSteps: session.completedSteps,
    step: null,
    at: (session.finishedAt ?? new Date()).toISOString(),
  };
}

/** The database side of swarm streams: finished steps by their number, then the end. */
export function swarmStore(services: Pick<Services, 'db'>): StreamStore<SwarmEvent> {
  return {
    async load(id, after, limit) {
      const session = await services.db.swarmSession.findUnique({ where: { id } });
      if (!session) return [];
      const steps = await services.db.swarmStep.findMany({ where: { sessionId: id, seq: { gt: after } }, orderBy: { seq: 'asc' }, take: limit });
      const events = steps.map((s) => stepEventOf(session, s));
      if (session.endSeq !== null && session.endSeq > after && events.length < limit) events.push(endEventOf(session));
      return events;
    },
    async state(ids) {
      const rows = await services.db.swarmSession.findMany({
        where: { id: { in: ids.filter((i) => SWARM_ID.test(i)) } },
        select: { id: true, lastSeq: true, endSeq: true },
      });
      return new Map(rows.map((r) => [r.id, { lastSeq: r.lastSeq, ended: r.endSeq !== null }]));
    },
  };
}

/** A reader of the swarm's finished steps (after `after`, then live ones); it ends with the session. */
export async function followSwarm(ctx: Ctx, id: string, after: number | null): Promise<AsyncIterableIterator<SwarmEvent>> {
  const session = await ownSwarm(ctx, id);
  const release = ctx.services.streamSlots.take(session.agentId);
  try {
    return await ctx.services.swarmStreams.open(session.id, after, release);
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Ends a running session inside `tx` (its steps all done, or it was cancelled): its end event takes the
 * next number, and `swarm.completed` goes to the creator's webhooks whatever the ending.
 */
export async function endSession(
  tx: DbTx,
  emit: Emit,
  ctx: Ctx | null,
  session: SwarmSession,
  to: Exclude<SwarmStatus, 'running'>,
  now: Date,
): Promise<SwarmSession> {
  assertMove(SWARM_MOVES, session.status as SwarmStatus, to, 'swarm session');
  const ended = await tx.swarmSession.update({
    where: { id: session.id },
    data: { status: to, endSeq: session.lastSeq + 1, lastSeq: session.lastSeq + 1, finishedAt: now },
  });
  await recordStateChange(tx, ctx, { subjectType: 'swarm', subjectId: session.id, from: session.status, to });
  await emit(session.agentId, 'swarm.completed', {
    session_id: session.id,
    goal: session.goal,
    strategy: session.strategy,
    status: to,
    step_count: ended.stepCount,
    completed_steps: ended.completedSteps,
    failed_steps: ended.failedSteps,
    finished_at: now.toISOString(),
  });
  return ended;
}

/** Cancels a running swarm: steps not finished are cancelled (a call in flight is recorded, not applied). */
export async function cancelSwarm(ctx: Ctx, id: string): Promise<SwarmWithSteps> {
  const session = await ownSwarm(ctx, id);
  assertMove(SWARM_MOVES, session.status as SwarmStatus, 'cancelled', 'swarm session');
  const now = ctx.services.clock.now();
  const ended = await transact(ctx, async (tx, emit) => {
    const [locked] = await tx.$queryRaw<SwarmSession[]>`SELECT id FROM swarm_sessions WHERE id = ${session.id} AND status = 'running' FOR NO KEY UPDATE`;
    if (!locked) throw new Conflict('The swarm ended meanwhile');
    const current = await tx.swarmSession.findUniqueOrThrow({ where: { id: session.id } });
    await tx.swarmStep.updateMany({
      where: { sessionId: session.id, status: { in: ['pending', 'running'] } },
      data: { status: 'cancelled', leaseUntil: null, finishedAt: now },
    });
    return endSession(tx, emit, ctx, current, 'cancelled', now);
  });
  ctx.services.swarmStreams.announce(ended.id, endEventOf(ended));
  ctx.services.swarmStreams.announce(ended.id, { end: true, seq: ended.endSeq! });
  return { ...ended, steps: await ctx.db.swarmStep.findMany({ where: { sessionId: ended.id }, orderBy: STEPS_ORDER }) };
}

/** A step's input with its references to earlier steps' results filled in. */
export function resolveReferences(input: unknown, ordinal: number, results: Map<number, unknown>): unknown {
  if (typeof input === 'string') {
    const m = REFERENCE.exec(input);
    if (!m) return input;
    const n = m[1] === 'previous' ? ordinal - 1 : Number(m[2]);
    let value = results.get(n);
    for (const part of m[3]?.split('.') ?? []) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
    return value ?? null;
  }
  if (Array.isArray(input)) return input.map((v) => resolveReferences(v, ordinal, results));
  if (input && typeof input === 'object') return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, resolveReferences(v, ordinal, results)]));
  return input;
}
