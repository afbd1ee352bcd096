// Agents: the Agent node, registration, the caller's profile, and the caller's live event stream.
import * as agents from '../src/domain/agents/agents';
import { requireAgent } from '../src/domain/agents/principal';
import { effectiveStatusImposedBy } from '../src/domain/agents/status';
import { tierOf } from '../src/domain/reputation/reputation';
import * as trust from '../src/domain/reputation/trust';
import type { MarketplaceEvent } from '../src/domain/events';
import { builder } from './builder';
import { length, listOf, maxLength, range, uuid } from './json-schema';

export const TierEnum = builder.enumType('Tier', {
  description: 'Reputation tier: newcomer 0-30, contributor 31-60, trusted 61-85, star 86-100',
  values: ['newcomer', 'contributor', 'trusted', 'star'] as const,
});

export const AgentStatusEnum = builder.enumType('AgentStatus', { values: ['ACTIVE', 'SUSPENDED', 'BANNED'] as const });
export const AutonomyLevelEnum = builder.enumType('AutonomyLevel', { values: ['EXECUTE_ONLY', 'DELEGATE', 'CREATE', 'GOVERN'] as const });

export const Agent = builder.prismaNode('Agent', {
  description: 'A registered agent: an identity that publishes services and calls capabilities',
  id: { field: 'id' },
  fields: (t) => ({
    agentId: t.exposeID('id', { description: 'The agent UUID (`id` is the Relay global id)' }),
    agentKey: t.exposeString('agentKey', { description: 'Public identifier, `ag_…`; not a credential' }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    ownerEmail: t.string({
      nullable: true,
      description: "The owner's email; visible only to the agent itself",
      resolve: async (agent, _args, ctx) => {
        const p = await ctx.principal();
        return p.kind === 'agent' && p.agent.id === agent.id ? agent.ownerEmail : null;
      },
    }),
    reputation: t.exposeInt('reputation', { description: 'Reputation score, 0-100' }),
    tier: t.field({ type: TierEnum, resolve: (agent) => tierOf(agent.reputation) }),
    status: t.expose('ownStatus', {
      type: AgentStatusEnum,
      description:
        "The status the administrator gave this agent (ACTIVE until one is given). Whether it may act is `effectiveStatus`: a suspended or banned ancestor bounds it. An agent's own reads (`me`) answer only while it may act, so there it is ACTIVE",
    }),
    effectiveStatus: t.expose('status', {
      type: AgentStatusEnum,
      description:
        "The status in force: the worst of the status given and its ancestors' (a suspension or ban reaches every sub-agent below). Only an ACTIVE agent may act",
    }),
    effectiveStatusImposedBy: t.id({
      nullable: true,
      description: 'The ancestor whose own status imposes `effectiveStatus` (the nearest, when several have it); null when it is the status given',
      resolve: (agent, _args, ctx) => effectiveStatusImposedBy(ctx, agent),
    }),
    ownStatus: t.expose('ownStatus', {
      type: AgentStatusEnum,
      deprecationReason: 'The same as `status`, the status given',
      description: 'The status the administrator gave this agent',
    }),
    autonomyLevel: t.expose('autonomyLevel', { type: AutonomyLevelEnum }),
    capabilities: t.exposeStringList('capabilities'),
    authorityScope: t.exposeStringList('authorityScope', { description: 'Capability prefixes a sub-agent may act on' }),
    parentId: t.exposeID('parentId', { nullable: true, description: 'The parent of a sub-agent' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const Registration = builder.objectRef<agents.Registration>('AgentRegistration').implement({
  description: 'A new agent (or sub-agent) and its credentials; the master key is shown only here',
  fields: (t) => ({
    agent: t.field({ type: Agent, resolve: (r) => r.agent }),
    masterKey: t.exposeString('masterKey', { description: 'Secret bearer credential, `key_master_…`; store it now' }),
    agentKey: t.exposeString('agentKey'),
    agentId: t.id({ description: 'The new agent UUID', resolve: (r) => r.agent.id }),
    name: t.string({ resolve: (r) => r.agent.name }),
    reputation: t.int({ resolve: (r) => r.agent.reputation }),
    tier: t.field({ type: TierEnum, resolve: (r) => tierOf(r.agent.reputation) }),
    autonomyLevel: t.field({ type: AutonomyLevelEnum, resolve: (r) => r.agent.autonomyLevel }),
    authorityScope: t.stringList({ resolve: (r) => r.agent.authorityScope }),
    parentId: t.id({ nullable: true, resolve: (r) => r.agent.parentId }),
  }),
});

const CreateSubAgentInput = builder.inputType('CreateSubAgentInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: '3-50 characters, unique' }),
    description: t.string({ required: true }),
    autonomyLevel: t.field({ type: AutonomyLevelEnum, required: true, description: "At most the parent agent's own level" }),
    authorityScope: t.stringList({ required: true, description: "Capability prefixes the sub-agent may act on; inside the parent's scope" }),
  }),
});

builder.mutationField('createSubAgent', (t) =>
  t.field({
    type: Registration,
    description: 'Create a sub-agent of `parentId` (the caller or one of its descendants); returns its own master key once',
    auth: 'agent',
    args: { parentId: t.arg.id({ required: true }), input: t.arg({ type: CreateSubAgentInput, required: true }) },
    resolve: (_root, { parentId, input }, ctx) => agents.createSubAgent(ctx, String(parentId), input),
  }),
);

const RegisterAgentInput = builder.inputType('RegisterAgentInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: '3-50 characters, unique' }),
    description: t.string({ required: true, description: 'What the agent does (at most 2000 characters)' }),
    ownerEmail: t.string({ required: true, description: "The owner's email address" }),
  }),
});

const UpdateMeInput = builder.inputType('UpdateMeInput', {
  fields: (t) => ({
    name: t.string({ description: '3-50 characters, unique', extensions: length(3, 50) }),
    description: t.string({ extensions: maxLength(2000) }),
    capabilities: t.stringList({ description: 'Capability identifiers this agent offers (at most 100)', extensions: listOf(100, maxLength(64)) }),
  }),
});

builder.mutationField('registerAgent', (t) =>
  t.field({
    type: Registration,
    description: 'Register a new agent. No credential needed; returns the master key once.',
    args: { input: t.arg({ type: RegisterAgentInput, required: true }) },
    resolve: (_root, { input }, ctx) => agents.registerAgent(ctx, input),
  }),
);

// A plain field, not a prismaField: the caller's row is already loaded by authentication, and relations
// on Agent load on demand, so there is no selection to map into a query on this hot path.
builder.queryField('me', (t) =>
  t.field({
    type: Agent,
    description: 'The calling agent',
    auth: 'agent',
    resolve: (_root, _args, ctx) => agents.getMe(ctx),
  }),
);

type Record = Awaited<ReturnType<typeof trust.agentReputation>>;

const ReputationDay = builder.objectRef<trust.ReputationDay>('ReputationDay').implement({
  description: "One day of an agent's reputation (UTC)",
  fields: (t) => ({
    day: t.exposeString('day', { description: 'YYYY-MM-DD' }),
    score: t.exposeInt('score', { description: 'The score at the end of the day, 0-100' }),
    net: t.exposeInt('net', { description: "The day's net change" }),
    events: t.exposeInt('events', { description: 'How many changes' }),
  }),
});

const AgentRecord = builder.objectRef<Record>('AgentReputation').implement({
  description: "An agent's public record: reputation, tier, and the trust score built from how its services answered and the disputes against it",
  fields: (t) => ({
    agentId: t.exposeID('agent_id'),
    name: t.exposeString('name'),
    reputation: t.exposeInt('reputation', { description: '0-100' }),
    tier: t.field({ type: TierEnum, resolve: (r) => r.tier as never }),
    trustScore: t.exposeFloat('trust_score', {
      description: `0-100: reputation × ${trust.TRUST_WEIGHTS.reputation} + reliability × ${trust.TRUST_WEIGHTS.reliability} + disputes × ${trust.TRUST_WEIGHTS.disputes}`,
    }),
    calls: t.int({ description: 'Calls its services answered or failed', resolve: (r) => r.reliability.calls }),
    successes: t.int({ resolve: (r) => r.reliability.successes }),
    successRate: t.float({ description: 'With a uniform prior: no calls counts as 0.5', resolve: (r) => r.reliability.success_rate }),
    disputes: t.int({ description: 'Disputes filed against its services', resolve: (r) => r.disputes.total }),
    disputesLost: t.int({ description: 'Resolved with a refund', resolve: (r) => r.disputes.lost }),
    disputesOpen: t.int({ resolve: (r) => r.disputes.open }),
    reputationEvents30d: t.int({ description: 'Reputation changes in the last 30 days', resolve: (r) => r.reputation_events.count }),
    reputationNet30d: t.int({ description: 'Their net effect', resolve: (r) => r.reputation_events.net_last_30_days }),
    history: t.field({
      type: [ReputationDay],
      description: "The days its score moved over the last `days` (default 30, at most 365), oldest first: the score at each day's end and the net change",
      args: { days: t.arg.int({ description: '1-365, default 30', extensions: range(1, 365) }) },
      resolve: (r, { days }, ctx) => trust.reputationHistory(ctx.db, r.agent_id, days ?? 30, ctx.services.clock.now()),
    }),
  }),
});

builder.queryField('agentReputation', (t) =>
  t.field({
    type: AgentRecord,
    description: "Any agent's public reputation record (no credential needed; 404 for an unknown agent)",
    args: { agentId: t.arg.id({ required: true, description: 'The agent UUID', extensions: uuid }) },
    resolve: (_r, { agentId }, ctx) => trust.agentReputation(ctx.db, String(agentId), ctx.services.clock.now()),
  }),
);

builder.mutationField('updateMe', (t) =>
  t.prismaField({
    type: 'Agent',
    description: "Update the calling agent's profile; publishes `agent.updated`",
    auth: 'agent',
    args: { input: t.arg({ type: UpdateMeInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => agents.updateMe(ctx, input, query),
  }),
);

export const MarketplaceEventRef = builder.objectRef<MarketplaceEvent>('MarketplaceEvent').implement({
  description: 'An event, in the envelope delivered to webhooks (CONTRACT §7)',
  fields: (t) => ({
    id: t.exposeString('id', { description: '`evt_…`' }),
    type: t.exposeString('type', { description: 'Event name, for example `agent.updated`' }),
    createdAt: t.field({ type: 'DateTime', resolve: (e) => e.created_at }),
    data: t.field({ type: 'JSON', resolve: (e) => e.data }),
  }),
});

builder.subscriptionField('agentEvents', (t) =>
  t.field({
    type: MarketplaceEventRef,
    description: 'Every event of the calling agent, as delivered to its webhooks',
    auth: 'agent',
    subscribe: async (_root, _args, ctx) => {
      const me = await requireAgent(ctx);
      return ctx.services.events.subscribe('agentEvents', me.id);
    },
    resolve: (event) => event,
  }),
);
