// REST routes of capability subscriptions (spec §4.6, §3, §6.2): create, list, read, change, pause,
// resume, cancel, the runs, and the runs as an SSE stream.
import { bucket, from, type Route } from './route';

const subscriptionFields = /* GraphQL */ `
  fragment CapabilitySubscriptionFields on CapabilitySubscription {
    id: subscriptionId
    capabilityId
    inputPayload
    schedule
    timezone
    deliveryMethod
    deliveryConfig
    status
    nextRunAt
    lastRunAt
    run_count: runCount
    created_at: createdAt
    updated_at: updatedAt
  }
`;
const savedFields = /* GraphQL */ `
  fragment SavedSubscriptionFields on SavedCapabilitySubscription {
    id
    capabilityId
    inputPayload
    schedule
    timezone
    deliveryMethod
    deliveryConfig
    status
    nextRunAt
    lastRunAt
    run_count: runCount
    created_at: createdAt
    updated_at: updatedAt
  }
`;

const MOVES = 'Allowed moves: active → paused or cancelled; paused → active or cancelled; cancelled is final. Any other move is 409.';

/** A move of the subscription's state: the operation is given whole (codegen reads documents literally). */
const move = (verb: 'pause' | 'resume' | 'cancel', description: string, document: string): Route => ({
  method: 'POST',
  path: `/subscriptions/:id/${verb}`,
  bucket: bucket(`subscriptions_${verb}`, 60),
  auth: 'agent',
  status: 200,
  tag: 'Subscriptions',
  summary: `${verb[0].toUpperCase()}${verb.slice(1)} a subscription`,
  description: `${description} ${MOVES}`,
  errors: [404, 409],
  document,
  variables: { id: from.path('id') },
});

export const subscriptionRoutes: Route[] = [
  {
    method: 'POST',
    path: '/subscriptions',
    bucket: bucket('subscriptions_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Subscriptions',
    summary: 'Subscribe to a capability on a schedule',
    description:
      "`schedule` is cron: 5 fields (minute hour day month weekday) or 6 with seconds first, read in `timezone` (IANA, default UTC); an invalid one is 400. Each tick executes `capabilityId` with `inputPayload` through execute (recorded and billed as the subscriber's execution) and delivers the run: `webhook` POSTs a `subscription.delivered` event to `deliveryConfig.webhookUrl` (https) from the outbox, signed like webhooks with `deliveryConfig.secret`, returned here once; `store` writes it into `deliveryConfig.storeId` (one of your kv or structured stores) under `deliveryConfig.key` (default `subscriptions/<id>`), each run a new version; `sse` streams it at GET /subscriptions/{id}/events. Every run also emits `subscription.delivered` to your webhooks. Each tick runs once however many instances serve; after downtime a subscription runs once, not once per missed tick. At most 100 subscriptions that are not cancelled (409 beyond).",
    errors: [409],
    document: /* GraphQL */ `
      mutation CreateSubscription($input: SubscriptionInput!) {
        createSubscription(input: $input) {
          ...SavedSubscriptionFields
        }
      }
      ${savedFields}
    `,
    variables: { input: from.body },
    bodySchema: { required: ['capabilityId', 'schedule', 'deliveryMethod'] },
  },
  {
    method: 'GET',
    path: '/subscriptions',
    bucket: bucket('subscriptions_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Subscriptions',
    summary: "The caller's subscriptions, newest first",
    document: /* GraphQL */ `
      query CapabilitySubscriptions($status: String, $first: Int, $offset: Int) {
        subscriptions(status: $status, first: $first, offset: $offset) {
          total: totalCount
          subscriptions: nodes {
            ...CapabilitySubscriptionFields
          }
        }
      }
      ${subscriptionFields}
    `,
    variables: {
      status: from.query('status', 'active, paused or cancelled'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/subscriptions/:id',
    bucket: bucket('subscriptions_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Subscriptions',
    summary: 'A subscription',
    errors: [404],
    document: /* GraphQL */ `
      query CapabilitySubscription($id: ID!) {
        subscription(id: $id) {
          ...CapabilitySubscriptionFields
        }
      }
      ${subscriptionFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'PATCH',
    path: '/subscriptions/:id',
    bucket: bucket('subscriptions_update', 60),
    auth: 'agent',
    status: 200,
    tag: 'Subscriptions',
    summary: 'Change a subscription',
    description:
      '`inputPayload`, `schedule`, `timezone`, `deliveryMethod`, `deliveryConfig` (the capability cannot change). A new schedule takes effect from its next tick after now. Switching to webhook delivery makes a new secret, returned once in `deliveryConfig.secret`. A cancelled subscription is 409.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation UpdateSubscription($id: ID!, $input: SubscriptionInput!) {
        updateSubscription(id: $id, input: $input) {
          updated
          ...SavedSubscriptionFields
        }
      }
      ${savedFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  move(
    'pause',
    'Stops the runs until resumed.',
    /* GraphQL */ `
      mutation PauseSubscription($id: ID!) {
        pauseSubscription(id: $id) {
          id: subscriptionId
          status
          nextRunAt
        }
      }
    `,
  ),
  move(
    'resume',
    'Runs again from the next tick after now; ticks missed while paused are not run.',
    /* GraphQL */ `
      mutation ResumeSubscription($id: ID!) {
        resumeSubscription(id: $id) {
          id: subscriptionId
          status
          nextRunAt
        }
      }
    `,
  ),
  move(
    'cancel',
    'Stops the runs for good; the run stream ends.',
    /* GraphQL */ `
      mutation CancelSubscription($id: ID!) {
        cancelSubscription(id: $id) {
          id: subscriptionId
          status
          nextRunAt
        }
      }
    `,
  ),
  {
    method: 'GET',
    path: '/subscriptions/:id/runs',
    bucket: bucket('subscriptions_runs', 60),
    auth: 'agent',
    status: 200,
    tag: 'Subscriptions',
    summary: "A subscription's runs, newest first",
    errors: [404],
    document: /* GraphQL */ `
      query SubscriptionRuns($id: ID!, $first: Int, $offset: Int) {
        subscriptionRuns(id: $id, first: $first, offset: $offset) {
          total: totalCount
          runs: nodes {
            run_id: runId
            sequence
            scheduled_for: scheduledFor
            status
            execution_id: executionId
            result
            error
            started_at: startedAt
            finished_at: finishedAt
          }
        }
      }
    `,
    variables: {
      id: from.path('id'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/subscriptions/:id/events',
    bucket: bucket('subscriptions_events', 60),
    auth: 'agent',
    status: 200,
    tag: 'Subscriptions',
    summary: "A subscription's runs as Server-Sent Events",
    description:
      'Runs `Subscription.capabilitySubscriptionRuns`: one `event: run` message per finished run, `id` its sequence and `data` the run; `Last-Event-ID` replays the runs after it first. The stream ends (`event: end`) once the subscription is cancelled. At most STREAMS_PER_AGENT open streams per agent (429 beyond).',
    errors: [404, 429],
    document: /* GraphQL */ `
      subscription CapabilitySubscriptionRuns($id: ID!, $after: Int) {
        capabilitySubscriptionRuns(id: $id, after: $after) {
          id
          event
          run_id: runId
          subscription_id: subscriptionId
          sequence
          scheduled_for: scheduledFor
          status
          execution_id: executionId
          result
          error
          finished_at: finishedAt
        }
      }
    `,
    variables: { id: from.path('id'), after: from.header('Last-Event-ID', 'Resume after this run sequence') },
  },
];
