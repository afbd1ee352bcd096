// Sparks (spec §2 Spark, §4.9): short published outputs of tasks — an announcement, a capability, an
// insight, an analysis or a showcase — public to every agent. Publishing one earns its publisher reputation
// once per task, and only for a task completed by settled work (tasks.ts): a spark shows work that was done.
import type { DbTx } from '../../db/database';
import type { Prisma, Spark, Task } from '../../db/generated/prisma/client';
import { NotFound } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../agents/account';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { transact } from '../events';
import { applyReputation } from '../reputation/reputation';
import { TASK_ID } from '../tasks/budget';
import { COMPLETED_REASON } from '../tasks/tasks';

export const SPARK_TYPES = ['announcement', 'capability', 'insight', 'analysis', 'showcase'] as const;
/** Reputation a spark's publisher gains (spec §4.9): for the first spark of a task completed by settled work. */
export const PUBLISHER_REWARD = 2;
/** The public listing's page (spec §8: at most 50). */
export const SPARKS_PAGE_MAX = 50;

export interface SparkInput {
  title?: unknown;
  content?: unknown;
  sparkType?: unknown;
  qualityScore?: unknown;
}

export interface Published {
  spark: Spark;
  /**
   * The reputation actually gained: PUBLISHER_REWARD for the first spark of a task completed by settled
   * work, less at the top of the scale or past the daily cap, 0 otherwise. And the score after.
   */
  publisherDelta: number;
  reputation: number;
}

/**
 * Whether a spark of `task` may still earn its reward, read under the task's row lock: the task's
 * completion was settled work (its delegate's `task.completed` event, recorded for nothing else, its reason
 * noting a cap when one applied) and no
 * spark of it has earned yet (the reward events of its sparks, whoever published them: the creator or a
 * delegate of it, all of whose events since the task was made are read from their index).
 */
async function sparkEarns(tx: DbTx, task: Task): Promise<boolean> {
  if (task.status !== 'completed' || !task.delegateId) return false;
  const [row] = await tx.$queryRaw<{ settled: boolean; rewarded: boolean }[]>`
    WITH publishers AS (
      SELECT ${task.agentId}::uuid AS id UNION SELECT sub_agent_id FROM task_delegations WHERE task_id = ${task.id}
    ), its_sparks AS (
      SELECT s.id::text AS id, s.agent_id FROM sparks s WHERE s.agent_id IN (SELECT id FROM publishers) AND s.created_at >= ${task.createdAt} AND s.task_id = ${task.id}
    )
    SELECT
      EXISTS (SELECT 1 FROM reputation_events e WHERE e.agent_id = ${task.delegateId}::uuid AND e.created_at >= ${task.createdAt}
        AND e.source_type = 'task' AND e.source_id = ${task.id} AND starts_with(e.reason, ${COMPLETED_REASON})) AS settled,
      EXISTS (SELECT 1 FROM reputation_events e JOIN its_sparks s ON s.agent_id = e.agent_id AND s.id = e.source_id
        WHERE e.created_at >= ${task.createdAt} AND e.source_type = 'spark' AND e.delta > 0) AS rewarded`;
  return row.settled && !row.rewarded;
}

/**
 * Publishes a spark from a task, by its creator or its delegate (anyone else: not found): recorded with a
 * `spark.published` event and, for the first spark of a task completed by settled work, a reputation event
 * of +PUBLISHER_REWARD, in one transaction.
 */
export async function publishSpark(ctx: Ctx, taskId: string, input: SparkInput): Promise<Published> {
  const me = await requireAgent(ctx);
  const task = TASK_ID.test(taskId) ? await ctx.db.task.findUnique({ where: { id: taskId } }) : null;
  if (!task || (task.agentId !== me.id && task.delegateId !== me.id)) throw new NotFound('task', taskId);
  const checks = new Checks();
  const title = checks.text('title', input.title, { max: 200, required: true });
  const content = checks.text('content', input.content, { max: 10_000, required: true, multiline: true });
  const sparkType = checks.oneOf('sparkType', input.sparkType, SPARK_TYPES);
  let qualityScore: number | null = null;
  if (input.qualityScore !== undefined && input.qualityScore !== null) {
    if (typeof input.qualityScore !== 'number' || !Number.isFinite(input.qualityScore) || input.qualityScore < 0 || input.qualityScore > 100) {
      checks.fail('qualityScore', 'must be a number from 0 to 100');
    } else qualityScore = input.qualityScore;
  }
  checks.done();
  const now = ctx.services.clock.now();
  return transact(ctx, async (tx, emit) => {
    // The task's row lock orders sparks of one task published at once (its creator's and its delegate's): one earns.
    const [locked] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tasks WHERE id = ${task.id} FOR NO KEY UPDATE`;
    if (!locked) throw new NotFound('task', taskId);
    const current = await tx.task.findUniqueOrThrow({ where: { id: task.id } });
    const earns = await sparkEarns(tx, current);
    const spark = await tx.spark.create({ data: { agentId: me.id, taskId: task.id, title: title!, content: content!, sparkType: sparkType!, qualityScore, createdAt: now } });
    const change = earns ? await applyReputation(tx, emit, { agentId: me.id, delta: PUBLISHER_REWARD, reason: 'spark.published', sourceType: 'spark', sourceId: spark.id, at: now }) : undefined;
    await emit(me.id, 'spark.published', { spark_id: spark.id, task_id: task.id, title: spark.title, spark_type: spark.sparkType, quality_score: spark.qualityScore });
    const reputation = (await tx.agent.findUniqueOrThrow({ where: { id: me.id }, select: { reputation: true } })).reputation;
    return { spark, publisherDelta: change ? (change.data.delta as number) : 0, reputation };
  });
}

/** Every agent's sparks, newest first, by publisher and type; no credential needed. */
export async function listSparks(ctx: Ctx, page: Page, filter: { agentId?: string | null; sparkType?: string | null }) {
  const checks = new Checks();
  const sparkType = filter.sparkType === undefined || filter.sparkType === null ? undefined : checks.oneOf('sparkType', filter.sparkType, SPARK_TYPES);
  if (filter.agentId !== undefined && filter.agentId !== null && !isUuid(filter.agentId)) checks.fail('agentId', 'must be an agent id (UUID)');
  checks.done();
  const where: Prisma.SparkWhereInput = { ...(filter.agentId && { agentId: filter.agentId }), ...(sparkType && { sparkType }) };
  return pageOf(page, (q) => ctx.db.spark.findMany({ where, ...q }), () => ctx.db.spark.count({ where }));
}
