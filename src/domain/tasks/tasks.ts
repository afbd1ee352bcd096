// Tasks and delegation (spec §2, §3, §4.9): an intent with success criteria, a budget and a deadline, delegated to a
// sub-agent, which executes capabilities charged exactly against the budget however many calls run at once, and reports
// a result judged against the criteria (judge.ts). Its reputation moves with the verdict, but a completion earns only
// for work paid outside the task's family (settledWork). Moves follow TASK_MOVES (409 otherwise).
import type { DbTx } from '../../db/database';
import type { Agent, Prisma, Task, TaskDelegation, TaskExecution } from '../../db/generated/prisma/client';
import { Conflict, NotFound } from '../../platform/errors';
import { newTaskId } from '../../platform/ids';
import { assertMove, type Moves } from '../../platform/state-machine';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { agentInReach } from '../agents/agents';
import { requireAgent } from '../agents/principal';
import { recordStateChange } from '../audit/audit';
import type { Ctx, Services } from '../context';
import { transact } from '../events';
import { MARKETPLACE_PROVIDER } from '../first-party/first-party';
import { execute, type ExecutionReceipt } from '../execution/execute';
import { applyReputation, sameFamily } from '../reputation/reputation';
import { TASK_ID } from './budget';
import { judgeAll, type Verdict } from './judge';

export type TaskStatus = 'pending' | 'delegated' | 'completed' | 'expired' | 'cancelled';
/** Delegating a delegated task hands it to another sub-agent (the earlier delegation is `replaced`). */
export const TASK_MOVES: Moves<TaskStatus> = {
  pending: ['delegated', 'cancelled', 'expired'],
  delegated: ['delegated', 'completed', 'cancelled', 'expired'],
  completed: [],
  expired: [],
  cancelled: [],
};
const CRITERIA_MAX = 20;
export const BUDGET_MAX_CENTS = 100_000_000;
/**
 * Reputation a delegate gains for a result that meets every criterion (when the work was settled:
 * settledWork), and loses for one that does not.
 */
export const EXECUTOR_REWARD = 3;
export const EXECUTOR_PENALTY = -1;
/** The reason of a completion's reputation event: recorded only for settled work, it is what a spark of the task is traced to. */
export const COMPLETED_REASON = 'task.completed';
const RESULT_MAX_BYTES = 256 * 1024;
const DEADLINE_MAX_MS = 366 * 86_400_000;

export interface CreateTaskInput {
  intent?: unknown;
  successCriteria?: unknown;
  budget?: unknown;
  deadline?: unknown;
}

export async function createTask(ctx: Ctx, input: CreateTaskInput): Promise<Task> {
  const me = await requireAgent(ctx);
  const now = ctx.services.clock.now();
  const checks = new Checks();
  const intent = checks.text('intent', input.intent, { max: 2000, required: true, multiline: true });
  let criteria: string[] = [];
  if (input.successCriteria !== undefined && input.successCriteria !== null) {
    if (!Array.isArray(input.successCriteria) || input.successCriteria.length > CRITERIA_MAX)
      checks.fail('successCriteria', `must be a list of at most ${CRITERIA_MAX} criteria`);
    else criteria = input.successCriteria.map((c, i) => checks.text(`successCriteria.${i}`, c, { max: 200, required: true }) ?? '');
  }
  const budget = checks.integer('budget', input.budget, 0, BUDGET_MAX_CENTS);
  const deadline = checks.futureTime('deadline', input.deadline, now, DEADLINE_MAX_MS, 'a year');
  checks.done();
  return ctx.db.$transaction(async (tx) => {
    // On the marketplace's clock, as its events are: a spark's reward is looked for among events since then.
    const task = await tx.task.create({
      data: {
        id: newTaskId(),
        agentId: me.id,
        intent: intent!,
        successCriteria: criteria,
        budgetCents: budget ?? null,
        deadline: deadline ?? null,
        createdAt: now,
      },
    });
    await recordStateChange(tx, ctx, { subjectType: 'task', subjectId: task.id, from: null, to: 'pending' });
    return task;
  });
}

