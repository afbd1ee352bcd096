// UTO notification subscriptions: which events of the caller's tickets it wants (`eventTypes`, or `*`;
// optionally one domain) and how: `webhook` (a signed POST of each, from the outbox), `polling` (read after
// a cursor, each event once and in order) or `sse` (the live stream at /uto/events, filtered as the
// subscription says). A subscription sees the events after it was made.
import type { UtoSubscription } from '../../db/generated/prisma/client';
import { Conflict, NotFound } from '../../platform/errors';
import { newNotificationSubscriptionId, newSigningSecret } from '../../platform/ids';
import { filtered } from '../../platform/sequenced-streams';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import { assertAllowance } from '../agents/agents';
import type { Ctx } from '../context';
import { lastUtoSeq, loadUtoEvents, UTO_EVENT_TYPES, type UtoStreamEvent } from './events';
import { checkDomain } from './tickets';

export const DELIVERY_TYPES = ['webhook', 'polling', 'sse'] as const;
export type DeliveryType = (typeof DELIVERY_TYPES)[number];
/** Active subscriptions one agent may hold. */
export const SUBSCRIPTIONS_PER_AGENT = 50;
export const POLL_DEFAULT = 100;
export const POLL_MAX = 500;
const SUBSCRIPTION_ID = /^sub_[0-9A-Za-z]{24}$/;

export interface SubscribeInput {
  eventTypes?: unknown;
  deliveryType?: unknown;
  webhookUrl?: unknown;
  domain?: unknown;
}

export interface CreatedSubscription {
  subscription: UtoSubscription;
  /** The `whsec_…` secret of webhook deliveries: shown only here. */
  secret: string | null;
}

export async function subscribe(ctx: Ctx, input: SubscribeInput): Promise<CreatedSubscription> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  let eventTypes: string[] = [];
  if (!Array.isArray(input.eventTypes) || input.eventTypes.length === 0)
    checks.fail('eventTypes', `must be a list of event names (${UTO_EVENT_TYPES.join(', ')}) or ["*"]`);
  else {
    input.eventTypes.forEach((t, i) => {
      if (t !== '*' && !UTO_EVENT_TYPES.includes(t as never)) checks.fail(`eventTypes.${i}`, `must be one of ${UTO_EVENT_TYPES.join(', ')} or *`);
      else if (!eventTypes.includes(t as string)) eventTypes.push(t as string);
    });
    if (eventTypes.includes('*')) eventTypes = ['*'];
  }
  const deliveryType = checks.oneOf('deliveryType', input.deliveryType, DELIVERY_TYPES);
  let webhookUrl: string | undefined;
  if (deliveryType === 'webhook') webhookUrl = checks.receiverUrl('webhookUrl', input.webhookUrl, ctx.services.config.outboundAllowPrivate, true);
  else if (input.webhookUrl !== undefined && input.webhookUrl !== null) checks.fail('webhookUrl', 'is only for deliveryType webhook');
  const domain = input.domain === undefined || input.domain === null ? undefined : checkDomain(checks, 'domain', input.domain, true);
  checks.done();
  const secret = deliveryType === 'webhook' ? newSigningSecret() : null;
  const subscription = await ctx.db.$transaction(async (tx) => {
    await assertAllowance(
      tx,
      me.id,
      SUBSCRIPTIONS_PER_AGENT,
      () => tx.utoSubscription.count({ where: { agentId: me.id, status: 'active' } }),
      () => new Conflict(`At most ${SUBSCRIPTIONS_PER_AGENT} notification subscriptions may be active per agent; cancel one first`),
    );
    // It sees the events after this one (read under the same lock order as the events' writers).
    const cursor = await lastUtoSeq(tx, me.id);
    return tx.utoSubscription.create({
      data: {
        id: newNotificationSubscriptionId(),
        agentId: me.id,
        eventTypes,
        deliveryType: deliveryType!,
        webhookUrl: webhookUrl ?? null,
        secret,
        domain: domain ?? null,
        startSeq: cursor,
        cursor,
      },
    });
  });
  return { subscription, secret };
}

export async function ownSubscription(ctx: Ctx, id: string): Promise<UtoSubscription> {
  const me = await requireAgent(ctx);
  const sub = SUBSCRIPTION_ID.test(id) ? await ctx.db.utoSubscription.findFirst({ where: { id, agentId: me.id } }) : null;
  if (!sub) throw new NotFound('notification subscription', id);
  return sub;
}

