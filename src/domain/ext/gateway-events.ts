// The events addressed to an owner's external agents, as one numbered stream per owner (1, 2, 3… in commit
// order: each event's transaction locks the owner's stream row). The owner polls them: a poll without a
// cursor hands out the events no poll has handed out yet, each exactly once whichever instance answers and
// however many pollers ask at once; a poll `after` a number re-reads from there (and acknowledges it).
import type { DbTx } from '../../db/database';
import { base62 } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';

export const GATEWAY_EVENT_TYPES = ['gateway.connected', 'delegation.requested', 'delegation.answered', 'payment.received'] as const;
export type GatewayEventType = (typeof GATEWAY_EVENT_TYPES)[number];

export interface GatewayEventView {
  id: string;
  seq: number;
  type: string;
  externalAgentId: string;
  data: unknown;
  createdAt: Date;
}

const APPEND_SQL = `
  WITH seq AS (
    INSERT INTO gateway_streams (owner_id, last_seq, consumed_seq) VALUES ($1::uuid, 1, 0)
    ON CONFLICT (owner_id) DO UPDATE SET last_seq = gateway_streams.last_seq + 1
    RETURNING last_seq
  )
  INSERT INTO gateway_events (owner_id, seq, event_id, type, external_agent_id, data, created_at)
  SELECT $1::uuid, seq.last_seq, $2, $3, $4::uuid, $5::jsonb, $6::timestamptz FROM seq`;

/** Appends an event for an owner's external agent inside `tx` (the transaction of the change it reports). */
export async function appendGatewayEvent(tx: DbTx, e: { ownerId: string; externalAgentId: string; type: GatewayEventType; data: Record<string, unknown>; at: Date }): Promise<void> {
  await tx.$executeRawUnsafe(APPEND_SQL, e.ownerId, `gev_${base62(24)}`, e.type, e.externalAgentId, JSON.stringify(e.data), e.at);
}

export interface GatewayPoll {
  events: GatewayEventView[];
  /** The number of the last event answered (or where the poll started): the `after` of the next read. */
  cursor: number;
  hasMore: boolean;
}

interface EventRow {
  event_id: string;
  seq: number;
  type: string;
  external_agent_id: string;
  data: unknown;
  created_at: Date;
}

const view = (r: EventRow): GatewayEventView => ({ id: r.event_id, seq: r.seq, type: r.type, externalAgentId: r.external_agent_id, data: r.data, createdAt: r.created_at });

export async function pollGatewayEvents(ctx: Ctx, input: { after?: unknown; limit?: unknown }): Promise<GatewayPoll> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const after = checks.integer('after', input.after, 0, 2_147_483_647);
  const limit = checks.integer('limit', input.limit, 1, 100) ?? 50;
  checks.done();
  return ctx.db.$transaction(async (tx) => {
    // The stream row is locked in a statement of its own, so the events read next are read after any
    // poll that held it has committed (one statement would read them from a snapshot taken before the wait).
    const [stream] = await tx.$queryRawUnsafe<{ consumed_seq: number; last_seq: number }[]>(`SELECT consumed_seq, last_seq FROM gateway_streams WHERE owner_id = $1::uuid FOR UPDATE`, me.id);
    if (!stream) return { events: [], cursor: after ?? 0, hasMore: false };
    const from = after ?? stream.consumed_seq;
    const rows = await tx.$queryRawUnsafe<EventRow[]>(
      `SELECT event_id, seq, type, external_agent_id, data, created_at FROM gateway_events WHERE owner_id = $1::uuid AND seq > $2 ORDER BY seq LIMIT $3`,
      me.id,
      from,
      limit + 1,
    );
    const events = rows.slice(0, limit).map(view);
    const cursor = events.length ? events[events.length - 1].seq : from;
    // A consuming poll moves the shared cursor past what it answers; a read `after` N acknowledges N.
    const consumed = after === undefined ? cursor : Math.min(after, stream.last_seq);
    if (consumed > stream.consumed_seq) await tx.$executeRawUnsafe(`UPDATE gateway_streams SET consumed_seq = $2 WHERE owner_id = $1::uuid`, me.id, consumed);
    return { events, cursor, hasMore: rows.length > limit };
  });
}
