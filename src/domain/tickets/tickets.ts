// Support tickets (spec §2, §4.3, §4.5): created through `execute` with `support-ticket`, keyed ST-<n>, read
// and moved by their creator and the target service's owner (nobody else), commented on, forwarded to the
// target service's registered endpoint, and reported to the creator's callback_url on every change.
import type { DbTx } from '../../db/database';
import type { Agent, StateChange, Ticket, TicketComment, TicketEndpoint } from '../../db/generated/prisma/client';
import { NotFound } from '../../platform/errors';
import { isUuid, newSigningSecret } from '../../platform/ids';
import { assertMove, type Moves } from '../../platform/state-machine';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { recordAudit, recordStateChange, stateChangesOf } from '../audit/audit';
import type { Ctx } from '../context';
import { transact, type Emit, type EventType, type ExtraDelivery } from '../events';
import type { Page } from '../../platform/page';
import { serviceOwner } from '../services/services';
import { hasPriorityResolution } from '../reputation/privileges';

/** The delivery priority of a forward of a ticket filed with priority resolution (others have 0). */
const FORWARD_PRIORITY = 1;

export const TICKET_TYPES = ['bug', 'feature', 'question', 'billing', 'security'] as const;
export const TICKET_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export const TICKET_STATUSES = ['open', 'in_progress', 'waiting', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/**
 * Spec §3: a support ticket moves from any of the five statuses to any other. The stated order (open → in_progress →
 * waiting → resolved → closed) is the usual course, not a fence: work goes back and forth and closed tickets reopen.
 * Every move is recorded; the status it already has is no move (answered unchanged).
 */
export const TICKET_MOVES: Moves<TicketStatus> = Object.fromEntries(
  TICKET_STATUSES.map((from) => [from, TICKET_STATUSES.filter((to) => to !== from)]),
) as unknown as Moves<TicketStatus>;

const TICKET_KEY = /^ST-\d{1,12}$/;

export type TicketWithComments = Ticket & { comments: TicketComment[] };

export interface CreateTicketInput {
  type?: unknown;
  subject?: unknown;
  description?: unknown;
  priority?: unknown;
  agentName?: unknown;
  target_service?: unknown;
  callback_url?: unknown;
}

/** What every ticket event says of the ticket; `created_by` lets the ticket's own stream pick one copy. */
function ticketFacts(ticket: Ticket): Record<string, unknown> {
  return {
    ticket_key: ticket.ticketKey,
    status: ticket.status,
    type: ticket.type,
    subject: ticket.subject,
    priority: ticket.priority,
    target_service: ticket.targetService,
    created_by: ticket.agentId,
    priority_resolution: ticket.priorityResolution,
    updated_at: ticket.updatedAt.toISOString(),
  };
}

/**
 * Emits a ticket event to the creator (and its callback_url) and, when another agent, to the service's owner; every
 * event of the ticket is forwarded to the service's registered endpoint, if any, signed and retried like any delivery.
 * A forward of a ticket filed with priority resolution goes before the owner's other due deliveries.
 */
async function emitTicketEvent(tx: DbTx, emit: Emit, ticket: Ticket, type: EventType, data: Record<string, unknown>): Promise<void> {
  const facts = { ...ticketFacts(ticket), ...data };
  const creatorExtra: ExtraDelivery[] = ticket.callbackUrl ? [{ kind: 'ticket_callback', url: ticket.callbackUrl }] : [];
  await emit(ticket.agentId, type, facts, creatorExtra);
  if (!ticket.serviceId) return;
  const service = await tx.service.findUnique({ where: { id: ticket.serviceId }, select: { agentId: true, ticketEndpoint: { select: { id: true } } } });
  if (!service) return;
  const ownerExtra: ExtraDelivery[] = service.ticketEndpoint
    ? [{ kind: 'ticket_forward', ticketEndpointId: service.ticketEndpoint.id, priority: ticket.priorityResolution ? FORWARD_PRIORITY : 0 }]
    : [];
  if (service.agentId !== ticket.agentId) await emit(service.agentId, type, facts, ownerExtra);
  else if (ownerExtra.length) await emit(null, type, facts, ownerExtra);
}

/** Creates a ticket inside the caller's transaction (the `support-ticket` capability). */
export async function createTicket(tx: DbTx, emit: Emit, ctx: Ctx, me: Agent, input: CreateTicketInput): Promise<Ticket> {
  const checks = new Checks();
  const type = checks.oneOf('type', input.type, TICKET_TYPES);
  const subject = checks.text('subject', input.subject, { max: 200, required: true });
  const description = checks.text('description', input.description, { max: 10_000, required: true, multiline: true });
  const priority = checks.oneOf('priority', input.priority, TICKET_PRIORITIES, 'medium');
  const agentName = checks.text('agentName', input.agentName, { max: 100, required: true });
  const target = checks.text('target_service', input.target_service, { max: 64 });
  const callbackUrl = checks.receiverUrl('callback_url', input.callback_url, ctx.services.config.outboundAllowPrivate, false);
  checks.done();
  let serviceId: string | null = null;
  if (target) {
    const service = await tx.service.findFirst({
      where: { ...(isUuid(target) ? { id: target } : { serviceKey: target }), status: { not: 'removed' } },
      select: { id: true },
    });
    if (!service) {
      checks.fail('target_service', `names no service: give a service key (svc_…) or id`);
      checks.done();
    }
    serviceId = service!.id;
  }
  const [{ n }] = await tx.$queryRaw<{ n: bigint }[]>`SELECT nextval('tickets_number_seq') AS n`;
  const ticket = await tx.ticket.create({
    data: {
      number: Number(n),
      ticketKey: `ST-${n}`,
      agentId: me.id,
      serviceId,
      targetService: target ?? null,
      type: type!,
      subject: subject!,
      description: description!,
      priority: priority!,
      agentName: agentName!,
      callbackUrl: callbackUrl ?? null,
      priorityResolution: hasPriorityResolution(me.reputation),
    },
  });
  await recordStateChange(tx, ctx, { subjectType: 'ticket', subjectId: ticket.ticketKey, from: null, to: 'open' });
  await emitTicketEvent(tx, emit, ticket, 'ticket.created', {
    description: ticket.description,
    agentName: ticket.agentName,
    created_at: ticket.createdAt.toISOString(),
  });
  return ticket;
}

/**
 * The ticket, when the caller created it or owns its target service; for anyone else it does not exist.
 * `db` lets the check run inside a transaction.
 */
export async function ticketInReach(ctx: Ctx, key: unknown, db: Pick<DbTx, 'ticket'> = ctx.db): Promise<TicketWithComments> {
  const me = await requireAgent(ctx);
  const ticketKey = typeof key === 'string' ? key.trim() : '';
  const ticket = TICKET_KEY.test(ticketKey)
    ? await db.ticket.findFirst({
        where: { ticketKey, OR: [{ agentId: me.id }, { service: { agentId: me.id } }] },
        include: { comments: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
      })
    : null;
  if (!ticket) throw new NotFound('ticket', ticketKey || String(key));
  return ticket;
}

/**
 * Whether the caller may see a ticket it has in hand: its creator may, and the owner of its target service
 * (the rule ticketInReach finds tickets by). Checked object by object, as a list's tickets are resolved.
 */
export async function ticketVisible(ctx: Ctx, ticket: Pick<Ticket, 'agentId' | 'serviceId'>): Promise<boolean> {
  const p = await ctx.principal();
  if (p.kind !== 'agent') return false;
  if (ticket.agentId === p.agent.id) return true;
  return ticket.serviceId !== null && (await serviceOwner(ctx, ticket.serviceId)) === p.agent.id;
}

/** Every status move of a ticket, oldest first. */
export function ticketHistory(ctx: Ctx, ticket: Pick<Ticket, 'ticketKey'>): Promise<StateChange[]> {
  return stateChangesOf(ctx, 'ticket', ticket.ticketKey);
}

export async function getTicket(ctx: Ctx, key: string): Promise<TicketWithComments> {
  return ticketInReach(ctx, key);
}

export interface TicketStatusInput {
  status?: unknown;
  resolution?: unknown;
}

/**
 * Moves a ticket to the given status (TICKET_MOVES), recorded in its history with the resolution as the
 * move's note, and announced. The status it already has changes nothing unless a new resolution comes with
 * it: that is stored, recorded (from and to the same status) and announced like a move.
 */
export async function updateTicketStatus(ctx: Ctx, key: string, input: TicketStatusInput, within?: { tx: DbTx; emit: Emit }): Promise<TicketWithComments> {
  const checks = new Checks();
  const status = checks.oneOf('status', input.status, TICKET_STATUSES);
  const resolution = checks.text('resolution', input.resolution, { max: 5000, multiline: true });
  checks.done();
  const run = async (tx: DbTx, emit: Emit) => {
    const ticket = await ticketInReach(ctx, key, tx);
    // Locked, so two moves of one ticket cannot both read the same status as where they start.
    await tx.$executeRaw`SELECT 1 FROM tickets WHERE id = ${ticket.id}::uuid FOR NO KEY UPDATE`;
    const current = await tx.ticket.findUniqueOrThrow({ where: { id: ticket.id }, include: { comments: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } } });
    const from = current.status as TicketStatus;
    if (from === status && (resolution === undefined || resolution === current.resolution)) return current;
    if (from !== status) assertMove(TICKET_MOVES, from, status!, 'ticket');
    const updated = await tx.ticket.update({
      where: { id: ticket.id },
      data: { status: status!, ...(resolution !== undefined && { resolution }) },
      include: { comments: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
    });
    await recordStateChange(tx, ctx, { subjectType: 'ticket', subjectId: ticket.ticketKey, from, to: status!, note: resolution ?? null });
    await emitTicketEvent(tx, emit, updated, 'ticket.updated', { previous_status: from, resolution: updated.resolution });
    return updated;
  };
  return within ? run(within.tx, within.emit) : transact(ctx, run);
}

export interface CommentInput {
  content?: unknown;
}

export async function addComment(
  ctx: Ctx,
  key: string,
  input: CommentInput,
  within?: { tx: DbTx; emit: Emit },
): Promise<{ ticket: Ticket; comment: TicketComment }> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const content = checks.text('content', input.content, { max: 10_000, required: true, multiline: true });
  checks.done();
  const run = async (tx: DbTx, emit: Emit) => {
    const ticket = await ticketInReach(ctx, key, tx);
    const comment = await tx.ticketComment.create({ data: { ticketId: ticket.id, authorAgentId: me.id, author: me.name, content: content! } });
    const touched = await tx.ticket.update({ where: { id: ticket.id }, data: { updatedAt: comment.createdAt } });
    await emitTicketEvent(tx, emit, touched, 'ticket.commented', {
      comment_id: comment.id,
      content: comment.content,
      author: comment.author,
      created_at: comment.createdAt.toISOString(),
    });
    return { ticket: touched, comment };
  };
  return within ? run(within.tx, within.emit) : transact(ctx, run);
}

/** The statuses of tickets still to be handled: a list of one of them is a queue (see listTickets). */
const UNFINISHED: readonly string[] = ['open', 'in_progress', 'waiting'];

/**
 * Tickets the caller created or that target its services, optionally in one status. Newest first; a list
 * of one unfinished status (open, in_progress or waiting) is a queue, in the order its tickets are to be
 * handled: those filed with priority resolution first, then the oldest first.
 */
export async function listTickets(ctx: Ctx, page: Page, status?: unknown, db: Pick<DbTx, 'ticket'> = ctx.db) {
  const me = await requireAgent(ctx);
  if (status !== undefined && status !== null && !TICKET_STATUSES.includes(status as TicketStatus)) {
    const checks = new Checks();
    checks.fail('status', `must be one of ${TICKET_STATUSES.join(', ')}`);
    checks.done();
  }
  const where = { OR: [{ agentId: me.id }, { service: { agentId: me.id } }], ...(status ? { status: status as string } : {}) };
  const [items, total] = await Promise.all([
    db.ticket.findMany({
      where,
      orderBy: UNFINISHED.includes(status as string)
        ? [{ priorityResolution: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }]
        : [{ createdAt: 'desc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.limit,
      include: { comments: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
    }),
    db.ticket.count({ where }),
  ]);
  return { items, total };
}

export interface EndpointInput {
  serviceKey?: unknown;
  ticketReceiveUrl?: unknown;
  name?: unknown;
}

export interface RegisteredEndpoint {
  endpoint: TicketEndpoint & { service: { serviceKey: string } };
  /** `whsec_…`: the HMAC key of forwarded tickets' `v1` signature; shown only here. */
  secret: string;
}

/**
 * Registers (or replaces) where one of the caller's services receives its tickets; a new secret each
 * time. Another agent's service is not found.
 */
export async function registerTicketEndpoint(ctx: Ctx, input: EndpointInput): Promise<RegisteredEndpoint> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const serviceKey = checks.text('serviceKey', input.serviceKey, { max: 64, required: true });
  const url = checks.receiverUrl('ticketReceiveUrl', input.ticketReceiveUrl, ctx.services.config.outboundAllowPrivate);
  const name = checks.text('name', input.name, { max: 100 });
  checks.done();
  const service = await ctx.db.service.findFirst({ where: { serviceKey: serviceKey!, agentId: me.id, status: { not: 'removed' } }, select: { id: true } });
  if (!service) throw new NotFound('service', serviceKey);
  const secret = newSigningSecret();
  const endpoint = await ctx.db.$transaction(async (tx) => {
    const saved = await tx.ticketEndpoint.upsert({
      where: { serviceId: service.id },
      create: { serviceId: service.id, agentId: me.id, url: url!, name: name ?? null, secret },
      update: { url: url!, name: name ?? null, secret },
      include: { service: { select: { serviceKey: true } } },
    });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'ticket_endpoint.registered',
      targetType: 'service',
      targetId: service.id,
      details: { service_key: serviceKey, url },
    });
    return saved;
  });
  return { endpoint, secret };
}

/** The ticket endpoints of the caller's services, oldest first, a page at a time. */
export async function listTicketEndpoints(ctx: Ctx, page: Page) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  const [items, total] = await Promise.all([
    ctx.db.ticketEndpoint.findMany({
      where,
      include: { service: { select: { serviceKey: true } } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.limit,
    }),
    ctx.db.ticketEndpoint.count({ where }),
  ]);
  return { items, total };
}
