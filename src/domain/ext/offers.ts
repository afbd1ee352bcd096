// Payment offers and checkout (spec §4.13): an agent sells something, paid to itself, a sub-agent or one of its external
// agents. A checkout's URL (knowing it is the capability) answers the offer's x402 requirements or its receipt; a
// PAYMENT-SIGNATURE sent to it is verified and settled through the payments engine, credited to the buyer's wallet and
// paid on to the payee less the fee in the same transaction, once whatever is replayed or raced. Without one it only reads.
import type { PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { CheckoutSession, PaymentOffer } from '../../db/generated/prisma/client';
import type { DbTx } from '../../db/database';
import { Conflict, NotFound, ServiceUnavailable } from '../../platform/errors';
import { base62 } from '../../platform/ids';
import { waitForClaim } from '../../platform/in-flight';
import { Checks } from '../../platform/validate';
import { agentInReach } from '../agents/agents';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { openWallets, transfer } from '../payments/ledger';
import { askFacilitator, findPayment, settlePayment, settleRemote, type Settlement } from '../payments/payments';
import { ACCOUNTS, centsToUnits, feeOf, formatUnits, unitsToCents } from '../payments/setup';
import { acceptedMatches, PaymentRequired, readPayment, requirementsFor, settleResponse, X402_VERSION, type ReadPayment } from '../payments/x402';
import { externalAgentOf } from './agents';
import { appendGatewayEvent } from './gateway-events';

/** The most an offer may ask: ten thousand dollars. */
export const OFFER_MAX_CENTS = 1_000_000;
/** An offer lasts 30 days unless `expires_in` says otherwise, and at most 90. */
const OFFER_DEFAULT_SECONDS = 30 * 86_400;
const OFFER_MAX_SECONDS = 90 * 86_400;
/** How long a checkout URL answers. */
export const CHECKOUT_TTL_MS = 3_600_000;
const OFFER_ID = /^offer_[0-9A-Za-z]{24}$/;
const CHECKOUT_ID = /^chk_[0-9A-Za-z]{24}$/;

export interface OfferInput {
  description?: unknown;
  priceCents?: unknown;
  /** The same price in the asset's base units (an integer string). */
  priceBaseUnits?: unknown;
  payeeAgentId?: unknown;
  payeeExternalAgentId?: unknown;
  /** Seconds. */
  expiresIn?: unknown;
}

export interface CreatedOffer {
  offerId: string;
  offer: PaymentOffer;
}

/**
 * An offer of the caller's: what (`description`), for how much (cents, or the same in base units), paid to
 * whom (the caller by default; one of its sub-agents; or one of its external agents, through the caller's
 * wallet, with a `payment.received` gateway event for it), and until when (30 days by default).
 */
export async function createPaymentOffer(ctx: Ctx, input: OfferInput): Promise<CreatedOffer> {
  const me = await requireAgent(ctx);
  const { setup } = ctx.services.payments;
  const checks = new Checks();
  const description = checks.text('description', input.description, { max: 500, required: true });
  const cents = checks.integer('priceCents', input.priceCents, 1, OFFER_MAX_CENTS);
  let fromUnits: number | undefined;
  if (input.priceBaseUnits !== undefined && input.priceBaseUnits !== null) {
    const raw = input.priceBaseUnits;
    if (typeof raw !== 'string' || !/^\d{1,20}$/.test(raw)) checks.fail('priceBaseUnits', 'must be an integer string of base units');
    else if ((fromUnits = unitsToCents(setup, BigInt(raw))) === undefined)
      checks.fail('priceBaseUnits', `must be a whole number of cents: a multiple of ${centsToUnits(setup, 1)} base units`);
    else if (fromUnits < 1 || fromUnits > OFFER_MAX_CENTS)
      checks.fail('priceBaseUnits', `must be from ${centsToUnits(setup, 1)} to ${centsToUnits(setup, OFFER_MAX_CENTS)}`);
  }
  if ((input.priceCents ?? null) === null && (input.priceBaseUnits ?? null) === null)
    checks.fail('priceCents', 'is required (integer cents; or price_base_units)');
  if (cents !== undefined && fromUnits !== undefined && cents !== fromUnits)
    checks.fail('priceBaseUnits', `says ${fromUnits} cents while price_cents says ${cents}: give one, or both alike`);
  const payeeAgentId =
    input.payeeAgentId === undefined || input.payeeAgentId === null ? undefined : checks.text('payeeAgentId', input.payeeAgentId, { max: 64 });
  const payeeExternalId =
    input.payeeExternalAgentId === undefined || input.payeeExternalAgentId === null
      ? undefined
      : checks.text('payeeExternalAgentId', input.payeeExternalAgentId, { max: 64 });
  if (payeeAgentId !== undefined && payeeExternalId !== undefined)
    checks.fail('payeeExternalAgentId', 'give payee_agent_id or payee_external_agent_id, not both');
  const expiresIn = checks.integer('expiresIn', input.expiresIn, 60, OFFER_MAX_SECONDS) ?? OFFER_DEFAULT_SECONDS;
  checks.done();
  const price = (cents ?? fromUnits)!;
  const payee = payeeAgentId ? await agentInReach(ctx, payeeAgentId) : me;
  const external = payeeExternalId ? await externalAgentOf(ctx, me.id, payeeExternalId) : null;
  const now = ctx.services.clock.now();
  const offer = await ctx.db.paymentOffer.create({
    data: {
      id: `offer_${base62(24)}`,
      agentId: me.id,
      description: description!,
      priceCents: price,
      amount: centsToUnits(setup, price),
      payeeAgentId: external ? external.ownerId : payee.id,
      payeeExternalId: external?.id ?? null,
      expiresAt: new Date(now.getTime() + expiresIn * 1000),
      createdAt: now,
    },
  });
  return { offerId: offer.id, offer };
}

/** Any offer, by id (an offer is public to whoever knows its id: it is made to be bought). */
export async function paymentOffer(ctx: Ctx, id: string): Promise<PaymentOffer> {
  await requireAgent(ctx);
  const offer = OFFER_ID.test(id) ? await ctx.db.paymentOffer.findUnique({ where: { id } }) : null;
  if (!offer) throw new NotFound('payment offer', id);
  return offer;
}

export function checkoutUrlOf(ctx: Pick<Ctx, 'services'>, checkoutId: string): string {
  return `${ctx.services.config.publicBaseUrl}/api/v1/ext/payments/checkout/${checkoutId}`;
}

export interface OpenedCheckout {
  checkoutUrl: string;
  session: CheckoutSession;
  offer: PaymentOffer;
}

/**
 * A checkout of an offer for the caller (the buyer): a URL that answers with the offer's x402 payment
 * requirements for an hour (or until the offer expires, if sooner). The payee cannot buy its own offer.
 */
export async function openCheckout(ctx: Ctx, input: { offerId?: unknown }): Promise<OpenedCheckout> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const offerId = checks.text('offerId', input.offerId, { max: 64, required: true });
  checks.done();
  const offer = await paymentOffer(ctx, offerId!);
  const now = ctx.services.clock.now();
  if (offer.expiresAt && offer.expiresAt <= now) throw new Conflict(`Offer ${offer.id} expired at ${offer.expiresAt.toISOString()}`);
  if (offer.payeeAgentId === me.id) throw new Conflict('This offer pays you: a payee cannot buy its own offer');
  const ttl = now.getTime() + CHECKOUT_TTL_MS;
  const expiresAt = new Date(offer.expiresAt ? Math.min(offer.expiresAt.getTime(), ttl) : ttl);
  const session = await ctx.db.checkoutSession.create({
    data: { id: `chk_${base62(24)}`, offerId: offer.id, buyerId: me.id, amount: offer.amount, status: 'open', expiresAt, createdAt: now },
  });
  return { checkoutUrl: checkoutUrlOf(ctx, session.id), session, offer };
}

