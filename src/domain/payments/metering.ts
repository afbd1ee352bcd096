// Metered calls (docs/payments.md, Metered calls): a service priced per unit of what a call uses (tokens, pages,
// seconds) says so in `pricing_details.metered`: the unit, its price in cents, and the most units one call may use.
// Its price per call is then the most a call can cost: that is what routing compares and what the call holds. The
// provider is told the call's budget in units, answers what it used in the `X-Usage-Units` header, and the call is
// charged that at the unit price (rounded up to a whole cent, never more than it held); the rest of the hold goes
// back. A metered answer that does not say what it used is not paid: it fails as `invalid_usage`.
import type { Checks } from '../../platform/validate';

export interface Metered {
  unit: string;
  /** Cents per unit: a fraction of a cent is allowed (to 1/10,000). */
  centsPerUnit: number;
  /** The most units one call may use. */
  maxUnits: number;
}

/** What a metered attempt used and was charged (execution_attempts.metered), as the answers show it. */
export interface MeteredUsage {
  unit: string;
  /** The units the provider said it used. */
  units: number;
  cents_per_unit: number;
  /** The units charged: those used, up to the call's budget. */
  charged_units: number;
  charged_cents: number;
}

/** The response header a metered provider states what a call used in. */
export const USAGE_HEADER = 'x-usage-units';
const UNIT = /^[a-z][a-z0-9_-]{0,31}$/;
const MAX_UNITS = 1_000_000_000;
/** A unit price is kept to four decimals of a cent. */
const PRICE_SCALE = 10_000;

/** Whole cents for `units` at `centsPerUnit`, rounded up (the price is kept to four decimals, so exactly). */
export function centsFor(units: number, centsPerUnit: number): number {
  return Math.ceil((units * Math.round(centsPerUnit * PRICE_SCALE)) / PRICE_SCALE);
}

/**
 * Reads `pricing_details.metered` (either spelling of each field), naming a bad field as the client spelled it
 * under `path`. Returns the stored form (snake_case), null when the details have none, or undefined when refused.
 */
export function readMetered(checks: Checks, path: string, details: Record<string, unknown>, maxCents: number): Record<string, unknown> | null | undefined {
  const raw = details.metered;
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    checks.fail(`${path}.metered`, 'must be an object: { unit, cents_per_unit, max_units }');
    return undefined;
  }
  const given = raw as Record<string, unknown>;
  const before = checks.errors.length;
  const unit = checks.text(`${path}.metered.unit`, given.unit, { max: 32, required: true });
  if (unit && !UNIT.test(unit)) checks.fail(`${path}.metered.unit`, 'must be a unit name such as "token" (lower-case letters, digits, _ and -)');
  const price = checks.synonym({ [`${path}.metered.cents_per_unit`]: given.cents_per_unit, [`${path}.metered.centsPerUnit`]: given.centsPerUnit });
  const priceName = price.path;
  const centsPerUnit = price.value;
  if (centsPerUnit === undefined || centsPerUnit === null) checks.fail(priceName, 'is required');
  else if (
    typeof centsPerUnit !== 'number' ||
    !Number.isFinite(centsPerUnit) ||
    centsPerUnit <= 0 ||
    centsPerUnit > maxCents ||
    Math.abs(Math.round(centsPerUnit * PRICE_SCALE) - centsPerUnit * PRICE_SCALE) > 1e-6
  )
    checks.fail(priceName, `must be a number of cents above 0 and at most ${maxCents}, with at most four decimals`);
  const most = checks.synonym({ [`${path}.metered.max_units`]: given.max_units, [`${path}.metered.maxUnits`]: given.maxUnits });
  const mostName = most.path;
  if (most.value === undefined || most.value === null) checks.fail(mostName, 'is required');
  const maxUnits = checks.integer(mostName, most.value, 1, MAX_UNITS);
  if (checks.errors.length > before || unit === undefined || maxUnits === undefined) return undefined;
  const metered = { unit, cents_per_unit: centsPerUnit as number, max_units: maxUnits };
  if (centsFor(maxUnits, metered.cents_per_unit) > maxCents) {
    checks.fail(mostName, `makes a call cost up to ${centsFor(maxUnits, metered.cents_per_unit)} cents: at most ${maxCents}`);
    return undefined;
  }
  return metered;
}

/** The metering of a service, from its stored pricing details (null: priced per call). */
export function meteredOf(pricingDetails: unknown): Metered | null {
  const m = (pricingDetails as { metered?: { unit?: unknown; cents_per_unit?: unknown; max_units?: unknown } } | null)?.metered;
  if (!m || typeof m.unit !== 'string' || typeof m.cents_per_unit !== 'number' || typeof m.max_units !== 'number') return null;
  return { unit: m.unit, centsPerUnit: m.cents_per_unit, maxUnits: m.max_units };
}

/** The most a metered call costs: every unit it may use. */
export const meteredMaxCents = (m: Metered) => centsFor(m.maxUnits, m.centsPerUnit);

/** The units a call priced at most `priceCents` may use: the service's most, and no more than that price pays for. */
export function unitBudget(m: Metered, priceCents: number): number {
  const scaled = Math.round(m.centsPerUnit * PRICE_SCALE);
  return Math.min(m.maxUnits, Math.floor((priceCents * PRICE_SCALE) / scaled));
}

/** What the provider said it used (a whole number of units), or null when it said nothing it could be charged by. */
export function usageOf(headers: Record<string, string | string[] | undefined>): number | null {
  const raw = headers[USAGE_HEADER];
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (text === undefined || !/^\s*\d{1,10}\s*$/.test(text)) return null;
  const units = Number(text);
  return units <= MAX_UNITS ? units : null;
}

/** A metered attempt's charge: the units used up to the budget, at the unit price, never above the price held. */
export function meteredCharge(m: Metered, units: number, priceCents: number): MeteredUsage {
  const charged = Math.min(units, unitBudget(m, priceCents));
  return {
    unit: m.unit,
    units,
    cents_per_unit: m.centsPerUnit,
    charged_units: charged,
    charged_cents: Math.min(priceCents, centsFor(charged, m.centsPerUnit)),
  };
}