/** The task when the caller created it or is its delegate; anyone else is answered as if it did not exist. */
export async function taskInReach(ctx: Ctx, id: string, as: 'creator' | 'delegate' | 'either' = 'either'): Promise<{ me: Agent; task: Task }> {
  const me = await requireAgent(ctx);
  const task = TASK_ID.test(id) ? await ctx.db.task.findUnique({ where: { id } }) : null;
  const creator = task?.agentId === me.id;
  const delegate = task?.delegateId === me.id;
  if (!task || (as === 'creator' && !creator) || (as === 'delegate' && !delegate) || (as === 'either' && !creator && !delegate)) throw new NotFound('task', id);
  return { me, task };
}

export async function getTask(ctx: Ctx, id: string): Promise<Task> {
  return (await taskInReach(ctx, id)).task;
}

/** The caller's tasks (`created`, the default) or the tasks delegated to it (`delegated`), newest first. */
export async function listTasks(ctx: Ctx, page: Page, filter: { status?: string | null; role?: string | null }) {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const role = checks.oneOf('role', filter.role ?? undefined, ['created', 'delegated'] as const, 'created');
  const status =
    filter.status === undefined || filter.status === null ? undefined : checks.oneOf('status', filter.status, Object.keys(TASK_MOVES) as TaskStatus[]);
  checks.done();
  const where = { ...(role === 'created' ? { agentId: me.id } : { delegateId: me.id }), ...(status && { status }) };
  return pageOf(
    page,
    (q) => ctx.db.task.findMany({ where, ...q }),
    () => ctx.db.task.count({ where }),
  );
}

export interface Delegated {
  task: Task;
  delegation: TaskDelegation;
}

/**
 * Hands the task to one of the caller's own sub-agents (at any depth) that is active; another agent's is
 * not found. Delegating again replaces the earlier delegation.
 */
export async function delegateTask(ctx: Ctx, id: string, input: { subAgentId?: unknown }): Promise<Delegated> {
  const { me, task } = await taskInReach(ctx, id, 'creator');
  const checks = new Checks();
  const subAgentId = checks.text('subAgentId', input.subAgentId, { max: 64, required: true });
  checks.done();
  if (subAgentId === me.id) throw new NotFound('sub-agent', subAgentId);
  const delegate = await agentInReach(ctx, subAgentId!).catch(() => {
    throw new NotFound('sub-agent', subAgentId);
  });
  if (delegate.status !== 'ACTIVE') throw new Conflict(`Sub-agent ${delegate.id} is ${delegate.status.toLowerCase()}: it cannot take a task`);
  assertMove(TASK_MOVES, task.status as TaskStatus, 'delegated', 'task');
  const now = ctx.services.clock.now();
  return transact(ctx, async (tx, emit) => {
    const moved = await tx.task.updateMany({ where: { id: task.id, status: task.status }, data: { status: 'delegated', delegateId: delegate.id } });
    if (moved.count !== 1) throw new Conflict('The task moved meanwhile; read it and try again');
    await tx.taskDelegation.updateMany({ where: { taskId: task.id, status: 'active' }, data: { status: 'replaced', endedAt: now } });
    const delegation = await tx.taskDelegation.create({ data: { taskId: task.id, subAgentId: delegate.id, createdAt: now } });
    await recordStateChange(tx, ctx, { subjectType: 'task', subjectId: task.id, from: task.status, to: 'delegated', note: `to ${delegate.id}` });
    const data = {
      task_id: task.id,
      delegation_id: delegation.id,
      sub_agent_id: delegate.id,
      delegated_by: me.id,
      intent: task.intent,
      budget_cents: task.budgetCents,
      deadline: task.deadline?.toISOString() ?? null,
    };
    await emit(me.id, 'task.delegated', data);
    await emit(delegate.id, 'task.delegated', data);
    return { task: await tx.task.findUniqueOrThrow({ where: { id: task.id } }), delegation };
  });
}

