// Prices per capability (spec §4.2): a provider sets what one capability costs on its services, in cents
// or in the asset's base units (one is the other: a cent is 10^(decimals-2) units), and anyone lists the
// paid capabilities with their price ranges. A capability without a price of its own costs its service's
// costPerCall; the ranking, execute and the ACP offerings all read the offer's price.
import { NotFound } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import type { Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import { recordAudit } from '../audit/audit';
import { CAPABILITY_SLUG } from '../capabilities/catalog';
import type { Ctx } from '../context';
import { MAX_COST_CENTS, PRICING_MODELS } from '../services/services';
import { centsToUnits, unitsToCents } from './setup';

export interface PricingInput {
  /** Integer cents per call. */
  costPerCall?: unknown;
  /** The same price in the asset's base units (an integer string). */
  costPerCallBaseUnits?: unknown;
  /** The services' pricing model; unset, a free service that now charges becomes `per_call`. */
  pricingModel?: unknown;
  /** One of the caller's services (its key or id); unset: every service of the caller offering the capability. */
  service?: unknown;
}

export interface PricingSet {
  pricingSet: true;
  capability: string;
  costPerCall: number;
  /** The same price in the asset's base units. */
  priceUnits: bigint;
  /** The services' pricing model, when they share one. */
  pricingModel: string | null;
  services: { serviceId: string; serviceKey: string; name: string }[];
}

/**
 * Sets the caller's price for one capability on its services that offer it (any status but removed; 404
 * when none does). The services' other capabilities keep their costPerCall.
 */
export async function setCapabilityPricing(ctx: Ctx, capabilityId: string, input: PricingInput): Promise<PricingSet> {
  const me = await requireAgent(ctx);
  const { setup } = ctx.services.payments;
  const checks = new Checks();
  if (!CAPABILITY_SLUG.test(capabilityId) || capabilityId.length > 64) checks.fail('capabilityId', 'must be a capability identifier such as "summarize"');
  const cents = checks.integer('costPerCall', input.costPerCall, 0, MAX_COST_CENTS);
  let fromUnits: number | undefined;
  if (input.costPerCallBaseUnits !== undefined && input.costPerCallBaseUnits !== null) {
    const raw = input.costPerCallBaseUnits;
    const cent = centsToUnits(setup, 1).toString();
    if (typeof raw !== 'string' || !/^\d{1,20}$/.test(raw)) checks.fail('costPerCallBaseUnits', 'must be an integer string of base units');
    else if ((fromUnits = unitsToCents(setup, BigInt(raw))) === undefined)
      checks.fail('costPerCallBaseUnits', `must be a whole number of cents: a multiple of ${cent} base units`);
    else if (fromUnits > MAX_COST_CENTS)
      checks.fail('costPerCallBaseUnits', `must be at most ${centsToUnits(setup, MAX_COST_CENTS)} (${MAX_COST_CENTS} cents)`);
  }
  const given = (input.costPerCall ?? null) !== null || (input.costPerCallBaseUnits ?? null) !== null;
  if (!given) checks.fail('costPerCall', 'is required (integer cents; or cost_per_call_base_units)');
  if (cents !== undefined && fromUnits !== undefined && cents !== fromUnits) {
    checks.fail('costPerCallBaseUnits', `says ${fromUnits} cents while cost_per_call says ${cents}: give one, or both alike`);
  }
  const pricingModel = input.pricingModel === undefined || input.pricingModel === null ? null : String(input.pricingModel);
  if (pricingModel !== null && !PRICING_MODELS.includes(pricingModel as never)) checks.fail('pricingModel', `must be one of ${PRICING_MODELS.join(', ')}`);
  const service = input.service === undefined || input.service === null ? undefined : checks.text('service', input.service, { max: 64 });
  checks.done();
  const price = (cents ?? fromUnits)!;
  if (pricingModel === 'free' && price > 0) checks.fail('costPerCall', 'must be 0 with pricing_model free');
  checks.done();
  const services = await ctx.db.service.findMany({
    where: {
      agentId: me.id,
      status: { not: 'removed' },
      capabilities: { has: capabilityId },
      ...(service ? (isUuid(service) ? { id: service } : { serviceKey: service }) : {}),
    },
    select: { id: true, serviceKey: true, name: true },
    orderBy: { createdAt: 'asc' },
  });
  if (!services.length) throw new NotFound(service ? `service offering ${capabilityId}` : `service of yours offering ${capabilityId}`, service);
  const models = await ctx.db.$transaction(async (tx) => {
    // The offers of these services are re-priced by the services' trigger (and execute's cache emptied).
    const rows = await tx.$queryRaw<{ pricing_model: string }[]>`
      UPDATE services SET capability_prices = capability_prices || jsonb_build_object(${capabilityId}::text, ${price}::int),
        pricing_model = COALESCE(${pricingModel}::"PricingModel", CASE WHEN pricing_model = 'free' AND ${price}::int > 0 THEN 'per_call'::"PricingModel" ELSE pricing_model END),
        updated_at = now()
      WHERE id = ANY(${services.map((s) => s.id)}::uuid[])
      RETURNING pricing_model::text AS pricing_model`;
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'pricing.set',
      targetType: 'capability',
      targetId: capabilityId,
      details: { cost_per_call: price, services: services.map((s) => s.serviceKey) },
    });
    return [...new Set(rows.map((r) => r.pricing_model))];
  });
  return {
    pricingSet: true,
    capability: capabilityId,
    costPerCall: price,
    priceUnits: centsToUnits(setup, price),
    pricingModel: models.length === 1 ? models[0] : null,
    services: services.map((s) => ({ serviceId: s.id, serviceKey: s.serviceKey, name: s.name })),
  };
}

