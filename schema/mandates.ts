// Spend mandates (docs/payments.md, Spend mandates): an agent lets one of its sub-agents pay for calls from its
// wallet, within caps; each period's use as enforcement reads it; alerts at 50, 80 and 100 % of a cap.
import { filter, pipe } from 'graphql-yoga';
import * as mandates from '../src/domain/payments/mandates';
import { perRequest } from '../src/platform/loaders';
import type { Ctx } from '../src/domain/context';
import type { Mandate as MandateRow } from '../src/db/generated/prisma/client';
import { requireAgent } from '../src/domain/agents/principal';
import { builder } from './builder';
import { MarketplaceEventRef } from './agents';
import { pagedField } from './paging';
import { listOf, maxLength, oneOf } from './json-schema';

/** Who may read a mandate: its grantor and its sub-agent. */
async function grantorOrGrantee(row: { grantorId: string; granteeId: string }, ctx: Ctx): Promise<boolean> {
  const p = await ctx.principal();
  return p.kind === 'agent' && (p.agent.id === row.grantorId || p.agent.id === row.granteeId);
}

const useOf = perRequest(async (ctx: Ctx, rows: readonly MandateRow[]) => {
  const use = await mandates.mandateUse(ctx.services, rows);
  return rows.map((r) => use.get(r.id)!);
});

const PeriodUse = builder.objectRef<mandates.PeriodUse>('MandatePeriodUse').implement({
  description: "A mandate's use in one UTC day or month: the counter its enforcement reads",
  fields: (t) => ({
    period: t.exposeString('period', { description: '`day` or `month` (UTC)' }),
    startsOn: t.exposeString('startsOn', { description: 'The first day of the period (YYYY-MM-DD)' }),
    capCents: t.exposeInt('capCents', { nullable: true, description: "The mandate's cap for the period (null: none)" }),
    spentCents: t.exposeInt('spentCents', { description: 'What calls under it were charged this period' }),
    heldCents: t.exposeInt('heldCents', { description: 'What calls in flight hold of it now' }),
    calls: t.exposeInt('calls', { description: 'Paid calls recorded under it this period' }),
    remainingCents: t.exposeInt('remainingCents', { nullable: true, description: 'What a call could still be charged this period (null: no cap)' }),
    alerted: t.exposeIntList('alerted', { description: 'The thresholds (50, 80, 100 % of the cap) reached this period, each alerted once' }),
  }),
});

