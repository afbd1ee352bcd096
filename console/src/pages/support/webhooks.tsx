// The agent's webhooks, and a new one (its secret shown once).
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { eventsText, eventsOf } from './webhook-events';
import { ErrorNote, Loaded, Page, Paged, SecretOnce, Section, TextField, Time, usePages } from '../../ui';

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
          <TextField
            label="Events"
            value={events}
            onChange={(e) => setEvents(e.target.value)}
            hint="Comma-separated types, such as execution.succeeded; empty or * for all"
          />
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
