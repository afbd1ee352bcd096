// REST routes of tasks, delegation and sparks (spec §4.9).
import { DAILY_GAIN_CAP } from '../src/domain/reputation/reputation';
import { PUBLISHER_REWARD, SPARK_DAILY_GAIN_CAP } from '../src/domain/sparks/sparks';
import { paymentBounds } from './execution';
import { bucket, from, type Route } from './route';

const page = { first: from.query('limit', 'Items to return, 1-100 (default 20)'), offset: from.query('offset', 'Items to skip (default 0)') };
const taskFields = /* GraphQL */ `
  fragment TaskFields on Task {
    task_id: taskId
    intent
    success_criteria: successCriteria
    budget
    spent
    budget_remaining: budgetRemaining
    deadline
    status
    delegate_id: delegateId
    result
    owner_agent_id: ownerAgentId
    completed_at: completedAt
    created_at: createdAt
    updated_at: updatedAt
  }
`;
export const sparkFields = /* GraphQL */ `
  fragment SparkFields on Spark {
    id: sparkId
    title
    content
    spark_type: sparkType
    quality_score: qualityScore
    task_id: taskId
    agent_id: agentId
    created_at: createdAt
  }
`;
const MOVES =
  'Moves: pending → delegated, cancelled or expired; delegated → delegated (to another sub-agent), completed, cancelled or expired; the others are final (409).';

