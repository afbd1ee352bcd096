// Payment offers and their checkout (spec §4.13): an offer for a price, bought through a checkout URL
// that takes x402 payments.
import type { PaymentOffer } from '../../src/db/generated/prisma/client';
import * as offers from '../../src/domain/ext/offers';
import { builder } from '../builder';
import { X402Settlement } from '../payments';
import { amountFields } from '../wallets';
import { length, maxLength, range } from '../json-schema';

const PaymentOfferRef = builder.objectRef<PaymentOffer>('PaymentOffer').implement({
  description: 'Something an agent offers for a price, bought through a checkout URL that takes x402 payments',
  fields: (t) => ({
    offerId: t.exposeID('id', { description: '`offer_…`' }),
    agentId: t.exposeID('agentId', { description: 'The agent that made the offer' }),
    description: t.exposeString('description'),
    priceCents: t.exposeInt('priceCents'),
    ...amountFields(t, 'price', (o: PaymentOffer) => o.amount, 'The price'),
    payeeAgentId: t.exposeID('payeeAgentId', { description: "Whose wallet is paid (an external agent's owner, for an offer of an external agent)" }),
    payeeExternalAgentId: t.exposeID('payeeExternalId', {
      nullable: true,
      description: 'The external agent the sale is for (it gets a `payment.received` gateway event)',
    }),
    expiresAt: t.field({ type: 'DateTime', description: 'No checkout of it opens after this', resolve: (o) => o.expiresAt! }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const CreatedOfferRef = builder.objectRef<offers.CreatedOffer>('CreatedPaymentOffer').implement({
  fields: (t) => ({
    offerId: t.exposeID('offerId'),
    offer: t.field({ type: PaymentOfferRef, resolve: (c) => c.offer }),
  }),
});

const CreatePaymentOfferInput = builder.inputType('CreatePaymentOfferInput', {
  fields: (t) => ({
    description: t.string({ description: 'Required: what is sold (1-500 characters); the checkout shows it', extensions: length(1, 500) }),
    priceCents: t.int({ description: `Integer cents, 1-${offers.OFFER_MAX_CENTS} (or priceBaseUnits)`, extensions: range(1, offers.OFFER_MAX_CENTS) }),
    priceBaseUnits: t.string({ description: "The price in the asset's base units (an integer string; a whole number of cents)" }),
    payeeAgentId: t.string({ description: 'Who is paid: you (the default) or one of your sub-agents', extensions: maxLength(64) }),
    payeeExternalAgentId: t.string({
      description: 'Or one of your external agents: paid to your wallet, with a `payment.received` gateway event for it',
      extensions: maxLength(64),
    }),
    expiresIn: t.int({ description: 'Seconds until the offer expires, 60-7776000 (default 2592000: 30 days)', extensions: range(60, 7_776_000) }),
  }),
});

builder.mutationField('createPaymentOffer', (t) =>
  t.field({
    type: CreatedOfferRef,
    description: 'Offers something for a price: buyers open a checkout of it and pay with x402',
    auth: 'agent',
    args: { input: t.arg({ type: CreatePaymentOfferInput, required: true }) },
    resolve: (_r, { input }, ctx) => offers.createPaymentOffer(ctx, input),
  }),
);

builder.queryField('paymentOffer', (t) =>
  t.field({
    type: PaymentOfferRef,
    description: 'An offer, by id (whoever knows its id may buy it)',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => offers.paymentOffer(ctx, String(id)),
  }),
);

const CheckoutRef = builder.objectRef<offers.OpenedCheckout>('Checkout').implement({
  description: "One purchase of an offer: its URL answers with the offer's x402 requirements until a payment settles it",
  fields: (t) => ({
    checkoutId: t.id({ description: '`chk_…`', resolve: (c) => c.session.id }),
    checkoutUrl: t.exposeString('checkoutUrl', { description: 'Under PUBLIC_BASE_URL; needs no key (knowing it is enough to pay)' }),
    offerId: t.id({ resolve: (c) => c.offer.id }),
    description: t.string({ resolve: (c) => c.offer.description }),
    buyerAgentId: t.id({ resolve: (c) => c.session.buyerId }),
    payeeAgentId: t.id({ resolve: (c) => c.offer.payeeAgentId }),
    status: t.string({ description: '`open` or `paid`', resolve: (c) => c.session.status }),
    priceCents: t.int({ resolve: (c) => c.offer.priceCents }),
    ...amountFields(t, 'amount', (c: offers.OpenedCheckout) => c.session.amount, 'What the payment must be'),
    payer: t.string({ nullable: true, description: 'The address that paid', resolve: (c) => c.session.payer }),
    paymentId: t.id({ nullable: true, resolve: (c) => c.session.paymentId }),
    paidAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.session.paidAt }),
    expiresAt: t.field({ type: 'DateTime', description: 'An open checkout cannot be paid after this (open another)', resolve: (c) => c.session.expiresAt }),
    createdAt: t.field({ type: 'DateTime', resolve: (c) => c.session.createdAt }),
  }),
});

builder.mutationField('createCheckout', (t) =>
  t.field({
    type: CheckoutRef,
    description: "Opens a checkout of an offer for you: a URL answering with the offer's x402 payment requirements for an hour",
    auth: 'agent',
    args: {
      input: t.arg({
        type: builder.inputType('CreateCheckoutInput', {
          fields: (f) => ({ offerId: f.string({ description: 'Required: the offer to buy', extensions: maxLength(64) }) }),
        }),
        required: true,
      }),
    },
    resolve: (_r, { input }, ctx) => offers.openCheckout(ctx, input),
  }),
);

builder.queryField('checkout', (t) =>
  t.field({
    type: CheckoutRef,
    description: 'A checkout you opened, or one of your offers',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => offers.checkoutSession(ctx, String(id)),
  }),
);

const CheckoutReceiptRef = builder.objectRef<offers.CheckoutReceipt>('CheckoutReceipt').implement({
  fields: (t) => ({
    paid: t.boolean({ resolve: () => true }),
    checkout: t.field({ type: CheckoutRef, resolve: (r) => r }),
    settlement: t.field({ type: X402Settlement, description: 'What PAYMENT-RESPONSE carries', resolve: (r) => r.settlement }),
  }),
});

builder.queryField('checkoutReceipt', (t) =>
  t.field({
    type: CheckoutReceiptRef,
    description:
      "A checkout URL's answer to a read (no key needed; its REST GET or HEAD without a payment): the receipt once paid, else PAYMENT_REQUIRED with the x402 requirements in `extensions` (CONFLICT once expired). It never pays: a payment goes to payCheckout",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => offers.checkoutReceipt(ctx, String(id)),
  }),
);

builder.mutationField('payCheckout', (t) =>
  t.field({
    type: CheckoutReceiptRef,
    description:
      'Pays a checkout URL (no key needed; its REST POST, and its GET carrying PAYMENT-SIGNATURE). With `payment`: settled once and paid on to the payee; a replay answers the same receipt. Without: the receipt once paid, else PAYMENT_REQUIRED with the x402 requirements in `extensions`',
    args: {
      id: t.arg.id({ required: true }),
      payment: t.arg.string({ description: 'An x402 v2 PaymentPayload (scheme exact, EIP-3009), as PAYMENT-SIGNATURE carries it' }),
    },
    resolve: (_r, { id, payment }, ctx) => offers.payCheckout(ctx, String(id), payment),
  }),
);
