// Disputes (spec §4.4, §4.15): about a service (form A) or one transaction (form B). On creation the
// pipeline decides what the records prove — a charge for an execution whose every attempt failed, or a
// charge other than the provider's price, is refunded through the ledger and resolved, and the provider's
// reputation moves — and leaves the rest `under_review` for an administrator. A dispute filed by a
// Contributor or above (priority resolution) is decided, and reviewed, before the others.
import type { DbTx } from '../../db/database';
import type { Dispute, Prisma } from '../../db/generated/prisma/client';
import { Conflict, NotFound, ValidationFailed } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { assertMove, type Moves } from '../../platform/state-machine';
import { Checks } from '../../platform/validate';
import { idleUntilDue, Worker } from '../../platform/worker';
import { requireAdmin, requireAgent } from '../agents/principal';
import { recordStateChange } from '../audit/audit';
import type { Ctx, Services } from '../context';
import { transact, type Emit } from '../events';
import { hasPriorityResolution } from '../reputation/privileges';
import { applyReputation } from '../reputation/reputation';
import type { Page } from '../../platform/page';
import { verifyReceipt, type ReceiptClaim } from '../execution/signed-receipt';
import { freezeEscrow, lockedEscrow, releaseFrozen, settleIfDue, takeFromEscrow } from '../payments/escrow';
import { transfer } from '../payments/ledger';
import { ACCOUNTS, centsToUnits, SYSTEM_ACCOUNT_IDS } from '../payments/setup';

declare module '../context' {
  interface Services {
    /** Decides new disputes from the records, or sends them to review. */
    disputes: DisputePipeline;
  }
}

