// Delegations to external agents: a task's work or a swarm step handed to an agent that lives elsewhere.
// The request goes to its instance as a signed event through the outbox (retried until it is taken); the
// answer — the delivery's own JSON answer, or one its owner posts later — is recorded once, as an
// execution of the delegating agent, and moves the external agent's reputation: an answer earns only when
// it was asked for by an agent outside its owner's family, at most DAILY_GAIN_CAP a day.
import type { DbTx } from '../../db/database';
import type { ExtDelegation, Prisma } from '../../db/generated/prisma/client';
import { Conflict, NotFound } from '../../platform/errors';
import { isUuid, newUuid } from '../../platform/ids';
import type { ClaimedDelivery } from '../../platform/outbox';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import type { Ctx, Services } from '../context';
import { transact } from '../events';
import { getSwarm } from '../swarms/swarms';
import { taskInReach } from '../tasks/tasks';
import { DAILY_GAIN_CAP, GAIN_WINDOW_MS, sameFamily } from '../reputation/reputation';
import { externalAgentById } from './agents';
import { appendGatewayEvent } from './gateway-events';

export const DELEGATION_KIND = 'ext_delegation';
const MAX_INPUT_BYTES = 256 * 1024;
const MAX_RESULT_BYTES = 256 * 1024;
/**
 * Reputation an external agent gains for an answer, and loses for a failure. An answer earns only for a
 * delegation made by an agent outside its owner's family (its owner delegating to it and answering itself
 * costs nobody anything), and no more than DAILY_GAIN_CAP of them earn in any 24 hours.
 */
export const ANSWER_DELTA = 1;
export const FAILURE_DELTA = -2;

export interface DelegateInput {
  externalAgentId?: unknown;
  capability?: unknown;
  input?: unknown;
  taskId?: unknown;
  swarmId?: unknown;
  step?: unknown;
}

/** Hands work to an external agent: `capability` and `input`, under one of the caller's tasks, or a step of its swarm. */
export async function delegateToExternal(ctx: Ctx, input: DelegateInput): Promise<ExtDelegation> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const externalAgentId = checks.text('external_agent_id', input.externalAgentId, { max: 64, required: true });
  const taskId = checks.text('task_id', input.taskId, { max: 64 }) || null;
  const swarmId = checks.text('swarm_id', input.swarmId, { max: 64 }) || null;
  const step = checks.integer('step', input.step, 1, 20);
  if (swarmId && step === undefined) checks.fail('step', 'is required with swarm_id');
  if (taskId && swarmId) checks.fail('swarm_id', 'give task_id or swarm_id, not both');
  let capability = checks.text('capability', input.capability, { max: 64 });
  let work: unknown = input.input;
  if (work !== undefined && work !== null && Buffer.byteLength(JSON.stringify(work)) > MAX_INPUT_BYTES) checks.fail('input', 'must be at most 256 KiB');
  checks.done();
  if (taskId) {
    const { task } = await taskInReach(ctx, taskId);
    if (task.status !== 'pending' && task.status !== 'delegated') throw new Conflict(`Task ${taskId} is ${task.status}: its work is done`);
  }
  if (swarmId) {
    const swarm = await getSwarm(ctx, swarmId);
    const s = swarm.steps.find((x) => x.ordinal === step);
    if (!s) throw new NotFound('swarm step', `${swarmId}#${step}`);
    capability ??= s.capability;
    if (work === undefined || work === null) work = s.input;
  }
  const target = await externalAgentById(ctx, externalAgentId!);
  const late = new Checks();
  if (!capability) late.fail('capability', 'is required');
  else if (!target.capabilities.includes(capability))
    late.fail('capability', `is not one external agent ${target.id} declares (${target.capabilities.join(', ')})`);
  late.done();
  const now = ctx.services.clock.now();
  const id = newUuid();
  const executionId = newUuid();
  const payload = work ?? {};
  return transact(ctx, async (tx, emit) => {
    const delegation = await tx.extDelegation.create({
      data: {
        id,
        agentId: me.id,
        externalAgentId: target.id,
        capability: capability!,
        input: payload as Prisma.InputJsonValue,
        taskId,
        swarmId,
        step: swarmId ? step! : null,
        executionId,
        createdAt: now,
      },
    });
    await tx.externalAgent.update({ where: { id: target.id }, data: { delegations: { increment: 1 } } });
    const data = {
      delegation_id: id,
      execution_id: executionId,
      external_agent_id: target.id,
      capability,
      input: payload,
      from_agent_id: me.id,
      task_id: taskId,
      swarm_id: swarmId,
      step: swarmId ? step : null,
      answer_url: `${ctx.services.config.publicBaseUrl}/api/v1/ext/swarm/delegations/${id}/answer`,
    };
    // The request to the instance: signed with the marketplace's key and the external agent's secret.
    await emit(null, 'ext.delegation.requested', data, [{ kind: 'ext_delegation', externalAgentId: target.id, url: target.instanceUrl }]);
    await appendGatewayEvent(tx, { ownerId: target.ownerId, externalAgentId: target.id, type: 'delegation.requested', data, at: now });
    return delegation;
  });
}

