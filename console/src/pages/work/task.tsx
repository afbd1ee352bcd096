// A task: its delegations, its executions and its result; cancelled while it is open.
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, seg } from '../../router';
import { ConfirmButton, ErrorNote, Facts, Json, Loaded, Money, Page, Section, Status, Table, Time } from '../../ui';

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
