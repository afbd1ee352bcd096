// The gateway's capability directory (spec §4.13): capabilities registered for the search, and the search
// across the catalog, the marketplace's services, registered capabilities and external agents.
import type { ExternalCapability } from '../../src/db/generated/prisma/client';
import * as capabilities from '../../src/domain/ext/capabilities';
import { builder } from '../builder';
import { pagedField } from '../paging';
import { maxLength, oneOf } from '../json-schema';

const ExternalCapabilityRef = builder.objectRef<ExternalCapability>('ExternalCapability').implement({
  fields: (t) => ({
    capabilityId: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    inputSchema: t.field({ type: 'JSON', resolve: (c) => c.inputSchema }),
    endpoint: t.exposeString('endpoint'),
    externalAgentId: t.exposeID('externalAgentId', { nullable: true }),
    ownerAgentId: t.exposeID('ownerId'),
    priceCents: t.exposeInt('priceCents'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const RegisteredCapability = builder.objectRef<ExternalCapability>('RegisteredExternalCapability').implement({
  fields: (t) => ({
    registered: t.boolean({ resolve: () => true }),
    capability: t.field({ type: ExternalCapabilityRef, resolve: (c) => c }),
  }),
});

const RegisterExternalCapabilityInput = builder.inputType('RegisterExternalCapabilityInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'A capability identifier, unique among yours' }),
    description: t.string({ required: true }),
    inputSchema: t.field({ type: 'JSON', required: true, description: 'A JSON Schema of its arguments (an object schema, at most 64 KiB)' }),
    endpoint: t.string({ required: true, description: 'The HTTPS URL that serves it' }),
    externalAgentId: t.string({ description: 'One of your external agents offering it' }),
    priceCents: t.int({ description: 'Integer cents per call (informative; default 0)' }),
  }),
});

builder.mutationField('registerExternalCapability', (t) =>
  t.field({
    type: RegisteredCapability,
    description: 'Registers a capability for the gateway search, with its description, input schema and endpoint',
    auth: 'agent',
    args: { input: t.arg({ type: RegisterExternalCapabilityInput, required: true }) },
    resolve: (_r, { input }, ctx) => capabilities.registerExternalCapability(ctx, input),
  }),
);

const CapabilityHit = builder.objectRef<capabilities.CapabilityHit>('GatewayCapability').implement({
  description: 'A capability found by the gateway search, and where it lives',
  fields: (t) => ({
    id: t.exposeID('id', { description: "The catalog slug, the service's, the registered capability's or the external agent's id" }),
    capability: t.exposeString('capability'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    source: t.exposeString('source', { description: '`catalog`, `marketplace` (a service here) or `external`' }),
    kind: t.exposeString('kind', { description: '`catalog`, `service`, `external_capability` or `external_agent`' }),
    serviceId: t.exposeID('serviceId', { nullable: true }),
    providerAgentId: t.exposeID('providerAgentId', { nullable: true, description: 'The agent that offers it (the owner, for external ones)' }),
    externalAgentId: t.exposeID('externalAgentId', { nullable: true }),
    endpoint: t.exposeString('endpoint', {
      description: "Where to call it: the marketplace's execute for the catalog and services; the endpoint or instance for external ones",
    }),
    inputSchema: t.field({ type: 'JSON', nullable: true, resolve: (h) => h.inputSchema }),
    priceCents: t.exposeInt('priceCents', { nullable: true }),
  }),
});

builder.queryField('searchGatewayCapabilities', (t) =>
  pagedField<capabilities.CapabilityHit>(t, CapabilityHit, {
    description: 'Capabilities from the catalog, the marketplace’s services, registered capabilities and external agents, by capability',
    auth: 'agent',
    args: {
      q: t.arg.string({ description: 'Text in the identifier, name or description', extensions: maxLength(200) }),
      capability: t.arg.string({ description: 'Exactly this capability', extensions: maxLength(64) }),
      source: t.arg.string({ description: '`catalog`, `marketplace` or `external`', extensions: oneOf(['catalog', 'marketplace', 'external']) }),
    },
    resolve: (ctx, args, page) => capabilities.searchCapabilities(ctx, args, page),
  }),
);
