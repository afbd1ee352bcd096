// The signed-in agent's longer work: tasks and their delegations, swarms and their steps (live while they
// run), UTO tickets, and memory stores with their entries; each made, cancelled or edited from its page.
import { useState } from 'react';
import { useMutation, useQuery } from '../data';
import { graphql } from '../gql';
import { useLive } from '../live';
import { Link, navigate, seg } from '../router';
import { centsOf, ConfirmButton, ErrorNote, Facts, instantOf, Json, listOf, LiveBadge, Loaded, Money, Page, Paged, parseJson, Section, SelectField, Status, Table, TextArea, TextField, Time, useFilter, usePages } from '../ui';

const Tasks = graphql(`
  query ConsoleTasks($status: String, $after: String) {
    tasks(status: $status, first: 25, after: $after) {
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        taskId
        intent
        status
        budget
        spent
        deadline
        delegateId
        createdAt
        executions {
          taskExecutionId
        }
      }
    }
  }
`);

const CreateTask = graphql(`
  mutation ConsoleCreateTask($input: CreateTaskInput!) {
    createTask(input: $input) {
      taskId
    }
  }
`);

const TASK_STATUSES: [string, string][] = [
  ['', 'Every task'],
  ['pending', 'Pending'],
  ['delegated', 'Delegated'],
  ['completed', 'Completed'],
  ['expired', 'Expired'],
  ['cancelled', 'Cancelled'],
];

export function TasksPage() {
  const pages = usePages();
  const [status, setStatus] = useFilter(pages);
  const [result] = useQuery({ query: Tasks, variables: { status: status || null, after: pages.after } });
  return (
    <Page title="Tasks" intro="Work your agent created or was handed, with its budget and its progress.">
      <NewTask />
      <SelectField label="Show" value={status} options={TASK_STATUSES} onChange={(e) => setStatus(e.target.value)} />
      <Loaded result={result}>
        {({ tasks }) => (
          <Paged
            connection={tasks}
            pages={pages}
            caption="Tasks"
            rowKey={(t) => t.taskId}
            columns={[
              { label: 'Task', cell: (t) => <Link to={`/tasks/${seg(t.taskId)}`}>{t.intent}</Link> },
              { label: 'Status', cell: (t) => <Status value={t.status} /> },
              { label: 'Executions', cell: (t) => t.executions.length, numeric: true },
              { label: 'Spent', cell: (t) => <Money cents={t.spent} />, numeric: true },
              { label: 'Budget', cell: (t) => (t.budget === null ? 'none' : <Money cents={t.budget} />), numeric: true },
              { label: 'Deadline', cell: (t) => <Time at={t.deadline} /> },
            ]}
          />
        )}
      </Loaded>
    </Page>
  );
}

function NewTask() {
  const [created, create] = useMutation(CreateTask);
  const [form, setForm] = useState({ intent: '', criteria: '', budget: '', deadline: '' });
  const budget = centsOf(form.budget);
  const budgetError = Number.isNaN(budget) ? 'A sum in dollars, such as 2.50' : null;
  return (
    <Section title="Create a task">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (budgetError) return;
          const criteria = form.criteria
            .split('\n')
            .map((c) => c.trim())
            .filter(Boolean);
          const deadline = instantOf(form.deadline);
          const answer = await create({
            input: { intent: form.intent.trim(), ...(criteria.length ? { successCriteria: criteria } : {}), ...(budget !== null ? { budget } : {}), ...(deadline ? { deadline } : {}) },
          });
          if (answer.data) navigate(`/tasks/${seg(answer.data.createTask.taskId)}`);
        }}
      >
        <TextField label="Intent" value={form.intent} onChange={(e) => setForm({ ...form, intent: e.target.value })} required hint="What the task is for, in a sentence" />
        <TextArea label="Success criteria" rows={3} value={form.criteria} onChange={(e) => setForm({ ...form, criteria: e.target.value })} hint="One per line; empty for none" />
        <TextField label="Budget" inputMode="decimal" value={form.budget} onChange={(e) => setForm({ ...form, budget: e.target.value })} error={budgetError} hint="Dollars that calls under the task may cost in all; empty for no limit" />
        <TextField label="Deadline" type="datetime-local" value={form.deadline} onChange={(e) => setForm({ ...form, deadline: e.target.value })} hint="Your local time; empty for none" />
        {created.error && <ErrorNote error={created.error} />}
        <button type="submit" disabled={created.fetching}>
          Create the task
        </button>
      </form>
    </Section>
  );
}

