// Discovery: rank the active services offering a capability by reputation, cost, reliability, latency
// and freshness, weighted by `prefer`. The ranking runs in the database (GIN index on capabilities),
// never by loading every service into memory; each match explains its score.
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

const OFFER_FILTER = `o.capability = $1 AND o.active AND o.reputation >= $2 AND o.cost_per_call <= $3
  AND ($4::text IS NULL OR cardinality(o.languages) = 0 OR o.languages @> ARRAY[$4::text])`;

/**
 * The best `limit` offers in index order of the stored score, then their exact factors at `now` for the
 * answer. Stored scores lag only in freshness (refreshed every few minutes; its half-life is a week).
 */
function rankSql(prefer: Prefer): string {
  return `
  WITH top AS (
    SELECT o.service_id FROM service_offers o WHERE ${OFFER_FILTER}
    ORDER BY o.${SCORE_COLUMN[prefer]} DESC, o.cost_per_call ASC, o.service_id ASC LIMIT $5
  ), factors AS (
    SELECT s.id, s.service_key, s.name, s.description, s.capabilities, s.cost_per_call, s.pricing_model::text AS pricing_model,
      s.latency_p50_ms, s.success_count, s.failure_count, a.reputation, a.id AS agent_id, a.name AS agent_name,
      $6::float8 * a.reputation / 100 AS c_reputation,
      $7::float8 / (1 + s.cost_per_call::float8 / ${COST_HALF_CENTS}) AS c_cost,
      $8::float8 * (s.success_count + 1) / (s.success_count + s.failure_count + 2) AS c_reliability,
      $9::float8 * CASE WHEN s.latency_p50_ms IS NULL THEN 0.5 ELSE 1 / (1 + s.latency_p50_ms::float8 / ${LATENCY_HALF_MS}) END AS c_latency,
      $10::float8 / (1 + GREATEST(0, EXTRACT(EPOCH FROM ($11::timestamptz - COALESCE(s.last_success_at, s.created_at)))::float8) / ${FRESHNESS_HALF_SECONDS}) AS c_freshness
    FROM top JOIN services s ON s.id = top.service_id JOIN agents a ON a.id = s.agent_id
  )
  SELECT *, (c_reputation + c_cost + c_reliability + c_latency + c_freshness) * 100 AS score
  FROM factors ORDER BY score DESC, cost_per_call ASC, id ASC`;
}

const COUNT_SQL = `SELECT count(*) AS total FROM service_offers o WHERE ${OFFER_FILTER}`;

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
  reputation: number;
  agent_id: string;
  agent_name: string;
  c_reputation: number;
  c_cost: number;
  c_reliability: number;
  c_latency: number;
  c_freshness: number;
  score: number;
}

const round2 = (v: string | number) => Math.round(Number(v) * 100) / 100;

export async function rankProviders(ctx: Ctx, query: ResolveQuery): Promise<{ matches: Match[]; total: number }> {
  const w = WEIGHTS[query.prefer];
  const filter = [query.capability, query.minReputation ?? 0, query.maxCost ?? MAX_COST_CENTS, query.language];
  const [rows, [count]] = await Promise.all([
    ctx.services.sql.query<RankRow>(rankSql(query.prefer), [
      ...filter,
      query.limit,
      w.reputation,
      w.cost,
      w.reliability,
      w.latency,
      w.freshness,
      ctx.services.clock.now(),
    ]),
    ctx.services.sql.query<{ total: string | number }>(COUNT_SQL, filter),
  ]);
  const matches = rows.map((r) => ({
    serviceId: r.id,
    serviceKey: r.service_key,
    name: r.name,
    description: r.description,
    capabilities: r.capabilities,
    costCents: r.cost_per_call,
    pricingModel: r.pricing_model,
    reputation: r.reputation,
    successRate: round2((r.success_count + 1) / (r.success_count + r.failure_count + 2)),
    latencyP50Ms: r.latency_p50_ms,
    providerId: r.agent_id,
    providerName: r.agent_name,
    score: round2(r.score),
    breakdown: {
      reputation: round2(Number(r.c_reputation) * 100),
      cost: round2(Number(r.c_cost) * 100),
      reliability: round2(Number(r.c_reliability) * 100),
      latency: round2(Number(r.c_latency) * 100),
      freshness: round2(Number(r.c_freshness) * 100),
    },
  }));
  return { matches, total: Number(count.total) };
}

/** Re-scores offers whose stored score is older than `maxAgeMinutes` (the freshness part drifts with time). */
export async function refreshOfferScores(services: Pick<Services, 'sql'>, maxAgeMinutes = 10, batch = 5000): Promise<number> {
  const stale = await services.sql.query<{ service_id: string }>(
    `SELECT DISTINCT service_id FROM service_offers WHERE scored_at < now() - make_interval(mins => $1) LIMIT $2`,
    [maxAgeMinutes, batch],
  );
  if (stale.length) await services.sql.query('SELECT marketplace_sync_offers($1::uuid[])', [stale.map((r) => r.service_id)]);
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