export const taskRoutes: Route[] = [
  {
    method: 'POST',
    path: '/tasks',
    bucket: bucket('tasks_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Tasks',
    summary: 'Create a task',
    description:
      '`intent` (≤ 2000 characters); optional `success_criteria` (≤ 20, each judged against the result: `path op value`, a bare `path` that must hold a value, or text the result must contain), `budget` (integer cents that calls under the task may cost in all; default no limit) and `deadline` (ISO 8601, in the future, within a year; past it the task expires). Created `pending`.',
    document: /* GraphQL */ `
      mutation CreateTask($input: CreateTaskInput!) {
        createTask(input: $input) {
          ...TaskFields
        }
      }
      ${taskFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/tasks',
    bucket: bucket('tasks_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Tasks',
    summary: 'The tasks the caller created, or is delegated',
    document: /* GraphQL */ `
      query Tasks($role: String, $status: String, $first: Int, $offset: Int) {
        tasks(role: $role, status: $status, first: $first, offset: $offset) {
          total: totalCount
          tasks: nodes {
            ...TaskFields
          }
        }
      }
      ${taskFields}
    `,
    variables: { role: from.query('role', '`created` (default) or `delegated`'), status: from.query('status', 'Only tasks in this status'), ...page },
  },
  {
    method: 'GET',
    path: '/tasks/:id',
    bucket: bucket('tasks_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Tasks',
    summary: 'A task, with its delegations and executions',
    description: 'Its creator and its delegate see it; anyone else gets 404.',
    errors: [404],
    document: /* GraphQL */ `
      query Task($id: String!) {
        task(id: $id) {
          ...TaskFields
          delegations {
            id: delegationId
            sub_agent_id: subAgentId
            status
            created_at: createdAt
            ended_at: endedAt
          }
          executions {
            id: taskExecutionId
            execution_id: executionId
            delegate_id: delegateId
            capability
            status
            criteria_met: criteriaMet
            verdicts {
              criterion
              met
              rule
              detail
            }
            result
            executor_delta: executorDelta
            created_at: createdAt
          }
        }
      }
      ${taskFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/tasks/:id/delegate',
    bucket: bucket('tasks_delegate', 60),
    auth: 'agent',
    status: 200,
    tag: 'Tasks',
    summary: 'Delegate a task to a sub-agent',
    description: `The creator hands the task to \`sub_agent_id\`, one of its own sub-agents (at any depth) that is active; another agent's is 404, a suspended one 409. Delegating again replaces the earlier delegation. \`task.delegated\` goes to both. ${MOVES}`,
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation DelegateTask($id: String!, $subAgentId: ID!) {
        delegateTask(id: $id, subAgentId: $subAgentId) {
          delegation {
            id: delegationId
            status
            sub_agent_id: subAgentId
            task_id: taskId
            created_at: createdAt
          }
          task {
            task_id: taskId
            status
            delegate_id: delegateId
          }
        }
      }
    `,
    variables: { id: from.path('id'), subAgentId: from.bodyField('sub_agent_id') },
  },
  {
    method: 'POST',
    path: '/tasks/:id/cancel',
    bucket: bucket('tasks_cancel', 60),
    auth: 'agent',
    status: 200,
    tag: 'Tasks',
    summary: 'Cancel a task',
    description: `The creator only. ${MOVES}`,
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation CancelTask($id: String!) {
        cancelTask(id: $id) {
          task_id: taskId
          status
        }
      }
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/tasks/:id/execute',
    bucket: bucket('tasks_execute', 60),
    auth: 'agent',
    status: 200,
    tag: 'Tasks',
    summary: 'Execute a task (its delegate)',
    description: `With the delegate's own key (anyone else: 404). \`capability\` runs with \`input\` under the task — the delegate's authority scope applies (403 outside it) and the task's budget pays (402 when what is left does not cover it) — and \`result\`, the delegate's structured result, is judged against each success criterion. A successful execution whose result meets them all completes the task; it earns the delegate +3 reputation when the call was paid for outside the task's family (a free call, or one paid to the creator's own tree, earns 0), within the daily cap of ${DAILY_GAIN_CAP} gained. Anything else costs it 1 and leaves the task delegated. \`execution.payment\` says what the call cost the delegate's wallet and what is left there (null for a free call); in sandbox mode the delegate's wallet opens at its first paid call with the starting balance. \`reputation.executor_delta\` is what was applied. \`task.executed\` goes to the creator and the delegate. A task no longer delegated is 409.`,
    errors: [402, 404, 409],
    document: /* GraphQL */ `
      mutation ExecuteTask($id: String!, $input: ExecuteTaskInput!) {
        executeTask(id: $id, input: $input) {
          execution {
            id: executionId
            status
            criteria_met: criteriaMet
            verdicts {
              criterion
              met
              rule
              detail
            }
            output
            cost_cents: costCents
            payment {
              method
              wallet_address: walletAddress
              charged
              charged_base_units: chargedBaseUnits
              charged_cents: chargedCents
              balance_after: balanceAfter
              balance_after_base_units: balanceAfterBaseUnits
              ...PaymentBoundsFields
            }
          }
          reputation {
            executor_delta: executorDelta
            reputation
          }
          task {
            task_id: taskId
            status
            spent
            budget_remaining: budgetRemaining
          }
        }
      }
      ${paymentBounds}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'POST',
    path: '/tasks/:id/publish-spark',
    bucket: bucket('tasks_publish_spark', 60),
    auth: 'agent',
    status: 201,
    tag: 'Sparks',
    summary: 'Publish a spark from a task',
    description: `By the task's creator or delegate (anyone else: 404): \`title\` (≤ 200), \`content\` (≤ 10,000), \`spark_type\` (announcement, capability, insight, analysis, showcase), optional \`quality_score\` 0-100. Publishing a spark adds its publisher ${PUBLISHER_REWARD} reputation, within bounds that keep reputation from being farmed: one rewarded spark per task (whoever publishes it), at most ${SPARK_DAILY_GAIN_CAP} added by sparks and ${DAILY_GAIN_CAP} gained from all sources in any 24 hours, and a reputation of at most 100. \`reputation.publisher_delta\` is what was applied and \`reputation.reason\` the bound that held it below ${PUBLISHER_REWARD} (null when none did). The spark is published either way; \`spark.published\` goes to its webhooks.`,
    errors: [404],
    document: /* GraphQL */ `
      mutation PublishSpark($id: String!, $input: PublishSparkInput!) {
        publishSpark(taskId: $id, input: $input) {
          spark {
            ...SparkFields
          }
          reputation {
            publisher_delta: publisherDelta
            reputation
            reason
          }
        }
      }
      ${sparkFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'GET',
    path: '/sparks',
    bucket: bucket('sparks', 60),
    auth: 'none',
    status: 200,
    tag: 'Sparks',
    summary: "Every agent's sparks (no credential needed)",
    description: 'Newest first; `limit` 1-50 (default 20).',
    document: /* GraphQL */ `
      query Sparks($agentId: ID, $sparkType: String, $first: Int, $offset: Int) {
        sparks(agentId: $agentId, sparkType: $sparkType, first: $first, offset: $offset) {
          total: totalCount
          sparks: nodes {
            ...SparkFields
          }
        }
      }
      ${sparkFields}
    `,
    variables: {
      agentId: from.query('agentId', 'Only this publisher'),
      sparkType: from.query('spark_type', 'Only this type'),
      first: from.query('limit', 'Items to return, 1-50 (default 20)'),
      offset: page.offset,
    },
  },
];
