// External agents (spec §4.13): registering one, its capabilities in the registry, connecting it and the events it polls.
import { bucket, from, type Route } from '../route';

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

export const gatewayRoutes: Route[] = [
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
];
