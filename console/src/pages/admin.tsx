// The administrator's pages, signed in with the admin key: the marketplace's figures and revenue, disputes
// to decide, and agents to suspend or restore.
import { useState } from 'react';
import { useMutation, useQuery } from '../data';
import { graphql } from '../gql';
import type { AgentStatus } from '../gql/graphql';
import { Link, seg } from '../router';
import { ErrorNote, Facts, Loaded, Money, Page, Paged, Section, SelectField, Status, Table, TextField, Time, useFilter, usePages } from '../ui';

const Overview = graphql(`
  query ConsoleAdminOverview($days: Int) {
    adminStats {
      agents {
        total
        active
        suspended
        banned
        subAgents
      }
      services {
        total
        active
      }
      executions {
        total
        succeeded
        failed
        last30d
      }
      disputes {
        total
        open
      }
      subKeys {
        total
        live
      }
      capabilities
    }
    adminRevenue(days: $days) {
      days
      totals {
        executions
        paidExecutions
        grossCents
        refundsCents
        netCents
      }
      fees {
        asset
        feeBps
        fees
        refunded
        net
      }
      byDay {
        day
        grossCents
        refundsCents
        netCents
        fees
      }
      byCapability {
        capability
        executions
        grossCents
        netCents
      }
    }
  }
`);

