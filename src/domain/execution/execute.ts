// Execute (spec §4.3, CONTRACT §6): read a capability call, route it to providers (route.ts) — the best-ranked
// ones with fallback (auto, fallback.ts) or exactly the one named (chosen) — or serve it from the marketplace's
// built-ins, then record the execution, every attempt and the transaction, with its event, in one transaction
// (record.ts). The receipt it answers is receipts.ts's; a replayed payment's, replay.ts's.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from '../../db/generated/prisma/client';
import { Forbidden, NotFound, ValidationFailed } from '../../platform/errors';
import { newTimeOrderedUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { CAPABILITY_SLUG } from '../capabilities/catalog';
import type { Ctx } from '../context';
import { transact } from '../events';
import { TASK_ID, taskForExecution } from '../tasks/budget';
import { releaseHold } from '../payments/ledger';
import { holdMandate, MandateExceeded, mandateForCall, releaseMandateHold } from '../payments/mandates';
import { payForCall, type CallPrice, type PaidCall } from '../payments/payments';
import { centsToUnits } from '../payments/setup';
import { requestHash } from '../../platform/idempotency';
import { FIRST_PARTY, firstPartyInput, MARKETPLACE_PROVIDER, servedHere } from '../first-party/first-party';
import type { OwnCapability } from '../first-party/types';
import { callProviders } from './fallback';
import type { AttemptReceipt, ExecutionReceipt } from './receipts';
import { recordInTransaction } from './record';
import { recordedReceipt } from './replay';
import { isNamed, NO_POLICY, policyShown, readPolicy, type RoutingPolicy, type SkippedProvider } from './policy';
import {
  chosenCandidate,
  MAX_ATTEMPTS,
  marketplaceCandidate,
  marketplaceMisfit,
  misfitWhileCooling,
  MODES,
  nobodyLeft,
  planAuto,
  ProvidersCoolingDown,
  ProvidersUnhealthy,
  underInput,
  unservedByMarketplace,
  type Candidate,
  type MandateBound,
  type Mode,
} from './route';

// What callers outside this folder read from here.
export { MAX_ATTEMPTS, MODES, type Mode } from './route';
export type { AttemptReceipt, ExecutionReceipt, MandateReceipt, MeteredPayment, PaymentReceipt, RoutingRecord } from './receipts';
export { categoryOf, FAILURE_CATEGORIES } from './receipts';
export { MAX_DEADLINE_MS, MAX_NAMED, ROUTING_SORTS, type RoutingPolicy, type SkippedProvider } from './policy';
export { recordTogether, type BatchRecord, type Written } from './record';
export { recordedReceipt } from './replay';

const INPUT_MAX_BYTES = 256 * 1024;
/** The marketplace as policies name it. */
const MARKETPLACE_CANDIDATE = { serviceId: null, serviceKey: MARKETPLACE_PROVIDER.serviceKey };

export interface ExecuteInput {
  capability?: unknown;
  input?: unknown;
  provider?: unknown;
  mode?: unknown;
  /** The task the call is made under (the caller must be its delegate): its budget pays (tasks/budget.ts). */
  taskId?: unknown;
  /** The caller's routing policy for this call (policy.ts). */
  routing?: unknown;
}

export interface ExecuteOptions {
  /**
   * The execution's id, chosen by the caller (a swarm step's, fixed when the step was made): a call whose
   * execution was already recorded under it is not made again (see swarms).
   */
  executionId?: string;
  /** An x402 payment for the call (PAYMENT-SIGNATURE): base64 of the PaymentPayload's JSON, or the JSON. */
  payment?: string | null;
}

function readInput(raw: ExecuteInput) {
  const checks = new Checks();
  const capability = checks.text('capability', raw.capability, { max: 64, required: true });
  if (capability && !CAPABILITY_SLUG.test(capability)) checks.fail('capability', 'must be a capability identifier such as "summarize"');
  if (raw.input === undefined || raw.input === null) checks.fail('input', 'is required');
  else if (typeof raw.input !== 'object' || Array.isArray(raw.input)) checks.fail('input', 'must be a JSON object');
  else if (Buffer.byteLength(JSON.stringify(raw.input)) > INPUT_MAX_BYTES) checks.fail('input', `must be at most ${INPUT_MAX_BYTES / 1024} KiB as JSON`);
  const mode = (raw.mode ?? 'auto') as Mode;
  if (!MODES.includes(mode)) checks.fail('mode', 'must be auto or chosen');
  const provider = checks.text('provider', raw.provider, { max: 64 });
  if (mode === 'chosen' && !provider) checks.fail('provider', 'is required with mode chosen: a service key (svc_…) or service id');
  const taskId = checks.text('taskId', raw.taskId, { max: 64 });
  if (taskId && !TASK_ID.test(taskId)) checks.fail('taskId', 'must be a task id (task_…)');
  const policy = readPolicy(checks, raw.routing, MODES.includes(mode) ? mode : 'auto');
  checks.done();
  return { capability: capability!, input: raw.input as Record<string, unknown>, mode, provider: provider || null, taskId: taskId || null, policy };
}

/** A sub-agent acts only on the capabilities its authority scope names (prefixes); an empty scope is unrestricted. */
function assertInScope(me: Agent, capability: string) {
  if (me.authorityScope.length && !me.authorityScope.some((prefix) => capability.startsWith(prefix))) {
    throw new Forbidden(`Capability ${capability} is outside this agent's authority scope (${me.authorityScope.join(', ')})`);
  }
}

/** A capability of the marketplace's own systems, served inside the transaction that records its execution. */
async function runOwn(
  ctx: Ctx,
  me: Agent,
  own: OwnCapability,
  call: { capability: string; input: Record<string, unknown>; mode: Mode; taskId: string | null; executionId: string; started: number },
): Promise<ExecutionReceipt> {
  const { capability, input, mode, taskId, executionId, started } = call;
  try {
    const fields = firstPartyInput(own, input);
    return await transact(ctx, async (tx, emit) => {
      const result = await own.run(tx, emit, ctx, me, fields);
      const latencyMs = Math.round(performance.now() - started);
      const attempt: AttemptReceipt = {
        ordinal: 1,
        serviceId: null,
        serviceKey: MARKETPLACE_PROVIDER.serviceKey,
        outcome: 'success',
        reason: null,
        statusCode: null,
        latencyMs,
        score: null,
        priceCents: 0,
      };
      const provided = {
        serviceId: null,
        serviceKey: MARKETPLACE_PROVIDER.serviceKey,
        name: MARKETPLACE_PROVIDER.name,
        reputation: MARKETPLACE_PROVIDER.reputation,
      };
      return recordInTransaction(
        ctx,
        tx,
        emit,
        executionId,
        { me, capability, mode, input, status: 'success', result, error: null, provider: provided, costCents: 0, latencyMs, attempts: [attempt], taskId },
        ctx.services.clock.now(),
      );
    });
  } catch (err) {
    throw underInput(err);
  }
}

export async function execute(ctx: Ctx, raw: ExecuteInput, opts: ExecuteOptions = {}): Promise<ExecutionReceipt> {
  const me = await requireAgent(ctx);
  const { capability, input, mode, provider, taskId, policy: given } = readInput(raw);
  const policy = given ?? NO_POLICY;
  assertInScope(me, capability);
  const task = taskId ? await taskForExecution(ctx, me, taskId) : undefined;
  // A sub-agent's call may be paid by a mandate of an agent above it, which bounds who it may pay; a call paid
  // with its own x402 payment is not.
  const mandate = opts.payment ? null : await mandateForCall(ctx, me, capability);
  const bound: MandateBound | null = mandate?.perCallCents ? { mandateId: mandate.id, perCallCents: mandate.perCallCents } : null;
  let executionId = opts.executionId ?? newTimeOrderedUuid();
  const started = performance.now();
  const deadlineAt = policy.deadlineMs === null ? null : started + policy.deadlineMs;

  const firstParty = FIRST_PARTY.get(capability);
  if (firstParty?.kind === 'own') {
    // The marketplace's own systems: it always answers them, and nobody else can.
    if (mode === 'chosen' && provider !== MARKETPLACE_PROVIDER.serviceKey) {
      throw new ValidationFailed([
        {
          path: 'provider',
          message: `${capability} is one of the marketplace's own capabilities: only the provider "${MARKETPLACE_PROVIDER.serviceKey}" serves it`,
        },
      ]);
    }
    return runOwn(ctx, me, firstParty, { capability, input, mode, taskId, executionId, started });
  }

  // A generic capability the marketplace serves is tried last, after the registered providers.
  const served = firstParty?.kind === 'generic' && servedHere(firstParty, ctx.services) ? firstParty : undefined;
  const local = served && !isNamed(policy.ignore, MARKETPLACE_CANDIDATE) && (!policy.only || isNamed(policy.only, MARKETPLACE_CANDIDATE)) ? served : undefined;
  let candidates: Candidate[];
  let skipped: SkippedProvider[] = [];
  if (mode === 'chosen' && provider === MARKETPLACE_PROVIDER.serviceKey) {
    if (!served) throw unservedByMarketplace(capability, firstParty);
    candidates = [marketplaceCandidate(served)];
  } else if (mode === 'chosen') {
    const chosen = await chosenCandidate(ctx, capability, provider!);
    if (policy.maxCostCents !== null && chosen.priceCents > policy.maxCostCents) {
      throw new ValidationFailed([
        { path: 'routing.maxCostCents', message: `${chosen.serviceKey} costs ${chosen.priceCents} cents for ${capability}, more than ${policy.maxCostCents}` },
      ]);
    }
    if (bound && chosen.priceCents > bound.perCallCents) {
      throw new MandateExceeded(
        `${chosen.serviceKey} costs ${chosen.priceCents} cents for ${capability}; mandate ${bound.mandateId} pays at most ${bound.perCallCents} cents a call`,
        {
          mandate_id: bound.mandateId,
          cap: 'per_call_cents',
          cap_cents: bound.perCallCents,
        },
      );
    }
    candidates = [chosen];
  } else {
    const plan = await planAuto(ctx, capability, policy, bound);
    candidates = plan.candidates;
    skipped = plan.skipped;
    if (!candidates.length && plan.cooling.length && !local) {
      // Everyone left is cooling down: the call waits for the first back when that is within its deadline.
      const until = Math.min(...plan.cooling.map((c) => c.until));
      const now = ctx.services.clock.now().getTime();
      if (deadlineAt === null || until - now >= deadlineAt - performance.now()) throw new ProvidersCoolingDown(capability, until, now);
      await sleep(until - now);
      const back = plan.cooling.filter((c) => c.until <= until).slice(0, policy.allowFallbacks ? MAX_ATTEMPTS : 1);
      candidates = back.map((c) => c.candidate);
      skipped = skipped.filter((s) => !back.some((c) => c.candidate.serviceKey === s.serviceKey));
    }
    if (!candidates.length && !local && plan.unhealthy) {
      throw new ProvidersUnhealthy(capability, plan.unhealthy, Math.ceil(ctx.services.config.probeIntervalMs / 2000));
    }
    if (!candidates.length && !local && (given || bound)) {
      const refusal = await nobodyLeft(ctx, capability, policy, plan, bound);
      if (refusal) throw refusal;
    }
    if (local && (policy.allowFallbacks || !candidates.length)) candidates.push(marketplaceCandidate(local));
  }
  if (!candidates.length) {
    if (firstParty) throw unservedByMarketplace(capability, firstParty);
    throw new NotFound('active provider of capability', capability);
  }
  // The marketplace's input schema is its own attempt's, never a registered provider's: the marketplace
  // alone (chosen by name, or nobody else to try) checks it before anything else happens, a 400 rather
  // than a failed call.
  if (candidates.length === 1 && candidates[0].local) {
    const misfit = marketplaceMisfit(candidates[0].local, input);
    const cooling = skipped.filter((s) => s.reason === 'cooldown').length;
    if (misfit) throw cooling ? misfitWhileCooling(misfit, capability, cooling) : misfit;
  }
  const routing = given || skipped.length ? { policy: policyShown(policy), skipped } : null;

  // A paid call is paid before any provider is called: its price is held on the caller's wallet.
  const price = priceOf(ctx, me, { capability, input, mode, provider, taskId, policy: given }, candidates);
  let paid: PaidCall | undefined;
  if (price.quote > 0n) {
    // Under a mandate, its caps are held first (its 402 names the cap with no room), then its grantor's wallet pays.
    const held = mandate ? await holdMandate(ctx.services, mandate, price.quoteCents, new Date(ctx.services.clock.now().getTime() + price.holdMs)) : undefined;
    let outcome: Awaited<ReturnType<typeof payForCall>>;
    try {
      outcome = await payForCall(ctx, me, price, opts.payment, mandate ? { agentId: mandate.grantorId, mandateId: mandate.id } : null);
    } catch (err) {
      if (held) await releaseMandateHold(ctx.services, held.id).catch(() => undefined);
      throw err;
    }
    // The payment already paid for this very request: its answer is the one recorded then.
    if (outcome.kind === 'replay') return recordedReceipt(ctx, outcome.executionId);
    paid = held ? { ...outcome.paid, mandate: held } : outcome.paid;
    if (paid.executionId) executionId = paid.executionId;
  }
  let receipt: ExecutionReceipt | undefined;
  try {
    receipt = await callProviders(ctx, me, { capability, input, mode, task, taskId, executionId, started, candidates, paid, deadlineAt, routing });
    return receipt;
  } finally {
    // What the call held and did not spend goes back: to the lease for the caller's next calls, or (its
    // own hold, when nothing was recorded) to the wallet at once.
    if (paid?.mandate && !receipt) await releaseMandateHold(ctx.services, paid.mandate.id).catch(() => undefined);
    if (paid?.hold.shared)
      ctx.services.payments.leases.finish(
        paid.payer,
        { leaseId: paid.hold.id, walletId: paid.hold.walletId, address: paid.hold.address, amount: paid.hold.amount },
        receipt?.payment?.charged ?? 0n,
      );
    else if (paid && !receipt) await releaseHold(ctx.services, paid.hold.id).catch(() => undefined);
  }
}

/** The most a call can cost (the dearest provider it may try) and whom it may pay. */
function priceOf(
  ctx: Ctx,
  me: Agent,
  call: { capability: string; input: unknown; mode: Mode; provider: string | null; taskId: string | null; policy: RoutingPolicy | null },
  candidates: Candidate[],
): CallPrice {
  const quoteCents = Math.max(0, ...candidates.map((c) => c.priceCents));
  return {
    quote: quoteCents > 0 ? centsToUnits(ctx.services.payments.setup, quoteCents) : 0n,
    quoteCents,
    providers: [...new Set(candidates.filter((c) => c.priceCents > 0).map((c) => c.providerId))],
    capability: call.capability,
    // Read only to bind an x402 payment to the request: computed when asked for.
    get fingerprint() {
      // A call with a policy is another request than the same call without one (a payment binds one of them).
      const policy = call.policy ? [policyShown(call.policy)] : [];
      return requestHash('execute', [me.id, call.capability, call.input, call.mode, call.provider, call.taskId, ...policy]);
    },
    // The hold outlives the longest run of the call: every attempt's full budget, and a margin.
    holdMs: MAX_ATTEMPTS * ctx.services.config.providerTimeoutMs + 60_000,
  };
}
