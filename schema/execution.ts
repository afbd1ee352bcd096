// Execute: a capability call routed to providers with fallback, or served by the marketplace's built-ins.
import * as execution from '../src/domain/execution/execute';
import {
  categoryOf,
  FAILURE_CATEGORIES,
  MAX_DEADLINE_MS,
  MAX_NAMED,
  ROUTING_SORTS,
  type RoutingPolicy,
  type RoutingRecord,
  type SkippedProvider as SkippedProviderShape,
} from '../src/domain/execution/execute';
import type { X402Receipt } from '../src/domain/payments/payments';
import type { MeteredUsage } from '../src/domain/payments/metering';
import type { ModelUsage as ModelUsageShape } from '../src/domain/first-party/types';
import { balanceNow } from '../src/domain/payments/ledger';
import { formatAsset } from '../src/domain/wallets/wallets';
import { executionReceipt, signedReceipt, type SignedExecutionReceipt } from '../src/domain/execution/signed-receipt';
import { builder } from './builder';
import { amountFields } from './wallets';

const SIGNED_RECEIPT =
  'The receipt as a compact JWS (EdDSA, `typ` receipt+jwt, `kid` of /.well-known/jwks.json) that any JOSE library verifies offline: its `receipt` claim binds the execution, capability, caller, provider (service key), SHA-256 digests of the RFC 8785 canonical JSON of the input as sent and of the result as answered, the price, the payment and its reference, every attempt with its outcome, and the time';

const ExecuteModeEnum = builder.enumType('ExecuteMode', {
  description: '`auto`: the best-ranked providers, up to 3, skipping cooling ones; `chosen`: exactly `provider`',
  values: execution.MODES,
});

const ExecutionProvider = builder.objectRef<NonNullable<execution.ExecutionReceipt['provider']>>('ExecutionProvider').implement({
  fields: (t) => ({
    serviceId: t.exposeID('serviceId', { nullable: true, description: 'Null for the marketplace itself' }),
    serviceKey: t.exposeString('serviceKey', { description: '`marketplace` for a built-in capability' }),
    name: t.exposeString('name'),
    reputation: t.exposeInt('reputation'),
  }),
});

const ExecutionCharge = builder.objectRef<execution.ExecutionReceipt['transaction']>('ExecutionCharge').implement({
  fields: (t) => ({
    transactionId: t.exposeID('transactionId'),
    costCents: t.exposeInt('costCents', { description: "The provider's price per call; 0 when every attempt failed" }),
    latencyMs: t.exposeInt('latencyMs', { description: 'The whole execution, every attempt included' }),
  }),
});

const ModelUsage = builder.objectRef<ModelUsageShape>('ModelUsage').implement({
  description: "What a model-backed answer cost the marketplace's model backend",
  fields: (t) => ({
    model: t.exposeString('model'),
    promptTokens: t.exposeInt('prompt_tokens'),
    completionTokens: t.exposeInt('completion_tokens'),
    totalTokens: t.exposeInt('total_tokens'),
  }),
});

const MeteredUsageType = builder.objectRef<MeteredUsage>('MeteredUsage').implement({
  description: 'What a metered provider said an attempt used, and what was charged for it (docs/payments.md, Metered calls)',
  fields: (t) => ({
    unit: t.exposeString('unit'),
    units: t.exposeInt('units', { description: 'The units the provider said it used (its X-Usage-Units header)' }),
    centsPerUnit: t.exposeFloat('cents_per_unit'),
    chargedUnits: t.exposeInt('charged_units', { description: "The units charged: those used, up to the call's budget" }),
    chargedCents: t.exposeInt('charged_cents', { description: 'What they cost, rounded up to a whole cent, never above the price held' }),
  }),
});

const MeteredPaymentType = builder.objectRef<execution.MeteredPayment>('MeteredPayment').implement({
  description: "A metered call's charge: the units it used at the unit price, up to the most it could cost; the rest of what was held went back",
  fields: (t) => ({
    unit: t.exposeString('unit'),
    units: t.exposeInt('units', { description: 'The units the provider said it used' }),
    chargedUnits: t.exposeInt('chargedUnits', { description: "The units charged: those used, up to the call's budget" }),
    centsPerUnit: t.exposeFloat('centsPerUnit'),
    maxCents: t.exposeInt('maxCents', { description: 'The most the call could cost at this provider: its budget in units is what this pays for' }),
  }),
});

