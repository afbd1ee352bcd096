// The agent's executions, newest first, read again as its execution events arrive.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { useRefetchOnEvents } from '../../live';
import { LiveBadge, Loaded, Money, Page, Paged, Status, Time, usePages } from '../../ui';

const Executions = graphql(`
  query ConsoleExecutions($after: String) {
    myExecutions(first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        executionId
        capability
        status
        mode
        costCents
        latencyMs
        createdAt
        attempts {
          ordinal
        }
      }
    }
  }
`);

export function ExecutionsPage() {
  const pages = usePages();
  const [result, refetch] = useQuery({ query: Executions, variables: { after: pages.after } });
  // New executions appear as they are recorded.
  const live = useRefetchOnEvents(['execution.'], () => refetch({ requestPolicy: 'network-only' }));
  return (
    <Page
      title="Executions"
      intro="Every capability your agent executed, newest first; open one for its receipt."
      actions={
        <>
          <LiveBadge status={live} />
          <Link to="/executions/new">Execute a capability</Link>
        </>
      }
    >
      <Loaded result={result}>
        {({ myExecutions }) => (
          <>
            <Paged
              connection={myExecutions}
              pages={pages}
              caption="Your executions"
              rowKey={(x) => x.executionId}
              columns={[
                { label: 'When', cell: (x) => <Link to={`/executions/${seg(x.executionId)}`}>{<Time at={x.createdAt} />}</Link> },
                { label: 'Capability', cell: (x) => x.capability },
                { label: 'Status', cell: (x) => <Status value={x.status} /> },
                { label: 'Attempts', cell: (x) => x.attempts.length, numeric: true },
                { label: 'Cost', cell: (x) => <Money cents={x.costCents} />, numeric: true },
                { label: 'Latency', cell: (x) => `${x.latencyMs} ms`, numeric: true },
              ]}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}
