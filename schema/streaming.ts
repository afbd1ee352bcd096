// Streaming sessions: open, push, end, and follow a session's events (one stream for every surface: the
// REST SSE endpoint and the plain WebSocket run Subscription.streamingSessionEvents too).
import * as sessions from '../src/domain/streaming/sessions';
import { builder, ownedByCaller } from './builder';
import { pagedField } from './paging';
import { maxLength, oneOf } from './json-schema';

export const StreamingSession = builder.prismaNode('StreamingSession', {
  authScopes: ownedByCaller,
  description: 'A stream of events its owner pushes and its readers follow (SSE, WebSocket, GraphQL)',
  id: { field: 'id' },
  fields: (t) => ({
    sessionId: t.exposeID('id'),
    capabilityId: t.exposeString('capabilityId'),
    streamType: t.exposeString('streamType', { description: '`sse` or `websocket`: how eventEndpoint is read' }),
    status: t.exposeString('status', { description: '`active` or `ended`' }),
    ended: t.boolean({ resolve: (s) => s.status === 'ended' }),
    eventEndpoint: t.string({
      description: 'Absolute URL of the event stream: https?:// for SSE, wss?:// (the same path) for WebSocket',
      resolve: (s, _a, ctx) => sessions.eventEndpoint(ctx.services, s),
    }),
    lastEventId: t.exposeInt('lastSeq', { description: 'The id of the last pushed event (0 before the first)' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const StreamingEvent = builder.objectRef<sessions.StreamEvent>('StreamingEvent').implement({
  description: 'One pushed event; `id` is its number in the session (the SSE id, for Last-Event-ID)',
  fields: (t) => ({
    id: t.id({ resolve: (e) => String(e.seq) }),
    sequence: t.exposeInt('seq'),
    event: t.exposeString('event', { description: 'The event name (`message` unless the pusher named it)' }),
    data: t.field({ type: 'JSON', nullable: true, resolve: (e) => e.data }),
    createdAt: t.field({ type: 'DateTime', resolve: (e) => e.createdAt }),
  }),
});

const Pushed = builder.objectRef<Awaited<ReturnType<typeof sessions.pushEvents>>>('PushedStreamingEvents').implement({
  fields: (t) => ({
    pushed: t.boolean({ description: 'The events were stored and handed to readers', resolve: () => true }),
    count: t.exposeInt('count', { description: 'How many events this push stored' }),
    sessionId: t.exposeID('sessionId'),
    lastEventId: t.exposeInt('lastEventId'),
    events: t.field({ type: [StreamingEvent], resolve: (p) => p.events }),
  }),
});

const CreateStreamingSessionInput = builder.inputType('CreateStreamingSessionInput', {
  fields: (t) => ({
    capabilityId: t.string({ required: true, description: 'The capability the session streams', extensions: maxLength(64) }),
    streamType: t.string({ description: '`sse` (default) or `websocket`', extensions: oneOf(sessions.STREAM_TYPES) }),
  }),
});

const StreamingEventInput = builder.inputType('StreamingEventInput', {
  fields: (t) => ({
    event: t.string({ description: 'A name, 1-64 of letters, digits, _ . : - (default `message`)' }),
    data: t.field({ type: 'JSON', description: 'Any JSON, at most 64 KiB' }),
  }),
});

const PushStreamingEventsInput = builder.inputType('PushStreamingEventsInput', {
  fields: (t) => ({
    event: t.string({ description: 'One event: its name (default `message`)' }),
    data: t.field({ type: 'JSON', description: 'One event: its data' }),
    events: t.field({ type: [StreamingEventInput], description: 'Or several events, up to 100, in order' }),
  }),
});

builder.mutationField('createStreamingSession', (t) =>
  t.prismaField({
    type: 'StreamingSession',
    description: 'Open a streaming session (status `active`)',
    auth: 'agent',
    args: { input: t.arg({ type: CreateStreamingSessionInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => sessions.createSession(ctx, input),
  }),
);

builder.queryField('streamingSession', (t) =>
  t.prismaField({
    type: 'StreamingSession',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => sessions.ownSession(ctx, String(id)),
  }),
);

builder.queryField('streamingSessions', (t) =>
  pagedField(t, StreamingSession, {
    description: "The caller's streaming sessions, newest first",
    auth: 'agent',
    args: { status: t.arg.string({ description: '`active` or `ended`' }) },
    resolve: (ctx, args, page) => sessions.listSessions(ctx, page, args.status),
  }),
);

builder.mutationField('pushStreamingEvents', (t) =>
  t.field({
    type: Pushed,
    description: 'Push events into an active session (409 once it has ended)',
    // No scope check before the resolver: the push authenticates the caller itself, in its own statement
    // (401/403 still come before any other answer).
    args: { sessionId: t.arg.id({ required: true }), input: t.arg({ type: PushStreamingEventsInput, required: true }) },
    resolve: (_r, { sessionId, input }, ctx) => sessions.pushEvents(ctx, String(sessionId), input),
  }),
);

builder.mutationField('endStreamingSession', (t) =>
  t.prismaField({
    type: 'StreamingSession',
    description: 'End a session: open streams close after its last event; a second end is 409',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => sessions.endSession(ctx, String(id)),
  }),
);

builder.subscriptionField('streamingSessionEvents', (t) =>
  t.field({
    type: StreamingEvent,
    description:
      "A session's events, in order, until it ends. `after` (an event id, as SSE's Last-Event-ID) replays the kept events after it first; without it, only new events. Counts against the agent's concurrent streams.",
    auth: 'agent',
    args: { sessionId: t.arg.id({ required: true }), after: t.arg.int({ description: 'Resume after this event id' }) },
    subscribe: (_root, { sessionId, after }, ctx) => sessions.followSession(ctx, String(sessionId), after ?? null),
    resolve: (event) => event,
  }),
);