/** A checkout the caller opened, or one of an offer the caller made; anyone else's is 404. */
export async function checkoutSession(ctx: Ctx, id: string): Promise<OpenedCheckout> {
  const me = await requireAgent(ctx);
  const found = await sessionWithOffer(ctx, id);
  if (found.session.buyerId !== me.id && found.offer.agentId !== me.id && found.offer.payeeAgentId !== me.id) throw new NotFound('checkout', id);
  return { checkoutUrl: checkoutUrlOf(ctx, id), ...found };
}

async function sessionWithOffer(ctx: Ctx, id: string): Promise<{ session: CheckoutSession; offer: PaymentOffer }> {
  const session = CHECKOUT_ID.test(id) ? await ctx.db.checkoutSession.findUnique({ where: { id } }) : null;
  if (!session) throw new NotFound('checkout', id);
  const offer = await ctx.db.paymentOffer.findUniqueOrThrow({ where: { id: session.offerId } });
  return { session, offer };
}

export interface CheckoutReceipt {
  paid: true;
  session: CheckoutSession;
  offer: PaymentOffer;
  checkoutUrl: string;
  /** What PAYMENT-RESPONSE carries. */
  settlement: SettleResponse;
}

/** What binds a payment to one checkout: it pays that checkout and nothing else. */
const fingerprintOf = (checkoutId: string) => `checkout:${checkoutId}`;