/** A delegation the caller made, or one made to an external agent the caller owns. */
export async function delegationInReach(ctx: Ctx, id: string): Promise<ExtDelegation & { ownerId: string }> {
  const me = await requireAgent(ctx);
  const row = isUuid(id) ? await ctx.db.extDelegation.findUnique({ where: { id } }) : null;
  const target = row ? await ctx.db.externalAgent.findUnique({ where: { id: row.externalAgentId }, select: { ownerId: true } }) : null;
  if (!row || !target || (row.agentId !== me.id && target.ownerId !== me.id)) throw new NotFound('delegation', id);
  return { ...row, ownerId: target.ownerId };
}

export interface AnswerInput {
  result?: unknown;
  error?: unknown;
}

/** Reads an answer: `{ result }` (success) or `{ error }` (failure); undefined when it is neither. */
function readAnswer(checks: Checks | null, input: AnswerInput): { ok: boolean; result: unknown; error: string | null } | undefined {
  const hasResult = input.result !== undefined && input.result !== null;
  const hasError = input.error !== undefined && input.error !== null;
  if (hasResult === hasError) {
    checks?.fail('result', 'give either result (the answer) or error (why it failed)');
    return undefined;
  }
  if (hasResult) {
    if (Buffer.byteLength(JSON.stringify(input.result)) > MAX_RESULT_BYTES) {
      checks?.fail('result', 'must be at most 256 KiB');
      return undefined;
    }
    return { ok: true, result: input.result, error: null };
  }
  const error = typeof input.error === 'string' ? input.error.slice(0, 2000) : JSON.stringify(input.error).slice(0, 2000);
  return { ok: false, result: null, error };
}

/**
 * Records the answer once (a later one is 409 for a poster, ignored from a delivery): the delegation, an
 * execution of the delegating agent with its `execution.succeeded`/`failed` event, the external agent's
 * counts and reputation, and `delegation.answered` for its owner — in one transaction.
 */
