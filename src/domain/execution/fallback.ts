// Fallback (CONTRACT §6): the candidates called in turn until one answers — a registered provider by a signed
// HTTPS call, the marketplace by its own handler; under a task, only those its budget covers — then the record.
import type { Agent } from '../../db/generated/prisma/client';
import { AppError, ValidationFailed } from '../../platform/errors';
import { inputProblem } from '../../platform/input-boundary';
import { schemaProblems } from '../../platform/json-schema-check';
import { OutboundError } from '../../platform/outbound';
import { retryAfterSeconds, timingMetric } from '../../platform/http';
import { webhookHeaders } from '../../platform/signing';
import type { Ctx } from '../context';
import { firstPartyInput } from '../first-party/first-party';
import { ModelFailed } from '../first-party/nlp-model';
import type { PaidCall } from '../payments/payments';
import { meteredCharge, unitBudget, usageOf } from '../payments/metering';
import { BudgetExceeded, holdBudget, remainingBudget, type taskForExecution } from '../tasks/budget';
import type { AttemptReceipt, ExecutionReceipt, RoutingRecord } from './receipts';
import { recordProviderExecution } from './record';
import { marketplaceMisfit, type Candidate, type Mode } from './route';

const RESULT_MAX_BYTES = 1024 * 1024;

/** The longest cooldown a provider's Retry-After may ask for (provider-stats.ts caps every cooldown there too). */
const RETRY_AFTER_MAX_SECONDS = 600;

/**
 * One signed call of one provider within `timeoutMs`; any answer but a 2xx with a JSON body is a failure
 * with a reason. `byDeadline`: the timeout is what is left of the caller's deadline, so running out of it is
 * `deadline_exceeded`, not the provider's `timeout`.
 */
async function callProvider(
  ctx: Ctx,
  c: Candidate,
  call: { executionId: string; body: string; ordinal: number; timeoutMs: number; byDeadline: boolean },
): Promise<AttemptReceipt & { result?: unknown }> {
  const { executionId, body, ordinal, timeoutMs, byDeadline } = call;
  const base = { ordinal, serviceId: c.serviceId, serviceKey: c.serviceKey, score: c.score, priceCents: c.priceCents };
  const started = performance.now();
  try {
    // CONTRACT §6: the service's signing secret (HMAC, v1); the Ed25519 v1a signature is for events.
    const headers = webhookHeaders({ id: executionId, timestampSeconds: Math.floor(ctx.services.clock.now().getTime() / 1000), body, secret: c.signingSecret });
    const res = await ctx.services.outbound.post(c.endpoint, { headers, body, timeoutMs, maxResponseBytes: RESULT_MAX_BYTES });
    const latencyMs = Math.round(res.latencyMs);
    if (res.status < 200 || res.status > 299) {
      // The provider's own 429 (never the marketplace's): its Retry-After bounds the cooldown it starts.
      const retryAfter = res.status === 429 ? retryAfterSeconds(res.headers['retry-after'], ctx.services.clock.now(), RETRY_AFTER_MAX_SECONDS) : null;
      return {
        ...base,
        outcome: 'failure',
        reason: `http_${res.status}`,
        statusCode: res.status,
        latencyMs,
        ...(retryAfter !== null ? { retryAfterSeconds: retryAfter } : {}),
      };
    }
    if (res.body.trim() === '') return { ...base, outcome: 'failure', reason: 'empty_body', statusCode: res.status, latencyMs };
    let result: unknown;
    try {
      result = JSON.parse(res.body);
    } catch {
      return { ...base, outcome: 'failure', reason: 'invalid_json', statusCode: res.status, latencyMs };
    }
    // JSON the marketplace cannot store or serve (a NUL character, a lone surrogate, nesting past the input
    // boundary's depth) fails as invalid JSON, and the next provider is tried: otherwise the record of the
    // call would fail after the provider was called.
    if (inputProblem(result)) return { ...base, outcome: 'failure', reason: 'invalid_json', statusCode: res.status, latencyMs };
    if (c.metered) {
      // A metered answer says what it used; one that does not is not paid (payments/metering.ts).
      const units = usageOf(res.headers);
      if (units === null) return { ...base, outcome: 'failure', reason: 'invalid_usage', statusCode: res.status, latencyMs };
      return { ...base, outcome: 'success', reason: null, statusCode: res.status, latencyMs, result, metered: meteredCharge(c.metered, units, c.priceCents) };
    }
    return { ...base, outcome: 'success', reason: null, statusCode: res.status, latencyMs, result };
  } catch (err) {
    const latencyMs = Math.round(performance.now() - started);
    if (err instanceof OutboundError) {
      const reason = err.reason === 'timeout' && byDeadline ? 'deadline_exceeded' : err.reason;
      return { ...base, outcome: 'failure', reason, statusCode: null, latencyMs };
    }
    ctx.services.log.warn({ err, service_key: c.serviceKey }, 'provider call failed unexpectedly');
    return { ...base, outcome: 'failure', reason: 'internal', statusCode: null, latencyMs };
  }
}