export function AdminPage() {
  const [days, setDays] = useState('30');
  const [result] = useQuery({ query: Overview, variables: { days: Number(days) } });
  return (
    <Page title="Administration">
      <Loaded result={result}>
        {({ adminStats: s, adminRevenue: r }) => (
          <>
            <Facts
              items={[
                ['Agents', `${s.agents.total.toLocaleString()} (${s.agents.active} active, ${s.agents.suspended} suspended, ${s.agents.banned} banned)`],
                ['Services', `${s.services.total.toLocaleString()} (${s.services.active} active)`],
                ['Executions', `${s.executions.total.toLocaleString()} (${s.executions.last30d.toLocaleString()} in 30 days)`],
                ['Disputes', `${s.disputes.total} (${s.disputes.open} open)`],
                ['Sub-keys', `${s.subKeys.live} live of ${s.subKeys.total}`],
                ['Capabilities', s.capabilities],
              ]}
            />
            <Section title="Revenue">
              <SelectField
                label="Over"
                value={days}
                options={[
                  ['7', 'The last 7 days'],
                  ['30', 'The last 30 days'],
                  ['90', 'The last 90 days'],
                ]}
                onChange={(e) => setDays(e.target.value)}
              />
              <Facts
                items={[
                  ['Gross', <Money key="g" cents={r.totals.grossCents} />],
                  ['Refunds', <Money key="r" cents={r.totals.refundsCents} />],
                  ['Net', <Money key="n" cents={r.totals.netCents} />],
                  ['Paid executions', `${r.totals.paidExecutions.toLocaleString()} of ${r.totals.executions.toLocaleString()}`],
                  ['Fees', `${r.fees.fees} ${r.fees.asset} at ${(r.fees.feeBps / 100).toFixed(2)}%`],
                ]}
              />
              <Table
                caption="Revenue by day"
                rows={r.byDay}
                rowKey={(d) => d.day}
                columns={[
                  { label: 'Day', cell: (d) => d.day },
                  { label: 'Gross', cell: (d) => <Money cents={d.grossCents} />, numeric: true },
                  { label: 'Refunds', cell: (d) => <Money cents={d.refundsCents} />, numeric: true },
                  { label: 'Net', cell: (d) => <Money cents={d.netCents} />, numeric: true },
                  { label: 'Fees', cell: (d) => d.fees, numeric: true },
                ]}
              />
            </Section>
            <Section title="Revenue by capability">
              <Table
                caption="Revenue by capability"
                rows={r.byCapability}
                rowKey={(c) => c.capability}
                columns={[
                  { label: 'Capability', cell: (c) => <Link to={`/capabilities/${seg(c.capability)}`}>{c.capability}</Link> },
                  { label: 'Executions', cell: (c) => c.executions.toLocaleString(), numeric: true },
                  { label: 'Gross', cell: (c) => <Money cents={c.grossCents} />, numeric: true },
                  { label: 'Net', cell: (c) => <Money cents={c.netCents} />, numeric: true },
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}

const AdminDisputes = graphql(`
  query ConsoleAdminDisputes($status: String, $after: String) {
    adminDisputes(status: $status, first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        disputeId
        agentId
        providerAgentId
        serviceId
        form
        type
        reason
        description
        status
        resolved
        resolution
        refundCents
        priorityResolution
        createdAt
      }
    }
  }
`);

const Decide = graphql(`
  mutation ConsoleResolveDispute($id: ID!, $input: ResolveDisputeInput!) {
    resolveDispute(id: $id, input: $input) {
      disputeId
      status
      resolved
      resolution
      refundCents
    }
  }
`);

export function AdminDisputesPage() {
  const pages = usePages();
  const [status, setStatus] = useFilter(pages);
  const [result, refetch] = useQuery({ query: AdminDisputes, variables: { status: status || null, after: pages.after } });
  const [decided, decide] = useMutation(Decide);
  const [deciding, setDeciding] = useState<{ id: string; resolution: string; refund: string } | null>(null);
  return (
    <Page title="Disputes to decide">
      <SelectField
        label="Show"
        value={status}
        options={[
          ['', 'Every dispute, newest first'],
          ['under_review', 'Waiting for a decision (priority first, then oldest)'],
          ['open', 'Not yet reviewed'],
          ['resolved', 'Resolved'],
        ]}
        onChange={(e) => setStatus(e.target.value)}
      />
      {deciding && (
        <Section title="Decide">
          <form
            className="form"
            onSubmit={async (e) => {
              e.preventDefault();
              const refund = deciding.refund.trim() ? Math.round(Number(deciding.refund) * 100) : undefined;
              const answer = await decide({ id: deciding.id, input: { resolution: deciding.resolution.trim(), ...(refund !== undefined ? { refundCents: refund } : {}) } });
              if (answer.data) {
                setDeciding(null);
                refetch({ requestPolicy: 'network-only' });
              }
            }}
          >
            <TextField label="Decision" value={deciding.resolution} onChange={(e) => setDeciding({ ...deciding, resolution: e.target.value })} required />
            <TextField label="Refund (dollars)" inputMode="decimal" value={deciding.refund} onChange={(e) => setDeciding({ ...deciding, refund: e.target.value })} hint="Empty for none" />
            {decided.error && <ErrorNote error={decided.error} />}
            <div className="actions">
              <button type="submit" disabled={decided.fetching}>
                Resolve
              </button>
              <button type="button" className="secondary" onClick={() => setDeciding(null)}>
                Cancel
              </button>
            </div>
          </form>
        </Section>
      )}
      <Loaded result={result}>
        {({ adminDisputes }) => (
          <>
            <Paged
              connection={adminDisputes}
              pages={pages}
              caption="Disputes"
              rowKey={(d) => d.disputeId}
              columns={[
                { label: 'Opened', cell: (d) => <Time at={d.createdAt} /> },
                { label: 'By', cell: (d) => <Link to={`/agents/${seg(d.agentId)}`}>agent</Link> },
                { label: 'About', cell: (d) => d.type ?? d.reason ?? '—' },
                { label: 'Description', cell: (d) => d.description ?? '' },
                { label: 'Status', cell: (d) => <Status value={d.status} /> },
                { label: 'Priority', cell: (d) => (d.priorityResolution ? 'yes' : 'no') },
                {
                  label: 'Actions',
                  cell: (d) =>
                    d.resolved ? (
                      (d.resolution ?? 'resolved')
                    ) : (
                      <button type="button" className="secondary" aria-label={`Decide the dispute opened ${new Date(d.createdAt).toLocaleString()}`} onClick={() => setDeciding({ id: d.disputeId, resolution: '', refund: '' })}>
                        Decide
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
  const [result, refetch] = useQuery({ query: AdminAgents, variables: { status: (status || null) as AgentStatus | null, name: name.trim() || null, after: pages.after } });
  const [changed, change] = useMutation(SetStatus);
  const set = async (agentId: string, to: AgentStatus) => {
    const answer = await change({ agentId, input: { status: to } });
    if (answer.data) refetch({ requestPolicy: 'network-only' });
  };
  return (
    <Page title="Agents" intro="A suspension or ban reaches the agent's whole tree of sub-agents at once; restoring lifts what was set on it.">
      <div className="filters">
        <TextField
          label="Name starts with"
          type="search"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
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
                { label: 'In force', cell: (a) => (a.effectiveStatusImposedBy ? <>{a.effectiveStatus} (by <code>{a.effectiveStatusImposedBy}</code>)</> : a.effectiveStatus) },
                { label: 'Sub-agent of', cell: (a) => (a.parentId ? <code>{a.parentId}</code> : '—') },
                { label: 'Reputation', cell: (a) => a.reputation, numeric: true },
                { label: 'Registered', cell: (a) => <Time at={a.createdAt} /> },
                {
                  label: 'Actions',
                  cell: (a) =>
                    a.status === 'ACTIVE' ? (
                      <button type="button" className="danger" aria-label={`Suspend ${a.name}`} disabled={changed.fetching} onClick={() => void set(a.agentId, 'SUSPENDED')}>
                        Suspend
                      </button>
                    ) : (
                      <button type="button" className="secondary" aria-label={`Restore ${a.name}`} disabled={changed.fetching} onClick={() => void set(a.agentId, 'ACTIVE')}>
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

const Outbox = graphql(`
  query ConsoleAdminOutbox {
    adminOutbox {
      unrelayed
      oldestUnrelayedSeconds
      checkedAt
      kinds {
        kind
        pending
        due
        sending
        failed
        oldestDueSeconds
      }
    }
  }
`);

export function AdminOutboxPage() {
  const [result, refetch] = useQuery({ query: Outbox });
  return (
    <Page
      title="Outbox"
      intro="What waits to leave: events not yet relayed to live streams, and deliveries (webhooks, ticket forwards and callbacks, subscription runs) by state."
      actions={
        <button type="button" className="secondary" onClick={() => refetch({ requestPolicy: 'network-only' })}>
          Read again
        </button>
      }
    >
      <Loaded result={result}>
        {({ adminOutbox: o }) => (
          <>
            <Facts
              items={[
                ['Events waiting to be relayed', o.unrelayed.toLocaleString()],
                ['The oldest of them', o.unrelayed ? `${o.oldestUnrelayedSeconds} s` : '—'],
                ['Read', <Time key="t" at={o.checkedAt} />],
              ]}
            />
            <Table
              caption="Deliveries by kind"
              rows={o.kinds}
              rowKey={(k) => k.kind}
              columns={[
                { label: 'Kind', cell: (k) => k.kind },
                { label: 'Waiting', cell: (k) => k.pending.toLocaleString(), numeric: true },
                { label: 'Due now', cell: (k) => k.due.toLocaleString(), numeric: true },
                { label: 'Late by', cell: (k) => (k.due ? `${k.oldestDueSeconds} s` : '—'), numeric: true },
                { label: 'Sending', cell: (k) => k.sending.toLocaleString(), numeric: true },
                { label: 'Given up', cell: (k) => k.failed.toLocaleString(), numeric: true },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}
