// The support tickets the agent filed or its services received, by status, and a new one filed.
import { useState } from 'react';
import { useMutation, useQuery, useSignedInAgent } from '../../data';
import { graphql } from '../../gql';
import { Link, navigate, seg } from '../../router';
import { TICKET_STATUSES } from './ticket-statuses';
import { ErrorNote, Loaded, Page, Paged, Section, SelectField, Status, TextArea, TextField, Time, useFilter, usePages } from '../../ui';

const Tickets = graphql(`
  query ConsoleTickets($status: String, $after: String) {
    tickets(status: $status, first: 25, after: $after) {
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        ticketKey
        subject
        type
        priority
        status
        targetService
        createdAt
        updatedAt
      }
    }
  }
`);

export function TicketsPage() {
  const pages = usePages();
  const [status, setStatus] = useFilter(pages);
  const [result] = useQuery({ query: Tickets, variables: { status: status || null, after: pages.after } });
  return (
    <Page title="Tickets" intro="Support tickets you filed, and those filed with your services.">
      <FileTicket />
      <SelectField label="Show" value={status} options={[['', 'Every ticket'], ...TICKET_STATUSES]} onChange={(e) => setStatus(e.target.value)} />
      <Loaded result={result}>
        {({ tickets }) => (
          <Paged
            connection={tickets}
            pages={pages}
            caption="Tickets"
            rowKey={(t) => t.ticketKey}
            columns={[
              { label: 'Ticket', cell: (t) => <Link to={`/tickets/${seg(t.ticketKey)}`}>{t.ticketKey}</Link> },
              { label: 'Subject', cell: (t) => t.subject },
              { label: 'Type', cell: (t) => t.type },
              { label: 'Priority', cell: (t) => t.priority },
              { label: 'Status', cell: (t) => <Status value={t.status} /> },
              { label: 'Service', cell: (t) => t.targetService ?? '—' },
              { label: 'Updated', cell: (t) => <Time at={t.updatedAt} /> },
            ]}
          />
        )}
      </Loaded>
    </Page>
  );
}

// A ticket is filed as every agent files one: by executing the marketplace's own `support-ticket`
// capability (its receipt is among the executions).
const FileTicketCall = graphql(`
  mutation ConsoleFileTicket($input: ExecuteInput!) {
    execute(input: $input) {
      executionId
      status
      error
      result
    }
  }
`);

function FileTicket() {
  const [filed, file] = useMutation(FileTicketCall);
  const me = useSignedInAgent();
  const [form, setForm] = useState({ type: 'question', priority: 'medium', subject: '', description: '', targetService: '' });
  const [failure, setFailure] = useState<string | null>(null);
  return (
    <Section title="File a ticket">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const input = {
            type: form.type,
            priority: form.priority,
            subject: form.subject.trim(),
            description: form.description.trim(),
            agent_name: me?.name ?? 'console',
            ...(form.targetService.trim() ? { target_service: form.targetService.trim() } : {}),
          };
          const answer = await file({ input: { capability: 'support-ticket', input } });
          const receipt = answer.data?.execute;
          if (!receipt) return;
          const key = (receipt.result as { ticket_key?: string } | null)?.ticket_key;
          if (receipt.status !== 'success' || !key) {
            setFailure(receipt.error ?? `The ticket was not filed (${receipt.status})`);
            return;
          }
          navigate(`/tickets/${seg(key)}`);
        }}
      >
        <SelectField
          label="Type"
          value={form.type}
          options={[
            ['question', 'Question'],
            ['bug', 'Bug'],
            ['feature', 'Feature request'],
            ['billing', 'Billing'],
            ['security', 'Security'],
          ]}
          onChange={(e) => setForm({ ...form, type: e.target.value })}
        />
        <SelectField
          label="Priority"
          value={form.priority}
          options={[
            ['low', 'Low'],
            ['medium', 'Medium'],
            ['high', 'High'],
            ['critical', 'Critical'],
          ]}
          onChange={(e) => setForm({ ...form, priority: e.target.value })}
        />
        <TextField label="Subject" value={form.subject} onChange={(e) => setForm({ ...form, subject: e.target.value })} required maxLength={200} />
        <TextArea label="Description" rows={4} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} required />
        <TextField
          label="About the service"
          value={form.targetService}
          onChange={(e) => setForm({ ...form, targetService: e.target.value })}
          hint="Its key (svc_…) or id, when the ticket is about one: its owner sees the ticket; empty for the marketplace itself"
        />
        {filed.error && <ErrorNote error={filed.error} />}
        {failure && <ErrorNote error={failure} />}
        <button type="submit" disabled={filed.fetching}>
          File the ticket
        </button>
      </form>
    </Section>
  );
}
