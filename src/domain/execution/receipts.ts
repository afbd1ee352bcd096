// What an execution answers: its receipt, with each attempt's and its payment's, made from what the call recorded.
import type { Agent } from '../../db/generated/prisma/client';
import type { Ctx } from '../context';
import type { ModelUsage } from '../first-party/types';
import type { PaidCall, X402Receipt } from '../payments/payments';
import { centsToUnits, feeOf } from '../payments/setup';
import type { Mode } from './route';

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
}

export interface ExecutionReceipt {
  executionId: string;
  capability: string;
  mode: Mode;
  status: 'success' | 'error';
  result: unknown;
  error: string | null;
  provider: { serviceId: string | null; serviceKey: string; name: string; reputation: number } | null;
  transaction: { transactionId: string; costCents: number; latencyMs: number };
  attempts: AttemptReceipt[];
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

function paymentReceiptOf(ctx: Ctx, r: Recorded, balanceAfter?: bigint): PaymentReceipt | null {
  if (!r.paid) return null;
  const { charged, fee, share } = chargeOf(ctx, r);
  return {
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
  };
}

export function receiptOf(ctx: Ctx, executionId: string, transactionId: string, r: Recorded, at: Date, balanceAfter?: bigint): ExecutionReceipt {
  return {
    executionId,
    capability: r.capability,
    mode: r.mode,
    status: r.status,
    result: r.result ?? null,
    error: r.error,
    provider: r.provider,
    transaction: { transactionId, costCents: r.costCents, latencyMs: r.latencyMs },
    attempts: r.attempts,
    payment: paymentReceiptOf(ctx, r, balanceAfter),
    createdAt: at,
  };
}
