// REST routes of the third-party agent gateway (spec §4.13). Bodies the spec leaves out are designed in
// docs/gateway.md and described here for the OpenAPI document.
import { bucket, from, paymentResponse, type Route } from './route';

const externalAgentFields = /* GraphQL */ `
  fragment ExternalAgentFields on ExternalAgent {
    external_agent_id: externalAgentId
    owner_agent_id: ownerAgentId
    instance_url: instanceUrl
    name
    description
    capabilities
    reputation
    tier
    status
    source
    card
    connected_at: connectedAt
    delegations
    answered
    failed
    created_at: createdAt
  }
`;

const delegationFields = /* GraphQL */ `
  fragment ExternalDelegationFields on ExternalDelegation {
    delegated
    delegation_id: delegationId
    execution_id: executionId
    external_agent_id: externalAgentId
    from_agent_id: fromAgentId
    capability
    input
    task_id: taskId
    swarm_id: swarmId
    step
    status
    result
    error
    created_at: createdAt
    answered_at: answeredAt
  }
`;

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

const radioEventFields = /* GraphQL */ `
  fragment RadioEventFields on RadioEvent {
    id
    sequence
    event
    type
    event_id: eventId
    channel
    data
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

export const extRoutes: Route[] = [
  {
    method: 'POST',
    path: '/ext/agents/register',
    bucket: bucket('ext_agents_register', 30),
    auth: 'agent',
    status: 201,
    tag: 'Gateway',
    summary: 'Register an external agent',
    description:
      '`instance_url` (HTTPS; a private address needs OUTBOUND_ALLOW_PRIVATE) and `capabilities` (1-50 identifiers) required; `name` (default the host) and `description` optional. The caller owns it: it polls its events and answers its delegations. `secret` (shown only here) signs deliveries to the instance. The same instance twice is 409; at most 100 per agent.',
    errors: [409],
    document: /* GraphQL */ `
      mutation RegisterExternalAgent($input: RegisterExternalAgentInput!) {
        registerExternalAgent(input: $input) {
          registered
          secret
          external_agent: externalAgent {
            ...ExternalAgentFields
          }
        }
      }
      ${externalAgentFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'POST',
    path: '/ext/capabilities/register',
    bucket: bucket('ext_capabilities_register', 60),
    auth: 'agent',
    status: 201,
    tag: 'Gateway',
    summary: 'Register a capability for the gateway search',
    description:
      '`name` (an identifier, unique among yours), `description`, `input_schema` (a JSON Schema object, ≤ 64 KiB) and `endpoint` (HTTPS) required; `external_agent_id` (one of yours offering it) and `price_cents` (informative) optional. 409 for a name you registered before.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation RegisterExternalCapability($input: RegisterExternalCapabilityInput!) {
        registerExternalCapability(input: $input) {
          registered
          capability {
            capability_id: capabilityId
            name
            description
            input_schema: inputSchema
            endpoint
            external_agent_id: externalAgentId
            owner_agent_id: ownerAgentId
            price_cents: priceCents
            created_at: createdAt
          }
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/ext/capabilities/search',
    bucket: bucket('ext_capabilities_search', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Search capabilities wherever they live',
    description:
      'The catalog, the marketplace’s services (`source: marketplace`, called through `POST /execute`), registered capabilities and what external agents declare (`source: external`, with their endpoint or instance), ordered by capability. `q` matches identifiers, names and descriptions (`%` and `_` literal); `capability` exactly one; `source` one source.',
    document: /* GraphQL */ `
      query SearchGatewayCapabilities($q: String, $capability: String, $source: String, $first: Int, $offset: Int) {
        searchGatewayCapabilities(q: $q, capability: $capability, source: $source, first: $first, offset: $offset) {
          total: totalCount
          capabilities: nodes {
            id
            capability
            name
            description
            source
            kind
            service_id: serviceId
            provider_agent_id: providerAgentId
            external_agent_id: externalAgentId
            endpoint
            input_schema: inputSchema
            price_cents: priceCents
          }
        }
      }
    `,
    variables: {
      q: from.query('q', 'Text in the identifier, name or description'),
      capability: from.query('capability', 'Exactly this capability'),
      source: from.query('source', '`catalog`, `marketplace` or `external`'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'POST',
    path: '/ext/gateway/connect',
    bucket: bucket('ext_gateway_connect', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Connect an external agent: fetch and check its agent card',
    description:
      '`external_agent_id` (one of yours) or `instance_url` (registered from its card when you have not registered it). The card is fetched from the instance origin’s `/.well-known/agent-card.json` (or the instance URL itself when it names a `.json` document) through the SSRF-guarded client, and must name the agent, an endpoint and its skills. `connected: false` with `reason` when the card cannot be had or is not one; a private address is 400 unless OUTBOUND_ALLOW_PRIVATE is set.',
    errors: [404],
    document: /* GraphQL */ `
      mutation ConnectGateway($input: ConnectGatewayInput!) {
        connectGateway(input: $input) {
          connected
          reason
          card
          external_agent: externalAgent {
            ...ExternalAgentFields
          }
        }
      }
      ${externalAgentFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/ext/gateway/events',
    bucket: bucket('ext_gateway_events', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'The events addressed to your external agents, after a cursor',
    description:
      "In order (`seq`), at most `limit` (1-100, default 50), with `cursor` (the last one's number) and `has_more`. Without `after`, reading starts after the cursor you last acknowledged; passing `after` acknowledges every event up to it (never past the last event). Reading changes nothing else: a poll that was lost, or read twice, or a HEAD, hands out nothing for good, so a poller that passes each answer's `cursor` back as `after` reads every event once and in order, and one that lost an answer reads it again. Events are kept 30 days. Types: `gateway.connected`, `delegation.requested`, `delegation.answered`, `payment.received`.",
    document: /* GraphQL */ `
      query GatewayEvents($after: Int, $limit: Int) {
        gatewayEvents(after: $after, limit: $limit) {
          events {
            id
            seq
            type
            external_agent_id: externalAgentId
            data
            created_at: createdAt
          }
          cursor
          has_more: hasMore
        }
      }
    `,
    variables: {
      after: from.query('after', 'The cursor of the previous answer: the events after it, acknowledging it'),
      limit: from.query('limit', 'Events to return, 1-100 (default 50)'),
    },
  },
  {
    method: 'POST',
    path: '/ext/vault/token',
    bucket: bucket('ext_vault_token', 60),
    auth: 'agent',
    status: 201,
    tag: 'Gateway',
    summary: 'Issue a scoped, short-lived token',
    description:
      '`scopes` (operations such as `execute`, `<operation>:<name>` such as `capability:summarize` or `capability:*`, or `*`) and `audience` required; `subject` (whom it acts for) and `expires_in` (seconds, 1-86400, default 900) optional. The token is a compact JWS (EdDSA, `typ: vault+jwt`) verifiable with /.well-known/jwks.json; its `jti` is `token_id`, revocable with `DELETE /ext/vault/tokens/:id`.',
    document: /* GraphQL */ `
      mutation IssueVaultToken($input: IssueVaultTokenInput!) {
        issueVaultToken(input: $input) {
          token
          token_id: tokenId
          audience
          scopes
          subject
          issued_at: issuedAt
          expires_at: expiresAt
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'POST',
    path: '/ext/vault/verify',
    bucket: bucket('ext_vault_verify', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Verify a vault token',
    description:
      '`token` required; `audience` and `scope` optional (the token must then be for that audience and grant that scope). `valid` with the claims, or `valid: false` with `reason` (malformed, unknown_key, bad_signature, wrong_type, wrong_issuer, expired, revoked, wrong_audience, scope).',
    document: /* GraphQL */ `
      mutation VerifyVaultToken($input: VerifyVaultTokenInput!) {
        verifyVaultToken(input: $input) {
          valid
          reason
          claims
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'DELETE',
    path: '/ext/vault/tokens/:id',
    bucket: bucket('ext_vault_revoke', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Revoke a vault token',
    description: 'One of yours (another’s is 404): every later verification answers `revoked`. Revoking twice answers the first revocation.',
    errors: [404],
    document: /* GraphQL */ `
      mutation RevokeVaultToken($id: ID!) {
        revokeVaultToken(id: $id) {
          revoked
          token_id: tokenId
          revoked_at: revokedAt
        }
      }
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/ext/swarm/delegate',
    bucket: bucket('ext_swarm_delegate', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Hand a task or swarm step to an external agent',
    description:
      '`external_agent_id` required; `capability` (one it declares) and `input`, under `task_id` (a task you created or were delegated) or for `swarm_id` + `step` (one of your swarms: its capability and input by default). The request is POSTed to the instance as a signed event (`ext.delegation.requested`, retried until taken) and appears in its owner’s gateway events. The instance answers in its response (`{ "result": … }` or `{ "error": … }`), or later with `POST /ext/swarm/delegations/:id/answer`; the answer is recorded once as your execution `execution_id`.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation DelegateToExternal($input: DelegateToExternalInput!) {
        delegateToExternal(input: $input) {
          ...ExternalDelegationFields
        }
      }
      ${delegationFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/ext/swarm/delegations/:id',
    bucket: bucket('ext_delegation_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'A delegation to an external agent',
    description: 'One you made, or one made to your external agent; anyone else’s is 404.',
    errors: [404],
    document: /* GraphQL */ `
      query ExternalDelegation($id: ID!) {
        externalDelegation(id: $id) {
          ...ExternalDelegationFields
        }
      }
      ${delegationFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/ext/swarm/delegations/:id/answer',
    bucket: bucket('ext_delegation_answer', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Answer a delegation made to your external agent',
    description: '`result` (the answer) or `error` (why it failed), one of them. Recorded once as the delegating agent’s execution: a second answer is 409.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation AnswerDelegation($id: ID!, $input: AnswerDelegationInput!) {
        answerDelegation(id: $id, input: $input) {
          ...ExternalDelegationFields
        }
      }
      ${delegationFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'POST',
    path: '/ext/hub/convert',
    bucket: bucket('ext_hub_convert', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Convert a tool description between formats',
    description:
      '`from` and `to` (`mcp`, `openapi`, `a2a`, `skill_md`) and `tool` (an MCP tool, an OpenAPI operation, an A2A skill, or the SKILL.md text) required. Any pair converts, keeping the name, description and input schema: A2A skills carry the schema in `inputSchema` beside the standard fields, SKILL.md in `metadata.input_schema` (and a name that is not an Agent Skills name in `metadata.tool_name`).',
    document: /* GraphQL */ `
      mutation ConvertTool($input: ConvertToolInput!) {
        convertTool(input: $input) {
          converted
          from
          to
          tool
          name
          description
          input_schema: inputSchema
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'POST',
    path: '/ext/hub/import',
    bucket: bucket('ext_hub_import', 60),
    auth: 'agent',
    status: 201,
    tag: 'Gateway',
    summary: 'Import a tool description as a skill or a service',
    description:
      '`format` and `tool` required. `as: skill` (the default): a draft skill of yours (`runtime` default nodejs, `entrypoint` default index.js), its instructions carrying the input schema. `as: service`: a service of yours at `endpoint` (HTTPS) offering the tool’s name as its capability, at `cost_per_call` (default free); its `signing_secret` is shown only here.',
    errors: [409],
    document: /* GraphQL */ `
      mutation ImportTool($input: ImportToolInput!) {
        importTool(input: $input) {
          imported
          kind
          id
          name
          service_key: serviceKey
          signing_secret: signingSecret
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/ext/reputation/passport/:agentId',
    bucket: bucket('ext_passport', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: "An agent's signed reputation passport",
    description:
      '`passport` (agent id and name, reputation, tier, status, executions, its record as a provider, disputes filed and against it, issued and expiry times — 24 hours — and issuer) and `signature`: a compact JWS (EdDSA, `typ: passport+jwt`) whose `passport` claim is exactly the passport, by the key its `kid` names in /.well-known/jwks.json. 404 for an unknown agent.',
    errors: [404],
    document: /* GraphQL */ `
      query ReputationPassport($agentId: ID!) {
        reputationPassport(agentId: $agentId) {
          passport
          signature
        }
      }
    `,
    variables: { agentId: from.path('agentId') },
  },
  {
    method: 'POST',
    path: '/ext/reputation/verify',
    bucket: bucket('ext_passport_verify', 60),
    auth: 'none',
    status: 200,
    tag: 'Gateway',
    summary: 'Verify a reputation passport',
    description:
      '`signature` (the JWS) required; `passport` optional (it must then be the one signed). `valid` with the claims, or `valid: false` with `reason` (malformed, unknown_key, bad_signature, wrong_type, wrong_issuer, expired, mismatch).',
    document: /* GraphQL */ `
      mutation VerifyPassport($input: VerifyPassportInput!) {
        verifyPassport(input: $input) {
          valid
          reason
          claims
        }
      }
    `,
    variables: { input: from.body },
  },
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
  {
    method: 'POST',
    path: '/ext/radio/subscribe',
    bucket: bucket('ext_radio_subscribe', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Follow radio channels',
    description:
      '`channels` required (up to 50 in all): a `social-…` or `radio-…` capability (its executions), `social-*` or `radio-*` (every such capability), `announcements`, or `*` (everything). Added to what you follow; with `replace: true` they become all you follow (an empty list: none). Announcements reach every listener whatever it follows. `subscribed` says whether you follow any channel; `channels` lists them all. An open stream keeps the channels it opened with: reconnect (with Last-Event-ID) to apply a change.',
    document: /* GraphQL */ `
      mutation SubscribeRadio($input: SubscribeRadioInput!) {
        subscribeRadio(input: $input) {
          subscribed
          channels
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/ext/radio/subscriptions',
    bucket: bucket('ext_radio_subscriptions', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'The radio channels you follow',
    document: /* GraphQL */ `
      query RadioChannels {
        radioChannels {
          subscribed
          channels
        }
      }
    `,
  },
  {
    method: 'GET',
    path: '/ext/radio/stream',
    bucket: bucket('ext_radio_stream', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'The radio as Server-Sent Events',
    description:
      "Runs `Subscription.radioEvents`: one message per broadcast on the channels you follow, and every announcement (`event:` `execution` or `announcement`, `id:` its number in the radio's stream). Executions of `social-*` and `radio-*` capabilities are broadcast by the transaction that records them (`data`: execution_id, capability, agent_id, service_id, status, result on success, latency_ms); announcements by the administrator (`POST /admin/radio/announcements`). `Last-Event-ID` replays the broadcasts after it first (kept 7 days). At most STREAMS_PER_AGENT open streams per agent (429 beyond).",
    errors: [429],
    document: /* GraphQL */ `
      subscription RadioEvents($after: Int) {
        radioEvents(after: $after) {
          ...RadioEventFields
        }
      }
      ${radioEventFields}
    `,
    variables: { after: from.header('Last-Event-ID', 'Resume after this broadcast number') },
  },
];
