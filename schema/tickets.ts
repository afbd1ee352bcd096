// Support tickets: reading and moving a ticket, comments, the ticket endpoints of services, and a ticket's
// live events. Tickets are created through execute (support-ticket).
import * as tickets from '../src/domain/tickets/tickets';
import { requireAgent } from '../src/domain/agents/principal';
import { MarketplaceEventRef } from './agents';
import { builder } from './builder';
import { pagedField } from './paging';
import { maxLength, oneOf } from './json-schema';

const TicketComment = builder.prismaObject('TicketComment', {
  fields: (t) => ({
    commentId: t.exposeID('id'),
    content: t.exposeString('content'),
    author: t.exposeString('author', { description: "The author's agent name" }),
    authorAgentId: t.exposeID('authorAgentId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const TicketMove = builder.prismaObject('StateChange', {
  fields: (t) => ({
    from: t.exposeString('fromState', { nullable: true }),
    to: t.exposeString('toState'),
    actorKind: t.exposeString('actorKind'),
    actorId: t.exposeString('actorId', { nullable: true }),
    note: t.exposeString('note', { nullable: true }),
    at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const Ticket = builder.prismaNode('Ticket', {
  authScopes: (ticket, ctx) => tickets.ticketVisible(ctx, ticket),
  description: 'A support ticket, visible to its creator and to the owner of its target service',
  id: { field: 'id' },
  fields: (t) => ({
    ticketKey: t.exposeString('ticketKey', { description: '`ST-<n>`' }),
    type: t.exposeString('type'),
    subject: t.exposeString('subject'),
    description: t.exposeString('description'),
    status: t.exposeString('status', { description: '`open`, `in_progress`, `waiting`, `resolved` or `closed`' }),
    priority: t.exposeString('priority'),
    priorityResolution: t.exposeBoolean('priorityResolution', {
      description:
        "Filed by a Contributor or above (reputation 31+): handled first, in queues of unfinished tickets (`tickets` with status open, in_progress or waiting) and in the forwards to the service's ticket endpoint",
    }),
    agentName: t.exposeString('agentName'),
    createdBy: t.exposeID('agentId', { description: 'The creating agent' }),
    targetService: t.exposeString('targetService', { nullable: true }),
    callbackUrl: t.string({
      nullable: true,
      description: 'Shown to the creator only',
      resolve: async (ticket, _a, ctx) => ((await requireAgent(ctx)).id === ticket.agentId ? ticket.callbackUrl : null),
    }),
    resolution: t.exposeString('resolution', { nullable: true }),
    comments: t.relation('comments', { query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
    history: t.field({
      type: [TicketMove],
      description: 'Every status move: from, to, who and when',
      resolve: (ticket, _a, ctx) => tickets.ticketHistory(ctx, ticket),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});
void TicketComment;

builder.queryField('ticket', (t) =>
  t.prismaField({
    type: 'Ticket',
    description: 'A ticket the caller created or that targets one of its services',
    auth: 'agent',
    args: { ticketKey: t.arg.string({ required: true }) },
    resolve: (_q, _r, { ticketKey }, ctx) => tickets.getTicket(ctx, ticketKey),
  }),
);

builder.queryField('tickets', (t) =>
  pagedField(t, Ticket, {
    description:
      'Tickets the caller created or that target its services, newest first; with an unfinished status (open, in_progress, waiting), the queue: those filed with priority resolution first, then the oldest',
    auth: 'agent',
    args: { status: t.arg.string({ description: 'Only tickets in this status', extensions: oneOf(tickets.TICKET_STATUSES) }) },
    resolve: (ctx, args, page) => tickets.listTickets(ctx, page, args.status),
  }),
);

const TicketStatusInput = builder.inputType('TicketStatusInput', {
  fields: (t) => ({
    status: t.string({ required: true, description: 'open, in_progress, waiting, resolved or closed', extensions: oneOf(tickets.TICKET_STATUSES) }),
    resolution: t.string({ description: 'Notes on how it was resolved' }),
  }),
});

builder.mutationField('updateTicketStatus', (t) =>
  t.prismaField({
    type: 'Ticket',
    description:
      'Move a ticket from any status to the given one, recorded in its history; the status it already has changes nothing (a new resolution with it is stored)',
    auth: 'agent',
    args: { ticketKey: t.arg.string({ required: true }), input: t.arg({ type: TicketStatusInput, required: true }) },
    resolve: (_q, _r, { ticketKey, input }, ctx) => tickets.updateTicketStatus(ctx, ticketKey, input),
  }),
);

const AddedComment = builder
  .objectRef<{ ticket: { ticketKey: string }; comment: { id: string; content: string; author: string; createdAt: Date } }>('AddedTicketComment')
  .implement({
    fields: (t) => ({
      ticketKey: t.string({ resolve: (a) => a.ticket.ticketKey }),
      commentId: t.id({ resolve: (a) => a.comment.id }),
      content: t.string({ resolve: (a) => a.comment.content }),
      author: t.string({ resolve: (a) => a.comment.author }),
      createdAt: t.field({ type: 'DateTime', resolve: (a) => a.comment.createdAt }),
    }),
  });

builder.mutationField('addTicketComment', (t) =>
  t.field({
    type: AddedComment,
    auth: 'agent',
    args: {
      ticketKey: t.arg.string({ required: true }),
      input: t.arg({
        type: builder.inputType('TicketCommentInput', { fields: (f) => ({ content: f.string({ required: true, extensions: maxLength(10_000) }) }) }),
        required: true,
      }),
    },
    resolve: (_r, { ticketKey, input }, ctx) => tickets.addComment(ctx, ticketKey, input),
  }),
);

const TicketEndpoint = builder.objectRef<tickets.RegisteredEndpoint['endpoint']>('TicketEndpoint').implement({
  fields: (t) => ({
    serviceKey: t.string({ resolve: (e) => e.service.serviceKey }),
    ticketReceiveUrl: t.exposeString('url'),
    name: t.exposeString('name', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const RegisteredEndpoint = builder.objectRef<tickets.RegisteredEndpoint>('RegisteredTicketEndpoint').implement({
  fields: (t) => ({
    registered: t.boolean({ resolve: () => true }),
    serviceKey: t.string({ resolve: (r) => r.endpoint.service.serviceKey }),
    ticketReceiveUrl: t.string({ resolve: (r) => r.endpoint.url }),
    name: t.string({ nullable: true, resolve: (r) => r.endpoint.name }),
    secret: t.exposeString('secret', { description: "`whsec_…`, the key of forwarded tickets' HMAC `v1` signature: shown only here" }),
  }),
});

const RegisterTicketEndpointInput = builder.inputType('RegisterTicketEndpointInput', {
  fields: (t) => ({
    serviceKey: t.string({ required: true, description: "One of the caller's services" }),
    ticketReceiveUrl: t.string({ required: true, description: 'An https:// URL' }),
    name: t.string(),
  }),
});

builder.mutationField('registerTicketEndpoint', (t) =>
  t.field({
    type: RegisteredEndpoint,
    description: "Where one of the caller's services receives the tickets addressed to it (replaces an earlier one, with a new secret)",
    auth: 'agent',
    args: { input: t.arg({ type: RegisterTicketEndpointInput, required: true }) },
    resolve: (_r, { input }, ctx) => tickets.registerTicketEndpoint(ctx, input),
  }),
);

builder.queryField('ticketEndpoints', (t) =>
  pagedField(t, TicketEndpoint, {
    description: "The ticket endpoints of the caller's services, oldest first",
    auth: 'agent',
    resolve: (ctx, _a, page) => tickets.listTicketEndpoints(ctx, page),
  }),
);

builder.subscriptionField('ticketEvents', (t) =>
  t.field({
    type: MarketplaceEventRef,
    description: "A ticket's events (created, updated, commented) for its creator or the target service's owner",
    auth: 'agent',
    args: { ticketKey: t.arg.string({ required: true }) },
    subscribe: async (_root, { ticketKey }, ctx) => {
      const ticket = await tickets.ticketInReach(ctx, ticketKey);
      return ctx.services.events.subscribe('ticketEvents', ticket.ticketKey);
    },
    resolve: (event) => event,
  }),
);