/**
 * The checkout URL's answer to a read (a GET or HEAD without a payment): the receipt once the checkout is
 * paid, else 402 with the offer's x402 requirements (409 once it expired). A payment is taken by payCheckout.
 */
export async function checkoutReceipt(ctx: Ctx, id: string): Promise<CheckoutReceipt> {
  const { session, offer } = await sessionWithOffer(ctx, id);
  return unpaidOrReceipt(ctx, session, offer, requirementsFor(ctx.services.payments.setup, session.amount));
}

function unpaidOrReceipt(ctx: Ctx, session: CheckoutSession, offer: PaymentOffer, required: PaymentRequirements): Promise<CheckoutReceipt> {
  if (session.status === 'paid') return receiptOf(ctx, session.id);
  throw checkoutRequired(
    ctx,
    session,
    offer,
    required,
    `Pay ${describePrice(ctx, session.amount)} for "${offer.description}": send this URL a PAYMENT-SIGNATURE for one of \`accepts\` (GET or POST)`,
  );
}

/**
 * The checkout URL's answer to a POST, and to a GET carrying a payment (x402 clients retry the method given). Without
 * `payment`, a read (checkoutReceipt); with one, verified and settled once: a replay answers the receipt, and a payment
 * used elsewhere or sent to a checkout already paid is refused before anything moves.
 */
