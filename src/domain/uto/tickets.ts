// Orchestration tickets (spec §2 UTO ticket, §3, §4.11): an agent's intent in a domain that moves along
// UTO_MOVES. Each move carries what its maker says triggered it (`system`, `external` or `timer`, spec §3: the
// caller gives it) and who made it (`by`: the owner's agent id, or `marketplace`), appended to the ticket's
// state_history and announced as `uto.ticket.state_changed`. The marketplace makes its own moves: it matches
// validated tickets to specialists and providers (matcher.ts) and expires tickets past their deadline.
import type { DbTx } from '../../db/database';
import type { Prisma, UtoTicket } from '../../db/generated/prisma/client';
import { Conflict, NotFound } from '../../platform/errors';
import { newUtoTicketId } from '../../platform/ids';
import { assertMove, type Moves } from '../../platform/state-machine';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import { assertAllowance } from '../agents/agents';
import { CAPABILITY_SLUG } from '../capabilities/catalog';
import type { Ctx, Services } from '../context';
import { transactUto, type EmitUto } from './events';
import { findMatches, type Matches } from './matches';

export const UTO_STATES = ['submitted', 'validated', 'matched', 'in_progress', 'completed', 'failed', 'cancelled', 'expired'] as const;
export type UtoState = (typeof UTO_STATES)[number];
export const UTO_TRIGGERS = ['system', 'external', 'timer'] as const;
export type UtoTrigger = (typeof UTO_TRIGGERS)[number];

/**
 * The moves a ticket may make, whoever makes them and whatever the caller says triggered them. A ticket
 * holds no money and no other agent's state (its matches are a reading of the market), so its owner may
 * make every move of the table with any of the three triggers; the history's `by` says who did.
 */
export const UTO_MOVES: Moves<UtoState> = {
  submitted: ['validated', 'cancelled', 'expired'],
  validated: ['matched', 'cancelled', 'expired'],
  matched: ['in_progress', 'cancelled', 'expired'],
  in_progress: ['completed', 'failed', 'cancelled', 'expired'],
  completed: [],
  failed: [],
  cancelled: [],
  expired: [],
};
export const OPEN_STATES: readonly UtoState[] = UTO_STATES.filter((s) => UTO_MOVES[s].length > 0);

const UTO_ID = /^uto_[0-9A-Za-z]{24}$/;
export const DOMAIN = /^[a-z0-9][a-z0-9-]{0,63}$/;
const CONTEXT_MAX_BYTES = 64 * 1024;
const REQUIRED_CAPABILITIES_MAX = 20;
export const BUDGET_MAX_USD = 1_000_000;
/** A ticket given no deadline expires this long after it was made; none may be set further out. */
export const DEFAULT_DEADLINE_DAYS = 7;
export const DEADLINE_MAX_DAYS = 90;
/** Tickets one agent may have open (not completed, failed, cancelled or expired) at once. */
export const OPEN_TICKETS_PER_AGENT = 500;

/**
 * One move of a ticket: from where to where, what its maker says triggered it, who made it (the owner's
 * agent id, or `marketplace` for the marketplace's own matching and expiry), and when.
 */
export interface HistoryEntry {
  from: UtoState | null;
  to: UtoState;
  triggered_by: UtoTrigger;
  by: string;
  at: string;
  note?: string;
}

export interface CreateTicketInput {
  intent?: unknown;
  domain?: unknown;
  context?: unknown;
  requiredCapabilities?: unknown;
  maxBudgetUsd?: unknown;
  deadline?: unknown;
}

/** A domain name: lower-case letters, digits and dashes. */
export function checkDomain(checks: Checks, path: string, value: unknown, required: boolean): string | undefined {
  const domain = checks.text(path, value, { max: 64, required });
  if (domain && !DOMAIN.test(domain)) checks.fail(path, 'must be lower-case letters, digits and dashes, such as "defi" or "research" (at most 64)');
  return domain || undefined;
}

/** A list of capability identifiers, de-duplicated. */
export function checkCapabilities(checks: Checks, path: string, value: unknown, max: number): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > max) {
    checks.fail(path, `must be a list of at most ${max} capability identifiers`);
    return [];
  }
  const out: string[] = [];
  value.forEach((c, i) => {
    if (typeof c !== 'string' || c.length > 64 || !CAPABILITY_SLUG.test(c)) checks.fail(`${path}.${i}`, 'must be a capability identifier such as "summarize"');
    else if (!out.includes(c)) out.push(c);
  });
  return out;
}

