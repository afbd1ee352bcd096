// The events of an agent's UTO tickets as one numbered stream per agent (1, 2, 3… in commit order: the
// agent's stream row is locked by each event's transaction). SSE readers resume from it by number, polling
// subscribers read it after their cursor, and webhook subscribers get a signed delivery of each event
// they asked for, written in the same statement.
import type { DbTx } from '../../db/database';
import type { SequencedStreams, StreamStore } from '../../platform/sequenced-streams';
import { isUuid } from '../../platform/ids';
import type { Ctx, Services } from '../context';
import { transact, type EventType, type MarketplaceEvent } from '../events';

declare module '../context' {
  interface Services {
    /** Readers of the events of agents' UTO tickets. */
    utoStreams: UtoStreams;
  }
}

export const UTO_EVENT_TYPES = ['uto.ticket.created', 'uto.ticket.state_changed'] as const satisfies readonly EventType[];
export type UtoEventType = (typeof UTO_EVENT_TYPES)[number];
/** How long a UTO event stays readable for resuming readers and polling subscribers. */
export const UTO_EVENT_RETENTION_DAYS = 30;
export const UTO_TOPIC = 'utoEvents';

/** One event of an agent's UTO stream. */
export interface UtoStreamEvent {
  seq: number;
  /** The envelope's `evt_…` id. */
  eventId: string;
  type: UtoEventType;
  domain: string;
  ticketId: string;
  data: Record<string, unknown>;
  createdAt: string;
}

export type UtoStreams = SequencedStreams<UtoStreamEvent>;

const APPEND_SQL = `
  WITH seq AS (
    INSERT INTO uto_streams (agent_id, last_seq) VALUES ($1::uuid, 1)
    ON CONFLICT (agent_id) DO UPDATE SET last_seq = uto_streams.last_seq + 1
    RETURNING last_seq
  ), ev AS (
    INSERT INTO uto_events (agent_id, seq, event_id, type, domain, ticket_id, data, created_at)
    SELECT $1::uuid, seq.last_seq, $2, $3, $4, $5, $6::jsonb, $7::timestamptz FROM seq
    RETURNING seq
  ), hooks AS (
    INSERT INTO deliveries (id, event_id, kind, uto_subscription_id, url, status, next_attempt_at, created_at)
    SELECT gen_random_uuid(), $2, 'uto_webhook', u.id, u.webhook_url, 'pending', $7::timestamptz, $7::timestamptz FROM uto_subscriptions u
    WHERE u.agent_id = $1::uuid AND u.status = 'active' AND u.delivery_type = 'webhook'
      AND ($3 = ANY(u.event_types) OR '*' = ANY(u.event_types)) AND (u.domain IS NULL OR u.domain = $4)
    RETURNING 1
  )
  SELECT (SELECT seq FROM ev) AS seq, (SELECT count(*) FROM hooks)::int AS deliveries`;

/** Writes an event of a ticket: to the outbox (the owner's webhooks), the owner's UTO stream and its webhook subscriptions. */
export type EmitUto = (ticket: { id: string; agentId: string; domain: string }, type: UtoEventType, data: Record<string, unknown>) => Promise<void>;

/**
 * Runs `work` in one transaction with an `emitUto` that writes ticket events in it; once committed, the
 * events are announced to the owners' streams on every instance and the dispatcher is woken for webhooks.
 */
export async function transactUto<T>(ctx: Pick<Ctx, 'db' | 'services'>, work: (tx: DbTx, emitUto: EmitUto) => Promise<T>): Promise<T> {
  const appended: { agentId: string; event: UtoStreamEvent }[] = [];
  let deliveries = 0;
  const result = await transact(ctx, (tx, emit) =>
    work(tx, async (ticket, type, data) => {
      const event: MarketplaceEvent = await emit(ticket.agentId, type, data);
      const [row] = await tx.$queryRawUnsafe<{ seq: number; deliveries: number }[]>(
        APPEND_SQL,
        ticket.agentId,
        event.id,
        type,
        ticket.domain,
        ticket.id,
        JSON.stringify(event.data),
        new Date(event.created_at),
      );
      deliveries += row.deliveries;
      appended.push({
        agentId: ticket.agentId,
        event: { seq: row.seq, eventId: event.id, type, domain: ticket.domain, ticketId: ticket.id, data: event.data, createdAt: event.created_at },
      });
    }),
  );
  for (const { agentId, event } of appended) ctx.services.utoStreams.announce(agentId, event);
  if (deliveries > 0) ctx.services.dispatcher.wake();
  return result;
}

interface EventRow {
  seq: number;
  event_id: string;
  type: UtoEventType;
  domain: string;
  ticket_id: string;
  data: Record<string, unknown>;
  created_at: Date;
}

function eventOf(r: EventRow): UtoStreamEvent {
  return {
    seq: r.seq,
    eventId: r.event_id,
    type: r.type,
    domain: r.domain,
    ticketId: r.ticket_id,
    data: r.data,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

/** An agent's events after `after` (at most `limit`), oldest first; `types` and `domain` narrow them. */
export async function loadUtoEvents(
  db: DbTx,
  agentId: string,
  after: number,
  limit: number,
  filter: { types?: readonly string[] | null; domain?: string | null } = {},
): Promise<UtoStreamEvent[]> {
  const rows = await db.$queryRaw<EventRow[]>`
    SELECT seq, event_id, type, domain, ticket_id, data, created_at FROM uto_events
    WHERE agent_id = ${agentId}::uuid AND seq > ${after}
      AND (${filter.types ?? null}::text[] IS NULL OR type = ANY(${filter.types ?? null}::text[]))
      AND (${filter.domain ?? null}::text IS NULL OR domain = ${filter.domain ?? null})
    ORDER BY seq LIMIT ${limit}`;
  return rows.map(eventOf);
}

/** The database side of the agents' UTO streams: every agent has one (empty until its first event); none ends. */
export function utoStore(services: Pick<Services, 'db'>): StreamStore<UtoStreamEvent> {
  return {
    load: (agentId, after, limit) => loadUtoEvents(services.db, agentId, after, limit),
    async state(ids) {
      const agents = ids.filter(isUuid);
      const rows = agents.length ? await services.db.utoStream.findMany({ where: { agentId: { in: agents } } }) : [];
      const last = new Map(rows.map((r) => [r.agentId, r.lastSeq]));
      return new Map(agents.map((id) => [id, { lastSeq: last.get(id) ?? 0, ended: false }]));
    },
  };
}

/** The last number of an agent's stream (0 before its first event). */
export async function lastUtoSeq(db: DbTx, agentId: string): Promise<number> {
  const row = await db.utoStream.findUnique({ where: { agentId } });
  return row?.lastSeq ?? 0;
}

/** Deletes events older than the retention; returns how many. */
export async function purgeOldUtoEvents(services: Pick<Services, 'db' | 'clock'>, batch = 5000): Promise<number> {
  const cutoff = new Date(services.clock.now().getTime() - UTO_EVENT_RETENTION_DAYS * 86_400_000);
  return services.db.$executeRaw`
    DELETE FROM uto_events WHERE (agent_id, seq) IN (SELECT agent_id, seq FROM uto_events WHERE created_at < ${cutoff} LIMIT ${batch})`;
}
