// Discovery: rank the active services offering a capability by reputation, cost, reliability, latency
// and freshness, weighted by `prefer` (ranking.ts), and list them with the marketplace where it serves the
// capability; each match explains its score.
import { CapabilityUnavailable, NotFound } from '../../platform/errors';
import { FIRST_PARTY, MARKETPLACE_PROVIDER, servedHere } from '../first-party/first-party';
import type { FirstPartyCapability } from '../first-party/types';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { CAPABILITY_SLUG } from '../capabilities/catalog';
import type { Ctx } from '../context';
import { MAX_COST_CENTS } from '../services/services';
import { PREFERENCES, type Prefer, type Match } from './scoring';
import { type ResolveQuery, rankProviders } from './ranking';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

export interface ResolveInput {
  capability?: unknown;
  prefer?: unknown;
  minReputation?: unknown;
  maxCost?: unknown;
  language?: unknown;
  limit?: unknown;
  constraints?: { minReputation?: unknown; maxCost?: unknown; language?: unknown } | null;
}

/**
 * A provider as listings show it: a ranked registered service, or the marketplace itself (no service or
 * agent id, no measured success rate, no score: it is listed after the ranked providers).
 */
export type Listed = Omit<Match, 'serviceId' | 'providerId' | 'successRate' | 'score'> & {
  serviceId: string | null;
  providerId: string | null;
  successRate: number | null;
  score: number | null;
  firstParty: boolean;
};

export interface Resolution {
  matches: Listed[];
  total: number;
  /** Whether `total` is estimated from a sample of the capability's offers (see TOTAL_SAMPLE). */
  totalIsEstimate: boolean;
  resolutionTimeMs: number;
  query: ResolveQuery;
}

export function readResolveQuery(input: ResolveInput): ResolveQuery {
  const checks = new Checks();
  const capability = checks.text('capability', input.capability, { max: 64, required: true });
  if (capability && !CAPABILITY_SLUG.test(capability)) checks.fail('capability', 'must be a capability identifier such as "summarize"');
  const prefer = (input.prefer ?? 'balanced') as Prefer;
  if (!PREFERENCES.includes(prefer)) checks.fail('prefer', `must be one of ${PREFERENCES.join(', ')}`);
  // The limits may come flat or inside `constraints` (the spec gives both); flat wins when both are set.
  const c = input.constraints ?? {};
  const minReputation = checks.integer('minReputation', input.minReputation ?? c.minReputation, 0, 100) ?? null;
  const maxCostRaw = input.maxCost ?? c.maxCost;
  let maxCost: number | null = null;
  if (maxCostRaw !== undefined && maxCostRaw !== null) {
    if (typeof maxCostRaw !== 'number' || !Number.isFinite(maxCostRaw) || maxCostRaw < 0) checks.fail('maxCost', 'must be a number of cents, 0 or more');
    else maxCost = Math.min(Math.floor(maxCostRaw), MAX_COST_CENTS);
  }
  const languageRaw = input.language ?? c.language;
  const language = languageRaw === undefined || languageRaw === null ? null : (checks.text('language', languageRaw, { max: 35 }) ?? null);
  const limit = checks.integer('limit', input.limit, 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
  checks.done();
  return { capability: capability!, prefer, minReputation, maxCost, language, limit };
}

/** The marketplace as a listed provider of a first-party capability. */
function marketplaceListing(capability: FirstPartyCapability): Listed {
  return {
    serviceId: null,
    serviceKey: MARKETPLACE_PROVIDER.serviceKey,
    name: MARKETPLACE_PROVIDER.name,
    description: capability.summary,
    capabilities: [capability.slug],
    costCents: 0,
    pricingModel: 'free',
    reputation: MARKETPLACE_PROVIDER.reputation,
    successRate: null,
    latencyP50Ms: null,
    providerId: null,
    providerName: MARKETPLACE_PROVIDER.name,
    cooldownUntil: null,
    // The marketplace answers in process: there is nothing to probe, and it is up whenever it answers.
    health: 'healthy',
    lastFailureReason: null,
    quality: null,
    score: null,
    scoreBreakdown: { reputation: 0, cost: 0, reliability: 0, latency: 0, freshness: 0 },
    firstParty: true,
  };
}

/**
 * The ranking with the marketplace where it serves the capability: alone for its own systems' (no
 * registered service serves those), after the registered providers for a generic one it can serve here
 * (within `limit`; `total` counts it either way).
 */
async function listProviders(ctx: Ctx, query: ResolveQuery): Promise<{ matches: Listed[]; total: number; totalIsEstimate: boolean }> {
  const firstParty = FIRST_PARTY.get(query.capability);
  if (firstParty?.kind === 'own') return { matches: [marketplaceListing(firstParty)], total: 1, totalIsEstimate: false };
  const { matches, total, totalIsEstimate } = await rankProviders(ctx, query);
  const listed: Listed[] = matches.map((m) => ({ ...m, firstParty: false }));
  if (!firstParty || !servedHere(firstParty, ctx.services)) return { matches: listed, total, totalIsEstimate };
  if (listed.length < query.limit) listed.push(marketplaceListing(firstParty));
  return { matches: listed, total: total + 1, totalIsEstimate };
}

export async function resolveProviders(ctx: Ctx, input: ResolveInput): Promise<Resolution> {
  await requireAgent(ctx);
  const started = performance.now();
  const query = readResolveQuery(input);
  return { ...(await listProviders(ctx, query)), query, resolutionTimeMs: Math.round((performance.now() - started) * 100) / 100 };
}

/**
 * The same ranking without a caller: who offers a capability, for browsing (the providers and their
 * prices are public in the listing already). Resolve and execute stay for agents.
 */
export async function browseProviders(ctx: Ctx, input: ResolveInput): Promise<Resolution> {
  const started = performance.now();
  const query = readResolveQuery(input);
  return { ...(await listProviders(ctx, query)), query, resolutionTimeMs: Math.round((performance.now() - started) * 100) / 100 };
}

/**
 * The single best provider (the marketplace when it is the only one); 404 when nothing offers the
 * capability, 503 `capability_unavailable` when only the marketplace could and it lacks configuration.
 */
export async function quickResolve(ctx: Ctx, input: { capability?: unknown; prefer?: unknown }): Promise<Listed> {
  await requireAgent(ctx);
  const query = readResolveQuery({ ...input, limit: 1 });
  const { matches } = await listProviders(ctx, query);
  if (!matches.length) {
    const firstParty = FIRST_PARTY.get(query.capability);
    if (firstParty)
      throw new CapabilityUnavailable(
        `No registered provider offers ${query.capability}, and the marketplace cannot serve it on this instance: ${firstParty.unavailableBecause ?? 'it is not configured here'}`,
      );
    throw new NotFound('active provider of capability', query.capability);
  }
  return matches[0];
}