export async function createTicket(ctx: Ctx, input: CreateTicketInput): Promise<UtoTicket> {
  const me = await requireAgent(ctx);
  const now = ctx.services.clock.now();
  const checks = new Checks();
  const intent = checks.text('intent', input.intent, { max: 2000, required: true, multiline: true });
  const domain = checkDomain(checks, 'domain', input.domain, true);
  const context = input.context;
  if (context === undefined || context === null) checks.fail('context', 'is required');
  else if (typeof context !== 'object' || Array.isArray(context)) checks.fail('context', 'must be a JSON object');
  else if (Buffer.byteLength(JSON.stringify(context)) > CONTEXT_MAX_BYTES) checks.fail('context', `must be at most ${CONTEXT_MAX_BYTES / 1024} KiB as JSON`);
  const required = checkCapabilities(checks, 'requiredCapabilities', input.requiredCapabilities, REQUIRED_CAPABILITIES_MAX);
  const budget = checks.dollars('maxBudgetUsd', input.maxBudgetUsd, BUDGET_MAX_USD);
  const deadline =
    checks.futureTime('deadline', input.deadline, now, DEADLINE_MAX_DAYS * 86_400_000, `${DEADLINE_MAX_DAYS} days`) ??
    new Date(now.getTime() + DEFAULT_DEADLINE_DAYS * 86_400_000);
  checks.done();
  const id = newUtoTicketId();
  const history: HistoryEntry[] = [{ from: null, to: 'submitted', triggered_by: 'external', by: me.id, at: now.toISOString() }];
  return transactUto(ctx, async (tx, emitUto) => {
    await assertAllowance(
      tx,
      me.id,
      OPEN_TICKETS_PER_AGENT,
      () => tx.utoTicket.count({ where: { agentId: me.id, state: { in: [...OPEN_STATES] } } }),
      () => new Conflict(`At most ${OPEN_TICKETS_PER_AGENT} tickets may be open at once per agent; finish or cancel one first`),
    );
    const ticket = await tx.utoTicket.create({
      data: {
        id,
        agentId: me.id,
        intent: intent!,
        domain: domain!,
        context: context as Prisma.InputJsonObject,
        requiredCapabilities: required,
        maxBudgetCents: budget ?? null,
        deadline,
        stateHistory: history as unknown as Prisma.InputJsonArray,
        createdAt: now,
      },
    });
    await emitUto(ticket, 'uto.ticket.created', {
      ticket_id: ticket.id,
      domain: ticket.domain,
      intent: ticket.intent,
      state: ticket.state,
      required_capabilities: ticket.requiredCapabilities,
      max_budget_usd: budget === undefined ? null : budget / 100,
      deadline: deadline.toISOString(),
    });
    return ticket;
  });
}

async function ownTicket(ctx: Ctx, id: string): Promise<UtoTicket> {
  const me = await requireAgent(ctx);
  const ticket = UTO_ID.test(id) ? await ctx.db.utoTicket.findFirst({ where: { id, agentId: me.id } }) : null;
  if (!ticket) throw new NotFound('UTO ticket', id);
  return ticket;
}

export const getTicket = ownTicket;

export async function listTickets(ctx: Ctx, page: Page, filter: { domain?: string | null; state?: string | null }) {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const domain = filter.domain === undefined || filter.domain === null ? undefined : checkDomain(checks, 'domain', filter.domain, true);
  const state = filter.state === undefined || filter.state === null ? undefined : checks.oneOf('state', filter.state, UTO_STATES);
  checks.done();
  const where = { agentId: me.id, ...(domain && { domain }), ...(state && { state }) };
  return pageOf(
    page,
    (q) => ctx.db.utoTicket.findMany({ where, ...q }),
    () => ctx.db.utoTicket.count({ where }),
  );
}

export interface Move {
  to: UtoState;
  trigger: UtoTrigger;
  /** An agent id, or `marketplace`. */
  by: string;
  note?: string;
  /** What covers the ticket, kept with a move to `matched`. */
  matches?: Matches;
}

