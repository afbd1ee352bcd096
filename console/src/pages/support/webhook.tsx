// A webhook's deliveries by state, read again as the agent's events happen, each redelivered on demand; the
// webhook edited (URL, events, on or off) or deleted.
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { navigate, useLocation } from '../../router';
import { useRefetchOnEvents } from '../../live';
import { eventsText, eventsOf } from './webhook-events';
import { ConfirmButton, ErrorNote, Facts, LiveBadge, Loaded, Page, Paged, Section, SelectField, Status, TextField, Time, useFilter, usePages } from '../../ui';

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
        <TextField
          label="Events"
          value={form.events}
          onChange={(e) => setForm({ ...form, events: e.target.value })}
          hint="Comma-separated types, such as execution.succeeded; empty or * for all"
        />
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
