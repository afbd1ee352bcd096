/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type AdvanceUtoTicketInput = {
  /** Kept in the history (at most 500 characters) */
  note?: string | null | undefined;
  /** `submitted`, `validated`, `matched`, `in_progress`, `completed`, `failed`, `cancelled`, `expired` */
  targetState: string;
  /** `system`, `external`, `timer`: what the caller says triggered the move, kept in the history beside who made it (`by`) */
  triggeredBy: string;
};

export type AgentStatus =
  | 'ACTIVE'
  | 'BANNED'
  | 'SUSPENDED';

export type AutonomyLevel =
  | 'CREATE'
  | 'DELEGATE'
  | 'EXECUTE_ONLY'
  | 'GOVERN';

export type ComponentStatus =
  | 'degraded'
  | 'down'
  | 'ok';

/** Form A: serviceId, type, description, evidence. Form B: transactionId, reason, description, receipt. */
export type CreateDisputeInput = {
  /** Required in form A */
  description?: string | null | undefined;
  /** Form A: any JSON object (at most 64 KiB) */
  evidence?: unknown;
  /** Form B: provider_error, billing_error, service_failure or other */
  reason?: string | null | undefined;
  /** Form B: the disputed call's signed receipt (its execute answer's `signed_receipt`, or GET /executions/{id}/receipt): checked (400 when it is not one the marketplace signed, or is another execution's), kept as the dispute's evidence, and read by the pipeline, which refunds what the receipt proves the charge exceeded */
  receipt?: string | null | undefined;
  /** Form A: the service disputed */
  serviceId?: string | null | undefined;
  /** Form B: one of the caller's charges */
  transactionId?: string | null | undefined;
  /** Form A: billing, quality or availability */
  type?: string | null | undefined;
};

export type CreateMemoryStoreInput = {
  /** `private` (default), `shared` or `public` */
  accessLevel?: string | null | undefined;
  /** TTL of entries written without one */
  defaultTtlSeconds?: number | null | undefined;
  description?: string | null | undefined;
  /** Vector stores: embedding length, 1-2000 (else fixed by the first write) */
  dimensions?: number | null | undefined;
  /** Unique among the caller's stores, 1-100 characters */
  name: string;
  /** `kv`, `vector` or `structured` */
  storeType: string;
};

export type CreateSubAgentInput = {
  /** Capability prefixes the sub-agent may act on; inside the parent's scope */
  authorityScope: Array<string>;
  /** At most the parent agent's own level */
  autonomyLevel: AutonomyLevel;
  description: string;
  /** 3-50 characters, unique */
  name: string;
};

export type CreateSwarmSessionInput = {
  /** At most 2000 characters */
  goal: string;
  /** 1 to 20 steps */
  steps: Array<SwarmStepInput>;
  /** `sequential` or `parallel` */
  strategy: string;
};

export type CreateTaskInput = {
  /** Integer cents that calls under the task may cost in all (default: no limit) */
  budget?: number | null | undefined;
  /** In the future, within a year; past it the task expires */
  deadline?: string | null | undefined;
  /** What is to be done, at most 2000 characters */
  intent: string;
  /** At most 20; each judged against the result (see docs/collaboration.md) */
  successCriteria?: Array<string> | null | undefined;
};

export type CreateUtoTicketInput = {
  /** A JSON object (at most 64 KiB) */
  context: unknown;
  /** Past it, an open ticket expires (default 7 days; at most 90) */
  deadline?: string | null | undefined;
  /** Lower-case letters, digits and dashes: `defi`, `commerce`, `research`… */
  domain: string;
  /** At most 2000 characters */
  intent: string;
  /** US dollars, at most two decimals */
  maxBudgetUsd?: number | null | undefined;
  /** Capabilities the work needs (at most 20) */
  requiredCapabilities?: Array<string> | null | undefined;
};

export type ExecuteInput = {
  /** The capability identifier, such as "summarize" */
  capability: string;
  /** Free-form, capability-specific object: a registered provider gets it exactly as sent; the marketplace's own attempt reads it by the capability's input schema (GET /capabilities) */
  input: unknown;
  /** Default auto */
  mode?: ExecuteMode | null | undefined;
  /** A service key (svc_…) or service id; required with mode chosen */
  provider?: string | null | undefined;
  /** The caller's bounds on this call (price, deadline, who, order, ranking, minimum quality). With mode chosen only max_cost_cents, deadline_ms and allow_fallbacks apply (the others are 400); the marketplace's own capabilities (ticketing, security, radio, books) answer at once and read none of it */
  routing?: RoutingPolicy | null | undefined;
  /** A task delegated to the caller: the call is made under it and its budget pays (402 when what is left does not cover the provider's price) */
  taskId?: string | null | undefined;
};

/** `auto`: the best-ranked providers, up to 3, skipping cooling ones; `chosen`: exactly `provider` */
export type ExecuteMode =
  | 'auto'
  | 'chosen';

export type ExecutionStatus =
  | 'error'
  | 'success';

/** What a failed attempt, or a provider passed over, comes to: the closed list a program acts on */
export type FailureCategory =
  | 'bad_output'
  | 'below_policy'
  | 'connect_error'
  | 'cooldown'
  | 'deadline_exceeded'
  | 'over_max_cost'
  | 'provider_4xx'
  | 'provider_5xx'
  | 'provider_rate_limited'
  | 'timeout'
  | 'tls_error'
  | 'unhealthy';

export type GrantMandateInput = {
  /** The sub-agent (at any depth below the caller) whose paid calls it pays */
  agentId: string;
  /** Capability prefixes it pays for (empty or absent: every capability); a call of another is paid as without a mandate */
  capabilities?: Array<string> | null | undefined;
  /** What it pays at most in a UTC day, in cents */
  dailyCents?: number | null | undefined;
  /** When it ends: at most a year ahead (default 30 days from its grant) */
  expiresAt?: string | null | undefined;
  /** What it pays at most in a UTC month, in cents */
  monthlyCents?: number | null | undefined;
  /** The most one call may cost, in cents (1 to 100000000; null lifts it) */
  perCallCents?: number | null | undefined;
};

/** `ok`; `degraded` (a component is, but requests are served); `down` (a required component is unreachable); `draining` (shutting down) */
export type HealthStatus =
  | 'degraded'
  | 'down'
  | 'draining'
  | 'ok';

export type MemoryEntryInput = {
  /** Vector stores: the embedding, of the store's dimensions */
  embedding?: Array<number> | null | undefined;
  /** Required: 1-512 characters */
  key?: string | null | undefined;
  /** Expires this long after the write (else the store's default; else never) */
  ttlSeconds?: number | null | undefined;
  /** Any JSON (a JSON object in structured stores) */
  value?: unknown;
};

export type Prefer =
  | 'balanced'
  | 'cost'
  | 'latency'
  | 'reputation';

export type PricingModel =
  | 'free'
  | 'freemium'
  | 'monthly'
  | 'per_call';

export type RegisterAgentInput = {
  /** What the agent does (at most 2000 characters) */
  description: string;
  /** 3-50 characters, unique */
  name: string;
  /** The owner's email address */
  ownerEmail: string;
};

export type RegisterServiceInput = {
  /** Capability identifiers (1-50); unknown ones join the catalog */
  capabilities: Array<string>;
  /** Integer US cents per call (default 0; 0 for a free service) */
  costPerCall?: number | null | undefined;
  /** 10-2000 characters */
  description: string;
  /** An absolute https:// URL the marketplace calls */
  endpoint: string;
  /** An https:// URL the marketplace probes with a GET while the service gets no calls (2xx passes); left out, the endpoint is probed */
  healthUrl?: string | null | undefined;
  /** Language codes such as "en"; none means any language */
  languages?: Array<string> | null | undefined;
  /** Display name, at most 100 characters */
  name: string;
  /** Pricing notes (an object, at most 4096 characters). `metered: { unit, cents_per_unit, max_units }` makes the service metered: a call is charged the units its answer's X-Usage-Units header says it used, at cents_per_unit (up to four decimals; rounded up to a whole cent), at most max_units; its price per call is then that most (docs/payments.md, Metered calls) */
  pricingDetails?: unknown;
  pricingModel: PricingModel;
  /** What sub-keys of the service may hold; left out, the owner has set none and the default applies (read and write, at most 60 requests a minute) */
  subKeyPolicy?: SubKeyPolicyInput | null | undefined;
};

export type ResolveDisputeInput = {
  /** Refund part or all of a disputed charge (default 0) */
  refundCents?: number | null | undefined;
  resolution: string;
};