export const AttemptReceipt = builder.objectRef<execution.AttemptReceipt>('AttemptReceipt').implement({
  description: 'One provider tried, in order',
  fields: (t) => ({
    ordinal: t.exposeInt('ordinal'),
    serviceId: t.exposeID('serviceId', { nullable: true }),
    serviceKey: t.exposeString('serviceKey'),
    outcome: t.exposeString('outcome', { description: '`success` or `failure`' }),
    reason: t.exposeString('reason', {
      nullable: true,
      description:
        "Why it failed, precisely: http_<status>, timeout, deadline_exceeded (the caller's routing.deadline_ms ran out during it), connection, tls, blocked_address, invalid_json (not JSON, or JSON the marketplace cannot store: a NUL character, a lone surrogate, nesting past 32 levels), empty_body, too_large, invalid_usage (a metered provider's answer without its X-Usage-Units); the marketplace's own attempts: invalid_input, invalid_output, timeout, deadline_exceeded, or a problem code (the execution's `error` quotes its detail). `category` is what a program acts on",
    }),
    category: t.field({
      type: FailureCategoryEnum,
      nullable: true,
      description:
        "What the failure comes to (null for a success): timeout, connect_error, tls_error, provider_5xx, provider_4xx (400, 409, 413, 415 and 422 refuse the caller's input and are not counted against the provider), provider_rate_limited (the provider's own 429, never the marketplace's: see retry_after_seconds), bad_output (not JSON, or not matching the capability's declared output schema), deadline_exceeded",
      resolve: (a) => categoryOf(a),
    }),
    retryAfterSeconds: t.int({
      nullable: true,
      description: "A provider's 429: the seconds its Retry-After asked for; it is skipped by auto mode for that long, no longer",
      resolve: (a) => a.retryAfterSeconds ?? null,
    }),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs'),
    score: t.exposeFloat('score', { nullable: true, description: "The provider's ranking score (auto mode)" }),
    priceCents: t.exposeInt('priceCents'),
    usage: t.field({
      type: ModelUsage,
      nullable: true,
      description:
        "The model backend's usage, when the marketplace's attempt called a model: a failed attempt's too (what the backend reported spending on it)",
      resolve: (a) => a.usage ?? null,
    }),
    metered: t.field({
      type: MeteredUsageType,
      nullable: true,
      description: "A metered provider's answer: what it said it used and what was charged (null: not metered, or it failed)",
      resolve: (a) => a.metered ?? null,
    }),
  }),
});

const X402PaymentReceipt = builder.objectRef<X402Receipt>('X402PaymentReceipt').implement({
  description: "The x402 payment a call was paid with, settled and credited to the caller's wallet",
  fields: (t) => ({
    paymentId: t.exposeID('paymentId'),
    payer: t.exposeString('payer', { description: 'The address that signed the payment' }),
    ...amountFields(t, 'amount', (p: X402Receipt) => p.amount, 'What the payment paid'),
    transaction: t.exposeString('transaction', { description: "The settlement's transaction hash (in sandbox mode, on the chain the ledger plays)" }),
    network: t.exposeString('network', { description: 'CAIP-2, `eip155:84532` in sandbox mode' }),
  }),
});

/** What is left in the wallet that paid: as the call's charge committed when that is known, else read now (null when it is gone). */
function balanceAfter(p: execution.PaymentReceipt, ctx: Parameters<typeof balanceNow>[0]): Promise<bigint | null> {
  if (p.balanceAfter !== undefined) return Promise.resolve(p.balanceAfter);
  return p.walletId ? balanceNow(ctx, p.walletId) : Promise.resolve(null);
}
const BALANCE_AFTER =
  "What is left in the caller's wallet once this call was charged: the balance the statement that recorded and charged it left (calls of the same wallet recorded by that statement count too), or, where no charging statement said it (a replayed payment's answer, a call that charged nothing), its balance when the answer was made; null when the wallet is gone";

