// REST routes of discovery (spec §4.2).
import { bucket, from, type Route } from './route';

/** The quality the marketplace measured of a service, wherever a service or a ranked provider is listed. */
export const serviceQualityFields = /* GraphQL */ `
  fragment ServiceQualityFields on ServiceQuality {
    window_days: windowDays
    calls
    successes
    failures
    excused
    success_rate: successRate
    latency_p50_ms: latencyP50Ms
    latency_p95_ms: latencyP95Ms
    uptime_24h: uptime24h
    uptime_7d: uptime7d
    uptime_30d: uptime30d
    probes
    low_sample: lowSample
    computed_at: computedAt
  }
`;

/** A ranked provider as resolve, browsing and MCP's browseProviders answer it. */
export const providerMatch = /* GraphQL */ `
  fragment ProviderMatchFields on ProviderMatch {
    service_id: serviceId
    name
    service_key: serviceKey
    score
    reputation
    capabilities
    description
    costPerCall: costCents
    pricing_model: pricingModel
    success_rate: successRate
    latency_p50_ms: latencyP50Ms
    provider_agent_id: providerId
    provider_name: providerName
    first_party: firstParty
    score_breakdown: scoreBreakdown {
      reputation
      cost
      reliability
      latency
      freshness
    }
    health
    last_failure_reason: lastFailureReason
    quality {
      ...ServiceQualityFields
    }
  }
  ${serviceQualityFields}
`;

export const discoveryRoutes: Route[] = [
  {
    method: 'POST',
    path: '/resolve',
    bucket: bucket('resolve', 30),
    auth: 'agent',
    cacheable: true,
    status: 200,
    tag: 'Discovery',
    summary: 'Rank the providers of a capability',
    description:
      "Score 0-100 from reputation, cost, reliability, latency and freshness, weighted by `prefer`; `score_breakdown` gives each factor's contribution. `min_reputation`, `max_cost` (cents) and `language` are accepted flat or inside `constraints` (flat wins). A service that declares languages must include the requested one. With a limit, `total` is counted over at most 200 of the capability’s offers, a random sample when it has more: then it is the estimate their share gives, and `total_is_estimate` is true. The same query asked again within a moment (`READ_CACHE_MS`, 2 s) is answered as it was then, `resolution_time_ms` included. The marketplace itself (`service_key: marketplace`, `first_party: true`, no score) is listed alone for the capabilities of its own systems (ticketing, security, radio, books), and after the ranked providers for a web or nlp capability it can serve on this instance (`total` counts it).",
    document: /* GraphQL */ `
      query Resolve($input: ResolveInput!) {
        resolve(input: $input) {
          matches {
            ...ProviderMatchFields
          }
          total
          total_is_estimate: totalIsEstimate
          resolution_time_ms: resolutionTimeMs
          query {
            capability
            prefer
            min_reputation: minReputation
            max_cost: maxCost
            language
            limit
          }
        }
      }
      ${providerMatch}
    `,
    variables: {
      input: from.body,
    },
  },
  {
    method: 'GET',
    path: '/resolve/quick',
    bucket: bucket('resolve_quick', 30),
    auth: 'agent',
    cacheable: true,
    status: 200,
    tag: 'Discovery',
    summary: 'The single best provider of a capability',
    description:
      'Needs a bearer key (the spec lists it both ways; we chose the safer). The marketplace itself when it is the only provider (`service_key: marketplace`, `service_id` and `match_score` null). 404 when nobody offers the capability; 503 `capability_unavailable` when only the marketplace could and this instance lacks what it needs.',
    errors: [404, 503],
    document: /* GraphQL */ `
      query QuickResolve($capability: String!, $prefer: Prefer) {
        quickResolve(capability: $capability, prefer: $prefer) {
          service_id: serviceId
          name
          match_score: score
          service_key: serviceKey
          reputation
          costPerCall: costCents
          first_party: firstParty
          score_breakdown: scoreBreakdown {
            reputation
            cost
            reliability
            latency
            freshness
          }
        }
      }
    `,
    variables: { capability: from.query('capability', 'The capability to resolve'), prefer: from.query('prefer', 'reputation, cost, latency or balanced') },
  },
];
