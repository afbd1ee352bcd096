// A caller's routing policy for one call: bounds on what it may cost and how long it may take, who may answer
// and in what order, how to rank, and minimums of measured quality (docs/execution.md, Routing policy). Read
// here; route.ts applies it to who is tried, fallback.ts to the time each attempt gets.
import type { Checks } from '../../platform/validate';

export const ROUTING_SORTS = ['balanced', 'cost', 'latency', 'reputation', 'reliability'] as const;
export type RoutingSort = (typeof ROUTING_SORTS)[number];

/** What a skipped provider was skipped for (ExecutionReceipt.skipped). */
export type SkipReason = 'over_max_cost' | 'below_policy' | 'cooldown' | 'unhealthy' | 'deadline_exceeded';

/** A provider the call passed over, and why (ExecutionReceipt.routing.skipped). */
export interface SkippedProvider {
  serviceId: string | null;
  serviceKey: string;
  reason: SkipReason;
  detail: string;
  priceCents: number;
}

export interface RoutingPolicy {
  /** Never pay more, in cents. */
  maxCostCents: number | null;
  /** One budget for the whole call, fallbacks and waits included, from when the call arrived. */
  deadlineMs: number | null;
  /** Only these providers (service keys, ids, or `marketplace`). */
  only: string[] | null;
  /** Never these. */
  ignore: string[];
  /** These first, in this order; then the ranking's others (when fallbacks are allowed). */
  order: string[];
  /** False: the first provider left is the only one tried. */
  allowFallbacks: boolean;
  /** The ranking for this call (null: the balanced ranking, as without a policy). */
  sort: RoutingSort | null;
  /** The least success rate (as resolve shows it: successes + 1 over calls + 2, so a newcomer's is 0.5). */
  minSuccessRate: number | null;
  /** The most p95 latency measured (a provider without one is skipped). */
  maxLatencyP95Ms: number | null;
}

/** A call with no policy: routed exactly as before policies existed. */
export const NO_POLICY: RoutingPolicy = {
  maxCostCents: null,
  deadlineMs: null,
  only: null,
  ignore: [],
  order: [],
  allowFallbacks: true,
  sort: null,
  minSuccessRate: null,
  maxLatencyP95Ms: null,
};

/** Providers one list of a policy may name. */
export const MAX_NAMED = 20;
/** The longest deadline a call may ask for: three attempts at the longest provider timeout, and a margin. */
export const MAX_DEADLINE_MS = 120_000;
/** The most a policy may bound a price by (a service's price is at most this too). */
const MAX_COST_CENTS = 1_000_000;
/** The fields that choose among ranked providers: meaningless when the call names its provider (mode chosen). */
const AUTO_ONLY = ['only', 'ignore', 'order', 'sort', 'minSuccessRate', 'maxLatencyP95Ms'] as const;

export interface RawPolicy {
  maxCostCents?: unknown;
  deadlineMs?: unknown;
  only?: unknown;
  ignore?: unknown;
  order?: unknown;
  allowFallbacks?: unknown;
  sort?: unknown;
  minSuccessRate?: unknown;
  maxLatencyP95Ms?: unknown;
}

function names(checks: Checks, path: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    checks.fail(path, 'must be a list of service keys (svc_…), service ids or "marketplace"');
    return undefined;
  }
  if (value.length > MAX_NAMED) checks.fail(path, `must name at most ${MAX_NAMED} providers`);
  const out: string[] = [];
  value.forEach((v, i) => {
    if (typeof v !== 'string' || !v.trim() || v.length > 64) checks.fail(`${path}.${i}`, 'must be a service key (svc_…), a service id or "marketplace"');
    else if (!out.includes(v.trim())) out.push(v.trim());
  });
  return out;
}

/** The policy `raw` asks for, its problems added to `checks`; null when there is none (NO_POLICY applies). */
export function readPolicy(checks: Checks, raw: unknown, mode: 'auto' | 'chosen'): RoutingPolicy | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    checks.fail('routing', 'must be an object');
    return null;
  }
  const r = raw as RawPolicy;
  if (mode === 'chosen') {
    for (const field of AUTO_ONLY) {
      if (r[field] !== undefined && r[field] !== null) checks.fail(`routing.${field}`, 'chooses among ranked providers: mode chosen names its provider');
    }
  }
  const minSuccessRate = r.minSuccessRate;
  if (minSuccessRate !== undefined && minSuccessRate !== null && (typeof minSuccessRate !== 'number' || !(minSuccessRate >= 0 && minSuccessRate <= 1))) {
    checks.fail('routing.minSuccessRate', 'must be a number from 0 to 1');
  }
  const sort = r.sort;
  if (sort !== undefined && sort !== null && !ROUTING_SORTS.includes(sort as RoutingSort))
    checks.fail('routing.sort', `must be one of ${ROUTING_SORTS.join(', ')}`);
  if (r.allowFallbacks !== undefined && r.allowFallbacks !== null && typeof r.allowFallbacks !== 'boolean')
    checks.fail('routing.allowFallbacks', 'must be a boolean');
  const policy: RoutingPolicy = {
    maxCostCents: checks.integer('routing.maxCostCents', r.maxCostCents, 0, MAX_COST_CENTS) ?? null,
    deadlineMs: checks.integer('routing.deadlineMs', r.deadlineMs, 1, MAX_DEADLINE_MS) ?? null,
    only: names(checks, 'routing.only', r.only) ?? null,
    ignore: names(checks, 'routing.ignore', r.ignore) ?? [],
    order: names(checks, 'routing.order', r.order) ?? [],
    allowFallbacks: r.allowFallbacks !== false,
    sort: (sort as RoutingSort | null | undefined) ?? null,
    minSuccessRate: typeof minSuccessRate === 'number' ? minSuccessRate : null,
    maxLatencyP95Ms: checks.integer('routing.maxLatencyP95Ms', r.maxLatencyP95Ms, 1, 600_000) ?? null,
  };
  if (policy.only?.length === 0) checks.fail('routing.only', 'must name at least one provider (leave it out for any)');
  return policy;
}

/** A policy as the receipt and the execution's record show it: the fields the caller set. */
export function policyShown(policy: RoutingPolicy): Partial<RoutingPolicy> {
  const shown: Partial<RoutingPolicy> = {};
  for (const [k, v] of Object.entries(policy) as [keyof RoutingPolicy, unknown][]) {
    if (JSON.stringify(v) !== JSON.stringify(NO_POLICY[k])) (shown as Record<string, unknown>)[k] = v;
  }
  return shown;
}

/** Whether one of `refs` (service keys, ids, or `marketplace`) names the provider. */
export const isNamed = (refs: readonly string[], c: { serviceId: string | null; serviceKey: string }) =>
  refs.includes(c.serviceKey) || (c.serviceId !== null && refs.includes(c.serviceId));
