// A swarm and its steps, read again at each step while it runs; cancelled while it runs.
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { useLive } from '../../live';
import { Link, seg } from '../../router';
import { Progress } from './progress';
import { ConfirmButton, ErrorNote, Facts, LiveBadge, Loaded, Money, Page, Section, Status, Table, Time } from '../../ui';

const SwarmDetail = graphql(`
  query ConsoleSwarm($id: String!) {
    swarmSession(id: $id) {
      sessionId
      goal
      strategy
      status
      stepCount
      completedSteps
      failedSteps
      createdAt
      finishedAt
      steps {
        stepId
        ordinal
        capability
        status
        provider
        attempts
        costCents
        error
        executionId
        finishedAt
      }
    }
  }
`);

const SwarmFeed = graphql(`
  subscription ConsoleSwarmEvents($sessionId: String!, $after: Int) {
    swarmEvents(sessionId: $sessionId, after: $after) {
      sequence
      event
      status
    }
  }
`);

const CancelSwarm = graphql(`
  mutation ConsoleCancelSwarm($id: String!) {
    cancelSwarmSession(id: $id) {
      sessionId
      status
    }
  }
`);

export function SwarmPage({ id }: { id: string }) {
  const [result, refetch] = useQuery({ query: SwarmDetail, variables: { id } });
  const [cancelled, cancel] = useMutation(CancelSwarm);
  const running = result.data?.swarmSession.status === 'running';
  // While it runs, each finished step (an event) reads the swarm again.
  const live = useLive(
    SwarmFeed,
    { sessionId: id },
    (d) => {
      refetch({ requestPolicy: 'network-only' });
      return d.swarmEvents;
    },
    { cursorOf: (e) => (e as { sequence: number }).sequence, enabled: running, onResumed: () => refetch({ requestPolicy: 'network-only' }) },
  );
  return (
    <Page
      title={result.data?.swarmSession.goal ?? id}
      actions={
        running ? (
          <>
            <LiveBadge status={live.status} />
            <ConfirmButton
              question="Cancel this swarm? Steps not yet started are not run."
              action={async () => {
                await cancel({ id });
                refetch({ requestPolicy: 'network-only' });
              }}
            >
              Cancel the swarm
            </ConfirmButton>
          </>
        ) : undefined
      }
    >
      {cancelled.error && <ErrorNote error={cancelled.error} />}
      <Loaded result={result}>
        {({ swarmSession: s }) => (
          <>
            <Facts
              items={[
                ['Swarm', <code key="i">{s.sessionId}</code>],
                ['Strategy', s.strategy],
                ['Status', <Status key="s" value={s.status} />],
                ['Progress', <Progress key="p" done={s.completedSteps} failed={s.failedSteps} total={s.stepCount} />],
                ['Started', <Time key="c" at={s.createdAt} />],
                ['Finished', <Time key="f" at={s.finishedAt} />],
              ]}
            />
            <Section title="Steps">
              <Table
                caption="Steps, in order"
                rows={s.steps}
                rowKey={(step) => step.stepId}
                columns={[
                  { label: '#', cell: (step) => step.ordinal, numeric: true },
                  { label: 'Capability', cell: (step) => step.capability },
                  { label: 'Status', cell: (step) => <Status value={step.status} /> },
                  { label: 'Provider', cell: (step) => step.provider ?? '—' },
                  { label: 'Attempts', cell: (step) => step.attempts, numeric: true },
                  { label: 'Cost', cell: (step) => <Money cents={step.costCents} />, numeric: true },
                  { label: 'Receipt', cell: (step) => (step.finishedAt ? <Link to={`/executions/${seg(step.executionId)}`}>receipt</Link> : '—') },
                ]}
              />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}
