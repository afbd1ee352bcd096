// Where the signed-in agent's events go and what it disputes: webhooks with their deliveries (and redelivery),
// disputes, and support tickets.
import { useState } from 'react';
import { useMutation, useQuery } from '../data';
import { graphql } from '../gql';
import { Link, navigate, seg, useLocation } from '../router';
import { useRefetchOnEvents } from '../live';
import { ErrorNote, Facts, LiveBadge, Loaded, Money, Page, Pager, SecretOnce, Section, SelectField, Status, Table, TextArea, TextField, Time, usePages } from '../ui';

const Webhooks = graphql(`
  query ConsoleWebhooks($after: String) {
    webhooks(first: 25, after: $after) {
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        webhookId
        url
        events
        active
        disabledReason
        createdAt
      }
    }
  }
`);

const CreateWebhook = graphql(`
  mutation ConsoleCreateWebhook($input: WebhookInput!) {
    createWebhook(input: $input) {
      webhookId
      secret
    }
  }
`);

export function WebhooksPage() {
  const pages = usePages();
  const [result, refetch] = useQuery({ query: Webhooks, variables: { after: pages.after } });
  const [created, create] = useMutation(CreateWebhook);
  const [url, setUrl] = useState('https://');
  const [events, setEvents] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <Page title="Webhooks" intro="Where the marketplace delivers your agent's events, signed; failed deliveries are retried, and any can be sent again.">
      {secret && <SecretOnce label="Webhook secret" value={secret} onDone={() => setSecret(null)} />}
      <Section title="Add a webhook">
        <form
          className="form inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const list = events
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean);
            const answer = await create({ input: { url: url.trim(), ...(list.length ? { events: list } : {}) } });
            if (answer.data) {
              setSecret(answer.data.createWebhook.secret);
              setUrl('https://');
              setEvents('');
              refetch({ requestPolicy: 'network-only' });
            }
          }}
        >
          <TextField label="URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
          <TextField label="Events" value={events} onChange={(e) => setEvents(e.target.value)} hint="Comma-separated types, such as execution.completed; empty for all" />
          <button type="submit" disabled={created.fetching}>
            Add
          </button>
        </form>
        {created.error && <ErrorNote error={created.error} />}
      </Section>
      <Loaded result={result}>
        {({ webhooks }) => (
          <>
            <Table
              caption="Your webhooks"
              rows={webhooks.nodes}
              rowKey={(w) => w.webhookId}
              columns={[
                { label: 'URL', cell: (w) => <Link to={`/webhooks/${seg(w.webhookId)}`}>{w.url}</Link> },
                { label: 'Events', cell: (w) => (w.events.length ? w.events.join(', ') : 'all') },
                { label: 'Active', cell: (w) => (w.active ? 'yes' : `no${w.disabledReason ? ` (${w.disabledReason})` : ''}`) },
                { label: 'Added', cell: (w) => <Time at={w.createdAt} /> },
              ]}
            />
            <Pager pageInfo={webhooks.pageInfo} pages={pages} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

const Deliveries = graphql(`
  query ConsoleDeliveries($webhookId: ID!, $status: String, $after: String) {
    webhook(id: $webhookId) {
      webhookId
      url
      events
      active
    }
    webhookDeliveries(webhookId: $webhookId, status: $status, first: 25, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        deliveryId
        eventId
        eventType
        status
        attempts
        lastStatus
        lastError
        nextAttemptAt
        deliveredAt
        createdAt
      }
    }
  }
`);

const Redeliver = graphql(`
  mutation ConsoleRedeliver($webhookId: ID!, $deliveryId: ID!) {
    redeliverWebhookDelivery(webhookId: $webhookId, deliveryId: $deliveryId) {
      deliveryId
      status
    }
  }
`);

export function WebhookPage({ id }: { id: string }) {
  const { query } = useLocation();
  const pages = usePages();
  const [status, setStatus] = useState(query.get('status') ?? '');
  const [result, refetch] = useQuery({ query: Deliveries, variables: { webhookId: id, status: status || null, after: pages.after } });
  const [redelivered, redeliver] = useMutation(Redeliver);
  // Every event of the agent may make a delivery: the list is read again as they happen.
  const live = useRefetchOnEvents([''], () => refetch({ requestPolicy: 'network-only' }));
  return (
    <Page title="Webhook deliveries" actions={<LiveBadge status={live} />}>
      {redelivered.error && <ErrorNote error={redelivered.error} />}
      <Loaded result={result}>
        {({ webhook, webhookDeliveries }) => (
          <>
            <Facts
              items={[
                ['URL', <code key="u">{webhook.url}</code>],
                ['Events', webhook.events.length ? webhook.events.join(', ') : 'all'],
                ['Active', webhook.active ? 'yes' : 'no'],
              ]}
            />
            <SelectField
              label="Show"
              value={status}
              options={[
                ['', 'Every delivery'],
                ['pending', 'Pending'],
                ['delivered', 'Delivered'],
                ['failed', 'Failed'],
              ]}
              onChange={(e) => {
                pages.reset();
                setStatus(e.target.value);
              }}
            />
            <Table
              caption="Deliveries, newest first"
              rows={webhookDeliveries.nodes}
              rowKey={(d) => d.deliveryId}
              columns={[
                { label: 'Event', cell: (d) => d.eventType },
                { label: 'Status', cell: (d) => <Status value={d.status} /> },
                { label: 'Attempts', cell: (d) => d.attempts, numeric: true },
                { label: 'Last answer', cell: (d) => d.lastError ?? (d.lastStatus ? `HTTP ${d.lastStatus}` : '—') },
                { label: 'Next attempt', cell: (d) => <Time at={d.nextAttemptAt} /> },
                { label: 'Created', cell: (d) => <Time at={d.createdAt} /> },
                {
                  label: 'Actions',
                  cell: (d) => (
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Deliver ${d.eventType} again`}
                      disabled={redelivered.fetching}
                      onClick={async () => {
                        await redeliver({ webhookId: webhook.webhookId, deliveryId: d.deliveryId });
                        refetch({ requestPolicy: 'network-only' });
                      }}
                    >
                      Redeliver
                    </button>
                  ),
                },
              ]}
            />
            <Pager pageInfo={webhookDeliveries.pageInfo} pages={pages} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

const Disputes = graphql(`
  query ConsoleDisputes($after: String) {
    myDisputes(first: 25, after: $after) {
      pageInfo {
        hasNextPage
        endCursor
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
    <Page title="Disputes" intro="Disputes you opened about a service or a charge, and what was decided." actions={<Link to="/disputes/new">Open a dispute</Link>}>
      <Loaded result={result}>
        {({ myDisputes }) => (
          <>
            <Table
              caption="Your disputes"
              rows={myDisputes.nodes}
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
            <Pager pageInfo={myDisputes.pageInfo} pages={pages} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

const OpenDispute = graphql(`
  mutation ConsoleOpenDispute($input: CreateDisputeInput!) {
    createDispute(input: $input) {
      disputeId
      status
    }
  }
`);

const DISPUTE_TYPES: [string, string][] = [
  ['quality', 'Quality: the answer was wrong or unusable'],
  ['billing', 'Billing: charged wrongly'],
  ['availability', 'Availability: the service did not answer'],
];

export function OpenDisputePage() {
  const { query } = useLocation();
  const [opened, open] = useMutation(OpenDispute);
  const [form, setForm] = useState({ serviceId: query.get('serviceId') ?? '', type: 'quality', description: '' });
  return (
    <Page title="Open a dispute" intro="About a service you called. The marketplace reviews it; its decision, and any refund, appear on your disputes.">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const answer = await open({ input: { serviceId: form.serviceId.trim(), type: form.type, description: form.description.trim() } });
          if (answer.data) navigate('/disputes');
        }}
      >
        <TextField label="Service id" value={form.serviceId} onChange={(e) => setForm({ ...form, serviceId: e.target.value })} required hint="The service's UUID (a receipt's “Open a dispute” fills it in)" />
        <SelectField label="Type" value={form.type} options={DISPUTE_TYPES} onChange={(e) => setForm({ ...form, type: e.target.value })} />
        <TextArea label="What happened" rows={4} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} required />
        {opened.error && <ErrorNote error={opened.error} />}
        <button type="submit" disabled={opened.fetching}>
          Open the dispute
        </button>
      </form>
    </Page>
  );
}

const Tickets = graphql(`
  query ConsoleTickets($status: String, $after: String) {
    tickets(status: $status, first: 25, after: $after) {
      pageInfo {
        hasNextPage
        endCursor
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
  const [status, setStatus] = useState('');
  const [result] = useQuery({ query: Tickets, variables: { status: status || null, after: pages.after } });
  return (
    <Page title="Tickets" intro="Support tickets you filed, and those filed with your services.">
      <SelectField
        label="Show"
        value={status}
        options={[
          ['', 'Every ticket'],
          ['open', 'Open'],
          ['in_progress', 'In progress'],
          ['waiting', 'Waiting'],
          ['resolved', 'Resolved'],
          ['closed', 'Closed'],
        ]}
        onChange={(e) => {
          pages.reset();
          setStatus(e.target.value);
        }}
      />
      <Loaded result={result}>
        {({ tickets }) => (
          <>
            <Table
              caption="Tickets"
              rows={tickets.nodes}
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
            <Pager pageInfo={tickets.pageInfo} pages={pages} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

const TicketDetail = graphql(`
  query ConsoleTicket($ticketKey: String!) {
    ticket(ticketKey: $ticketKey) {
      ticketKey
      subject
      description
      type
      priority
      status
      resolution
      targetService
      agentName
      createdAt
      comments {
        commentId
        author
        content
        createdAt
      }
      history {
        from
        to
        at
        actorKind
        note
      }
    }
  }
`);

export function TicketPage({ ticketKey }: { ticketKey: string }) {
  const [result] = useQuery({ query: TicketDetail, variables: { ticketKey } });
  return (
    <Page title={result.data ? `${result.data.ticket.ticketKey}: ${result.data.ticket.subject}` : ticketKey}>
      <Loaded result={result}>
        {({ ticket }) => (
          <>
            <p className="intro">{ticket.description}</p>
            <Facts
              items={[
                ['Status', <Status key="s" value={ticket.status} />],
                ['Type', ticket.type],
                ['Priority', ticket.priority],
                ['Service', ticket.targetService],
                ['Filed by', ticket.agentName],
                ['Filed', <Time key="t" at={ticket.createdAt} />],
                ['Resolution', ticket.resolution],
              ]}
            />
            <Section title="Comments">
              {ticket.comments.length === 0 ? (
                <p className="muted">No comments.</p>
              ) : (
                <ol className="feed">
                  {ticket.comments.map((c) => (
                    <li key={c.commentId}>
                      <div className="feed-head">
                        <strong>{c.author}</strong> <Time at={c.createdAt} />
                      </div>
                      <p>{c.content}</p>
                    </li>
                  ))}
                </ol>
              )}
            </Section>
            <Section title="History">
              <Table
                caption="Status changes"
                rows={ticket.history}
                rowKey={(h) => `${h.at} ${h.to}`}
                columns={[
                  { label: 'When', cell: (h) => <Time at={h.at} /> },
                  { label: 'From', cell: (h) => h.from ?? '—' },
                  { label: 'To', cell: (h) => h.to },
                  { label: 'By', cell: (h) => h.actorKind },
                  { label: 'Note', cell: (h) => h.note ?? '' },
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}
