// Webhooks: receivers of the caller's events, their delivery log and redelivery (spec §4.6, CONTRACT §7).
import * as webhooks from '../src/domain/webhooks/webhooks';
import { EVENT_TYPES } from '../src/domain/events';
import { builder, ownedByCaller } from './builder';
import { pagedField } from './paging';
import { listOf, maxLength, oneOf } from './json-schema';

export const Webhook = builder.prismaNode('Webhook', {
  authScopes: ownedByCaller,
  description: "A receiver of the calling agent's events; its secret is shown only when it is made",
  id: { field: 'id' },
  fields: (t) => ({
    webhookId: t.exposeID('id'),
    url: t.exposeString('url'),
    events: t.exposeStringList('events', { description: `Event names, or * for all: ${EVENT_TYPES.join(', ')}` }),
    active: t.exposeBoolean('active'),
    disabledReason: t.exposeString('disabledReason', { nullable: true, description: 'Why the marketplace turned it off (a 410 Gone)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const DeliveryAttempt = builder.prismaObject('DeliveryAttempt', {
  fields: (t) => ({
    attempt: t.exposeInt('attempt'),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const Delivery = builder.objectRef<webhooks.DeliveryWithEvent>('WebhookDelivery').implement({
  description: 'One event on its way to one webhook',
  fields: (t) => ({
    deliveryId: t.exposeID('id'),
    eventId: t.exposeString('eventId', { description: 'Also the `webhook-id` header of every attempt' }),
    eventType: t.string({ resolve: (d) => d.event.type }),
    status: t.exposeString('status', { description: '`pending`, `sending`, `delivered`, `failed` or `cancelled`' }),
    attempts: t.exposeInt('attempts'),
    lastStatus: t.exposeInt('lastStatus', { nullable: true, description: 'The HTTP status of the last attempt' }),
    lastError: t.exposeString('lastError', { nullable: true }),
    nextAttemptAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => (d.status === 'pending' ? d.nextAttemptAt : null) }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    attemptLog: t.field({ type: [DeliveryAttempt], description: 'Every attempt, first first', resolve: (d, _a, ctx) => webhooks.deliveryAttempts(ctx, d.id) }),
  }),
});

const CreatedWebhook = builder.objectRef<webhooks.CreatedWebhook>('CreatedWebhook').implement({
  fields: (t) => ({
    webhookId: t.id({ resolve: (c) => c.webhook.id }),
    secret: t.exposeString('secret', { description: '`whsec_…`, the key of the HMAC `v1` signature: shown only here' }),
    active: t.boolean({ resolve: (c) => c.webhook.active }),
    url: t.string({ resolve: (c) => c.webhook.url }),
    events: t.stringList({ resolve: (c) => c.webhook.events }),
    createdAt: t.field({ type: 'DateTime', resolve: (c) => c.webhook.createdAt }),
    webhook: t.field({ type: Webhook, resolve: (c) => c.webhook }),
  }),
});

const WebhookInput = builder.inputType('WebhookInput', {
  fields: (t) => ({
    url: t.string({ description: 'An https:// URL', extensions: maxLength(2048) }),
    events: t.stringList({ description: 'Event names of CONTRACT §7, or ["*"]', extensions: listOf(undefined, oneOf(['*', ...EVENT_TYPES])) }),
    active: t.boolean({ description: 'Default true' }),
  }),
});

builder.mutationField('createWebhook', (t) =>
  t.field({
    type: CreatedWebhook,
    description: "Register a receiver of the caller's events (at most 20 per agent)",
    auth: 'agent',
    args: { input: t.arg({ type: WebhookInput, required: true }) },
    resolve: (_r, { input }, ctx) => webhooks.createWebhook(ctx, input),
  }),
);

builder.queryField('webhooks', (t) =>
  pagedField(t, Webhook, {
    description: "The caller's webhooks, newest first (never their secrets)",
    auth: 'agent',
    resolve: (ctx, _args, page) => webhooks.listWebhooks(ctx, page),
  }),
);

builder.queryField('webhook', (t) =>
  t.field({
    type: Webhook,
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => webhooks.ownWebhook(ctx, String(id)),
  }),
);

builder.mutationField('updateWebhook', (t) =>
  t.field({
    type: Webhook,
    description: 'Change url, events or active (turning it on again clears `disabledReason`)',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: WebhookInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => webhooks.updateWebhook(ctx, String(id), input),
  }),
);

const DeletedWebhook = builder.objectRef<{ webhookId: string }>('DeletedWebhook').implement({
  fields: (t) => ({ deleted: t.boolean({ resolve: () => true }), webhookId: t.exposeID('webhookId') }),
});

builder.mutationField('deleteWebhook', (t) =>
  t.field({
    type: DeletedWebhook,
    description: 'Delete a webhook with its pending deliveries and their log',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, { id }, ctx) => ({ webhookId: (await webhooks.deleteWebhook(ctx, String(id))).id }),
  }),
);

builder.queryField('webhookDeliveries', (t) =>
  pagedField(t, Delivery, {
    description: "A webhook's deliveries, newest first",
    auth: 'agent',
    args: {
      webhookId: t.arg.id({ required: true }),
      status: t.arg.string({ description: 'Only deliveries in this status', extensions: oneOf(webhooks.DELIVERY_STATUSES) }),
    },
    resolve: (ctx, args, page) => webhooks.listDeliveries(ctx, String(args.webhookId), page, args.status),
  }),
);

builder.mutationField('redeliverWebhookDelivery', (t) =>
  t.field({
    type: Delivery,
    description: 'Send the event of a finished delivery again, as a new delivery with the same event id',
    auth: 'agent',
    args: { webhookId: t.arg.id({ required: true }), deliveryId: t.arg.id({ required: true }) },
    resolve: (_r, { webhookId, deliveryId }, ctx) => webhooks.redeliver(ctx, String(webhookId), String(deliveryId)),
  }),
);
