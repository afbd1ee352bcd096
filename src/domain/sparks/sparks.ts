// Sparks (spec §2 Spark, §4.9): short published outputs of tasks — an announcement, a capability, an
// insight, an analysis or a showcase — public to every agent. Publishing one adds its publisher 2
// reputation (spec §4.9), bounded so that sparks cannot be farmed: one rewarded spark per task, and at most
// SPARK_DAILY_GAIN_CAP added by sparks in any 24 hours, inside the cap on all gains (reputation.ts). The
// answer says which bound held back what was not added.
import type { DbTx } from '../../db/database';
import type { Prisma, Spark, Task } from '../../db/generated/prisma/client';
import { NotFound } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { transact } from '../events';
import { applyReputation, DAILY_GAIN_CAP, GAIN_WINDOW_MS, gainedSince } from '../reputation/reputation';
import { TASK_ID } from '../tasks/budget';

export const SPARK_TYPES = ['announcement', 'capability', 'insight', 'analysis', 'showcase'] as const;
/** Reputation a spark adds its publisher (spec §4.9). */
export const PUBLISHER_REWARD = 2;
/** The most reputation sparks add one agent in any 24 hours (GAIN_WINDOW_MS): two rewarded sparks. */
export const SPARK_DAILY_GAIN_CAP = 4;
/** The public listing's page (spec §8: at most 50). */
export const SPARKS_PAGE_MAX = 50;

/** Why a spark added less than PUBLISHER_REWARD, as the answer says it. */
export const SPARK_BOUNDS = {
  task: 'One rewarded spark per task: a spark of this task already added its reputation',
  sparks: `Sparks add at most ${SPARK_DAILY_GAIN_CAP} reputation in any 24 hours`,
  daily: `At most ${DAILY_GAIN_CAP} reputation is gained in any 24 hours, from all sources together`,
  top: 'Reputation is at its maximum, 100',
} as const;

export interface SparkInput {
  title?: unknown;
  content?: unknown;
  sparkType?: unknown;
  qualityScore?: unknown;
}

export interface Published {
  spark: Spark;
  /** The reputation actually added: PUBLISHER_REWARD, or less where a bound applied (`reason`). */
  publisherDelta: number;
  /** The publisher's reputation after. */
  reputation: number;
  /** Which bound held the gain below PUBLISHER_REWARD (SPARK_BOUNDS); null when it was added in full. */
  reason: string | null;
}

interface Standing {
  reputation: number;
  /** What the agent gained in the window, all sources; and what sparks added of it. */
  gained: number;
  sparks: number;
  /** Whether a spark of the task already added reputation. */
  rewarded: boolean;
}

/**
 * The publisher's standing, read under its row lock (taken before applyReputation's, so the caps read are those it
 * applies): its reputation, its gains in the window, and whether a spark of `task` already earned, whoever of its
 * creator or delegates published it.
 */
async function standing(tx: DbTx, agentId: string, task: Task, now: Date): Promise<Standing> {
  const since = new Date(now.getTime() - GAIN_WINDOW_MS);
  const [row] = await tx.$queryRawUnsafe<Standing[]>(
    `WITH publishers AS (
       SELECT $3::uuid AS id UNION SELECT sub_agent_id FROM task_delegations WHERE task_id = $4
     ), its_sparks AS (
       SELECT s.id::text AS id, s.agent_id FROM sparks s WHERE s.agent_id IN (SELECT id FROM publishers) AND s.created_at >= $5 AND s.task_id = $4
     )
     SELECT a.reputation, ${gainedSince('a.id', '$2')} AS gained,
       (SELECT COALESCE(sum(g.delta), 0)::int FROM reputation_events g
         WHERE g.agent_id = a.id AND g.created_at > $2 AND g.delta > 0 AND g.source_type = 'spark') AS sparks,
       EXISTS (SELECT 1 FROM reputation_events e JOIN its_sparks s ON s.agent_id = e.agent_id AND s.id = e.source_id
         WHERE e.created_at >= $5 AND e.source_type = 'spark' AND e.delta > 0) AS rewarded
     FROM agents a WHERE a.id = $1::uuid FOR NO KEY UPDATE OF a`,
    agentId,
    since,
    task.agentId,
    task.id,
    task.createdAt,
  );
  return row;
}

/** What a spark adds given the publisher's standing, and the bound that held it back (null: none). */
function sparkGain(s: Standing): { delta: number; reason: string | null } {
  if (s.rewarded) return { delta: 0, reason: SPARK_BOUNDS.task };
  const rooms: [number, string][] = [
    [SPARK_DAILY_GAIN_CAP - s.sparks, SPARK_BOUNDS.sparks],
    [DAILY_GAIN_CAP - s.gained, SPARK_BOUNDS.daily],
    [100 - s.reputation, SPARK_BOUNDS.top],
  ];
  let delta = PUBLISHER_REWARD;
  let reason: string | null = null;
  for (const [room, why] of rooms) {
    if (Math.max(0, room) < delta) {
      delta = Math.max(0, room);
      reason = why;
    }
  }
  return { delta, reason };
}

/**
 * Publishes a spark from a task, by its creator or delegate (anyone else: not found), with a `spark.published` event
 * and a reputation event of what it adds (PUBLISHER_REWARD within the caps) in one transaction. A task whose reward was
 * taken adds nothing; one a cap holds back records what was applied, naming the cap.
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
    const before = await standing(tx, me.id, task, now);
    const { reason } = sparkGain(before);
    const spark = await tx.spark.create({
      data: { agentId: me.id, taskId: task.id, title: title!, content: content!, sparkType: sparkType!, qualityScore, createdAt: now },
    });
    // The sparks' cap is applied here, the cap on all gains and the top of the scale by applyReputation (under
    // the same lock, so as sparkGain read them); a capped gain is recorded with what was applied.
    const sparkRoom = Math.max(0, SPARK_DAILY_GAIN_CAP - before.sparks);
    const change = before.rewarded
      ? undefined
      : await applyReputation(tx, emit, {
          agentId: me.id,
          delta: Math.min(PUBLISHER_REWARD, sparkRoom),
          reason: sparkRoom < PUBLISHER_REWARD ? `spark.published (capped: sparks add at most ${SPARK_DAILY_GAIN_CAP} a day)` : 'spark.published',
          sourceType: 'spark',
          sourceId: spark.id,
          at: now,
        });
    await emit(me.id, 'spark.published', {
      spark_id: spark.id,
      task_id: task.id,
      title: spark.title,
      spark_type: spark.sparkType,
      quality_score: spark.qualityScore,
    });
    const publisherDelta = change ? (change.data.delta as number) : 0;
    return { spark, publisherDelta, reputation: before.reputation + publisherDelta, reason: publisherDelta < PUBLISHER_REWARD ? reason : null };
  });
}

/** Every agent's sparks, newest first, by publisher and type; no credential needed. */
export async function listSparks(ctx: Ctx, page: Page, filter: { agentId?: string | null; sparkType?: string | null }) {
  const checks = new Checks();
  const sparkType = filter.sparkType === undefined || filter.sparkType === null ? undefined : checks.oneOf('sparkType', filter.sparkType, SPARK_TYPES);
  if (filter.agentId !== undefined && filter.agentId !== null && !isUuid(filter.agentId)) checks.fail('agentId', 'must be an agent id (UUID)');
  checks.done();
  const where: Prisma.SparkWhereInput = { ...(filter.agentId && { agentId: filter.agentId }), ...(sparkType && { sparkType }) };
  return pageOf(
    page,
    (q) => ctx.db.spark.findMany({ where, ...q }),
    () => ctx.db.spark.count({ where }),
  );
}
