// REST routes of the registry: services, capabilities, statistics, showcase, tiers (spec §4.2).
import { providerMatch, serviceQualityFields } from './discovery';
import { bucket, from, type Route } from './route';

export const subKeyPolicyFields = /* GraphQL */ `
  fragment SubKeyPolicyFields on SubKeyPolicy {
    permissions
    max_requests_per_minute: maxRequestsPerMinute
    max_requests_per_day: maxRequestsPerDay
    set_by_owner: setByOwner
  }
`;

export const serviceFields = /* GraphQL */ `
  fragment ServiceListing on Service {
    service_id: serviceId
    service_key: serviceKey
    name
    description
    endpoint
    capabilities
    languages
    pricing_model: pricingModel
    pricing_details: pricingDetails
    costPerCall
    capability_prices: capabilityPrices
    status
    health_url: healthUrl
    health
    last_failure_reason: lastFailureReason
    quality {
      ...ServiceQualityFields
    }
    reputation
    provider {
      agent_id: agentId
      name
    }
    stats {
      success_rate: successRate
      total_calls: totalCalls
      latency_p50_ms: latencyP50Ms
      latency_p95_ms: latencyP95Ms
      last_success_at: lastSuccessAt
    }
    sub_key_policy: subKeyPolicy {
      ...SubKeyPolicyFields
    }
    created_at: createdAt
  }
  ${subKeyPolicyFields}
  ${serviceQualityFields}
`;

export const capabilitySummary = /* GraphQL */ `
  fragment CapabilitySummaryFields on CapabilitySummary {
    slug
    name
    category
    parent
    description
    builtin
    providers
    min_price_cents: minPriceCents
    max_price_cents: maxPriceCents
    best_reputation: bestReputation
  }
`;

/** The marketplace's totals, on REST and to MCP's getMarketplaceStats. */
export const publicStats = /* GraphQL */ `
  fragment PublicStatsFields on PublicStats {
    total_agents: totalAgents
    total_services: totalServices
    total_capabilities: totalCapabilities
    total_transactions: totalTransactions
    total_transactions_30d: totalTransactions30d
  }
`;

