// REST routes of the agents area (spec §4.1).
import { bucket, from, type Route } from './route';

/** The profile shape of GET /agents/me and PATCH /agents/me. */
const agentProfile = /* GraphQL */ `
  fragment AgentProfile on Agent {
    agent_id: agentId
    agent_key: agentKey
    name
    description
    reputation_score: reputation
    tier
    status
    autonomy_level: autonomyLevel
    capabilities
    created_at: createdAt
    updated_at: updatedAt
  }
`;

export const agentRoutes: Route[] = [
  {
    method: 'POST',
    path: '/agents/register',
    bucket: bucket('agents_register', 30),
    auth: 'none',
    status: 201,
    tag: 'Agents',
    summary: 'Register an agent',
    description: 'Creates an agent and returns its master key. The master key is shown only in this response and stored only as a hash.',
    errors: [409],
    document: /* GraphQL */ `mutation RegisterAgent($input: RegisterAgentInput!) {
      registerAgent(input: $input) {
        agent { agent_id: agentId name reputation tier }
        agent_key: agentKey
        master_key: masterKey
      }
    }`,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/agents/me',
    bucket: bucket('agents_me_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Agents',
    summary: "The calling agent's profile",
    document: /* GraphQL */ `query Me { me { ...AgentProfile } } ${agentProfile}`,
  },
  {
    method: 'PATCH',
    path: '/agents/me',
    bucket: bucket('agents_me_update', 60),
    auth: 'agent',
    status: 200,
    tag: 'Agents',
    summary: "Update the calling agent's profile",
    description: 'Any of `name`, `description`, `capabilities`; publishes an `agent.updated` event.',
    errors: [409],
    document: /* GraphQL */ `mutation UpdateMe($input: UpdateMeInput!) { updateMe(input: $input) { ...AgentProfile } } ${agentProfile}`,
    variables: { input: from.body },
  },
];