export async function payCheckout(ctx: Ctx, id: string, payment?: string | null): Promise<CheckoutReceipt> {
  const { services } = ctx;
  const { setup, facilitator, inFlight } = services.payments;
  const { session, offer } = await sessionWithOffer(ctx, id);
  const required = requirementsFor(setup, session.amount);
  if (!payment) return unpaidOrReceipt(ctx, session, offer, required);
  const read = readPayment(payment);
  const flightKey = `x402:${read.payer}:${read.nonce}`;
  const deadline = Date.now() + setup.maxTimeoutSeconds * 1000;
  const settlement = settlementFor(ctx, session, offer, required, read);
  for (;;) {
    // A payment seen before is decided once it settled, or once its claimant's claim lapsed.
    const seen = await waitForClaim(
      inFlight,
      flightKey,
      async () => {
        const row = await findPayment(services, read);
        if (!row) return { row: null };
        if (row.status === 'settled' || row.requestHash !== fingerprintOf(session.id)) return { row };
        return row.claimedUntil.getTime() > services.clock.now().getTime() ? undefined : { row };
      },
      deadline,
    );
    if (!seen) throw new ServiceUnavailable('A copy of this payment is still being settled; retry shortly');
    const { row } = seen;
    if (row) {
      if (row.requestHash !== fingerprintOf(session.id)) {
        throw checkoutRequired(
          ctx,
          session,
          offer,
          required,
          'This payment has already paid for something else: a payment pays for the one checkout it was made for',
          'payment_already_used',
        );
      }
      if (row.status === 'settled') return answerFor(ctx, session.id, row.id);
      // Its claimant stopped before the remote facilitator answered: take the claim over and ask again.
      const taken = await services.db.x402Payment.updateMany({
        where: { id: row.id, claimedUntil: row.claimedUntil },
        data: { claimedUntil: new Date(services.clock.now().getTime() + setup.maxTimeoutSeconds * 1000) },
      });
      if (!taken.count) continue;
      const buyer = await services.db.agent.findUniqueOrThrow({ where: { id: session.buyerId } });
      await inFlight.run(flightKey, () => settleRemote(ctx, buyer, row.id, read, required, settlement));
      return answerFor(ctx, session.id, row.id);
    }
    // A new payment: nothing moves unless the checkout can still be paid with it.
    const now = await services.db.checkoutSession.findUniqueOrThrow({ where: { id: session.id } });
    if (now.status === 'paid') {
      // Paid by this very payment since it was looked for (a copy committed meanwhile): answer from it.
      if (await findPayment(services, read)) continue;
      throw new Conflict(`Checkout ${session.id} is already paid; this payment was not taken`);
    }
    const problem = openProblem(ctx, now);
    if (problem) throw new Conflict(problem);
    if (!acceptedMatches(read.payload.accepted, required)) {
      throw checkoutRequired(
        ctx,
        session,
        offer,
        required,
        `The payment was made for other requirements (${read.payload.accepted.amount} base units to ${read.payload.accepted.payTo} on ${read.payload.accepted.network}); this checkout asks for ${required.amount} base units to ${required.payTo} on ${required.network}`,
        'payment_requirements_mismatch',
      );
    }
    const verified = await askFacilitator(() => facilitator.verify(read.payload, required));
    if (!verified.isValid && (await findPayment(services, read))) continue;
    if (!verified.isValid) {
      throw checkoutRequired(
        ctx,
        session,
        offer,
        required,
        `The payment was refused: ${verified.invalidMessage ?? verified.invalidReason ?? 'invalid'}`,
        verified.invalidReason ?? 'invalid_payment',
      );
    }
    const buyer = await services.db.agent.findUniqueOrThrow({ where: { id: session.buyerId } });
    if (!(await services.db.wallet.findUnique({ where: { agentId: offer.payeeAgentId }, select: { id: true } }))) {
      await openWallets(services, [offer.payeeAgentId]);
    }
    const settled = await inFlight.run(flightKey, () => settlePayment(ctx, buyer, read, required, settlement));
    if (settled) return answerFor(ctx, session.id, settled.paymentId);
    // Another copy claimed the payment first: answer from it.
  }
}

/**
 * Settling for a checkout: nothing is held; in the credit's transaction the checkout is marked paid (only
 * if still open) and the amount goes on from the buyer's wallet to the payee's, less the fee.
 */
