// Capabilities the marketplace serves itself (the ticketing group and trust-score): run through the same
// execute path, inside the transaction that records the execution, so a ticket and the execution that made
// it commit together.
import type { DbTx } from '../../db/database';
import type { Agent } from '../../db/generated/prisma/client';
import { Checks } from '../../platform/validate';
import type { Page } from '../agents/account';
import type { Ctx } from '../context';
import type { Emit } from '../events';
import { trustScore } from '../reputation/trust';
import { auditSkill } from '../skills/audit';
import { addComment, createTicket, listTickets, ticketInReach, type TicketWithComments } from '../tickets/tickets';

/** How the marketplace names itself as the provider of a built-in capability. */
export const MARKETPLACE_PROVIDER = { serviceKey: 'marketplace', name: 'Agent Capability Marketplace', reputation: 100 } as const;

export type BuiltinHandler = (tx: DbTx, emit: Emit, ctx: Ctx, me: Agent, input: Record<string, unknown>) => Promise<unknown>;

// Field paths here are relative to `input`; execute names them `input.…`. The input can be read under
// either spelling of a field (execute hands it over with both).
function ticketKeyOf(input: Record<string, unknown>): unknown {
  const key = input.ticket_key;
  const checks = new Checks();
  if (key === undefined || key === null) checks.fail('ticket_key', 'is required');
  else if (typeof key !== 'string') checks.fail('ticket_key', 'must be a ticket key such as ST-1001');
  checks.done();
  return key;
}

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

export const BUILTINS: Record<string, BuiltinHandler> = {
  'support-ticket': async (tx, emit, ctx, me, input) => {
    const ticket = await createTicket(tx, emit, ctx, me, input);
    return { ticket_key: ticket.ticketKey, status: ticket.status, created_at: ticket.createdAt.toISOString() };
  },
  'ticket-status': async (tx, _emit, ctx, _me, input) => ticketSummary(await ticketInReach(ctx, ticketKeyOf(input), tx)),
  'ticket-comment': async (tx, emit, ctx, _me, input) => {
    const { ticket, comment } = await addComment(ctx, String(ticketKeyOf(input)), input, { tx, emit });
    return { ticket_key: ticket.ticketKey, comment_id: comment.id, content: comment.content, author: comment.author, created_at: comment.createdAt.toISOString() };
  },
  'ticket-list': async (tx, _emit, ctx, _me, input) => {
    const page = pageOf(input);
    const { items, total } = await listTickets(ctx, page, input.status, tx);
    return { tickets: items.map(ticketSummary), total, limit: page.limit, offset: page.offset };
  },
  'trust-score': async (tx, _emit, ctx, _me, input) => trustScore(tx, input, ctx.services.clock.now()),
  'skill-audit': async (tx, _emit, ctx, _me, input) => auditSkill(ctx, tx, input),
};

export const isBuiltin = (capability: string): boolean => Object.prototype.hasOwnProperty.call(BUILTINS, capability);