export const DISPUTE_TYPES = ['billing', 'quality', 'availability'] as const;
export const DISPUTE_REASONS = ['provider_error', 'billing_error', 'service_failure', 'other'] as const;
export const DISPUTE_STATUSES = ['open', 'under_review', 'resolved'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const DISPUTE_MOVES: Moves<DisputeStatus> = {
  open: ['under_review', 'resolved'],
  under_review: ['resolved'],
  resolved: [],
};

/** Reputation a provider loses when a dispute against it ends in a refund. */
export const REFUND_PENALTY = 2;
const EVIDENCE_MAX_BYTES = 64 * 1024;

export interface DisputeInput {
  serviceId?: unknown;
  type?: unknown;
  description?: unknown;
  evidence?: unknown;
  transactionId?: unknown;
  reason?: unknown;
  /** Form B: the disputed call's signed receipt (its execute answer's `signed_receipt`). */
  receipt?: unknown;
}

/** The facts every dispute event carries. */
function disputeFacts(d: Dispute): Record<string, unknown> {
  return {
    dispute_id: d.id,
    form: d.form,
    kind: d.kind,
    status: d.status,
    service_id: d.serviceId,
    transaction_id: d.transactionId,
    resolution: d.resolution,
    refund_cents: d.refundCents,
    disputed_by: d.agentId,
  };
}

/** Emits a dispute event to the disputing agent and, when known and another agent, to the provider. */
async function emitDisputeEvent(emit: Emit, d: Dispute, type: 'dispute.created' | 'dispute.resolved'): Promise<void> {
  await emit(d.agentId, type, disputeFacts(d));
  if (d.providerAgentId && d.providerAgentId !== d.agentId) await emit(d.providerAgentId, type, disputeFacts(d));
}

/**
 * A receipt a form B dispute cites, checked: signed by the marketplace, and the receipt of the disputed charge's
 * execution (400 naming `receipt` otherwise). Kept as the dispute's evidence, which the pipeline reads.
 */
function citedReceipt(services: Services, token: string, executionId: string | null): Prisma.InputJsonObject {
  const verified = verifyReceipt(services, token);
  if (!verified.ok) throw new ValidationFailed([{ path: 'receipt', message: `is not a receipt this marketplace signed (${verified.reason})` }]);
  if (verified.claims.receipt.execution_id !== executionId) {
    throw new ValidationFailed([
      { path: 'receipt', message: `is the receipt of execution ${verified.claims.receipt.execution_id}, not of the disputed charge's` },
    ]);
  }
  return { signed_receipt: token, key_id: verified.keyId };
}

export async function createDispute(ctx: Ctx, input: DisputeInput): Promise<Dispute> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const given = (v: unknown) => v !== undefined && v !== null;
  // Form B's own word (reason) without either form's id is form B missing its transaction_id.
  const byTransaction = given(input.transactionId) || (given(input.reason) && !given(input.serviceId) && !given(input.type));
  let data: Prisma.DisputeUncheckedCreateInput;
  if (byTransaction) {
    if (!given(input.transactionId)) checks.fail('transactionId', 'is required (or serviceId, to dispute a service)');
    else if (!isUuid(input.transactionId)) checks.fail('transactionId', 'must be a transaction id (UUID)');
    const reason = checks.oneOf('reason', input.reason, DISPUTE_REASONS);
    const description = checks.text('description', input.description, { max: 5000, multiline: true });
    const receipt = checks.text('receipt', input.receipt, { max: 16_384 });
    checks.done();
    const transaction = await ctx.db.transaction.findFirst({ where: { id: input.transactionId as string, agentId: me.id } });
    if (!transaction) throw new NotFound('transaction', String(input.transactionId));
    if (transaction.kind !== 'charge') throw new Conflict('Only a charge can be disputed');
    const cited = receipt ? citedReceipt(ctx.services, receipt, transaction.executionId) : undefined;
    const provider = transaction.serviceId ? await ctx.db.service.findUnique({ where: { id: transaction.serviceId }, select: { agentId: true } }) : null;
    data = {
      agentId: me.id,
      priorityResolution: hasPriorityResolution(me.reputation),
      form: 'transaction',
      transactionId: transaction.id,
      executionId: transaction.executionId,
      serviceId: transaction.serviceId,
      providerAgentId: provider?.agentId ?? null,
      kind: reason!,
      description: description ?? null,
      ...(cited ? { evidence: cited } : {}),
    };
  } else {
    if (input.serviceId === undefined || input.serviceId === null) checks.fail('serviceId', 'is required (or transaction_id, to dispute one transaction)');
    else if (!isUuid(input.serviceId)) checks.fail('serviceId', 'must be a service id (UUID)');
    const type = checks.oneOf('type', input.type, DISPUTE_TYPES);
    const description = checks.text('description', input.description, { max: 5000, required: true, multiline: true });
    if (input.evidence !== undefined && input.evidence !== null) {
      if (typeof input.evidence !== 'object' || Array.isArray(input.evidence)) checks.fail('evidence', 'must be a JSON object');
      else if (Buffer.byteLength(JSON.stringify(input.evidence)) > EVIDENCE_MAX_BYTES) checks.fail('evidence', 'must be at most 64 KiB as JSON');
    }
    checks.done();
    const service = await ctx.db.service.findUnique({ where: { id: input.serviceId as string }, select: { id: true, agentId: true } });
    if (!service) throw new NotFound('service', String(input.serviceId));
    data = {
      agentId: me.id,
      priorityResolution: hasPriorityResolution(me.reputation),
      form: 'service',
      serviceId: service.id,
      providerAgentId: service.agentId,
      kind: type!,
      description: description!,
      evidence: (input.evidence ?? undefined) as Prisma.InputJsonValue | undefined,
    };
  }
  const dispute = await transact(ctx, async (tx, emit) => {
    if (data.transactionId) {
      // One dispute per transaction: serialised on the transaction row.
      await tx.$executeRaw`SELECT 1 FROM transactions WHERE id = ${data.transactionId}::uuid FOR NO KEY UPDATE`;
      const earlier = await tx.dispute.findFirst({ where: { transactionId: data.transactionId }, select: { id: true } });
      if (earlier) throw new Conflict(`Transaction ${data.transactionId} is already disputed (dispute ${earlier.id})`);
    }
    const created = await tx.dispute.create({ data });
    // Inside the call's dispute window, its provider's share stays in escrow until the dispute is decided.
    if (created.executionId && created.form === 'transaction') await freezeEscrow(tx, created.executionId, created.id, ctx.services.clock.now());
    await recordStateChange(tx, ctx, { subjectType: 'dispute', subjectId: created.id, from: null, to: 'open' });
    await emitDisputeEvent(emit, created, 'dispute.created');
    return created;
  });
  ctx.services.disputes.wake();
  return dispute;
}

