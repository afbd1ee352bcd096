// Routing (spec §4.3, CONTRACT §6): the providers a call tries, in order — the best-ranked ones not cooling
// down (auto) or exactly the one named (chosen), with the marketplace last for a generic capability it serves.
import { AppError, CapabilityUnavailable, NotFound, ValidationFailed } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import type { Ctx } from '../context';
import { callableMatches, cheapestOffer, loadCallable, loadNamed, type CallableMatch, type CallableRows } from '../discovery/candidates';
import type { Prefer } from '../discovery/scoring';
import { firstPartyInput, MARKETPLACE_PROVIDER } from '../first-party/first-party';
import type { GenericCapability } from '../first-party/types';
import { isNamed, type RoutingPolicy, type SkippedProvider } from './policy';
import { MandateExceeded } from '../payments/mandates';
import { meteredOf, type Metered } from '../payments/metering';

export const MODES = ['auto', 'chosen'] as const;
export type Mode = (typeof MODES)[number];
/** Providers tried at most per execution in auto mode (CONTRACT §6). */
export const MAX_ATTEMPTS = 3;
/** Candidates ranked per execution, so that cooling providers can be skipped and three still remain. */
export const CANDIDATES = 10;

/** A provider ready to be called: a registered service, or the marketplace itself (`local`). */
export interface Candidate {
  /** Null for the marketplace. */
  serviceId: string | null;
  serviceKey: string;
  name: string;
  providerId: string;
  reputation: number;
  priceCents: number;
  score: number | null;
  endpoint: string;
  signingSecret: string;
  /** How the service meters its calls, when it does: `priceCents` is then the most a call costs (payments/metering.ts). */
  metered?: Metered | null;
  /** The marketplace's own handler, when the candidate is the marketplace (a generic capability's last resort). */
  local?: GenericCapability;
}

/** Re-reads a built-in's field errors as paths under `input`. */
export function underInput(err: unknown): unknown {
  if (err instanceof ValidationFailed) return new ValidationFailed(err.errors.map((e) => ({ ...e, path: e.path ? `input.${e.path}` : 'input' })));
  return err;
}

/** Why the marketplace's own schema refuses `input` (field errors under `input.`), or null when it takes it. */
export function marketplaceMisfit(local: GenericCapability, input: Record<string, unknown>): ValidationFailed | null {
  try {
    firstPartyInput(local, input);
    return null;
  } catch (err) {
    const under = underInput(err);
    if (under instanceof ValidationFailed) return under;
    throw err;
  }
}

/**
 * The 400 of input the marketplace refuses when it is left alone only because the registered providers are
 * cooling down: one more error on `input` says why its schema applies.
 */
export function misfitWhileCooling(misfit: ValidationFailed, capability: string, cooling: number): ValidationFailed {
  const providers = cooling === 1 ? 'its one registered provider is' : `its ${cooling} registered providers are`;
  const why = `is read by the marketplace's own schema for ${capability}: ${providers} cooling down after repeated failures, so the marketplace is the only provider to try now`;
  return new ValidationFailed([...misfit.errors, { path: 'input', message: why }]);
}

export const isCooling = (m: Pick<CallableMatch, 'cooldownUntil'>, now: number) => m.cooldownUntil !== null && m.cooldownUntil.getTime() > now;

function candidateOf(m: CallableMatch): Candidate {
  return {
    serviceId: m.serviceId,
    serviceKey: m.serviceKey,
    name: m.name,
    providerId: m.providerId,
    reputation: m.reputation,
    priceCents: m.costCents,
    score: m.score,
    endpoint: m.endpoint,
    signingSecret: m.signingSecret,
    metered: m.metered,
  };
}

/** Who an auto-mode call tries, in order, and whom it passed over. */
export interface RoutePlan {
  candidates: Candidate[];
  skipped: SkippedProvider[];
  /** Providers passed over only for their cooldown, in rank order, with when it ends (epoch ms). */
  cooling: { candidate: Candidate; until: number }[];
  /** Providers passed over only for failing the marketplace's health probes. */
  unhealthy: number;
}

