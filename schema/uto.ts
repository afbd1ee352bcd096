// Orchestration tickets (UTO): tickets and their moves, specialists, notification subscriptions, and the
// events of the caller's tickets as a live stream (Subscription.utoEvents; REST SSE at /uto/events).
import type { UtoSubscription } from '../src/db/generated/prisma/client';
import type { UtoStreamEvent } from '../src/domain/uto/events';
import { UTO_EVENT_TYPES } from '../src/domain/uto/events';
import * as notifications from '../src/domain/uto/notifications';
import * as specialists from '../src/domain/uto/specialists';
import * as tickets from '../src/domain/uto/tickets';
import { tierOf } from '../src/domain/reputation/reputation';
import { builder, ownedByCaller } from './builder';
import { pagedField } from './paging';
import { maxLength, oneOf } from './json-schema';

const STATES = tickets.UTO_STATES.map((s) => `\`${s}\``).join(', ');
const TRIGGERS = tickets.UTO_TRIGGERS.map((s) => `\`${s}\``).join(', ');

const HistoryEntry = builder.objectRef<tickets.HistoryEntry>('UtoStateChange').implement({
  description: 'One move of a UTO ticket',
  fields: (t) => ({
    from: t.string({ nullable: true, description: 'null for the creation', resolve: (e) => e.from }),
    to: t.exposeString('to'),
    triggeredBy: t.string({ description: `${TRIGGERS}: what the move's maker says triggered it`, resolve: (e) => e.triggered_by }),
    by: t.exposeString('by', {
      description: "Who made the move: the owner's agent id (whatever trigger it named), or `marketplace` for the marketplace's own matching and expiry",
    }),
    at: t.field({ type: 'DateTime', resolve: (e) => e.at }),
    note: t.string({ nullable: true, resolve: (e) => e.note ?? null }),
  }),
});

