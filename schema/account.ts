// The caller's own records (/agents/me/* and /my/*): usage, executions, transactions, analytics,
// disputes, reputation with its events, the audit log and sparks; and the tier definitions.
import * as account from '../src/domain/agents/account';
import type { Ctx } from '../src/domain/context';
import { TIERS, tierOf, type TierDefinition } from '../src/domain/reputation/reputation';
import { Agent, TierEnum } from './agents';
import { builder, ownedByCaller } from './builder';
import { pagedField } from './paging';

const ExecutionStatusEnum = builder.enumType('ExecutionStatus', { values: ['success', 'error'] as const });

export const Execution = builder.prismaNode('Execution', {
  authScopes: ownedByCaller,
  id: { field: 'id' },
  fields: (t) => ({
    executionId: t.exposeID('id'),
    capability: t.exposeString('capability'),
    status: t.expose('status', { type: ExecutionStatusEnum }),
    result: t.field({ type: 'JSON', nullable: true, resolve: (e) => e.result }),
    error: t.exposeString('error', { nullable: true }),
    serviceId: t.exposeID('serviceId', { nullable: true }),
    costCents: t.exposeInt('costCents'),
    latencyMs: t.exposeInt('latencyMs'),
    mode: t.exposeString('mode', { description: '`auto` or `chosen`' }),
    attempts: t.field({ type: [ExecutionAttempt], resolve: (e, _a, ctx) => account.executionAttempts(ctx, e.id) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ExecutionAttempt = builder.prismaObject('ExecutionAttempt', {
  description: 'One provider tried within an execution',
  fields: (t) => ({
    ordinal: t.exposeInt('ordinal'),
    serviceId: t.exposeID('serviceId', { nullable: true }),
    serviceKey: t.exposeString('serviceKey'),
    outcome: t.exposeString('outcome'),
    reason: t.exposeString('reason', { nullable: true }),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs'),
    score: t.exposeFloat('score', { nullable: true }),
    priceCents: t.exposeInt('priceCents'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const Transaction = builder.prismaNode('Transaction', {
  authScopes: ownedByCaller,
  id: { field: 'id' },
  fields: (t) => ({
    transactionId: t.exposeID('id'),
    kind: t.exposeString('kind', { description: '`charge` or `refund`' }),
    amountCents: t.exposeInt('amountCents'),
    executionId: t.exposeID('executionId', { nullable: true }),
    serviceId: t.exposeID('serviceId', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true }),
    capability: t.exposeString('capability', { nullable: true }),
    disputeId: t.exposeID('disputeId', { nullable: true, description: 'The dispute a refund settles' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

/** A dispute is visible to the agent that opened it and to the administrator. */
async function disputeVisible(dispute: { agentId: string }, ctx: Ctx): Promise<boolean> {
  const p = await ctx.principal();
  return p.kind === 'admin' || (p.kind === 'agent' && p.agent.id === dispute.agentId);
}

export const Dispute = builder.prismaNode('Dispute', {
  authScopes: disputeVisible,
  id: { field: 'id' },
  fields: (t) => ({
    disputeId: t.exposeID('id'),
    form: t.exposeString('form', { description: '`service` (form A) or `transaction` (form B)' }),
    type: t.string({ nullable: true, description: 'Form A: billing, quality or availability', resolve: (d) => (d.form === 'service' ? d.kind : null) }),
    reason: t.string({
      nullable: true,
      description: 'Form B: provider_error, billing_error, service_failure or other',
      resolve: (d) => (d.form === 'transaction' ? d.kind : null),
    }),
    status: t.exposeString('status', { description: '`open`, `under_review` or `resolved`' }),
    resolved: t.boolean({ description: 'Whether the dispute is resolved (status `resolved`)', resolve: (d) => d.status === 'resolved' }),
    resolution: t.exposeString('resolution', { nullable: true }),
    resolvedBy: t.exposeString('resolvedBy', { nullable: true, description: 'Who resolved it: `pipeline` or `admin`; null until resolved' }),
    refundCents: t.exposeInt('refundCents'),
    description: t.exposeString('description', { nullable: true }),
    evidence: t.field({ type: 'JSON', nullable: true, resolve: (d) => d.evidence }),
    agentId: t.exposeID('agentId', { description: 'The agent that opened it' }),
    serviceId: t.exposeID('serviceId', { nullable: true }),
    transactionId: t.exposeID('transactionId', { nullable: true }),
    executionId: t.exposeID('executionId', { nullable: true }),
    providerAgentId: t.exposeID('providerAgentId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    resolvedAt: t.expose('resolvedAt', { type: 'DateTime', nullable: true }),
  }),
});

export const Spark = builder.prismaNode('Spark', {
  description: 'A published output of a task: public to every agent',
  id: { field: 'id' },
  fields: (t) => ({
    sparkId: t.exposeID('id'),
    title: t.exposeString('title'),
    content: t.exposeString('content'),
    sparkType: t.exposeString('sparkType', { description: '`announcement`, `capability`, `insight`, `analysis` or `showcase`' }),
    qualityScore: t.exposeFloat('qualityScore', { nullable: true, description: '0-100, as its publisher rated it' }),
    agentId: t.exposeID('agentId', { description: 'The publisher' }),
    taskId: t.exposeString('taskId', { nullable: true, description: 'The task whose output it is' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ReputationEvent = builder.prismaObject('ReputationEvent', {
  authScopes: ownedByCaller,
  fields: (t) => ({
    eventId: t.exposeID('id'),
    delta: t.exposeInt('delta'),
    scoreAfter: t.exposeInt('scoreAfter'),
    reason: t.exposeString('reason'),
    sourceType: t.exposeString('sourceType', { nullable: true }),
    sourceId: t.exposeString('sourceId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AuditEvent = builder.prismaObject('AuditEvent', {
  authScopes: ownedByCaller,
  fields: (t) => ({
    eventId: t.exposeID('id'),
    action: t.exposeString('action'),
    actorKind: t.exposeString('actorKind', { description: '`agent`, `admin` or `system`' }),
    actorId: t.exposeString('actorId', { nullable: true }),
    targetType: t.exposeString('targetType', { nullable: true }),
    targetId: t.exposeString('targetId', { nullable: true }),
    details: t.field({ type: 'JSON', resolve: (e) => e.details }),
    ipAddress: t.exposeString('ipAddress', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryField('myExecutions', (t) =>
  pagedField(t, Execution, {
    description: "The caller's executions with results and costs, newest first",
    auth: 'agent',
    resolve: (ctx, _a, page) => account.myExecutions(ctx, page),
  }),
);
builder.queryField('myTransactions', (t) =>
  pagedField(t, Transaction, {
    description: "The caller's ledger entries, newest first",
    auth: 'agent',
    resolve: (ctx, _a, page) => account.myTransactions(ctx, page),
  }),
);
builder.queryField('myDisputes', (t) =>
  pagedField(t, Dispute, {
    description: "The caller's disputes with status and resolution",
    auth: 'agent',
    resolve: (ctx, _a, page) => account.myDisputes(ctx, page),
  }),
);
builder.queryField('mySparks', (t) =>
  pagedField(t, Spark, { description: "The caller's sparks", auth: 'agent', resolve: (ctx, _a, page) => account.mySparks(ctx, page) }),
);
builder.queryField('myAuditLog', (t) =>
  pagedField(t, AuditEvent, {
    description: 'Security-relevant acts on the caller’s account: keys, profile, sub-agents, status; by whom, when, from where',
    auth: 'agent',
    defaultSize: 50,
    resolve: (ctx, _a, page) => account.myAuditLog(ctx, page),
  }),
);

builder.queryField('myReputation', (t) =>
  pagedField(t, ReputationEvent, {
    description: "The caller's reputation score and tier, and the events that moved the score, newest first",
    auth: 'agent',
    defaultSize: 50,
    resolve: (ctx, _a, page) => account.myReputation(ctx, page),
    connectionFields: (c) => ({
      reputation: c.int({ description: 'The score now, 0-100', resolve: (r: { reputation: number }) => r.reputation }),
      tier: c.field({ type: TierEnum, resolve: (r: { reputation: number }) => tierOf(r.reputation) }),
    }),
  }),
);

builder.queryField('mySubAgents', (t) =>
  pagedField(t, Agent, {
    description: "The caller's sub-agents at any depth, newest first (each names its parent); a tree of more than 10,000 is refused",
    auth: 'agent',
    resolve: (ctx, _a, page) => account.mySubAgents(ctx, page),
  }),
);

const EndpointUsage = builder.objectRef<{ endpoint: string; requests: number }>('EndpointUsage').implement({
  fields: (t) => ({ endpoint: t.exposeString('endpoint'), requests: t.exposeInt('requests') }),
});
const DayUsage = builder.objectRef<{ day: string; requests: number }>('DayUsage').implement({
  fields: (t) => ({ day: t.exposeString('day'), requests: t.exposeInt('requests') }),
});

const Usage = builder.objectRef<Awaited<ReturnType<typeof account.myUsage>>>('Usage').implement({
  fields: (t) => ({
    days: t.exposeInt('days'),
    totalRequests: t.exposeInt('totalRequests'),
    totalExecutions: t.exposeInt('totalExecutions'),
    endpoints: t.field({ type: [EndpointUsage], description: 'Requests per endpoint over the window', resolve: (u) => u.endpoints }),
    byDay: t.field({ type: [DayUsage], resolve: (u) => u.byDay }),
  }),
});

builder.queryField('myUsage', (t) =>
  t.field({ type: Usage, description: 'API usage over the last 30 days', auth: 'agent', resolve: (_r, _a, ctx) => account.myUsage(ctx) }),
);

type Analytics = Awaited<ReturnType<typeof account.myAnalytics>>;
const Trend = builder.objectRef<Analytics['trends'][number]>('ExecutionTrend').implement({
  fields: (t) => ({
    day: t.exposeString('day'),
    executions: t.exposeInt('executions'),
    succeeded: t.exposeInt('succeeded'),
    failed: t.exposeInt('failed'),
    costCents: t.exposeInt('costCents'),
  }),
});
const TopCapability = builder.objectRef<Analytics['topCapabilities'][number]>('CapabilityUse').implement({
  fields: (t) => ({ capability: t.exposeString('capability'), executions: t.exposeInt('executions'), costCents: t.exposeInt('costCents') }),
});
const Performance = builder.objectRef<Analytics['performance']>('ExecutionPerformance').implement({
  fields: (t) => ({
    executions: t.exposeInt('executions'),
    successRate: t.exposeFloat('successRate', { nullable: true }),
    p50Ms: t.exposeInt('p50Ms', { nullable: true }),
    p95Ms: t.exposeInt('p95Ms', { nullable: true }),
    p99Ms: t.exposeInt('p99Ms', { nullable: true }),
  }),
});
const AnalyticsRef = builder.objectRef<Analytics>('Analytics').implement({
  fields: (t) => ({
    days: t.exposeInt('days'),
    trends: t.field({ type: [Trend], resolve: (a) => a.trends }),
    topCapabilities: t.field({ type: [TopCapability], resolve: (a) => a.topCapabilities }),
    totalCostCents: t.exposeInt('totalCostCents'),
    costBreakdown: t.field({ type: [TopCapability], description: 'Cost by capability, dearest first', resolve: (a) => a.costBreakdown }),
    performance: t.field({ type: Performance, resolve: (a) => a.performance }),
  }),
});

builder.queryField('myAnalytics', (t) =>
  t.field({
    type: AnalyticsRef,
    description: 'Execution trends, top capabilities, cost breakdown and latency over 30 days',
    auth: 'agent',
    resolve: (_r, _a, ctx) => account.myAnalytics(ctx),
  }),
);

const TierRef = builder.objectRef<TierDefinition>('TierDefinition').implement({
  fields: (t) => ({
    tier: t.field({ type: TierEnum, resolve: (d) => d.tier }),
    name: t.exposeString('name'),
    minScore: t.exposeInt('min'),
    maxScore: t.exposeInt('max'),
    subKeyLimit: t.exposeInt('subKeyLimit', { nullable: true, description: 'Live sub-keys allowed; null is unlimited' }),
    privileges: t.exposeStringList('privileges'),
  }),
});

builder.queryField('tiers', (t) => t.field({ type: [TierRef], description: 'Reputation tiers, their ranges and privileges', resolve: () => TIERS }));
