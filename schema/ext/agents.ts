// External agents (spec §4.13): agents that live elsewhere, registered by a marketplace agent, and the
// connection that fetches and checks their A2A agent card.
import type { ExternalAgent } from '../../src/db/generated/prisma/client';
import * as agents from '../../src/domain/ext/agents';
import { tierOf } from '../../src/domain/reputation/reputation';
import { builder } from '../builder';
import { pagedField } from '../paging';
import { maxLength } from '../json-schema';

const ExternalAgentRef = builder.objectRef<ExternalAgent>('ExternalAgent').implement({
  description: 'An agent that lives elsewhere, registered by a marketplace agent (its owner)',
  fields: (t) => ({
    externalAgentId: t.exposeID('id'),
    ownerAgentId: t.exposeID('ownerId'),
    instanceUrl: t.exposeString('instanceUrl'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    capabilities: t.exposeStringList('capabilities'),
    reputation: t.exposeInt('reputation', {
      description: "0-100, from 20: +1 an answered delegation of an agent outside its owner's family (at most 10 a day), -2 a failed one",
    }),
    tier: t.string({ resolve: (a) => tierOf(a.reputation) }),
    status: t.exposeString('status', { description: '`registered`, or `connected` once its agent card was fetched and checked' }),
    source: t.string({ description: 'Always `external`', resolve: () => 'external' }),
    card: t.field({ type: 'JSON', nullable: true, description: 'What the last connect found in its agent card', resolve: (a) => a.card }),
    connectedAt: t.expose('connectedAt', { type: 'DateTime', nullable: true }),
    delegations: t.exposeInt('delegations'),
    answered: t.exposeInt('answered'),
    failed: t.exposeInt('failed'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const RegisteredExternalAgent = builder.objectRef<agents.RegisteredExternalAgent>('RegisteredExternalAgent').implement({
  fields: (t) => ({
    registered: t.boolean({ resolve: () => true }),
    externalAgent: t.field({ type: ExternalAgentRef, resolve: (r) => r.agent }),
    secret: t.exposeString('secret', {
      description: 'The `whsec_` secret deliveries to the instance are signed with (HMAC `v1`, beside the Ed25519 `v1a`); shown only here',
    }),
  }),
});

const RegisterExternalAgentInput = builder.inputType('RegisterExternalAgentInput', {
  fields: (t) => ({
    instanceUrl: t.string({
      required: true,
      description: "The instance's HTTPS URL (deliveries are POSTed to it; its agent card is at its origin's /.well-known/agent-card.json)",
    }),
    capabilities: t.stringList({ required: true, description: 'What it can do: 1-50 capability identifiers' }),
    name: t.string({ description: 'Default: the host' }),
    description: t.string(),
  }),
});

builder.mutationField('registerExternalAgent', (t) =>
  t.field({
    type: RegisteredExternalAgent,
    description: 'Registers an agent that lives elsewhere, owned by the caller',
    auth: 'agent',
    args: { input: t.arg({ type: RegisterExternalAgentInput, required: true }) },
    resolve: (_r, { input }, ctx) => agents.registerExternalAgent(ctx, input),
  }),
);

builder.queryField('externalAgents', (t) =>
  pagedField<ExternalAgent>(t, ExternalAgentRef, {
    description: "The caller's external agents, newest first",
    auth: 'agent',
    resolve: (ctx, _args, page) => agents.listExternalAgents(ctx, page),
  }),
);

const GatewayConnection = builder.objectRef<agents.ConnectResult>('GatewayConnection').implement({
  fields: (t) => ({
    connected: t.exposeBoolean('connected'),
    reason: t.exposeString('reason', { nullable: true, description: 'Why not connected: the card could not be fetched, or is not an agent card' }),
    externalAgent: t.field({ type: ExternalAgentRef, resolve: (c) => c.agent }),
    card: t.field({
      type: 'JSON',
      nullable: true,
      description: 'What the card says: url, name, description, version, protocolVersion, endpoint, skills',
      resolve: (c) => c.card,
    }),
  }),
});

const ConnectGatewayInput = builder.inputType('ConnectGatewayInput', {
  fields: (t) => ({
    externalAgentId: t.string({ description: 'One of your external agents', extensions: maxLength(64) }),
    instanceUrl: t.string({ description: 'Or an instance URL: registered from its agent card when you have not registered it', extensions: maxLength(2048) }),
  }),
});

builder.mutationField('connectGateway', (t) =>
  t.field({
    type: GatewayConnection,
    description: "Fetches an external agent's A2A agent card through the SSRF-guarded client and checks it",
    auth: 'agent',
    args: { input: t.arg({ type: ConnectGatewayInput, required: true }) },
    resolve: (_r, { input }, ctx) => agents.connectGateway(ctx, input),
  }),
);
