// Webhooks: an agent's receivers of its events (spec §4.6, CONTRACT §7) — registration with a secret shown
// once, listing, change, deletion, the log of deliveries and redelivery of one event.
import type { Db } from '../../db/database';
import type { Delivery, DeliveryAttempt, Webhook } from '../../db/generated/prisma/client';
import { Conflict, NotFound, ValidationFailed } from '../../platform/errors';
import { isUuid, newSigningSecret } from '../../platform/ids';
import { allEach, perRequest } from '../../platform/loaders';
import { checkOutboundUrl } from '../../platform/outbound';
import type { ClaimedDelivery } from '../../platform/outbox';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { assertAllowance } from '../agents/agents';
import { recordAudit } from '../audit/audit';
import type { Ctx } from '../context';
import { EVENT_TYPES } from '../events';
import type { Page } from '../../platform/page';

export const WEBHOOKS_PER_AGENT = 20;
const URL_MAX = 2048;

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
  active?: unknown;
}

export interface CreatedWebhook {
  webhook: Webhook;
  /** `whsec_…`: the HMAC key of the `v1` signature; shown only here. */
  secret: string;
}

function readUrl(checks: Checks, ctx: Ctx, value: unknown, required: boolean): string | undefined {
  const url = checks.text('url', value, { max: URL_MAX, required });
  if (url === undefined) return undefined;
  const problem = checkOutboundUrl(url, ctx.services.config.outboundAllowPrivate);
  if (problem) checks.fail('url', problem);
  return url;
}

function readEvents(checks: Checks, value: unknown, required: boolean): string[] | undefined {
  if (value === undefined || value === null) {
    if (required) checks.fail('events', 'is required');
    return undefined;
  }
  if (!Array.isArray(value) || value.length === 0) {
    checks.fail('events', 'must be a non-empty list of event names, or ["*"]');
    return undefined;
  }
  const known = new Set<string>([...EVENT_TYPES, '*']);
  value.forEach((name, i) => {
    if (typeof name !== 'string' || !known.has(name)) checks.fail(`events.${i}`, `must be * or one of ${EVENT_TYPES.join(', ')}`);
  });
  return [...new Set(value as string[])];
}

function readActive(checks: Checks, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') checks.fail('active', 'must be true or false');
  return value as boolean;
}

export async function createWebhook(ctx: Ctx, input: WebhookInput): Promise<CreatedWebhook> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const url = readUrl(checks, ctx, input.url, true);
  const events = readEvents(checks, input.events, true);
  const active = readActive(checks, input.active) ?? true;
  checks.done();
  const secret = newSigningSecret();
  const webhook = await ctx.db.$transaction(async (tx) => {
    await assertAllowance(
      tx,
      me.id,
      WEBHOOKS_PER_AGENT,
      () => tx.webhook.count({ where: { agentId: me.id } }),
      () => new Conflict(`An agent may have at most ${WEBHOOKS_PER_AGENT} webhooks; delete one first`),
    );
    const created = await tx.webhook.create({ data: { agentId: me.id, url: url!, events: events!, active, secret } });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'webhook.created',
      targetType: 'webhook',
      targetId: created.id,
      details: { url: created.url, events: created.events },
    });
    return created;
  });
  return { webhook, secret };
}

/** The caller's webhook, or not found (another agent's webhook is simply not found). */
export async function ownWebhook(ctx: Ctx, id: string): Promise<Webhook> {
  const me = await requireAgent(ctx);
  const webhook = isUuid(id) ? await ctx.db.webhook.findFirst({ where: { id, agentId: me.id } }) : null;
  if (!webhook) throw new NotFound('webhook', id);
  return webhook;
}

export async function listWebhooks(ctx: Ctx, page: Page) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  const [items, total] = await Promise.all([
    ctx.db.webhook.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], skip: page.offset, take: page.limit }),
    ctx.db.webhook.count({ where }),
  ]);
  return { items, total };
}

