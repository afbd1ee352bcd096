// Payment offers and checkouts (spec §4.13): offers, their checkouts, and the checkout URL an x402 client pays.
import { bucket, from, paymentResponse, type Route } from '../route';

const offerFields = /* GraphQL */ `
  fragment PaymentOfferFields on PaymentOffer {
    offer_id: offerId
    agent_id: agentId
    description
    price_cents: priceCents
    price
    price_base_units: priceBaseUnits
    payee_agent_id: payeeAgentId
    payee_external_agent_id: payeeExternalAgentId
    expires_at: expiresAt
    created_at: createdAt
  }
`;

const checkoutFields = /* GraphQL */ `
  fragment CheckoutFields on Checkout {
    checkout_id: checkoutId
    checkout_url: checkoutUrl
    offer_id: offerId
    description
    buyer_agent_id: buyerAgentId
    payee_agent_id: payeeAgentId
    status
    price_cents: priceCents
    amount
    amount_base_units: amountBaseUnits
    payer
    payment_id: paymentId
    paid_at: paidAt
    expires_at: expiresAt
    created_at: createdAt
  }
`;

const CHECKOUT_URL_DESCRIPTION =
  "The checkout URL (no key: knowing it is enough to pay). An x402 client retries it with the method it was given, carrying its payment, so GET and POST answer alike. Without PAYMENT-SIGNATURE it only reads: 402 with the offer's x402 requirements (`accepts`, also base64-encoded in PAYMENT-REQUIRED; `resource.url` is this URL) while open, the receipt (and PAYMENT-RESPONSE) once paid, 409 once expired. With PAYMENT-SIGNATURE (an x402 v2 exact payment for those requirements) the payment is verified and settled through the payments engine, credited to the buyer's wallet and paid on to the payee less the marketplace's fee in one transaction, and answered with the receipt and PAYMENT-RESPONSE: a GET carrying it runs the POST's `Mutation.payCheckout` (and its rate bucket). A HEAD never pays: it answers as a GET without payment. A replay of the same payment answers the same receipt and moves nothing; a payment used for anything else is 402 `payment_already_used`; a payment sent after another paid the checkout is 409 and nothing moves (one settled at the very same moment stays credited to the buyer's wallet). An expired open checkout is 409.";

/** The checkout URL: GET (and HEAD) read it, POST pays it, and a GET carrying a payment pays it as POST does. */
function checkoutUrlRoute(method: 'GET' | 'POST', summary: string, document: string, variables: Route['variables']): Route {
  return {
    method,
    path: '/ext/payments/checkout/:id',
    bucket: bucket(method === 'GET' ? 'ext_checkout_receipt' : 'ext_checkout_pay', 60),
    auth: 'none',
    status: 200,
    tag: 'Gateway',
    summary,
    description: CHECKOUT_URL_DESCRIPTION,
    errors: [402, 404, 409],
    ...(method === 'GET' ? { paidWith: 'PAYMENT-SIGNATURE' } : {}),
    answer: (receipt) => (receipt?.settlement ? paymentResponse(receipt.settlement) : undefined),
    responseHeaders: { 'PAYMENT-RESPONSE': 'The settlement (an x402 SettleResponse: success, transaction, network, payer, amount), base64-encoded JSON' },
    document,
    variables,
  };
}

export const paymentRoutes: Route[] = [
  {
    method: 'POST',
    path: '/ext/payments/offer',
    bucket: bucket('ext_payments_offer', 60),
    auth: 'agent',
    status: 201,
    tag: 'Gateway',
    summary: 'Offer something for a price',
    description:
      '`description` (1-500 characters) and the price — `price_cents` (1-1000000) or `price_base_units` (the same in the asset, a whole number of cents) — required. Paid to you by default; `payee_agent_id` one of your sub-agents, or `payee_external_agent_id` one of your external agents (paid to your wallet, with a `payment.received` gateway event for it). `expires_in` (seconds, 60-7776000) optional: default 30 days. The `offer_id` is what buyers open a checkout with.',
    errors: [404],
    document: /* GraphQL */ `
      mutation CreatePaymentOffer($input: CreatePaymentOfferInput!) {
        createPaymentOffer(input: $input) {
          offer_id: offerId
          offer {
            ...PaymentOfferFields
          }
        }
      }
      ${offerFields}
    `,
    variables: { input: from.body },
    bodySchema: { required: ['description'], anyOf: [{ required: ['priceCents'] }, { required: ['priceBaseUnits'] }] },
  },
  {
    method: 'GET',
    path: '/ext/payments/offers/:id',
    bucket: bucket('ext_payments_offer_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'An offer',
    description: 'Any offer whose id you know (offers are made to be bought).',
    errors: [404],
    document: /* GraphQL */ `
      query PaymentOffer($id: ID!) {
        paymentOffer(id: $id) {
          ...PaymentOfferFields
        }
      }
      ${offerFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/ext/payments/checkout',
    bucket: bucket('ext_payments_checkout', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Open a checkout of an offer',
    description:
      "`offer_id` required. You are the buyer: `checkout_url` (under PUBLIC_BASE_URL) answers with the offer's x402 payment requirements for an hour (or until the offer expires, if sooner), and a payment sent to it is credited to your wallet and paid on to the payee. An expired offer, or your own (you are its payee), is 409.",
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation CreateCheckout($input: CreateCheckoutInput!) {
        createCheckout(input: $input) {
          ...CheckoutFields
        }
      }
      ${checkoutFields}
    `,
    variables: { input: from.body },
    bodySchema: { required: ['offerId'] },
  },
  checkoutUrlRoute(
    'GET',
    'A checkout URL: its x402 requirements or its receipt; with PAYMENT-SIGNATURE, pays it',
    /* GraphQL */ `
      query CheckoutReceipt($id: ID!) {
        checkoutReceipt(id: $id) {
          paid
          checkout {
            ...CheckoutFields
          }
          settlement {
            success
            transaction
            network
            payer
            amount
          }
        }
      }
      ${checkoutFields}
    `,
    { id: from.path('id') },
  ),
  checkoutUrlRoute(
    'POST',
    'Pay a checkout URL with x402',
    /* GraphQL */ `
      mutation PayCheckout($id: ID!, $payment: String) {
        payCheckout(id: $id, payment: $payment) {
          paid
          checkout {
            ...CheckoutFields
          }
          settlement {
            success
            transaction
            network
            payer
            amount
          }
        }
      }
      ${checkoutFields}
    `,
    {
      id: from.path('id'),
      payment: from.header(
        'PAYMENT-SIGNATURE',
        'An x402 v2 payment for one of the `accepts` of its 402 (the base64 of a PaymentPayload: scheme exact, an EIP-3009 authorization signed with EIP-712)',
      ),
    },
  ),
];
