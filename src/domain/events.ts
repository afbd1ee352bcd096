// Marketplace events: the envelope of CONTRACT §7, written to the outbox in the transaction of the change
// they report (with a delivery to each webhook that wants them), and the live topics they travel on.
import type { DbTx } from '../db/database';
import { newEventId } from '../platform/ids';
import type { OutboxRecord } from '../platform/outbox';
import type { Ctx, Services } from './context';
import type { EventBus } from '../platform/pubsub';

declare module './context' {
  interface Services {
    /** The in-process (or Redis) bus that carries committed events to live streams. */
    events: EventBus<Topics>;
  }
}

export const EVENT_TYPES = [
  'agent.updated',
  'execution.succeeded',
  'execution.failed',
  'ticket.created',
  'ticket.updated',
  'ticket.commented',
  'dispute.created',
  'dispute.resolved',
  'key.provisioned',
  'key.rotated',
  'subscription.delivered',
  'task.delegated',
  'task.executed',
  'spark.published',
  'swarm.completed',
  'uto.ticket.created',
  'uto.ticket.state_changed',
  'ammc.conglomerate.state_changed',
  'reputation.changed',
  'ext.delegation.requested',
  'mandate.threshold_reached',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface MarketplaceEvent {
  id: string;
  type: EventType;
  created_at: string;
  data: Record<string, unknown>;
}

export interface Topics {
  [topic: string]: unknown;
  /** Every event of one agent, keyed by agent id. */
  agentEvents: MarketplaceEvent;
  /** The events of one support ticket, keyed by ticket key. */
  ticketEvents: MarketplaceEvent;
}

export function makeEvent(type: EventType, data: Record<string, unknown>, at: Date): MarketplaceEvent {
  return { id: newEventId(), type, created_at: at.toISOString(), data };
}

/** A delivery beyond the agent's webhooks: a ticket forwarded to a service's endpoint, or a callback URL. */
export type ExtraDelivery =
  /** `priority` orders the due deliveries of one owner: higher first (default 0). */
  | { kind: 'ticket_forward'; ticketEndpointId: string; priority?: number }
  | { kind: 'ticket_callback'; url: string }
  /** A subscription run to the subscription's webhookUrl, signed with its secret. */
  | { kind: 'subscription_webhook'; subscriptionId: string; url: string }
  /** A delegation to an external agent's instance, signed with the external agent's secret. */
  | { kind: 'ext_delegation'; externalAgentId: string; url: string };

/**
 * The CTE parts (`ev`, `unpublished`, `hooks`) that insert events, each queued for its relay, and a delivery to each
 * active webhook of the event's agent subscribed to its type (or `*`). `rows` is a VALUES list or SELECT of SQL
 * expressions giving each event's id, type, agent id, data and time, in that order.
 */
export function eventCtes(rows: string): string {
  return `ev AS (
      INSERT INTO outbox_events (id, type, agent_id, data, created_at) ${rows}
      RETURNING id, type, agent_id, created_at
    ), unpublished AS (
      INSERT INTO outbox_unpublished (created_at, event_id) SELECT created_at, id FROM ev
    ), hooks AS (
      INSERT INTO deliveries (id, event_id, kind, webhook_id, status, next_attempt_at, created_at)
      SELECT gen_random_uuid(), ev.id, 'webhook', w.id, 'pending', ev.created_at, ev.created_at FROM ev JOIN webhooks w
        ON w.agent_id = ev.agent_id AND w.active AND (ev.type = ANY(w.events) OR '*' = ANY(w.events))
      RETURNING 1
    )`;
}

const WRITE_EVENT_SQL = `
  WITH ${eventCtes('VALUES ($1, $2::text, $3::uuid, $4::jsonb, $5::timestamptz)')}, forward AS (
    INSERT INTO deliveries (id, event_id, kind, ticket_endpoint_id, priority, status, next_attempt_at, created_at)
    SELECT gen_random_uuid(), ev.id, 'ticket_forward', $6::uuid, $12::smallint, 'pending', $5, $5 FROM ev WHERE $6::uuid IS NOT NULL
    RETURNING 1
  ), callbacks AS (
    INSERT INTO deliveries (id, event_id, kind, url, status, next_attempt_at, created_at)
    SELECT gen_random_uuid(), ev.id, 'ticket_callback', u, 'pending', $5, $5 FROM ev CROSS JOIN unnest($7::text[]) AS u
    RETURNING 1
  ), subscription AS (
    INSERT INTO deliveries (id, event_id, kind, subscription_id, url, status, next_attempt_at, created_at)
    SELECT gen_random_uuid(), ev.id, 'subscription_webhook', $8::uuid, $9, 'pending', $5, $5 FROM ev WHERE $8::uuid IS NOT NULL
    RETURNING 1
  ), external AS (
    INSERT INTO deliveries (id, event_id, kind, external_agent_id, url, status, next_attempt_at, created_at)
    SELECT gen_random_uuid(), ev.id, 'ext_delegation', $10::uuid, $11, 'pending', $5, $5 FROM ev WHERE $10::uuid IS NOT NULL
    RETURNING 1
  )
  SELECT ((SELECT count(*) FROM hooks) + (SELECT count(*) FROM forward) + (SELECT count(*) FROM callbacks) + (SELECT count(*) FROM subscription)
    + (SELECT count(*) FROM external))::int AS deliveries`;

/**
 * Writes an event of `agentId` inside the caller's transaction, with a delivery to each of the agent's
 * active webhooks that want it, and any extra deliveries. One statement; answers how many deliveries it wrote.
 */
export async function writeEvent(
  db: DbTx,
  agentId: string | null,
  event: MarketplaceEvent,
  extra: ExtraDelivery[] = [],
): Promise<{ record: OutboxRecord; deliveries: number }> {
  const forward = extra.find((d): d is Extract<ExtraDelivery, { kind: 'ticket_forward' }> => d.kind === 'ticket_forward');
  const callbacks = extra.filter((d): d is Extract<ExtraDelivery, { kind: 'ticket_callback' }> => d.kind === 'ticket_callback').map((d) => d.url);
  const subscription = extra.find((d): d is Extract<ExtraDelivery, { kind: 'subscription_webhook' }> => d.kind === 'subscription_webhook');
  const external = extra.find((d): d is Extract<ExtraDelivery, { kind: 'ext_delegation' }> => d.kind === 'ext_delegation');
  const [row] = await db.$queryRawUnsafe<{ deliveries: number }[]>(
    WRITE_EVENT_SQL,
    event.id,
    event.type,
    agentId,
    JSON.stringify(event.data),
    new Date(event.created_at),
    forward?.ticketEndpointId ?? null,
    callbacks,
    subscription?.subscriptionId ?? null,
    subscription?.url ?? null,
    external?.externalAgentId ?? null,
    external?.url ?? null,
    forward?.priority ?? 0,
  );
  return { record: { ...event, agentId }, deliveries: row?.deliveries ?? 0 };
}

/** Writes an event in the transaction `emit` is bound to. */
export type Emit = (agentId: string | null, type: EventType, data: Record<string, unknown>, extra?: ExtraDelivery[]) => Promise<MarketplaceEvent>;

/**
 * Events leave their transaction one way: written by the statements above (in `transact`, or spliced into a
 * statement of one's own with eventCtes), then announced here once committed: relayed to live streams,
 * and the dispatcher woken when something is to be delivered.
 */
export function announceCommitted(services: Pick<Services, 'outbox'>, events: OutboxRecord[], deliveries: number): void {
  services.outbox.committed(events, deliveries);
}

/**
 * Runs `work` in one transaction with an `emit` that writes events in it; once committed, the events go
 * to live streams and the dispatcher is woken when there is something to deliver. A rollback writes and sends nothing.
 */
export async function transact<T>(ctx: Pick<Ctx, 'db' | 'services'>, work: (tx: DbTx, emit: Emit) => Promise<T>): Promise<T> {
  const written: OutboxRecord[] = [];
  let deliveries = 0;
  const at = () => ctx.services.clock.now();
  const result = await ctx.db.$transaction((tx) =>
    work(tx, async (agentId, type, data, extra) => {
      const event = makeEvent(type, data, at());
      const wrote = await writeEvent(tx, agentId, event, extra);
      written.push(wrote.record);
      deliveries += wrote.deliveries;
      return event;
    }),
  );
  announceCommitted(ctx.services, written, deliveries);
  return result;
}

/** Where a committed event is published live: its agent's stream, and a ticket's stream for ticket events. */
export function routeEvent(
  publish: <K extends 'agentEvents' | 'ticketEvents'>(topic: K, id: string, event: MarketplaceEvent) => void,
  record: OutboxRecord,
): void {
  const event: MarketplaceEvent = { id: record.id, type: record.type as EventType, created_at: record.created_at, data: record.data };
  if (record.agentId) publish('agentEvents', record.agentId, event);
  // Each party of a ticket gets its own copy of a ticket event; the ticket's stream carries the creator's.
  const ticketKey = record.data.ticket_key;
  if (record.type.startsWith('ticket.') && typeof ticketKey === 'string' && record.data.created_by === record.agentId) {
    publish('ticketEvents', ticketKey, event);
  }
}
