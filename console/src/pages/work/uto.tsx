// The agent's UTO tickets, by state, and a new one submitted (its intent, domain, context, budget and deadline).
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, navigate, seg } from '../../router';
import {
  centsOf,
  ErrorNote,
  instantOf,
  listOf,
  Loaded,
  Page,
  Paged,
  parseJson,
  Section,
  SelectField,
  Status,
  TextArea,
  TextField,
  Time,
  useFilter,
  usePages,
} from '../../ui';

const Uto = graphql(`
  query ConsoleUtoTickets($state: String, $after: String) {
    utoTickets(state: $state, first: 25, after: $after) {
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        ticketId
        intent
        domain
        state
        requiredCapabilities
        maxBudgetUsd
        deadline
        updatedAt
      }
    }
  }
`);

const UTO_STATES = ['submitted', 'validated', 'matched', 'in_progress', 'completed', 'failed', 'cancelled', 'expired'];

const CreateUto = graphql(`
  mutation ConsoleCreateUtoTicket($input: CreateUtoTicketInput!) {
    createUtoTicket(input: $input) {
      ticketId
    }
  }
`);

export function UtoPage() {
  const pages = usePages();
  const [state, setState] = useFilter(pages);
  const [result] = useQuery({ query: Uto, variables: { state: state || null, after: pages.after } });
  return (
    <Page title="UTO tickets" intro="Orchestration tickets: an intent matched to specialists, moving through its states.">
      <NewUtoTicket />
      <SelectField
        label="State"
        value={state}
        options={[['', 'Every state'], ...UTO_STATES.map((s): [string, string] => [s, s])]}
        onChange={(e) => setState(e.target.value)}
      />
      <Loaded result={result}>
        {({ utoTickets }) => (
          <Paged
            connection={utoTickets}
            pages={pages}
            caption="UTO tickets"
            rowKey={(t) => t.ticketId}
            columns={[
              { label: 'Ticket', cell: (t) => <Link to={`/uto/${seg(t.ticketId)}`}>{t.intent}</Link> },
              { label: 'Domain', cell: (t) => t.domain },
              { label: 'State', cell: (t) => <Status value={t.state} /> },
              { label: 'Capabilities', cell: (t) => t.requiredCapabilities.join(', ') },
              { label: 'Budget', cell: (t) => (t.maxBudgetUsd === null ? '—' : `$${t.maxBudgetUsd}`), numeric: true },
              { label: 'Deadline', cell: (t) => <Time at={t.deadline} /> },
            ]}
          />
        )}
      </Loaded>
    </Page>
  );
}

function NewUtoTicket() {
  const [created, create] = useMutation(CreateUto);
  const [form, setForm] = useState({ intent: '', domain: '', capabilities: '', context: '{}', budget: '', deadline: '' });
  const [contextError, setContextError] = useState<string | null>(null);
  // Typed as any sum is (centsOf), sent in dollars as the ticket keeps it.
  const cents = centsOf(form.budget);
  const budget = cents === null ? null : cents / 100;
  const budgetError = Number.isNaN(cents) ? 'A sum in dollars, such as 25' : null;
  return (
    <Section title="Submit a ticket">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const context = parseJson('Context', form.context);
          setContextError(context.ok ? null : context.error);
          if (!context.ok || budgetError) return;
          const capabilities = listOf(form.capabilities);
          const deadline = instantOf(form.deadline);
          const answer = await create({
            input: {
              intent: form.intent.trim(),
              domain: form.domain.trim(),
              context: context.value,
              ...(capabilities.length ? { requiredCapabilities: capabilities } : {}),
              ...(budget !== null ? { maxBudgetUsd: budget } : {}),
              ...(deadline ? { deadline } : {}),
            },
          });
          if (answer.data) navigate(`/uto/${seg(answer.data.createUtoTicket.ticketId)}`);
        }}
      >
        <TextField label="Intent" value={form.intent} onChange={(e) => setForm({ ...form, intent: e.target.value })} required />
        <TextField
          label="Domain"
          value={form.domain}
          onChange={(e) => setForm({ ...form, domain: e.target.value })}
          required
          hint="Such as legal, finance or travel: specialists register by domain"
        />
        <TextField
          label="Required capabilities"
          value={form.capabilities}
          onChange={(e) => setForm({ ...form, capabilities: e.target.value })}
          hint="Comma-separated; empty for any"
        />
        <TextArea
          label="Context (JSON)"
          rows={4}
          spellCheck={false}
          value={form.context}
          onChange={(e) => setForm({ ...form, context: e.target.value })}
          error={contextError}
        />
        <TextField
          label="Budget (USD)"
          inputMode="decimal"
          value={form.budget}
          onChange={(e) => setForm({ ...form, budget: e.target.value })}
          error={budgetError}
          hint="Empty for none"
        />
        <TextField
          label="Deadline"
          type="datetime-local"
          value={form.deadline}
          onChange={(e) => setForm({ ...form, deadline: e.target.value })}
          hint="Your local time; empty for the default of 7 days"
        />
        {created.error && <ErrorNote error={created.error} />}
        <button type="submit" disabled={created.fetching}>
          Submit the ticket
        </button>
      </form>
    </Section>
  );
}
