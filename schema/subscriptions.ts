// Capability subscriptions: cron-scheduled executions of a capability and their runs, with every move as a
// mutation and the runs as a live stream (Subscription.capabilitySubscriptionRuns).
import * as subscriptions from '../src/domain/subscriptions/subscriptions';
import { builder, ownedByCaller } from './builder';
import { pagedField } from './paging';
import { maxLength, oneOf } from './json-schema';

export const CapabilitySubscription = builder.prismaNode('CapabilitySubscription', {
  authScopes: ownedByCaller,
  description: 'A capability executed on a cron schedule, its output delivered by webhook, into a memory store, or as SSE',
  id: { field: 'id' },
  fields: (t) => ({
    subscriptionId: t.exposeID('id'),
    capabilityId: t.exposeString('capabilityId'),
    inputPayload: t.field({ type: 'JSON', description: 'The input of every run', resolve: (s) => s.inputPayload }),
    schedule: t.exposeString('schedule', { description: 'Cron: 5 fields, or 6 with seconds first' }),
    timezone: t.exposeString('timezone', { description: 'The IANA time zone the schedule is read in' }),
    deliveryMethod: t.exposeString('deliveryMethod', { description: '`webhook`, `store` or `sse`' }),
    deliveryConfig: t.field({
      type: 'JSON',
      description: '`webhookUrl`, or `storeId` and `key`; the secret is shown only when made',
      resolve: (s) => s.deliveryConfig,
    }),
    status: t.exposeString('status', { description: '`active`, `paused` or `cancelled`' }),
    nextRunAt: t.expose('nextRunAt', { type: 'DateTime', nullable: true, description: 'The next tick (null unless active)' }),
    lastRunAt: t.expose('lastRunAt', { type: 'DateTime', nullable: true, description: 'The tick of the latest run' }),
    runCount: t.exposeInt('runCount'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const SubscriptionRun = builder.prismaObject('SubscriptionRun', {
  description: 'One tick of a subscription: executed once, then delivered',
  fields: (t) => ({
    runId: t.exposeID('id'),
    sequence: t.exposeInt('seq', { description: '1, 2, 3… per subscription (the SSE event id)' }),
    scheduledFor: t.expose('scheduledFor', { type: 'DateTime', description: 'The tick' }),
    status: t.exposeString('status', { description: '`pending`, `success` or `error`' }),
    executionId: t.exposeID('executionId', { nullable: true }),
    result: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.result }),
    error: t.exposeString('error', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

const RunEvent = builder.objectRef<subscriptions.RunEvent>('CapabilitySubscriptionRun').implement({
  description: 'A finished run, as the run stream carries it',
  fields: (t) => ({
    id: t.id({ resolve: (r) => String(r.seq), description: "The run's sequence number (the SSE id, for Last-Event-ID)" }),
    event: t.string({ resolve: () => 'run', description: 'Always `run` (the SSE event name)' }),
    runId: t.exposeID('runId'),
    subscriptionId: t.exposeID('subscriptionId'),
    sequence: t.exposeInt('seq'),
    scheduledFor: t.field({ type: 'DateTime', resolve: (r) => r.scheduledFor }),
    status: t.exposeString('status', { description: '`success` or `error`' }),
    executionId: t.exposeID('executionId', { nullable: true }),
    result: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.result }),
    error: t.exposeString('error', { nullable: true }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.finishedAt }),
  }),
});

const SavedSubscription = builder.objectRef<subscriptions.CreatedSubscription>('SavedCapabilitySubscription').implement({
  description: 'A created or changed subscription; a new webhook secret appears here once, as deliveryConfig.secret',
  fields: (t) => ({
    id: t.id({ resolve: (c) => c.subscription.id }),
    updated: t.boolean({ description: 'True: the change was saved (the answer of an update)', resolve: () => true }),
    status: t.string({ resolve: (c) => c.subscription.status }),
    nextRunAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'The next tick; null while paused or cancelled',
      resolve: (c) => c.subscription.nextRunAt,
    }),
    lastRunAt: t.field({ type: 'DateTime', nullable: true, description: 'The latest run; null before the first', resolve: (c) => c.subscription.lastRunAt }),
    runCount: t.int({ resolve: (c) => c.subscription.runCount }),
    capabilityId: t.string({ resolve: (c) => c.subscription.capabilityId }),
    inputPayload: t.field({ type: 'JSON', resolve: (c) => c.subscription.inputPayload }),
    schedule: t.string({ resolve: (c) => c.subscription.schedule }),
    timezone: t.string({ resolve: (c) => c.subscription.timezone }),
    deliveryMethod: t.string({ resolve: (c) => c.subscription.deliveryMethod }),
    deliveryConfig: t.field({
      type: 'JSON',
      description: 'With `secret` (`whsec_…`, the HMAC key of webhook deliveries) when one was just made',
      resolve: (c) => ({ ...(c.subscription.deliveryConfig as object), ...(c.secret ? { secret: c.secret } : {}) }),
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (c) => c.subscription.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (c) => c.subscription.updatedAt }),
    subscription: t.field({ type: CapabilitySubscription, resolve: (c) => c.subscription }),
  }),
});

const DeliveryConfigInput = builder.inputType('SubscriptionDeliveryConfigInput', {
  description: 'What the delivery method needs: webhook `{ webhookUrl }`; store `{ storeId, key? }`; sse nothing',
  fields: (t) => ({
    webhookUrl: t.string({ description: 'webhook: the https URL that receives `subscription.delivered` events' }),
    storeId: t.string({ description: 'store: one of your kv or structured memory stores' }),
    key: t.string({ description: 'store: the entry key runs are written under (default `subscriptions/<id>`)' }),
    secret: t.string({ description: 'Never given: the marketplace makes the webhook secret and returns it once' }),
  }),
});

const SubscriptionInput = builder.inputType('SubscriptionInput', {
  fields: (t) => ({
    capabilityId: t.string({ description: 'The capability to execute (required on creation)', extensions: maxLength(64) }),
    inputPayload: t.field({ type: 'JSON', description: 'Its input, a JSON object (default {})' }),
    schedule: t.string({ description: 'Cron: 5 fields, or 6 with seconds first (required on creation)', extensions: maxLength(200) }),
    timezone: t.string({ description: 'IANA time zone of the schedule (default UTC)', extensions: maxLength(64) }),
    deliveryMethod: t.string({ description: '`webhook`, `store` or `sse` (required on creation)', extensions: oneOf(subscriptions.DELIVERY_METHODS) }),
    deliveryConfig: t.field({
      type: DeliveryConfigInput,
      description: 'webhook: `{ webhookUrl }` (https); store: `{ storeId, key? }` (one of your kv or structured stores)',
    }),
  }),
});

builder.mutationField('createSubscription', (t) =>
  t.field({
    type: SavedSubscription,
    description: 'Subscribe to a capability on a schedule (status `active`, nextRunAt set)',
    auth: 'agent',
    args: { input: t.arg({ type: SubscriptionInput, required: true }) },
    resolve: (_r, { input }, ctx) => subscriptions.createSubscription(ctx, input),
  }),
);

builder.mutationField('updateSubscription', (t) =>
  t.field({
    type: SavedSubscription,
    description: 'Change the input, schedule or delivery of a subscription that is not cancelled (409 otherwise)',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: SubscriptionInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => subscriptions.updateSubscription(ctx, String(id), input),
  }),
);

for (const [field, to, description] of [
  ['pauseSubscription', 'paused', 'Pause an active subscription (409 otherwise)'],
  ['resumeSubscription', 'active', 'Resume a paused subscription from its next tick after now (409 otherwise)'],
  ['cancelSubscription', 'cancelled', 'Cancel a subscription that is active or paused; final (409 otherwise)'],
] as const) {
  builder.mutationField(field, (t) =>
    t.prismaField({
      type: 'CapabilitySubscription',
      description,
      auth: 'agent',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_q, _r, { id }, ctx) => subscriptions.moveSubscription(ctx, String(id), to),
    }),
  );
}

builder.queryField('subscription', (t) =>
  t.prismaField({
    type: 'CapabilitySubscription',
    description: "One of the caller's capability subscriptions",
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => subscriptions.ownSubscription(ctx, String(id)),
  }),
);

builder.queryField('subscriptions', (t) =>
  pagedField(t, CapabilitySubscription, {
    description: "The caller's capability subscriptions, newest first",
    auth: 'agent',
    args: { status: t.arg.string({ description: '`active`, `paused` or `cancelled`' }) },
    resolve: (ctx, args, page) => subscriptions.listSubscriptions(ctx, page, args.status),
  }),
);

builder.queryField('subscriptionRuns', (t) =>
  pagedField(t, SubscriptionRun, {
    description: "A subscription's runs, newest first",
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (ctx, args, page) => subscriptions.listRuns(ctx, String(args.id), page),
  }),
);

builder.subscriptionField('capabilitySubscriptionRuns', (t) =>
  t.field({
    type: RunEvent,
    description:
      "A subscription's finished runs, in order. `after` (a run's sequence, as SSE's Last-Event-ID) replays the runs after it first; the stream ends once the subscription is cancelled. Counts against the agent's concurrent streams.",
    auth: 'agent',
    args: { id: t.arg.id({ required: true }), after: t.arg.int({ description: 'Resume after this run sequence' }) },
    subscribe: (_root, { id, after }, ctx) => subscriptions.followRuns(ctx, String(id), after ?? null),
    resolve: (run) => run,
  }),
);
