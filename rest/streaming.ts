// REST routes of streaming sessions (spec §4.8, §6.4): open, read, push, end, and the event stream.
import { bucket, from, type Route } from './route';

const sessionFields = /* GraphQL */ `
  fragment StreamingSessionFields on StreamingSession {
    id: sessionId
    capabilityId
    streamType
    status
    ended
    eventEndpoint
    last_event_id: lastEventId
    ended_at: endedAt
    created_at: createdAt
    updated_at: updatedAt
  }
`;

export const streamingRoutes: Route[] = [
  {
    method: 'POST',
    path: '/streaming/sessions',
    bucket: bucket('streaming_sessions_create', 30),
    auth: 'agent',
    status: 201,
    tag: 'Streaming',
    summary: 'Open a streaming session',
    description:
      '`streamType` `sse` (default) or `websocket`. `eventEndpoint` is the absolute URL readers follow: `GET` it for Server-Sent Events, or (for `websocket` sessions, `ws://`/`wss://`) upgrade the same path to a WebSocket.',
    document: /* GraphQL */ `
      mutation CreateStreamingSession($input: CreateStreamingSessionInput!) {
        createStreamingSession(input: $input) {
          ...StreamingSessionFields
        }
      }
      ${sessionFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/streaming/sessions',
    bucket: bucket('streaming_sessions_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Streaming',
    summary: "The caller's streaming sessions, newest first",
    document: /* GraphQL */ `
      query StreamingSessions($status: String, $first: Int, $offset: Int) {
        streamingSessions(status: $status, first: $first, offset: $offset) {
          total: totalCount
          sessions: nodes {
            ...StreamingSessionFields
          }
        }
      }
      ${sessionFields}
    `,
    variables: {
      status: from.query('status', 'active or ended'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/streaming/sessions/:id',
    bucket: bucket('streaming_sessions_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Streaming',
    summary: 'A streaming session',
    errors: [404],
    document: /* GraphQL */ `
      query StreamingSession($id: ID!) {
        streamingSession(id: $id) {
          ...StreamingSessionFields
        }
      }
      ${sessionFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'GET',
    path: '/streaming/sessions/:id/events',
    bucket: bucket('streaming_events', 60),
    auth: 'agent',
    status: 200,
    tag: 'Streaming',
    summary: "The session's events as Server-Sent Events (or a WebSocket on upgrade)",
    description:
      "Runs `Subscription.streamingSessionEvents`. Each SSE message has `id` (the event's number), `event` (its name) and `data` `{ id, event, data, created_at }`; after the session ends the stream sends `event: end` and closes. Send `Last-Event-ID` (EventSource does on reconnect) to receive the kept events after that id first, with no gap. Upgraded to a WebSocket, each event is one JSON text message and the socket closes with 1000 at the end; resume with `?after=<id>`. At most STREAMS_PER_AGENT (20) open streams per agent: 429 beyond.",
    errors: [404, 429],
    document: /* GraphQL */ `
      subscription StreamingSessionEvents($id: ID!, $after: Int) {
        streamingSessionEvents(sessionId: $id, after: $after) {
          id
          event
          data
          created_at: createdAt
        }
      }
    `,
    variables: { id: from.path('id'), after: from.header('Last-Event-ID', 'Resume after this event id') },
  },
  {
    method: 'POST',
    path: '/streaming/sessions/:id/push',
    bucket: bucket('streaming_push', 60),
    auth: 'agent',
    status: 200,
    tag: 'Streaming',
    summary: 'Push events into a session',
    description:
      'Body `{ event?, data }` for one event, or `{ events: [{ event?, data }] }` for up to 100 in order. `event` names it (default `message`); `data` is any JSON up to 64 KiB. Answers `pushed: true`, `count` (the events stored) and `last_event_id` (the id of the last; they are numbered in order). An ended session is 409.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation PushStreamingEvents($id: ID!, $input: PushStreamingEventsInput!) {
        pushStreamingEvents(sessionId: $id, input: $input) {
          pushed
          count
          session_id: sessionId
          last_event_id: lastEventId
        }
      }
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'POST',
    path: '/streaming/sessions/:id/end',
    bucket: bucket('streaming_end', 60),
    auth: 'agent',
    status: 200,
    tag: 'Streaming',
    summary: 'End a session',
    description: 'Open streams receive every event pushed before the end, then close. Ending an ended session is 409.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation EndStreamingSession($id: ID!) {
        endStreamingSession(id: $id) {
          ended
          id: sessionId
          status
          ended_at: endedAt
          last_event_id: lastEventId
        }
      }
    `,
    variables: { id: from.path('id') },
  },
];
