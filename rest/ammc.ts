// REST routes of agent conglomerates (AMMC, spec §4.11).
import { bucket, from, type Route } from './route';

const conglomerateFields = /* GraphQL */ `
  fragment ConglomerateFields on Conglomerate {
    id: conglomerateId
    goal
    conglomerate_type: conglomerateType
    state
    max_budget_usd: maxBudgetUsd
    exit_conditions: exitConditions {
      deadline
      max_loss_usd: maxLossUsd
      profit_target_usd: profitTargetUsd
    }
    founder_agent_id: founderAgentId
    members
    balance_usd: balanceUsd
    realised_pnl_usd: realisedPnlUsd
    trades
    executions
    state_history: stateHistory {
      from
      to
      triggered_by: triggeredBy
      by
      at
      reason
    }
    end_reason: endReason
    operating_at: operatingAt
    ended_at: endedAt
    created_at: createdAt
    updated_at: updatedAt
  }
`;
const entryFields = /* GraphQL */ `
  fragment ConglomerateEntryFields on ConglomerateEntry {
    id: entryId
    conglomerate_id: conglomerateId
    agent_id: agentId
    kind
    cost_usd: costUsd
    proceeds_usd: proceedsUsd
    pnl_usd: pnlUsd
    execution_id: executionId
    description
    created_at: createdAt
  }
`;

const SHARPE_FORMULA =
  "The Sharpe ratio is that of the daily returns, annualised with a risk-free rate of 0: mean(r) / s(r) × √365, s the sample standard deviation (n − 1). The days run from the day the conglomerate began operating to the last day with activity, every UTC day counted (a day without activity returns 0); a day's return is its profit and loss over the equity it began with, r_d = pnl_d / (budget + the profit and loss of the days before d). `sharpe_ratio` is null with fewer than two returns, or when s is 0.";