/** Offers read to rank by reliability (no stored score orders by it): the balanced ranking's first this many. */
export const RELIABILITY_POOL = 50;

/** A spend mandate's per-call cap, which bounds who a call under it may pay (payments/mandates.ts). */
export interface MandateBound {
  mandateId: string;
  perCallCents: number;
}

/** The most a call may pay a provider: the policy's bound and the mandate's, whichever is lower (null: none). */
export function costBound(policy: RoutingPolicy, mandate?: MandateBound | null): number | null {
  const bounds = [policy.maxCostCents, mandate?.perCallCents ?? null].filter((b): b is number => b !== null);
  return bounds.length ? Math.min(...bounds) : null;
}

/** Why the policy, or the mandate paying for the call, passes a provider over (null: neither does). */
function policySkip(m: CallableMatch, policy: RoutingPolicy, mandate?: MandateBound | null): Pick<SkippedProvider, 'reason' | 'detail'> | null {
  if (policy.maxCostCents !== null && m.costCents > policy.maxCostCents) {
    return { reason: 'over_max_cost', detail: `costs ${m.costCents} cents, more than max_cost_cents ${policy.maxCostCents}` };
  }
  if (mandate && m.costCents > mandate.perCallCents) {
    return { reason: 'over_max_cost', detail: `costs ${m.costCents} cents, more than mandate ${mandate.mandateId} pays a call (${mandate.perCallCents})` };
  }
  if (policy.minSuccessRate !== null && m.successRate < policy.minSuccessRate) {
    return { reason: 'below_policy', detail: `success rate ${m.successRate} is under min_success_rate ${policy.minSuccessRate}` };
  }
  if (policy.maxLatencyP95Ms !== null && (m.latencyP95Ms === null || m.latencyP95Ms > policy.maxLatencyP95Ms)) {
    return {
      reason: 'below_policy',
      detail:
        m.latencyP95Ms === null
          ? `has no p95 latency measured yet, and max_latency_p95_ms is ${policy.maxLatencyP95Ms}`
          : `p95 latency ${m.latencyP95Ms} ms is over max_latency_p95_ms ${policy.maxLatencyP95Ms}`,
    };
  }
  return null;
}

/** `matches` in the policy's order: the ones `order` names first, as it names them, then the rest as ranked. */
function ordered(matches: CallableMatch[], policy: RoutingPolicy): CallableMatch[] {
  let out = matches;
  if (policy.sort === 'reliability') out = [...out].sort((a, b) => b.successRate - a.successRate);
  if (policy.order.length) {
    const first = policy.order.flatMap((ref) => out.filter((m) => isNamed([ref], m)));
    const rest = out.filter((m) => !first.includes(m));
    out = [...new Set(first), ...rest];
  }
  return policy.ignore.length ? out.filter((m) => !isNamed(policy.ignore, m)) : out;
}

/**
 * The registered providers an auto-mode call tries under `policy` (NO_POLICY: the balanced ranking's first
 * MAX_ATTEMPTS not cooling down, as always), and the ones it passed over on the way, with why.
 */
