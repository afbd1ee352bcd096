// The marketplace's matching of validated UTO tickets (what covers one: matches.ts). A ticket with a
// specialist, or a provider for every required capability, moves to `matched` (trigger `system`, by
// `marketplace`) with what was found; one with neither is looked at again later (a specialist registering
// for its domain brings that forward). Tickets are claimed from the database with a lease, so instances
// share the work and a claim of a dead instance lapses.
import { Conflict } from '../../platform/errors';
import { idleUntilDue, Worker } from '../../platform/worker';
import type { Services } from '../context';
import { transactUto } from './events';
import { covers, findMatches, type Matches } from './matches';
import { moveTicket } from './tickets';

declare module '../context' {
  interface Services {
    /** Matches validated UTO tickets to specialists and providers; set once the services exist. */
    utoMatcher?: Worker;
  }
}

const CLAIM_BATCH = 20;
/** A claim lasts this long; a ticket with no match is looked at again after RETRY_MS. */
const LEASE_MS = 30_000;
export const RETRY_MS = 60_000;

/** The matcher of one instance: a round at once after a wake (a ticket validated, a specialist registered), else every second. */
export function utoMatcher(services: Services): Worker {
  return new Worker({
    name: 'uto-matcher',
    round: () => matchDueTickets(services),
    log: services.log,
    pollMs: 1000,
    fullBatch: CLAIM_BATCH,
    // A ticket validated or a specialist registered wakes the matcher; its own rounds move match_at.
    ...idleUntilDue(services.sql, services.clock, () => nextTicketDue(services)),
  });
}

async function nextTicketDue(services: Services): Promise<number | null> {
  const [row] = await services.sql.query<{ due: Date | null }>(`SELECT min(match_at) AS due FROM uto_tickets WHERE state = 'validated'`, []);
  return row?.due ? new Date(row.due).getTime() : null;
}

/** Claims validated tickets that are due and matches each; returns how many it claimed. */
export async function matchDueTickets(services: Services): Promise<number> {
  const { db, clock } = services;
  const now = clock.now();
  const claimed = await db.$queryRaw<{ id: string }[]>`
    UPDATE uto_tickets SET match_at = ${new Date(now.getTime() + LEASE_MS)}
    WHERE id IN (SELECT id FROM uto_tickets WHERE state = 'validated' AND match_at <= ${now} ORDER BY match_at LIMIT ${CLAIM_BATCH} FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  for (const { id } of claimed) {
    try {
      await matchTicket(services, id);
    } catch (err) {
      services.log.warn({ ticket_id: id, err: (err as Error).message }, 'matching a UTO ticket failed');
    }
  }
  return claimed.length;
}

async function matchTicket(services: Services, id: string): Promise<void> {
  const { db, clock } = services;
  const ticket = await db.utoTicket.findUnique({ where: { id } });
  if (!ticket || ticket.state !== 'validated') return;
  const found = await findMatches(services, ticket);
  const now = clock.now();
  if (!covers(ticket, found)) {
    // Bookkeeping of the matcher, not a change of the ticket: updated_at stays.
    await db.$executeRaw`UPDATE uto_tickets SET match_at = ${new Date(now.getTime() + RETRY_MS)} WHERE id = ${id} AND state = 'validated'`;
    return;
  }
  const matches: Matches = { ...found, matched_at: now.toISOString() };
  try {
    const note = `${found.specialists.length} specialist(s), ${found.providers.length} provider(s)`;
    await transactUto({ db, services }, (tx, emitUto) =>
      moveTicket(tx, emitUto, ticket, { to: 'matched', trigger: 'system', by: 'marketplace', note, matches }, now),
    );
  } catch (err) {
    // The owner moved it meanwhile (cancelled it, say): nothing to match any more.
    if (!(err instanceof Conflict)) throw err;
  }
}