async function recordAnswer(
  ctx: Pick<Ctx, 'db' | 'services'>,
  delegationId: string,
  answer: { ok: boolean; result: unknown; error: string | null },
): Promise<ExtDelegation | undefined> {
  const now = ctx.services.clock.now();
  return transact(ctx, async (tx, emit) => {
    const status = answer.ok ? 'answered' : 'failed';
    const claimed = await tx.extDelegation.updateMany({
      where: { id: delegationId, status: 'pending' },
      data: { status, result: answer.ok ? (answer.result as Prisma.InputJsonValue) : undefined, error: answer.error, answeredAt: now },
    });
    if (!claimed.count) return undefined;
    const d = await tx.extDelegation.findUniqueOrThrow({ where: { id: delegationId } });
    const latencyMs = Math.max(0, now.getTime() - d.createdAt.getTime());
    await tx.execution.create({
      data: {
        id: d.executionId,
        agentId: d.agentId,
        capability: d.capability,
        status: answer.ok ? 'success' : 'error',
        input: d.input as Prisma.InputJsonValue,
        result: answer.ok ? (answer.result as Prisma.InputJsonValue) : undefined,
        error: answer.error,
        costCents: 0,
        latencyMs,
        mode: 'external',
        taskId: d.taskId,
        createdAt: now,
      },
    });
    await tx.transaction.create({
      data: { agentId: d.agentId, executionId: d.executionId, kind: 'charge', amountCents: 0, latencyMs, capability: d.capability, createdAt: now },
    });
    const delta = answer.ok ? await answerEarns(tx, d, now) : FAILURE_DELTA;
    const [ext] = await tx.$queryRaw<{ owner_id: string; reputation: number }[]>`
      UPDATE external_agents SET answered = answered + ${answer.ok ? 1 : 0}, failed = failed + ${answer.ok ? 0 : 1},
        reputation = greatest(0, least(100, reputation + ${delta}::int)), updated_at = ${now}
      WHERE id = ${d.externalAgentId}::uuid RETURNING owner_id, reputation`;
    const data = {
      delegation_id: d.id,
      execution_id: d.executionId,
      external_agent_id: d.externalAgentId,
      capability: d.capability,
      status,
      ...(answer.ok ? { result: answer.result } : { error: answer.error }),
      latency_ms: latencyMs,
      task_id: d.taskId,
      swarm_id: d.swarmId,
      step: d.step,
    };
    await emit(d.agentId, answer.ok ? 'execution.succeeded' : 'execution.failed', {
      execution_id: d.executionId,
      capability: d.capability,
      status: answer.ok ? 'success' : 'error',
      external_agent_id: d.externalAgentId,
      delegation_id: d.id,
      latency_ms: latencyMs,
      cost_cents: 0,
    });
    if (ext) await appendGatewayEvent(tx, { ownerId: ext.owner_id, externalAgentId: d.externalAgentId, type: 'delegation.answered', data, at: now });
    return tx.extDelegation.findUniqueOrThrow({ where: { id: delegationId } });
  });
}

/**
 * What an answer (already marked answered in `tx`) earns its external agent: ANSWER_DELTA, or 0 for a delegation from
 * its owner's own family or past DAILY_GAIN_CAP answers in the last 24 hours (an owner's own, earning nothing, use up only
 * their allowance). The agent's row is locked first, so answers arriving together are counted in turn.
 */
async function answerEarns(tx: DbTx, d: ExtDelegation, now: Date): Promise<number> {
  const [ext] = await tx.$queryRaw<{ owner_id: string }[]>`SELECT owner_id FROM external_agents WHERE id = ${d.externalAgentId}::uuid FOR NO KEY UPDATE`;
  if (!ext || (await sameFamily(tx, d.agentId, ext.owner_id))) return 0;
  const since = new Date(now.getTime() - GAIN_WINDOW_MS);
  const [{ answered }] = await tx.$queryRaw<{ answered: number }[]>`
    SELECT count(*)::int AS answered FROM ext_delegations WHERE external_agent_id = ${d.externalAgentId}::uuid AND status = 'answered' AND answered_at > ${since}`;
  return answered * ANSWER_DELTA <= DAILY_GAIN_CAP ? ANSWER_DELTA : 0;
}

/** An answer posted by the external agent's owner (its instance acts through the owner's key). */
export async function answerDelegation(ctx: Ctx, id: string, input: AnswerInput): Promise<ExtDelegation> {
  const me = await requireAgent(ctx);
  const d = await delegationInReach(ctx, id);
  if (d.ownerId !== me.id) throw new NotFound('delegation', id);
  const checks = new Checks();
  const answer = readAnswer(checks, input);
  checks.done();
  const recorded = await recordAnswer(ctx, d.id, answer!);
  if (!recorded) throw new Conflict(`Delegation ${id} was already answered`);
  return recorded;
}

/** A delivery's 2xx answer: `{ result }` or `{ error }` records it; anything else (202, empty) waits for a posted answer. */
export async function answerFromDelivery(services: Services, delivery: ClaimedDelivery, body: string): Promise<void> {
  const delegationId = (delivery.envelope.data as { delegation_id?: unknown }).delegation_id;
  if (typeof delegationId !== 'string') return;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return;
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return;
  const answer = readAnswer(null, json as AnswerInput);
  if (answer) await recordAnswer({ db: services.db, services }, delegationId, answer);
}