export async function planAuto(ctx: Ctx, capability: string, policy: RoutingPolicy, mandate?: MandateBound | null): Promise<RoutePlan> {
  const now = ctx.services.clock.now().getTime();
  const prefer: Prefer = policy.sort === null || policy.sort === 'reliability' ? 'balanced' : policy.sort;
  const limit = (policy.sort === 'reliability' ? RELIABILITY_POOL : CANDIDATES) + policy.ignore.length;
  const registered = (refs: string[]) => refs.filter((r) => r !== MARKETPLACE_PROVIDER.serviceKey);
  let rows: CallableRows;
  if (policy.only) rows = await loadNamed(ctx, capability, registered(policy.only));
  else {
    rows = await loadCallable(ctx, capability, limit, prefer);
    const missing = registered(policy.order).filter((ref) => !rows.some(([o]) => o[0] === ref || o[1] === ref));
    if (missing.length) rows = [...rows, ...(await loadNamed(ctx, capability, missing)).filter(([o]) => !rows.some(([r]) => r[0] === o[0]))];
  }
  const want = policy.allowFallbacks ? MAX_ATTEMPTS : 1;
  const plan: RoutePlan = { candidates: [], skipped: [], cooling: [], unhealthy: 0 };
  const seen = new Set<string>();
  const walk = (matches: CallableMatch[]) => {
    for (const m of ordered(matches, policy)) {
      if (plan.candidates.length >= want) return;
      if (seen.has(m.serviceId)) continue;
      seen.add(m.serviceId);
      const skip = policySkip(m, policy, mandate);
      if (!skip && m.health === 'unhealthy') {
        plan.unhealthy++;
        const detail = `failed the marketplace's health probes${m.lastFailureReason ? ` (last: ${m.lastFailureReason})` : ''}`;
        plan.skipped.push({ serviceId: m.serviceId, serviceKey: m.serviceKey, priceCents: m.costCents, reason: 'unhealthy', detail });
      } else if (!skip && isCooling(m, now)) {
        const until = m.cooldownUntil!.getTime();
        plan.cooling.push({ candidate: candidateOf(m), until });
        const detail = `is cooling down after failures until ${new Date(until).toISOString()}`;
        plan.skipped.push({ serviceId: m.serviceId, serviceKey: m.serviceKey, priceCents: m.costCents, reason: 'cooldown', detail });
      } else if (skip) plan.skipped.push({ serviceId: m.serviceId, serviceKey: m.serviceKey, priceCents: m.costCents, ...skip });
      else plan.candidates.push(candidateOf(m));
    }
  };
  walk(callableMatches(ctx, rows, prefer));
  // A price bound passed over the ranking's first offers: the best ones under it, however they rank, are read.
  const bound = costBound(policy, mandate);
  if (plan.candidates.length < want && bound !== null && !policy.only && rows.length >= limit && plan.skipped.some((s) => s.reason === 'over_max_cost')) {
    walk(callableMatches(ctx, await loadCallable(ctx, capability, limit, prefer, bound), prefer));
  }
  return plan;
}

/**
 * Why nobody is left to try under a policy that passed every provider over (not for a cooldown: that waits
 * or answers 503): the caller's 400, naming the field, the cheapest price on offer when it was the price.
 */
export async function nobodyLeft(
  ctx: Ctx,
  capability: string,
  policy: RoutingPolicy,
  plan: RoutePlan,
  mandate?: MandateBound | null,
): Promise<ValidationFailed | MandateExceeded | null> {
  const skipped = plan.skipped.filter((s) => s.reason === 'over_max_cost' || s.reason === 'below_policy');
  if (skipped.some((s) => s.reason === 'over_max_cost') && !skipped.some((s) => s.reason === 'below_policy')) {
    const cheapest = await cheapestOffer(ctx, capability);
    const offer = cheapest ? `the cheapest on offer is ${cheapest.serviceKey} at ${cheapest.costCents} cents` : 'nobody offers it now';
    // The mandate paying for the call bounds it lower than the caller's policy does: its 402, naming its cap.
    if (mandate && (policy.maxCostCents === null || mandate.perCallCents < policy.maxCostCents)) {
      return new MandateExceeded(
        `no provider of ${capability} costs at most the ${mandate.perCallCents} cents mandate ${mandate.mandateId} pays a call: ${offer}`,
        {
          mandate_id: mandate.mandateId,
          cap: 'per_call_cents',
          cap_cents: mandate.perCallCents,
        },
      );
    }
    return new ValidationFailed([
      { path: 'routing.maxCostCents', message: `no provider of ${capability} costs at most ${policy.maxCostCents} cents: ${offer}` },
    ]);
  }
  if (skipped.length) {
    const path = skipped.some((s) => s.detail.includes('min_success_rate')) ? 'routing.minSuccessRate' : 'routing.maxLatencyP95Ms';
    const why = skipped.map((s) => `${s.serviceKey} ${s.detail}`).join('; ');
    return new ValidationFailed([{ path, message: `no provider of ${capability} meets the routing policy: ${why}` }]);
  }
  if (policy.only) return new ValidationFailed([{ path: 'routing.only', message: `none of these is an active provider of ${capability}` }]);
  if (policy.ignore.length) return new ValidationFailed([{ path: 'routing.ignore', message: `every active provider of ${capability} is ignored` }]);
  return null;
}

