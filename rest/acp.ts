// REST routes of the ACP offering views (spec §4.12).
import { bucket, from, type Route } from './route';

const offeringFields = /* GraphQL */ `
  fragment AcpOfferingFields on AcpOffering {
    offering_id: offeringId
    capability
    service_id: serviceId
    service_key: serviceKey
    name
    description
    provider {
      agent_id: agentId
      name
      reputation
    }
    price_cents: priceCents
    price {
      amount
      base_units: baseUnits
      currency
      decimals
    }
  }
`;

const paging = {
  first: from.query('limit', 'Items to return, 1-100 (default 50)'),
  offset: from.query('offset', 'Items to skip (default 0)'),
};

export const acpRoutes: Route[] = [
  {
    method: 'GET',
    path: '/acp/status',
    bucket: bucket('acp_status', 60),
    auth: 'none',
    status: 200,
    tag: 'ACP',
    summary: 'Whether ACP offerings are served, and on which network',
    description:
      '`enabled` (ACP_ENABLED), the `network`, the network `token` with its configured US dollar rate, how offerings settle, and how many are listed.',
    document: /* GraphQL */ `
      query AcpStatus {
        acpStatus {
          enabled
          network
          chain_id: chainId
          token {
            symbol
            decimals
            usd_rate: usdRate
          }
          settlement
          offerings
        }
      }
    `,
  },
  {
    method: 'GET',
    path: '/acp/offerings',
    bucket: bucket('acp_offerings', 60),
    auth: 'none',
    status: 200,
    tag: 'ACP',
    summary: 'Priced offerings, in the network token',
    description:
      "Every paid, active offer (a service and one of its capabilities) as an offering `<service key>:<capability>`, by capability and cheapest first, priced in the network token (ACP_TOKEN) at ACP_TOKEN_USD_RATE dollars a token, rounded up to the token's base unit.",
    document: /* GraphQL */ `
      query AcpOfferings($first: Int, $offset: Int) {
        acpOfferings(currency: token, first: $first, offset: $offset) {
          total: totalCount
          offerings: nodes {
            ...AcpOfferingFields
          }
        }
      }
      ${offeringFields}
    `,
    variables: paging,
  },
  {
    method: 'GET',
    path: '/acp/offerings/usdc',
    bucket: bucket('acp_offerings_usdc', 60),
    auth: 'none',
    status: 200,
    tag: 'ACP',
    summary: 'Priced offerings, in USDC',
    description: 'The same offerings as `/acp/offerings`, priced in USDC (the payment asset).',
    document: /* GraphQL */ `
      query AcpOfferingsUsdc($first: Int, $offset: Int) {
        acpOfferings(currency: usdc, first: $first, offset: $offset) {
          total: totalCount
          offerings: nodes {
            ...AcpOfferingFields
          }
        }
      }
      ${offeringFields}
    `,
    variables: paging,
  },
  {
    method: 'GET',
    path: '/acp/offerings/:id/payment-terms',
    bucket: bucket('acp_payment_terms', 60),
    auth: 'none',
    status: 200,
    tag: 'ACP',
    summary: "An offering's payment terms",
    description:
      '`terms`: the price in USDC and in the network token, the phases (request, negotiation, transaction with the price in escrow, evaluation, completed), who holds the escrow and when it is released, the evaluation window, the refund policy, the delivery deadline of a job funded now, the x402 requirements that pay for it, and how to buy it (`POST /execute` with the service chosen). 404 for an unknown offering, or one that costs nothing.',
    errors: [404],
    keyed: true,
    document: /* GraphQL */ `
      query AcpPaymentTerms($id: ID!) {
        terms: acpPaymentTerms(id: $id) {
          offering {
            ...AcpOfferingFields
          }
          price_usdc: priceUsdc {
            amount
            base_units: baseUnits
            currency
            decimals
          }
          price_token: priceToken {
            amount
            base_units: baseUnits
            currency
            decimals
          }
          token
          phases {
            phase
            description
          }
          escrow {
            holder
            funded
            released
          }
          evaluation {
            evaluator
            window_seconds: windowSeconds
            criteria
          }
          refund_policy: refundPolicy
          delivery_seconds: deliverySeconds
          deadline
          payment {
            scheme
            network
            asset
            amount
            payTo
            maxTimeoutSeconds
            extra
          }
          purchase {
            method
            path
            body
          }
        }
      }
      ${offeringFields}
    `,
    variables: { id: from.path('id') },
  },
];
