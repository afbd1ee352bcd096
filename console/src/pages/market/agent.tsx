// An agent's public record: its reputation, and its score's history over 30, 90 or 365 days.
import { useQuery } from '../../data';
import { graphql } from '../../gql';
import { setQuery, useLocation } from '../../router';
import { Facts, Loaded, Page, Section, SelectField, Table } from '../../ui';

const AgentProfile = graphql(`
  query ConsoleAgentProfile($agentId: ID!, $days: Int) {
    agentReputation(agentId: $agentId) {
      agentId
      name
      reputation
      tier
      trustScore
      calls
      successes
      successRate
      disputes
      disputesOpen
      disputesLost
      reputationEvents30d
      reputationNet30d
      history(days: $days) {
        day
        score
        net
        events
      }
    }
  }
`);

export function AgentPage({ agentId }: { agentId: string }) {
  const { query } = useLocation();
  const days = Number(query.get('days') ?? 90) || 90;
  const [result] = useQuery({ query: AgentProfile, variables: { agentId, days } });
  return (
    <Page title={result.data?.agentReputation.name ?? 'Agent'}>
      <Loaded result={result}>
        {({ agentReputation: a }) => (
          <>
            <Facts
              items={[
                ['Reputation', `${a.reputation} of 100`],
                ['Tier', a.tier],
                ['Trust score', a.trustScore.toFixed(2)],
                ['Calls answered', a.calls.toLocaleString()],
                ['Success rate', `${Math.round(a.successRate * 100)}%`],
                ['Disputes', `${a.disputes} (${a.disputesOpen} open, ${a.disputesLost} lost)`],
                ['Reputation, 30 days', `${a.reputationNet30d >= 0 ? '+' : ''}${a.reputationNet30d} over ${a.reputationEvents30d} events`],
              ]}
            />
            <Section title="Reputation history">
              <SelectField
                label="Over"
                value={String(days)}
                options={[
                  ['30', 'The last 30 days'],
                  ['90', 'The last 90 days'],
                  ['365', 'The last year'],
                ]}
                onChange={(e) => setQuery({ days: e.target.value === '90' ? null : e.target.value })}
              />
              <ScoreChart days={a.history} />
              <Table
                caption="The days its score moved"
                rows={[...a.history].reverse()}
                rowKey={(d) => d.day}
                columns={[
                  { label: 'Day', cell: (d) => d.day },
                  { label: 'Score at the end', cell: (d) => d.score, numeric: true },
                  { label: 'Change', cell: (d) => `${d.net >= 0 ? '+' : ''}${d.net}`, numeric: true },
                  { label: 'Changes', cell: (d) => d.events, numeric: true },
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}

/** A score's days as a line (0-100), drawn in SVG; the table beside it carries the same figures as text. */
function ScoreChart({ days }: { days: { day: string; score: number }[] }) {
  if (days.length < 2) return null;
  const w = 600;
  const h = 120;
  const t0 = Date.parse(days[0].day);
  const span = Math.max(1, Date.parse(days[days.length - 1].day) - t0);
  const points = days.map((d) => `${((Date.parse(d.day) - t0) / span) * w},${h - (d.score / 100) * h}`).join(' ');
  return (
    <svg
      className="chart"
      viewBox={`0 0 ${w} ${h}`}
      role="img"
      aria-label={`Score from ${days[0].score} on ${days[0].day} to ${days[days.length - 1].score} on ${days[days.length - 1].day}`}
    >
      <line x1="0" y1={h / 2} x2={w} y2={h / 2} className="chart-grid" />
      <polyline points={points} className="chart-line" />
    </svg>
  );
}
