// The agent's tasks, by status, and a new one (its success criteria, budget and deadline).
import { useState } from 'react';
import { useMutation, useQuery } from '../../data';
import { graphql } from '../../gql';
import { Link, navigate, seg } from '../../router';
import {
  centsOf,
  ErrorNote,
  instantOf,
  Loaded,
  Money,
  Page,
  Paged,
  Section,
  SelectField,
  Status,
  TextArea,
  TextField,
  Time,
  useFilter,
  usePages,
} from '../../ui';

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
            input: {
              intent: form.intent.trim(),
              ...(criteria.length ? { successCriteria: criteria } : {}),
              ...(budget !== null ? { budget } : {}),
              ...(deadline ? { deadline } : {}),
            },
          });
          if (answer.data) navigate(`/tasks/${seg(answer.data.createTask.taskId)}`);
        }}
      >
        <TextField
          label="Intent"
          value={form.intent}
          onChange={(e) => setForm({ ...form, intent: e.target.value })}
          required
          hint="What the task is for, in a sentence"
        />
        <TextArea
          label="Success criteria"
          rows={3}
          value={form.criteria}
          onChange={(e) => setForm({ ...form, criteria: e.target.value })}
          hint="One per line; empty for none"
        />
        <TextField
          label="Budget"
          inputMode="decimal"
          value={form.budget}
          onChange={(e) => setForm({ ...form, budget: e.target.value })}
          error={budgetError}
          hint="Dollars that calls under the task may cost in all; empty for no limit"
        />
        <TextField
          label="Deadline"
          type="datetime-local"
          value={form.deadline}
          onChange={(e) => setForm({ ...form, deadline: e.target.value })}
          hint="Your local time; empty for none"
        />
        {created.error && <ErrorNote error={created.error} />}
        <button type="submit" disabled={created.fetching}>
          Create the task
        </button>
      </form>
    </Section>
  );
}