/** Bounds on one call, every field optional; a call without one is routed as always. What the policy passes over is listed in the receipt (`routing.skipped`) */
export type RoutingPolicy = {
  /** Default true; false: the first provider left is the only one tried */
  allowFallbacks?: boolean | null | undefined;
  /** One budget for the whole call, fallbacks and a wait for a cooldown included (1 to 120000): each attempt gets the smaller of the provider timeout and what is left; past it the call ends with the attempts so far, its error says so (deadline_exceeded), and nothing is charged */
  deadlineMs?: number | null | undefined;
  /** Never these (at most 20) */
  ignore?: Array<string> | null | undefined;
  /** Never pay more (integer cents): dearer providers are skipped (over_max_cost); when none is left, 400 naming the cheapest price on offer */
  maxCostCents?: number | null | undefined;
  /** Skip providers whose measured p95 latency is higher, or not measured yet (below_policy) */
  maxLatencyP95Ms?: number | null | undefined;
  /** From 0 to 1: skip providers whose success rate (as resolve shows it: successes + 1 over calls + 2, a newcomer 0.5) is lower (below_policy) */
  minSuccessRate?: number | null | undefined;
  /** Only these providers (service keys, ids, or "marketplace"; at most 20), however they rank */
  only?: Array<string> | null | undefined;
  /** These first, in this order; then the ranking's others (at most 20) */
  order?: Array<string> | null | undefined;
  /** The ranking for this call; default balanced (the caller's preference is not read) */
  sort?: RoutingSort | null | undefined;
};

/** How one call ranks its providers: `balanced` (as without a policy), `cost`, `latency`, `reputation` (the rankings resolve names), or `reliability` (the measured success rate, of the balanced ranking's first 50) */
export type RoutingSort =
  | 'balanced'
  | 'cost'
  | 'latency'
  | 'reliability'
  | 'reputation';

/** What the marketplace's health probes and calls found: `unknown` (neither yet), `healthy`, or `unhealthy` (failed probes in a row: out of execute's auto routing until probes pass or a call succeeds) */
export type ServiceHealth =
  | 'healthy'
  | 'unhealthy'
  | 'unknown';

export type ServiceStatus =
  | 'active'
  | 'inactive'
  | 'paused'
  | 'removed'
  | 'suspended';

/** `popular`: most installed first; `newest`: latest published first */
export type SkillMarketplaceSort =
  | 'newest'
  | 'popular';

export type SkillRuntime =
  | 'deno'
  | 'docker'
  | 'nodejs'
  | 'python'
  | 'wasm';

/** On registration a field left out takes its default; on update it keeps its value. Null restores the default. */
export type SubKeyPolicyInput = {
  /** The highest rate a day a sub-key is given, 1-10000000 (default none) */
  maxRequestsPerDay?: number | null | undefined;
  /** The highest rate a minute a sub-key is given, 1-10000000 (default 60) */
  maxRequestsPerMinute?: number | null | undefined;
  /** The permissions a sub-key may be given: 1-20 names such as "read", "write" or "admin" (default ["read", "write"]) */
  permissions?: Array<string> | null | undefined;
};

/** `grace`: replaced by a rotation and valid until `gracePeriodEnds` */
export type SubKeyStatus =
  | 'active'
  | 'expired'
  | 'grace'
  | 'revoked';

export type SwarmStepInput = {
  capability: string;
  /** The capability’s input (default {}). In a sequential swarm a string `$previous` (or `$previous.path`, `$steps.N`, `$steps.N.path`) is replaced by an earlier step’s result */
  input?: unknown;
  /** A service key or id: exactly that provider (else the best-ranked, with fallback) */
  provider?: string | null | undefined;
};

export type TicketCommentInput = {
  content: string;
};

export type TicketStatusInput = {
  /** Notes on how it was resolved */
  resolution?: string | null | undefined;
  /** open, in_progress, waiting, resolved or closed */
  status: string;
};

/** Reputation tier: newcomer 0-30, contributor 31-60, trusted 61-85, star 86-100 */
export type Tier =
  | 'contributor'
  | 'newcomer'
  | 'star'
  | 'trusted';

export type UpdateAgentStatusInput = {
  /** Recorded in the agent's audit log */
  reason?: string | null | undefined;
  status: AgentStatus;
};

/** Each field given replaces the service's, each left out keeps its value; null restores an optional field's default (and is refused for name, description, endpoint, capabilities and pricingModel) */
export type UpdateServiceInput = {
  /** 1-50 capability identifiers; prices set for capabilities left out go with them */
  capabilities?: Array<string> | null | undefined;
  /** Integer US cents per call, 0-1000000 (null: 0); 0 for a free service */
  costPerCall?: number | null | undefined;
  /** 10-2000 characters */
  description?: string | null | undefined;
  /** An https:// URL the marketplace may call */
  endpoint?: string | null | undefined;
  /** An https:// URL the marketplace probes (null: its endpoint is probed) */
  healthUrl?: string | null | undefined;
  /** Language codes (null: none, so any) */
  languages?: Array<string> | null | undefined;
  /** At most 100 characters */
  name?: string | null | undefined;
  /** An object of at most 4096 characters of JSON (null: none). `metered: { unit, cents_per_unit, max_units }` makes the service metered: a call is charged the units its answer's X-Usage-Units header says it used, at cents_per_unit (up to four decimals; rounded up to a whole cent), at most max_units; its price per call is then that most (docs/payments.md, Metered calls) */
  pricingDetails?: unknown;
  pricingModel?: PricingModel | null | undefined;
  /** Fields given replace the policy's, fields left out keep theirs; null takes it back to none set (the default applies) */
  subKeyPolicy?: SubKeyPolicyInput | null | undefined;
};

export type WebhookInput = {
  /** Default true */
  active?: boolean | null | undefined;
  /** Event names of CONTRACT §7, or ["*"] */
  events?: Array<string> | null | undefined;
  /** An https:// URL */
  url?: string | null | undefined;
};

export type WriteMemoryEntriesInput = {
  /** At most the tier's batch size (see Query.tiers) */
  entries: Array<MemoryEntryInput>;
};

export type ConsolePageInfoFragment = { hasNextPage: boolean, endCursor: string | null };

export type ConsoleSignedInQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleSignedInQuery = { me: { agentId: string, name: string } };

export type ConsoleAgentEventTypesSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type ConsoleAgentEventTypesSubscription = { agentEvents: { id: string, type: string } };

export type ConsoleExecuteMutationVariables = Exact<{
  input: ExecuteInput;
}>;


export type ConsoleExecuteMutation = { execute: { executionId: string, status: string } };

export type ConsoleExecutionQueryVariables = Exact<{
  id: string;
}>;


export type ConsoleExecutionQuery = { node:
    | { executionId: string, capability: string, status: ExecutionStatus, mode: string, costCents: number, latencyMs: number, error: string | null, result: unknown, createdAt: string, serviceId: string | null, attempts: Array<{ ordinal: number, serviceKey: string, outcome: string, reason: string | null, statusCode: number | null, score: number | null, priceCents: number, latencyMs: number }> }
    | Record<PropertyKey, never>
   | null };

export type ConsoleRankingNowQueryVariables = Exact<{
  capability: string;
}>;


export type ConsoleRankingNowQuery = { providers: { matches: Array<{ serviceKey: string, name: string, score: number | null, scoreBreakdown: { reputation: number, cost: number, reliability: number, latency: number, freshness: number } }> } };

export type ConsoleExecutionReceiptQueryVariables = Exact<{
  executionId: string;
}>;


export type ConsoleExecutionReceiptQuery = { executionReceipt: { signedReceipt: string, claims: unknown } };

export type ConsoleExecutionsQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type ConsoleExecutionsQuery = { myExecutions: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ executionId: string, capability: string, status: ExecutionStatus, mode: string, costCents: number, latencyMs: number, createdAt: string, attempts: Array<{ ordinal: number }> }> } };

export type ConsoleKeysQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type ConsoleKeysQuery = { myKeys: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ subKeyId: string, hint: string, serviceKey: string, serviceName: string, status: SubKeyStatus, permissions: Array<string>, expiresAt: string, gracePeriodEnds: string | null, createdAt: string }> } };

export type ConsoleProvisionKeyMutationVariables = Exact<{
  serviceKey: string;
}>;


export type ConsoleProvisionKeyMutation = { provisionSubKey: { subKeyId: string, subKey: string } };

export type ConsoleRotateKeyMutationVariables = Exact<{
  id: string;
}>;


export type ConsoleRotateKeyMutation = { rotateSubKey: { subKeyId: string, newSubKey: string, gracePeriodEnds: string } };

export type ConsoleRevokeKeyMutationVariables = Exact<{
  id: string;
}>;


export type ConsoleRevokeKeyMutation = { revokeSubKey: { subKeyId: string, revoked: boolean } };

export type ConsoleMandatesQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleMandatesQuery = { granted: { totalCount: number, nodes: Array<{ mandateId: string, grantorId: string, agentId: string, perCallCents: number | null, dailyCents: number | null, monthlyCents: number | null, capabilities: Array<string>, expiresAt: string, revokedAt: string | null, inForce: boolean, today: { startsOn: string, capCents: number | null, spentCents: number, heldCents: number, calls: number, remainingCents: number | null, alerted: Array<number> }, thisMonth: { startsOn: string, capCents: number | null, spentCents: number, heldCents: number, calls: number, remainingCents: number | null, alerted: Array<number> } }> }, held: { nodes: Array<{ mandateId: string, grantorId: string, agentId: string, perCallCents: number | null, dailyCents: number | null, monthlyCents: number | null, capabilities: Array<string>, expiresAt: string, revokedAt: string | null, inForce: boolean, today: { startsOn: string, capCents: number | null, spentCents: number, heldCents: number, calls: number, remainingCents: number | null, alerted: Array<number> }, thisMonth: { startsOn: string, capCents: number | null, spentCents: number, heldCents: number, calls: number, remainingCents: number | null, alerted: Array<number> } }> }, mySubAgents: { nodes: Array<{ agentId: string, name: string }> } };