const TaskDetail = graphql(`
  query ConsoleTask($id: String!) {
    task(id: $id) {
      taskId
      intent
      status
      successCriteria
      budget
      budgetRemaining
      spent
      deadline
      result
      createdAt
      completedAt
      delegations {
        delegationId
        subAgentId
        status
        createdAt
        endedAt
      }
      executions {
        taskExecutionId
        executionId
        capability
        status
        criteriaMet
        executorDelta
        createdAt
      }
    }
  }
`);

const CancelTask = graphql(`
  mutation ConsoleCancelTask($id: String!) {
    cancelTask(id: $id) {
      taskId
      status
    }
  }
`);

export function TaskPage({ id }: { id: string }) {
  const [result, refetch] = useQuery({ query: TaskDetail, variables: { id } });
  const [cancelled, cancel] = useMutation(CancelTask);
  const open = !!result.data && ['pending', 'delegated'].includes(result.data.task.status);
  const actions = open ? (
    <ConfirmButton
      question="Cancel this task? Its delegations end, and no more calls are made under it."
      action={async () => {
        await cancel({ id });
        refetch({ requestPolicy: 'network-only' });
      }}
    >
      Cancel the task
    </ConfirmButton>
  ) : undefined;
  return (
    <Page title={result.data?.task.intent ?? id} actions={actions}>
      {cancelled.error && <ErrorNote error={cancelled.error} />}
      <Loaded result={result}>
        {({ task }) => (
          <>
            <Facts
              items={[
                ['Task', <code key="i">{task.taskId}</code>],
                ['Status', <Status key="s" value={task.status} />],
                ['Success criteria', task.successCriteria.join('; ') || 'none'],
                ['Spent', <Money key="m" cents={task.spent} />],
                ['Budget left', task.budgetRemaining === null ? 'no budget' : <Money key="b" cents={task.budgetRemaining} />],
                ['Deadline', <Time key="d" at={task.deadline} />],
                ['Created', <Time key="c" at={task.createdAt} />],
                ['Completed', <Time key="f" at={task.completedAt} />],
              ]}
            />
            <Section title="Delegations">
              <Table
                caption="Delegations"
                rows={task.delegations}
                rowKey={(d) => d.delegationId}
                columns={[
                  { label: 'Sub-agent', cell: (d) => <code>{d.subAgentId}</code> },
                  { label: 'Status', cell: (d) => <Status value={d.status} /> },
                  { label: 'From', cell: (d) => <Time at={d.createdAt} /> },
                  { label: 'Until', cell: (d) => <Time at={d.endedAt} /> },
                ]}
              />
            </Section>
            <Section title="Executions">
              <Table
                caption="The task's executions"
                rows={task.executions}
                rowKey={(x) => x.taskExecutionId}
                columns={[
                  { label: 'When', cell: (x) => <Link to={`/executions/${seg(x.executionId)}`}>{<Time at={x.createdAt} />}</Link> },
                  { label: 'Capability', cell: (x) => x.capability },
                  { label: 'Status', cell: (x) => <Status value={x.status} /> },
                  { label: 'Criteria met', cell: (x) => (x.criteriaMet ? 'yes' : 'no') },
                  { label: 'Reputation', cell: (x) => `${x.executorDelta >= 0 ? '+' : ''}${x.executorDelta}`, numeric: true },
                ]}
              />
            </Section>
            {task.result !== null && task.result !== undefined && (
              <Section title="Result">
                <Json value={task.result} />
              </Section>
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}

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

function Progress({ done, failed, total }: { done: number; failed: number; total: number }) {
  return (
    <span>
      <progress max={total || 1} value={done + failed} aria-label={`${done + failed} of ${total} steps finished`} /> {done + failed}/{total}
      {failed ? `, ${failed} failed` : ''}
    </span>
  );
}

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
      <SelectField label="State" value={state} options={[['', 'Every state'], ...UTO_STATES.map((s): [string, string] => [s, s])]} onChange={(e) => setState(e.target.value)} />
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
        <TextField label="Domain" value={form.domain} onChange={(e) => setForm({ ...form, domain: e.target.value })} required hint="Such as legal, finance or travel: specialists register by domain" />
        <TextField label="Required capabilities" value={form.capabilities} onChange={(e) => setForm({ ...form, capabilities: e.target.value })} hint="Comma-separated; empty for any" />
        <TextArea label="Context (JSON)" rows={4} spellCheck={false} value={form.context} onChange={(e) => setForm({ ...form, context: e.target.value })} error={contextError} />
        <TextField label="Budget (USD)" inputMode="decimal" value={form.budget} onChange={(e) => setForm({ ...form, budget: e.target.value })} error={budgetError} hint="Empty for none" />
        <TextField label="Deadline" type="datetime-local" value={form.deadline} onChange={(e) => setForm({ ...form, deadline: e.target.value })} hint="Your local time; empty for the default of 7 days" />
        {created.error && <ErrorNote error={created.error} />}
        <button type="submit" disabled={created.fetching}>
          Submit the ticket
        </button>
      </form>
    </Section>
  );
}

const UtoDetail = graphql(`
  query ConsoleUtoTicket($id: String!) {
    utoTicket(id: $id) {
      ticketId
      intent
      domain
      state
      requiredCapabilities
      maxBudgetUsd
      deadline
      context
      matches
      stateHistory {
        from
        to
        at
        by
        triggeredBy
        note
      }
    }
  }
`);

const AdvanceUto = graphql(`
  mutation ConsoleAdvanceUtoTicket($id: String!, $input: AdvanceUtoTicketInput!) {
    advanceUtoTicket(id: $id, input: $input) {
      ticketId
      state
    }
  }
`);

/** The states a ticket is finished in (nothing moves it on). */
const UTO_FINISHED = ['completed', 'failed', 'cancelled', 'expired'];

export function UtoTicketPage({ id }: { id: string }) {
  const [result, refetch] = useQuery({ query: UtoDetail, variables: { id } });
  const [advanced, advance] = useMutation(AdvanceUto);
  const open = !!result.data && !UTO_FINISHED.includes(result.data.utoTicket.state);
  const actions = open ? (
    <ConfirmButton
      question="Cancel this ticket?"
      action={async () => {
        await advance({ id, input: { targetState: 'cancelled', triggeredBy: 'external', note: 'cancelled from the console' } });
        refetch({ requestPolicy: 'network-only' });
      }}
    >
      Cancel the ticket
    </ConfirmButton>
  ) : undefined;
  return (
    <Page title={result.data?.utoTicket.intent ?? id} actions={actions}>
      {advanced.error && <ErrorNote error={advanced.error} />}
      <Loaded result={result}>
        {({ utoTicket: t }) => (
          <>
            <Facts
              items={[
                ['Ticket', <code key="i">{t.ticketId}</code>],
                ['Domain', t.domain],
                ['State', <Status key="s" value={t.state} />],
                ['Capabilities', t.requiredCapabilities.join(', ')],
                ['Budget', t.maxBudgetUsd === null ? null : `$${t.maxBudgetUsd}`],
                ['Deadline', <Time key="d" at={t.deadline} />],
              ]}
            />
            <Section title="History">
              <Table
                caption="State changes"
                rows={t.stateHistory}
                rowKey={(h) => `${h.at} ${h.to}`}
                columns={[
                  { label: 'When', cell: (h) => <Time at={h.at} /> },
                  { label: 'From', cell: (h) => h.from ?? '—' },
                  { label: 'To', cell: (h) => h.to },
                  { label: 'By', cell: (h) => h.by },
                  { label: 'Why', cell: (h) => h.note ?? h.triggeredBy },
                ]}
              />
            </Section>
            <Section title="Matches">
              <Json value={t.matches} />
            </Section>
          </>
        )}
      </Loaded>
    </Page>
  );
}

const Stores = graphql(`
  query ConsoleMemoryStores($after: String) {
    memoryStores(first: 25, after: $after) {
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        storeId
        name
        description
        storeType
        accessLevel
        dimensions
        defaultTtlSeconds
        createdAt
      }
    }
  }
`);

const CreateStore = graphql(`
  mutation ConsoleCreateMemoryStore($input: CreateMemoryStoreInput!) {
    createMemoryStore(input: $input) {
      storeId
    }
  }
`);

export function MemoryPage() {
  const pages = usePages();
  const [result] = useQuery({ query: Stores, variables: { after: pages.after } });
  return (
    <Page title="Memory stores" intro="Key-value, structured and vector stores your agent keeps, each entry versioned.">
      <NewStore />
      <Loaded result={result}>
        {({ memoryStores }) => (
          <Paged
            connection={memoryStores}
            pages={pages}
            caption="Your memory stores"
            rowKey={(s) => s.storeId}
            columns={[
              { label: 'Store', cell: (s) => <Link to={`/memory/${seg(s.storeId)}`}>{s.name}</Link> },
              { label: 'Type', cell: (s) => s.storeType + (s.dimensions ? ` (${s.dimensions} dimensions)` : '') },
              { label: 'Access', cell: (s) => s.accessLevel },
              { label: 'Default lifetime', cell: (s) => (s.defaultTtlSeconds ? `${s.defaultTtlSeconds} s` : 'none') },
              { label: 'Created', cell: (s) => <Time at={s.createdAt} /> },
            ]}
          />
        )}
      </Loaded>
    </Page>
  );
}

/** A whole number of seconds as a person types it; null when empty, NaN when not one. */
function secondsOf(text: string): number | null {
  const t = text.trim();
  if (!t) return null;
  return /^\d+$/.test(t) ? Number(t) : Number.NaN;
}

function NewStore() {
  const [created, create] = useMutation(CreateStore);
  const [form, setForm] = useState({ name: '', description: '', storeType: 'kv', accessLevel: 'private', ttl: '' });
  const ttl = secondsOf(form.ttl);
  const ttlError = Number.isNaN(ttl) ? 'A whole number of seconds' : null;
  return (
    <Section title="Create a store">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (ttlError) return;
          const answer = await create({
            input: { name: form.name.trim(), storeType: form.storeType, accessLevel: form.accessLevel, ...(form.description.trim() ? { description: form.description.trim() } : {}), ...(ttl !== null ? { defaultTtlSeconds: ttl } : {}) },
          });
          if (answer.data) navigate(`/memory/${seg(answer.data.createMemoryStore.storeId)}`);
        }}
      >
        <TextField label="Name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />
        <TextField label="Description" value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
        <SelectField
          label="Type"
          value={form.storeType}
          options={[
            ['kv', 'Key-value'],
            ['structured', 'Structured (JSON values, searched by field)'],
            ['vector', 'Vector (searched by embedding)'],
          ]}
          onChange={(e) => setForm({ ...form, storeType: e.target.value })}
        />
        <SelectField
          label="Access"
          value={form.accessLevel}
          options={[
            ['private', 'Private: your agent only'],
            ['shared', 'Shared: your sub-agents read it too'],
            ['public', 'Public: any agent reads it'],
          ]}
          onChange={(e) => setForm({ ...form, accessLevel: e.target.value })}
        />
        <TextField label="Default lifetime (seconds)" inputMode="numeric" value={form.ttl} onChange={(e) => setForm({ ...form, ttl: e.target.value })} error={ttlError} hint="Entries expire this long after they are written; empty for never" />
        {created.error && <ErrorNote error={created.error} />}
        <button type="submit" disabled={created.fetching}>
          Create the store
        </button>
      </form>
    </Section>
  );
}

const Entries = graphql(`
  query ConsoleMemoryEntries($storeId: ID!, $prefix: String, $after: String) {
    memoryStore(id: $storeId) {
      storeId
      name
      storeType
      accessLevel
    }
    memoryEntries(storeId: $storeId, prefix: $prefix, first: 25, after: $after) {
      totalCount
      pageInfo {
        ...ConsolePageInfo
      }
      nodes {
        key
        version
        value
        updatedAt
        expiresAt
      }
    }
  }
`);

const WriteEntry = graphql(`
  mutation ConsoleWriteMemoryEntry($storeId: ID!, $input: WriteMemoryEntriesInput!) {
    writeMemoryEntries(storeId: $storeId, input: $input) {
      written
    }
  }
`);

const DeleteEntry = graphql(`
  mutation ConsoleDeleteMemoryEntry($storeId: ID!, $key: String!) {
    deleteMemoryEntry(storeId: $storeId, key: $key) {
      deleted
    }
  }
`);

const emptyEntry = { key: '', value: '', ttl: '' };

export function MemoryStorePage({ id }: { id: string }) {
  const pages = usePages();
  const [prefix, setPrefix] = useFilter(pages);
  const [result, refetch] = useQuery({ query: Entries, variables: { storeId: id, prefix: prefix || null, after: pages.after } });
  const [written, write] = useMutation(WriteEntry);
  const [deleted, remove] = useMutation(DeleteEntry);
  const [entry, setEntry] = useState(emptyEntry);
  const [valueError, setValueError] = useState<string | null>(null);
  const ttl = secondsOf(entry.ttl);
  const ttlError = Number.isNaN(ttl) ? 'A whole number of seconds' : null;
  const reload = () => refetch({ requestPolicy: 'network-only' });
  return (
    <Page title={result.data?.memoryStore.name ?? 'Memory store'}>
      <Section title="Write an entry">
        <form
          className="form"
          onSubmit={async (e) => {
            e.preventDefault();
            const value = parseJson('Value', entry.value);
            setValueError(value.ok ? null : value.error);
            if (!value.ok || ttlError) return;
            const answer = await write({ storeId: id, input: { entries: [{ key: entry.key.trim(), value: value.value, ...(ttl !== null ? { ttlSeconds: ttl } : {}) }] } });
            if (answer.data) {
              setEntry(emptyEntry);
              reload();
            }
          }}
        >
          <TextField label="Key" value={entry.key} onChange={(e) => setEntry({ ...entry, key: e.target.value })} required hint="Writing an existing key makes its next version" />
          <TextArea label="Value (JSON)" rows={4} spellCheck={false} value={entry.value} onChange={(e) => setEntry({ ...entry, value: e.target.value })} error={valueError} required />
          <TextField label="Lifetime (seconds)" inputMode="numeric" value={entry.ttl} onChange={(e) => setEntry({ ...entry, ttl: e.target.value })} error={ttlError} hint="Empty for the store's default" />
          {written.error && <ErrorNote error={written.error} />}
          <button type="submit" disabled={written.fetching}>
            Write
          </button>
        </form>
      </Section>
      <TextField label="Keys starting with" type="search" value={prefix} onChange={(e) => setPrefix(e.target.value)} />
      {deleted.error && <ErrorNote error={deleted.error} />}
      <Loaded result={result}>
        {({ memoryStore, memoryEntries }) => (
          <>
            <p className="muted" role="status">
              {memoryEntries.totalCount.toLocaleString()} entries in this {memoryStore.storeType} store ({memoryStore.accessLevel})
            </p>
            <Paged
              connection={memoryEntries}
              pages={pages}
              caption="Entries"
              rowKey={(e) => e.key}
              columns={[
                { label: 'Key', cell: (e) => <code>{e.key}</code> },
                { label: 'Version', cell: (e) => e.version, numeric: true },
                { label: 'Value', cell: (e) => <code className="clip">{JSON.stringify(e.value)}</code> },
                { label: 'Updated', cell: (e) => <Time at={e.updatedAt} /> },
                { label: 'Expires', cell: (e) => <Time at={e.expiresAt} /> },
                {
                  label: 'Actions',
                  cell: (e) => (
                    <span className="actions">
                      <button
                        type="button"
                        className="secondary"
                        aria-label={`Edit ${e.key}`}
                        onClick={() => {
                          setEntry({ key: e.key, value: JSON.stringify(e.value, null, 2), ttl: '' });
                          setValueError(null);
                          window.scrollTo({ top: 0 });
                        }}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        question={`Delete ${e.key}, every version of it?`}
                        label={`Delete ${e.key}`}
                        action={async () => {
                          await remove({ storeId: id, key: e.key });
                          reload();
                        }}
                      >
                        Delete
                      </ConfirmButton>
                    </span>
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