export async function chosenCandidate(ctx: Ctx, capability: string, provider: string): Promise<Candidate> {
  const service = await ctx.db.service.findFirst({
    where: isUuid(provider) ? { id: provider } : { serviceKey: provider },
    include: { agent: { select: { id: true, reputation: true, status: true } } },
  });
  if (!service || service.status !== 'active' || service.agent.status !== 'ACTIVE') throw new NotFound('active service', provider);
  if (!service.capabilities.includes(capability)) {
    throw new ValidationFailed([{ path: 'provider', message: `service ${service.serviceKey} does not offer ${capability}` }]);
  }
  return {
    serviceId: service.id,
    serviceKey: service.serviceKey,
    name: service.name,
    providerId: service.agent.id,
    reputation: service.agent.reputation,
    // The capability's own price on the service, when one was set (payments/pricing.ts).
    priceCents: (service.capabilityPrices as Record<string, number> | null)?.[capability] ?? service.costPerCall,
    score: null,
    endpoint: service.endpoint,
    signingSecret: service.signingSecret,
    metered: meteredOf(service.pricingDetails),
  };
}

/** The marketplace as the last candidate of a generic capability it serves. */
export function marketplaceCandidate(local: GenericCapability): Candidate {
  return {
    serviceId: null,
    serviceKey: MARKETPLACE_PROVIDER.serviceKey,
    name: MARKETPLACE_PROVIDER.name,
    providerId: '',
    reputation: MARKETPLACE_PROVIDER.reputation,
    priceCents: 0,
    score: null,
    endpoint: '',
    signingSecret: '',
    local,
  };
}

/** Why the marketplace does not serve a capability here: it is not one of its own, or it lacks configuration. */
export function unservedByMarketplace(capability: string, firstParty: { unavailableBecause?: string } | undefined): Error {
  if (!firstParty)
    return new ValidationFailed([{ path: 'provider', message: `the marketplace does not serve ${capability}: name a registered service (svc_…)` }]);
  return new CapabilityUnavailable(
    `No registered provider offers ${capability}, and the marketplace cannot serve it on this instance: ${firstParty.unavailableBecause ?? 'it is not configured here'}`,
  );
}

/**
 * Every provider the call may try failed the marketplace's health probes (and none is cooling down): 503 with
 * Retry-After at the next probes' time. A provider named in `provider` is still called.
 */
export class ProvidersUnhealthy extends AppError {
  constructor(capability: string, count: number, retryAfterSeconds: number) {
    const seconds = Math.max(1, retryAfterSeconds);
    super(
      'service_unavailable',
      `Every provider of ${capability} the call may try (${count}) failed the marketplace's health probes; it probes them again within ${seconds} s. A provider named in \`provider\` is still called.`,
      { retry_after_seconds: seconds, http: { status: 503, headers: { 'Retry-After': String(seconds) } } },
      503,
    );
  }
}

/**
 * Every provider left is cooling down, and none is back within the call's deadline (or it has none): 503
 * with Retry-After at the first one's return.
 */
export class ProvidersCoolingDown extends AppError {
  constructor(capability: string, until: number, now: number) {
    const seconds = Math.max(1, Math.ceil((until - now) / 1000));
    const at = new Date(until).toISOString();
    super(
      'service_unavailable',
      `Every provider of ${capability} the call may try is cooling down after failures: the first is back at ${at}, in ${seconds} s`,
      { retry_after_seconds: seconds, cooldown_until: at, http: { status: 503, headers: { 'Retry-After': String(seconds) } } },
      503,
    );
  }
}
