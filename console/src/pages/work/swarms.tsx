// The agent's swarms with their progress, and a new one started from a list of steps.
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, navigate, seg } from '../../router';
import { Progress } from './progress';
import { ErrorNote, Loaded, Page, Paged, parseJson, Section, SelectField, Status, TextArea, TextField, Time, usePages } from '../../ui';

const Swarms = graphql(`
  query ConsoleSwarms($after: String) {
    swarmSessions(first: 25, after: $after) {
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        sessionId
        goal
        strategy
        status
        stepCount
        completedSteps
        failedSteps
        createdAt
      }
    }
  }
`);

const CreateSwarm = graphql(`
  mutation ConsoleCreateSwarm($input: CreateSwarmSessionInput!) {
    createSwarmSession(input: $input) {
      sessionId
    }
  }
`);

export function SwarmsPage() {
  const pages = usePages();
  const [result] = useQuery({ query: Swarms, variables: { after: pages.after } });
  return (
    <Page title="Swarms" intro="Workflows of steps your agent started, each step an execution.">
      <NewSwarm />
      <Loaded result={result}>
        {({ swarmSessions }) => (
          <Paged
            connection={swarmSessions}
            pages={pages}
            caption="Swarms"
            rowKey={(s) => s.sessionId}
            columns={[
              { label: 'Goal', cell: (s) => <Link to={`/swarms/${seg(s.sessionId)}`}>{s.goal}</Link> },
              { label: 'Strategy', cell: (s) => s.strategy },
              { label: 'Status', cell: (s) => <Status value={s.status} /> },
              { label: 'Progress', cell: (s) => <Progress done={s.completedSteps} failed={s.failedSteps} total={s.stepCount} /> },
              { label: 'Started', cell: (s) => <Time at={s.createdAt} /> },
            ]}
          />
        )}
      </Loaded>
    </Page>
  );
}

const EXAMPLE_STEPS = `[
  { "capability": "summarize", "input": { "text": "…" } },
  { "capability": "translate", "input": { "text": "$previous.summary", "target_language": "fr" } }
]`;

function NewSwarm() {
  const [created, create] = useMutation(CreateSwarm);
  const [form, setForm] = useState({ goal: '', strategy: 'sequential', steps: EXAMPLE_STEPS });
  const [stepsError, setStepsError] = useState<string | null>(null);
  return (
    <Section title="Start a swarm">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const steps = parseJson('Steps', form.steps);
          setStepsError(steps.ok ? null : steps.error);
          if (!steps.ok) return;
          const answer = await create({ input: { goal: form.goal.trim(), strategy: form.strategy, steps: steps.value as never } });
          if (answer.data) navigate(`/swarms/${seg(answer.data.createSwarmSession.sessionId)}`);
        }}
      >
        <TextField label="Goal" value={form.goal} onChange={(e) => setForm({ ...form, goal: e.target.value })} required />
        <SelectField
          label="Strategy"
          value={form.strategy}
          options={[
            ['sequential', 'Sequential: each step after the one before, which it may read'],
            ['parallel', 'Parallel: every step at once'],
          ]}
          onChange={(e) => setForm({ ...form, strategy: e.target.value })}
        />
        <TextArea
          label="Steps (JSON)"
          rows={6}
          spellCheck={false}
          value={form.steps}
          onChange={(e) => setForm({ ...form, steps: e.target.value })}
          error={stepsError}
          hint="1 to 20 steps, each a capability with its input (and a provider, if one must serve it). In a sequential swarm, $previous or $steps.N stands for an earlier step's result."
        />
        {created.error && <ErrorNote error={created.error} />}
        <button type="submit" disabled={created.fetching}>
          Start the swarm
        </button>
      </form>
    </Section>
  );
}
