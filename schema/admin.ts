// Administration: agent status and platform statistics (the administrator key only).
import * as admin from '../src/domain/admin/admin';
import { AgentStatusEnum, Agent } from './agents';
import { builder } from './builder';

const StatusUpdate = builder.objectRef<Awaited<ReturnType<typeof admin.setAgentStatus>>>('AgentStatusUpdate').implement({
  fields: (t) => ({
    updated: t.boolean({ resolve: () => true }),
    agentId: t.exposeID('id'),
    status: t.expose('status', { type: AgentStatusEnum, description: "The status in force: the worst of the one set and the agent's ancestors'" }),
    ownStatus: t.expose('ownStatus', { type: AgentStatusEnum, description: 'The status set' }),
    agent: t.field({ type: Agent, resolve: (a) => a }),
  }),
});

const UpdateAgentStatusInput = builder.inputType('UpdateAgentStatusInput', {
  fields: (t) => ({
    status: t.field({ type: AgentStatusEnum, required: true }),
    reason: t.string({ description: 'Recorded in the agent\'s audit log' }),
  }),
});

builder.mutationField('updateAgentStatus', (t) =>
  t.field({
    type: StatusUpdate,
    description:
      "Set an agent's own status ACTIVE, SUSPENDED or BANNED. Its status in force, and that of every sub-agent below it, is the worst of its own and its ancestors': suspended and banned agents and their whole subtree get 403 on every agent operation at once; lifting it restores the sub-agents not suspended on their own.",
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
    executions: t.field({ type: counts<Stats['executions']>('AdminExecutionStats', ['total', 'last30d', 'succeeded', 'failed']), resolve: (s) => s.executions }),
    disputes: t.field({ type: counts<Stats['disputes']>('AdminDisputeStats', ['total', 'open']), resolve: (s) => s.disputes }),
    revenueCents: t.exposeInt('revenueCents'),
    capabilities: t.exposeInt('capabilities'),
  }),
});

builder.queryField('adminStats', (t) =>
  t.field({ type: AdminStats, description: 'Platform-wide statistics', auth: 'admin', resolve: (_r, _a, ctx) => admin.adminStats(ctx) }),
);