export type ConsoleMandateFragment = { mandateId: string, grantorId: string, agentId: string, perCallCents: number | null, dailyCents: number | null, monthlyCents: number | null, capabilities: Array<string>, expiresAt: string, revokedAt: string | null, inForce: boolean, today: { startsOn: string, capCents: number | null, spentCents: number, heldCents: number, calls: number, remainingCents: number | null, alerted: Array<number> }, thisMonth: { startsOn: string, capCents: number | null, spentCents: number, heldCents: number, calls: number, remainingCents: number | null, alerted: Array<number> } };

export type ConsoleMandateUseFragment = { startsOn: string, capCents: number | null, spentCents: number, heldCents: number, calls: number, remainingCents: number | null, alerted: Array<number> };

export type ConsoleGrantMandateMutationVariables = Exact<{
  input: GrantMandateInput;
}>;


export type ConsoleGrantMandateMutation = { grantMandate: { mandateId: string } };

export type ConsoleRevokeMandateMutationVariables = Exact<{
  id: string;
}>;


export type ConsoleRevokeMandateMutation = { revokeMandate: { mandateId: string, inForce: boolean } };

export type ConsoleMeQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleMeQuery = { me: { agentId: string, agentKey: string, name: string, description: string, ownerEmail: string | null, reputation: number, tier: Tier, status: AgentStatus, autonomyLevel: AutonomyLevel, authorityScope: Array<string>, parentId: string | null, createdAt: string }, myUsage: { totalRequests: number, totalExecutions: number, days: number } };

export type ConsoleSubAgentsQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type ConsoleSubAgentsQuery = { mySubAgents: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ agentId: string, name: string, parentId: string | null, autonomyLevel: AutonomyLevel, authorityScope: Array<string>, status: AgentStatus, effectiveStatus: AgentStatus, effectiveStatusImposedBy: string | null, reputation: number, createdAt: string }> } };

export type ConsoleCreateSubAgentMutationVariables = Exact<{
  parentId: string;
  input: CreateSubAgentInput;
}>;


export type ConsoleCreateSubAgentMutation = { createSubAgent: { agentId: string, name: string, masterKey: string } };

export type ConsoleRegisterMutationVariables = Exact<{
  input: RegisterAgentInput;
}>;


export type ConsoleRegisterMutation = { registerAgent: { agentId: string, name: string, masterKey: string } };

export type ConsoleMyServicesQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type ConsoleMyServicesQuery = { myServices: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ serviceId: string, serviceKey: string, name: string, description: string, endpoint: string, status: ServiceStatus, capabilities: Array<string>, pricingModel: PricingModel, costPerCall: number, resumeAt: string | null, stats: { totalCalls: number, successRate: number } }> } };

export type ConsoleRegisterServiceMutationVariables = Exact<{
  input: RegisterServiceInput;
}>;


export type ConsoleRegisterServiceMutation = { registerService: { serviceKey: string, name: string, signingSecret: string } };

export type ConsoleUpdateServiceMutationVariables = Exact<{
  serviceKey: string;
  input: UpdateServiceInput;
}>;


export type ConsoleUpdateServiceMutation = { updateService: { serviceKey: string, name: string, description: string, endpoint: string, capabilities: Array<string>, costPerCall: number, pricingModel: PricingModel } };

export type ConsolePauseServiceMutationVariables = Exact<{
  serviceKey: string;
}>;


export type ConsolePauseServiceMutation = { pauseService: { serviceKey: string, status: ServiceStatus } };

export type ConsoleResumeServiceMutationVariables = Exact<{
  serviceKey: string;
}>;


export type ConsoleResumeServiceMutation = { resumeService: { serviceKey: string, status: ServiceStatus } };

export type ConsoleWalletQueryVariables = Exact<{
  agentId: string;
  after?: string | null | undefined;
}>;


export type ConsoleWalletQuery = { wallet: { walletAddress: string, network: string, asset: string, balance: string, held: string, pending: string, available: string, keyCustody: string, createdAt: string }, walletEntries: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, kind: string, amount: string, reference: string | null, executionId: string | null, createdAt: string }> } };

export type ConsoleFaucetMutationVariables = Exact<{ [key: string]: never; }>;


export type ConsoleFaucetMutation = { sandboxFaucet: { credited: boolean, amount: string, balance: string } };

export type ConsoleAgentStatusMutationVariables = Exact<{
  agentId: string;
  input: UpdateAgentStatusInput;
}>;


export type ConsoleAgentStatusMutation = { updateAgentStatus: { agentId: string, status: AgentStatus, effectiveStatus: AgentStatus, updated: boolean } };

export type ConsoleAdminAgentsQueryVariables = Exact<{
  status?: AgentStatus | null | undefined;
  name?: string | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleAdminAgentsQuery = { adminAgents: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ agentId: string, name: string, status: AgentStatus, effectiveStatus: AgentStatus, effectiveStatusImposedBy: string | null, parentId: string | null, reputation: number, createdAt: string }> } };

export type ConsoleAdminDisputesQueryVariables = Exact<{
  status?: string | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleAdminDisputesQuery = { adminDisputes: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ disputeId: string, agentId: string, providerAgentId: string | null, serviceId: string | null, form: string, type: string | null, reason: string | null, description: string | null, status: string, resolved: boolean, resolution: string | null, refundCents: number, priorityResolution: boolean, createdAt: string }> } };

export type ConsoleResolveDisputeMutationVariables = Exact<{
  id: string;
  input: ResolveDisputeInput;
}>;


export type ConsoleResolveDisputeMutation = { resolveDispute: { disputeId: string, status: string, resolved: boolean, resolution: string | null, refundCents: number } };

export type ConsoleAdminOutboxQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleAdminOutboxQuery = { adminOutbox: { unrelayed: number, oldestUnrelayedSeconds: number, checkedAt: string, kinds: Array<{ kind: string, pending: number, due: number, sending: number, failed: number, oldestDueSeconds: number }> } };

export type ConsoleAdminOverviewQueryVariables = Exact<{
  days?: number | null | undefined;
}>;


export type ConsoleAdminOverviewQuery = { adminStats: { capabilities: number, agents: { total: number, active: number, suspended: number, banned: number, subAgents: number }, services: { total: number, active: number }, executions: { total: number, succeeded: number, failed: number, last30d: number }, disputes: { total: number, open: number }, subKeys: { total: number, live: number } }, adminRevenue: { days: number, totals: { executions: number, paidExecutions: number, grossCents: number, refundsCents: number, netCents: number }, fees: { asset: string, feeBps: number, fees: string, refunded: string, net: string }, byDay: Array<{ day: string, grossCents: number, refundsCents: number, netCents: number, fees: string }>, byCapability: Array<{ capability: string, executions: number, grossCents: number, netCents: number }> } };

export type ConsoleAgentEventsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type ConsoleAgentEventsSubscription = { agentEvents: { id: string, type: string, createdAt: string, data: unknown } };

export type ConsoleRadioSubscriptionVariables = Exact<{
  after?: number | null | undefined;
}>;


export type ConsoleRadioSubscription = { radioEvents: { sequence: number, eventId: string, channel: string, type: string, createdAt: string, data: unknown } };

export type ConsoleUtoSubscriptionVariables = Exact<{
  after?: number | null | undefined;
}>;


export type ConsoleUtoSubscription = { utoEvents: { sequence: number, eventId: string, ticketId: string, domain: string, type: string, createdAt: string, data: unknown } };

export type ConsoleAgentProfileQueryVariables = Exact<{
  agentId: string;
  days?: number | null | undefined;
}>;


export type ConsoleAgentProfileQuery = { agentReputation: { agentId: string, name: string, reputation: number, tier: Tier, trustScore: number, calls: number, successes: number, successRate: number, disputes: number, disputesOpen: number, disputesLost: number, reputationEvents30d: number, reputationNet30d: number, history: Array<{ day: string, score: number, net: number, events: number }> } };

export type ConsoleCatalogQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleCatalogQuery = { capabilities: { total: number, hierarchy: Array<{ group: string, name: string, capabilities: Array<string> }>, capabilities: Array<{ slug: string, name: string, description: string | null, group: string, serviceCount: number, builtin: boolean }> } };

export type ConsoleCapabilityQueryVariables = Exact<{
  slug: string;
  prefer?: Prefer | null | undefined;
  limit?: number | null | undefined;
}>;


