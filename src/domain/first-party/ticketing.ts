// The ticketing capabilities (the marketplace's support tickets, docs/tickets-and-disputes.md), served by
// the marketplace on its own data, inside the transaction that records the execution: a ticket and the
// execution that made it commit together.
import { Checks } from '../../platform/validate';
import type { Page } from '../../platform/page';
import {
  addComment,
  createTicket,
  listTickets,
  ticketInReach,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  TICKET_TYPES,
  type TicketWithComments,
} from '../tickets/tickets';
import { dateTime, int, nullable, obj, PAGE_FIELDS, str, list } from './schema';
import type { FirstPartyCapability } from './types';

function pageOf(input: Record<string, unknown>): Page {
  const checks = new Checks();
  const limit = checks.integer('limit', input.limit, 1, 100) ?? 20;
  const offset = checks.integer('offset', input.offset, 0, 1_000_000) ?? 0;
  checks.done();
  return { limit, offset };
}

function ticketSummary(t: TicketWithComments) {
  return {
    ticket_key: t.ticketKey,
    type: t.type,
    subject: t.subject,
    status: t.status,
    priority: t.priority,
    resolution: t.resolution,
    target_service: t.targetService,
    comment_count: t.comments.length,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

const TICKET_KEY = str('A ticket key, such as ST-1001', { minLength: 1, maxLength: 64 });

const SUMMARY = obj(
  {
    ticket_key: str('The ticket key'),
    type: str('The ticket type', { enum: [...TICKET_TYPES] }),
    subject: str('The subject'),
    status: str('The status', { enum: [...TICKET_STATUSES] }),
    priority: str('The priority', { enum: [...TICKET_PRIORITIES] }),
    resolution: nullable(str('How it was resolved')),
    target_service: nullable(str('The service it concerns (key or id), as given')),
    comment_count: int('Comments on it', { minimum: 0 }),
    created_at: dateTime('When it was opened'),
    updated_at: dateTime('When it last changed'),
  },
  ['ticket_key', 'type', 'subject', 'status', 'priority', 'resolution', 'target_service', 'comment_count', 'created_at', 'updated_at'],
);

export const TICKETING_CAPABILITIES: FirstPartyCapability[] = [
  {
    slug: 'support-ticket',
    kind: 'own',
    summary: 'Opens a support ticket with the marketplace, or about one of its services (forwarded to that service’s ticket endpoints)',
    inputSchema: obj(
      {
        type: str('What kind of ticket', { enum: [...TICKET_TYPES] }),
        subject: str('One line', { minLength: 1, maxLength: 200 }),
        description: str('What happened, or what is asked', { minLength: 1, maxLength: 10_000 }),
        priority: str('How urgent (default medium)', { enum: [...TICKET_PRIORITIES] }),
        agent_name: str('Who is writing (shown to whoever handles it)', { minLength: 1, maxLength: 100 }),
        target_service: str('The service it concerns: its key (svc_…) or id', { maxLength: 64 }),
        callback_url: str('An HTTPS URL told of every change of the ticket', { format: 'uri', pattern: '^https://', maxLength: 2048 }),
      },
      ['type', 'subject', 'description', 'agent_name'],
    ),
    outputSchema: obj({ ticket_key: str('The new ticket’s key'), status: str('Its status: open'), created_at: dateTime('When it was opened') }, [
      'ticket_key',
      'status',
      'created_at',
    ]),
    run: async (tx, emit, ctx, me, input) => {
      const ticket = await createTicket(tx, emit, ctx, me, input);
      return { ticket_key: ticket.ticketKey, status: ticket.status, created_at: ticket.createdAt.toISOString() };
    },
  },
  {
    slug: 'ticket-status',
    kind: 'own',
    summary: 'A ticket the caller opened, or that concerns its services: its status and summary',
    inputSchema: obj({ ticket_key: TICKET_KEY }, ['ticket_key']),
    outputSchema: SUMMARY,
    run: async (tx, _emit, ctx, _me, input) => ticketSummary(await ticketInReach(ctx, input.ticket_key, tx)),
  },
  {
    slug: 'ticket-comment',
    kind: 'own',
    summary: 'Adds a comment to a ticket within the caller’s reach',
    inputSchema: obj({ ticket_key: TICKET_KEY, content: str('The comment', { minLength: 1, maxLength: 10_000 }) }, ['ticket_key', 'content']),
    outputSchema: obj(
      {
        ticket_key: str('The ticket key'),
        comment_id: str('The comment’s id'),
        content: str('The comment'),
        author: str('Its author’s name'),
        created_at: dateTime('When it was written'),
      },
      ['ticket_key', 'comment_id', 'content', 'author', 'created_at'],
    ),
    run: async (tx, emit, ctx, _me, input) => {
      const { ticket, comment } = await addComment(ctx, String(input.ticket_key), input, { tx, emit });
      return {
        ticket_key: ticket.ticketKey,
        comment_id: comment.id,
        content: comment.content,
        author: comment.author,
        created_at: comment.createdAt.toISOString(),
      };
    },
  },
  {
    slug: 'ticket-list',
    kind: 'own',
    summary: 'The tickets the caller opened or that concern its services, newest first',
    inputSchema: obj({ status: str('Only tickets in this status', { enum: [...TICKET_STATUSES] }), ...PAGE_FIELDS }),
    outputSchema: obj(
      {
        tickets: list(SUMMARY, 'The page of tickets'),
        total: int('How many match', { minimum: 0 }),
        limit: int('The page size'),
        offset: int('Items skipped'),
      },
      ['tickets', 'total', 'limit', 'offset'],
    ),
    run: async (tx, _emit, ctx, _me, input) => {
      const page = pageOf(input);
      const { items, total } = await listTickets(ctx, page, input.status, tx);
      return { tickets: items.map(ticketSummary), total, limit: page.limit, offset: page.offset };
    },
  },
];
