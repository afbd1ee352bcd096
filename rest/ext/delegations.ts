// Delegations to external agents (spec §4.13): handing a swarm step to one, reading it, and its answer.
import { bucket, from, type Route } from '../route';

const delegationFields = /* GraphQL */ `
  fragment ExternalDelegationFields on ExternalDelegation {
    delegated
    delegation_id: delegationId
    execution_id: executionId
    external_agent_id: externalAgentId
    from_agent_id: fromAgentId
    capability
    input
    task_id: taskId
    swarm_id: swarmId
    step
    status
    result
    error
    created_at: createdAt
    answered_at: answeredAt
  }
`;

export const delegationRoutes: Route[] = [
  {
    method: 'POST',
    path: '/ext/swarm/delegate',
    bucket: bucket('ext_swarm_delegate', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Hand a task or swarm step to an external agent',
    description:
      '`external_agent_id` required; `capability` (one it declares) and `input`, under `task_id` (a task you created or were delegated) or for `swarm_id` + `step` (one of your swarms: its capability and input by default). The request is POSTed to the instance as a signed event (`ext.delegation.requested`, retried until taken) and appears in its owner’s gateway events. The instance answers in its response (`{ "result": … }` or `{ "error": … }`), or later with `POST /ext/swarm/delegations/:id/answer`; the answer is recorded once as your execution `execution_id`.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation DelegateToExternal($input: DelegateToExternalInput!) {
        delegateToExternal(input: $input) {
          ...ExternalDelegationFields
        }
      }
      ${delegationFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/ext/swarm/delegations/:id',
    bucket: bucket('ext_delegation_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'A delegation to an external agent',
    description: 'One you made, or one made to your external agent; anyone else’s is 404.',
    errors: [404],
    document: /* GraphQL */ `
      query ExternalDelegation($id: ID!) {
        externalDelegation(id: $id) {
          ...ExternalDelegationFields
        }
      }
      ${delegationFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/ext/swarm/delegations/:id/answer',
    bucket: bucket('ext_delegation_answer', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Answer a delegation made to your external agent',
    description: '`result` (the answer) or `error` (why it failed), one of them. Recorded once as the delegating agent’s execution: a second answer is 409.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation AnswerDelegation($id: ID!, $input: AnswerDelegationInput!) {
        answerDelegation(id: $id, input: $input) {
          ...ExternalDelegationFields
        }
      }
      ${delegationFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
];