function settlementFor(ctx: Ctx, session: CheckoutSession, offer: PaymentOffer, required: PaymentRequirements, read: ReadPayment): Settlement {
  const { setup } = ctx.services.payments;
  return {
    purpose: 'checkout',
    requestHash: fingerprintOf(session.id),
    executionId: null,
    holdAmount: 0n,
    holdMs: setup.maxTimeoutSeconds * 1000,
    refused: (answer) =>
      checkoutRequired(
        ctx,
        session,
        offer,
        required,
        `The payment was refused: ${answer.errorMessage ?? answer.errorReason ?? 'refused'}`,
        answer.errorReason ?? 'settlement_failed',
      ),
    onCredited: async (tx: DbTx, paymentId: string, answer: SettleResponse) => {
      const at = ctx.services.clock.now();
      const marked = await tx.checkoutSession.updateMany({
        where: { id: session.id, status: 'open' },
        data: { status: 'paid', paymentId, payer: read.payer, paidAt: at },
      });
      // Paid meanwhile by another payment: this one stays credited to the buyer's wallet.
      if (!marked.count) return;
      const wallets = await tx.wallet.findMany({ where: { agentId: { in: [session.buyerId, offer.payeeAgentId] } }, select: { id: true, agentId: true } });
      const walletOf = (agentId: string) => wallets.find((w) => w.agentId === agentId)!.id;
      const fee = feeOf(setup, session.amount);
      const transferId = await transfer(
        tx,
        [
          { walletId: walletOf(session.buyerId), amount: -session.amount, kind: 'purchase' },
          { walletId: walletOf(offer.payeeAgentId), amount: session.amount - fee, kind: 'sale' },
          { walletId: ACCOUNTS.revenue, amount: fee, kind: 'fee' },
        ],
        { reference: `checkout ${session.id}`, paymentId, at },
      );
      await tx.checkoutSession.update({ where: { id: session.id }, data: { transferId } });
      if (offer.payeeExternalId) {
        await appendGatewayEvent(tx, {
          ownerId: offer.payeeAgentId,
          externalAgentId: offer.payeeExternalId,
          type: 'payment.received',
          data: {
            checkout_id: session.id,
            offer_id: offer.id,
            description: offer.description,
            price_cents: offer.priceCents,
            amount: session.amount.toString(),
            fee: fee.toString(),
            buyer_agent_id: session.buyerId,
            payer: read.payer,
            transaction: answer.transaction,
            network: answer.network,
          },
          at,
        });
      }
    },
  };
}

/** After a payment of ours settled: the receipt when it paid the checkout, 409 when another payment had. */
async function answerFor(ctx: Ctx, checkoutId: string, paymentId: string): Promise<CheckoutReceipt> {
  const session = await ctx.services.db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } });
  if (session.paymentId !== paymentId) {
    throw new Conflict(`Checkout ${checkoutId} was paid by another payment; this one was settled and credited to the buyer's wallet`);
  }
  return receiptOf(ctx, checkoutId);
}

async function receiptOf(ctx: Ctx, checkoutId: string): Promise<CheckoutReceipt> {
  const { db } = ctx.services;
  const session = await db.checkoutSession.findUniqueOrThrow({ where: { id: checkoutId } });
  const [offer, payment] = await Promise.all([
    db.paymentOffer.findUniqueOrThrow({ where: { id: session.offerId } }),
    db.x402Payment.findUniqueOrThrow({ where: { id: session.paymentId! } }),
  ]);
  return {
    paid: true,
    session,
    offer,
    checkoutUrl: checkoutUrlOf(ctx, checkoutId),
    settlement: settleResponse(ctx.services.payments.setup, payment.payer, payment.transaction ?? '', payment.amount),
  };
}

/** Why an open checkout can no longer be paid (it expired), or undefined. */
function openProblem(ctx: Ctx, session: CheckoutSession): string | undefined {
  if (session.expiresAt <= ctx.services.clock.now())
    return `Checkout ${session.id} expired at ${session.expiresAt.toISOString()}: open another with POST /ext/payments/checkout`;
  return undefined;
}

function describePrice(ctx: Ctx, amount: bigint): string {
  const { asset } = ctx.services.payments.setup;
  return `${formatUnits(amount, asset.decimals)} ${asset.symbol}`;
}

function checkoutRequired(
  ctx: Ctx,
  session: CheckoutSession,
  offer: PaymentOffer,
  required: PaymentRequirements,
  message: string,
  error?: string,
): PaymentRequired | Conflict {
  const expired = session.status === 'open' && openProblem(ctx, session);
  if (expired) return new Conflict(expired);
  return new PaymentRequired(message, {
    x402Version: X402_VERSION,
    resource: {
      url: checkoutUrlOf(ctx, session.id),
      description: `${offer.description} (${describePrice(ctx, session.amount)})`,
      mimeType: 'application/json',
    },
    accepts: [required],
    ...(error ? { error } : {}),
  });
}