export type ConsoleCapabilityQuery = { capability: { slug: string, name: string, description: string | null, category: string, parent: string | null, providers: number, bestReputation: number | null, minPriceCents: number | null, maxPriceCents: number | null, marketplace: { inputSchema: unknown } | null }, providers: { total: number, totalIsEstimate: boolean, resolutionTimeMs: number, matches: Array<{ serviceId: string | null, serviceKey: string, name: string, providerId: string | null, providerName: string, reputation: number, costCents: number, pricingModel: string, latencyP50Ms: number | null, successRate: number | null, score: number | null, firstParty: boolean, health: ServiceHealth, quality: { calls: number, successRate: number | null, uptime24h: number | null, lowSample: boolean } | null, scoreBreakdown: { reputation: number, cost: number, reliability: number, latency: number, freshness: number } }> } };

export type ConsoleHealthQueryVariables = Exact<{
  days?: number | null | undefined;
}>;


export type ConsoleHealthQuery = { health: { status: HealthStatus, version: string, uptimeSeconds: number, checkedAt: string, components: { database: { status: ComponentStatus, kind: string, latencyMs: number | null }, scheduler: { status: ComponentStatus, jobs: number, lastRunAt: string | null }, sse: { status: ComponentStatus, openStreams: number, redis: string }, memory: { status: ComponentStatus, rssBytes: number, heapUsedBytes: number, vectorSearch: string } } }, uptime: { days: number, uptimePercent: number, minutesObserved: number, minutesUp: number, since: string | null } };

export type ConsoleMarketHomeQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleMarketHomeQuery = { showcase: { stats: { totalAgents: number, totalServices: number, totalCapabilities: number, totalTransactions: number, totalTransactions30d: number }, topServices: Array<{ serviceId: string, serviceKey: string, name: string, providerName: string, reputation: number, successes: number, capabilities: Array<string> }>, recentExecutions: Array<{ executionId: string, capability: string, serviceName: string | null, status: string, latencyMs: number, createdAt: string }> } };

export type ConsoleServiceQueryVariables = Exact<{
  serviceKey: string;
}>;


export type ConsoleServiceQuery = { service: { serviceId: string, serviceKey: string, name: string, description: string, status: ServiceStatus, capabilities: Array<string>, languages: Array<string>, pricingModel: PricingModel, costPerCall: number, createdAt: string, health: ServiceHealth, lastFailureReason: string | null, provider: { agentId: string, name: string, reputation: number, tier: Tier }, stats: { totalCalls: number, successes: number, failures: number, successRate: number, latencyP50Ms: number | null, latencyP95Ms: number | null, lastSuccessAt: string | null }, quality: { windowDays: number, calls: number, successRate: number | null, latencyP50Ms: number | null, latencyP95Ms: number | null, uptime24h: number | null, uptime7d: number | null, uptime30d: number | null, probes: number, lowSample: boolean } | null, qualityDays: Array<{ day: string, successes: number, failures: number, probesPassed: number, probesFailed: number, latencyP50Ms: number | null, latencyP95Ms: number | null, uptime: number | null }> } };

export type ConsoleSkillQueryVariables = Exact<{
  id: string;
}>;


export type ConsoleSkillQuery = { skill: { skillId: string, name: string, description: string, runtime: SkillRuntime, category: string | null, entrypoint: string, publishedVersion: string | null, publishedAt: string | null, installCount: number, forkCount: number, ownerAgentId: string, instructions: string } };

export type ConsoleSkillsQueryVariables = Exact<{
  q?: string | null | undefined;
  runtime?: SkillRuntime | null | undefined;
  category?: string | null | undefined;
  sort?: SkillMarketplaceSort | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleSkillsQuery = { skillMarketplace: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ skillId: string, name: string, description: string, runtime: SkillRuntime, category: string | null, version: string, installCount: number, forkCount: number, publishedAt: string }> } };

export type ConsoleTryItMutationVariables = Exact<{
  input: ExecuteInput;
}>;


export type ConsoleTryItMutation = { execute: { executionId: string, status: string, error: string | null, result: unknown, provider: { serviceKey: string, name: string } | null, transaction: { costCents: number, latencyMs: number }, attempts: Array<{ ordinal: number, serviceKey: string, outcome: string, category: FailureCategory | null, reason: string | null, latencyMs: number }>, routing: { skipped: Array<{ serviceKey: string, reason: FailureCategory, detail: string }> } | null } };

export type ConsoleWebmcpQueryVariables = Exact<{
  q?: string | null | undefined;
  category?: string | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleWebmcpQuery = { webmcpStats: { sites: number, totalTools: number, byCategory: Array<{ category: string, tools: number }> }, webmcpTools: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ name: string, description: string, category: string, siteName: string | null, siteOrigin: string, manifestUrl: string }> } };

export type ConsoleDisputesQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type ConsoleDisputesQuery = { myDisputes: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ disputeId: string, form: string, type: string | null, reason: string | null, description: string | null, status: string, resolved: boolean, resolution: string | null, refundCents: number, serviceId: string | null, executionId: string | null, createdAt: string, resolvedAt: string | null }> } };

export type ConsoleOpenDisputeMutationVariables = Exact<{
  input: CreateDisputeInput;
}>;


export type ConsoleOpenDisputeMutation = { createDispute: { disputeId: string, status: string } };

export type ConsoleTicketQueryVariables = Exact<{
  ticketKey: string;
}>;


export type ConsoleTicketQuery = { ticket: { ticketKey: string, subject: string, description: string, type: string, priority: string, status: string, resolution: string | null, targetService: string | null, agentName: string, createdAt: string, comments: Array<{ commentId: string, author: string, content: string, createdAt: string }>, history: Array<{ from: string | null, to: string, at: string, actorKind: string, note: string | null }> } };

export type ConsoleAddTicketCommentMutationVariables = Exact<{
  ticketKey: string;
  input: TicketCommentInput;
}>;


export type ConsoleAddTicketCommentMutation = { addTicketComment: { commentId: string } };

export type ConsoleMoveTicketMutationVariables = Exact<{
  ticketKey: string;
  input: TicketStatusInput;
}>;


export type ConsoleMoveTicketMutation = { updateTicketStatus: { ticketKey: string, status: string } };

export type ConsoleTicketsQueryVariables = Exact<{
  status?: string | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleTicketsQuery = { tickets: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ ticketKey: string, subject: string, type: string, priority: string, status: string, targetService: string | null, createdAt: string, updatedAt: string }> } };

export type ConsoleFileTicketMutationVariables = Exact<{
  input: ExecuteInput;
}>;


export type ConsoleFileTicketMutation = { execute: { executionId: string, status: string, error: string | null, result: unknown } };

export type ConsoleDeliveriesQueryVariables = Exact<{
  webhookId: string;
  status?: string | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleDeliveriesQuery = { webhook: { webhookId: string, url: string, events: Array<string>, active: boolean }, webhookDeliveries: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ deliveryId: string, eventId: string, eventType: string, status: string, attempts: number, lastStatus: number | null, lastError: string | null, nextAttemptAt: string | null, deliveredAt: string | null, createdAt: string }> } };

export type ConsoleRedeliverMutationVariables = Exact<{
  webhookId: string;
  deliveryId: string;
}>;


export type ConsoleRedeliverMutation = { redeliverWebhookDelivery: { deliveryId: string, status: string } };

export type ConsoleUpdateWebhookMutationVariables = Exact<{
  id: string;
  input: WebhookInput;
}>;


export type ConsoleUpdateWebhookMutation = { updateWebhook: { webhookId: string, url: string, events: Array<string>, active: boolean } };

export type ConsoleDeleteWebhookMutationVariables = Exact<{
  id: string;
}>;


export type ConsoleDeleteWebhookMutation = { deleteWebhook: { deleted: boolean } };

export type ConsoleWebhooksQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type ConsoleWebhooksQuery = { webhooks: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ webhookId: string, url: string, events: Array<string>, active: boolean, disabledReason: string | null, createdAt: string }> } };

export type ConsoleCreateWebhookMutationVariables = Exact<{
  input: WebhookInput;
}>;


export type ConsoleCreateWebhookMutation = { createWebhook: { webhookId: string, secret: string } };

export type ConsoleMemoryEntriesQueryVariables = Exact<{
  storeId: string;
  prefix?: string | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleMemoryEntriesQuery = { memoryStore: { storeId: string, name: string, storeType: string, accessLevel: string }, memoryEntries: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ key: string, version: number, value: unknown, updatedAt: string, expiresAt: string | null }> } };

export type ConsoleWriteMemoryEntryMutationVariables = Exact<{
  storeId: string;
  input: WriteMemoryEntriesInput;
}>;


export type ConsoleWriteMemoryEntryMutation = { writeMemoryEntries: { written: number } };

export type ConsoleDeleteMemoryEntryMutationVariables = Exact<{
  storeId: string;
  key: string;
}>;


export type ConsoleDeleteMemoryEntryMutation = { deleteMemoryEntry: { deleted: boolean } };

export type ConsoleMemoryStoresQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type ConsoleMemoryStoresQuery = { memoryStores: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ storeId: string, name: string, description: string | null, storeType: string, accessLevel: string, dimensions: number | null, defaultTtlSeconds: number | null, createdAt: string }> } };

export type ConsoleCreateMemoryStoreMutationVariables = Exact<{
  input: CreateMemoryStoreInput;
}>;


export type ConsoleCreateMemoryStoreMutation = { createMemoryStore: { storeId: string } };