export const Mandate = builder.prismaNode('Mandate', {
  authScopes: grantorOrGrantee,
  description: "A spend mandate: its grantor's wallet pays for its sub-agent's calls, within its caps",
  id: { field: 'id' },
  fields: (t) => ({
    mandateId: t.exposeID('id'),
    grantorId: t.exposeID('grantorId', { description: 'The agent that granted it; its wallet pays' }),
    agentId: t.exposeID('granteeId', { description: 'The sub-agent whose paid calls it pays' }),
    perCallCents: t.exposeInt('perCallCents', { nullable: true, description: 'The most one call may cost under it (providers over it are passed over)' }),
    dailyCents: t.exposeInt('dailyCents', { nullable: true, description: 'What it pays at most in a UTC day' }),
    monthlyCents: t.exposeInt('monthlyCents', { nullable: true, description: 'What it pays at most in a UTC month' }),
    capabilities: t.exposeStringList('capabilities', { description: 'Capability prefixes it pays for (empty: every capability)' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When it ends (30 days after its grant unless given)' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    inForce: t.boolean({ description: 'Neither revoked nor expired', resolve: (m, _a, ctx) => mandates.inForce(m, ctx.services.clock.now()) }),
    today: t.field({ type: PeriodUse, resolve: async (m, _a, ctx) => (await useOf(ctx).load(m)).day }),
    thisMonth: t.field({ type: PeriodUse, resolve: async (m, _a, ctx) => (await useOf(ctx).load(m)).month }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const capFields = (t: PothosSchemaTypes.InputFieldBuilder<PothosSchemaTypes.ExtendDefaultTypes<never>, 'InputObject'>) => ({
  perCallCents: t.int({ description: `The most one call may cost, in cents (1 to ${mandates.MAX_CAP_CENTS}; null lifts it)` }),
  dailyCents: t.int({ description: 'What it pays at most in a UTC day, in cents' }),
  monthlyCents: t.int({ description: 'What it pays at most in a UTC month, in cents' }),
  capabilities: t.stringList({
    description: 'Capability prefixes it pays for (empty or absent: every capability); a call of another is paid as without a mandate',
    extensions: listOf(mandates.MAX_MANDATE_CAPABILITIES, maxLength(64)),
  }),
  expiresAt: t.field({ type: 'DateTime', description: 'When it ends: at most a year ahead (default 30 days from its grant)' }),
});

const GrantMandateInput = builder.inputType('GrantMandateInput', {
  fields: (t) => ({
    agentId: t.id({ required: true, description: 'The sub-agent (at any depth below the caller) whose paid calls it pays', extensions: maxLength(64) }),
    ...capFields(t as never),
  }),
});

const MandateChangeInput = builder.inputType('MandateChangeInput', {
  fields: (t) => ({ ...capFields(t as never) }),
});

builder.mutationField('grantMandate', (t) =>
  t.field({
    type: Mandate,
    description:
      "Let a sub-agent pay for its calls from the caller's wallet, within caps per call, per day and per month (at least one), for the capabilities named, until it expires. A sub-agent holds one mandate in force at a time (409 while another is)",
    auth: 'agent',
    args: { input: t.arg({ type: GrantMandateInput, required: true }) },
    resolve: (_r, { input }, ctx) => mandates.grantMandate(ctx, input as mandates.MandateInput),
  }),
);

builder.mutationField('updateMandate', (t) =>
  t.field({
    type: Mandate,
    description:
      "Change a mandate the caller granted: caps (null lifts one; one must stay), capabilities, expiry (a year ahead at most). The next call's hold reads it",
    auth: 'agent',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: MandateChangeInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => mandates.updateMandate(ctx, String(id), input as mandates.MandateInput),
  }),
);

builder.mutationField('revokeMandate', (t) =>
  t.field({
    type: Mandate,
    description: 'End a mandate the caller granted: calls in flight under it are still charged to it, no new one is paid',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => mandates.revokeMandate(ctx, String(id)),
  }),
);

builder.queryField('mandate', (t) =>
  t.field({
    type: Mandate,
    description: 'A mandate the caller granted or holds',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => mandates.visibleMandate(ctx, String(id)),
  }),
);

builder.queryField('mandates', (t) =>
  pagedField(t, Mandate, {
    description: 'The mandates the caller granted (`role: granted`, the default) or holds (`role: held`), newest first',
    auth: 'agent',
    args: { role: t.arg.string({ description: '`granted` (default) or `held`', extensions: oneOf(['granted', 'held']) }) },
    resolve: (ctx, args, page) => mandates.listMandates(ctx, args.role === 'held' ? 'held' : 'granted', page),
  }),
);

builder.subscriptionField('mandateAlerts', (t) =>
  t.field({
    type: MarketplaceEventRef,
    description: "`mandate.threshold_reached` events of the caller's mandates (granted or held), as delivered to webhooks: once per threshold per period",
    auth: 'agent',
    args: { mandateId: t.arg.id({ description: 'Only this mandate' }) },
    subscribe: async (_root, { mandateId }, ctx) => {
      const me = await requireAgent(ctx);
      const events = ctx.services.events.subscribe('agentEvents', me.id);
      return pipe(
        events,
        filter((e) => e.type === 'mandate.threshold_reached' && (!mandateId || (e.data as { mandate_id?: string }).mandate_id === String(mandateId))),
      );
    },
    resolve: (event) => event,
  }),
);
