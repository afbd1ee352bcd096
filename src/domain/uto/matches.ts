// What covers a UTO ticket now: specialists registered for the ticket's domain whose capabilities cover its
// required capabilities, and the best-ranked providers of each required capability (as resolve ranks them).
// The matcher (matcher.ts) and a manual move to `matched` (tickets.ts) both ask it.
import type { UtoTicket } from '../../db/generated/prisma/client';
import type { Services } from '../context';
import { rankProviders } from '../discovery/ranking';

/** Specialists and providers kept on a ticket. */
const SPECIALISTS_KEPT = 10;
const PROVIDERS_PER_CAPABILITY = 3;

export interface SpecialistMatch {
  agent_id: string;
  name: string;
  reputation: number;
  capabilities: string[];
}

export interface ProviderMatch {
  capability: string;
  service_id: string;
  service_key: string;
  name: string;
  provider_agent_id: string;
  cost_per_call: number;
  score: number;
}

export interface Matches {
  specialists: SpecialistMatch[];
  providers: ProviderMatch[];
  matched_at: string;
}

/** What covers a ticket now: specialists (best reputation first) and, per required capability, providers. */
export async function findMatches(
  services: Services,
  ticket: Pick<UtoTicket, 'agentId' | 'domain' | 'requiredCapabilities'>,
): Promise<Omit<Matches, 'matched_at'>> {
  const specialists = await services.db.$queryRaw<SpecialistMatch[]>`
    SELECT s.agent_id::text AS agent_id, a.name, a.reputation, s.capabilities
    FROM uto_specialists s JOIN agents a ON a.id = s.agent_id AND a.status = 'ACTIVE'
    WHERE s.domain = ${ticket.domain} AND s.capabilities @> ${ticket.requiredCapabilities}::text[] AND s.agent_id <> ${ticket.agentId}::uuid
    ORDER BY a.reputation DESC, s.created_at ASC LIMIT ${SPECIALISTS_KEPT}`;
  const providers: ProviderMatch[] = [];
  for (const capability of ticket.requiredCapabilities) {
    const { matches } = await rankProviders(
      { services },
      { capability, prefer: 'balanced', minReputation: null, maxCost: null, language: null, limit: PROVIDERS_PER_CAPABILITY },
    );
    for (const m of matches) {
      providers.push({
        capability,
        service_id: m.serviceId,
        service_key: m.serviceKey,
        name: m.name,
        provider_agent_id: m.providerId,
        cost_per_call: m.costCents,
        score: m.score,
      });
    }
  }
  return { specialists, providers };
}

/** Whether what was found is a match: a specialist, or a provider for every required capability. */
export function covers(ticket: Pick<UtoTicket, 'requiredCapabilities'>, found: Omit<Matches, 'matched_at'>): boolean {
  if (found.specialists.length) return true;
  const offered = new Set(found.providers.map((p) => p.capability));
  return ticket.requiredCapabilities.length > 0 && ticket.requiredCapabilities.every((c) => offered.has(c));
}