export const serviceRoutes: Route[] = [
  {
    method: 'POST',
    path: '/services/register',
    bucket: bucket('services_register', 30),
    auth: 'agent',
    status: 201,
    tag: 'Services',
    summary: 'Register a service',
    description:
      'The endpoint must be https. The `signing_secret` (Standard Webhooks, `whsec_…`) is shown only here: the marketplace signs its calls to the endpoint with it. `sub_key_policy` (`permissions`, `max_requests_per_minute`, `max_requests_per_day`) says what sub-keys of the service may hold; without it the owner has set none (`set_by_owner` false) and the default applies: read and write, at most 60 requests a minute. `health_url` (https) is where the marketplace probes the service while it gets no calls (a GET answered 2xx passes); without it the endpoint is probed, and any answer under 500 passes.',
    document: /* GraphQL */ `
      mutation RegisterService($input: RegisterServiceInput!) {
        registerService(input: $input) {
          service_id: serviceId
          service_key: serviceKey
          status
          signing_secret: signingSecret
          name
          endpoint
          capabilities
          pricing_model: pricingModel
          costPerCall
          sub_key_policy: subKeyPolicy {
            ...SubKeyPolicyFields
          }
          created_at: createdAt
        }
      }
      ${subKeyPolicyFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/services',
    bucket: bucket('services_list', 60),
    auth: 'none',
    status: 200,
    tag: 'Services',
    summary: 'Active services, newest first',
    document: /* GraphQL */ `
      query Services($first: Int, $offset: Int, $capability: String, $minReputation: Int) {
        services(first: $first, offset: $offset, capability: $capability, minReputation: $minReputation) {
          total: totalCount
          services: nodes {
            ...ServiceListing
          }
        }
      }
      ${serviceFields}
    `,
    variables: {
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
      capability: from.query('capability', 'Only services offering this capability'),
      minReputation: from.query('min_reputation', 'Only providers with at least this reputation (0-100)'),
    },
  },
  {
    method: 'GET',
    path: '/services/:serviceKey',
    bucket: bucket('services_get', 60),
    auth: 'none',
    status: 200,
    tag: 'Services',
    summary: 'An active service by its key',
    errors: [404],
    document: /* GraphQL */ `
      query Service($serviceKey: String!) {
        service(serviceKey: $serviceKey) {
          ...ServiceListing
        }
      }
      ${serviceFields}
    `,
    variables: { serviceKey: from.path('serviceKey') },
  },
  {
    method: 'GET',
    path: '/services/:serviceKey/quality',
    bucket: bucket('services_quality', 60),
    auth: 'none',
    status: 200,
    tag: 'Services',
    summary: 'What the marketplace measured of a service, day by day',
    description:
      "The service's health, the quality it publishes (the last 30 days: calls behind the figures, success rate, latency percentiles, uptime over 24 hours, 7 and 30 days) and the same days one by one, for a chart. Uptime is the share of observed five-minute slots in which a call succeeded or a health probe passed.",
    errors: [404],
    document: /* GraphQL */ `
      query ServiceQuality($serviceKey: String!) {
        service(serviceKey: $serviceKey) {
          service_id: serviceId
          service_key: serviceKey
          health
          last_failure_reason: lastFailureReason
          quality {
            ...ServiceQualityFields
          }
          days: qualityDays {
            day
            successes
            failures
            excused
            probes_passed: probesPassed
            probes_failed: probesFailed
            latency_p50_ms: latencyP50Ms
            latency_p95_ms: latencyP95Ms
            uptime
          }
        }
      }
      ${serviceQualityFields}
    `,
    variables: { serviceKey: from.path('serviceKey') },
  },
  {
    method: 'PATCH',
    path: '/services/:serviceKey',
    bucket: bucket('services_update', 30),
    auth: 'agent',
    status: 200,
    tag: 'Services',
    summary: 'Change a service',
    description:
      "The owner alone, paused or not (another agent's service, and a removed one, answers 404). `name`, `description`, `endpoint`, `health_url`, `capabilities`, `languages`, `pricing_model`, `pricing_details`, `cost_per_call`: each given replaces the service's, with the rules of registration; left out keeps its value; null restores an optional field's default (no languages, no details, a price of 0). Prices set per capability go with the capabilities left out. The next `resolve` and `execute`, on every instance, see the change. `sub_key_policy`: each field given replaces the policy's, each left out keeps its value, null restores its default (read and write; 60 a minute; no daily maximum), and `sub_key_policy: null` takes the policy back to none set. Provisioning then refuses (403) a permission the policy does not list and lowers a rate above a maximum to it, for the owner's own keys too; keys provisioned before keep what they were given until rotated, when the new key gets what the policy then allows.",
    errors: [404],
    document: /* GraphQL */ `
      mutation UpdateService($serviceKey: String!, $input: UpdateServiceInput!) {
        updateService(serviceKey: $serviceKey, input: $input) {
          ...ServiceListing
        }
      }
      ${serviceFields}
    `,
    variables: { serviceKey: from.path('serviceKey'), input: from.body },
  },
  {
    method: 'GET',
    path: '/capabilities',
    bucket: bucket('capabilities', 60),
    auth: 'none',
    status: 200,
    tag: 'Capabilities',
    summary: 'The capability catalog and its hierarchy',
    description:
      'Every capability with how many active services offer it. `marketplace` says how the marketplace itself serves it (null when only registered services do): `kind` own (its own systems: it always answers) or generic (the provider of last resort), whether this instance can (`available`), and the JSON Schemas of its `input` and `result`.',
    document: /* GraphQL */ `
      query Capabilities {
        capabilities {
          total
          capabilities {
            name
            slug
            group
            parent
            description
            builtin
            service_count: serviceCount
            marketplace {
              kind
              summary
              available
              unavailable_because: unavailableBecause
              input_schema: inputSchema
              output_schema: outputSchema
            }
          }
          hierarchy {
            group
            name
            capabilities
          }
        }
      }
    `,
  },
  {
    method: 'GET',
    path: '/capabilities/search',
    bucket: bucket('capabilities_search', 60),
    auth: 'none',
    status: 200,
    tag: 'Capabilities',
    summary: 'Search the capability catalog',
    description:
      'Every word of `q` must appear in the identifier, name or description (any case). Each capability says how many active providers offer it and their price range and best reputation; given `language`, `min_reputation` or `max_price_per_call`, those count only the providers that meet them and capabilities none meets are left out. Best match first: the exact identifier, identifiers starting with the first word, then the most providers.',
    document: /* GraphQL */ `
      query SearchCapabilities(
        $query: String
        $category: String
        $language: String
        $minReputation: Float
        $maxPricePerCall: Float
        $first: Int
        $offset: Int
      ) {
        searchCapabilities(
          query: $query
          category: $category
          language: $language
          minReputation: $minReputation
          maxPricePerCall: $maxPricePerCall
          first: $first
          offset: $offset
        ) {
          total: totalCount
          capabilities: nodes {
            ...CapabilitySummaryFields
          }
        }
      }
      ${capabilitySummary}
    `,
    variables: {
      query: from.query('q', 'Words to find'),
      category: from.query('category', 'A catalog group'),
      language: from.query('language', 'Only providers serving this language'),
      minReputation: from.query('min_reputation', 'Only providers with at least this reputation (0-100)'),
      maxPricePerCall: from.query('max_price_per_call', 'Only providers charging at most this many cents per call'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/capabilities/:slug',
    bucket: bucket('capability_get', 60),
    auth: 'none',
    status: 200,
    tag: 'Capabilities',
    summary: 'One capability and what its providers offer',
    errors: [404],
    document: /* GraphQL */ `
      query Capability($slug: String!) {
        capability(slug: $slug) {
          ...CapabilitySummaryFields
        }
      }
      ${capabilitySummary}
    `,
    variables: { slug: from.path('slug') },
  },
  {
    method: 'GET',
    path: '/capabilities/:slug/providers',
    bucket: bucket('capability_providers', 60),
    auth: 'none',
    cacheable: true,
    status: 200,
    tag: 'Capabilities',
    summary: 'The providers of a capability, ranked',
    description: "Ranked as `POST /resolve` ranks them, without a credential: for browsing. Resolve (with the caller's limits) and execute need a key.",
    document: /* GraphQL */ `
      query Providers($capability: String!, $prefer: Prefer, $limit: Int) {
        providers(capability: $capability, prefer: $prefer, limit: $limit) {
          matches {
            ...ProviderMatchFields
          }
          total
        }
      }
      ${providerMatch}
    `,
    variables: {
      capability: from.path('slug'),
      prefer: from.query('prefer', 'reputation, cost, latency or balanced (default)'),
      limit: from.query('limit', '1-100, default 10'),
    },
  },
  {
    method: 'GET',
    path: '/stats',
    bucket: bucket('stats', 60),
    auth: 'none',
    status: 200,
    tag: 'Statistics',
    summary: 'Marketplace totals',
    document: /* GraphQL */ `
      query Stats {
        stats {
          ...PublicStatsFields
        }
      }
      ${publicStats}
    `,
  },
  {
    method: 'GET',
    path: '/showcase',
    bucket: null,
    auth: 'none',
    status: 200,
    tag: 'Statistics',
    summary: 'Stats, recent executions and top services',
    description:
      '`top_services` is the first ten of the showcase listing, a Star privilege: services of Star providers (reputation 86 and above), best provider reputation first, then most successes (all of it, paged: `GET /showcase/services`). `recent_executions`: the ten latest calls, without their inputs or results.',
    document: /* GraphQL */ `
      query Showcase {
        showcase {
          stats {
            total_agents: totalAgents
            total_services: totalServices
            total_capabilities: totalCapabilities
            total_transactions: totalTransactions
            total_transactions_30d: totalTransactions30d
          }
          recent_executions: recentExecutions {
            execution_id: executionId
            capability
            status
            latency_ms: latencyMs
            service_name: serviceName
            created_at: createdAt
          }
          top_services: topServices {
            service_id: serviceId
            service_key: serviceKey
            name
            capabilities
            reputation
            successes
            provider_name: providerName
          }
        }
      }
    `,
  },
  {
    method: 'GET',
    path: '/tiers',
    bucket: null,
    auth: 'none',
    status: 200,
    tag: 'Statistics',
    summary: 'Reputation tiers, their ranges and privileges',
    document: /* GraphQL */ `
      query Tiers {
        tiers {
          tier
          name
          min_score: minScore
          max_score: maxScore
          sub_key_limit: subKeyLimit
          privileges
        }
      }
    `,
  },
];
