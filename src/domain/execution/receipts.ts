// What an execution answers: its receipt, with each attempt's and its payment's, made from what the call recorded.
import type { Agent } from '../../db/generated/prisma/client';
import type { Ctx } from '../context';
import type { ModelUsage } from '../first-party/types';
import type { PaidCall, X402Receipt } from '../payments/payments';
import type { MeteredUsage } from '../payments/metering';
import { centsToUnits, feeOf } from '../payments/setup';
import type { RoutingPolicy, SkippedProvider } from './policy';
import type { Mode } from './route';

/** What a failed attempt, or a provider passed over, comes to: the closed list a program acts on. */
export const FAILURE_CATEGORIES = [
  'timeout',
  'connect_error',
  'tls_error',
  'provider_5xx',
  'provider_4xx',
  'provider_rate_limited',
  'bad_output',
  'over_max_cost',
  'below_policy',
  'cooldown',
  'unhealthy',
  'deadline_exceeded',
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/** Reasons of the outbound client and of a provider's answer, by category (`http_<status>` is read from the status). */
const PROVIDER_REASONS: Record<string, FailureCategory> = {
  timeout: 'timeout',
  deadline_exceeded: 'deadline_exceeded',
  connection: 'connect_error',
  blocked_address: 'connect_error',
  invalid_url: 'connect_error',
  aborted: 'connect_error',
  internal: 'connect_error',
  tls: 'tls_error',
  invalid_json: 'bad_output',
  empty_body: 'bad_output',
  too_large: 'bad_output',
  // A metered answer that did not say what it used (payments/metering.ts).
  invalid_usage: 'bad_output',
};
/** The marketplace's own attempt's reasons; any other (a problem code) is its 5xx. */
const MARKETPLACE_REASONS: Record<string, FailureCategory> = {
  timeout: 'timeout',
  deadline_exceeded: 'deadline_exceeded',
  invalid_input: 'provider_4xx',
  invalid_output: 'bad_output',
};

/**
 * A failed attempt's category, from its reason and status (null for a success): `reason` stays the precise
 * cause (`http_503`, `invalid_json`, …), the category is what a program acts on.
 */
export function categoryOf(a: Pick<AttemptReceipt, 'outcome' | 'reason' | 'statusCode' | 'serviceId'>): FailureCategory | null {
  if (a.outcome === 'success' || a.reason === null) return null;
  if (a.serviceId === null) return MARKETPLACE_REASONS[a.reason] ?? 'provider_5xx';
  if (a.reason.startsWith('http_') && a.statusCode !== null) {
    if (a.statusCode === 429) return 'provider_rate_limited';
    if (a.statusCode >= 500) return 'provider_5xx';
    if (a.statusCode >= 400) return 'provider_4xx';
    return 'bad_output';
  }
  return PROVIDER_REASONS[a.reason] ?? 'connect_error';
}

/**
 * A provider's answers that refuse the caller's input rather than fail it: a `provider_4xx` all the same, but
 * counted apart from the provider's failures (provider-stats.ts), so that nobody lowers a competitor's standing
 * by sending it input it must refuse.
 */
export const EXCUSED_STATUSES = [400, 409, 413, 415, 422] as const;

/** What a call's routing policy was and whom it passed over (executions.routing). */
export interface RoutingRecord {
  /** The fields of the policy the caller set. */
  policy: Partial<RoutingPolicy>;
  skipped: SkippedProvider[];
}

export interface AttemptReceipt {
  ordinal: number;
  serviceId: string | null;
  serviceKey: string;
  outcome: 'success' | 'failure';
  reason: string | null;
  statusCode: number | null;
  latencyMs: number;
  score: number | null;
  priceCents: number;
  /** A model backend's usage, when the marketplace answered with a model. */
  usage?: ModelUsage | null;
  /** A provider's 429: the seconds its Retry-After asked for. */
  retryAfterSeconds?: number | null;
  /** A metered provider's answer: what it said it used and what was charged for it (payments/metering.ts). */
  metered?: MeteredUsage | null;
}

/** How a paid call was paid (null for a free one). Amounts in the asset's base units. */
export interface PaymentReceipt {
  method: 'prepaid' | 'x402';
  /** The caller's wallet, which paid. */
  walletAddress: string;
  /** Its id: what is left in it is read from it when the answer is made (Wallet balance, `balanceAfter`). */
  walletId: string | null;
  /**
   * What is left in that wallet as the statement that charged the call committed, when that statement
   * said (a call recorded with its charge); otherwise it is read when the answer is made.
   */
  balanceAfter?: bigint | null;
  /** What was held while the call ran: the most it could cost. */
  held: bigint;
  /** The price of the provider that answered; 0 when every provider failed. */
  charged: bigint;
  chargedCents: number;
  fee: bigint;
  providerShare: bigint;
  /** The x402 payment, when the call was paid with one (credited to the caller's wallet on settlement). */
  x402: X402Receipt | null;
  /** The mandate the call was paid under (its grantor's wallet paid), and what it has left (null: no mandate). */
  mandate: MandateReceipt | null;
  /** A metered call's use: charged what it used, up to `maxCents` (null: a price per call). */
  metered: MeteredPayment | null;
}

/** What a metered call used and was charged, against the most it could cost (payments/metering.ts). */
export interface MeteredPayment {
  unit: string;
  units: number;
  chargedUnits: number;
  centsPerUnit: number;
  /** The most the call could cost at its provider: what the call's budget in units was made from. */
  maxCents: number;
}

/** The metered use of the attempt that answered (null: none, or not metered). */
export function meteredPaymentOf(attempts: AttemptReceipt[]): MeteredPayment | null {
  const answered = attempts.find((a) => a.outcome === 'success');
  const m = answered?.metered;
  return m ? { unit: m.unit, units: m.units, chargedUnits: m.charged_units, centsPerUnit: m.cents_per_unit, maxCents: answered.priceCents } : null;
}

/** What a call paid under a mandate says of it: which, who paid, and what its caps leave now (null: no such cap). */
export interface MandateReceipt {
  mandateId: string;
  grantorId: string;
  perCallCents: number | null;
  remainingTodayCents: number | null;
  remainingThisMonthCents: number | null;
}

export interface ExecutionReceipt {
  executionId: string;
  /** The agent that made the call. */
  callerId: string;
  /** The input as the caller sent it (never answered: its digest is in the signed receipt). */
  input: Record<string, unknown>;
  capability: string;
  mode: Mode;
  status: 'success' | 'error';
  result: unknown;
  error: string | null;
  provider: { serviceId: string | null; serviceKey: string; name: string; reputation: number } | null;
  transaction: { transactionId: string; costCents: number; latencyMs: number };
  attempts: AttemptReceipt[];
  /** The routing policy and the providers passed over (null: no policy, nobody passed over). */
  routing: RoutingRecord | null;
  payment: PaymentReceipt | null;
  createdAt: Date;
}

export interface Recorded {
  me: Agent;
  capability: string;
  mode: Mode;
  input: Record<string, unknown>;
  status: 'success' | 'error';
  result: unknown;
  error: string | null;
  provider: ExecutionReceipt['provider'];
  costCents: number;
  latencyMs: number;
  attempts: AttemptReceipt[];
  routing?: RoutingRecord | null;
  /** The task the call was made under, and the holds on its budget to release as it is charged. */
  taskId?: string | null;
  holds?: string[];
  /** How the call is paid, and the wallet of the provider that answered (paid its share; the marketplace's when it has none). */
  paid?: PaidCall;
  providerWallet?: string;
}

/** What a paid call is charged: the answering provider's price, split into its share and the fee. */
export function chargeOf(ctx: Ctx, r: Recorded): { charged: bigint; fee: bigint; share: bigint } {
  if (!r.paid || r.costCents === 0) return { charged: 0n, fee: 0n, share: 0n };
  const { setup } = ctx.services.payments;
  const charged = centsToUnits(setup, r.costCents);
  const fee = feeOf(setup, charged);
  return { charged, fee, share: charged - fee };
}

function paymentReceiptOf(ctx: Ctx, r: Recorded, balanceAfter?: bigint, mandateLeft?: MandateLeft): PaymentReceipt | null {
  if (!r.paid) return null;
  const { charged, fee, share } = chargeOf(ctx, r);
  const m = r.paid.mandate;
  return {
    mandate: m
      ? {
          mandateId: m.mandateId,
          grantorId: m.grantorId,
          perCallCents: m.perCallCents,
          remainingTodayCents: mandateLeft?.today ?? null,
          remainingThisMonthCents: mandateLeft?.thisMonth ?? null,
        }
      : null,
    ...(balanceAfter === undefined ? {} : { balanceAfter }),
    method: r.paid.method,
    walletAddress: r.paid.hold.address,
    walletId: r.paid.hold.walletId,
    held: r.paid.hold.amount,
    charged,
    chargedCents: r.costCents,
    fee,
    providerShare: share,
    x402: r.paid.x402 ?? null,
    metered: meteredPaymentOf(r.attempts),
  };
}

/** What a mandate's caps leave after a call's charge, per period (null: no such cap). */
export interface MandateLeft {
  today: number | null;
  thisMonth: number | null;
}

export function receiptOf(
  ctx: Ctx,
  executionId: string,
  transactionId: string,
  r: Recorded,
  at: Date,
  balanceAfter?: bigint,
  mandateLeft?: MandateLeft,
): ExecutionReceipt {
  return {
    executionId,
    callerId: r.me.id,
    input: r.input,
    capability: r.capability,
    mode: r.mode,
    status: r.status,
    result: r.result ?? null,
    error: r.error,
    provider: r.provider,
    transaction: { transactionId, costCents: r.costCents, latencyMs: r.latencyMs },
    attempts: r.attempts,
    routing: r.routing ?? null,
    payment: paymentReceiptOf(ctx, r, balanceAfter, mandateLeft),
    createdAt: at,
  };
}
