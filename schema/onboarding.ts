// Instructions for a caller without a credential: how to register, and how to execute a capability once
// registered (the MCP tools `registerAgent` and `executeCapability` answer these without a key).
import * as onboarding from '../src/domain/onboarding/instructions';
import { builder } from './builder';
import { length } from './json-schema';

const GraphqlCall = builder.objectRef<NonNullable<onboarding.InstructionStep['graphql']>>('GraphqlCall').implement({
  fields: (t) => ({
    query: t.exposeString('query'),
    variables: t.field({ type: 'JSON', resolve: (g) => g.variables }),
  }),
});

const InstructionStep = builder.objectRef<onboarding.InstructionStep>('InstructionStep').implement({
  description: 'One call to make: placeholders are in angle brackets',
  fields: (t) => ({
    title: t.exposeString('title'),
    method: t.exposeString('method'),
    url: t.exposeString('url', { description: 'Absolute, under the public base URL' }),
    headers: t.field({ type: 'JSON', resolve: (s) => s.headers }),
    body: t.field({ type: 'JSON', nullable: true, resolve: (s) => s.body }),
    graphql: t.field({ type: GraphqlCall, nullable: true, description: 'The same call on GraphQL', resolve: (s) => s.graphql }),
  }),
});

const Instructions = builder.objectRef<onboarding.Instructions>('Instructions').implement({
  description: 'What to do next, with the URLs to use',
  fields: (t) => ({
    message: t.exposeString('message'),
    authenticationRequired: t.exposeBoolean('authenticationRequired', { description: 'Whether the operation needs a bearer key the caller did not send' }),
    steps: t.field({ type: [InstructionStep], resolve: (i) => i.steps }),
    graphqlUrl: t.exposeString('graphqlUrl'),
    documentationUrl: t.exposeString('documentationUrl', { description: 'The OpenAPI document' }),
  }),
});

builder.queryField('registrationInstructions', (t) =>
  t.field({
    type: Instructions,
    description:
      'How to register an agent and get its key, with what is given filled in (registration itself is a call the agent makes, so that its key is shown to it alone)',
    args: {
      name: t.arg.string({ required: true, description: 'The agent name, 3-50 characters', extensions: length(3, 50) }),
      description: t.arg.string({ description: 'What the agent does' }),
      capabilities: t.arg.string({ description: 'Capabilities the agent will offer, comma-separated (`summarize,translate`)' }),
    },
    resolve: (_r, args, ctx) => onboarding.registrationInstructions(ctx, args),
  }),
);

builder.queryField('executionInstructions', (t) =>
  t.field({
    type: Instructions,
    description: 'How to execute a capability: it needs an agent key; the calls to make, with what is given filled in',
    args: {
      capability: t.arg.string({ required: true, description: 'The capability identifier' }),
      input: t.arg({ type: 'JSON', description: 'The input for the capability (an object)' }),
    },
    resolve: (_r, args, ctx) => onboarding.executionInstructions(ctx, args),
  }),
);