export async function listSubscriptions(ctx: Ctx, page: Page) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  return pageOf(
    page,
    (q) => ctx.db.utoSubscription.findMany({ where, ...q }),
    () => ctx.db.utoSubscription.count({ where }),
  );
}

/** Cancels a subscription: nothing more is delivered to it (deliveries not yet sent are cancelled). */
export async function cancelSubscription(ctx: Ctx, id: string): Promise<UtoSubscription> {
  const sub = await ownSubscription(ctx, id);
  if (sub.status === 'cancelled') throw new Conflict('The notification subscription is already cancelled');
  return ctx.db.$transaction(async (tx) => {
    await tx.delivery.updateMany({
      where: { utoSubscriptionId: sub.id, status: 'pending' },
      data: { status: 'cancelled', lastError: 'the subscription was cancelled' },
    });
    return tx.utoSubscription.update({ where: { id: sub.id }, data: { status: 'cancelled' } });
  });
}

/** What a subscription's events filter on. */
export function filterOf(sub: Pick<UtoSubscription, 'eventTypes' | 'domain'>): { types: string[] | null; domain: string | null } {
  return { types: sub.eventTypes.includes('*') ? null : sub.eventTypes, domain: sub.domain };
}

export interface Poll {
  events: UtoStreamEvent[];
  /** Where the next poll starts: the last event's number, or the cursor polled from when there was none. */
  cursor: number;
  hasMore: boolean;
}

/**
 * The events of a polling subscription after `after` (absent: after the cursor it last acknowledged),
 * oldest first. Polling with `after` acknowledges every event up to it, so a subscriber that passes back
 * each answer's cursor reads every event exactly once, and one that lost an answer reads it again.
 */
export async function pollEvents(ctx: Ctx, id: string, after: number | null | undefined, limit: number | null | undefined): Promise<Poll> {
  const sub = await ownSubscription(ctx, id);
  const checks = new Checks();
  const from = after === undefined || after === null ? sub.cursor : checks.integer('after', after, 0, 2 ** 31 - 1);
  const take = checks.integer('limit', limit, 1, POLL_MAX) ?? POLL_DEFAULT;
  checks.done();
  if (sub.deliveryType !== 'polling') throw new Conflict(`The subscription delivers by ${sub.deliveryType}; only polling subscriptions are read here`);
  if (sub.status !== 'active') throw new Conflict('The notification subscription is cancelled');
  const start = Math.max(from!, sub.startSeq);
  const events = await loadUtoEvents(ctx.db, sub.agentId, start, take + 1, filterOf(sub));
  const page = events.slice(0, take);
  if (start > sub.cursor) await ctx.db.utoSubscription.updateMany({ where: { id: sub.id, cursor: { lt: start } }, data: { cursor: start } });
  return { events: page, cursor: page.length ? page[page.length - 1].seq : start, hasMore: events.length > take };
}

export interface FollowInput {
  domain?: string | null;
  subscriptionId?: string | null;
  after?: number | null;
}

/**
 * A reader of the events of the caller's tickets (optionally of one domain, or as an `sse` subscription
 * filters them): the events after `after` first (resume), then live ones. Counts against the agent's
 * concurrent streams.
 */
export async function followUtoEvents(ctx: Ctx, input: FollowInput): Promise<AsyncIterableIterator<UtoStreamEvent>> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const domain = input.domain === undefined || input.domain === null ? null : (checkDomain(checks, 'domain', input.domain, true) ?? null);
  const after = input.after === undefined || input.after === null ? null : (checks.integer('after', input.after, 0, 2 ** 31 - 1) ?? null);
  checks.done();
  const filter = { types: null as string[] | null, domain };
  if (input.subscriptionId !== undefined && input.subscriptionId !== null) {
    const sub = await ownSubscription(ctx, input.subscriptionId);
    if (sub.status !== 'active') throw new Conflict('The notification subscription is cancelled');
    const own = filterOf(sub);
    filter.types = own.types;
    if (own.domain && domain && own.domain !== domain) throw new Conflict(`The subscription is for domain ${own.domain}`);
    filter.domain = own.domain ?? domain;
  }
  const release = ctx.services.streamSlots.take(me.id);
  let reader: AsyncIterableIterator<UtoStreamEvent>;
  try {
    reader = await ctx.services.utoStreams.open(me.id, after, release);
  } catch (err) {
    release();
    throw err;
  }
  const keep = (e: UtoStreamEvent) => (!filter.types || filter.types.includes(e.type)) && (!filter.domain || filter.domain === e.domain);
  return filtered(reader, keep);
}