export type ConsoleSwarmQueryVariables = Exact<{
  id: string;
}>;


export type ConsoleSwarmQuery = { swarmSession: { sessionId: string, goal: string, strategy: string, status: string, stepCount: number, completedSteps: number, failedSteps: number, createdAt: string, finishedAt: string | null, steps: Array<{ stepId: string, ordinal: number, capability: string, status: string, provider: string | null, attempts: number, costCents: number | null, error: string | null, executionId: string, finishedAt: string | null }> } };

export type ConsoleSwarmEventsSubscriptionVariables = Exact<{
  sessionId: string;
  after?: number | null | undefined;
}>;


export type ConsoleSwarmEventsSubscription = { swarmEvents: { sequence: number, event: string, status: string } };

export type ConsoleCancelSwarmMutationVariables = Exact<{
  id: string;
}>;


export type ConsoleCancelSwarmMutation = { cancelSwarmSession: { sessionId: string, status: string } };

export type ConsoleSwarmsQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type ConsoleSwarmsQuery = { swarmSessions: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ sessionId: string, goal: string, strategy: string, status: string, stepCount: number, completedSteps: number, failedSteps: number, createdAt: string }> } };

export type ConsoleCreateSwarmMutationVariables = Exact<{
  input: CreateSwarmSessionInput;
}>;


export type ConsoleCreateSwarmMutation = { createSwarmSession: { sessionId: string } };

export type ConsoleTaskQueryVariables = Exact<{
  id: string;
}>;


export type ConsoleTaskQuery = { task: { taskId: string, intent: string, status: string, successCriteria: Array<string>, budget: number | null, budgetRemaining: number | null, spent: number, deadline: string | null, result: unknown, createdAt: string, completedAt: string | null, delegations: Array<{ delegationId: string, subAgentId: string, status: string, createdAt: string, endedAt: string | null }>, executions: Array<{ taskExecutionId: string, executionId: string, capability: string, status: string, criteriaMet: boolean, executorDelta: number, createdAt: string }> } };

export type ConsoleCancelTaskMutationVariables = Exact<{
  id: string;
}>;


export type ConsoleCancelTaskMutation = { cancelTask: { taskId: string, status: string } };

export type ConsoleTasksQueryVariables = Exact<{
  status?: string | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleTasksQuery = { tasks: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ taskId: string, intent: string, status: string, budget: number | null, spent: number, deadline: string | null, delegateId: string | null, createdAt: string, executions: Array<{ taskExecutionId: string }> }> } };

export type ConsoleCreateTaskMutationVariables = Exact<{
  input: CreateTaskInput;
}>;


export type ConsoleCreateTaskMutation = { createTask: { taskId: string } };

export type ConsoleUtoTicketQueryVariables = Exact<{
  id: string;
}>;


export type ConsoleUtoTicketQuery = { utoTicket: { ticketId: string, intent: string, domain: string, state: string, requiredCapabilities: Array<string>, maxBudgetUsd: number | null, deadline: string, context: unknown, matches: unknown, stateHistory: Array<{ from: string | null, to: string, at: string, by: string, triggeredBy: string, note: string | null }> } };

export type ConsoleAdvanceUtoTicketMutationVariables = Exact<{
  id: string;
  input: AdvanceUtoTicketInput;
}>;


export type ConsoleAdvanceUtoTicketMutation = { advanceUtoTicket: { ticketId: string, state: string } };

export type ConsoleUtoTicketsQueryVariables = Exact<{
  state?: string | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleUtoTicketsQuery = { utoTickets: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ ticketId: string, intent: string, domain: string, state: string, requiredCapabilities: Array<string>, maxBudgetUsd: number | null, deadline: string, updatedAt: string }> } };

export type ConsoleCreateUtoTicketMutationVariables = Exact<{
  input: CreateUtoTicketInput;
}>;


