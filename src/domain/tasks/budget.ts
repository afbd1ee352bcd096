// A task's budget (integer cents), enforced by the server for every call made under the task: a call
// holds its provider's price before the provider is called and is charged what it cost when recorded, so
// concurrent calls can never spend more than the budget. Used by execute.
import type { Agent, Task } from '../../db/generated/prisma/client';
import { AppError, Conflict, NotFound } from '../../platform/errors';
import { newUuid } from '../../platform/ids';
import { perRequest } from '../../platform/loaders';
import type { Ctx, Services } from '../context';

export const TASK_ID = /^task_[0-9A-Za-z]{24}$/;

/** The 402 of a call the task's remaining budget cannot pay for. */
export class BudgetExceeded extends AppError {
  constructor(message: string) {
    super('payment_required', message);
  }
}

/**
 * The task a call of `POST /execute` is made under: the caller must be its delegate (anyone else: not
 * found), and it must be delegated still (409).
 */
export async function taskForExecution(ctx: Ctx, me: Agent, taskId: string): Promise<Task> {
  const task = TASK_ID.test(taskId) ? await ctx.db.task.findUnique({ where: { id: taskId } }) : null;
  if (!task || task.delegateId !== me.id) throw new NotFound('task delegated to you', taskId);
  if (task.status !== 'delegated') throw new Conflict(`Task ${task.id} is ${task.status}: nothing more runs under it`);
  return task;
}

/**
 * Holds `cents` of the task's budget for one call, or undefined when what is left (less spent and held) does not cover
 * it. The row is locked by a statement of its own so the holds summed next are read after the lock (in one statement,
 * its snapshot would miss a hold committed meanwhile). A hold lapses at `expiresAt` if its call is never recorded.
 */
export async function holdBudget(services: Services, taskId: string, cents: number, expiresAt: Date): Promise<string | undefined> {
  const id = newUuid();
  const now = services.clock.now();
  const inserted = await services.db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tasks WHERE id = ${taskId} AND status = 'delegated' FOR NO KEY UPDATE`;
    if (!locked.length) return 0;
    return tx.$executeRaw`
      WITH t AS (SELECT id, budget_cents, spent_cents FROM tasks WHERE id = ${taskId}),
      held AS (SELECT coalesce(sum(cents), 0)::int AS cents FROM task_holds WHERE task_id = ${taskId} AND expires_at > ${now})
      INSERT INTO task_holds (id, task_id, cents, expires_at)
      SELECT ${id}::uuid, t.id, ${cents}, ${expiresAt} FROM t, held
      WHERE t.budget_cents IS NULL OR t.spent_cents + held.cents + ${cents} <= t.budget_cents`;
  });
  return inserted ? id : undefined;
}

/** What each task has left to spend now (null: no budget): its budget less what was spent and what calls in flight hold. */
async function remainingBudgets(services: Services, taskIds: readonly string[]): Promise<Map<string, number | null>> {
  const rows = await services.db.$queryRaw<{ id: string; left: number | null }[]>`
    SELECT t.id, CASE WHEN t.budget_cents IS NULL THEN NULL ELSE t.budget_cents - t.spent_cents -
      coalesce((SELECT sum(cents) FROM task_holds h WHERE h.task_id = t.id AND h.expires_at > ${services.clock.now()}), 0) END::int AS left
    FROM tasks t WHERE t.id = ANY(${[...new Set(taskIds)]}::text[])`;
  return new Map(rows.map((r) => [r.id, r.left]));
}

/** What the task has left to spend now (null: no budget). */
export async function remainingBudget(services: Services, taskId: string): Promise<number | null> {
  return (await remainingBudgets(services, [taskId])).get(taskId) ?? null;
}

const budgetsLeft = perRequest(async (ctx: Ctx, taskIds: readonly string[]) => {
  const left = await remainingBudgets(ctx.services, taskIds);
  return taskIds.map((id) => left.get(id) ?? null);
});

/** remainingBudget of a task being read: the tasks a request reads at once (a list's) are asked in one statement. */
export function budgetLeft(ctx: Ctx, taskId: string): Promise<number | null> {
  return budgetsLeft(ctx).load(taskId);
}
