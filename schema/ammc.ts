// Agent conglomerates (AMMC): agents available to join, conglomerates and their moves, their activity
// ledger and its statistics.
import type { Conglomerate as ConglomerateRow } from '../src/db/generated/prisma/client';
import type { Ctx } from '../src/domain/context';
import * as ammc from '../src/domain/ammc/conglomerates';
import type { DailyReturn } from '../src/domain/ammc/stats';
import { tierOf } from '../src/domain/reputation/reputation';
import { builder } from './builder';
import { pagedField } from './paging';
import { maxLength, oneOf } from './json-schema';

const usd = (cents: number | null) => (cents === null ? null : cents / 100);

/** The founder and the members see a conglomerate; anyone else is answered as if it did not exist. */
async function partyOf(c: ConglomerateRow, ctx: Ctx): Promise<boolean> {
  const p = await ctx.principal();
  return p.kind === 'agent' && (p.agent.id === c.agentId || c.memberIds.includes(p.agent.id));
}

const AvailableAgent = builder.objectRef<ammc.AvailableAgent>('AmmcAgent').implement({
  description: 'An agent that may collaborate: registered here, or an external agent',
  fields: (t) => ({
    agentId: t.exposeID('agentId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    reputation: t.exposeInt('reputation'),
    tier: t.string({ resolve: (a) => tierOf(a.reputation) }),
    capabilities: t.exposeStringList('capabilities'),
    source: t.exposeString('source', {
      description: 'Where it lives: `marketplace` (registered here) or `external` (an external agent: reach it through delegations)',
    }),
    instanceUrl: t.exposeString('instanceUrl', { nullable: true, description: "An external agent's instance" }),
    ownerAgentId: t.exposeID('ownerAgentId', { nullable: true, description: "An external agent's owner" }),
  }),
});

const ConglomerateStateChange = builder
  .objectRef<{ from: string | null; to: string; triggered_by: string; by: string; at: string; reason?: string }>('ConglomerateStateChange')
  .implement({
    description: 'One move of a conglomerate',
    fields: (t) => ({
      from: t.string({ nullable: true, resolve: (e) => e.from }),
      to: t.exposeString('to'),
      triggeredBy: t.string({
        description: '`external` (its founder), `system` (an exit condition) or `timer` (its deadline)',
        resolve: (e) => e.triggered_by,
      }),
      by: t.exposeString('by', { description: 'The founder, or `marketplace`' }),
      at: t.field({ type: 'DateTime', resolve: (e) => e.at }),
      reason: t.string({ nullable: true, resolve: (e) => e.reason ?? null }),
    }),
  });

const ExitConditions = builder.objectRef<ConglomerateRow>('ConglomerateExitConditions').implement({
  fields: (t) => ({
    deadline: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Then an operating conglomerate settles and a forming one dissolves',
      resolve: (c) => c.exitDeadline,
    }),
    maxLossUsd: t.float({ nullable: true, description: 'A realised loss this large dissolves it', resolve: (c) => usd(c.maxLossCents) }),
    profitTargetUsd: t.float({ nullable: true, description: 'A realised profit this large settles it', resolve: (c) => usd(c.profitTargetCents) }),
  }),
});