export type ConsoleCreateUtoTicketMutation = { createUtoTicket: { ticketId: string } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ConsolePageInfoFragmentDoc = new TypedDocumentString(`
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}
    `, {"fragmentName":"ConsolePageInfo"}) as unknown as TypedDocumentString<ConsolePageInfoFragment, unknown>;
export const ConsoleMandateUseFragmentDoc = new TypedDocumentString(`
    fragment ConsoleMandateUse on MandatePeriodUse {
  startsOn
  capCents
  spentCents
  heldCents
  calls
  remainingCents
  alerted
}
    `, {"fragmentName":"ConsoleMandateUse"}) as unknown as TypedDocumentString<ConsoleMandateUseFragment, unknown>;
export const ConsoleMandateFragmentDoc = new TypedDocumentString(`
    fragment ConsoleMandate on Mandate {
  mandateId
  grantorId
  agentId
  perCallCents
  dailyCents
  monthlyCents
  capabilities
  expiresAt
  revokedAt
  inForce
  today {
    ...ConsoleMandateUse
  }
  thisMonth {
    ...ConsoleMandateUse
  }
}
    fragment ConsoleMandateUse on MandatePeriodUse {
  startsOn
  capCents
  spentCents
  heldCents
  calls
  remainingCents
  alerted
}`, {"fragmentName":"ConsoleMandate"}) as unknown as TypedDocumentString<ConsoleMandateFragment, unknown>;
export const ConsoleSignedInDocument = new TypedDocumentString(`
    query ConsoleSignedIn {
  me {
    agentId
    name
  }
}
    `) as unknown as TypedDocumentString<ConsoleSignedInQuery, ConsoleSignedInQueryVariables>;
export const ConsoleAgentEventTypesDocument = new TypedDocumentString(`
    subscription ConsoleAgentEventTypes {
  agentEvents {
    id
    type
  }
}
    `) as unknown as TypedDocumentString<ConsoleAgentEventTypesSubscription, ConsoleAgentEventTypesSubscriptionVariables>;
export const ConsoleExecuteDocument = new TypedDocumentString(`
    mutation ConsoleExecute($input: ExecuteInput!) {
  execute(input: $input) {
    executionId
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleExecuteMutation, ConsoleExecuteMutationVariables>;
export const ConsoleExecutionDocument = new TypedDocumentString(`
    query ConsoleExecution($id: ID!) {
  node(id: $id) {
    ... on Execution {
      executionId
      capability
      status
      mode
      costCents
      latencyMs
      error
      result
      createdAt
      serviceId
      attempts {
        ordinal
        serviceKey
        outcome
        reason
        statusCode
        score
        priceCents
        latencyMs
      }
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleExecutionQuery, ConsoleExecutionQueryVariables>;
export const ConsoleRankingNowDocument = new TypedDocumentString(`
    query ConsoleRankingNow($capability: String!) {
  providers(capability: $capability, limit: 100) {
    matches {
      serviceKey
      name
      score
      scoreBreakdown {
        reputation
        cost
        reliability
        latency
        freshness
      }
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleRankingNowQuery, ConsoleRankingNowQueryVariables>;
export const ConsoleExecutionReceiptDocument = new TypedDocumentString(`
    query ConsoleExecutionReceipt($executionId: ID!) {
  executionReceipt(executionId: $executionId) {
    signedReceipt
    claims
  }
}
    `) as unknown as TypedDocumentString<ConsoleExecutionReceiptQuery, ConsoleExecutionReceiptQueryVariables>;
export const ConsoleExecutionsDocument = new TypedDocumentString(`
    query ConsoleExecutions($after: String) {
  myExecutions(first: 25, after: $after) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      executionId
      capability
      status
      mode
      costCents
      latencyMs
      createdAt
      attempts {
        ordinal
      }
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleExecutionsQuery, ConsoleExecutionsQueryVariables>;
export const ConsoleKeysDocument = new TypedDocumentString(`
    query ConsoleKeys($after: String) {
  myKeys(first: 25, after: $after) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      subKeyId
      hint
      serviceKey
      serviceName
      status
      permissions
      expiresAt
      gracePeriodEnds
      createdAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleKeysQuery, ConsoleKeysQueryVariables>;
export const ConsoleProvisionKeyDocument = new TypedDocumentString(`
    mutation ConsoleProvisionKey($serviceKey: String!) {
  provisionSubKey(serviceKey: $serviceKey) {
    subKeyId
    subKey
  }
}
    `) as unknown as TypedDocumentString<ConsoleProvisionKeyMutation, ConsoleProvisionKeyMutationVariables>;
export const ConsoleRotateKeyDocument = new TypedDocumentString(`
    mutation ConsoleRotateKey($id: ID!) {
  rotateSubKey(id: $id) {
    subKeyId
    newSubKey
    gracePeriodEnds
  }
}
    `) as unknown as TypedDocumentString<ConsoleRotateKeyMutation, ConsoleRotateKeyMutationVariables>;
export const ConsoleRevokeKeyDocument = new TypedDocumentString(`
    mutation ConsoleRevokeKey($id: ID!) {
  revokeSubKey(id: $id) {
    subKeyId
    revoked
  }
}
    `) as unknown as TypedDocumentString<ConsoleRevokeKeyMutation, ConsoleRevokeKeyMutationVariables>;
export const ConsoleMandatesDocument = new TypedDocumentString(`
    query ConsoleMandates {
  granted: mandates(role: "granted", first: 50) {
    totalCount
    nodes {
      ...ConsoleMandate
    }
  }
  held: mandates(role: "held", first: 5) {
    nodes {
      ...ConsoleMandate
    }
  }
  mySubAgents(first: 100) {
    nodes {
      agentId
      name
    }
  }
}
    fragment ConsoleMandate on Mandate {
  mandateId
  grantorId
  agentId
  perCallCents
  dailyCents
  monthlyCents
  capabilities
  expiresAt
  revokedAt
  inForce
  today {
    ...ConsoleMandateUse
  }
  thisMonth {
    ...ConsoleMandateUse
  }
}
fragment ConsoleMandateUse on MandatePeriodUse {
  startsOn
  capCents
  spentCents
  heldCents
  calls
  remainingCents
  alerted
}`) as unknown as TypedDocumentString<ConsoleMandatesQuery, ConsoleMandatesQueryVariables>;
export const ConsoleGrantMandateDocument = new TypedDocumentString(`
    mutation ConsoleGrantMandate($input: GrantMandateInput!) {
  grantMandate(input: $input) {
    mandateId
  }
}
    `) as unknown as TypedDocumentString<ConsoleGrantMandateMutation, ConsoleGrantMandateMutationVariables>;
export const ConsoleRevokeMandateDocument = new TypedDocumentString(`
    mutation ConsoleRevokeMandate($id: ID!) {
  revokeMandate(id: $id) {
    mandateId
    inForce
  }
}
    `) as unknown as TypedDocumentString<ConsoleRevokeMandateMutation, ConsoleRevokeMandateMutationVariables>;
export const ConsoleMeDocument = new TypedDocumentString(`
    query ConsoleMe {
  me {
    agentId
    agentKey
    name
    description
    ownerEmail
    reputation
    tier
    status
    autonomyLevel
    authorityScope
    parentId
    createdAt
  }
  myUsage {
    totalRequests
    totalExecutions
    days
  }
}
    `) as unknown as TypedDocumentString<ConsoleMeQuery, ConsoleMeQueryVariables>;
export const ConsoleSubAgentsDocument = new TypedDocumentString(`
    query ConsoleSubAgents($after: String) {
  mySubAgents(first: 25, after: $after) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      agentId
      name
      parentId
      autonomyLevel
      authorityScope
      status
      effectiveStatus
      effectiveStatusImposedBy
      reputation
      createdAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleSubAgentsQuery, ConsoleSubAgentsQueryVariables>;
export const ConsoleCreateSubAgentDocument = new TypedDocumentString(`
    mutation ConsoleCreateSubAgent($parentId: ID!, $input: CreateSubAgentInput!) {
  createSubAgent(parentId: $parentId, input: $input) {
    agentId
    name
    masterKey
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateSubAgentMutation, ConsoleCreateSubAgentMutationVariables>;
export const ConsoleRegisterDocument = new TypedDocumentString(`
    mutation ConsoleRegister($input: RegisterAgentInput!) {
  registerAgent(input: $input) {
    agentId
    name
    masterKey
  }
}
    `) as unknown as TypedDocumentString<ConsoleRegisterMutation, ConsoleRegisterMutationVariables>;
export const ConsoleMyServicesDocument = new TypedDocumentString(`
    query ConsoleMyServices($after: String) {
  myServices(first: 25, after: $after) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      serviceId
      serviceKey
      name
      description
      endpoint
      status
      capabilities
      pricingModel
      costPerCall
      resumeAt
      stats {
        totalCalls
        successRate
      }
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleMyServicesQuery, ConsoleMyServicesQueryVariables>;
export const ConsoleRegisterServiceDocument = new TypedDocumentString(`
    mutation ConsoleRegisterService($input: RegisterServiceInput!) {
  registerService(input: $input) {
    serviceKey
    name
    signingSecret
  }
}
    `) as unknown as TypedDocumentString<ConsoleRegisterServiceMutation, ConsoleRegisterServiceMutationVariables>;
export const ConsoleUpdateServiceDocument = new TypedDocumentString(`
    mutation ConsoleUpdateService($serviceKey: String!, $input: UpdateServiceInput!) {
  updateService(serviceKey: $serviceKey, input: $input) {
    serviceKey
    name
    description
    endpoint
    capabilities
    costPerCall
    pricingModel
  }
}
    `) as unknown as TypedDocumentString<ConsoleUpdateServiceMutation, ConsoleUpdateServiceMutationVariables>;
export const ConsolePauseServiceDocument = new TypedDocumentString(`
    mutation ConsolePauseService($serviceKey: String!) {
  pauseService(serviceKey: $serviceKey) {
    serviceKey
    status
  }
}
    `) as unknown as TypedDocumentString<ConsolePauseServiceMutation, ConsolePauseServiceMutationVariables>;
export const ConsoleResumeServiceDocument = new TypedDocumentString(`
    mutation ConsoleResumeService($serviceKey: String!) {
  resumeService(serviceKey: $serviceKey) {
    serviceKey
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleResumeServiceMutation, ConsoleResumeServiceMutationVariables>;
export const ConsoleWalletDocument = new TypedDocumentString(`
    query ConsoleWallet($agentId: ID!, $after: String) {
  wallet(agentId: $agentId) {
    walletAddress
    network
    asset
    balance
    held
    pending
    available
    keyCustody
    createdAt
  }
  walletEntries(agentId: $agentId, first: 25, after: $after) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      id
      kind
      amount
      reference
      executionId
      createdAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleWalletQuery, ConsoleWalletQueryVariables>;
export const ConsoleFaucetDocument = new TypedDocumentString(`
    mutation ConsoleFaucet {
  sandboxFaucet {
    credited
    amount
    balance
  }
}
    `) as unknown as TypedDocumentString<ConsoleFaucetMutation, ConsoleFaucetMutationVariables>;
export const ConsoleAgentStatusDocument = new TypedDocumentString(`
    mutation ConsoleAgentStatus($agentId: ID!, $input: UpdateAgentStatusInput!) {
  updateAgentStatus(agentId: $agentId, input: $input) {
    agentId
    status
    effectiveStatus
    updated
  }
}
    `) as unknown as TypedDocumentString<ConsoleAgentStatusMutation, ConsoleAgentStatusMutationVariables>;
export const ConsoleAdminAgentsDocument = new TypedDocumentString(`
    query ConsoleAdminAgents($status: AgentStatus, $name: String, $after: String) {
  adminAgents(status: $status, name: $name, first: 25, after: $after) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      agentId
      name
      status
      effectiveStatus
      effectiveStatusImposedBy
      parentId
      reputation
      createdAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleAdminAgentsQuery, ConsoleAdminAgentsQueryVariables>;
export const ConsoleAdminDisputesDocument = new TypedDocumentString(`
    query ConsoleAdminDisputes($status: String, $after: String) {
  adminDisputes(status: $status, first: 25, after: $after) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      disputeId
      agentId
      providerAgentId
      serviceId
      form
      type
      reason
      description
      status
      resolved
      resolution
      refundCents
      priorityResolution
      createdAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleAdminDisputesQuery, ConsoleAdminDisputesQueryVariables>;
export const ConsoleResolveDisputeDocument = new TypedDocumentString(`
    mutation ConsoleResolveDispute($id: ID!, $input: ResolveDisputeInput!) {
  resolveDispute(id: $id, input: $input) {
    disputeId
    status
    resolved
    resolution
    refundCents
  }
}
    `) as unknown as TypedDocumentString<ConsoleResolveDisputeMutation, ConsoleResolveDisputeMutationVariables>;
export const ConsoleAdminOutboxDocument = new TypedDocumentString(`
    query ConsoleAdminOutbox {
  adminOutbox {
    unrelayed
    oldestUnrelayedSeconds
    checkedAt
    kinds {
      kind
      pending
      due
      sending
      failed
      oldestDueSeconds
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleAdminOutboxQuery, ConsoleAdminOutboxQueryVariables>;
export const ConsoleAdminOverviewDocument = new TypedDocumentString(`
    query ConsoleAdminOverview($days: Int) {
  adminStats {
    agents {
      total
      active
      suspended
      banned
      subAgents
    }
    services {
      total
      active
    }
    executions {
      total
      succeeded
      failed
      last30d
    }
    disputes {
      total
      open
    }
    subKeys {
      total
      live
    }
    capabilities
  }
  adminRevenue(days: $days) {
    days
    totals {
      executions
      paidExecutions
      grossCents
      refundsCents
      netCents
    }
    fees {
      asset
      feeBps
      fees
      refunded
      net
    }
    byDay {
      day
      grossCents
      refundsCents
      netCents
      fees
    }
    byCapability {
      capability
      executions
      grossCents
      netCents
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleAdminOverviewQuery, ConsoleAdminOverviewQueryVariables>;
export const ConsoleAgentEventsDocument = new TypedDocumentString(`
    subscription ConsoleAgentEvents {
  agentEvents {
    id
    type
    createdAt
    data
  }
}
    `) as unknown as TypedDocumentString<ConsoleAgentEventsSubscription, ConsoleAgentEventsSubscriptionVariables>;
export const ConsoleRadioDocument = new TypedDocumentString(`
    subscription ConsoleRadio($after: Int) {
  radioEvents(after: $after) {
    sequence
    eventId
    channel
    type
    createdAt
    data
  }
}
    `) as unknown as TypedDocumentString<ConsoleRadioSubscription, ConsoleRadioSubscriptionVariables>;
export const ConsoleUtoDocument = new TypedDocumentString(`
    subscription ConsoleUto($after: Int) {
  utoEvents(after: $after) {
    sequence
    eventId
    ticketId
    domain
    type
    createdAt
    data
  }
}
    `) as unknown as TypedDocumentString<ConsoleUtoSubscription, ConsoleUtoSubscriptionVariables>;
export const ConsoleAgentProfileDocument = new TypedDocumentString(`
    query ConsoleAgentProfile($agentId: ID!, $days: Int) {
  agentReputation(agentId: $agentId) {
    agentId
    name
    reputation
    tier
    trustScore
    calls
    successes
    successRate
    disputes
    disputesOpen
    disputesLost
    reputationEvents30d
    reputationNet30d
    history(days: $days) {
      day
      score
      net
      events
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleAgentProfileQuery, ConsoleAgentProfileQueryVariables>;
export const ConsoleCatalogDocument = new TypedDocumentString(`
    query ConsoleCatalog {
  capabilities {
    total
    hierarchy {
      group
      name
      capabilities
    }
    capabilities {
      slug
      name
      description
      group
      serviceCount
      builtin
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleCatalogQuery, ConsoleCatalogQueryVariables>;
export const ConsoleCapabilityDocument = new TypedDocumentString(`
    query ConsoleCapability($slug: String!, $prefer: Prefer, $limit: Int) {
  capability(slug: $slug) {
    slug
    name
    description
    category
    parent
    providers
    bestReputation
    minPriceCents
    maxPriceCents
    marketplace {
      inputSchema
    }
  }
  providers(capability: $slug, prefer: $prefer, limit: $limit) {
    total
    totalIsEstimate
    resolutionTimeMs
    matches {
      serviceId
      serviceKey
      name
      providerId
      providerName
      reputation
      costCents
      pricingModel
      latencyP50Ms
      successRate
      score
      firstParty
      health
      quality {
        calls
        successRate
        uptime24h
        lowSample
      }
      scoreBreakdown {
        reputation
        cost
        reliability
        latency
        freshness
      }
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleCapabilityQuery, ConsoleCapabilityQueryVariables>;
export const ConsoleHealthDocument = new TypedDocumentString(`
    query ConsoleHealth($days: Int) {
  health {
    status
    version
    uptimeSeconds
    checkedAt
    components {
      database {
        status
        kind
        latencyMs
      }
      scheduler {
        status
        jobs
        lastRunAt
      }
      sse {
        status
        openStreams
        redis
      }
      memory {
        status
        rssBytes
        heapUsedBytes
        vectorSearch
      }
    }
  }
  uptime(days: $days) {
    days
    uptimePercent
    minutesObserved
    minutesUp
    since
  }
}
    `) as unknown as TypedDocumentString<ConsoleHealthQuery, ConsoleHealthQueryVariables>;
export const ConsoleMarketHomeDocument = new TypedDocumentString(`
    query ConsoleMarketHome {
  showcase {
    stats {
      totalAgents
      totalServices
      totalCapabilities
      totalTransactions
      totalTransactions30d
    }
    topServices {
      serviceId
      serviceKey
      name
      providerName
      reputation
      successes
      capabilities
    }
    recentExecutions {
      executionId
      capability
      serviceName
      status
      latencyMs
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleMarketHomeQuery, ConsoleMarketHomeQueryVariables>;
export const ConsoleServiceDocument = new TypedDocumentString(`
    query ConsoleService($serviceKey: String!) {
  service(serviceKey: $serviceKey) {
    serviceId
    serviceKey
    name
    description
    status
    capabilities
    languages
    pricingModel
    costPerCall
    createdAt
    provider {
      agentId
      name
      reputation
      tier
    }
    stats {
      totalCalls
      successes
      failures
      successRate
      latencyP50Ms
      latencyP95Ms
      lastSuccessAt
    }
    health
    lastFailureReason
    quality {
      windowDays
      calls
      successRate
      latencyP50Ms
      latencyP95Ms
      uptime24h
      uptime7d
      uptime30d
      probes
      lowSample
    }
    qualityDays {
      day
      successes
      failures
      probesPassed
      probesFailed
      latencyP50Ms
      latencyP95Ms
      uptime
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleServiceQuery, ConsoleServiceQueryVariables>;
export const ConsoleSkillDocument = new TypedDocumentString(`
    query ConsoleSkill($id: ID!) {
  skill(id: $id) {
    skillId
    name
    description
    runtime
    category
    entrypoint
    publishedVersion
    publishedAt
    installCount
    forkCount
    ownerAgentId
    instructions
  }
}
    `) as unknown as TypedDocumentString<ConsoleSkillQuery, ConsoleSkillQueryVariables>;
export const ConsoleSkillsDocument = new TypedDocumentString(`
    query ConsoleSkills($q: String, $runtime: SkillRuntime, $category: String, $sort: SkillMarketplaceSort, $after: String) {
  skillMarketplace(
    q: $q
    runtime: $runtime
    category: $category
    sort: $sort
    first: 20
    after: $after
  ) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      skillId
      name
      description
      runtime
      category
      version
      installCount
      forkCount
      publishedAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleSkillsQuery, ConsoleSkillsQueryVariables>;
export const ConsoleTryItDocument = new TypedDocumentString(`
    mutation ConsoleTryIt($input: ExecuteInput!) {
  execute(input: $input) {
    executionId
    status
    error
    result
    provider {
      serviceKey
      name
    }
    transaction {
      costCents
      latencyMs
    }
    attempts {
      ordinal
      serviceKey
      outcome
      category
      reason
      latencyMs
    }
    routing {
      skipped {
        serviceKey
        reason
        detail
      }
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleTryItMutation, ConsoleTryItMutationVariables>;
export const ConsoleWebmcpDocument = new TypedDocumentString(`
    query ConsoleWebmcp($q: String, $category: String, $after: String) {
  webmcpStats {
    sites
    totalTools
    byCategory {
      category
      tools
    }
  }
  webmcpTools(q: $q, category: $category, first: 25, after: $after) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      name
      description
      category
      siteName
      siteOrigin
      manifestUrl
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleWebmcpQuery, ConsoleWebmcpQueryVariables>;
export const ConsoleDisputesDocument = new TypedDocumentString(`
    query ConsoleDisputes($after: String) {
  myDisputes(first: 25, after: $after) {
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      disputeId
      form
      type
      reason
      description
      status
      resolved
      resolution
      refundCents
      serviceId
      executionId
      createdAt
      resolvedAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleDisputesQuery, ConsoleDisputesQueryVariables>;
export const ConsoleOpenDisputeDocument = new TypedDocumentString(`
    mutation ConsoleOpenDispute($input: CreateDisputeInput!) {
  createDispute(input: $input) {
    disputeId
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleOpenDisputeMutation, ConsoleOpenDisputeMutationVariables>;
export const ConsoleTicketDocument = new TypedDocumentString(`
    query ConsoleTicket($ticketKey: String!) {
  ticket(ticketKey: $ticketKey) {
    ticketKey
    subject
    description
    type
    priority
    status
    resolution
    targetService
    agentName
    createdAt
    comments {
      commentId
      author
      content
      createdAt
    }
    history {
      from
      to
      at
      actorKind
      note
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleTicketQuery, ConsoleTicketQueryVariables>;
export const ConsoleAddTicketCommentDocument = new TypedDocumentString(`
    mutation ConsoleAddTicketComment($ticketKey: String!, $input: TicketCommentInput!) {
  addTicketComment(ticketKey: $ticketKey, input: $input) {
    commentId
  }
}
    `) as unknown as TypedDocumentString<ConsoleAddTicketCommentMutation, ConsoleAddTicketCommentMutationVariables>;
export const ConsoleMoveTicketDocument = new TypedDocumentString(`
    mutation ConsoleMoveTicket($ticketKey: String!, $input: TicketStatusInput!) {
  updateTicketStatus(ticketKey: $ticketKey, input: $input) {
    ticketKey
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleMoveTicketMutation, ConsoleMoveTicketMutationVariables>;
export const ConsoleTicketsDocument = new TypedDocumentString(`
    query ConsoleTickets($status: String, $after: String) {
  tickets(status: $status, first: 25, after: $after) {
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      ticketKey
      subject
      type
      priority
      status
      targetService
      createdAt
      updatedAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleTicketsQuery, ConsoleTicketsQueryVariables>;
export const ConsoleFileTicketDocument = new TypedDocumentString(`
    mutation ConsoleFileTicket($input: ExecuteInput!) {
  execute(input: $input) {
    executionId
    status
    error
    result
  }
}
    `) as unknown as TypedDocumentString<ConsoleFileTicketMutation, ConsoleFileTicketMutationVariables>;
export const ConsoleDeliveriesDocument = new TypedDocumentString(`
    query ConsoleDeliveries($webhookId: ID!, $status: String, $after: String) {
  webhook(id: $webhookId) {
    webhookId
    url
    events
    active
  }
  webhookDeliveries(
    webhookId: $webhookId
    status: $status
    first: 25
    after: $after
  ) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      deliveryId
      eventId
      eventType
      status
      attempts
      lastStatus
      lastError
      nextAttemptAt
      deliveredAt
      createdAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleDeliveriesQuery, ConsoleDeliveriesQueryVariables>;
export const ConsoleRedeliverDocument = new TypedDocumentString(`
    mutation ConsoleRedeliver($webhookId: ID!, $deliveryId: ID!) {
  redeliverWebhookDelivery(webhookId: $webhookId, deliveryId: $deliveryId) {
    deliveryId
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleRedeliverMutation, ConsoleRedeliverMutationVariables>;
export const ConsoleUpdateWebhookDocument = new TypedDocumentString(`
    mutation ConsoleUpdateWebhook($id: ID!, $input: WebhookInput!) {
  updateWebhook(id: $id, input: $input) {
    webhookId
    url
    events
    active
  }
}
    `) as unknown as TypedDocumentString<ConsoleUpdateWebhookMutation, ConsoleUpdateWebhookMutationVariables>;
export const ConsoleDeleteWebhookDocument = new TypedDocumentString(`
    mutation ConsoleDeleteWebhook($id: ID!) {
  deleteWebhook(id: $id) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<ConsoleDeleteWebhookMutation, ConsoleDeleteWebhookMutationVariables>;
export const ConsoleWebhooksDocument = new TypedDocumentString(`
    query ConsoleWebhooks($after: String) {
  webhooks(first: 25, after: $after) {
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      webhookId
      url
      events
      active
      disabledReason
      createdAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleWebhooksQuery, ConsoleWebhooksQueryVariables>;
export const ConsoleCreateWebhookDocument = new TypedDocumentString(`
    mutation ConsoleCreateWebhook($input: WebhookInput!) {
  createWebhook(input: $input) {
    webhookId
    secret
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateWebhookMutation, ConsoleCreateWebhookMutationVariables>;
export const ConsoleMemoryEntriesDocument = new TypedDocumentString(`
    query ConsoleMemoryEntries($storeId: ID!, $prefix: String, $after: String) {
  memoryStore(id: $storeId) {
    storeId
    name
    storeType
    accessLevel
  }
  memoryEntries(storeId: $storeId, prefix: $prefix, first: 25, after: $after) {
    totalCount
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      key
      version
      value
      updatedAt
      expiresAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleMemoryEntriesQuery, ConsoleMemoryEntriesQueryVariables>;
export const ConsoleWriteMemoryEntryDocument = new TypedDocumentString(`
    mutation ConsoleWriteMemoryEntry($storeId: ID!, $input: WriteMemoryEntriesInput!) {
  writeMemoryEntries(storeId: $storeId, input: $input) {
    written
  }
}
    `) as unknown as TypedDocumentString<ConsoleWriteMemoryEntryMutation, ConsoleWriteMemoryEntryMutationVariables>;
export const ConsoleDeleteMemoryEntryDocument = new TypedDocumentString(`
    mutation ConsoleDeleteMemoryEntry($storeId: ID!, $key: String!) {
  deleteMemoryEntry(storeId: $storeId, key: $key) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<ConsoleDeleteMemoryEntryMutation, ConsoleDeleteMemoryEntryMutationVariables>;
export const ConsoleMemoryStoresDocument = new TypedDocumentString(`
    query ConsoleMemoryStores($after: String) {
  memoryStores(first: 25, after: $after) {
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      storeId
      name
      description
      storeType
      accessLevel
      dimensions
      defaultTtlSeconds
      createdAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleMemoryStoresQuery, ConsoleMemoryStoresQueryVariables>;
export const ConsoleCreateMemoryStoreDocument = new TypedDocumentString(`
    mutation ConsoleCreateMemoryStore($input: CreateMemoryStoreInput!) {
  createMemoryStore(input: $input) {
    storeId
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateMemoryStoreMutation, ConsoleCreateMemoryStoreMutationVariables>;
export const ConsoleSwarmDocument = new TypedDocumentString(`
    query ConsoleSwarm($id: String!) {
  swarmSession(id: $id) {
    sessionId
    goal
    strategy
    status
    stepCount
    completedSteps
    failedSteps
    createdAt
    finishedAt
    steps {
      stepId
      ordinal
      capability
      status
      provider
      attempts
      costCents
      error
      executionId
      finishedAt
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleSwarmQuery, ConsoleSwarmQueryVariables>;
export const ConsoleSwarmEventsDocument = new TypedDocumentString(`
    subscription ConsoleSwarmEvents($sessionId: String!, $after: Int) {
  swarmEvents(sessionId: $sessionId, after: $after) {
    sequence
    event
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleSwarmEventsSubscription, ConsoleSwarmEventsSubscriptionVariables>;
export const ConsoleCancelSwarmDocument = new TypedDocumentString(`
    mutation ConsoleCancelSwarm($id: String!) {
  cancelSwarmSession(id: $id) {
    sessionId
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleCancelSwarmMutation, ConsoleCancelSwarmMutationVariables>;
export const ConsoleSwarmsDocument = new TypedDocumentString(`
    query ConsoleSwarms($after: String) {
  swarmSessions(first: 25, after: $after) {
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      sessionId
      goal
      strategy
      status
      stepCount
      completedSteps
      failedSteps
      createdAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleSwarmsQuery, ConsoleSwarmsQueryVariables>;
export const ConsoleCreateSwarmDocument = new TypedDocumentString(`
    mutation ConsoleCreateSwarm($input: CreateSwarmSessionInput!) {
  createSwarmSession(input: $input) {
    sessionId
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateSwarmMutation, ConsoleCreateSwarmMutationVariables>;
export const ConsoleTaskDocument = new TypedDocumentString(`
    query ConsoleTask($id: String!) {
  task(id: $id) {
    taskId
    intent
    status
    successCriteria
    budget
    budgetRemaining
    spent
    deadline
    result
    createdAt
    completedAt
    delegations {
      delegationId
      subAgentId
      status
      createdAt
      endedAt
    }
    executions {
      taskExecutionId
      executionId
      capability
      status
      criteriaMet
      executorDelta
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleTaskQuery, ConsoleTaskQueryVariables>;
export const ConsoleCancelTaskDocument = new TypedDocumentString(`
    mutation ConsoleCancelTask($id: String!) {
  cancelTask(id: $id) {
    taskId
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleCancelTaskMutation, ConsoleCancelTaskMutationVariables>;
export const ConsoleTasksDocument = new TypedDocumentString(`
    query ConsoleTasks($status: String, $after: String) {
  tasks(status: $status, first: 25, after: $after) {
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      taskId
      intent
      status
      budget
      spent
      deadline
      delegateId
      createdAt
      executions {
        taskExecutionId
      }
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleTasksQuery, ConsoleTasksQueryVariables>;
export const ConsoleCreateTaskDocument = new TypedDocumentString(`
    mutation ConsoleCreateTask($input: CreateTaskInput!) {
  createTask(input: $input) {
    taskId
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateTaskMutation, ConsoleCreateTaskMutationVariables>;
export const ConsoleUtoTicketDocument = new TypedDocumentString(`
    query ConsoleUtoTicket($id: String!) {
  utoTicket(id: $id) {
    ticketId
    intent
    domain
    state
    requiredCapabilities
    maxBudgetUsd
    deadline
    context
    matches
    stateHistory {
      from
      to
      at
      by
      triggeredBy
      note
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleUtoTicketQuery, ConsoleUtoTicketQueryVariables>;
export const ConsoleAdvanceUtoTicketDocument = new TypedDocumentString(`
    mutation ConsoleAdvanceUtoTicket($id: String!, $input: AdvanceUtoTicketInput!) {
  advanceUtoTicket(id: $id, input: $input) {
    ticketId
    state
  }
}
    `) as unknown as TypedDocumentString<ConsoleAdvanceUtoTicketMutation, ConsoleAdvanceUtoTicketMutationVariables>;
export const ConsoleUtoTicketsDocument = new TypedDocumentString(`
    query ConsoleUtoTickets($state: String, $after: String) {
  utoTickets(state: $state, first: 25, after: $after) {
    pageInfo {
      ...ConsolePageInfo
    }
    nodes {
      ticketId
      intent
      domain
      state
      requiredCapabilities
      maxBudgetUsd
      deadline
      updatedAt
    }
  }
}
    fragment ConsolePageInfo on PageInfo {
  hasNextPage
  endCursor
}`) as unknown as TypedDocumentString<ConsoleUtoTicketsQuery, ConsoleUtoTicketsQueryVariables>;
export const ConsoleCreateUtoTicketDocument = new TypedDocumentString(`
    mutation ConsoleCreateUtoTicket($input: CreateUtoTicketInput!) {
  createUtoTicket(input: $input) {
    ticketId
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateUtoTicketMutation, ConsoleCreateUtoTicketMutationVariables>;