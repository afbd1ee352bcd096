// Discovery: rank the active services offering a capability by reputation, cost, reliability, latency
// and freshness, weighted by `prefer`. The ranking runs in the database on `service_offers` (an index per
// preference in ranking order), never by loading every service into memory; each match explains its score.
import { NotFound } from '../../platform/errors';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { CAPABILITY_SLUG } from '../capabilities/catalog';
import type { Ctx, Services } from '../context';
import { MAX_COST_CENTS } from '../services/services';

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

export interface ResolveQuery {
  capability: string;
  prefer: Prefer;
  minReputation: number | null;
  maxCost: number | null;
  language: string | null;
  limit: number;
}

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
  score: number;
  breakdown: Record<Factor, number>;
}

export interface Resolution {
  matches: Match[];
  total: number;
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
  const language = languageRaw === undefined || languageRaw === null ? null : checks.text('language', languageRaw, { max: 35 }) ?? null;
  const limit = checks.integer('limit', input.limit, 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
  checks.done();
  return { capability: capability!, prefer, minReputation, maxCost, language, limit };
}

/** The stored score column that orders candidates for each preference (see ServiceOffer). */
const SCORE_COLUMN: Record<Prefer, string> = {
  balanced: 'score_balanced',
  reputation: 'score_reputation',
  cost: 'score_cost',
  latency: 'score_latency',
};

/** The offers that qualify; the language test is left out of the statement when no language is asked for. */
function offerFilter(withLanguage: boolean): string {
  const base = 'o.capability = $1 AND o.active AND o.reputation >= $2 AND o.cost_per_call <= $3';
  return withLanguage ? `${base} AND (cardinality(o.languages) = 0 OR o.languages @> ARRAY[$4::text])` : base;
}

/**
 * The best `limit` offers in index order of the stored score, with what the exact score needs. The
 * factors are computed here, not in SQL. The statement is prepared and planned once, generically, per
 * connection (see SqlRunner): its indexes hold the ranking's whole order, so the generic plan reads the
 * first `limit` entries of one index and the count reads one index alone, whatever the parameters.
 * Stored scores lag only in freshness (refreshed every minute; its half-life is a week).
 */
function rankSql(prefer: Prefer, withLanguage: boolean): string {
  const filter = offerFilter(withLanguage);
  const limit = withLanguage ? '$5' : '$4';
  return `
  SELECT s.id, s.service_key, s.name, s.description, s.capabilities, s.cost_per_call, s.pricing_model::text AS pricing_model,
    s.latency_p50_ms, s.success_count, s.failure_count, COALESCE(s.last_success_at, s.created_at) AS fresh_at,
    a.reputation, a.id AS agent_id, a.name AS agent_name, NULL::bigint AS total
  FROM (SELECT o.service_id FROM service_offers o WHERE ${filter}
        ORDER BY o.${SCORE_COLUMN[prefer]} DESC, o.cost_per_call ASC, o.service_id ASC LIMIT ${limit}) AS top
  JOIN services s ON s.id = top.service_id JOIN agents a ON a.id = s.agent_id
  UNION ALL
  -- The number of qualifying offers rides along as one more row: one round trip instead of two.
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, count(*)
  FROM service_offers o WHERE ${filter}`;
}

/** The eight ranking statements (four preferences, with and without a language), built once. */
export const RANK_STATEMENTS = Object.fromEntries(
  PREFERENCES.flatMap((prefer) => [false, true].map((lang) => [`${prefer}:${lang}`, { name: `rank_${prefer}${lang ? '_language' : ''}`, text: rankSql(prefer, lang) }])),
) as Record<string, { name: string; text: string }>;

interface RankRow {
  id: string;
  service_key: string;
  name: string;
  description: string;
  capabilities: string[];
  cost_per_call: number;
  pricing_model: string;
  latency_p50_ms: number | null;
  success_count: number;
  failure_count: number;
  fresh_at: Date;
  reputation: number;
  agent_id: string;
  agent_name: string;
  total: string | number | null;
}

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

export async function rankProviders(ctx: Ctx, query: ResolveQuery): Promise<{ matches: Match[]; total: number }> {
  const w = WEIGHTS[query.prefer];
  const now = ctx.services.clock.now();
  const statement = RANK_STATEMENTS[`${query.prefer}:${query.language !== null}`];
  const params: unknown[] = [query.capability, query.minReputation ?? 0, query.maxCost ?? MAX_COST_CENTS];
  if (query.language !== null) params.push(query.language);
  params.push(query.limit);
  const all = await ctx.services.sql.query<RankRow>(statement.text, params, statement.name);
  const total = Number(all.find((r) => r.total !== null)?.total ?? 0);
  const rows = all.filter((r) => r.total === null);
  const matches = rows
    .map((r) => {
      const f = factorsOf(
        { reputation: r.reputation, costCents: r.cost_per_call, successes: r.success_count, failures: r.failure_count, latencyP50Ms: r.latency_p50_ms, freshAt: r.fresh_at },
        now,
      );
      const contribution = (k: Factor) => w[k] * f[k] * 100;
      const exact = FACTORS.reduce((sum, k) => sum + contribution(k), 0);
      return {
        exact,
        match: {
          serviceId: r.id,
          serviceKey: r.service_key,
          name: r.name,
          description: r.description,
          capabilities: r.capabilities,
          costCents: r.cost_per_call,
          pricingModel: r.pricing_model,
          reputation: r.reputation,
          successRate: round2(f.reliability),
          latencyP50Ms: r.latency_p50_ms,
          providerId: r.agent_id,
          providerName: r.agent_name,
          score: round2(exact),
          breakdown: Object.fromEntries(FACTORS.map((k) => [k, round2(contribution(k))])) as Record<Factor, number>,
        },
      };
    })
    .sort((a, b) => b.exact - a.exact || a.match.costCents - b.match.costCents || a.match.serviceId.localeCompare(b.match.serviceId))
    .map((m) => m.match);
  return { matches, total };
}

/**
 * Re-scores, as of the application's clock, offers scored more than `maxAgeMinutes` before it (the
 * freshness part of a stored score drifts with time); returns how many services were re-scored.
 */
export async function refreshOfferScores(services: Pick<Services, 'sql' | 'clock'>, maxAgeMinutes = 10, batch = 5000): Promise<number> {
  const now = services.clock.now();
  const stale = await services.sql.query<{ service_id: string }>(
    `SELECT DISTINCT service_id FROM service_offers WHERE scored_at < $1::timestamptz - make_interval(mins => $2) LIMIT $3`,
    [now, maxAgeMinutes, batch],
  );
  if (stale.length) await services.sql.query('SELECT marketplace_sync_offers($1::uuid[], $2::timestamptz)', [stale.map((r) => r.service_id), now]);
  return stale.length;
}

export async function resolveProviders(ctx: Ctx, input: ResolveInput): Promise<Resolution> {
  await requireAgent(ctx);
  const started = performance.now();
  const query = readResolveQuery(input);
  const { matches, total } = await rankProviders(ctx, query);
  return { matches, total, query, resolutionTimeMs: Math.round((performance.now() - started) * 100) / 100 };
}

/** The single best provider; 404 when nothing offers the capability. */
export async function quickResolve(ctx: Ctx, input: { capability?: unknown; prefer?: unknown }): Promise<Match> {
  await requireAgent(ctx);
  const query = readResolveQuery({ ...input, limit: 1 });
  const { matches } = await rankProviders(ctx, query);
  if (!matches.length) throw new NotFound('active provider of capability', query.capability);
  return matches[0];
}
