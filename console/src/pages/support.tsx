// Where the signed-in agent's events go and what it disputes: webhooks (added, edited, removed) with their
// deliveries (and redelivery), disputes, and support tickets (filed, commented on, moved along).
import { useState } from 'react';
import { useMutation, useQuery, useSignedInAgent } from '../data';
import { graphql } from '../gql';
import { Link, navigate, seg, useLocation } from '../router';
import { useRefetchOnEvents } from '../live';
import { ConfirmButton, ErrorNote, Facts, listOf, LiveBadge, Loaded, Money, Page, Paged, SecretOnce, Section, SelectField, Status, Table, TextArea, TextField, Time, useFilter, usePages } from '../ui';

const Webhooks = graphql(`
  query ConsoleWebhooks($after: String) {
    webhooks(first: 25, after: $after) {
      pageInfo {
        ...ConsolePageInfo
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

const eventsText = (events: string[]) => (events.includes('*') ? 'all' : events.join(', '));

/** A webhook's events as typed: comma-separated types, or every event (`*`) when empty. */
function eventsOf(text: string): string[] {
  const events = listOf(text);
  return events.length ? events : ['*'];
}

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
            const answer = await create({ input: { url: url.trim(), events: eventsOf(events) } });
            if (answer.data) {
              setSecret(answer.data.createWebhook.secret);
              setUrl('https://');
              setEvents('');
              refetch({ requestPolicy: 'network-only' });
            }
          }}
        >
          <TextField label="URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
          <TextField label="Events" value={events} onChange={(e) => setEvents(e.target.value)} hint="Comma-separated types, such as execution.succeeded; empty or * for all" />
          <button type="submit" disabled={created.fetching}>
            Add
          </button>
        </form>
        {created.error && <ErrorNote error={created.error} />}
      </Section>
      <Loaded result={result}>
        {({ webhooks }) => (
          <Paged
            connection={webhooks}
            pages={pages}
            caption="Your webhooks"
            rowKey={(w) => w.webhookId}
            columns={[
              { label: 'URL', cell: (w) => <Link to={`/webhooks/${seg(w.webhookId)}`}>{w.url}</Link> },
              { label: 'Events', cell: (w) => eventsText(w.events) },
              { label: 'Active', cell: (w) => (w.active ? 'yes' : `no${w.disabledReason ? ` (${w.disabledReason})` : ''}`) },
              { label: 'Added', cell: (w) => <Time at={w.createdAt} /> },
            ]}
          />
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
        ...ConsolePageInfo
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

const UpdateWebhook = graphql(`
  mutation ConsoleUpdateWebhook($id: ID!, $input: WebhookInput!) {
    updateWebhook(id: $id, input: $input) {
      webhookId
      url
      events
      active
    }
  }
`);

const DeleteWebhook = graphql(`
  mutation ConsoleDeleteWebhook($id: ID!) {
    deleteWebhook(id: $id) {
      deleted
    }
  }
`);

/** A webhook's URL, events and whether it is on, changed in place. */
function EditWebhook({ webhook, onSaved }: { webhook: { webhookId: string; url: string; events: string[]; active: boolean }; onSaved: () => void }) {
  const [updated, update] = useMutation(UpdateWebhook);
  const [form, setForm] = useState({ url: webhook.url, events: webhook.events.includes('*') ? '' : webhook.events.join(', '), active: webhook.active });
  return (
    <Section title="Edit">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const answer = await update({ id: webhook.webhookId, input: { url: form.url.trim(), events: eventsOf(form.events), active: form.active } });
          if (answer.data) onSaved();
        }}
      >
        <TextField label="URL" type="url" value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} required />
        <TextField label="Events" value={form.events} onChange={(e) => setForm({ ...form, events: e.target.value })} hint="Comma-separated types, such as execution.succeeded; empty or * for all" />
        <div className="field checkbox">
          <label>
            <input type="checkbox" checked={form.active} onChange={(e) => setForm({ ...form, active: e.target.checked })} /> Active: deliver events to it
          </label>
        </div>
        {updated.error && <ErrorNote error={updated.error} />}
        <button type="submit" disabled={updated.fetching}>
          Save
        </button>
      </form>
    </Section>
  );
}

const DELIVERY_STATUSES: [string, string][] = [
  ['', 'Every delivery'],
  ['pending', 'Pending'],
  ['sending', 'Sending'],
  ['delivered', 'Delivered'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
];

export function WebhookPage({ id }: { id: string }) {
  const { query } = useLocation();
  const pages = usePages();
  const [status, setStatus] = useFilter(pages, query.get('status') ?? '');
  const [result, refetch] = useQuery({ query: Deliveries, variables: { webhookId: id, status: status || null, after: pages.after } });
  const [redelivered, redeliver] = useMutation(Redeliver);
  const [deleted, remove] = useMutation(DeleteWebhook);
  const [editing, setEditing] = useState(false);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  // Every event of the agent may make a delivery: the list is read again as they happen.
  const live = useRefetchOnEvents([''], reload);
  const actions = (
    <>
      <LiveBadge status={live} />
      <button type="button" className="secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
        {editing ? 'Close the editor' : 'Edit'}
      </button>
      <ConfirmButton
        question="Delete this webhook? Nothing more is delivered to it, and its deliveries and their log go with it."
        action={async () => {
          const answer = await remove({ id });
          if (answer.data) navigate('/webhooks');
        }}
      >
        Delete
      </ConfirmButton>
    </>
  );
  return (
    <Page title="Webhook deliveries" actions={actions}>
      {(redelivered.error || deleted.error) && <ErrorNote error={(redelivered.error ?? deleted.error)!} />}
      <Loaded result={result}>
        {({ webhook, webhookDeliveries }) => (
          <>
            {editing && (
              <EditWebhook
                webhook={webhook}
                onSaved={() => {
                  setEditing(false);
                  reload();
                }}
              />
            )}
            <Facts
              items={[
                ['URL', <code key="u">{webhook.url}</code>],
                ['Events', eventsText(webhook.events)],
                ['Active', webhook.active ? 'yes' : 'no'],
              ]}
            />
            <SelectField label="Show" value={status} options={DELIVERY_STATUSES} onChange={(e) => setStatus(e.target.value)} />
            <Paged
              connection={webhookDeliveries}
              pages={pages}
              caption="Deliveries, newest first"
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
                        reload();
                      }}
                    >
                      Redeliver
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
    <Page title="Disputes" intro="Disputes you opened about a service or a charge, and what was decided." actions={<Link to="/disputes/new">Open a dispute</Link>}>
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

const TICKET_STATUSES: [string, string][] = [
  ['open', 'Open'],
  ['in_progress', 'In progress'],
  ['waiting', 'Waiting'],
  ['resolved', 'Resolved'],
  ['closed', 'Closed'],
];

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
        <TextField label="About the service" value={form.targetService} onChange={(e) => setForm({ ...form, targetService: e.target.value })} hint="Its key (svc_…) or id, when the ticket is about one: its owner sees the ticket; empty for the marketplace itself" />
        {filed.error && <ErrorNote error={filed.error} />}
        {failure && <ErrorNote error={failure} />}
        <button type="submit" disabled={filed.fetching}>
          File the ticket
        </button>
      </form>
    </Section>
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

const AddComment = graphql(`
  mutation ConsoleAddTicketComment($ticketKey: String!, $input: TicketCommentInput!) {
    addTicketComment(ticketKey: $ticketKey, input: $input) {
      commentId
    }
  }
`);

const MoveTicket = graphql(`
  mutation ConsoleMoveTicket($ticketKey: String!, $input: TicketStatusInput!) {
    updateTicketStatus(ticketKey: $ticketKey, input: $input) {
      ticketKey
      status
    }
  }
`);

/** A comment on the ticket, and a move to another status (the server's table of moves decides; 409 otherwise). */
function TicketActions({ ticketKey, status, onDone }: { ticketKey: string; status: string; onDone: () => void }) {
  const [commented, comment] = useMutation(AddComment);
  const [moved, move] = useMutation(MoveTicket);
  const [content, setContent] = useState('');
  const targets = TICKET_STATUSES.filter(([value]) => value !== status);
  const [chosen, setTo] = useState(targets[0][0]);
  // After a move the chosen status may be the ticket's own: the first other one stands in.
  const to = targets.some(([v]) => v === chosen) ? chosen : targets[0][0];
  const [resolution, setResolution] = useState('');
  return (
    <>
      <Section title="Comment">
        <form
          className="form"
          onSubmit={async (e) => {
            e.preventDefault();
            const answer = await comment({ ticketKey, input: { content: content.trim() } });
            if (answer.data) {
              setContent('');
              onDone();
            }
          }}
        >
          <TextArea label="Your comment" rows={3} value={content} onChange={(e) => setContent(e.target.value)} required />
          {commented.error && <ErrorNote error={commented.error} />}
          <button type="submit" disabled={commented.fetching}>
            Add the comment
          </button>
        </form>
      </Section>
      <Section title="Change the status">
        <form
          className="form inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const answer = await move({ ticketKey, input: { status: to, ...(resolution.trim() ? { resolution: resolution.trim() } : {}) } });
            if (answer.data) {
              setResolution('');
              onDone();
            }
          }}
        >
          <SelectField label="New status" value={to} options={targets} onChange={(e) => setTo(e.target.value)} />
          <TextField label="Resolution" value={resolution} onChange={(e) => setResolution(e.target.value)} hint="How it was settled (optional)" />
          <button type="submit" disabled={moved.fetching}>
            Move
          </button>
        </form>
        {moved.error && <ErrorNote error={moved.error} />}
      </Section>
    </>
  );
}

export function TicketPage({ ticketKey }: { ticketKey: string }) {
  const [result, refetch] = useQuery({ query: TicketDetail, variables: { ticketKey } });
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
            <TicketActions ticketKey={ticket.ticketKey} status={ticket.status} onDone={() => refetch({ requestPolicy: 'network-only' })} />
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