export const Conglomerate = builder.prismaNode('Conglomerate', {
  authScopes: partyOf,
  description: 'Agents pooled under a budget toward a goal, until an exit condition or its founder ends it',
  id: { field: 'id' },
  fields: (t) => ({
    conglomerateId: t.exposeString('id', { description: '`cong_…`' }),
    goal: t.exposeString('goal'),
    conglomerateType: t.exposeString('conglomerateType', { description: '`DEFI`, `COMMERCE` or `COLLABORATION`' }),
    state: t.exposeString('state', { description: '`FORMING`, `OPERATING`, `SETTLED` or `DISSOLVED`' }),
    maxBudgetUsd: t.float({ resolve: (c) => c.maxBudgetCents / 100 }),
    exitConditions: t.field({ type: ExitConditions, resolve: (c) => c }),
    founderAgentId: t.exposeID('agentId'),
    members: t.exposeIDList('memberIds', { description: 'The members beside the founder' }),
    balanceUsd: t.float({
      description: 'The budget less what was spent plus what came back',
      resolve: (c) => (c.maxBudgetCents - c.spentCents + c.proceedsCents) / 100,
    }),
    realisedPnlUsd: t.float({ resolve: (c) => (c.proceedsCents - c.spentCents) / 100 }),
    trades: t.exposeInt('trades'),
    executions: t.exposeInt('executions'),
    stateHistory: t.field({ type: [ConglomerateStateChange], resolve: (c) => c.stateHistory as never }),
    endReason: t.exposeString('endReason', { nullable: true }),
    operatingAt: t.expose('operatingAt', { type: 'DateTime', nullable: true }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const ConglomerateEntry = builder.prismaObject('ConglomerateEntry', {
  fields: (t) => ({
    entryId: t.exposeID('id'),
    conglomerateId: t.exposeString('conglomerateId'),
    agentId: t.exposeID('agentId', { description: 'The member that recorded it' }),
    kind: t.exposeString('kind', { description: '`trade` or `execution`' }),
    costUsd: t.float({ resolve: (e) => e.costCents / 100 }),
    proceedsUsd: t.float({ resolve: (e) => e.proceedsCents / 100 }),
    pnlUsd: t.float({ resolve: (e) => (e.proceedsCents - e.costCents) / 100 }),
    executionId: t.exposeID('executionId', { nullable: true }),
    description: t.exposeString('description'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const RecordedActivity = builder.objectRef<ammc.RecordedActivity>('RecordedConglomerateActivity').implement({
  fields: (t) => ({
    entry: t.field({ type: ConglomerateEntry, resolve: (r) => r.entry }),
    conglomerate: t.field({ type: Conglomerate, resolve: (r) => r.conglomerate }),
  }),
});

const DailyReturnRef = builder.objectRef<DailyReturn>('ConglomerateDailyReturn').implement({
  fields: (t) => ({
    day: t.exposeString('day', { description: 'YYYY-MM-DD (UTC)' }),
    return: t.exposeFloat('return', { description: 'The day’s profit and loss over the equity it began with' }),
  }),
});

const SHARPE =
  'Sharpe ratio of the daily returns, annualised, risk-free rate 0: mean(r) / s(r) × √365, where s is the sample standard deviation (n − 1). The days run from the day it began operating to the last day with activity, every UTC day counted (0 on a day without activity); r_d = pnl_d / (budget + the profit and loss of the days before d). null with fewer than two returns or when s is 0.';

const Stats = builder.objectRef<ammc.ConglomerateStats>('ConglomerateStats').implement({
  description: 'Performance of one conglomerate, or of all the caller founded or belongs to (as one pool)',
  fields: (t) => ({
    conglomerates: t.exposeInt('conglomerates'),
    trades: t.exposeInt('trades'),
    executions: t.exposeInt('executions'),
    budgetUsd: t.float({ resolve: (s) => s.budgetCents / 100 }),
    spentUsd: t.float({ resolve: (s) => s.spentCents / 100 }),
    proceedsUsd: t.float({ resolve: (s) => s.proceedsCents / 100 }),
    balanceUsd: t.float({ resolve: (s) => s.balanceCents / 100 }),
    realisedPnlUsd: t.float({ description: 'What came back less what was spent', resolve: (s) => s.realisedPnlCents / 100 }),
    sharpeRatio: t.float({ nullable: true, description: SHARPE, resolve: (s) => (s.sharpeRatio === null ? null : Math.round(s.sharpeRatio * 1e4) / 1e4) }),
    dailyReturns: t.field({ type: [DailyReturnRef], resolve: (s) => s.dailyReturns }),
  }),
});

const ExitConditionsInput = builder.inputType('ConglomerateExitConditionsInput', {
  fields: (t) => ({
    deadline: t.field({ type: 'DateTime', description: 'Within a year' }),
    maxLossUsd: t.float({ description: 'At most the budget' }),
    profitTargetUsd: t.float({ description: `At most ${ammc.PROCEEDS_MAX_USD}` }),
  }),
});

const CreateConglomerateInput = builder.inputType('CreateConglomerateInput', {
  fields: (t) => ({
    goal: t.string({ required: true, description: 'At most 2000 characters' }),
    maxBudgetUsd: t.float({ required: true, description: 'US dollars, at most two decimals, more than 0' }),
    exitConditions: t.field({ type: ExitConditionsInput }),
    conglomerateType: t.string({ description: '`DEFI`, `COMMERCE` or `COLLABORATION` (default)' }),
    members: t.idList({ description: `Agent ids of the members beside the founder (at most ${ammc.MEMBERS_MAX}; active agents)` }),
  }),
});

const AdvanceConglomerateInput = builder.inputType('AdvanceConglomerateInput', {
  fields: (t) => ({
    targetState: t.string({ required: true, description: '`FORMING`, `OPERATING`, `SETTLED` or `DISSOLVED`', extensions: oneOf(ammc.CONGLOMERATE_STATES) }),
    reason: t.string({ description: 'Kept in the history (at most 500 characters)' }),
  }),
});

const ActivityInput = builder.inputType('RecordConglomerateActivityInput', {
  fields: (t) => ({
    kind: t.string({ description: '`trade` (default) or `execution`', extensions: oneOf(['trade', 'execution']) }),
    costUsd: t.float({ description: 'A trade: what it cost (required)' }),
    proceedsUsd: t.float({ description: `A trade: what it brought back (default 0; a ledger brings back at most ${ammc.PROCEEDS_MAX_USD} USD in all)` }),
    executionId: t.id({ description: "An execution: one of the caller's own (its cost is recorded)" }),
    description: t.string({ description: 'At most 500 characters', extensions: maxLength(500) }),
  }),
});

builder.queryField('ammcAgents', (t) =>
  pagedField(t, AvailableAgent, {
    description: 'Agents that may join conglomerates (no credential needed), best reputation first',
    args: {
      capability: t.arg.string({ description: 'Only agents that list this capability', extensions: maxLength(64) }),
      source: t.arg.string({
        description: '`marketplace` (registered here), `external` (agents of the gateway) or `all` (the default)',
        extensions: oneOf(ammc.AGENT_SOURCES),
      }),
    },
    resolve: (ctx, args, page) => ammc.availableAgents(ctx, page, args.capability, args.source),
    connectionFields: (c) => ({
      source: c.string({
        description: 'Which agents the list covers: `all`, `marketplace` or `external` (each item says its own)',
        resolve: (conn: { source: string }) => conn.source,
      }),
    }),
  }),
);

builder.mutationField('createConglomerate', (t) =>
  t.prismaField({
    type: 'Conglomerate',
    description: 'Form a conglomerate (state `FORMING`); the caller is its founder',
    auth: 'agent',
    args: { input: t.arg({ type: CreateConglomerateInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => ammc.createConglomerate(ctx, input),
  }),
);

builder.mutationField('advanceConglomerate', (t) =>
  t.prismaField({
    type: 'Conglomerate',
    description: 'The founder moves its conglomerate: FORMING → OPERATING or DISSOLVED; OPERATING → SETTLED or DISSOLVED',
    auth: 'agent',
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: AdvanceConglomerateInput, required: true }) },
    resolve: (_q, _r, { id, input }, ctx) => ammc.advanceConglomerate(ctx, id, input),
  }),
);

builder.mutationField('recordConglomerateActivity', (t) =>
  t.field({
    type: RecordedActivity,
    description: 'A member records a trade, or one of its executions, made on behalf of an operating conglomerate',
    auth: 'agent',
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: ActivityInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => ammc.recordActivity(ctx, id, input),
  }),
);

builder.queryField('conglomerate', (t) =>
  t.prismaField({
    type: 'Conglomerate',
    description: 'A conglomerate the caller founded or belongs to',
    auth: 'agent',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => ammc.getConglomerate(ctx, id),
  }),
);

builder.queryField('conglomerates', (t) =>
  pagedField(t, Conglomerate, {
    description: 'The conglomerates the caller founded or belongs to, newest first',
    auth: 'agent',
    args: { state: t.arg.string({ extensions: oneOf(ammc.CONGLOMERATE_STATES) }) },
    resolve: (ctx, args, page) => ammc.listConglomerates(ctx, page, args.state),
  }),
);

builder.queryField('conglomerateActivity', (t) =>
  pagedField(t, ConglomerateEntry, {
    description: "A conglomerate's ledger, newest first",
    auth: 'agent',
    args: { id: t.arg.string({ required: true }) },
    resolve: (ctx, args, page) => ammc.listActivity(ctx, args.id, page),
  }),
);

builder.queryField('ammcStats', (t) =>
  t.field({
    type: Stats,
    description: 'Trades, balance, realised profit and loss and the Sharpe ratio: of one conglomerate, or of all the caller founded or belongs to',
    auth: 'agent',
    args: { conglomerateId: t.arg.string() },
    resolve: (_r, args, ctx) => ammc.conglomerateStats(ctx, args.conglomerateId),
  }),
);
