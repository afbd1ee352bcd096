// Replay: an execution read back as it was recorded, the answer to a payment that already paid for that call.
import type { Ctx } from '../context';
import type { ModelUsage } from '../first-party/types';
import type { MeteredUsage } from '../payments/metering';
import { meteredPaymentOf, type AttemptReceipt, type ExecutionReceipt, type RoutingRecord } from './receipts';
import type { Mode } from './route';

/**
 * An execution as recorded, with its payment: what a replayed payment answers. The provider's name and
 * reputation are as they are now.
 */
export async function recordedReceipt(ctx: Ctx, executionId: string): Promise<ExecutionReceipt> {
  const db = ctx.services.db;
  const e = await db.execution.findUniqueOrThrow({ where: { id: executionId } });
  const [attempts, charge, entries, payment] = await Promise.all([
    db.executionAttempt.findMany({ where: { executionId }, orderBy: { ordinal: 'asc' } }),
    db.transaction.findFirst({ where: { executionId, kind: 'charge' }, select: { id: true } }),
    db.walletEntry.findMany({ where: { executionId, kind: { in: ['charge', 'earning', 'fee'] } } }),
    db.x402Payment.findFirst({ where: { executionId } }),
  ]);
  const last = attempts.find((a) => a.outcome === 'success') ?? attempts[attempts.length - 1];
  const service = last?.serviceId
    ? await db.service.findUnique({ where: { id: last.serviceId }, select: { name: true, agent: { select: { reputation: true } } } })
    : null;
  const sum = (kind: string) => entries.filter((x) => x.kind === kind).reduce((t, x) => t + x.amount, 0n);
  const payer = entries.find((x) => x.kind === 'charge');
  // The wallet charged: the caller's, or under a mandate its grantor's.
  const payerWallet = payer
    ? await db.wallet.findUnique({ where: { id: payer.walletId }, select: { id: true, address: true } })
    : payment
      ? await db.wallet.findUnique({ where: { agentId: e.agentId }, select: { id: true, address: true } })
      : null;
  const mandate = e.mandateId ? await db.mandate.findUnique({ where: { id: e.mandateId }, select: { id: true, grantorId: true, perCallCents: true } }) : null;
  const attemptReceipts: AttemptReceipt[] = attempts.map((a) => ({
    ordinal: a.ordinal,
    serviceId: a.serviceId,
    serviceKey: a.serviceKey,
    outcome: a.outcome as 'success' | 'failure',
    reason: a.reason,
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    score: a.score,
    priceCents: a.priceCents,
    usage: (a.usage as ModelUsage | null) ?? null,
    ...(a.metered !== null ? { metered: a.metered as unknown as MeteredUsage } : {}),
    ...(a.retryAfterSeconds !== null ? { retryAfterSeconds: a.retryAfterSeconds } : {}),
  }));
  return {
    executionId: e.id,
    callerId: e.agentId,
    input: (e.input as Record<string, unknown> | null) ?? {},
    capability: e.capability,
    mode: e.mode as Mode,
    status: e.status as 'success' | 'error',
    result: e.result ?? null,
    error: e.error,
    provider: last
      ? { serviceId: last.serviceId, serviceKey: last.serviceKey, name: service?.name ?? last.serviceKey, reputation: service?.agent.reputation ?? 0 }
      : null,
    transaction: { transactionId: charge?.id ?? '', costCents: e.costCents, latencyMs: e.latencyMs },
    attempts: attemptReceipts,
    routing: (e.routing as RoutingRecord | null) ?? null,
    payment:
      payment || payer
        ? {
            method: payment ? 'x402' : 'prepaid',
            walletAddress: payerWallet?.address ?? '',
            walletId: payerWallet?.id ?? null,
            held: payment?.amount ?? -sum('charge'),
            charged: -sum('charge'),
            chargedCents: e.costCents,
            fee: sum('fee'),
            providerShare: sum('earning'),
            metered: meteredPaymentOf(attemptReceipts),
            x402: payment
              ? { paymentId: payment.id, payer: payment.payer, amount: payment.amount, transaction: payment.transaction ?? '', network: payment.network }
              : null,
            // Read again later, a receipt says which mandate paid; what it had left is the call's answer's alone.
            mandate: mandate
              ? {
                  mandateId: mandate.id,
                  grantorId: mandate.grantorId,
                  perCallCents: mandate.perCallCents,
                  remainingTodayCents: null,
                  remainingThisMonthCents: null,
                }
              : null,
          }
        : null,
    createdAt: e.createdAt,
  };
}