/** Changes url, events or active; turning a webhook back on clears why it was turned off. */
export async function updateWebhook(ctx: Ctx, id: string, input: WebhookInput): Promise<Webhook> {
  const webhook = await ownWebhook(ctx, id);
  const checks = new Checks();
  const url = readUrl(checks, ctx, input.url, false);
  const events = readEvents(checks, input.events, false);
  const active = readActive(checks, input.active);
  checks.done();
  return ctx.db.$transaction(async (tx) => {
    const updated = await tx.webhook.update({
      where: { id: webhook.id },
      data: {
        ...(url !== undefined && { url }),
        ...(events !== undefined && { events }),
        ...(active !== undefined && { active, ...(active && { disabledReason: null }) }),
      },
    });
    await recordAudit(tx, ctx, {
      agentId: webhook.agentId,
      action: 'webhook.updated',
      targetType: 'webhook',
      targetId: webhook.id,
      details: { url: updated.url, events: updated.events, active: updated.active },
    });
    return updated;
  });
}

/** Deletes a webhook and, with it, its pending deliveries and their log. */
export async function deleteWebhook(ctx: Ctx, id: string): Promise<Webhook> {
  const webhook = await ownWebhook(ctx, id);
  await ctx.db.$transaction(async (tx) => {
    await tx.webhook.delete({ where: { id: webhook.id } });
    await recordAudit(tx, ctx, {
      agentId: webhook.agentId,
      action: 'webhook.deleted',
      targetType: 'webhook',
      targetId: webhook.id,
      details: { url: webhook.url },
    });
  });
  return webhook;
}

export type DeliveryWithEvent = Delivery & { event: { type: string } };

export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'failed', 'cancelled'] as const;

export async function listDeliveries(ctx: Ctx, webhookId: string, page: Page, status?: string | null) {
  const webhook = await ownWebhook(ctx, webhookId);
  if (status && !DELIVERY_STATUSES.includes(status as never))
    throw new ValidationFailed([{ path: 'status', message: `must be one of ${DELIVERY_STATUSES.join(', ')}` }]);
  const where = { webhookId: webhook.id, ...(status ? { status } : {}) };
  const [items, total] = await Promise.all([
    ctx.db.delivery.findMany({
      where,
      include: { event: { select: { type: true } } },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.limit,
    }),
    ctx.db.delivery.count({ where }),
  ]);
  return { items: items as DeliveryWithEvent[], total };
}

const attempts = perRequest(async (ctx: Ctx, deliveryIds: readonly string[]) => {
  const rows = await ctx.db.deliveryAttempt.findMany({
    where: { deliveryId: { in: [...new Set(deliveryIds)] } },
    orderBy: [{ attempt: 'asc' }, { id: 'asc' }],
  });
  return allEach(deliveryIds, rows, (r) => r.deliveryId);
});

/** A delivery's attempts, first first; the attempts of every delivery a request reads at once come in one statement. */
export function deliveryAttempts(ctx: Ctx, deliveryId: string): Promise<DeliveryAttempt[]> {
  return attempts(ctx).load(deliveryId);
}

/**
 * Sends an event of a delivery again, as a new delivery (same event id, so a receiver deduplicates);
 * a delivery still pending or being sent answers 409.
 */
export async function redeliver(ctx: Ctx, webhookId: string, deliveryId: string): Promise<DeliveryWithEvent> {
  const webhook = await ownWebhook(ctx, webhookId);
  const original = isUuid(deliveryId) ? await ctx.db.delivery.findFirst({ where: { id: deliveryId, webhookId: webhook.id } }) : null;
  if (!original) throw new NotFound('delivery', deliveryId);
  if (original.status === 'pending' || original.status === 'sending') throw new Conflict(`Delivery ${deliveryId} is still ${original.status}`);
  if (!webhook.active) throw new Conflict('The webhook is turned off; turn it on (PATCH active: true) first');
  const now = ctx.services.clock.now();
  const created = await ctx.db.delivery.create({
    data: { eventId: original.eventId, kind: 'webhook', webhookId: webhook.id, status: 'pending', nextAttemptAt: now, createdAt: now },
    include: { event: { select: { type: true } } },
  });
  ctx.services.dispatcher.wake();
  return created;
}

/** A receiver answered 410 Gone: a webhook is turned off, with its pending deliveries cancelled. */
export async function disableGoneReceiver(db: Db, delivery: ClaimedDelivery, at: Date): Promise<void> {
  if (delivery.kind !== 'webhook' || !delivery.receiverId) return;
  const webhookId = delivery.receiverId;
  await db.$transaction([
    db.webhook.update({ where: { id: webhookId }, data: { active: false, disabledReason: `410 Gone from the receiver at ${at.toISOString()}` } }),
    db.delivery.updateMany({ where: { webhookId, status: 'pending' }, data: { status: 'cancelled', lastError: 'the webhook was turned off after 410 Gone' } }),
  ]);
}