export async function cancelTask(ctx: Ctx, id: string): Promise<Task> {
  const { task } = await taskInReach(ctx, id, 'creator');
  assertMove(TASK_MOVES, task.status as TaskStatus, 'cancelled', 'task');
  const now = ctx.services.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const moved = await tx.task.updateMany({ where: { id: task.id, status: task.status }, data: { status: 'cancelled' } });
    if (moved.count !== 1) throw new Conflict('The task moved meanwhile; read it and try again');
    await tx.taskDelegation.updateMany({ where: { taskId: task.id, status: 'active' }, data: { status: 'cancelled', endedAt: now } });
    await recordStateChange(tx, ctx, { subjectType: 'task', subjectId: task.id, from: task.status, to: 'cancelled' });
    return tx.task.findUniqueOrThrow({ where: { id: task.id } });
  });
}

export interface TaskExecuteInput {
  capability?: unknown;
  input?: unknown;
  result?: unknown;
}

export interface TaskExecuted {
  taskExecution: TaskExecution;
  receipt: ExecutionReceipt;
  task: Task;
  verdicts: Verdict[];
  reputation: number | null;
}

/**
 * The delegate executes the task: `capability` runs with `input` under it (its budget pays, the delegate's scope
 * applies) and `result` is judged against the criteria. A successful execution meeting them all completes the task and
 * earns EXECUTOR_REWARD; anything else costs EXECUTOR_PENALTY and leaves the task delegated.
 */
export async function executeTask(ctx: Ctx, id: string, input: TaskExecuteInput): Promise<TaskExecuted> {
  const { me, task } = await taskInReach(ctx, id, 'delegate');
  const checks = new Checks();
  if (input.result === undefined || input.result === null) checks.fail('result', 'is required: the structured result of the task');
  else if (typeof input.result !== 'object' || Array.isArray(input.result)) checks.fail('result', 'must be a JSON object');
  else if (Buffer.byteLength(JSON.stringify(input.result)) > RESULT_MAX_BYTES) checks.fail('result', `must be at most ${RESULT_MAX_BYTES / 1024} KiB as JSON`);
  if (input.capability === undefined || input.capability === null) checks.fail('capability', 'is required');
  if (input.input === undefined || input.input === null) checks.fail('input', 'is required');
  checks.done();
  if (task.status !== 'delegated') throw new Conflict(`Task ${task.id} is ${task.status}: it can no longer be executed`);
  const receipt = await execute(ctx, { capability: input.capability, input: input.input, taskId: task.id });
  const { met: criteriaMet, verdicts } = judgeAll(task.successCriteria, input.result);
  const met = receipt.status === 'success' && criteriaMet;
  const now = ctx.services.clock.now();
  return transact(ctx, async (tx, emit) => {
    const completed = met
      ? (
          await tx.task.updateMany({
            where: { id: task.id, status: 'delegated' },
            data: { status: 'completed', result: input.result as Prisma.InputJsonObject, completedAt: now },
          })
        ).count === 1
      : false;
    if (completed) {
      await tx.taskDelegation.updateMany({ where: { taskId: task.id, status: 'active' }, data: { status: 'completed', endedAt: now } });
      await recordStateChange(tx, ctx, {
        subjectType: 'task',
        subjectId: task.id,
        from: 'delegated',
        to: 'completed',
        note: `execution ${receipt.executionId}`,
      });
    }
    // A result that met every criterion but lost the race to another that completed the task first moves
    // nothing; a completion earns only for settled work (else nothing is recorded: no event to trace a spark to).
    const delta = completed ? ((await settledWork(tx, task, receipt)) ? EXECUTOR_REWARD : 0) : met ? 0 : EXECUTOR_PENALTY;
    const change = delta
      ? await applyReputation(tx, emit, {
          agentId: me.id,
          delta,
          reason: completed ? COMPLETED_REASON : 'task.criteria_unmet',
          sourceType: 'task',
          sourceId: task.id,
          at: now,
        })
      : undefined;
    const applied = change ? (change.data.delta as number) : 0;
    const taskExecution = await tx.taskExecution.create({
      data: {
        taskId: task.id,
        delegateId: me.id,
        executionId: receipt.executionId,
        capability: receipt.capability,
        status: receipt.status,
        criteriaMet,
        judgment: verdicts as unknown as Prisma.InputJsonArray,
        result: input.result as Prisma.InputJsonObject,
        executorDelta: applied,
        createdAt: now,
      },
    });
    const data = {
      task_id: task.id,
      execution_id: receipt.executionId,
      delegate_id: me.id,
      status: receipt.status,
      criteria_met: criteriaMet,
      task_status: completed ? 'completed' : 'delegated',
      executor_delta: applied,
    };
    await emit(task.agentId, 'task.executed', data);
    await emit(me.id, 'task.executed', data);
    const reputation = (await tx.agent.findUnique({ where: { id: me.id }, select: { reputation: true } }))?.reputation ?? null;
    return { taskExecution, receipt, task: await tx.task.findUniqueOrThrow({ where: { id: task.id } }), verdicts, reputation };
  });
}

