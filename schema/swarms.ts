// Swarm sessions: steps the marketplace executes for their creator, in order or at once, and their progress
// as a live stream (Subscription.swarmEvents; REST SSE at /swarm/sessions/:id/events).
import * as swarms from '../src/domain/swarms/swarms';
import { builder, ownedByCaller } from './builder';
import { pagedField } from './paging';
import { oneOf } from './json-schema';

export const SwarmStep = builder.prismaObject('SwarmStep', {
  fields: (t) => ({
    stepId: t.exposeID('id'),
    ordinal: t.exposeInt('ordinal', { description: '1, 2, 3… in the order given' }),
    capability: t.exposeString('capability'),
    input: t.field({ type: 'JSON', resolve: (s) => s.input }),
    provider: t.exposeString('provider', { nullable: true }),
    status: t.exposeString('status', {
      description: '`pending`, `running`, `succeeded`, `failed`, `skipped` (an earlier step of a sequential swarm failed) or `cancelled`',
    }),
    executionId: t.exposeID('executionId', { description: 'The execution that runs the step (in /my/executions once it ran)' }),
    result: t.field({ type: 'JSON', nullable: true, resolve: (s) => s.result }),
    error: t.exposeString('error', { nullable: true }),
    costCents: t.exposeInt('costCents', { nullable: true }),
    attempts: t.exposeInt('attempt', { description: 'How many times it was claimed (more than once when an instance stopped mid-step)' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

export const SwarmSession = builder.prismaNode('SwarmSession', {
  authScopes: ownedByCaller,
  description: 'A goal worked through steps the marketplace executes for the session’s creator',
  id: { field: 'id' },
  fields: (t) => ({
    sessionId: t.exposeString('id', { description: '`swarm_…`' }),
    goal: t.exposeString('goal'),
    strategy: t.exposeString('strategy', { description: '`sequential` or `parallel`' }),
    status: t.exposeString('status', { description: '`running`, `completed` (every step succeeded), `failed` or `cancelled`' }),
    stepCount: t.exposeInt('stepCount'),
    completedSteps: t.exposeInt('completedSteps', { description: 'Steps that succeeded' }),
    failedSteps: t.exposeInt('failedSteps'),
    // A session just made or read carries its steps; the sessions of a list have theirs read for all at once.
    steps: t.relation('steps', { query: { orderBy: swarms.STEPS_ORDER } }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const SwarmEvent = builder.objectRef<swarms.SwarmEvent>('SwarmEvent').implement({
  description: "One item of a swarm's progress: a finished step (`event: step`), or the session's end (`completed`, `failed`, `cancelled`)",
  fields: (t) => ({
    id: t.id({ description: 'Its number in the stream (the SSE id, for Last-Event-ID)', resolve: (e) => String(e.seq) }),
    sequence: t.exposeInt('seq'),
    event: t.exposeString('event'),
    sessionId: t.exposeString('sessionId'),
    status: t.exposeString('status', { description: "The session's" }),
    completedSteps: t.exposeInt('completedSteps'),
    step: t.field({ type: SwarmStep, nullable: true, resolve: (e) => e.step }),
    at: t.field({ type: 'DateTime', resolve: (e) => e.at }),
  }),
});

const SwarmStepInput = builder.inputType('SwarmStepInput', {
  fields: (t) => ({
    capability: t.string({ required: true }),
    input: t.field({
      type: 'JSON',
      description:
        'The capability’s input (default {}). In a sequential swarm a string `$previous` (or `$previous.path`, `$steps.N`, `$steps.N.path`) is replaced by an earlier step’s result',
    }),
    provider: t.string({ description: 'A service key or id: exactly that provider (else the best-ranked, with fallback)' }),
  }),
});

const CreateSwarmInput = builder.inputType('CreateSwarmSessionInput', {
  fields: (t) => ({
    goal: t.string({ required: true, description: 'At most 2000 characters' }),
    strategy: t.string({ required: true, description: '`sequential` or `parallel`' }),
    steps: t.field({ type: [SwarmStepInput], required: true, description: `1 to ${swarms.MAX_STEPS} steps` }),
  }),
});

builder.mutationField('createSwarmSession', (t) =>
  t.prismaField({
    type: 'SwarmSession',
    description: 'Start a swarm: its steps run at once (status `running`)',
    auth: 'agent',
    args: { input: t.arg({ type: CreateSwarmInput, required: true }) },
    resolve: (_q, _r, { input }, ctx) => swarms.createSwarm(ctx, input),
  }),
);

builder.mutationField('cancelSwarmSession', (t) =>
  t.prismaField({
    type: 'SwarmSession',
    description: 'Cancel a running swarm: steps not finished are cancelled',
    auth: 'agent',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => swarms.cancelSwarm(ctx, id),
  }),
);

builder.queryField('swarmSession', (t) =>
  t.prismaField({
    type: 'SwarmSession',
    description: "One of the caller's swarms",
    auth: 'agent',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_q, _r, { id }, ctx) => swarms.getSwarm(ctx, id),
  }),
);

builder.queryField('swarmSessions', (t) =>
  pagedField(t, SwarmSession, {
    description: "The caller's swarms, newest first",
    auth: 'agent',
    args: {
      status: t.arg.string({
        description: '`running`, `completed`, `failed` or `cancelled`',
        extensions: oneOf(['running', 'completed', 'failed', 'cancelled']),
      }),
    },
    resolve: (ctx, args, page) => swarms.listSwarms(ctx, page, args.status),
  }),
);

builder.subscriptionField('swarmEvents', (t) =>
  t.field({
    type: SwarmEvent,
    description:
      "A swarm's progress: each finished step in the order they finished, then its end. `after` (an event's sequence, as SSE's Last-Event-ID) replays the events after it first. Counts against the agent's concurrent streams.",
    auth: 'agent',
    args: { sessionId: t.arg.string({ required: true }), after: t.arg.int({ description: 'Resume after this sequence' }) },
    subscribe: (_root, { sessionId, after }, ctx) => swarms.followSwarm(ctx, sessionId, after ?? null),
    resolve: (event) => event,
  }),
);
