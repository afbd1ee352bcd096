// The events addressed to an owner's external agents, as one numbered stream per owner (1, 2, 3… in commit
// order: each event's transaction locks the owner's stream row). The owner polls them after a cursor it
// passes back: a poll reads, and its `after` acknowledges what the owner has seen, so an event stays
// deliverable until the owner's cursor passes it, and a poll that was lost or never read loses nothing.
// Events are kept GATEWAY_EVENT_RETENTION_DAYS, then purged.
import type { DbTx } from '../../db/database';
import { base62 } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import type { Ctx, Services } from '../context';

export const GATEWAY_EVENT_TYPES = ['gateway.connected', 'delegation.requested', 'delegation.answered', 'payment.received'] as const;
export type GatewayEventType = (typeof GATEWAY_EVENT_TYPES)[number];
/** How long an event stays readable, acknowledged or not. */
export const GATEWAY_EVENT_RETENTION_DAYS = 30;
export const POLL_DEFAULT = 50;
export const POLL_MAX = 100;

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
export async function appendGatewayEvent(
  tx: DbTx,
  e: { ownerId: string; externalAgentId: string; type: GatewayEventType; data: Record<string, unknown>; at: Date },
): Promise<void> {
  await tx.$executeRawUnsafe(APPEND_SQL, e.ownerId, `gev_${base62(24)}`, e.type, e.externalAgentId, JSON.stringify(e.data), e.at);
}

export interface GatewayPoll {
  events: GatewayEventView[];
  /** The number of the last event answered (or where the poll started): the `after` of the next poll. */
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

const view = (r: EventRow): GatewayEventView => ({
  id: r.event_id,
  seq: r.seq,
  type: r.type,
  externalAgentId: r.external_agent_id,
  data: r.data,
  createdAt: r.created_at,
});

/**
 * The caller's events after `after` (else after its last acknowledged cursor), oldest first, at most `limit`, and the
 * cursor to pass back. Passing `after` acknowledges up to it (never past the last event), the only write a poll makes,
 * so reading twice, or without `after` (a HEAD too), hands out the same events again.
 */
export async function gatewayEvents(ctx: Ctx, input: { after?: unknown; limit?: unknown }): Promise<GatewayPoll> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const after = checks.integer('after', input.after, 0, 2_147_483_647);
  const limit = checks.integer('limit', input.limit, 1, POLL_MAX) ?? POLL_DEFAULT;
  checks.done();
  let from = after;
  if (from === undefined) {
    const [stream] = await ctx.db.$queryRawUnsafe<{ consumed_seq: number }[]>(`SELECT consumed_seq FROM gateway_streams WHERE owner_id = $1::uuid`, me.id);
    from = stream?.consumed_seq ?? 0;
  } else {
    // Forward only, and never past the last event: a later poll without `after` starts here.
    await ctx.db.$executeRawUnsafe(
      `UPDATE gateway_streams SET consumed_seq = LEAST($2, last_seq) WHERE owner_id = $1::uuid AND consumed_seq < LEAST($2, last_seq)`,
      me.id,
      from,
    );
  }
  // Numbers follow commit order (an event's number is taken under the stream row's lock, held to its
  // commit), so a read after `from` never skips one that commits later.
  const rows = await ctx.db.$queryRawUnsafe<EventRow[]>(
    `SELECT event_id, seq, type, external_agent_id, data, created_at FROM gateway_events WHERE owner_id = $1::uuid AND seq > $2 ORDER BY seq LIMIT $3`,
    me.id,
    from,
    limit + 1,
  );
  const events = rows.slice(0, limit).map(view);
  return { events, cursor: events.length ? events[events.length - 1].seq : from, hasMore: rows.length > limit };
}

/** Deletes events older than the retention, at most `batch` at a time; returns how many. */
export async function purgeOldGatewayEvents(services: Pick<Services, 'db' | 'clock'>, batch = 5000): Promise<number> {
  const cutoff = new Date(services.clock.now().getTime() - GATEWAY_EVENT_RETENTION_DAYS * 86_400_000);
  return services.db.$executeRaw`
    DELETE FROM gateway_events WHERE (owner_id, seq) IN (SELECT owner_id, seq FROM gateway_events WHERE created_at < ${cutoff} LIMIT ${batch})`;
}