/**
 * The marketplace answering a generic capability: its handler, bounded by the larger of a provider's and a
 * model's budget, its output checked against its schema. A failure is an attempt like a provider's, with
 * a reason (`invalid_input`, `invalid_output`, `timeout`, or the problem's code) and a detail for the
 * execution's error; when the marketplace is the only candidate, bad input is the caller's 400 instead.
 */
async function callMarketplace(
  ctx: Ctx,
  me: Agent,
  c: Candidate,
  input: Record<string, unknown>,
  ordinal: number,
  /** What is left of the caller's deadline (null: none). */
  left: number | null,
): Promise<AttemptReceipt & { result?: unknown; detail?: string }> {
  const local = c.local!;
  const base = { ordinal, serviceId: null, serviceKey: c.serviceKey, score: null, priceCents: 0, statusCode: null };
  const started = performance.now();
  const { config } = ctx.services;
  const controller = new AbortController();
  const own = Math.max(config.providerTimeoutMs, config.llm.timeoutMs);
  const byDeadline = left !== null && left < own;
  const timer = setTimeout(() => controller.abort(new Error('timeout')), byDeadline ? left : own);
  const latency = () => Math.round(performance.now() - started);
  try {
    const served = await local.run(ctx, me, firstPartyInput(local, input), controller.signal);
    const usage = served.usage ?? null;
    const problems = schemaProblems(local.outputSchema, served.output);
    if (problems.length) {
      ctx.services.log.warn({ capability: local.slug, problems }, 'a first-party capability answered outside its output schema');
      return { ...base, outcome: 'failure', reason: 'invalid_output', latencyMs: latency(), detail: 'its answer did not match the output schema', usage };
    }
    return { ...base, outcome: 'success', reason: null, latencyMs: latency(), result: served.output, usage };
  } catch (err) {
    // What a model spent on an attempt that failed is recorded on it too.
    const usage = err instanceof ModelFailed ? (err.usage ?? null) : null;
    if (controller.signal.aborted) {
      const reason = byDeadline ? 'deadline_exceeded' : 'timeout';
      return { ...base, outcome: 'failure', reason, latencyMs: latency(), detail: byDeadline ? "the call's deadline passed" : 'it ran out of time', usage };
    }
    if (err instanceof ValidationFailed) {
      const detail = err.errors.map((e) => `${e.path ? `input.${e.path}` : 'input'} ${e.message}`).join('; ');
      return { ...base, outcome: 'failure', reason: 'invalid_input', latencyMs: latency(), detail };
    }
    if (err instanceof AppError) return { ...base, outcome: 'failure', reason: err.code, latencyMs: latency(), detail: err.message, usage };
    ctx.services.log.warn({ err, capability: local.slug }, 'a first-party capability failed unexpectedly');
    return { ...base, outcome: 'failure', reason: 'internal', latencyMs: latency() };
  } finally {
    clearTimeout(timer);
  }
}

export interface ProviderCall {
  capability: string;
  input: Record<string, unknown>;
  mode: Mode;
  task: Awaited<ReturnType<typeof taskForExecution>> | undefined;
  taskId: string | null;
  executionId: string;
  started: number;
  candidates: Candidate[];
  paid: PaidCall | undefined;
  /** When the caller's deadline passes (performance.now() time; null: none). */
  deadlineAt: number | null;
  /** The caller's policy and whom routing passed over (null: neither), recorded with the call. */
  routing: RoutingRecord | null;
}

