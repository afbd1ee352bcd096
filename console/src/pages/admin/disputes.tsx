// Disputes for the administrator: every one or the review queue, each decided with a refund.
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { ErrorNote, Loaded, Page, Paged, Section, SelectField, Status, TextField, Time, useFilter, usePages } from '../../ui';

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
              const answer = await decide({
                id: deciding.id,
                input: { resolution: deciding.resolution.trim(), ...(refund !== undefined ? { refundCents: refund } : {}) },
              });
              if (answer.data) {
                setDeciding(null);
                refetch({ requestPolicy: 'network-only' });
              }
            }}
          >
            <TextField label="Decision" value={deciding.resolution} onChange={(e) => setDeciding({ ...deciding, resolution: e.target.value })} required />
            <TextField
              label="Refund (dollars)"
              inputMode="decimal"
              value={deciding.refund}
              onChange={(e) => setDeciding({ ...deciding, refund: e.target.value })}
              hint="Empty for none"
            />
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
                      <button
                        type="button"
                        className="secondary"
                        aria-label={`Decide the dispute opened ${new Date(d.createdAt).toLocaleString()}`}
                        onClick={() => setDeciding({ id: d.disputeId, resolution: '', refund: '' })}
                      >
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
