import type { Health, Quality } from '../services/quality';

// How an offer is scored: the factors, their scales and each preference's weights (the service_offers migration's
// marketplace_offer_score mirrors them), and the scores of ranked offers as of now.

export const PREFERENCES = ['reputation', 'cost', 'latency', 'balanced'] as const;
export type Prefer = (typeof PREFERENCES)[number];
export const FACTORS = ['reputation', 'cost', 'reliability', 'latency', 'freshness'] as const;
export type Factor = (typeof FACTORS)[number];

/** Weights per preference; each row sums to 1, so a score is 0-100. */
export const WEIGHTS: Record<Prefer, Record<Factor, number>> = {
  balanced: { reputation: 0.3, cost: 0.2, reliability: 0.25, latency: 0.15, freshness: 0.1 },
  reputation: { reputation: 0.6, cost: 0.1, reliability: 0.15, latency: 0.05, freshness: 0.1 },
  cost: { reputation: 0.1, cost: 0.6, reliability: 0.15, latency: 0.05, freshness: 0.1 },
  latency: { reputation: 0.1, cost: 0.1, reliability: 0.15, latency: 0.55, freshness: 0.1 },
};

/** The factor scales: a service costing COST_HALF cents scores 0.5 on cost, and so on. */
export const COST_HALF_CENTS = 50;
export const LATENCY_HALF_MS = 500;
export const FRESHNESS_HALF_SECONDS = 7 * 86_400;

export interface Match {
  serviceId: string;
  serviceKey: string;
  name: string;
  description: string;
  capabilities: string[];
  costCents: number;
  pricingModel: string;
  reputation: number;
  successRate: number;
  latencyP50Ms: number | null;
  providerId: string;
  providerName: string;
  /** Until when `execute` skips the provider after repeated failures (null: it does not). */
  cooldownUntil: Date | null;
  /** What the marketplace's probes and calls found: `unhealthy` providers are out of auto routing. */
  health: Health;
  /** The failure category of its last failed call or probe. */
  lastFailureReason: string | null;
  /** The quality the marketplace measured over its window (null until computed). */
  quality: Quality | null;
  score: number;
  scoreBreakdown: Record<Factor, number>;
}

/** The stored score column that orders candidates for each preference (see ServiceOffer). */
export const SCORE_COLUMN: Record<Prefer, string> = {
  balanced: 'score_balanced',
  reputation: 'score_reputation',
  cost: 'score_cost',
  latency: 'score_latency',
};

/** One ranked offer as service_offers.listing holds it, in this order (see marketplace_write_offers). */
export type RankedOffer = [
  serviceId: string,
  serviceKey: string,
  name: string,
  description: string,
  capabilities: string[],
  costCents: number,
  pricingModel: string,
  latencyP50Ms: number | null,
  successes: number,
  failures: number,
  freshAtMs: number,
  reputation: number,
  providerId: string,
  providerName: string,
  /** When the provider's cooldown after failures ends, epoch milliseconds (null: none). */
  cooldownUntilMs: number | null,
  /** Absent from offers written before health was kept (read as unknown). */
  health?: Health,
  lastFailureReason?: string | null,
  quality?: Quality | null,
];

/** Each factor in 0..1; the same formulas as marketplace_offer_score in the service_offers migration. */
export function factorsOf(
  s: { reputation: number; costCents: number; successes: number; failures: number; latencyP50Ms: number | null; freshAt: Date },
  now: Date,
): Record<Factor, number> {
  return {
    reputation: s.reputation / 100,
    cost: 1 / (1 + s.costCents / COST_HALF_CENTS),
    reliability: (s.successes + 1) / (s.successes + s.failures + 2),
    latency: s.latencyP50Ms === null ? 0.5 : 1 / (1 + s.latencyP50Ms / LATENCY_HALF_MS),
    freshness: 1 / (1 + Math.max(0, (now.getTime() - s.freshAt.getTime()) / 1000) / FRESHNESS_HALF_SECONDS),
  };
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/** Offers as listed, scored exactly as of `now` for `prefer`, best first (then cheaper, then by id). */
export function scoreOffers(offers: RankedOffer[], prefer: Prefer, now: Date): Match[] {
  const w = WEIGHTS[prefer];
  const scored = offers.map(
    ([
      serviceId,
      serviceKey,
      name,
      description,
      capabilities,
      costCents,
      pricingModel,
      latencyP50Ms,
      successes,
      failures,
      freshAtMs,
      reputation,
      providerId,
      providerName,
      cooldownUntilMs,
      health,
      lastFailureReason,
      quality,
    ]) => {
      const f = factorsOf({ reputation, costCents, successes, failures, latencyP50Ms, freshAt: new Date(freshAtMs) }, now);
      const breakdown = {
        reputation: 100 * w.reputation * f.reputation,
        cost: 100 * w.cost * f.cost,
        reliability: 100 * w.reliability * f.reliability,
        latency: 100 * w.latency * f.latency,
        freshness: 100 * w.freshness * f.freshness,
      };
      const exact = breakdown.reputation + breakdown.cost + breakdown.reliability + breakdown.latency + breakdown.freshness;
      for (const k of FACTORS) breakdown[k] = round2(breakdown[k]);
      const match: Match = {
        serviceId,
        serviceKey,
        name,
        description,
        capabilities,
        costCents,
        pricingModel,
        reputation,
        successRate: round2(f.reliability),
        latencyP50Ms,
        providerId,
        providerName,
        cooldownUntil: cooldownUntilMs === null || cooldownUntilMs === undefined ? null : new Date(cooldownUntilMs),
        health: health ?? 'unknown',
        lastFailureReason: lastFailureReason ?? null,
        quality: quality ?? null,
        score: round2(exact),
        scoreBreakdown: breakdown,
      };
      return { exact, match };
    },
  );
  scored.sort((a, b) => b.exact - a.exact || a.match.costCents - b.match.costCents || (a.match.serviceId < b.match.serviceId ? -1 : 1));
  return scored.map((m) => m.match);
}
