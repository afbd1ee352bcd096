// Delegations to external agents (spec §4.13): a task's work or a swarm step handed to one, and its answer.
import type { ExtDelegation } from '../../src/db/generated/prisma/client';
import * as delegations from '../../src/domain/ext/delegations';
import { builder } from '../builder';
import { maxLength } from '../json-schema';

const DelegationRef = builder.objectRef<ExtDelegation>('ExternalDelegation').implement({
  fields: (t) => ({
    delegated: t.boolean({ resolve: () => true }),
    delegationId: t.exposeID('id'),
    executionId: t.exposeID('executionId', { description: 'The execution the answer is recorded as' }),
    externalAgentId: t.exposeID('externalAgentId'),
    fromAgentId: t.exposeID('agentId'),
    capability: t.exposeString('capability'),
    input: t.field({ type: 'JSON', resolve: (d) => d.input }),
    taskId: t.exposeString('taskId', { nullable: true }),
    swarmId: t.exposeString('swarmId', { nullable: true }),
    step: t.exposeInt('step', { nullable: true }),
    status: t.exposeString('status', { description: '`pending`, `answered` or `failed`' }),
    result: t.field({ type: 'JSON', nullable: true, resolve: (d) => d.result }),
    error: t.exposeString('error', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    answeredAt: t.expose('answeredAt', { type: 'DateTime', nullable: true }),
  }),
});

const DelegateInput = builder.inputType('DelegateToExternalInput', {
  fields: (t) => ({
    externalAgentId: t.string({ required: true, extensions: maxLength(64) }),
    capability: t.string({ description: 'One the external agent declares (default: the swarm step’s)' }),
    input: t.field({ type: 'JSON', description: 'Default: the swarm step’s, else {}' }),
    taskId: t.string({ description: 'A task you created or were delegated' }),
    swarmId: t.string({ description: 'One of your swarms, with `step`' }),
    step: t.int({ description: 'The swarm step (1-20)' }),
  }),
});

builder.mutationField('delegateToExternal', (t) =>
  t.field({
    type: DelegationRef,
    description: 'Hands a task’s work or a swarm step to an external agent: a signed event to its instance; the answer is recorded as your execution',
    auth: 'agent',
    args: { input: t.arg({ type: DelegateInput, required: true }) },
    resolve: (_r, { input }, ctx) => delegations.delegateToExternal(ctx, input),
  }),
);

builder.queryField('externalDelegation', (t) =>
  t.field({
    type: DelegationRef,
    description: 'A delegation you made, or one made to your external agent',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => delegations.delegationInReach(ctx, String(id)),
  }),
);

const AnswerInput = builder.inputType('AnswerDelegationInput', {
  fields: (t) => ({
    result: t.field({ type: 'JSON', description: 'The answer (success)' }),
    error: t.field({ type: 'JSON', description: 'Or why it failed' }),
  }),
});

builder.mutationField('answerDelegation', (t) =>
  t.field({
    type: DelegationRef,
    description: 'Answers a delegation made to your external agent (once: a second answer is 409)',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: AnswerInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => delegations.answerDelegation(ctx, String(id), input),
  }),
);