/** The caller's dispute; another agent's dispute is not found. */
export async function getDispute(ctx: Ctx, id: string): Promise<Dispute> {
  const me = await requireAgent(ctx);
  const dispute = isUuid(id) ? await ctx.db.dispute.findFirst({ where: { id, agentId: me.id } }) : null;
  if (!dispute) throw new NotFound('dispute', id);
  return dispute;
}

function readStatus(status: unknown) {
  if (status !== undefined && status !== null && !DISPUTE_STATUSES.includes(status as DisputeStatus)) {
    const checks = new Checks();
    checks.fail('status', `must be one of ${DISPUTE_STATUSES.join(', ')}`);
    checks.done();
  }
  return (status ?? undefined) as DisputeStatus | undefined;
}

/**
 * Every dispute, or those in one status. Newest first; a list of the unresolved (`open` or `under_review`)
 * is the review queue, in the order its disputes are to be handled: those filed with priority resolution
 * first, then the oldest first.
 */
export async function listAllDisputes(ctx: Ctx, page: Page, status?: unknown) {
  await requireAdmin(ctx);
  const only = readStatus(status);
  const where = { ...(only ? { status: only } : {}) };
  const queue = only === 'open' || only === 'under_review';
  const [items, total] = await Promise.all([
    ctx.db.dispute.findMany({
      where,
      orderBy: queue ? [{ priorityResolution: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }] : [{ createdAt: 'desc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.limit,
    }),
    ctx.db.dispute.count({ where }),
  ]);
  return { items, total };
}

/**
 * A refund of a call paid through the wallet ledger, back to the paying wallet: taken from the provider's share (as far
 * as its available balance goes) and the marketplace's fee in proportion, the marketplace bearing what the provider
 * cannot. A call not paid through the ledger moves no money.
 */
async function refundThroughLedger(tx: DbTx, services: Services, d: Dispute, refundCents: number, at: Date): Promise<void> {
  if (!d.executionId) return;
  const entries = await tx.walletEntry.findMany({ where: { executionId: d.executionId } });
  const charge = entries.find((e) => e.kind === 'charge');
  if (!charge) return;
  const charged = -charge.amount;
  const fee = entries.filter((e) => e.kind === 'fee').reduce((t, e) => t + e.amount, 0n);
  const earning = entries.find((e) => e.kind === 'earning');
  const refunded = entries.filter((e) => e.kind === 'refund' && e.walletId === charge.walletId).reduce((t, e) => t + e.amount, 0n);
  const wanted = centsToUnits(services.payments.setup, refundCents);
  const amount = wanted < charged - refunded ? wanted : charged - refunded;
  if (amount <= 0n) return;
  const feePart = (amount * fee) / charged;
  const share = amount - feePart;
  let fromEscrow = 0n;
  let clawback = 0n;
  if (earning && !SYSTEM_ACCOUNT_IDS.has(earning.walletId)) {
    // The escrow's row is locked before the wallets, as the settling worker locks them; both wallets then in id
    // order, as every statement moving money between wallets does.
    const escrow = await lockedEscrow(tx, d.executionId);
    await tx.$queryRaw`SELECT id FROM wallets WHERE id IN (${charge.walletId}::uuid, ${earning.walletId}::uuid) ORDER BY id FOR NO KEY UPDATE`;
    // A share whose window ended is the provider's to give back, settled or not yet.
    await settleIfDue(tx, d.executionId, escrow, at);
    const locked = await tx.$queryRaw<{ id: string; available: bigint }[]>`
      SELECT id, balance - held - pending AS available FROM wallets WHERE id IN (${charge.walletId}::uuid, ${earning.walletId}::uuid)`;
    const provider = locked.find((w) => w.id === earning.walletId);
    const available = provider ? BigInt(provider.available) : 0n;
    // The share still in escrow (the dispute froze it inside the window) comes back from there first: money the
    // provider could not spend. Only what is missing is clawed back from what it could.
    fromEscrow = await takeFromEscrow(tx, d.executionId, escrow, share);
    const rest = share - fromEscrow;
    clawback = rest < available ? rest : available > 0n ? available : 0n;
  }
  await transfer(
    tx,
    [
      { walletId: charge.walletId, amount, kind: 'refund' },
      ...(fromEscrow > 0n ? [{ walletId: earning!.walletId, amount: -fromEscrow, kind: 'escrow_refund' }] : []),
      ...(clawback > 0n ? [{ walletId: earning!.walletId, amount: -clawback, kind: 'clawback' }] : []),
      { walletId: ACCOUNTS.revenue, amount: -(amount - fromEscrow - clawback), kind: 'refund' },
    ],
    { executionId: d.executionId, reference: `dispute ${d.id}`, at },
  );
}

/** Writes a refund to the ledger, resolves the dispute and, for a refund, costs the provider reputation. */
async function resolveWith(
  tx: DbTx,
  emit: Emit,
  ctx: Ctx | null,
  d: Dispute,
  resolution: string,
  refundCents: number,
  by: 'pipeline' | 'admin',
  at: Date,
  services: Services,
): Promise<Dispute> {
  if (refundCents > 0 && d.transactionId) await refundThroughLedger(tx, services, d, refundCents, at);
  if (refundCents > 0 && d.transactionId) {
    const charge = await tx.transaction.findUniqueOrThrow({ where: { id: d.transactionId } });
    await tx.transaction.create({
      data: {
        agentId: d.agentId,
        executionId: charge.executionId,
        serviceId: charge.serviceId,
        kind: 'refund',
        amountCents: -refundCents,
        capability: charge.capability,
        disputeId: d.id,
        createdAt: at,
      },
    });
  }
  // Whatever the dispute froze and a refund did not take settles now.
  if (d.executionId && d.form === 'transaction') await releaseFrozen(tx, d.executionId, at);
  const resolved = await tx.dispute.update({ where: { id: d.id }, data: { status: 'resolved', resolution, resolvedBy: by, refundCents, resolvedAt: at } });
  await recordStateChange(tx, ctx, { subjectType: 'dispute', subjectId: d.id, from: d.status, to: 'resolved', note: resolution });
  if (refundCents > 0 && d.providerAgentId) {
    await applyReputation(tx, emit, {
      agentId: d.providerAgentId,
      delta: -REFUND_PENALTY,
      reason: `dispute resolved with a refund of ${refundCents} cents`,
      sourceType: 'dispute',
      sourceId: d.id,
      at,
    });
  }
  await emitDisputeEvent(emit, resolved, 'dispute.resolved');
  return resolved;
}

/** What the records prove about a transaction dispute: a refund and why, or nothing (needs a person). */
/** The receipt a dispute cites, when it still verifies (a retired key's no longer does). */
function receiptCited(services: Services, d: Dispute): ReceiptClaim | null {
  const token = (d.evidence as { signed_receipt?: unknown } | null)?.signed_receipt;
  if (d.form !== 'transaction' || typeof token !== 'string') return null;
  const verified = verifyReceipt(services, token);
  return verified.ok && verified.claims.receipt.execution_id === d.executionId ? verified.claims.receipt : null;
}

/**
 * What the records prove about a transaction dispute: a refund and why, or nothing (needs a person). A receipt
 * the dispute cites is the marketplace's signed word on how the call ended and what it cost: records that
 * say the buyer owes more than it lose to it.
 */
async function decide(tx: DbTx, d: Dispute, services: Services): Promise<{ refundCents: number; resolution: string } | null> {
  if (!d.transactionId || !d.executionId) return null;
  const charge = await tx.transaction.findUnique({ where: { id: d.transactionId } });
  const execution = await tx.execution.findUnique({ where: { id: d.executionId } });
  if (!charge || !execution) return null;
  const attempts = await tx.executionAttempt.findMany({ where: { executionId: execution.id }, orderBy: { ordinal: 'asc' } });
  const refunded = await tx.transaction.aggregate({ where: { executionId: execution.id, kind: 'refund' }, _sum: { amountCents: true } });
  const refundable = charge.amountCents + (refunded._sum.amountCents ?? 0);
  const succeeded = attempts.find((a) => a.outcome === 'success');
  const receipt = receiptCited(services, d);
  if (receipt && refundable > 0) {
    if (receipt.status !== 'success' && succeeded) {
      return { refundCents: refundable, resolution: `The signed receipt cited says the call failed; the charge of ${refundable} cents is refunded` };
    }
    if (charge.amountCents > receipt.price_cents) {
      const excess = Math.min(refundable, charge.amountCents - receipt.price_cents);
      return {
        refundCents: excess,
        resolution: `Charged ${charge.amountCents} cents; the signed receipt cited names ${receipt.price_cents}; ${excess} cents are refunded`,
      };
    }
  }
  if (!succeeded) {
    return refundable > 0
      ? { refundCents: refundable, resolution: `Every attempt failed (${attempts.length}); the charge of ${refundable} cents is refunded` }
      : { refundCents: 0, resolution: `Every attempt failed (${attempts.length}) and nothing was charged; nothing to refund` };
  }
  if (charge.amountCents > succeeded.priceCents) {
    const excess = Math.min(refundable, charge.amountCents - succeeded.priceCents);
    if (excess > 0)
      return {
        refundCents: excess,
        resolution: `Charged ${charge.amountCents} cents for a call priced at ${succeeded.priceCents}; ${excess} cents are refunded`,
      };
  }
  return null;
}

/**
 * One round of the pipeline: decides the open disputes it can claim, at most `batch`, those filed with
 * priority resolution first, then the oldest. Answers how many it took.
 */
export async function decideOpenDisputes(services: Services, batch: number): Promise<number> {
  return transact({ db: services.db, services }, async (tx, emit) => {
    const due = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM disputes WHERE status = 'open' ORDER BY priority_resolution DESC, created_at, id LIMIT ${batch} FOR UPDATE SKIP LOCKED`;
    const now = services.clock.now();
    for (const { id } of due) {
      const d = await tx.dispute.findUniqueOrThrow({ where: { id } });
      const decision = await decide(tx, d, services);
      if (decision) await resolveWith(tx, emit, null, d, decision.resolution, decision.refundCents, 'pipeline', now, services);
      else {
        await tx.dispute.update({ where: { id }, data: { status: 'under_review' } });
        await recordStateChange(tx, null, {
          subjectType: 'dispute',
          subjectId: id,
          from: 'open',
          to: 'under_review',
          note: 'The records do not decide it; an administrator will',
        });
      }
    }
    return due.length;
  });
}

/** Now while a dispute waits for the pipeline (one another round left locked); none otherwise. */
async function anyOpen(services: Services): Promise<number | null> {
  const open = await services.sql.query(`SELECT 1 FROM disputes WHERE status = 'open' LIMIT 1`, []);
  return open.length ? services.clock.now().getTime() : null;
}

export class DisputePipeline {
  private readonly worker: Worker;

  constructor(services: Services, batch = 20) {
    this.worker = new Worker({
      name: 'disputes',
      round: () => decideOpenDisputes(services, batch),
      log: services.log,
      pollMs: 5_000,
      fullBatch: batch,
      // A dispute opened here wakes the pipeline.
      ...idleUntilDue(services.sql, services.clock, () => anyOpen(services)),
    });
  }

  start(): void {
    this.worker.start();
  }

  wake(): void {
    this.worker.wake();
  }

  settled(): Promise<void> {
    return this.worker.settled();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}

export interface ResolveDisputeInput {
  resolution?: unknown;
  refundCents?: unknown;
}

/** An administrator resolves an open or under-review dispute, optionally refunding part or all of its charge. */
export async function resolveDispute(ctx: Ctx, id: string, input: ResolveDisputeInput): Promise<Dispute> {
  await requireAdmin(ctx);
  const checks = new Checks();
  const resolution = checks.text('resolution', input.resolution, { max: 5000, required: true, multiline: true });
  const refundCents = checks.integer('refundCents', input.refundCents, 0, 1_000_000_000) ?? 0;
  checks.done();
  return transact(ctx, async (tx, emit) => {
    const found = isUuid(id) ? await tx.$queryRaw<{ id: string }[]>`SELECT id FROM disputes WHERE id = ${id}::uuid FOR NO KEY UPDATE` : [];
    if (!found.length) throw new NotFound('dispute', id);
    const d = await tx.dispute.findUniqueOrThrow({ where: { id } });
    assertMove(DISPUTE_MOVES, d.status as DisputeStatus, 'resolved', 'dispute');
    if (refundCents > 0) {
      if (!d.transactionId) throw new Conflict('Only a dispute about a transaction can refund: this one is about a service');
      const charge = await tx.transaction.findUniqueOrThrow({ where: { id: d.transactionId } });
      const refunded = await tx.transaction.aggregate({ where: { executionId: charge.executionId, kind: 'refund' }, _sum: { amountCents: true } });
      const refundable = charge.amountCents + (refunded._sum.amountCents ?? 0);
      if (refundCents > refundable) throw new Conflict(`At most ${refundable} cents of this charge can still be refunded`);
    }
    return resolveWith(tx, emit, ctx, d, resolution!, refundCents, 'admin', ctx.services.clock.now(), ctx.services);
  });
}

export interface Revenue {
  days: number;
  totals: { grossCents: number; refundsCents: number; netCents: number; executions: number; paidExecutions: number };
  byDay: { day: string; grossCents: number; refundsCents: number; netCents: number; feesBaseUnits: bigint }[];
  /** The marketplace's own revenue: its fee on paid calls, less the fees given back by refunds (base units). */
  fees: { feesBaseUnits: bigint; refundedBaseUnits: bigint; netBaseUnits: bigint; feeBps: number; decimals: number; asset: string };
  byCapability: { capability: string; grossCents: number; refundsCents: number; netCents: number; executions: number }[];
}

/** Money through the marketplace over the last `days` days, from the ledger (charges less refunds). */
export async function revenue(ctx: Ctx, days = 30): Promise<Revenue> {
  await requireAdmin(ctx);
  const checks = new Checks();
  const window = checks.integer('days', days, 1, 365) ?? 30;
  checks.done();
  const since = new Date(ctx.services.clock.now().getTime() - window * 86_400_000);
  const sql = ctx.services.sql;
  const num = (v: string | number | null) => Number(v ?? 0);
  const [totals] = await sql.query<Record<string, string | number | null>>(
    `SELECT COALESCE(sum(amount_cents) FILTER (WHERE kind = 'charge'), 0) AS gross, COALESCE(-sum(amount_cents) FILTER (WHERE kind = 'refund'), 0) AS refunds,
       count(*) FILTER (WHERE kind = 'charge') AS executions, count(*) FILTER (WHERE kind = 'charge' AND amount_cents > 0) AS paid
     FROM transactions WHERE created_at >= $1`,
    [since],
  );
  const byDay = await sql.query<{ day: Date | string; gross: string | number; refunds: string | number }>(
    `SELECT date_trunc('day', created_at AT TIME ZONE 'UTC')::date AS day,
       COALESCE(sum(amount_cents) FILTER (WHERE kind = 'charge'), 0) AS gross, COALESCE(-sum(amount_cents) FILTER (WHERE kind = 'refund'), 0) AS refunds
     FROM transactions WHERE created_at >= $1 GROUP BY 1 ORDER BY 1`,
    [since],
  );
  const byCapability = await sql.query<{ capability: string; gross: string | number; refunds: string | number; executions: string | number }>(
    `SELECT COALESCE(capability, 'unknown') AS capability, COALESCE(sum(amount_cents) FILTER (WHERE kind = 'charge'), 0) AS gross,
       COALESCE(-sum(amount_cents) FILTER (WHERE kind = 'refund'), 0) AS refunds, count(*) FILTER (WHERE kind = 'charge') AS executions
     FROM transactions WHERE created_at >= $1 GROUP BY 1 ORDER BY gross DESC, capability LIMIT 50`,
    [since],
  );
  const gross = num(totals.gross);
  const refunds = num(totals.refunds);
  // The fee account's entries: a fee per paid call, and what refunds took back from it.
  const feeRows = await sql.query<{ day: Date | string; fees: string | null; refunded: string | null }>(
    `SELECT date_trunc('day', created_at AT TIME ZONE 'UTC')::date AS day,
       COALESCE(sum(amount) FILTER (WHERE amount > 0), 0)::text AS fees, COALESCE(-sum(amount) FILTER (WHERE amount < 0), 0)::text AS refunded
     FROM wallet_entries WHERE wallet_id = $1::uuid AND created_at >= $2 GROUP BY 1 ORDER BY 1`,
    [ACCOUNTS.revenue, since],
  );
  const dayOf = (d: Date | string) => (typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10));
  const feesByDay = new Map(feeRows.map((r) => [dayOf(r.day), BigInt(r.fees ?? '0') - BigInt(r.refunded ?? '0')]));
  const fees = feeRows.reduce((t, r) => t + BigInt(r.fees ?? '0'), 0n);
  const feesRefunded = feeRows.reduce((t, r) => t + BigInt(r.refunded ?? '0'), 0n);
  const { setup } = ctx.services.payments;
  const allDays = new Set([...byDay.map((r) => dayOf(r.day)), ...feesByDay.keys()]);
  const charges = new Map(byDay.map((r) => [dayOf(r.day), r]));
  return {
    days: window,
    totals: { grossCents: gross, refundsCents: refunds, netCents: gross - refunds, executions: num(totals.executions), paidExecutions: num(totals.paid) },
    byDay: [...allDays].sort().map((day) => {
      const r = charges.get(day);
      return {
        day,
        grossCents: num(r?.gross ?? 0),
        refundsCents: num(r?.refunds ?? 0),
        netCents: num(r?.gross ?? 0) - num(r?.refunds ?? 0),
        feesBaseUnits: feesByDay.get(day) ?? 0n,
      };
    }),
    fees: {
      feesBaseUnits: fees,
      refundedBaseUnits: feesRefunded,
      netBaseUnits: fees - feesRefunded,
      feeBps: setup.feeBps,
      decimals: setup.asset.decimals,
      asset: setup.asset.symbol,
    },
    byCapability: byCapability.map((r) => ({
      capability: r.capability,
      grossCents: num(r.gross),
      refundsCents: num(r.refunds),
      netCents: num(r.gross) - num(r.refunds),
      executions: num(r.executions),
    })),
  };
}
