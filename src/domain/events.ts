// Marketplace events: the envelope of CONTRACT §7 and the pub/sub topics they travel on.
import { newEventId } from '../platform/ids';

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
}

export function makeEvent(type: EventType, data: Record<string, unknown>, at: Date): MarketplaceEvent {
  return { id: newEventId(), type, created_at: at.toISOString(), data };
}