const MandateReceipt = builder.objectRef<execution.MandateReceipt>('MandateReceipt').implement({
  description: "The spend mandate a call was paid under: its grantor's wallet paid, within the mandate's caps (docs/payments.md, Spend mandates)",
  fields: (t) => ({
    mandateId: t.exposeID('mandateId'),
    grantorId: t.exposeID('grantorId', { description: 'The agent whose wallet paid' }),
    perCallCents: t.exposeInt('perCallCents', { nullable: true, description: 'The most one call may cost under it (null: no cap)' }),
    remainingTodayCents: t.exposeInt('remainingTodayCents', {
      nullable: true,
      description: 'What its daily cap leaves once this call was charged, calls in flight held (null: no daily cap, or a receipt read again later)',
    }),
    remainingThisMonthCents: t.exposeInt('remainingThisMonthCents', {
      nullable: true,
      description: 'What its monthly cap leaves once this call was charged, calls in flight held (null: no monthly cap, or a receipt read again later)',
    }),
  }),
});

export const PaymentReceipt = builder.objectRef<execution.PaymentReceipt>('PaymentReceipt').implement({
  description: "How a paid call was paid: its price was held on the caller's wallet while it ran, and the answering provider's price charged",
  fields: (t) => ({
    method: t.exposeString('method', { description: "`prepaid` (the caller's wallet covered it) or `x402` (paid with PAYMENT-SIGNATURE)" }),
    walletAddress: t.exposeString('walletAddress', { description: "The caller's wallet, which paid" }),
    ...amountFields(t, 'held', (p: execution.PaymentReceipt) => p.held, 'Held while the call ran: the dearest provider it could try'),
    ...amountFields(t, 'charged', (p: execution.PaymentReceipt) => p.charged, "The answering provider's price; 0 when every provider failed"),
    chargedCents: t.exposeInt('chargedCents'),
    ...amountFields(t, 'fee', (p: execution.PaymentReceipt) => p.fee, "The marketplace's fee, part of the charge"),
    ...amountFields(t, 'providerShare', (p: execution.PaymentReceipt) => p.providerShare, "The provider's share of the charge"),
    balanceAfter: t.string({
      nullable: true,
      description: `${BALANCE_AFTER}: a decimal string in the asset, every decimal given`,
      resolve: async (p, _a, ctx) => {
        const units = await balanceAfter(p, ctx);
        return units === null ? null : formatAsset(ctx, units);
      },
    }),
    balanceAfterBaseUnits: t.string({
      nullable: true,
      description: `${BALANCE_AFTER}, in the asset's base units (an integer string)`,
      resolve: async (p, _a, ctx) => (await balanceAfter(p, ctx))?.toString() ?? null,
    }),
    x402: t.field({ type: X402PaymentReceipt, nullable: true, resolve: (p) => p.x402 }),
    mandate: t.field({
      type: MandateReceipt,
      nullable: true,
      description: "The spend mandate the call was paid under (its grantor's wallet paid, `walletAddress`); null when the caller paid",
      resolve: (p) => p.mandate ?? null,
    }),
    metered: t.field({
      type: MeteredPaymentType,
      nullable: true,
      description: 'A metered call: what it used and was charged for, against the most it could cost (null: a price per call)',
      resolve: (p) => p.metered ?? null,
    }),
  }),
});

const FailureCategoryEnum = builder.enumType('FailureCategory', {
  description: 'What a failed attempt, or a provider passed over, comes to: the closed list a program acts on',
  values: FAILURE_CATEGORIES,
});

const RoutingSortEnum = builder.enumType('RoutingSort', {
  description:
    "How one call ranks its providers: `balanced` (as without a policy), `cost`, `latency`, `reputation` (the rankings resolve names), or `reliability` (the measured success rate, of the balanced ranking's first 50)",
  values: ROUTING_SORTS,
});

