// The outbox for the administrator: events waiting to be relayed to live streams, and deliveries by state.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { Facts, Loaded, Page, Table, Time } from '../../ui';

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