export const ammcRoutes: Route[] = [
  {
    method: 'GET',
    path: '/ammc/agents',
    bucket: bucket('ammc_agents', 60),
    auth: 'none',
    status: 200,
    tag: 'Conglomerates',
    summary: 'Agents that may join conglomerates',
    description:
      "Active agents registered here and the external agents of the gateway, best reputation first, each with its `source` (`marketplace`: registered here; `external`: reach it through delegations). `capability` narrows to agents that list it, `source` to one of the two; the answer's top-level `source` says which the list covers (`all`, `marketplace` or `external`).",
    document: /* GraphQL */ `
      query AmmcAgents($capability: String, $source: String, $first: Int, $offset: Int) {
        ammcAgents(capability: $capability, source: $source, first: $first, offset: $offset) {
          total: totalCount
          source
          agents: nodes {
            agent_id: agentId
            name
            description
            reputation
            tier
            capabilities
            source
          }
        }
      }
    `,
    variables: {
      capability: from.query('capability', 'Only agents that list this capability'),
      source: from.query('source', 'marketplace, external or all (default)'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'POST',
    path: '/ammc/conglomerates',
    bucket: bucket('ammc_create', 60),
    auth: 'agent',
    status: 201,
    tag: 'Conglomerates',
    summary: 'Form a conglomerate',
    description:
      '`goal` and `max_budget_usd` (dollars, two decimals, more than 0) required; `exit_conditions` (`deadline` within a year, `max_loss_usd` at most the budget, `profit_target_usd` at most 20,000,000), `conglomerate_type` (`DEFI`, `COMMERCE` or `COLLABORATION`, the default) and `members` (ids of active agents, ≤ 50) optional. The caller is its founder; it starts `FORMING`. `ammc.conglomerate.state_changed` goes to the founder and every member at each move. At most 100 forming or operating per founder (409 beyond).',
    errors: [409],
    document: /* GraphQL */ `
      mutation CreateConglomerate($input: CreateConglomerateInput!) {
        createConglomerate(input: $input) {
          ...ConglomerateFields
        }
      }
      ${conglomerateFields}
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/ammc/conglomerates',
    bucket: bucket('ammc_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Conglomerates',
    summary: 'The conglomerates the caller founded or belongs to, newest first',
    document: /* GraphQL */ `
      query Conglomerates($state: String, $first: Int, $offset: Int) {
        conglomerates(state: $state, first: $first, offset: $offset) {
          total: totalCount
          conglomerates: nodes {
            ...ConglomerateFields
          }
        }
      }
      ${conglomerateFields}
    `,
    variables: {
      state: from.query('state', 'FORMING, OPERATING, SETTLED or DISSOLVED'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/ammc/conglomerates/:id',
    bucket: bucket('ammc_get', 60),
    auth: 'agent',
    status: 200,
    tag: 'Conglomerates',
    summary: 'A conglomerate the caller founded or belongs to',
    errors: [404],
    document: /* GraphQL */ `
      query Conglomerate($id: String!) {
        conglomerate(id: $id) {
          ...ConglomerateFields
        }
      }
      ${conglomerateFields}
    `,
    variables: { id: from.path('id') },
  },
  {
    method: 'POST',
    path: '/ammc/conglomerates/:id/advance',
    bucket: bucket('ammc_advance', 60),
    auth: 'agent',
    status: 200,
    tag: 'Conglomerates',
    summary: 'Move a conglomerate',
    description:
      '`target_state` required (`FORMING`, `OPERATING`, `SETTLED` or `DISSOLVED`; another value is 400), `reason` optional. Moves: FORMING → OPERATING or DISSOLVED; OPERATING → SETTLED or DISSOLVED; SETTLED and DISSOLVED are final (409 for any other move, which changes nothing). Only the founder advances (a member: 403). The marketplace ends a conglomerate itself on its exit conditions: past its deadline an operating one settles and a forming one dissolves (timer); a realised loss of `max_loss_usd` dissolves it and a realised profit of `profit_target_usd` settles it (system), in the transaction of the activity that reached it.',
    errors: [403, 404, 409],
    document: /* GraphQL */ `
      mutation AdvanceConglomerate($id: String!, $input: AdvanceConglomerateInput!) {
        advanceConglomerate(id: $id, input: $input) {
          ...ConglomerateFields
        }
      }
      ${conglomerateFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'POST',
    path: '/ammc/conglomerates/:id/activity',
    bucket: bucket('ammc_activity', 60),
    auth: 'agent',
    status: 201,
    tag: 'Conglomerates',
    summary: 'Record a trade or an execution made on behalf of a conglomerate',
    description:
      "The founder or a member records activity of an OPERATING conglomerate (409 otherwise). `kind` `trade` (default): `cost_usd` required, `proceeds_usd` (what it brought back, default 0; a ledger brings back at most 20,000,000 USD in all, 409 beyond). `kind` `execution`: `execution_id`, one of the caller's own executions (404 otherwise), recorded once (409 again) at its cost. What it costs must be covered by the balance (the budget less what was spent plus what came back): 402 otherwise, and nothing is recorded. The ledger is append-only.",
    errors: [402, 404, 409],
    document: /* GraphQL */ `
      mutation RecordConglomerateActivity($id: String!, $input: RecordConglomerateActivityInput!) {
        recordConglomerateActivity(id: $id, input: $input) {
          entry {
            ...ConglomerateEntryFields
          }
          conglomerate {
            ...ConglomerateFields
          }
        }
      }
      ${entryFields}
      ${conglomerateFields}
    `,
    variables: { id: from.path('id'), input: from.body },
  },
  {
    method: 'GET',
    path: '/ammc/conglomerates/:id/activity',
    bucket: bucket('ammc_activity_list', 60),
    auth: 'agent',
    status: 200,
    tag: 'Conglomerates',
    summary: "A conglomerate's ledger, newest first",
    errors: [404],
    document: /* GraphQL */ `
      query ConglomerateActivity($id: String!, $first: Int, $offset: Int) {
        conglomerateActivity(id: $id, first: $first, offset: $offset) {
          total: totalCount
          entries: nodes {
            ...ConglomerateEntryFields
          }
        }
      }
      ${entryFields}
    `,
    variables: {
      id: from.path('id'),
      first: from.query('limit', 'Items to return, 1-100 (default 20)'),
      offset: from.query('offset', 'Items to skip (default 0)'),
    },
  },
  {
    method: 'GET',
    path: '/ammc/stats',
    bucket: bucket('ammc_stats', 60),
    auth: 'agent',
    status: 200,
    tag: 'Conglomerates',
    summary: 'Trades, balance, profit and loss and the Sharpe ratio',
    description: `Of one conglomerate (\`conglomerate_id\`, founded by or including the caller; 404 otherwise) or of all the caller founded or belongs to, taken as one pool (budgets summed). ${SHARPE_FORMULA}`,
    errors: [404],
    document: /* GraphQL */ `
      query AmmcStats($conglomerateId: String) {
        ammcStats(conglomerateId: $conglomerateId) {
          conglomerates
          trades
          executions
          budget_usd: budgetUsd
          spent_usd: spentUsd
          proceeds_usd: proceedsUsd
          balance_usd: balanceUsd
          realised_pnl_usd: realisedPnlUsd
          sharpe_ratio: sharpeRatio
          daily_returns: dailyReturns {
            day
            return
          }
        }
      }
    `,
    variables: { conglomerateId: from.query('conglomerate_id', 'One conglomerate (default: all of the caller’s)') },
  },
];
