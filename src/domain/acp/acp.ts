// ACP views (spec §4.12): the marketplace's priced capability offers as Agent Commerce Protocol offerings,
// priced in the network's token at a configured rate or in USDC, and the payment terms of one offering:
// its price, the token, the escrow and evaluation phases, the refund policy and the deadline. An offering
// is one paid, active offer (a service and one of its capabilities); it is bought by executing the
// capability with that service chosen, paid as any paid call is (payments/payments.ts).
import { NotFound } from '../../platform/errors';
import type { Page } from '../../platform/page';
import type { Ctx } from '../context';
import { centsToUnits, formatUnits } from '../payments/setup';
import { requirementsFor } from '../payments/x402';

export type AcpCurrency = 'token' | 'usdc';

export interface AcpPrice {
  /** Decimal string in the currency. */
  amount: string;
  baseUnits: string;
  currency: string;
  decimals: number;
}

export interface AcpOffering {
  offeringId: string;
  capability: string;
  serviceId: string;
  serviceKey: string;
  name: string;
  description: string;
  provider: { agentId: string; name: string; reputation: number };
  priceCents: number;
  price: AcpPrice;
}

export interface AcpStatus {
  enabled: boolean;
  network: string;
  chainId: number;
  token: { symbol: string; decimals: number; usdRate: string };
  settlement: 'sandbox' | 'x402';
  offerings: number;
}

/** `svc_…:summarize`: the service's key and the capability. */
const OFFERING_ID = /^(svc_[0-9A-Za-z]{24}):([a-z0-9][a-z0-9.-]{0,63})$/;

/** One offer as service_offers.listing holds it (see marketplace_write_offers). */
type Listing = [string, string, string, string, string[], number, string, number | null, number, number, number, number, string, string, number | null];

/** A decimal string as a fraction: "1.25" → 125/100. */
function fraction(value: string): { num: bigint; den: bigint } {
  const [whole, part = ''] = value.split('.');
  return { num: BigInt(whole + part), den: 10n ** BigInt(part.length) };
}

/** Cents in the network token's base units at the configured US dollar rate, rounded up (the provider is never paid less). */
export function centsInToken(ctx: Pick<Ctx, 'services'>, cents: number): bigint {
  const { tokenDecimals, tokenUsdRate } = ctx.services.config.acp;
  const rate = fraction(tokenUsdRate);
  const numerator = BigInt(cents) * 10n ** BigInt(tokenDecimals) * rate.den;
  const denominator = 100n * rate.num;
  return (numerator + denominator - 1n) / denominator;
}

function priceIn(ctx: Pick<Ctx, 'services'>, cents: number, currency: AcpCurrency): AcpPrice {
  if (currency === 'usdc') {
    const { asset } = ctx.services.payments.setup;
    const units = centsToUnits(ctx.services.payments.setup, cents);
    return { amount: formatUnits(units, asset.decimals), baseUnits: units.toString(), currency: asset.symbol, decimals: asset.decimals };
  }
  const { token, tokenDecimals } = ctx.services.config.acp;
  const units = centsInToken(ctx, cents);
  return { amount: formatUnits(units, tokenDecimals), baseUnits: units.toString(), currency: token, decimals: tokenDecimals };
}

function offeringOf(ctx: Pick<Ctx, 'services'>, capability: string, listing: Listing, currency: AcpCurrency): AcpOffering {
  const [serviceId, serviceKey, name, description, , cents, , , , , , reputation, agentId, agentName] = listing;
  return {
    offeringId: `${serviceKey}:${capability}`,
    capability,
    serviceId,
    serviceKey,
    name,
    description,
    provider: { agentId, name: agentName, reputation },
    priceCents: cents,
    price: priceIn(ctx, cents, currency),
  };
}

export async function acpStatus(ctx: Ctx): Promise<AcpStatus> {
  const { setup } = ctx.services.payments;
  const { acp } = ctx.services.config;
  const [{ n }] = await ctx.services.sql.query<{ n: number }>('SELECT COALESCE(sum(paid_offers), 0)::int AS n FROM capability_offer_counts', []);
  return {
    enabled: acp.enabled,
    network: setup.networkName,
    chainId: setup.chainId,
    token: { symbol: acp.token, decimals: acp.tokenDecimals, usdRate: acp.tokenUsdRate },
    settlement: setup.sandbox ? 'sandbox' : 'x402',
    offerings: acp.enabled ? n : 0,
  };
}