const SkippedProvider = builder.objectRef<SkippedProviderShape>('SkippedProvider').implement({
  description: 'A provider the call passed over before or between attempts, and why',
  fields: (t) => ({
    serviceId: t.exposeID('serviceId', { nullable: true }),
    serviceKey: t.exposeString('serviceKey'),
    reason: t.field({
      type: FailureCategoryEnum,
      description:
        "over_max_cost, below_policy (min_success_rate, max_latency_p95_ms), cooldown (after failures, or a provider's Retry-After), unhealthy (failed the marketplace's health probes), deadline_exceeded (not tried: the deadline had passed)",
      resolve: (s) => s.reason,
    }),
    detail: t.exposeString('detail', { description: 'The figures behind the reason' }),
    priceCents: t.exposeInt('priceCents'),
  }),
});

const RoutingApplied = builder.objectRef<RoutingPolicy>('RoutingApplied').implement({
  description: 'The fields of the routing policy the caller set',
  fields: (t) => ({
    maxCostCents: t.int({ nullable: true, resolve: (p) => p.maxCostCents ?? null }),
    deadlineMs: t.int({ nullable: true, resolve: (p) => p.deadlineMs ?? null }),
    only: t.stringList({ nullable: true, resolve: (p) => p.only ?? null }),
    ignore: t.stringList({ nullable: true, resolve: (p) => p.ignore ?? null }),
    order: t.stringList({ nullable: true, resolve: (p) => p.order ?? null }),
    allowFallbacks: t.boolean({ resolve: (p) => p.allowFallbacks !== false }),
    sort: t.field({ type: RoutingSortEnum, nullable: true, resolve: (p) => p.sort ?? null }),
    minSuccessRate: t.float({ nullable: true, resolve: (p) => p.minSuccessRate ?? null }),
    maxLatencyP95Ms: t.int({ nullable: true, resolve: (p) => p.maxLatencyP95Ms ?? null }),
  }),
});

const ExecutionRouting = builder.objectRef<RoutingRecord>('ExecutionRouting').implement({
  description: 'How the call was routed: the policy it gave, and the providers passed over',
  fields: (t) => ({
    policy: t.field({ type: RoutingApplied, resolve: (r) => r.policy as RoutingPolicy }),
    skipped: t.field({ type: [SkippedProvider], resolve: (r) => r.skipped }),
  }),
});

