// The signed-in agent's longer work: tasks and their delegations, swarms and their steps (live while they
// run), UTO tickets, and memory stores with their entries.
import { useState } from 'react';
import { useQuery } from '../data';
import { graphql } from '../gql';
import { useLive } from '../live';
import { Link, seg } from '../router';
import { Facts, Json, LiveBadge, Loaded, Money, Page, Pager, Section, SelectField, Status, Table, TextField, Time, usePages } from '../ui';

const Tasks = graphql(`
  query ConsoleTasks($status: String, $after: String) {
    tasks(status: $status, first: 25, after: $after) {
      pageInfo {
        hasNextPage
        endCursor
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

export function TasksPage() {
  const pages = usePages();
  const [status, setStatus] = useState('');
  const [result] = useQuery({ query: Tasks, variables: { status: status || null, after: pages.after } });
  return (
    <Page title="Tasks" intro="Work your agent created or was handed, with its budget and its progress.">
      <SelectField
        label="Show"
        value={status}
        options={[
          ['', 'Every task'],
          ['open', 'Open'],
          ['delegated', 'Delegated'],
          ['in_progress', 'In progress'],
          ['completed', 'Completed'],
          ['failed', 'Failed'],
          ['cancelled', 'Cancelled'],
        ]}
        onChange={(e) => {
          pages.reset();
          setStatus(e.target.value);
        }}
      />
      <Loaded result={result}>
        {({ tasks }) => (
          <>
            <Table
              caption="Tasks"
              rows={tasks.nodes}
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
            <Pager pageInfo={tasks.pageInfo} pages={pages} />
          </>
        )}
      </Loaded>
    </Page>
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

export function TaskPage({ id }: { id: string }) {
  const [result] = useQuery({ query: TaskDetail, variables: { id } });
  return (
    <Page title={result.data?.task.intent ?? id}>
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
        hasNextPage
        endCursor
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

export function SwarmsPage() {
  const pages = usePages();
  const [result] = useQuery({ query: Swarms, variables: { after: pages.after } });
  return (
    <Page title="Swarms" intro="Workflows of steps your agent started, each step an execution.">
      <Loaded result={result}>
        {({ swarmSessions }) => (
          <>
            <Table
              caption="Swarms"
              rows={swarmSessions.nodes}
              rowKey={(s) => s.sessionId}
              columns={[
                { label: 'Goal', cell: (s) => <Link to={`/swarms/${seg(s.sessionId)}`}>{s.goal}</Link> },
                { label: 'Strategy', cell: (s) => s.strategy },
                { label: 'Status', cell: (s) => <Status value={s.status} /> },
                { label: 'Progress', cell: (s) => <Progress done={s.completedSteps} failed={s.failedSteps} total={s.stepCount} /> },
                { label: 'Started', cell: (s) => <Time at={s.createdAt} /> },
              ]}
            />
            <Pager pageInfo={swarmSessions.pageInfo} pages={pages} />
          </>
        )}
      </Loaded>
    </Page>
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

export function SwarmPage({ id }: { id: string }) {
  const [result, refetch] = useQuery({ query: SwarmDetail, variables: { id } });
  const running = !!result.data && !['completed', 'failed', 'cancelled'].includes(result.data.swarmSession.status);
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
    <Page title={result.data?.swarmSession.goal ?? id} actions={running ? <LiveBadge status={live.status} /> : undefined}>
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
        hasNextPage
        endCursor
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

export function UtoPage() {
  const pages = usePages();
  const [state, setState] = useState('');
  const [result] = useQuery({ query: Uto, variables: { state: state || null, after: pages.after } });
  return (
    <Page title="UTO tickets" intro="Orchestration tickets: an intent matched to specialists, moving through its states.">
      <SelectField
        label="State"
        value={state}
        options={[['', 'Every state'], ...UTO_STATES.map((s): [string, string] => [s, s])]}
        onChange={(e) => {
          pages.reset();
          setState(e.target.value);
        }}
      />
      <Loaded result={result}>
        {({ utoTickets }) => (
          <>
            <Table
              caption="UTO tickets"
              rows={utoTickets.nodes}
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
            <Pager pageInfo={utoTickets.pageInfo} pages={pages} />
          </>
        )}
      </Loaded>
    </Page>
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

export function UtoTicketPage({ id }: { id: string }) {
  const [result] = useQuery({ query: UtoDetail, variables: { id } });
  return (
    <Page title={result.data?.utoTicket.intent ?? id}>
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
        hasNextPage
        endCursor
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

export function MemoryPage() {
  const pages = usePages();
  const [result] = useQuery({ query: Stores, variables: { after: pages.after } });
  return (
    <Page title="Memory stores" intro="Key-value, structured and vector stores your agent keeps, each entry versioned.">
      <Loaded result={result}>
        {({ memoryStores }) => (
          <>
            <Table
              caption="Your memory stores"
              rows={memoryStores.nodes}
              rowKey={(s) => s.storeId}
              columns={[
                { label: 'Store', cell: (s) => <Link to={`/memory/${seg(s.storeId)}`}>{s.name}</Link> },
                { label: 'Type', cell: (s) => s.storeType + (s.dimensions ? ` (${s.dimensions} dimensions)` : '') },
                { label: 'Access', cell: (s) => s.accessLevel },
                { label: 'Default lifetime', cell: (s) => (s.defaultTtlSeconds ? `${s.defaultTtlSeconds} s` : 'none') },
                { label: 'Created', cell: (s) => <Time at={s.createdAt} /> },
              ]}
            />
            <Pager pageInfo={memoryStores.pageInfo} pages={pages} />
          </>
        )}
      </Loaded>
    </Page>
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
        hasNextPage
        endCursor
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

export function MemoryStorePage({ id }: { id: string }) {
  const pages = usePages();
  const [prefix, setPrefix] = useState('');
  const [result] = useQuery({ query: Entries, variables: { storeId: id, prefix: prefix || null, after: pages.after } });
  return (
    <Page title={result.data?.memoryStore.name ?? 'Memory store'}>
      <TextField
        label="Keys starting with"
        type="search"
        value={prefix}
        onChange={(e) => {
          pages.reset();
          setPrefix(e.target.value);
        }}
      />
      <Loaded result={result}>
        {({ memoryStore, memoryEntries }) => (
          <>
            <p className="muted" role="status">
              {memoryEntries.totalCount.toLocaleString()} entries in this {memoryStore.storeType} store ({memoryStore.accessLevel})
            </p>
            <Table
              caption="Entries"
              rows={memoryEntries.nodes}
              rowKey={(e) => e.key}
              columns={[
                { label: 'Key', cell: (e) => <code>{e.key}</code> },
                { label: 'Version', cell: (e) => e.version, numeric: true },
                { label: 'Value', cell: (e) => <code className="clip">{JSON.stringify(e.value)}</code> },
                { label: 'Updated', cell: (e) => <Time at={e.updatedAt} /> },
                { label: 'Expires', cell: (e) => <Time at={e.expiresAt} /> },
              ]}
            />
            <Pager pageInfo={memoryEntries.pageInfo} pages={pages} />
          </>
        )}
      </Loaded>
    </Page>
  );
}