/**
 * Whether the execution that completed a task was settled work, the one kind a completion earns for: it succeeded, cost
 * something, and what it paid went outside the task's family (to the marketplace, or a provider outside the creator's
 * tree). A family paying itself, or a free call, costs the family nothing and so earns nothing.
 */
async function settledWork(tx: DbTx, task: Task, receipt: ExecutionReceipt): Promise<boolean> {
  if (receipt.status !== 'success' || receipt.transaction.costCents <= 0 || !receipt.provider) return false;
  if (!receipt.provider.serviceId) return receipt.provider.serviceKey === MARKETPLACE_PROVIDER.serviceKey;
  const service = await tx.service.findUnique({ where: { id: receipt.provider.serviceId }, select: { agentId: true } });
  return service !== null && !(await sameFamily(tx, task.agentId, service.agentId));
}

/** A task's executions as Task.executions lists them: latest first. */
export const EXECUTIONS_ORDER = [{ createdAt: 'desc' }, { id: 'asc' }] satisfies Prisma.TaskExecutionOrderByWithRelationInput[];

/** A task's delegations as Task.delegations lists them: latest first; of two made at one instant, the one still active (not yet ended) first. */
export const DELEGATIONS_ORDER = [
  { createdAt: 'desc' },
  { endedAt: { sort: 'desc', nulls: 'first' } },
  { id: 'asc' },
] satisfies Prisma.TaskDelegationOrderByWithRelationInput[];

/**
 * Moves every task past its deadline (pending or delegated) to `expired`, with its active delegation; any
 * instance may run it (rows are claimed with SKIP LOCKED). Answers how many expired.
 */
export async function expireOverdueTasks(services: Services): Promise<number> {
  const now = services.clock.now();
  // Looked for first outside a transaction: an idle tick is one statement, not BEGIN, a claim and COMMIT.
  const [{ any }] = await services.sql.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM tasks WHERE status IN ('pending', 'delegated') AND deadline < $1) AS any`,
    [now],
  );
  if (!any) return 0;
  return services.db.$transaction(async (tx: DbTx) => {
    const expired = await tx.$queryRaw<{ id: string; from: string }[]>`
      WITH due AS (
        SELECT id, status FROM tasks WHERE status IN ('pending', 'delegated') AND deadline < ${now}
        ORDER BY deadline LIMIT 500 FOR NO KEY UPDATE SKIP LOCKED
      )
      UPDATE tasks t SET status = 'expired', updated_at = ${now} FROM due WHERE t.id = due.id
      RETURNING t.id, due.status AS "from"`;
    if (!expired.length) return 0;
    const ids = expired.map((t) => t.id);
    await tx.taskDelegation.updateMany({ where: { taskId: { in: ids }, status: 'active' }, data: { status: 'expired', endedAt: now } });
    await tx.stateChange.createMany({
      data: expired.map((t) => ({
        subjectType: 'task',
        subjectId: t.id,
        fromState: t.from,
        toState: 'expired',
        actorKind: 'system',
        note: 'past its deadline',
        createdAt: now,
      })),
    });
    return expired.length;
  });
}