/** Calls the providers in turn until one answers, and records the execution (and its payment). */
export async function callProviders(ctx: Ctx, me: Agent, call: ProviderCall): Promise<ExecutionReceipt> {
  const { capability, input, mode, task, taskId, executionId, started, candidates, paid, deadlineAt } = call;
  const providerTimeoutMs = ctx.services.config.providerTimeoutMs;
  let routing = call.routing;
  /** Whether the deadline passed before every candidate was tried (the rest are passed over, saying so). */
  let outOfTime = false;
  const body = JSON.stringify({ execution_id: executionId, capability, input, agent_id: me.id });
  // A metered provider is also told the call's budget: the most units it may charge for, at its unit price.
  const bodyFor = (c: Candidate) =>
    c.metered
      ? JSON.stringify({
          execution_id: executionId,
          capability,
          input,
          agent_id: me.id,
          metering: { unit: c.metered.unit, cents_per_unit: c.metered.centsPerUnit, max_units: unitBudget(c.metered, c.priceCents), max_cents: c.priceCents },
        })
      : body;
  const attempts: AttemptReceipt[] = [];
  const called: Candidate[] = [];
  const holds: string[] = [];
  /** What the marketplace's failed attempt said, for the execution's error. */
  const details = new Map<number, string>();
  let success: { candidate: Candidate; result: unknown } | undefined;
  /** Under a task, what the marketplace's own schema refuses of the input, when every provider before it was over budget. */
  let refusedAlone: ValidationFailed | null = null;
  for (const [i, candidate] of candidates.entries()) {
    const left = deadlineAt === null ? null : Math.floor(deadlineAt - performance.now());
    if (left !== null && left <= 0) {
      outOfTime = true;
      const rest = candidates.slice(i).map((c) => ({
        serviceId: c.serviceId,
        serviceKey: c.serviceKey,
        priceCents: c.priceCents,
        reason: 'deadline_exceeded' as const,
        detail: "was not tried: the call's deadline had passed",
      }));
      routing = { policy: routing?.policy ?? {}, skipped: [...(routing?.skipped ?? []), ...rest] };
      break;
    }
    // Every registered provider was over the task's budget, and the marketplace does not take this input:
    // nothing is called, and the answer is the budget's 402 (saying so), as when nothing else is left.
    if (task && candidate.local && !attempts.length && (refusedAlone = marketplaceMisfit(candidate.local, input))) break;
    // Under a task, a provider is called only once its price is held from the task's budget.
    if (task && task.budgetCents !== null) {
      const hold = await holdBudget(
        ctx.services,
        task.id,
        candidate.priceCents,
        new Date(ctx.services.clock.now().getTime() + 2 * ctx.services.config.providerTimeoutMs + 30_000),
      );
      if (!hold) continue;
      holds.push(hold);
    }
    called.push(candidate);
    const ordinal = attempts.length + 1;
    const byDeadline = left !== null && left < providerTimeoutMs;
    const { result, detail, ...attempt } = candidate.local
      ? await callMarketplace(ctx, me, candidate, input, ordinal, left)
      : {
          detail: undefined,
          ...(await callProvider(ctx, candidate, {
            executionId,
            body: bodyFor(candidate),
            ordinal,
            timeoutMs: byDeadline ? left : providerTimeoutMs,
            byDeadline,
          })),
        };
    attempts.push(attempt);
    // The answer's Server-Timing lists each attempt's time at its provider, on every surface with an answer of its own.
    if (ctx.response) (ctx.response.timing ??= []).push(timingMetric('provider', attempt.latencyMs, attempt.serviceKey));
    if (detail) details.set(attempt.ordinal, detail);
    if (attempt.outcome === 'success') {
      success = { candidate, result };
      break;
    }
  }
  if (!attempts.length && !outOfTime) {
    const left = await remainingBudget(ctx.services, task!.id);
    const priced = candidates.filter((c) => !c.local);
    throw new BudgetExceeded(
      `Task ${task!.id} has ${left ?? 0} cents of its budget left; the ${priced.length === 1 ? "provider's price" : "providers' prices"} (${priced.map((c) => `${c.serviceKey} ${c.priceCents}`).join(', ')}) ${priced.length === 1 ? 'is' : 'are'} more` +
        (refusedAlone ? `, and the marketplace, which charges nothing, does not take this input by its own schema (${refusedAlone.message})` : ''),
    );
  }
  const latencyMs = Math.round(performance.now() - started);
  const last = called[attempts.length - 1] as Candidate | undefined;
  const chosen = success?.candidate ?? last;
  const tried = attempts.map((a) => `${a.serviceKey} ${a.reason}${details.has(a.ordinal) ? ` (${details.get(a.ordinal)})` : ''}`).join('; ');
  const deadlinePassed = outOfTime || attempts.at(-1)?.reason === 'deadline_exceeded';
  const error = success
    ? null
    : deadlinePassed
      ? `The call's deadline of ${Math.round(deadlineAt! - started)} ms passed after ${attempts.length === 1 ? '1 attempt' : `${attempts.length} attempts`}${tried ? `: ${tried}` : ''}`
      : `${attempts.length === 1 ? 'The provider' : `All ${attempts.length} providers`} failed: ${tried}`;
  const receipt = await recordProviderExecution(
    ctx,
    executionId,
    {
      me,
      capability,
      mode,
      input,
      status: success ? 'success' : 'error',
      result: success?.result,
      error,
      provider: chosen ? { serviceId: chosen.serviceId, serviceKey: chosen.serviceKey, name: chosen.name, reputation: chosen.reputation } : null,
      // A metered call costs what it used; any other, its provider's price.
      costCents: success ? (attempts.at(-1)!.metered?.charged_cents ?? success.candidate.priceCents) : 0,
      latencyMs,
      attempts,
      routing,
      taskId,
      holds,
      paid,
      providerWallet: chosen ? paid?.providerWallets[chosen.providerId] : undefined,
    },
    ctx.services.clock.now(),
  );
  // Successes only are folded within seconds; a failure soon, since it may start a cooldown (provider-stats.ts).
  ctx.services.providerStats.wake(success === undefined || attempts.length > 1);
  return receipt;
}