export const UtoTicket = builder.prismaNode('UtoTicket', {
  authScopes: ownedByCaller,
  description: 'An orchestration ticket: an intent in a domain, matched by the marketplace to specialists and providers',
  id: { field: 'id' },
  fields: (t) => ({
    ticketId: t.exposeString('id', { description: '`uto_…`' }),
    intent: t.exposeString('intent'),
    domain: t.exposeString('domain'),
    context: t.field({ type: 'JSON', resolve: (u) => u.context }),
    requiredCapabilities: t.exposeStringList('requiredCapabilities'),
    maxBudgetUsd: t.float({ nullable: true, resolve: (u) => (u.maxBudgetCents === null ? null : u.maxBudgetCents / 100) }),
    state: t.exposeString('state', { description: STATES }),
    stateHistory: t.field({
      type: [HistoryEntry],
      description: 'Every move, oldest first',
      resolve: (u) => u.stateHistory as unknown as tickets.HistoryEntry[],
    }),
    matches: t.field({
      type: 'JSON',
      description:
        'What the matching found: `specialists` (agent_id, name, reputation, capabilities) and `providers` (capability, service_id, service_key, name, provider_agent_id, cost_per_call, score), with `matched_at`; {} before',
      resolve: (u) => u.matches,
    }),
    deadline: t.expose('deadline', { type: 'DateTime', description: 'Past it, an open ticket expires' }),
    ownerAgentId: t.exposeID('agentId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const Specialist = builder.objectRef<specialists.SpecialistWithAgent>('UtoSpecialist').implement({
  description: 'An agent registered as a specialist of a domain',
  fields: (t) => ({
    agentId: t.exposeID('agentId'),
    name: t.string({ resolve: (s) => s.agent.name }),
    domain: t.exposeString('domain'),
    capabilities: t.exposeStringList('capabilities'),
    reputation: t.int({ resolve: (s) => s.agent.reputation }),
    tier: t.string({ resolve: (s) => tierOf(s.agent.reputation) }),
    registeredAt: t.field({ type: 'DateTime', resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (s) => s.updatedAt }),
  }),
});

export const NotificationSubscription = builder.objectRef<UtoSubscription & { secret?: string | null }>('UtoNotificationSubscription').implement({
  description: 'Which events of the caller’s UTO tickets it wants, and how they reach it',
  fields: (t) => ({
    subscriptionId: t.exposeID('id', { description: '`sub_…`' }),
    eventTypes: t.exposeStringList('eventTypes'),
    deliveryType: t.exposeString('deliveryType', { description: '`webhook`, `polling` or `sse`' }),
    domain: t.exposeString('domain', { nullable: true, description: 'Only tickets of this domain (null: all)' }),
    webhookUrl: t.exposeString('webhookUrl', { nullable: true }),
    status: t.exposeString('status', { description: '`active` or `cancelled`' }),
    cursor: t.exposeInt('cursor', { description: 'Polling: the last event number acknowledged' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const CreatedNotificationSubscription = builder.objectRef<notifications.CreatedSubscription>('CreatedUtoNotificationSubscription').implement({
  description: 'A new notification subscription; a webhook secret appears here once',
  fields: (t) => ({
    subscriptionId: t.id({ resolve: (c) => c.subscription.id }),
    subscription: t.field({ type: NotificationSubscription, resolve: (c) => c.subscription }),
    secret: t.string({ nullable: true, description: 'Webhook: the `whsec_…` secret of the HMAC signature (shown only now)', resolve: (c) => c.secret }),
    pollPath: t.string({
      nullable: true,
      description: 'Polling: where to read its events (under /api/v1)',
      resolve: (c) => (c.subscription.deliveryType === 'polling' ? `/uto/notifications/${c.subscription.id}/events` : null),
    }),
    streamPath: t.string({
      nullable: true,
      description: 'SSE: the stream filtered as it says (under /api/v1)',
      resolve: (c) => (c.subscription.deliveryType === 'sse' ? `/uto/events?subscription_id=${c.subscription.id}` : null),
    }),
  }),
});

export const UtoEvent = builder.objectRef<UtoStreamEvent>('UtoEvent').implement({
  description: "An event of one of the caller's UTO tickets, numbered in the caller's stream",
  fields: (t) => ({
    id: t.id({ description: 'Its number in the caller’s stream, as a string (the SSE id, for Last-Event-ID)', resolve: (e) => String(e.seq) }),
    sequence: t.exposeInt('seq', { description: 'Its number in the caller’s stream (the polling cursor)' }),
    event: t.string({ description: 'Its type again: the SSE event name', resolve: (e) => e.type }),
    eventId: t.exposeString('eventId', { description: 'The `evt_…` id of the event (as webhooks carry it)' }),
    type: t.exposeString('type', { description: UTO_EVENT_TYPES.map((e) => `\`${e}\``).join(' or ') }),
    ticketId: t.exposeString('ticketId'),
    domain: t.exposeString('domain'),
    createdAt: t.field({ type: 'DateTime', resolve: (e) => e.createdAt }),
    data: t.field({ type: 'JSON', resolve: (e) => e.data }),
  }),
});

const Poll = builder.objectRef<notifications.Poll>('UtoNotificationPoll').implement({
  description: 'Events of a polling subscription after a cursor',
  fields: (t) => ({
    events: t.field({ type: [UtoEvent], resolve: (p) => p.events }),
    cursor: t.exposeInt('cursor', { description: 'Pass it as `after` next: that acknowledges these events' }),
    hasMore: t.exposeBoolean('hasMore'),
  }),
});

const CreateTicketInput = builder.inputType('CreateUtoTicketInput', {
  fields: (t) => ({
    intent: t.string({ required: true, description: 'At most 2000 characters' }),
    domain: t.string({ required: true, description: 'Lower-case letters, digits and dashes: `defi`, `commerce`, `research`…' }),
    context: t.field({ type: 'JSON', required: true, description: 'A JSON object (at most 64 KiB)' }),
    requiredCapabilities: t.stringList({ description: 'Capabilities the work needs (at most 20)' }),
    maxBudgetUsd: t.float({ description: 'US dollars, at most two decimals' }),
    deadline: t.field({
      type: 'DateTime',
      description: `Past it, an open ticket expires (default ${tickets.DEFAULT_DEADLINE_DAYS} days; at most ${tickets.DEADLINE_MAX_DAYS})`,
    }),
  }),
});

const AdvanceTicketInput = builder.inputType('AdvanceUtoTicketInput', {
  fields: (t) => ({
    targetState: t.string({ required: true, description: STATES }),
    triggeredBy: t.string({
      required: true,
      description: `${TRIGGERS}: what the caller says triggered the move, kept in the history beside who made it (\`by\`)`,
    }),
    note: t.string({ description: 'Kept in the history (at most 500 characters)' }),
  }),
});

const RegisterSpecialistInput = builder.inputType('RegisterUtoSpecialistInput', {
  fields: (t) => ({
    domain: t.string({ required: true }),
    capabilities: t.stringList({ required: true, description: 'At most 100; registering again for a domain replaces them' }),
  }),
});

const SubscribeInput = builder.inputType('SubscribeUtoNotificationsInput', {
  fields: (t) => ({
    eventTypes: t.stringList({ required: true, description: `${UTO_EVENT_TYPES.map((e) => `\`${e}\``).join(', ')}, or \`*\`` }),
    deliveryType: t.string({ required: true, description: '`webhook`, `polling` or `sse`' }),
    webhookUrl: t.string({ description: 'Webhook: the HTTPS receiver' }),
    domain: t.string({ description: 'Only tickets of this domain' }),
  }),
});

builder.mutationField('createUtoTicket', (t) =>
  t.prismaField({
    type: 'UtoTicket',
    description: 'Submit an orchestration ticket (state `submitted`)',
    auth: 'agent',
    args: { input: t.arg({ type: CreateTicketInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => tickets.createTicket(ctx, input),
  }),
);

builder.mutationField('advanceUtoTicket', (t) =>
  t.prismaField({
    type: 'UtoTicket',
    description: 'Move a ticket along the table of moves, naming what triggered the move',
    auth: 'agent',
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: AdvanceTicketInput, required: true }) },
    resolve: (_q, _r, { id, input }, ctx) => tickets.advanceTicket(ctx, id, input),
  }),
);

builder.queryField('utoTicket', (t) =>
  t.prismaField({
    type: 'UtoTicket',
    description: "One of the caller's UTO tickets",
    auth: 'agent',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => tickets.getTicket(ctx, id),
  }),
);

builder.queryField('utoTickets', (t) =>
  pagedField(t, UtoTicket, {
    description: "The caller's UTO tickets, newest first",
    auth: 'agent',
    args: { domain: t.arg.string({ extensions: maxLength(64) }), state: t.arg.string({ description: STATES, extensions: oneOf(tickets.UTO_STATES) }) },
    resolve: (ctx, args, page) => tickets.listTickets(ctx, page, args),
  }),
);

builder.mutationField('registerUtoSpecialist', (t) =>
  t.field({
    type: Specialist,
    description: 'Register the caller as a specialist of a domain (again: replace its capabilities there)',
    auth: 'agent',
    args: { input: t.arg({ type: RegisterSpecialistInput, required: true }) },
    resolve: (_r, { input }, ctx) => specialists.registerSpecialist(ctx, input),
  }),
);

builder.queryField('utoSpecialists', (t) =>
  pagedField(t, Specialist, {
    description: 'Registered specialists, best reputation first',
    auth: 'agent',
    args: { domain: t.arg.string({ extensions: maxLength(64) }) },
    resolve: (ctx, args, page) => specialists.listSpecialists(ctx, page, args.domain),
  }),
);

builder.mutationField('subscribeUtoNotifications', (t) =>
  t.field({
    type: CreatedNotificationSubscription,
    description: "Subscribe to events of the caller's UTO tickets, by webhook, polling or SSE",
    auth: 'agent',
    args: { input: t.arg({ type: SubscribeInput, required: true }) },
    resolve: (_r, { input }, ctx) => notifications.subscribe(ctx, input),
  }),
);

builder.mutationField('cancelUtoNotificationSubscription', (t) =>
  t.field({
    type: NotificationSubscription,
    description: 'Cancel a notification subscription (active → cancelled)',
    auth: 'agent',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, { id }, ctx) => notifications.cancelSubscription(ctx, id),
  }),
);

builder.queryField('utoNotificationSubscriptions', (t) =>
  pagedField(t, NotificationSubscription, {
    description: "The caller's notification subscriptions, newest first",
    auth: 'agent',
    resolve: (ctx, _args, page) => notifications.listSubscriptions(ctx, page),
  }),
);

builder.queryField('utoNotificationEvents', (t) =>
  t.field({
    type: Poll,
    description:
      "A polling subscription's events after `after` (absent: after the cursor it last acknowledged), oldest first. Passing `after` acknowledges every event up to it.",
    auth: 'agent',
    args: {
      subscriptionId: t.arg.string({ required: true }),
      after: t.arg.int(),
      limit: t.arg.int({ description: `1-${notifications.POLL_MAX} (default ${notifications.POLL_DEFAULT})` }),
    },
    resolve: (_r, args, ctx) => notifications.pollEvents(ctx, args.subscriptionId, args.after, args.limit),
  }),
);

builder.subscriptionField('utoEvents', (t) =>
  t.field({
    type: UtoEvent,
    description:
      "The events of the caller's UTO tickets as they happen (optionally one domain's, or filtered as an `sse` notification subscription says). `after` (an event's sequence, as SSE's Last-Event-ID) replays the events after it first. Counts against the agent's concurrent streams.",
    auth: 'agent',
    args: { domain: t.arg.string(), subscriptionId: t.arg.string(), after: t.arg.int({ description: 'Resume after this sequence' }) },
    subscribe: (_root, args, ctx) => notifications.followUtoEvents(ctx, args),
    resolve: (event) => event,
  }),
);