/** The priced offerings, by capability then cheapest first, in the network's token or in USDC. */
export async function acpOfferings(ctx: Ctx, currency: AcpCurrency, page: Page): Promise<{ items: AcpOffering[]; total: number }> {
  if (!ctx.services.config.acp.enabled) return { items: [], total: 0 };
  const [{ total }] = await ctx.services.sql.query<{ total: number }>('SELECT COALESCE(sum(paid_offers), 0)::int AS total FROM capability_offer_counts', []);
  const rows = await ctx.services.sql.query<{ capability: string; listing: Listing }>(
    `SELECT capability, listing FROM service_offers WHERE active AND cost_per_call > 0
     ORDER BY capability, cost_per_call, service_id LIMIT $1 OFFSET $2`,
    [page.limit, page.offset],
  );
  return { items: rows.map((r) => offeringOf(ctx, r.capability, r.listing, currency)), total };
}

export interface AcpPhase {
  phase: 'request' | 'negotiation' | 'transaction' | 'evaluation' | 'completed';
  description: string;
}

export interface AcpTerms {
  offering: AcpOffering;
  priceUsdc: AcpPrice;
  priceToken: AcpPrice;
  token: string;
  phases: AcpPhase[];
  escrow: { holder: string; funded: string; released: string };
  evaluation: { evaluator: string; windowSeconds: number; criteria: string };
  refundPolicy: string;
  deliverySeconds: number;
  /** When a job on these terms, funded now, must be delivered by. */
  deadline: Date;
  /** The x402 requirements that pay for it, in USDC. */
  payment: ReturnType<typeof requirementsFor>;
  /** How to buy it here. */
  purchase: { method: string; path: string; body: Record<string, unknown> };
}

/** The payment terms of one priced offering; 404 for an unknown one (or one that costs nothing). */
export async function acpPaymentTerms(ctx: Ctx, offeringId: string): Promise<AcpTerms> {
  const m = OFFERING_ID.exec(offeringId);
  const [row] =
    m && ctx.services.config.acp.enabled
      ? await ctx.services.sql.query<{ capability: string; listing: Listing }>(
          `SELECT o.capability, o.listing FROM service_offers o JOIN services s ON s.id = o.service_id
         WHERE s.service_key = $1 AND o.capability = $2 AND o.active AND o.cost_per_call > 0`,
          [m[1], m[2]],
        )
      : [];
  if (!row) throw new NotFound('offering', offeringId);
  const { acp } = ctx.services.config;
  const { setup } = ctx.services.payments;
  const offering = offeringOf(ctx, row.capability, row.listing, 'usdc');
  const priceToken = priceIn(ctx, offering.priceCents, 'token');
  return {
    offering,
    priceUsdc: offering.price,
    priceToken,
    token: acp.token,
    phases: [
      { phase: 'request', description: 'The buyer asks for the job: the capability and its input.' },
      { phase: 'negotiation', description: 'The terms are these: the listed price, no counter-offers.' },
      {
        phase: 'transaction',
        description: 'The buyer pays the price into escrow (an x402 payment, or its prepaid wallet balance), held until the job is evaluated.',
      },
      { phase: 'evaluation', description: 'The result is checked: a 2xx JSON answer of the provider releases the escrow; a failure returns it.' },
      { phase: 'completed', description: 'The provider is paid the price less the marketplace fee; the buyer keeps the right to dispute.' },
    ],
    escrow: {
      holder: setup.payTo,
      funded: "when the call is made: the price is held on the buyer's wallet before the provider is called",
      released: "to the provider (less the marketplace's fee) when its answer is recorded; back to the buyer when every attempt fails",
    },
    evaluation: {
      evaluator: 'marketplace',
      windowSeconds: acp.evaluationSeconds,
      criteria: 'A 2xx answer with a JSON body within the delivery time; after that, the buyer may dispute the transaction within the window',
    },
    refundPolicy: `Nothing is charged when the provider fails (a non-2xx, a timeout, a connection error or a body that is not JSON). A charge may be disputed (POST /disputes with its transaction_id) within ${Math.round(acp.evaluationSeconds / 3600)} hours: one whose every attempt failed, or charged more than the price, is refunded to the buyer's wallet automatically; others are decided by an administrator. Refunds go back through the ledger.`,
    deliverySeconds: acp.deliverySeconds,
    deadline: new Date(ctx.services.clock.now().getTime() + acp.deliverySeconds * 1000),
    payment: requirementsFor(setup, centsToUnits(setup, offering.priceCents)),
    purchase: { method: 'POST', path: '/api/v1/execute', body: { capability: offering.capability, provider: offering.serviceKey, mode: 'chosen', input: {} } },
  };
}
