// A UTO ticket: its state and history, and its matches; cancelled while it is not finished.
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { ConfirmButton, ErrorNote, Facts, Json, Loaded, Page, Section, Status, Table, Time } from '../../ui';

const UtoDetail = graphql(`
  query ConsoleUtoTicket($id: String!) {
    utoTicket(id: $id) {
      ticketId
      intent
      domain
      state
      requiredCapabilities
      maxBudgetUsd
      deadline
      context
      matches
      stateHistory {
        from
        to
        at
        by
        triggeredBy
        note
      }
    }
  }
`);

const AdvanceUto = graphql(`
  mutation ConsoleAdvanceUtoTicket($id: String!, $input: AdvanceUtoTicketInput!) {
    advanceUtoTicket(id: $id, input: $input) {
      ticketId
      state
    }
  }
`);

/** The states a ticket is finished in (nothing moves it on). */
const UTO_FINISHED = ['completed', 'failed', 'cancelled', 'expired'];

export function UtoTicketPage({ id }: { id: string }) {
  const [result, refetch] = useQuery({ query: UtoDetail, variables: { id } });
  const [advanced, advance] = useMutation(AdvanceUto);
  const open = !!result.data && !UTO_FINISHED.includes(result.data.utoTicket.state);
  const actions = open ? (
    <ConfirmButton
      question="Cancel this ticket?"
      action={async () => {
        await advance({ id, input: { targetState: 'cancelled', triggeredBy: 'external', note: 'cancelled from the console' } });
        refetch({ requestPolicy: 'network-only' });
      }}
    >
      Cancel the ticket
    </ConfirmButton>
  ) : undefined;
  return (
    <Page title={result.data?.utoTicket.intent ?? id} actions={actions}>
      {advanced.error && <ErrorNote error={advanced.error} />}
      <Loaded result={result}>
        {({ utoTicket: t }) => (
          <>
            <Facts
              items={[
                ['Ticket', <code key="i">{t.ticketId}</code>],
                ['Domain', t.domain],
                ['State', <Status key="s" value={t.state} />],
                ['Capabilities', t.requiredCapabilities.join(', ')],
                ['Budget', t.maxBudgetUsd === null ? null : `$${t.maxBudgetUsd}`],
                ['Deadline', <Time key="d" at={t.deadline} />],
              ]}
            />
            <Section title="History">
              <Table
                caption="State changes"
                rows={t.stateHistory}
                rowKey={(h) => `${h.at} ${h.to}`}
                columns={[
                  { label: 'When', cell: (h) => <Time at={h.at} /> },
                  { label: 'From', cell: (h) => h.from ?? '—' },
                  { label: 'To', cell: (h) => h.to },
                  { label: 'By', cell: (h) => h.by },
                  { label: 'Why', cell: (h) => h.note ?? h.triggeredBy },
                ]}
              />
            </Section>
            <Section title="Matches">
              <Json value={t.matches} />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}