export interface CapabilityPriceRange {
  capability: string;
  name: string;
  /** Active offers with a price. */
  paidProviders: number;
  minCents: number;
  maxCents: number;
  /** The mean price, rounded to a cent. */
  avgCents: number;
  minUnits: bigint;
  maxUnits: bigint;
}

/**
 * The capabilities that cost something, by identifier, with their price ranges over active offers: each
 * end of a range is the first entry of the paid offers' index, read from either side, and the mean comes
 * from the counts the offers' trigger keeps, so a page costs the same however many offers there are.
 */
export async function listCapabilityPricing(ctx: Ctx, page: Page): Promise<{ items: CapabilityPriceRange[]; total: number }> {
  const [{ total }] = await ctx.services.sql.query<{ total: number }>(`SELECT count(*)::int AS total FROM capability_offer_counts WHERE paid_offers > 0`, []);
  const rows = await ctx.services.sql.query<{ capability: string; name: string | null; paid: number; min: number; max: number; sum: string }>(
    `SELECT c.capability, cat.name, c.paid_offers AS paid, c.paid_cost_sum::text AS sum,
       (SELECT o.cost_per_call FROM service_offers o WHERE o.capability = c.capability AND o.active AND o.cost_per_call > 0 ORDER BY o.cost_per_call ASC LIMIT 1) AS min,
       (SELECT o.cost_per_call FROM service_offers o WHERE o.capability = c.capability AND o.active AND o.cost_per_call > 0 ORDER BY o.cost_per_call DESC LIMIT 1) AS max
     FROM capability_offer_counts c LEFT JOIN capabilities cat ON cat.slug = c.capability
     WHERE c.paid_offers > 0 ORDER BY c.capability LIMIT $1 OFFSET $2`,
    [page.limit, page.offset],
  );
  return {
    items: rows.map((r) => {
      const min = r.min ?? 0;
      const max = r.max ?? 0;
      const { setup } = ctx.services.payments;
      const avgCents = r.paid ? Math.round(Number(r.sum) / r.paid) : 0;
      return {
        capability: r.capability,
        name: r.name ?? r.capability,
        paidProviders: r.paid,
        minCents: min,
        maxCents: max,
        avgCents,
        minUnits: centsToUnits(setup, min),
        maxUnits: centsToUnits(setup, max),
      };
    }),
    total,
  };
}
