// The privileges of the reputation tiers (spec §2) as rules the marketplace enforces, not only describes:
// priority resolution from Contributor, beta features from Trusted, the showcase listing for Star.
// What each means in this system: docs/identity.md, "Tier privileges".
import type { Agent } from '../../db/generated/prisma/client';
import { Forbidden } from '../../platform/errors';
import type { Checks } from '../../platform/validate';
import { TIERS, tierDefinition, type Tier } from './reputation';

const lowestScoreOf = (tier: Tier) => TIERS.find((t) => t.tier === tier)!.min;

/** Contributor and above: their tickets and disputes are handled first. */
export const PRIORITY_RESOLUTION_MIN = lowestScoreOf('contributor');
/** Trusted and above: the beta features. */
export const BETA_MIN = lowestScoreOf('trusted');
/** Star: their services are listed in the showcase. */
export const SHOWCASE_MIN = lowestScoreOf('star');

/**
 * Whether what an agent with this reputation files now (a ticket, a dispute) is handled first. Decided when
 * it is filed and kept with it: a later rise or fall of the filer's reputation reorders no queue.
 */
export function hasPriorityResolution(reputation: number): boolean {
  return reputation >= PRIORITY_RESOLUTION_MIN;
}

/** The features marked beta, each where it can be reached. docs/identity.md lists the same. */
export const BETA_FEATURES = {
  service_analytics: {
    name: 'Service analytics',
    where: 'GET /services/:serviceKey/analytics, Query.serviceAnalytics, the MCP tool serviceAnalytics',
  },
  scheduled_resume: {
    name: 'Scheduled resume',
    where: '`resume_at` of POST /services/:serviceKey/pause (PauseServiceInput.resumeAt, the MCP tool pauseService)',
  },
} as const;

export type BetaFeature = keyof typeof BETA_FEATURES;

function refusalOf(agent: Pick<Agent, 'reputation'>, feature: BetaFeature): string {
  const have = tierDefinition(agent.reputation);
  return `${BETA_FEATURES[feature].name} is a beta feature, for Trusted agents and above (reputation ${BETA_MIN} or more); this agent is ${have.name} (reputation ${agent.reputation})`;
}

export function hasBeta(agent: Pick<Agent, 'reputation'>): boolean {
  return agent.reputation >= BETA_MIN;
}

/** 403 naming the tier needed, for an agent below Trusted. */
export function requireBeta(agent: Pick<Agent, 'reputation'>, feature: BetaFeature): void {
  if (!hasBeta(agent)) throw new Forbidden(refusalOf(agent, feature));
}

/** A field only Trusted agents may give: refused (403 naming the field and the tier) for the others. */
export function refuseBetaField(checks: Checks, path: string, agent: Pick<Agent, 'reputation'>, feature: BetaFeature): boolean {
  if (hasBeta(agent)) return true;
  checks.refuse(path, refusalOf(agent, feature));
  return false;
}
