// Administration: agent status and platform statistics (the administrator key only).
import * as admin from '../src/domain/admin/admin';
import { effectiveStatusImposedBy } from '../src/domain/agents/status';
import { AgentStatusEnum, Agent } from './agents';
import { builder } from './builder';
import { maxLength } from './json-schema';
import { pagedField } from './paging';

const StatusUpdate = builder.objectRef<Awaited<ReturnType<typeof admin.setAgentStatus>>>('AgentStatusUpdate').implement({
  fields: (t) => ({
    updated: t.boolean({ resolve: () => true }),
    agentId: t.exposeID('id'),
    status: t.expose('ownStatus', { type: AgentStatusEnum, description: 'The status given: the agent takes it (spec §3)' }),
    effectiveStatus: t.expose('status', {
      type: AgentStatusEnum,
      description: "The status in force: the worst of the status given and the agent's ancestors'. A suspended or banned ancestor's subtree cannot act",
    }),
    effectiveStatusImposedBy: t.id({
      nullable: true,
      description: 'The ancestor whose own status imposes `effectiveStatus`; null when it is the status given',
      resolve: (a, _args, ctx) => effectiveStatusImposedBy(ctx, a),
    }),
    ownStatus: t.expose('ownStatus', { type: AgentStatusEnum, deprecationReason: 'The same as `status`, the status given', description: 'The status given' }),
    agent: t.field({ type: Agent, resolve: (a) => a }),
  }),
});

const UpdateAgentStatusInput = builder.inputType('UpdateAgentStatusInput', {
  fields: (t) => ({
    status: t.field({ type: AgentStatusEnum, required: true }),
    reason: t.string({ description: "Recorded in the agent's audit log" }),
  }),
});

builder.mutationField('updateAgentStatus', (t) =>
  t.field({
    type: StatusUpdate,
    description:
      "Give an agent the status ACTIVE, SUSPENDED or BANNED: it takes the status given (`status`). Its status in force (`effectiveStatus`), and that of every sub-agent below it, is the worst of the status given and its ancestors': suspended and banned agents and their whole subtree get 403 on every agent operation at once, their services are `suspended`; lifting it restores the sub-agents not suspended on their own. Under a suspended or banned ancestor, the answer names it (`effectiveStatusImposedBy`).",
    auth: 'admin',
    args: { agentId: t.arg.id({ required: true }), input: t.arg({ type: UpdateAgentStatusInput, required: true }) },
    resolve: (_r, { agentId, input }, ctx) => admin.setAgentStatus(ctx, String(agentId), input),
  }),
);

type Stats = admin.PlatformStats;
/** An object of integer counts. */
const counts = <V extends object>(name: string, fields: (keyof V & string)[]) =>
  builder.objectRef<V>(name).implement({
    fields: (t) => Object.fromEntries(fields.map((f) => [f, t.int({ resolve: (v) => (v as Record<string, number>)[f] })])),
  });

const AdminStats = builder.objectRef<Stats>('AdminStats').implement({
  fields: (t) => ({
    agents: t.field({ type: counts<Stats['agents']>('AdminAgentStats', ['total', 'active', 'suspended', 'banned', 'subAgents']), resolve: (s) => s.agents }),
    services: t.field({ type: counts<Stats['services']>('AdminServiceStats', ['total', 'active']), resolve: (s) => s.services }),
    subKeys: t.field({ type: counts<Stats['subKeys']>('AdminSubKeyStats', ['total', 'live']), resolve: (s) => s.subKeys }),
    executions: t.field({
      type: counts<Stats['executions']>('AdminExecutionStats', ['total', 'last30d', 'succeeded', 'failed']),
      resolve: (s) => s.executions,
    }),
    disputes: t.field({ type: counts<Stats['disputes']>('AdminDisputeStats', ['total', 'open']), resolve: (s) => s.disputes }),
    revenueCents: t.exposeInt('revenueCents'),
    capabilities: t.exposeInt('capabilities'),
  }),
});

builder.queryField('adminStats', (t) =>
  t.field({ type: AdminStats, description: 'Platform-wide statistics', auth: 'admin', resolve: (_r, _a, ctx) => admin.adminStats(ctx) }),
);

builder.queryField('adminAgents', (t) =>
  pagedField(t, Agent, {
    description: 'Agents, newest first: all, or those given one status, or in one status in force, or whose name starts with `name` (any case)',
    auth: 'admin',
    args: {
      status: t.arg({ type: AgentStatusEnum, description: 'Only agents given this status' }),
      effectiveStatus: t.arg({ type: AgentStatusEnum, description: 'Only agents whose status in force is this' }),
      name: t.arg.string({ description: 'Only agents whose name starts with this (any case)', extensions: maxLength(100) }),
    },
    resolve: (ctx, args, page) => admin.listAgents(ctx, page, args),
  }),
);

const OutboxKind = builder.objectRef<admin.OutboxKind>('OutboxKind').implement({
  description: 'One kind of delivery (webhook, ticket_forward, ticket_callback, …) by state',
  fields: (t) => ({
    kind: t.exposeString('kind'),
    pending: t.exposeInt('pending', { description: 'Waiting for their next attempt' }),
    due: t.exposeInt('due', { description: 'Of those, due now' }),
    sending: t.exposeInt('sending', { description: 'Claimed by a dispatcher' }),
    failed: t.exposeInt('failed', { description: 'Given up after the last attempt' }),
    oldestDueSeconds: t.exposeInt('oldestDueSeconds', { description: 'How long the longest-waiting due delivery is past its time (0: none due)' }),
  }),
});

const OutboxState = builder.objectRef<admin.OutboxState>('OutboxState').implement({
  description: 'The outbox: events waiting to be relayed to live streams, and the deliveries waiting or given up (delivered ones are not counted)',
  fields: (t) => ({
    unrelayed: t.exposeInt('unrelayed', { description: 'Events committed and not yet relayed to live streams' }),
    oldestUnrelayedSeconds: t.exposeInt('oldestUnrelayedSeconds'),
    kinds: t.field({ type: [OutboxKind], resolve: (s) => s.kinds }),
    checkedAt: t.expose('checkedAt', { type: 'DateTime' }),
  }),
});

builder.queryField('adminOutbox', (t) =>
  t.field({ type: OutboxState, description: "The outbox's state", auth: 'admin', resolve: (_r, _a, ctx) => admin.outboxState(ctx) }),
);
