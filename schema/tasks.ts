// Tasks, their delegation to sub-agents and execution under a budget, and the sparks published from them.
import type { Ctx } from '../src/domain/context';
import { budgetLeft } from '../src/domain/tasks/budget';
import type { Verdict } from '../src/domain/tasks/judge';
import * as sparks from '../src/domain/sparks/sparks';
import * as tasks from '../src/domain/tasks/tasks';
import { DAILY_GAIN_CAP } from '../src/domain/reputation/reputation';
import { Spark } from './account';
import { builder } from './builder';
import { PaymentReceipt } from './execution';
import { length, listOf, oneOf, uuid } from './json-schema';
import { pagedField } from './paging';

/** The creator of a task and its delegate see it; anyone else is answered as if it did not exist. */
async function taskVisible(task: { agentId: string; delegateId: string | null }, ctx: Ctx): Promise<boolean> {
  const p = await ctx.principal();
  return p.kind === 'agent' && (p.agent.id === task.agentId || p.agent.id === task.delegateId);
}

const TaskVerdict = builder.objectRef<Verdict>('TaskVerdict').implement({
  description: 'One success criterion judged against a result (see docs/collaboration.md for the rule)',
  fields: (t) => ({
    criterion: t.exposeString('criterion'),
    met: t.exposeBoolean('met'),
    rule: t.exposeString('rule', { description: '`comparison` (path op value), `present` (a path with a value) or `contains` (text)' }),
    detail: t.exposeString('detail'),
  }),
});