/**
 * Makes one move inside `tx`: checked against the table, written only if the ticket is still where it was
 * read (else 409), appended to its history and announced.
 */
export async function moveTicket(tx: DbTx, emitUto: EmitUto, ticket: UtoTicket, move: Move, now: Date): Promise<UtoTicket> {
  const from = ticket.state as UtoState;
  assertMove(UTO_MOVES, from, move.to, 'UTO ticket');
  const entry: HistoryEntry = { from, to: move.to, triggered_by: move.trigger, by: move.by, at: now.toISOString(), ...(move.note && { note: move.note }) };
  const [moved] = await tx.$queryRaw<{ id: string }[]>`
    UPDATE uto_tickets SET state = ${move.to}, state_history = state_history || ${JSON.stringify([entry])}::jsonb, updated_at = ${now},
      match_at = CASE WHEN ${move.to} = 'validated' THEN ${now}::timestamptz ELSE NULL END,
      matches = COALESCE(${move.matches ? JSON.stringify(move.matches) : null}::jsonb, matches)
    WHERE id = ${ticket.id} AND state = ${from}
    RETURNING id`;
  if (!moved) throw new Conflict('The ticket moved meanwhile; read it again');
  const updated = await tx.utoTicket.findUniqueOrThrow({ where: { id: ticket.id } });
  await emitUto(updated, 'uto.ticket.state_changed', {
    ticket_id: ticket.id,
    domain: ticket.domain,
    from,
    to: move.to,
    triggered_by: move.trigger,
    by: move.by,
    ...(move.note && { note: move.note }),
    at: entry.at,
  });
  return updated;
}

export interface AdvanceInput {
  targetState?: unknown;
  triggeredBy?: unknown;
  note?: unknown;
}

/**
 * The owner moves its ticket, with the trigger it gives (any of the three) recorded beside its own id:
 * 400 for an unknown state or trigger, 409 for a move outside the table.
 */
export async function advanceTicket(ctx: Ctx, id: string, input: AdvanceInput): Promise<UtoTicket> {
  const ticket = await ownTicket(ctx, id);
  const checks = new Checks();
  const to = checks.oneOf('targetState', input.targetState, UTO_STATES);
  const trigger = checks.oneOf('triggeredBy', input.triggeredBy, UTO_TRIGGERS);
  const note = checks.text('note', input.note, { max: 500 });
  checks.done();
  assertMove(UTO_MOVES, ticket.state as UtoState, to!, 'UTO ticket');
  // A ticket the owner moves to matched itself keeps what covers it at that moment, as the marketplace's would.
  const now = ctx.services.clock.now();
  const matches = to === 'matched' ? { ...(await findMatches(ctx.services, ticket)), matched_at: now.toISOString() } : undefined;
  const moved = await transactUto(ctx, (tx, emitUto) =>
    moveTicket(tx, emitUto, ticket, { to: to!, trigger: trigger!, by: ticket.agentId, note, matches }, now),
  );
  if (moved.state === 'validated') ctx.services.utoMatcher?.wake();
  return moved;
}

/** Moves every open ticket past its deadline to `expired` (trigger `timer`); returns how many. */
export async function expireOverdueTickets(services: Services, batch = 200): Promise<number> {
  const now = services.clock.now();
  // Looked for first outside a transaction: an idle tick is one statement, not BEGIN, a claim and COMMIT.
  const [{ any }] = await services.sql.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM uto_tickets WHERE state = ANY($1::text[]) AND deadline < $2) AS any`,
    [[...OPEN_STATES], now],
  );
  if (!any) return 0;
  return transactUto({ db: services.db, services }, async (tx, emitUto) => {
    const due = await tx.$queryRaw<UtoTicket[]>`
      SELECT id FROM uto_tickets WHERE state = ANY(${[...OPEN_STATES]}::text[]) AND deadline < ${now}
      ORDER BY deadline LIMIT ${batch} FOR NO KEY UPDATE SKIP LOCKED`;
    for (const { id } of due) {
      const ticket = await tx.utoTicket.findUniqueOrThrow({ where: { id } });
      await moveTicket(tx, emitUto, ticket, { to: 'expired', trigger: 'timer', by: 'marketplace', note: 'past its deadline' }, now);
    }
    return due.length;
  });
}
