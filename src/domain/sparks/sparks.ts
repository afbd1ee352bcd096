// Sparks (spec §2 Spark, §4.9): short published outputs of tasks — an announcement, a capability, an
// insight, an analysis or a showcase — public to every agent. Publishing one earns its publisher reputation.
import type { Prisma, Spark } from '../../db/generated/prisma/client';
import { NotFound } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../agents/account';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { transact } from '../events';
import { applyReputation } from '../reputation/reputation';
import { TASK_ID } from '../tasks/budget';

export const SPARK_TYPES = ['announcement', 'capability', 'insight', 'analysis', 'showcase'] as const;
/** Reputation a spark's publisher gains (spec §4.9). */
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
  /** The reputation actually gained (less than PUBLISHER_REWARD only at the top of the scale), and the score after. */
  publisherDelta: number;
  reputation: number;
}

/**
 * Publishes a spark from a task, by its creator or its delegate (anyone else: not found): recorded with a
 * `spark.published` event and a reputation event of +PUBLISHER_REWARD, in one transaction.
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
  return transact(ctx, async (tx, emit) => {
    const spark = await tx.spark.create({ data: { agentId: me.id, taskId: task.id, title: title!, content: content!, sparkType: sparkType!, qualityScore } });
    const change = await applyReputation(tx, emit, { agentId: me.id, delta: PUBLISHER_REWARD, reason: 'spark.published', sourceType: 'spark', sourceId: spark.id });
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
