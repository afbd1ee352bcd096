// The MCP tools: first the eight of the spec's tool manifest (§4.14) with exactly its names and inputs,
// then the main operations of every area as projections of their REST routes. Data, not handlers
// (tools.ts runs them). The WebMCP manifest lists the first eight. Each names its toolset (toolsets.ts):
// the default one's 25 tools (with the support-ticket capability tool) are what /mcp serves.
import { agentReputation } from '../rest/agents';
import { providerMatch } from '../rest/discovery';
import { executionAnswer, executionReceipt } from '../rest/execution';
import { bucket } from '../rest/route';
import { capabilitySummary, publicStats, serviceFields } from '../rest/services';
import { sparkFields } from '../rest/tasks';
import type { ToolSpec } from './tools';
import { DEFAULT_TOOLSET } from './toolsets';

const instructions = /* GraphQL */ `
  fragment InstructionsFields on Instructions {
    message
    authentication_required: authenticationRequired
    graphql_url: graphqlUrl
    documentation_url: documentationUrl
    steps {
      title
      method
      url
      headers
      body
      graphql {
        query
        variables
      }
    }
  }
`;

export const manifestTools: ToolSpec[] = [
  {
    name: 'searchCapabilities',
    category: 'discovery',
    title: 'Search capabilities',
    manifest: true,
    toolset: DEFAULT_TOOLSET,
    bucket: bucket('capabilities_search', 60),
    description:
      'Search the capability catalog by words; each capability says how many providers offer it, at what prices and with what best reputation (limits narrow those to the providers that meet them)',
    document: /* GraphQL */ `
      query SearchCapabilitiesTool($query: String!, $category: String, $language: String, $minReputation: Float, $maxPricePerCall: Float) {
        searchCapabilities(
          query: $query
          category: $category
          language: $language
          minReputation: $minReputation
          maxPricePerCall: $maxPricePerCall
          first: 20
        ) {
          total: totalCount
          capabilities: nodes {
            ...CapabilitySummaryFields
          }
        }
      }
      ${capabilitySummary}
    `,
  },
  {
    name: 'getCapabilityDetails',
    category: 'discovery',
    title: 'Service details',
    manifest: true,
    toolset: DEFAULT_TOOLSET,
    bucket: bucket('services_get', 60),
    description: 'Everything about one service by its key: the capabilities it offers, its price, its provider and its record',
    document: /* GraphQL */ `
      query GetCapabilityDetails($serviceKey: String!) {
        service(serviceKey: $serviceKey) {
          ...ServiceListing
        }
      }
      ${serviceFields}
    `,
  },
  {
    name: 'browseProviders',
    category: 'discovery',
    title: 'Browse providers',
    manifest: true,
    toolset: DEFAULT_TOOLSET,
    bucket: bucket('capability_providers', 60),
    document: /* GraphQL */ `
      query BrowseProviders($capability: String!, $prefer: Prefer) {
        providers(capability: $capability, prefer: $prefer) {
          matches {
            ...ProviderMatchFields
          }
          total
        }
      }
      ${providerMatch}
    `,
  },
  {
    name: 'executeCapability',
    category: 'execution',
    title: 'Execute a capability',
    manifest: true,
    toolset: DEFAULT_TOOLSET,
    auth: 'agent',
    bucket: bucket('execute', 100),
    description:
      'Execute a capability for the calling agent: the best-ranked provider is called, with fallback to the next (up to 3), and the call is recorded. Without a key it answers how to get one and make the call (authentication is required). A paid call the wallet does not cover answers the x402 requirements; pay them in `_meta["x402/payment"]` (x402 MCP transport)',
    document: /* GraphQL */ `
      mutation ExecuteCapability($capability: String!, $input: JSON = {}, $payment: String) {
        execute(input: { capability: $capability, input: $input }, payment: $payment) {
          ...ExecutionReceiptFields
        }
      }
      ${executionReceipt}
    `,
    paymentVariable: 'payment',
    answer: executionAnswer,
    withoutKey: /* GraphQL */ `
      query ExecuteCapabilityInstructions($capability: String!, $input: JSON) {
        executionInstructions(capability: $capability, input: $input) {
          ...InstructionsFields
        }
      }
      ${instructions}
    `,
  },
  {
    name: 'registerAgent',
    category: 'agents',
    title: 'Register an agent',
    manifest: true,
    toolset: DEFAULT_TOOLSET,
    bucket: bucket('registration_instructions', 30),
    description:
      'How to register an agent and get its key, with the URL to call and the body filled in: registration is a call the agent makes itself, so that the key it returns is shown to it alone',
    document: /* GraphQL */ `
      query RegisterAgentInstructions($name: String!, $description: String, $capabilities: String) {
        registrationInstructions(name: $name, description: $description, capabilities: $capabilities) {
          ...InstructionsFields
        }
      }
      ${instructions}
    `,
  },
  {
    name: 'getReputation',
    category: 'reputation',
    title: "An agent's reputation",
    manifest: true,
    toolset: DEFAULT_TOOLSET,
    bucket: bucket('agent_reputation', 60),
    document: /* GraphQL */ `
      query GetReputation($agentId: ID!) {
        agentReputation(agentId: $agentId) {
          ...AgentReputationFields
        }
      }
      ${agentReputation}
    `,
  },
  {
    name: 'getMarketplaceStats',
    category: 'statistics',
    title: 'Marketplace statistics',
    manifest: true,
    toolset: DEFAULT_TOOLSET,
    bucket: bucket('stats', 60),
    description: 'Marketplace totals: agents, services, capabilities, transactions (all time and the last 30 days)',
    document: /* GraphQL */ `
      query GetMarketplaceStats {
        stats {
          ...PublicStatsFields
        }
      }
      ${publicStats}
    `,
  },
  {
    name: 'listSparks',
    category: 'sparks',
    title: 'List sparks',
    manifest: true,
    toolset: DEFAULT_TOOLSET,
    bucket: bucket('sparks', 60),
    refine: { limit: { minimum: 1, maximum: 50 } },
    document: /* GraphQL */ `
      query ListSparks($limit: Int, $agentId: ID) {
        sparks(first: $limit, agentId: $agentId) {
          total: totalCount
          sparks: nodes {
            ...SparkFields
          }
        }
      }
      ${sparkFields}
    `,
  },
];

