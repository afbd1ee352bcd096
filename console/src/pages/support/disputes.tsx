// The disputes the agent opened, and what was decided.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { Loaded, Money, Page, Paged, Status, Time, usePages } from '../../ui';

const Disputes = graphql(`
  query ConsoleDisputes($after: String) {
    myDisputes(first: 25, after: $after) {
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        disputeId
        form
        type
        reason
        description
        status
        resolved
        resolution
        refundCents
        serviceId
        executionId
        createdAt
        resolvedAt
      }
    }
  }
`);

export function DisputesPage() {
  const pages = usePages();
  const [result] = useQuery({ query: Disputes, variables: { after: pages.after } });
  return (
    <Page
      title="Disputes"
      intro="Disputes you opened about a service or a charge, and what was decided."
      actions={<Link to="/disputes/new">Open a dispute</Link>}
    >
      <Loaded result={result}>
        {({ myDisputes }) => (
          <Paged
            connection={myDisputes}
            pages={pages}
            caption="Your disputes"
            rowKey={(d) => d.disputeId}
            columns={[
              { label: 'Opened', cell: (d) => <Time at={d.createdAt} /> },
              { label: 'About', cell: (d) => d.type ?? d.reason ?? '—' },
              { label: 'Description', cell: (d) => d.description ?? '' },
              { label: 'Status', cell: (d) => <Status value={d.status} /> },
              { label: 'Decision', cell: (d) => (d.resolved ? (d.resolution ?? 'resolved') : '—') },
              { label: 'Refund', cell: (d) => (d.resolved ? <Money cents={d.refundCents} /> : '—'), numeric: true },
              { label: 'Execution', cell: (d) => (d.executionId ? <Link to={`/executions/${seg(d.executionId)}`}>receipt</Link> : '—') },
            ]}
          />
        )}
      </Loaded>
    </Page>
  );
}
