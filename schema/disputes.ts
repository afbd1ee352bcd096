// Disputes: opening one (about a service or a transaction), reading it, whether it has priority
// resolution, and the administrator's queue, resolution and the revenue the ledger shows.
import * as disputes from '../src/domain/disputes/disputes';
import { Dispute } from './account';
import { builder } from './builder';
import { amountFields } from './wallets';
import { pagedField } from './paging';
import { maxLength, oneOf, range } from './json-schema';

const CreateDisputeInput = builder.inputType('CreateDisputeInput', {
  description: 'Form A: serviceId, type, description, evidence. Form B: transactionId, reason, description, receipt.',
  fields: (t) => ({
    serviceId: t.id({ description: 'Form A: the service disputed' }),
    type: t.string({ description: 'Form A: billing, quality or availability', extensions: oneOf(disputes.DISPUTE_TYPES) }),
    evidence: t.field({ type: 'JSON', description: 'Form A: any JSON object (at most 64 KiB)' }),
    transactionId: t.id({ description: "Form B: one of the caller's charges" }),
    reason: t.string({ description: 'Form B: provider_error, billing_error, service_failure or other', extensions: oneOf(disputes.DISPUTE_REASONS) }),
    description: t.string({ description: 'Required in form A', extensions: maxLength(5000) }),
    receipt: t.string({
      description:
        "Form B: the disputed call's signed receipt (its execute answer's `signed_receipt`, or GET /executions/{id}/receipt): checked (400 when it is not one the marketplace signed, or is another execution's), kept as the dispute's evidence, and read by the pipeline, which refunds what the receipt proves the charge exceeded",
      extensions: maxLength(16_384),
    }),
  }),
});

builder.mutationField('createDispute', (t) =>
  t.prismaField({
    type: 'Dispute',
    description: 'Open a dispute; the pipeline then resolves what the records prove (refunds included) or sends it to review',
    auth: 'agent',
    args: { input: t.arg({ type: CreateDisputeInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => disputes.createDispute(ctx, input),
  }),
);

builder.queryField('dispute', (t) =>
  t.prismaField({
    type: 'Dispute',
    description: "One of the caller's disputes",
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => disputes.getDispute(ctx, String(id)),
  }),
);

builder.prismaObjectField(Dispute, 'priorityResolution', (t) =>
  t.exposeBoolean('priorityResolution', {
    description: 'Filed by a Contributor or above (reputation 31+): the pipeline decides it, and the review queue shows it, before the others',
  }),
);

builder.queryField('adminDisputes', (t) =>
  pagedField(t, Dispute, {
    description:
      'Every dispute, newest first (the administrator key only); with status open or under_review, the review queue: those filed with priority resolution first, then the oldest',
    auth: 'admin',
    args: { status: t.arg.string({ description: 'open, under_review or resolved', extensions: oneOf(disputes.DISPUTE_STATUSES) }) },
    resolve: (ctx, args, page) => disputes.listAllDisputes(ctx, page, args.status),
  }),
);

const ResolveDisputeInput = builder.inputType('ResolveDisputeInput', {
  fields: (t) => ({
    resolution: t.string({ required: true }),
    refundCents: t.int({ description: 'Refund part or all of a disputed charge (default 0)' }),
  }),
});

builder.mutationField('resolveDispute', (t) =>
  t.prismaField({
    type: 'Dispute',
    description: 'Resolve an open or under-review dispute (409 once resolved), optionally with a refund through the ledger',
    auth: 'admin',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ResolveDisputeInput, required: true }) },
    resolve: (_q, _r, { id, input }, ctx) => disputes.resolveDispute(ctx, String(id), input),
  }),
);

const money = (t: any) => ({
  grossCents: t.exposeInt('grossCents', { description: 'Charges' }),
  refundsCents: t.exposeInt('refundsCents'),
  netCents: t.exposeInt('netCents'),
});

const RevenueTotals = builder.objectRef<disputes.Revenue['totals']>('RevenueTotals').implement({
  fields: (t) => ({ ...money(t), executions: t.exposeInt('executions'), paidExecutions: t.exposeInt('paidExecutions') }),
});
const RevenueDay = builder.objectRef<disputes.Revenue['byDay'][number]>('RevenueDay').implement({
  fields: (t) => ({
    day: t.exposeString('day'),
    ...money(t),
    ...amountFields(t, 'fees', (d: disputes.Revenue['byDay'][number]) => d.feesBaseUnits, "The marketplace's fees that day, less what refunds gave back"),
  }),
});
const RevenueFees = builder.objectRef<disputes.Revenue['fees']>('RevenueFees').implement({
  description: "The marketplace's own revenue: its fee on every paid call, from the ledger's revenue account",
  fields: (t) => ({
    ...amountFields(t, 'fees', (f: disputes.Revenue['fees']) => f.feesBaseUnits, 'Fees taken'),
    ...amountFields(
      t,
      'refunded',
      (f: disputes.Revenue['fees']) => f.refundedBaseUnits,
      'Given back by refunds (the fee part, and what providers could not cover)',
    ),
    ...amountFields(t, 'net', (f: disputes.Revenue['fees']) => f.netBaseUnits, 'Fees less refunds'),
    feeBps: t.exposeInt('feeBps', { description: 'The fee on each paid call, in basis points of its price' }),
    asset: t.exposeString('asset'),
  }),
});
const RevenueCapability = builder.objectRef<disputes.Revenue['byCapability'][number]>('RevenueCapability').implement({
  fields: (t) => ({ capability: t.exposeString('capability'), ...money(t), executions: t.exposeInt('executions') }),
});
const Revenue = builder.objectRef<disputes.Revenue>('Revenue').implement({
  fields: (t) => ({
    days: t.exposeInt('days'),
    totals: t.field({ type: RevenueTotals, resolve: (r) => r.totals }),
    byDay: t.field({ type: [RevenueDay], resolve: (r) => r.byDay }),
    byCapability: t.field({ type: [RevenueCapability], resolve: (r) => r.byCapability }),
    fees: t.field({ type: RevenueFees, resolve: (r) => r.fees }),
  }),
});

builder.queryField('adminRevenue', (t) =>
  t.field({
    type: Revenue,
    description: "Money through the marketplace from the ledger: charges less refunds, by day and capability, and the marketplace's fee revenue",
    auth: 'admin',
    args: { days: t.arg.int({ description: '1-365, default 30', extensions: range(1, 365) }) },
    resolve: (_r, { days }, ctx) => disputes.revenue(ctx, days ?? 30),
  }),
);