/** A tool that is a REST route's operation, named as its GraphQL field. */
const op = (name: string, route: string, title: string, toolset: string): ToolSpec => ({ name, route, title, toolset });

export const areaTools: ToolSpec[] = [
  // Agents and keys
  op('me', 'GET /agents/me', "The calling agent's profile", DEFAULT_TOOLSET),
  op('updateMe', 'PATCH /agents/me', "Update the calling agent's profile", 'account'),
  op('createSubAgent', 'POST /agents/:id/sub-agents', 'Create a sub-agent', 'account'),
  op('myExecutions', 'GET /agents/me/executions', "The caller's executions", 'account'),
  op('myTransactions', 'GET /agents/me/transactions', "The caller's transactions", 'account'),
  op('provisionSubKey', 'POST /keys/provision/:serviceKey', 'Provision a sub-key for a service', DEFAULT_TOOLSET),
  op('myKeys', 'GET /agents/me/keys', "The caller's sub-keys", DEFAULT_TOOLSET),
  op('rotateSubKey', 'POST /keys/:keyId/rotate', 'Rotate a sub-key', 'keys'),
  op('revokeSubKey', 'DELETE /keys/:keyId', 'Revoke a sub-key', DEFAULT_TOOLSET),
  op('verifySubKey', 'POST /keys/verify', 'Verify a sub-key', 'keys'),
  op('wallet', 'GET /agents/:agentId/wallet', "An agent's wallet", DEFAULT_TOOLSET),
  op('createWallet', 'POST /agents/:agentId/wallet', "Create an agent's wallet", 'payments'),
  op('walletEntries', 'GET /agents/:agentId/wallet/entries', "An agent wallet's ledger", 'payments'),
  // Discovery, services, execution
  op('resolve', 'POST /resolve', 'Rank the providers of a capability', DEFAULT_TOOLSET),
  op('quickResolve', 'GET /resolve/quick', 'The best provider of a capability', 'discovery'),
  op('registerService', 'POST /services/register', 'Register a service', 'services'),
  op('updateService', 'PATCH /services/:serviceKey', 'Update a service: what it says of itself, its price, its sub-key policy', 'services'),
  op('pauseService', 'POST /services/:serviceKey/pause', 'Pause a service (until a time: beta, Trusted and above)', 'services'),
  op('resumeService', 'POST /services/:serviceKey/resume', 'Resume a paused service', 'services'),
  op('removeService', 'DELETE /services/:serviceKey', 'Remove a service for good', 'services'),
  op('myServices', 'GET /agents/me/services', "The caller's own services, paused ones included", 'services'),
  op('serviceAnalytics', 'GET /services/:serviceKey/analytics', "A service's calls by day and capability (beta: Trusted and above)", 'services'),
  op('showcaseServices', 'GET /showcase/services', "The showcase listing: Star providers' services", 'discovery'),
  op('services', 'GET /services', 'List services', 'discovery'),
  op('service', 'GET /services/:serviceKey', "A service's public record: its health and the quality the marketplace measured of it", 'discovery'),
  op(
    'serviceQuality',
    'GET /services/:serviceKey/quality',
    'What the marketplace measured of a service, day by day: calls, success, latency, uptime',
    'discovery',
  ),
  op('execute', 'POST /execute', 'Execute a capability (every option, an x402 payment included)', DEFAULT_TOOLSET),
  op('executionReceipt', 'GET /executions/:id/receipt', "An execution's signed receipt (a JWS any JOSE library verifies)", 'account'),
  // Payments
  op('x402Sandbox', 'GET /x402/sandbox/status', 'The x402 sandbox: network, asset, fee', 'payments'),
  op('sandboxFaucet', 'POST /x402/sandbox/faucet', 'Credit sandbox funds to a wallet', 'payments'),
  op('sandboxTestPayment', 'POST /x402/sandbox/test-payment', 'Make a sandbox x402 test payment', 'payments'),
  op('capabilityPricing', 'GET /capabilities/pricing', 'Paid capabilities and their price ranges', 'payments'),
  op('setCapabilityPricing', 'POST /capabilities/:capabilityId/pricing', "Set the caller's price for a capability", 'services'),
  op('acpOfferings', 'GET /acp/offerings', 'ACP offerings in the network token', 'payments'),
  op('acpPaymentTerms', 'GET /acp/offerings/:id/payment-terms', "An ACP offering's payment terms", 'payments'),
  op('grantMandate', 'POST /mandates', "Let a sub-agent pay for its calls from the caller's wallet, within caps per call, day and month", 'payments'),
  op('mandates', 'GET /mandates', 'The spend mandates the caller granted or holds, with their use today and this month', 'payments'),
  op('mandate', 'GET /mandates/:id', 'A spend mandate and its use: the counter its enforcement reads', 'payments'),
  op('updateMandate', 'PATCH /mandates/:id', "Change a spend mandate's caps, capabilities or expiry", 'payments'),
  op('revokeMandate', 'DELETE /mandates/:id', 'Revoke a spend mandate', 'payments'),
  // Disputes and tickets
  op('createDispute', 'POST /disputes', 'Dispute a transaction', 'disputes'),
  op('dispute', 'GET /disputes/:id', 'A dispute', 'disputes'),
  op('tickets', 'GET /tickets', "The caller's support tickets", 'tickets'),
  op('ticket', 'GET /tickets/:ticketKey', 'A support ticket', DEFAULT_TOOLSET),
  op('updateTicketStatus', 'PATCH /tickets/:ticketKey/status', "Move a ticket's status", 'tickets'),
  op('addTicketComment', 'POST /tickets/:ticketKey/comments', 'Comment on a ticket', 'tickets'),
  // Webhooks and subscriptions
  op('createWebhook', 'POST /webhooks', 'Register a webhook', 'subscriptions'),
  op('webhooks', 'GET /webhooks', "The caller's webhooks", 'subscriptions'),
  op('createSubscription', 'POST /subscriptions', 'Subscribe to a capability on a schedule', 'subscriptions'),
  op('subscriptions', 'GET /subscriptions', "The caller's subscriptions", 'subscriptions'),
  op('pauseSubscription', 'POST /subscriptions/:id/pause', 'Pause a subscription', 'subscriptions'),
  op('resumeSubscription', 'POST /subscriptions/:id/resume', 'Resume a subscription', 'subscriptions'),
  op('cancelSubscription', 'POST /subscriptions/:id/cancel', 'Cancel a subscription', 'subscriptions'),
  // Memory
  op('createMemoryStore', 'POST /memory/stores', 'Create a memory store', DEFAULT_TOOLSET),
  op('memoryStores', 'GET /memory/stores', "The caller's memory stores", 'memory'),
  op('writeMemoryEntries', 'PUT /memory/stores/:id/entries', 'Write memory entries', DEFAULT_TOOLSET),
  op('memoryEntry', 'GET /memory/stores/:id/entries/:key', 'Read a memory entry', 'memory'),
  op('memoryEntries', 'GET /memory/stores/:id/entries', 'List memory entries', 'memory'),
  op('searchMemory', 'POST /memory/stores/:id/search', 'Search a memory store', DEFAULT_TOOLSET),
  // Streaming
  op('createStreamingSession', 'POST /streaming/sessions', 'Open a streaming session', 'streaming'),
  op('pushStreamingEvents', 'POST /streaming/sessions/:id/push', 'Push events into a streaming session', 'streaming'),
  op('endStreamingSession', 'POST /streaming/sessions/:id/end', 'End a streaming session', 'streaming'),
  // Skills, tasks, sparks, swarms
  op('skillMarketplace', 'GET /agent-skills/marketplace', 'Browse the skills marketplace', DEFAULT_TOOLSET),
  op('createSkill', 'POST /agent-skills', 'Create a skill', 'skills'),
  op('publishSkill', 'POST /agent-skills/:id/publish', 'Publish a skill', 'skills'),
  op('installSkill', 'POST /agent-skills/:id/install', 'Install a skill', DEFAULT_TOOLSET),
  op('forkSkill', 'POST /agent-skills/:id/fork', 'Fork a skill', 'skills'),
  op('createTask', 'POST /tasks', 'Create a task', DEFAULT_TOOLSET),
  op('tasks', 'GET /tasks', "The caller's tasks", 'tasks'),
  op('task', 'GET /tasks/:id', 'A task', DEFAULT_TOOLSET),
  op('delegateTask', 'POST /tasks/:id/delegate', 'Delegate a task to a sub-agent', 'tasks'),
  op('executeTask', 'POST /tasks/:id/execute', 'Execute a delegated task', 'tasks'),
  op('publishSpark', 'POST /tasks/:id/publish-spark', 'Publish a spark from a task', DEFAULT_TOOLSET),
  op('createSwarmSession', 'POST /swarm/sessions', 'Start a swarm', 'swarm'),
  op('swarmSession', 'GET /swarm/sessions/:id', 'A swarm and its steps', 'swarm'),
  op('cancelSwarmSession', 'POST /swarm/sessions/:id/cancel', 'Cancel a swarm', 'swarm'),
  // Orchestration
  op('createUtoTicket', 'POST /uto/tickets', 'Open an orchestration ticket', 'uto'),
  op('utoTickets', 'GET /uto/tickets', "The caller's orchestration tickets", 'uto'),
  op('utoTicket', 'GET /uto/tickets/:id', 'An orchestration ticket', 'uto'),
  op('advanceUtoTicket', 'POST /uto/tickets/:id/advance', 'Move an orchestration ticket', 'uto'),
  op('registerUtoSpecialist', 'POST /uto/agents/register-specialist', 'Register as a specialist', 'uto'),
  op('utoSpecialists', 'GET /uto/agents/specialists', 'List specialists', 'uto'),
  op('subscribeUtoNotifications', 'POST /uto/notifications/subscribe', 'Subscribe to ticket events', 'uto'),
  op('utoNotificationEvents', 'GET /uto/notifications/:id/events', "Poll a subscription's ticket events", 'uto'),
  op('ammcAgents', 'GET /ammc/agents', 'Agents available to conglomerates', 'ammc'),
  op('createConglomerate', 'POST /ammc/conglomerates', 'Form a conglomerate', 'ammc'),
  op('conglomerate', 'GET /ammc/conglomerates/:id', 'A conglomerate', 'ammc'),
  op('advanceConglomerate', 'POST /ammc/conglomerates/:id/advance', 'Move a conglomerate', 'ammc'),
  op('ammcStats', 'GET /ammc/stats', 'Conglomerate performance', 'ammc'),
  // The third-party agent gateway
  op('registerExternalAgent', 'POST /ext/agents/register', 'Register an external agent', 'ext'),
  op('connectGateway', 'POST /ext/gateway/connect', 'Connect an external agent (check its agent card)', 'ext'),
  op('pollGatewayEvents', 'GET /ext/gateway/events', "Poll your external agents' events", 'ext'),
  op('registerExternalCapability', 'POST /ext/capabilities/register', 'Register a capability for the gateway search', 'ext'),
  op('searchGatewayCapabilities', 'GET /ext/capabilities/search', 'Search capabilities wherever they live', 'ext'),
  op('reputationPassport', 'GET /ext/reputation/passport/:agentId', "An agent's signed reputation passport", 'ext'),
  op('verifyPassport', 'POST /ext/reputation/verify', 'Verify a reputation passport', 'ext'),
  op('issueVaultToken', 'POST /ext/vault/token', 'Issue a scoped vault token', 'ext'),
  op('verifyVaultToken', 'POST /ext/vault/verify', 'Verify a vault token', 'ext'),
  op('delegateToExternal', 'POST /ext/swarm/delegate', 'Delegate to an external agent', 'ext'),
  op('convertTool', 'POST /ext/hub/convert', 'Convert a tool description between formats', 'ext'),
  op('importTool', 'POST /ext/hub/import', 'Import a tool description as a skill or service', 'ext'),
  op('createPaymentOffer', 'POST /ext/payments/offer', 'Offer something for a price', 'ext'),
  op('createCheckout', 'POST /ext/payments/checkout', 'Open a checkout of an offer', 'ext'),
  op('payCheckout', 'POST /ext/payments/checkout/:id', 'Pay a checkout with x402 (its requirements without a payment)', 'ext'),
  op('subscribeRadio', 'POST /ext/radio/subscribe', 'Follow radio channels', 'ext'),
  // The marketplace itself
  op('capabilities', 'GET /capabilities', 'The capability catalog', 'discovery'),
  op('health', 'GET /health', 'Service health', 'discovery'),
];

export const toolSpecs: ToolSpec[] = [...manifestTools, ...areaTools];
