// Agents for the administrator, by name and status: suspended (with the whole tree of sub-agents) or restored.
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import type { AgentStatus } from '../../gql/graphql';
import { Link, seg } from '../../router';
import { ErrorNote, Loaded, Page, Paged, SelectField, Status, TextField, Time, useFilter, usePages } from '../../ui';

const SetStatus = graphql(`
  mutation ConsoleAgentStatus($agentId: ID!, $input: UpdateAgentStatusInput!) {
    updateAgentStatus(agentId: $agentId, input: $input) {
      agentId
      status
      effectiveStatus
      updated
    }
  }
`);

const AdminAgents = graphql(`
  query ConsoleAdminAgents($status: AgentStatus, $name: String, $after: String) {
    adminAgents(status: $status, name: $name, first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        agentId
        name
        status
        effectiveStatus
        effectiveStatusImposedBy
        parentId
        reputation
        createdAt
      }
    }
  }
`);

export function AdminAgentsPage() {
  const pages = usePages();
  const [status, setStatus] = useFilter(pages);
  const [name, setName] = useFilter(pages);
  const [result, refetch] = useQuery({
    query: AdminAgents,
    variables: { status: (status || null) as AgentStatus | null, name: name.trim() || null, after: pages.after },
  });
  const [changed, change] = useMutation(SetStatus);
  const set = async (agentId: string, to: AgentStatus) => {
    const answer = await change({ agentId, input: { status: to } });
    if (answer.data) refetch({ requestPolicy: 'network-only' });
  };
  return (
    <Page title="Agents" intro="A suspension or ban reaches the agent's whole tree of sub-agents at once; restoring lifts what was set on it.">
      <div className="filters">
        <TextField label="Name starts with" type="search" value={name} onChange={(e) => setName(e.target.value)} />
        <SelectField
          label="Status"
          value={status}
          options={[
            ['', 'Any status'],
            ['ACTIVE', 'Active'],
            ['SUSPENDED', 'Suspended'],
            ['BANNED', 'Banned'],
          ]}
          onChange={(e) => setStatus(e.target.value)}
        />
      </div>
      {changed.error && <ErrorNote error={changed.error} />}
      <Loaded result={result}>
        {({ adminAgents }) => (
          <>
            <p className="muted" role="status">
              {adminAgents.totalCount.toLocaleString()} agents
            </p>
            <Paged
              connection={adminAgents}
              pages={pages}
              caption="Agents, newest first"
              rowKey={(a) => a.agentId}
              columns={[
                { label: 'Agent', cell: (a) => <Link to={`/agents/${seg(a.agentId)}`}>{a.name}</Link> },
                { label: 'Status', cell: (a) => <Status value={a.status} /> },
                {
                  label: 'In force',
                  cell: (a) =>
                    a.effectiveStatusImposedBy ? (
                      <>
                        {a.effectiveStatus} (by <code>{a.effectiveStatusImposedBy}</code>)
                      </>
                    ) : (
                      a.effectiveStatus
                    ),
                },
                { label: 'Sub-agent of', cell: (a) => (a.parentId ? <code>{a.parentId}</code> : '—') },
                { label: 'Reputation', cell: (a) => a.reputation, numeric: true },
                { label: 'Registered', cell: (a) => <Time at={a.createdAt} /> },
                {
                  label: 'Actions',
                  cell: (a) =>
                    a.status === 'ACTIVE' ? (
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Suspend ${a.name}`}
                        disabled={changed.fetching}
                        onClick={() => void set(a.agentId, 'SUSPENDED')}
                      >
                        Suspend
                      </button>
                    ) : (
                      <button
                        type="button"
                        className="secondary"
                        aria-label={`Restore ${a.name}`}
                        disabled={changed.fetching}
                        onClick={() => void set(a.agentId, 'ACTIVE')}
                      >
                        Restore
                      </button>
                    ),
                },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}
