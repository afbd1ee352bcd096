// REST routes of payments (spec §4.12 x402 sandbox, §4.2 pricing).
import { bucket, from, type Route } from './route';

const requirementsFields = /* GraphQL */ `
  fragment RequirementsFields on X402PaymentRequirements {
    scheme
    network
    asset
    amount
    payTo
    maxTimeoutSeconds
    extra
  }
`;

export const paymentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/x402/sandbox/status',
    bucket: bucket('x402_sandbox_status', 60),
    auth: 'none',
    status: 200,
    tag: 'Payments',
    summary: 'The x402 sandbox: network, asset, fee and facilitator',
    description:
      "`sandbox` is true in sandbox mode (the default): no chain is reached, a facilitator in the process verifies payments' signatures for real and settles them in the wallet ledger. With X402_FACILITATOR_URL it is false and `facilitator` is that URL. The rest is what a payment must be: x402 version, scheme, network (CAIP-2), asset (its EIP-712 domain included), `pay_to` and `max_timeout_seconds`; `fee_bps` is the marketplace's fee on every paid call, `faucet_cap` the balance the faucet tops a wallet up to, `starting_balance` what an agent's wallet is credited when it opens (in sandbox mode: at the agent's first paid call, test payment or faucet credit, or when created; 0 outside sandbox mode).",
    document: /* GraphQL */ `
      query X402SandboxStatus {
        x402Sandbox {
          sandbox
          x402_version: x402Version
          scheme
          network
          network_name: networkName
          chain_id: chainId
          asset {
            address
            symbol
            decimals
            eip712_name: eip712Name
            eip712_version: eip712Version
          }
          pay_to: payTo
          max_timeout_seconds: maxTimeoutSeconds
          fee_bps: feeBps
          facilitator
          faucet_cap: faucetCap
          faucet_cap_base_units: faucetCapBaseUnits
          starting_balance: startingBalance
          starting_balance_base_units: startingBalanceBaseUnits
        }
      }
    `,
  },
  {
    method: 'POST',
    path: '/x402/sandbox/test-payment',
    bucket: bucket('x402_test_payment', 60),
    auth: 'agent',
    status: 200,
    tag: 'Payments',
    summary: "A whole x402 round trip on the caller's sandbox wallet",
    description:
      "The requirements for `amount` (a decimal string of USDC, default one cent), a payment signed with the key the marketplace holds for the caller's wallet (opened, with the starting balance, when it has none: a new agent's first test payment works with no other step), its verification and its settlement, exactly as a paid call makes them; the payment pays the marketplace and is credited straight back, so the balance ends where it began. `simulated` is true. 402 when the wallet cannot pay it (the detail names the faucet, which credits sandbox funds); 409 in remote-facilitator mode, or for a wallet whose address the agent registered (it signs its own payments).",
    errors: [402, 409],
    document: /* GraphQL */ `
      mutation SandboxTestPayment($amount: String) {
        sandboxTestPayment(input: { amount: $amount }) {
          simulated
          wallet_address: walletAddress
          amount
          amount_base_units: amountBaseUnits
          requirements {
            ...RequirementsFields
          }
          payment: payload
          payment_signature: paymentSignature
          verification {
            is_valid: isValid
            invalid_reason: invalidReason
            payer
          }
          settlement {
            success
            transaction
            network
            payer
            amount
          }
          payment_response: paymentResponse
          payment_id: paymentId
          balance_before: balanceBefore
          balance_after: balanceAfter
        }
      }
      ${requirementsFields}
    `,
    variables: { amount: from.bodyField('amount') },
  },
  {
    method: 'POST',
    path: '/x402/sandbox/faucet',
    bucket: bucket('x402_faucet', 60),
    auth: 'agent',
    status: 200,
    tag: 'Payments',
    summary: 'Credit sandbox funds to a wallet',
    description:
      "Credits the caller's wallet (or `agent_id`, a sub-agent's), opening it when it has none (a wallet opens with the starting balance, so a new agent's first credit may find it at the cap already): `amount` (a decimal string of USDC), or by default what tops it up to the faucet's cap; never past the cap (a wallet at the cap is credited nothing: `credited` false). Sandbox mode only (409 otherwise).",
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation SandboxFaucet($agentId: ID, $amount: String) {
        sandboxFaucet(input: { agentId: $agentId, amount: $amount }) {
          credited
          agent_id: agentId
          wallet_address: walletAddress
          amount
          amount_base_units: amountBaseUnits
          balance
          balance_base_units: balanceBaseUnits
          cap
          cap_base_units: capBaseUnits
        }
      }
    `,
    variables: { agentId: from.bodyField('agent_id'), amount: from.bodyField('amount') },
  },
  {
    method: 'GET',
    path: '/capabilities/pricing',
    bucket: bucket('capabilities_pricing', 60),
    auth: 'none',
    status: 200,
    tag: 'Capabilities',
    summary: 'Paid capabilities and their price ranges',
    description:
      "Every capability with at least one active offer that costs something (its price set per capability, or its service's costPerCall), by identifier, with how many such offers there are (`service_count`) and their lowest, highest and mean price in integer cents, and the range in USDC. Paged with `limit` (1-100, default 50) and `offset`.",
    document: /* GraphQL */ `
      query CapabilityPricing($first: Int, $offset: Int) {
        capabilityPricing(first: $first, offset: $offset) {
          total: totalCount
          capabilities: nodes {
            slug
            name
            service_count: services
            min_cost_cents: minCostCents
            max_cost_cents: maxCostCents
            avg_cost_cents: avgCostCents
            min_price: minPrice
            min_price_base_units: minPriceBaseUnits
            max_price: maxPrice
            max_price_base_units: maxPriceBaseUnits
          }
        }
      }
    `,
    variables: {
      first: from.query('limit', 'Items to return, 1-100 (default 50)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'POST',
    path: '/capabilities/:capabilityId/pricing',
    bucket: bucket('capabilities_set_pricing', 60),
    auth: 'agent',
    status: 200,
    tag: 'Capabilities',
    summary: "Set the caller's price for a capability",
    description:
      "Sets what one call of the capability costs on the caller's services that offer it, whatever their status (or only on `service`, one of them by key or id): `cost_per_call` in integer cents (0 makes it free), or `cost_per_call_base_units` in USDC base units (a whole number of cents; both may be given when they agree). The services' other capabilities keep their `costPerCall`; the service listing shows the price under `capability_prices`. Without `pricing_model` each service keeps its own, except that a free one that now charges becomes `per_call`. Ranking, execute and the ACP offerings use the new price at once. 404 when no service of the caller offers the capability.",
    errors: [404],
    document: /* GraphQL */ `
      mutation SetCapabilityPricing($capabilityId: String!, $input: SetCapabilityPricingInput!) {
        setCapabilityPricing(capabilityId: $capabilityId, input: $input) {
          pricing_set: pricingSet
          capability
          costPerCall
          price
          price_base_units: priceBaseUnits
          pricing_model: pricingModel
          services_updated: servicesUpdated
          services {
            service_id: serviceId
            service_key: serviceKey
            name
          }
        }
      }
    `,
    variables: { capabilityId: from.path('capabilityId'), input: from.body },
  },
];
