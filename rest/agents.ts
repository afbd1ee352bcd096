// REST routes of the agents area (spec §4.1).
import { rateLimitFields } from './keys';
import { bucket, from, type Route } from './route';

/** The profile shape of GET /agents/me and PATCH /agents/me. */
const agentProfile = /* GraphQL */ `
  fragment AgentProfile on Agent {
    agent_id: agentId
    agent_key: agentKey
    name
    description
    reputation_score: reputation
    tier
    status
    autonomy_level: autonomyLevel
    capabilities
    authorityScope
    parent_id: parentId
    created_at: createdAt
    updated_at: updatedAt
  }
`;

/** An agent's public record, on REST and to MCP's getReputation. */
export const agentReputation = /* GraphQL */ `
  fragment AgentReputationFields on AgentReputation {
    agent_id: agentId
    name
    reputation
    tier
    trust_score: trustScore
    calls
    successes
    success_rate: successRate
    disputes
    disputes_lost: disputesLost
    disputes_open: disputesOpen
    reputation_events_30d: reputationEvents30d
    reputation_net_30d: reputationNet30d
  }
`;

export const agentRoutes: Route[] = [
  {
    method: 'POST',
    path: '/agents/register',
    bucket: bucket('agents_register', 30),
    auth: 'none',
    status: 201,
    issuesCredential: true,
    tag: 'Agents',
    summary: 'Register an agent',
    description: 'Creates an agent and returns its master key. The master key is shown only in this response and stored only as a hash.',
    errors: [409],
    document: /* GraphQL */ `
      mutation RegisterAgent($input: RegisterAgentInput!) {
        registerAgent(input: $input) {
          agent_id: agentId
          agent_key: agentKey
          master_key: masterKey
          name
          reputation
          tier
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/agents/me',
    bucket: bucket('agents_me_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Agents',
    summary: "The calling agent's profile",
    description:
      "`status` is the status the administrator gave the agent (ACTIVE until one is given). Only an agent whose status in force is ACTIVE is answered: a suspended or banned one, by its own status or an ancestor's, gets 403 as on every B endpoint, so here it reads ACTIVE.",
    document: /* GraphQL */ `
      query Me {
        me {
          ...AgentProfile
        }
      }
      ${agentProfile}
    `,
  },
  {
    method: 'GET',
    path: '/agents/:agentId/reputation',
    bucket: bucket('agent_reputation', 60),
    auth: 'none',
    status: 200,
    tag: 'Agents',
    summary: "Any agent's public reputation record",
    description:
      'Reputation, tier, and the trust score built from how its services answered and the disputes against it (the same figure as the `trust-score` capability). 404 for an unknown agent.',
    errors: [404],
    document: /* GraphQL */ `
      query AgentReputation($agentId: ID!) {
        agentReputation(agentId: $agentId) {
          ...AgentReputationFields
        }
      }
      ${agentReputation}
    `,
    variables: { agentId: from.path('agentId') },
  },
  {
    method: 'PATCH',
    path: '/agents/me',
    bucket: bucket('agents_me_update', 60),
    auth: 'agent',
    status: 200,
    tag: 'Agents',
    summary: "Update the calling agent's profile",
    description: 'Any of `name`, `description`, `capabilities`; publishes an `agent.updated` event.',
    errors: [409],
    document: /* GraphQL */ `
      mutation UpdateMe($input: UpdateMeInput!) {
        updateMe(input: $input) {
          ...AgentProfile
        }
      }
      ${agentProfile}
    `,
    variables: { input: from.body },
  },
];

const page = { first: from.query('limit', 'Items to return, 1-100 (default 20)'), offset: from.query('offset', 'Items to skip (default 0)') };

/** The caller's own records: each under /agents/me/… and its /my/… alias. */
export const accountRoutes: Route[] = [
  {
    method: 'POST',
    path: '/agents/:id/sub-agents',
    bucket: bucket('sub_agents_create', 30),
    auth: 'agent',
    status: 201,
    tag: 'Agents',
    summary: 'Create a sub-agent',
    description:
      "The caller must be the agent `:id` or one of its ancestors. The sub-agent gets its own master key (shown once); its autonomy may not exceed its parent's and its `authorityScope` must lie inside the parent's.",
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation CreateSubAgent($parentId: ID!, $input: CreateSubAgentInput!) {
        createSubAgent(parentId: $parentId, input: $input) {
          id: agentId
          agent_id: agentId
          name
          autonomyLevel
          authorityScope
          parent_id: parentId
          reputation
          tier
          agent_key: agentKey
          master_key: masterKey
        }
      }
    `,
    variables: { parentId: from.path('id'), input: from.body },
  },
  {
    method: 'GET',
    path: ['/agents/me/usage', '/my/usage'],
    bucket: bucket('my_usage', 60),
    auth: 'agent',
    status: 200,
    tag: 'Account',
    summary: 'API usage per endpoint over the last 30 days',
    document: /* GraphQL */ `
      query MyUsage {
        myUsage {
          days
          total_requests: totalRequests
          total_executions: totalExecutions
          endpoints {
            endpoint
            requests
          }
          by_day: byDay {
            day
            requests
          }
        }
      }
    `,
  },
  {
    method: 'GET',
    path: ['/agents/me/keys', '/my/keys'],
    bucket: bucket('my_keys', 60),
    auth: 'agent',
    status: 200,
    tag: 'Account',
    summary: "The caller's sub-keys with status and expiry (never their secrets)",
    document: /* GraphQL */ `
      query MyKeys($first: Int, $offset: Int) {
        myKeys(first: $first, offset: $offset) {
          total: totalCount
          keys: nodes {
            sub_key_id: subKeyId
            hint
            service: serviceKey
            service_name: serviceName
            permissions
            rate_limits: rateLimits {
              ...RateLimitFields
            }
            status
            expires_at: expiresAt
            grace_period_ends: gracePeriodEnds
            revoked_at: revokedAt
            created_at: createdAt
          }
        }
      }
      ${rateLimitFields}
    `,
    variables: page,
  },
  {
    method: 'GET',
    path: ['/agents/me/transactions', '/my/transactions'],
    bucket: bucket('my_transactions', 60),
    auth: 'agent',
    status: 200,
    tag: 'Account',
    summary: "The caller's transactions, newest first",
    document: /* GraphQL */ `
      query MyTransactions($first: Int, $offset: Int) {
        myTransactions(first: $first, offset: $offset) {
          total: totalCount
          transactions: nodes {
            transaction_id: transactionId
            kind
            amount_cents: amountCents
            execution_id: executionId
            service_id: serviceId
            latency_ms: latencyMs
            created_at: createdAt
          }
        }
      }
    `,
    variables: page,
  },
  {
    method: 'GET',
    path: ['/agents/me/analytics', '/my/analytics'],
    bucket: bucket('my_analytics', 60),
    auth: 'agent',
    status: 200,
    tag: 'Account',
    summary: 'Execution trends, top capabilities, cost breakdown and performance over 30 days',
    document: /* GraphQL */ `
      query MyAnalytics {
        myAnalytics {
          days
          trends {
            day
            executions
            succeeded
            failed
            cost_cents: costCents
          }
          top_capabilities: topCapabilities {
            capability
            executions
            cost_cents: costCents
          }
          cost_breakdown: costBreakdown {
            capability
            executions
            cost_cents: costCents
          }
          total_cost_cents: totalCostCents
          performance {
            executions
            success_rate: successRate
            p50_ms: p50Ms
            p95_ms: p95Ms
            p99_ms: p99Ms
          }
        }
      }
    `,
  },
  {
    method: 'GET',
    path: ['/agents/me/disputes', '/my/disputes'],
    bucket: bucket('my_disputes', 60),
    auth: 'agent',
    status: 200,
    tag: 'Account',
    summary: "The caller's disputes with status and resolution",
    document: /* GraphQL */ `
      query MyDisputes($first: Int, $offset: Int) {
        myDisputes(first: $first, offset: $offset) {
          total: totalCount
          disputes: nodes {
            dispute_id: disputeId
            form
            type
            reason
            status
            priority_resolution: priorityResolution
            resolved
            resolution
            resolved_by: resolvedBy
            description
            service_id: serviceId
            transaction_id: transactionId
            created_at: createdAt
            resolved_at: resolvedAt
          }
        }
      }
    `,
    variables: page,
  },
  {
    method: 'GET',
    path: ['/agents/me/executions', '/my/executions'],
    bucket: bucket('my_executions', 60),
    auth: 'agent',
    status: 200,
    tag: 'Account',
    summary: "The caller's executions with results and costs",
    document: /* GraphQL */ `
      query MyExecutions($first: Int, $offset: Int) {
        myExecutions(first: $first, offset: $offset) {
          total: totalCount
          executions: nodes {
            execution_id: executionId
            capability
            status
            result
            error
            service_id: serviceId
            cost_cents: costCents
            latency_ms: latencyMs
            created_at: createdAt
          }
        }
      }
    `,
    variables: page,
  },
  {
    method: 'GET',
    path: '/my/reputation',
    bucket: bucket('my_reputation', 60),
    auth: 'agent',
    status: 200,
    tag: 'Account',
    summary: 'Reputation score, tier and the events that moved it',
    document: /* GraphQL */ `
      query MyReputation($first: Int, $offset: Int) {
        myReputation(first: $first, offset: $offset) {
          reputation
          tier
          total: totalCount
          events: nodes {
            event_id: eventId
            delta
            score_after: scoreAfter
            reason
            source_type: sourceType
            source_id: sourceId
            created_at: createdAt
          }
        }
      }
    `,
    variables: { first: from.query('limit', 'Events to return, 1-100 (default 50)'), offset: from.query('offset') },
  },
  {
    method: 'GET',
    path: '/my/audit-log',
    bucket: bucket('my_audit_log', 60),
    auth: 'agent',
    status: 200,
    tag: 'Account',
    summary: 'Security-relevant acts on the account',
    document: /* GraphQL */ `
      query MyAuditLog($first: Int, $offset: Int) {
        myAuditLog(first: $first, offset: $offset) {
          total: totalCount
          events: nodes {
            event_id: eventId
            action
            actor_kind: actorKind
            actor_id: actorId
            target_type: targetType
            target_id: targetId
            details
            ip_address: ipAddress
            created_at: createdAt
          }
        }
      }
    `,
    variables: page,
  },
  {
    method: 'GET',
    path: '/my/sparks',
    bucket: bucket('my_sparks', 60),
    auth: 'agent',
    status: 200,
    tag: 'Account',
    summary: "The caller's sparks",
    document: /* GraphQL */ `
      query MySparks($first: Int, $offset: Int) {
        mySparks(first: $first, offset: $offset) {
          total: totalCount
          sparks: nodes {
            id: sparkId
            title
            content
            spark_type: sparkType
            quality_score: qualityScore
            task_id: taskId
            agent_id: agentId
            created_at: createdAt
          }
        }
      }
    `,
    variables: page,
  },
];
