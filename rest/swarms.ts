// REST routes of swarm sessions (spec §4.10).
import { bucket, from, type Route } from './route';

const stepFields = /* GraphQL */ `
  fragment SwarmStepFields on SwarmStep {
    id: stepId
    ordinal
    capability
    input
    provider
    status
    execution_id: executionId
    result
    error
    cost_cents: costCents
    attempts
    started_at: startedAt
    finished_at: finishedAt
  }
`;
const sessionFields = /* GraphQL */ `
  fragment SwarmSessionFields on SwarmSession {
    session_id: sessionId
    goal
    strategy
    status
    step_count: stepCount
    completed_steps: completedSteps
    failed_steps: failedSteps
    finished_at: finishedAt
    created_at: createdAt
    updated_at: updatedAt
  }
`;

export const swarmRoutes: Route[] = [
  {
    method: 'POST',
    path: '/swarm/sessions',
    bucket: bucket('swarm_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Swarms',
    summary: 'Start a swarm',
    description:
      "`goal` (≤ 2000 characters), `strategy` `sequential` or `parallel`, and `steps`: 1 to 20 of `{ capability, input?, provider? }`. The marketplace executes the steps for the caller through execute (ranked with fallback, or exactly `provider`; recorded and billed as the caller's executions). Sequential steps run in order, each once every step before it succeeded (a failure skips the rest); a string `$previous` in a step's input (or `$previous.path`, `$steps.N`, `$steps.N.path`) is replaced by an earlier step's result. Parallel steps run at once, at most 10 of one swarm at a time. Steps are claimed from the database: a swarm whose instance stops finishes on another or after a restart, and a step whose call was recorded never runs again. At most 10 running swarms per agent (409 beyond). `swarm.completed` goes to the caller's webhooks when it ends, however it ends.",
    errors: [409],
    document: /* GraphQL */ `
      mutation CreateSwarmSession($input: CreateSwarmSessionInput!) {
        createSwarmSession(input: $input) {
          ...SwarmSessionFields
          steps {
            ...SwarmStepFields
          }
        }
      }
      ${sessionFields}
      ${stepFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/swarm/sessions',
    bucket: bucket('swarm_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Swarms',
    summary: "The caller's swarms, newest first",
    document: /* GraphQL */ `
      query SwarmSessions($status: String, $first: Int, $offset: Int) {
        swarmSessions(status: $status, first: $first, offset: $offset) {
          total: totalCount
          sessions: nodes {
            ...SwarmSessionFields
          }
        }
      }
      ${sessionFields}
    `,
    variables: {
      status: from.query('status', 'running, completed, failed or cancelled'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/swarm/sessions/:id',
    bucket: bucket('swarm_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Swarms',
    summary: 'A swarm with each step’s status, result or error, and execution',
    errors: [404],
    document: /* GraphQL */ `
      query SwarmSession($id: String!) {
        swarmSession(id: $id) {
          ...SwarmSessionFields
          steps {
            ...SwarmStepFields
          }
        }
      }
      ${sessionFields}
      ${stepFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/swarm/sessions/:id/cancel',
    bucket: bucket('swarm_cancel', 60),
    auth: 'agent',
    status: 200,
    tag: 'Swarms',
    summary: 'Cancel a running swarm',
    description:
      'Steps not yet finished are cancelled (a call in flight is recorded among the executions, not applied to the step). Moves: running → completed, failed or cancelled; the others are final (409).',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation CancelSwarmSession($id: String!) {
        cancelSwarmSession(id: $id) {
          ...SwarmSessionFields
          steps {
            ...SwarmStepFields
          }
        }
      }
      ${sessionFields}
      ${stepFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'GET',
    path: '/swarm/sessions/:id/events',
    bucket: bucket('swarm_events', 60),
    auth: 'agent',
    status: 200,
    tag: 'Swarms',
    summary: "A swarm's progress as Server-Sent Events",
    description:
      'Runs `Subscription.swarmEvents`: an `event: step` message per finished step (in the order they finished), then one named for the end (`completed`, `failed` or `cancelled`), each with `id` its sequence; `Last-Event-ID` replays the events after it first; the stream then ends (`event: end`). At most STREAMS_PER_AGENT open streams per agent (429 beyond).',
    errors: [404, 429],
    document: /* GraphQL */ `
      subscription SwarmEvents($id: String!, $after: Int) {
        swarmEvents(sessionId: $id, after: $after) {
          id
          event
          session_id: sessionId
          status
          completed_steps: completedSteps
          at
          step {
            ...SwarmStepFields
          }
        }
      }
      ${stepFields}
    `,
    variables: { id: from.path('id'), after: from.header('Last-Event-ID', 'Resume after this event id') },
  },
];