const ExecutionReceipt = builder.objectRef<execution.ExecutionReceipt>('ExecutionReceipt').implement({
  fields: (t) => ({
    executionId: t.exposeID('executionId'),
    capability: t.exposeString('capability'),
    mode: t.expose('mode', { type: ExecuteModeEnum }),
    status: t.exposeString('status', { description: '`success` or `error`' }),
    result: t.field({ type: 'JSON', nullable: true, description: "The provider's JSON answer", resolve: (r) => r.result }),
    error: t.exposeString('error', { nullable: true }),
    provider: t.field({ type: ExecutionProvider, nullable: true, description: 'The provider that answered (or was tried last)', resolve: (r) => r.provider }),
    transaction: t.field({ type: ExecutionCharge, resolve: (r) => r.transaction }),
    attempts: t.field({ type: [AttemptReceipt], resolve: (r) => r.attempts }),
    routing: t.field({
      type: ExecutionRouting,
      nullable: true,
      description:
        'The routing policy given and the providers passed over (cooling down, over the price bound, below the policy, out of time); null when neither',
      resolve: (r) => r.routing,
    }),
    payment: t.field({ type: PaymentReceipt, nullable: true, description: 'How a paid call was paid; null for a free one', resolve: (r) => r.payment }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    signedReceipt: t.string({
      description: SIGNED_RECEIPT,
      resolve: (r, _a, ctx) => signedReceipt(ctx, r),
    }),
  }),
});

const SignedExecutionReceiptType = builder.objectRef<SignedExecutionReceipt>('SignedExecutionReceipt').implement({
  description: "An execution's signed receipt, for either party to the call",
  fields: (t) => ({
    executionId: t.exposeID('executionId'),
    signedReceipt: t.exposeString('signedReceipt', { description: SIGNED_RECEIPT }),
    keyId: t.exposeString('keyId', { description: 'The `kid` that signed it: a key of /.well-known/jwks.json' }),
    claims: t.field({
      type: 'JSON',
      description: "The token's claims, decoded: `iss`, `sub` (the caller), `jti` (the execution), `iat`, and `receipt`, what it binds",
      resolve: (r) => r.claims,
    }),
  }),
});

builder.queryField('executionReceipt', (t) =>
  t.field({
    type: SignedExecutionReceiptType,
    description:
      "An execution's signed receipt, made from the execution as recorded (the token its execute answered, while the same key signs): for the agent that made the call or the owner of the provider that answered it; anyone else's is not found",
    args: { executionId: t.arg.id({ required: true }) },
    resolve: (_r, { executionId }, ctx) => executionReceipt(ctx, String(executionId)),
  }),
);

const RoutingPolicyInput = builder.inputType('RoutingPolicy', {
  description:
    'Bounds on one call, every field optional; a call without one is routed as always. What the policy passes over is listed in the receipt (`routing.skipped`)',
  fields: (t) => ({
    maxCostCents: t.int({
      description: 'Never pay more (integer cents): dearer providers are skipped (over_max_cost); when none is left, 400 naming the cheapest price on offer',
    }),
    deadlineMs: t.int({
      description: `One budget for the whole call, fallbacks and a wait for a cooldown included (1 to ${MAX_DEADLINE_MS}): each attempt gets the smaller of the provider timeout and what is left; past it the call ends with the attempts so far, its error says so (deadline_exceeded), and nothing is charged`,
    }),
    only: t.stringList({ description: `Only these providers (service keys, ids, or "marketplace"; at most ${MAX_NAMED}), however they rank` }),
    ignore: t.stringList({ description: `Never these (at most ${MAX_NAMED})` }),
    order: t.stringList({ description: `These first, in this order; then the ranking's others (at most ${MAX_NAMED})` }),
    allowFallbacks: t.boolean({ description: 'Default true; false: the first provider left is the only one tried' }),
    sort: t.field({ type: RoutingSortEnum, description: "The ranking for this call; default balanced (the caller's preference is not read)" }),
    minSuccessRate: t.float({
      description: 'From 0 to 1: skip providers whose success rate (as resolve shows it: successes + 1 over calls + 2, a newcomer 0.5) is lower (below_policy)',
    }),
    maxLatencyP95Ms: t.int({ description: 'Skip providers whose measured p95 latency is higher, or not measured yet (below_policy)' }),
  }),
});

const ExecuteInput = builder.inputType('ExecuteInput', {
  fields: (t) => ({
    capability: t.string({ required: true, description: 'The capability identifier, such as "summarize"' }),
    input: t.field({
      type: 'JSON',
      required: true,
      description:
        "Free-form, capability-specific object: a registered provider gets it exactly as sent; the marketplace's own attempt reads it by the capability's input schema (GET /capabilities)",
      extensions: { jsonSchema: { type: 'object' } },
    }),
    provider: t.string({ description: 'A service key (svc_…) or service id; required with mode chosen' }),
    mode: t.field({ type: ExecuteModeEnum, description: 'Default auto' }),
    taskId: t.string({
      description: "A task delegated to the caller: the call is made under it and its budget pays (402 when what is left does not cover the provider's price)",
    }),
    routing: t.field({
      type: RoutingPolicyInput,
      description:
        "The caller's bounds on this call (price, deadline, who, order, ranking, minimum quality). With mode chosen only max_cost_cents, deadline_ms and allow_fallbacks apply (the others are 400); the marketplace's own capabilities (ticketing, security, radio, books) answer at once and read none of it",
    }),
  }),
});

builder.mutationField('execute', (t) =>
  t.field({
    type: ExecutionReceipt,
    description:
      "Call a capability: signed POST to the provider (CONTRACT §6), fallback in auto mode, everything recorded. A paid capability is paid from the caller's wallet, or with `payment`; when neither pays, the error's `extensions.code` is PAYMENT_REQUIRED and its extensions carry the x402 PaymentRequired (`x402Version`, `resource`, `accepts`)",
    args: {
      input: t.arg({ type: ExecuteInput, required: true }),
      payment: t.arg.string({
        description:
          'An x402 v2 PaymentPayload for the call (scheme exact, EIP-3009), as PAYMENT-SIGNATURE carries it: the base64 of its JSON (or the JSON itself)',
      }),
    },
    resolve: (_r, { input, payment }, ctx) => execution.execute(ctx, input, { payment }),
  }),
);
