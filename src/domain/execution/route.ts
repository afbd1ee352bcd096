// Routing (spec §4.3, CONTRACT §6): the providers a call tries, in order — the best-ranked ones not cooling
// down (auto) or exactly the one named (chosen), with the marketplace last for a generic capability it serves.
import { CapabilityUnavailable, NotFound, ValidationFailed } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import type { Ctx } from '../context';
import type { CallableMatch } from '../discovery/candidates';
import { firstPartyInput, MARKETPLACE_PROVIDER } from '../first-party/first-party';
import type { GenericCapability } from '../first-party/types';

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

export const isCooling = (m: CallableMatch, now: number) => m.cooldownUntil !== null && m.cooldownUntil.getTime() > now;

/** The ranked providers not cooling down, at most MAX_ATTEMPTS of them. */
export function candidatesOf(ctx: Ctx, ranked: CallableMatch[]): Candidate[] {
  const now = ctx.services.clock.now().getTime();
  return ranked
    .filter((m) => !isCooling(m, now))
    .slice(0, MAX_ATTEMPTS)
    .map((m) => ({
      serviceId: m.serviceId,
      serviceKey: m.serviceKey,
      name: m.name,
      providerId: m.providerId,
      reputation: m.reputation,
      priceCents: m.costCents,
      score: m.score,
      endpoint: m.endpoint,
      signingSecret: m.signingSecret,
    }));
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
