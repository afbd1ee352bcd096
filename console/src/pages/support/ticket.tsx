// A support ticket: its comments and history, a comment added, a move to another status.
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { TICKET_STATUSES } from './ticket-statuses';
import { ErrorNote, Facts, Loaded, Page, Section, SelectField, Status, Table, TextArea, TextField, Time } from '../../ui';

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
