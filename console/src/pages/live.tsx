// What happens to the signed-in agent as it happens: its events (executions, deliveries, disputes, keys…),
// the radio's broadcasts and its UTO tickets' events, over GraphQL subscriptions (graphql-ws). The radio and
// UTO feeds resume after the last event seen when the connection drops.
import { graphql } from '../gql';
import { useLive } from '../live';
import { Link, seg } from '../router';
import { Json, LiveBadge, Page, Section, Time } from '../ui';

const AgentEvents = graphql(`
  subscription ConsoleAgentEvents {
    agentEvents {
      id
      type
      createdAt
      data
    }
  }
`);

const RadioFeed = graphql(`
  subscription ConsoleRadio($after: Int) {
    radioEvents(after: $after) {
      sequence
      eventId
      channel
      type
      createdAt
      data
    }
  }
`);

const UtoFeed = graphql(`
  subscription ConsoleUto($after: Int) {
    utoEvents(after: $after) {
      sequence
      eventId
      ticketId
      domain
      type
      createdAt
      data
    }
  }
`);

interface Shown {
  id: string;
  type: string;
  createdAt: string;
  data: unknown;
  detail?: string;
}

export function LivePage() {
  const agent = useLive(AgentEvents, {}, (d) => d.agentEvents);
  const radio = useLive(RadioFeed, {}, (d) => d.radioEvents, { cursorOf: (e) => (e as { sequence: number }).sequence });
  const uto = useLive(UtoFeed, {}, (d) => d.utoEvents, { cursorOf: (e) => (e as { sequence: number }).sequence });
  return (
    <Page title="Live" intro="Events appear here as they happen; a dropped connection reconnects by itself.">
      <Feed title="Your events" status={agent.status} error={agent.error} events={(agent.events as Shown[]).map((e) => ({ ...e }))} />
      <Feed
        title="Radio"
        status={radio.status}
        error={radio.error}
        events={(radio.events as (Shown & { eventId: string; channel: string })[]).map((e) => ({ ...e, id: e.eventId, detail: e.channel }))}
      />
      <Feed
        title="UTO tickets"
        status={uto.status}
        error={uto.error}
        events={(uto.events as (Shown & { eventId: string; ticketId: string; domain: string })[]).map((e) => ({
          ...e,
          id: e.eventId,
          detail: `${e.domain} · ${e.ticketId}`,
        }))}
      />
    </Page>
  );
}

function Feed({ title, status, error, events }: { title: string; status: string; error: string | null; events: Shown[] }) {
  return (
    <Section title={title} actions={<LiveBadge status={status} />}>
      {error && <p className="error">{error}</p>}
      {events.length === 0 ? (
        <p className="muted">Nothing yet: waiting for the next event.</p>
      ) : (
        <ol className="feed" aria-live="polite" aria-relevant="additions">
          {events.map((e) => (
            <li key={e.id}>
              <div className="feed-head">
                <strong>{e.type}</strong>
                {e.detail && <span className="muted"> · {e.detail}</span>} <Time at={e.createdAt} />
                {e.type.startsWith('execution.') && typeof (e.data as { execution_id?: unknown })?.execution_id === 'string' && (
                  <>
                    {' '}
                    <Link to={`/executions/${seg((e.data as { execution_id: string }).execution_id)}`}>receipt</Link>
                  </>
                )}
              </div>
              <details>
                <summary>Data</summary>
                <Json value={e.data} />
              </details>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