export const TaskDelegation = builder.prismaObject('TaskDelegation', {
  fields: (t) => ({
    delegationId: t.exposeID('id'),
    taskId: t.exposeString('taskId'),
    subAgentId: t.exposeID('subAgentId'),
    status: t.exposeString('status', { description: '`active`, `completed`, `replaced` (handed to another), `expired` or `cancelled`' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
  }),
});

builder.prismaObject('TaskExecution', {
  fields: (t) => ({
    taskExecutionId: t.exposeID('id'),
    executionId: t.exposeID('executionId'),
    delegateId: t.exposeID('delegateId'),
    capability: t.exposeString('capability'),
    status: t.exposeString('status', { description: "The execution's: `success` or `error`" }),
    criteriaMet: t.exposeBoolean('criteriaMet'),
    verdicts: t.field({ type: [TaskVerdict], resolve: (e) => e.judgment as unknown as Verdict[] }),
    result: t.field({ type: 'JSON', resolve: (e) => e.result }),
    executorDelta: t.exposeInt('executorDelta'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const Task = builder.prismaNode('Task', {
  authScopes: taskVisible,
  description: 'An intent with success criteria, a budget and a deadline, delegated to one of its creator’s sub-agents',
  id: { field: 'id' },
  fields: (t) => ({
    taskId: t.exposeString('id', { description: '`task_…`' }),
    intent: t.exposeString('intent'),
    successCriteria: t.exposeStringList('successCriteria'),
    budget: t.exposeInt('budgetCents', { nullable: true, description: 'Integer cents that calls under the task may cost in all; null: no limit' }),
    spent: t.exposeInt('spentCents', { description: 'What calls under the task cost so far (cents)' }),
    budgetRemaining: t.int({
      nullable: true,
      description: 'What is left: the budget less what was spent and what calls in flight hold (null: no limit)',
      resolve: (task, _a, ctx) => (task.budgetCents === null ? null : budgetLeft(ctx, task.id)),
    }),
    deadline: t.expose('deadline', { type: 'DateTime', nullable: true }),
    status: t.exposeString('status', { description: '`pending`, `delegated`, `completed`, `expired` or `cancelled`' }),
    delegateId: t.exposeID('delegateId', { nullable: true, description: 'The sub-agent it is delegated to' }),
    result: t.field({ type: 'JSON', nullable: true, description: 'The result that met the criteria', resolve: (task) => task.result }),
    ownerAgentId: t.exposeID('agentId', { description: 'Who created it' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    delegations: t.relation('delegations', { query: { orderBy: tasks.DELEGATIONS_ORDER } }),
    executions: t.relation('executions', { query: { orderBy: tasks.EXECUTIONS_ORDER } }),
  }),
});

const CreateTaskInput = builder.inputType('CreateTaskInput', {
  fields: (t) => ({
    intent: t.string({ required: true, description: 'What is to be done, at most 2000 characters', extensions: length(1, 2000) }),
    successCriteria: t.stringList({ description: 'At most 20; each judged against the result (see docs/collaboration.md)', extensions: listOf(20) }),
    budget: t.int({ description: 'Integer cents that calls under the task may cost in all (default: no limit)' }),
    deadline: t.field({ type: 'DateTime', description: 'In the future, within a year; past it the task expires' }),
  }),
});

builder.mutationField('createTask', (t) =>
  t.prismaField({
    type: 'Task',
    description: 'Create a task (status `pending`)',
    auth: 'agent',
    args: { input: t.arg({ type: CreateTaskInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => tasks.createTask(ctx, input),
  }),
);

const Delegated = builder.objectRef<tasks.Delegated>('TaskDelegated').implement({
  fields: (t) => ({
    task: t.field({ type: Task, resolve: (d) => d.task }),
    delegation: t.field({ type: TaskDelegation, resolve: (d) => d.delegation }),
  }),
});

builder.mutationField('delegateTask', (t) =>
  t.field({
    type: Delegated,
    description: "Hand a task to one of the caller's own sub-agents (delegating again replaces the earlier delegation)",
    auth: 'agent',
    args: { id: t.arg.string({ required: true }), subAgentId: t.arg.id({ required: true }) },
    resolve: (_r, { id, subAgentId }, ctx) => tasks.delegateTask(ctx, id, { subAgentId }),
  }),
);

builder.mutationField('cancelTask', (t) =>
  t.prismaField({
    type: 'Task',
    description: 'Cancel a task that is pending or delegated (its creator only)',
    auth: 'agent',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => tasks.cancelTask(ctx, id),
  }),
);

const ExecutionVerdict = builder.objectRef<tasks.TaskExecuted>('TaskExecutionVerdict').implement({
  fields: (t) => ({
    executionId: t.id({ resolve: (e) => e.receipt.executionId }),
    status: t.string({ description: "The execution's: `success` or `error`", resolve: (e) => e.receipt.status }),
    criteriaMet: t.boolean({ resolve: (e) => e.taskExecution.criteriaMet }),
    verdicts: t.field({ type: [TaskVerdict], resolve: (e) => e.verdicts }),
    output: t.field({ type: 'JSON', nullable: true, description: "The capability's result", resolve: (e) => e.receipt.result }),
    costCents: t.int({ resolve: (e) => e.receipt.transaction.costCents }),
    payment: t.field({
      type: PaymentReceipt,
      nullable: true,
      description: "How the call was paid, from the delegate's wallet: what it cost and what is left there; null when it was free",
      resolve: (e) => e.receipt.payment,
    }),
  }),
});

const ExecutorReputation = builder.objectRef<tasks.TaskExecuted>('TaskExecutorReputation').implement({
  fields: (t) => ({
    executorDelta: t.int({
      description: `What was applied: +${tasks.EXECUTOR_REWARD} for a result that completed the task with a call paid for outside the task's family (0 for a free call or one paid to the family, less past the daily cap of ${DAILY_GAIN_CAP} or at the top of the scale), ${tasks.EXECUTOR_PENALTY} for one that did not`,
      resolve: (e) => e.taskExecution.executorDelta,
    }),
    reputation: t.int({ nullable: true, description: "The delegate's reputation after", resolve: (e) => e.reputation }),
  }),
});

const TaskExecuted = builder.objectRef<tasks.TaskExecuted>('TaskExecuted').implement({
  fields: (t) => ({
    execution: t.field({ type: ExecutionVerdict, resolve: (e) => e }),
    reputation: t.field({ type: ExecutorReputation, resolve: (e) => e }),
    task: t.field({ type: Task, resolve: (e) => e.task }),
  }),
});

const ExecuteTaskInput = builder.inputType('ExecuteTaskInput', {
  fields: (t) => ({
    capability: t.string({ required: true, description: "Within the delegate's authority scope" }),
    input: t.field({ type: 'JSON', required: true }),
    result: t.field({ type: 'JSON', required: true, description: "The delegate's structured result of the task, judged against its success criteria" }),
  }),
});

builder.mutationField('executeTask', (t) =>
  t.field({
    type: TaskExecuted,
    description: "The delegate executes the task under its budget and reports the result, judged against the task's criteria",
    auth: 'agent',
    args: { id: t.arg.string({ required: true }), input: t.arg({ type: ExecuteTaskInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => tasks.executeTask(ctx, id, input),
  }),
);

builder.queryField('task', (t) =>
  t.prismaField({
    type: 'Task',
    description: 'A task the caller created or is delegated',
    auth: 'agent',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => tasks.getTask(ctx, id),
  }),
);

builder.queryField('tasks', (t) =>
  pagedField(t, Task, {
    description: 'The tasks the caller created (role `created`, the default) or is delegated (`delegated`), newest first',
    auth: 'agent',
    args: {
      role: t.arg.string({ description: '`created` (default) or `delegated`', extensions: oneOf(['created', 'delegated']) }),
      status: t.arg.string({ extensions: oneOf(Object.keys(tasks.TASK_MOVES)) }),
    },
    resolve: (ctx, args, page) => tasks.listTasks(ctx, page, args),
  }),
);

const SparkInput = builder.inputType('PublishSparkInput', {
  fields: (t) => ({
    title: t.string({ required: true, description: 'At most 200 characters' }),
    content: t.string({ required: true, description: 'At most 10,000 characters' }),
    sparkType: t.string({ required: true, description: '`announcement`, `capability`, `insight`, `analysis` or `showcase`' }),
    qualityScore: t.float({ description: '0-100' }),
  }),
});

const PublisherReputation = builder.objectRef<sparks.Published>('SparkPublisherReputation').implement({
  fields: (t) => ({
    publisherDelta: t.exposeInt('publisherDelta', {
      description: `What was applied: +${sparks.PUBLISHER_REWARD} (spec §4.9), or less where a bound applied (\`reason\`): one rewarded spark per task, at most ${sparks.SPARK_DAILY_GAIN_CAP} added by sparks and ${DAILY_GAIN_CAP} gained in all in any 24 hours, a reputation of at most 100`,
    }),
    reputation: t.exposeInt('reputation', { description: "The publisher's reputation after" }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: `Why \`publisherDelta\` is below ${sparks.PUBLISHER_REWARD}: the bound that applied, as a sentence (${Object.values(sparks.SPARK_BOUNDS)
        .map((r) => `“${r}”`)
        .join(', ')}); null when the spark added its ${sparks.PUBLISHER_REWARD} in full`,
    }),
  }),
});

const PublishedSpark = builder.objectRef<sparks.Published>('PublishedSpark').implement({
  fields: (t) => ({
    spark: t.field({ type: Spark, resolve: (p) => p.spark }),
    reputation: t.field({ type: PublisherReputation, resolve: (p) => p }),
  }),
});

builder.mutationField('publishSpark', (t) =>
  t.field({
    type: PublishedSpark,
    description: `Publish a spark from a task (its creator or delegate); it adds its publisher ${sparks.PUBLISHER_REWARD} reputation within the bounds \`reputation.reason\` names when one applies`,
    auth: 'agent',
    args: { taskId: t.arg.string({ required: true }), input: t.arg({ type: SparkInput, required: true }) },
    resolve: (_r, { taskId, input }, ctx) => sparks.publishSpark(ctx, taskId, input),
  }),
);

builder.queryField('sparks', (t) =>
  pagedField(t, Spark, {
    description: "Every agent's sparks, newest first (no credential needed); at most 50 a page",
    maxSize: sparks.SPARKS_PAGE_MAX,
    args: {
      agentId: t.arg.id({ description: 'Only this publisher (an agent UUID)', extensions: uuid }),
      sparkType: t.arg.string({ description: 'Only this type', extensions: oneOf(sparks.SPARK_TYPES) }),
    },
    resolve: (ctx, args, page) => sparks.listSparks(ctx, page, { agentId: args.agentId ? String(args.agentId) : null, sparkType: args.sparkType }),
  }),
);
