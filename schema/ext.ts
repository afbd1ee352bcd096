// The third-party agent gateway (spec §4.13): external agents and their connection, the capability
// directory, gateway events, passports, vault tokens, delegations to external agents, the tool hub,
// payment offers with their checkout, and the radio.
import { encodePaymentResponseHeader } from '@x402/core/http';
import type { ExtDelegation, ExternalAgent, ExternalCapability, PaymentOffer } from '../src/db/generated/prisma/client';
import type { Ctx } from '../src/domain/context';
import * as agents from '../src/domain/ext/agents';
import * as capabilities from '../src/domain/ext/capabilities';
import * as credentials from '../src/domain/ext/credentials';
import * as delegations from '../src/domain/ext/delegations';
import * as events from '../src/domain/ext/gateway-events';
import * as hub from '../src/domain/ext/hub';
import * as offers from '../src/domain/ext/offers';
import * as radio from '../src/domain/ext/radio';
import { tierOf } from '../src/domain/reputation/reputation';
import { builder } from './builder';
import { pagedField } from './paging';
import { X402Settlement } from './payments';
import { amountFields } from './wallets';
import { length, listOf, maxLength, oneOf, range } from './json-schema';

const ExternalAgentRef = builder.objectRef<ExternalAgent>('ExternalAgent').implement({
  description: 'An agent that lives elsewhere, registered by a marketplace agent (its owner)',
  fields: (t) => ({
    externalAgentId: t.exposeID('id'),
    ownerAgentId: t.exposeID('ownerId'),
    instanceUrl: t.exposeString('instanceUrl'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    capabilities: t.exposeStringList('capabilities'),
    reputation: t.exposeInt('reputation', { description: "0-100, from 20: +1 an answered delegation of an agent outside its owner's family (at most 10 a day), -2 a failed one" }),
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
    secret: t.exposeString('secret', { description: 'The `whsec_` secret deliveries to the instance are signed with (HMAC `v1`, beside the Ed25519 `v1a`); shown only here' }),
  }),
});

const RegisterExternalAgentInput = builder.inputType('RegisterExternalAgentInput', {
  fields: (t) => ({
    instanceUrl: t.string({ required: true, description: "The instance's HTTPS URL (deliveries are POSTed to it; its agent card is at its origin's /.well-known/agent-card.json)" }),
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
    card: t.field({ type: 'JSON', nullable: true, description: 'What the card says: url, name, description, version, protocolVersion, endpoint, skills', resolve: (c) => c.card }),
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

const GatewayEventRef = builder.objectRef<events.GatewayEventView>('GatewayEvent').implement({
  fields: (t) => ({
    id: t.exposeID('id', { description: '`gev_…`' }),
    seq: t.exposeInt('seq', { description: 'Its number in the owner’s stream' }),
    type: t.exposeString('type', { description: events.GATEWAY_EVENT_TYPES.map((e) => `\`${e}\``).join(', ') }),
    externalAgentId: t.exposeID('externalAgentId'),
    data: t.field({ type: 'JSON', resolve: (e) => e.data }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const GatewayPoll = builder.objectRef<events.GatewayPoll>('GatewayPoll').implement({
  description: "Events addressed to the caller's external agents after a cursor",
  fields: (t) => ({
    events: t.field({ type: [GatewayEventRef], resolve: (p) => p.events }),
    cursor: t.exposeInt('cursor', { description: 'The number of the last event answered (where the poll started when none): pass it back as `after`' }),
    hasMore: t.exposeBoolean('hasMore'),
  }),
});

builder.queryField('gatewayEvents', (t) =>
  t.field({
    type: GatewayPoll,
    description:
      `The events addressed to the caller's external agents after \`after\` (absent: after the cursor it last acknowledged), oldest first. Passing \`after\` acknowledges every event up to it; nothing else changes, so an event is answered again until a cursor passes it. Kept ${events.GATEWAY_EVENT_RETENTION_DAYS} days.`,
    auth: 'agent',
    args: { after: t.arg.int({ extensions: range(0, 2 ** 31 - 1) }), limit: t.arg.int({ description: `1-${events.POLL_MAX} (default ${events.POLL_DEFAULT})`, extensions: range(1, events.POLL_MAX) }) },
    resolve: (_r, args, ctx) => events.gatewayEvents(ctx, args),
  }),
);

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
    endpoint: t.exposeString('endpoint', { description: "Where to call it: the marketplace's execute for the catalog and services; the endpoint or instance for external ones" }),
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

const PassportRef = builder.objectRef<{ passport: Record<string, unknown>; signature: string }>('ReputationPassport').implement({
  fields: (t) => ({
    passport: t.field({
      type: 'JSON',
      description: 'agent_id, name, reputation, tier, status, member_since, executions, provider, disputes, issued_at, expires_at, issuer: exactly the `passport` claim of the signature',
      resolve: (p) => p.passport,
    }),
    signature: t.exposeString('signature', { description: 'A compact JWS (EdDSA, typ passport+jwt) by the key named by its kid in /.well-known/jwks.json' }),
  }),
});

builder.queryField('reputationPassport', (t) =>
  t.field({
    type: PassportRef,
    description: "An agent's signed reputation passport",
    auth: 'agent',
    args: { agentId: t.arg.id({ required: true }) },
    resolve: (_r, { agentId }, ctx) => credentials.issuePassport(ctx, String(agentId)),
  }),
);

const Verdict = builder.objectRef<credentials.Verdict>('CredentialVerdict').implement({
  fields: (t) => ({
    valid: t.exposeBoolean('valid'),
    reason: t.exposeString('reason', { nullable: true, description: 'Why not: malformed, unknown_key, bad_signature, wrong_type, wrong_issuer, expired, not_yet_valid, mismatch, revoked, wrong_audience, scope' }),
    claims: t.field({ type: 'JSON', nullable: true, description: 'The signed claims (when the signature is good)', resolve: (v) => v.claims }),
  }),
});

const VerifyPassportInput = builder.inputType('VerifyPassportInput', {
  fields: (t) => ({
    signature: t.string({ required: true, description: 'The passport’s compact JWS', extensions: maxLength(16_384) }),
    passport: t.field({ type: 'JSON', description: 'The passport object: when given, it must be the one signed' }),
  }),
});

builder.mutationField('verifyPassport', (t) =>
  t.field({
    type: Verdict,
    description: 'Verifies a reputation passport (no key needed)',
    args: { input: t.arg({ type: VerifyPassportInput, required: true }) },
    resolve: (_r, { input }, ctx) => credentials.verifyPassport(ctx, input),
  }),
);

const VaultTokenRef = builder.objectRef<credentials.IssuedVaultToken>('VaultToken').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'A compact JWS (EdDSA, typ vault+jwt): iss, sub (you), aud, scope, iat, exp, jti (the token id)' }),
    tokenId: t.exposeID('tokenId', { description: '`vt_…`: revoke it with DELETE /ext/vault/tokens/:id' }),
    audience: t.exposeString('audience'),
    scopes: t.exposeStringList('scopes'),
    subject: t.exposeString('subject', { nullable: true }),
    issuedAt: t.expose('issuedAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

const VaultTokenInput = builder.inputType('IssueVaultTokenInput', {
  fields: (t) => ({
    scopes: t.stringList({ required: true, description: 'What it allows: operations (`execute`), `<operation>:<name>` (`capability:summarize`, `capability:*`) or `*`' }),
    audience: t.string({ required: true, description: 'Who it is for (an external agent id, a URL)' }),
    subject: t.string({ description: 'Whom it acts for, when not you alone (an external agent id)' }),
    expiresIn: t.int({ description: 'Seconds, 1-86400 (default 900)' }),
  }),
});

builder.mutationField('issueVaultToken', (t) =>
  t.field({
    type: VaultTokenRef,
    description: 'A short-lived, scoped token signed for the caller',
    auth: 'agent',
    args: { input: t.arg({ type: VaultTokenInput, required: true }) },
    resolve: (_r, { input }, ctx) => credentials.issueVaultToken(ctx, input),
  }),
);

const VerifyVaultTokenInput = builder.inputType('VerifyVaultTokenInput', {
  fields: (t) => ({
    token: t.string({ required: true, extensions: maxLength(16_384) }),
    audience: t.string({ description: 'When given: the token must be for it' }),
    scope: t.string({ description: 'When given: the token must grant it' }),
  }),
});

builder.mutationField('verifyVaultToken', (t) =>
  t.field({
    type: Verdict,
    description: 'Verifies a vault token: signature, lifetime, revocation (and audience and scope when asked)',
    auth: 'agent',
    args: { input: t.arg({ type: VerifyVaultTokenInput, required: true }) },
    resolve: (_r, { input }, ctx) => credentials.verifyVaultToken(ctx, input),
  }),
);

const RevokedToken = builder.objectRef<{ tokenId: string; revokedAt: Date }>('RevokedVaultToken').implement({
  fields: (t) => ({
    revoked: t.boolean({ resolve: () => true }),
    tokenId: t.exposeID('tokenId'),
    revokedAt: t.expose('revokedAt', { type: 'DateTime' }),
  }),
});

builder.mutationField('revokeVaultToken', (t) =>
  t.field({
    type: RevokedToken,
    description: 'Revokes one of your vault tokens: every later verification refuses it',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => credentials.revokeVaultToken(ctx, String(id)),
  }),
);

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

const ToolFormat = builder.enumType('ToolFormat', {
  description: '`mcp` (an MCP tool), `openapi` (an OpenAPI operation), `a2a` (an A2A skill), `skill_md` (an Agent Skills SKILL.md)',
  values: hub.TOOL_FORMATS,
});

const Converted = builder.objectRef<hub.Converted>('ConvertedTool').implement({
  fields: (t) => ({
    converted: t.boolean({ resolve: () => true }),
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    tool: t.field({ type: 'JSON', description: 'The tool in the target format (SKILL.md as a string)', resolve: (c) => c.tool }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    inputSchema: t.field({ type: 'JSON', resolve: (c) => c.inputSchema }),
  }),
});

const ConvertInput = builder.inputType('ConvertToolInput', {
  fields: (t) => ({
    from: t.field({ type: ToolFormat, required: true }),
    to: t.field({ type: ToolFormat, required: true }),
    tool: t.field({ type: 'JSON', required: true, description: 'The tool: an object, or the SKILL.md text' }),
  }),
});

builder.mutationField('convertTool', (t) =>
  t.field({
    type: Converted,
    description: 'Converts a tool description between MCP, OpenAPI, A2A and SKILL.md (name, description and input schema kept)',
    auth: 'agent',
    args: { input: t.arg({ type: ConvertInput, required: true }) },
    resolve: (_r, { input }, ctx) => hub.convertTool(ctx, input),
  }),
);

const Imported = builder.objectRef<hub.Imported>('ImportedTool').implement({
  fields: (t) => ({
    imported: t.boolean({ resolve: () => true }),
    kind: t.exposeString('kind', { description: '`skill` or `service`' }),
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    serviceKey: t.exposeString('serviceKey', { nullable: true }),
    signingSecret: t.exposeString('signingSecret', { nullable: true, description: "A service's signing secret, shown only here" }),
  }),
});

const ImportInput = builder.inputType('ImportToolInput', {
  fields: (t) => ({
    format: t.field({ type: ToolFormat, required: true }),
    tool: t.field({ type: 'JSON', required: true }),
    as: t.string({ description: '`skill` (a draft skill of yours; the default) or `service` (offered at `endpoint`)' }),
    endpoint: t.string({ description: "A service's HTTPS endpoint" }),
    costPerCall: t.int({ description: "A service's price, integer cents (default 0)" }),
    runtime: t.string({ description: "A skill's runtime (default nodejs)" }),
    entrypoint: t.string({ description: "A skill's entrypoint (default index.js)" }),
  }),
});

builder.mutationField('importTool', (t) =>
  t.field({
    type: Imported,
    description: 'Imports a tool description as a skill or a service of yours',
    auth: 'agent',
    args: { input: t.arg({ type: ImportInput, required: true }) },
    resolve: (_r, { input }, ctx) => hub.importTool(ctx, input),
  }),
);

// ── Payment offers and checkout ──────────────────────────────────────────────────────────────────────

const PaymentOfferRef = builder.objectRef<PaymentOffer>('PaymentOffer').implement({
  description: 'Something an agent offers for a price, bought through a checkout URL that takes x402 payments',
  fields: (t) => ({
    offerId: t.exposeID('id', { description: '`offer_…`' }),
    agentId: t.exposeID('agentId', { description: 'The agent that made the offer' }),
    description: t.exposeString('description'),
    priceCents: t.exposeInt('priceCents'),
    ...amountFields(t, 'price', (o: PaymentOffer) => o.amount, 'The price'),
    payeeAgentId: t.exposeID('payeeAgentId', { description: "Whose wallet is paid (an external agent's owner, for an offer of an external agent)" }),
    payeeExternalAgentId: t.exposeID('payeeExternalId', { nullable: true, description: 'The external agent the sale is for (it gets a `payment.received` gateway event)' }),
    expiresAt: t.field({ type: 'DateTime', description: 'No checkout of it opens after this', resolve: (o) => o.expiresAt! }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const CreatedOfferRef = builder.objectRef<offers.CreatedOffer>('CreatedPaymentOffer').implement({
  fields: (t) => ({
    offerId: t.exposeID('offerId'),
    offer: t.field({ type: PaymentOfferRef, resolve: (c) => c.offer }),
  }),
});

const CreatePaymentOfferInput = builder.inputType('CreatePaymentOfferInput', {
  fields: (t) => ({
    description: t.string({ description: 'Required: what is sold (1-500 characters); the checkout shows it', extensions: length(1, 500) }),
    priceCents: t.int({ description: `Integer cents, 1-${offers.OFFER_MAX_CENTS} (or priceBaseUnits)`, extensions: range(1, offers.OFFER_MAX_CENTS) }),
    priceBaseUnits: t.string({ description: "The price in the asset's base units (an integer string; a whole number of cents)" }),
    payeeAgentId: t.string({ description: 'Who is paid: you (the default) or one of your sub-agents', extensions: maxLength(64) }),
    payeeExternalAgentId: t.string({ description: 'Or one of your external agents: paid to your wallet, with a `payment.received` gateway event for it', extensions: maxLength(64) }),
    expiresIn: t.int({ description: 'Seconds until the offer expires, 60-7776000 (default 2592000: 30 days)', extensions: range(60, 7_776_000) }),
  }),
});

builder.mutationField('createPaymentOffer', (t) =>
  t.field({
    type: CreatedOfferRef,
    description: 'Offers something for a price: buyers open a checkout of it and pay with x402',
    auth: 'agent',
    args: { input: t.arg({ type: CreatePaymentOfferInput, required: true }) },
    resolve: (_r, { input }, ctx) => offers.createPaymentOffer(ctx, input),
  }),
);

builder.queryField('paymentOffer', (t) =>
  t.field({
    type: PaymentOfferRef,
    description: 'An offer, by id (whoever knows its id may buy it)',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => offers.paymentOffer(ctx, String(id)),
  }),
);

const CheckoutRef = builder.objectRef<offers.OpenedCheckout>('Checkout').implement({
  description: "One purchase of an offer: its URL answers with the offer's x402 requirements until a payment settles it",
  fields: (t) => ({
    checkoutId: t.id({ description: '`chk_…`', resolve: (c) => c.session.id }),
    checkoutUrl: t.exposeString('checkoutUrl', { description: 'Under PUBLIC_BASE_URL; needs no key (knowing it is enough to pay)' }),
    offerId: t.id({ resolve: (c) => c.offer.id }),
    description: t.string({ resolve: (c) => c.offer.description }),
    buyerAgentId: t.id({ resolve: (c) => c.session.buyerId }),
    payeeAgentId: t.id({ resolve: (c) => c.offer.payeeAgentId }),
    status: t.string({ description: '`open` or `paid`', resolve: (c) => c.session.status }),
    priceCents: t.int({ resolve: (c) => c.offer.priceCents }),
    ...amountFields(t, 'amount', (c: offers.OpenedCheckout) => c.session.amount, 'What the payment must be'),
    payer: t.string({ nullable: true, description: 'The address that paid', resolve: (c) => c.session.payer }),
    paymentId: t.id({ nullable: true, resolve: (c) => c.session.paymentId }),
    paidAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.session.paidAt }),
    expiresAt: t.field({ type: 'DateTime', description: 'An open checkout cannot be paid after this (open another)', resolve: (c) => c.session.expiresAt }),
    createdAt: t.field({ type: 'DateTime', resolve: (c) => c.session.createdAt }),
  }),
});

builder.mutationField('createCheckout', (t) =>
  t.field({
    type: CheckoutRef,
    description: "Opens a checkout of an offer for you: a URL answering with the offer's x402 payment requirements for an hour",
    auth: 'agent',
    args: { input: t.arg({ type: builder.inputType('CreateCheckoutInput', { fields: (f) => ({ offerId: f.string({ description: 'Required: the offer to buy', extensions: maxLength(64) }) }) }), required: true }) },
    resolve: (_r, { input }, ctx) => offers.openCheckout(ctx, input),
  }),
);

builder.queryField('checkout', (t) =>
  t.field({
    type: CheckoutRef,
    description: 'A checkout you opened, or one of your offers',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => offers.checkoutSession(ctx, String(id)),
  }),
);

const CheckoutReceiptRef = builder.objectRef<offers.CheckoutReceipt>('CheckoutReceipt').implement({
  fields: (t) => ({
    paid: t.boolean({ resolve: () => true }),
    checkout: t.field({ type: CheckoutRef, resolve: (r) => r }),
    settlement: t.field({ type: X402Settlement, description: 'What PAYMENT-RESPONSE carries', resolve: (r) => r.settlement }),
  }),
});

/** A paid checkout's answer carries the settlement in PAYMENT-RESPONSE, as x402 says. */
function withPaymentResponse(ctx: Ctx, receipt: offers.CheckoutReceipt): offers.CheckoutReceipt {
  ctx.httpAnswer = { headers: { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(receipt.settlement) } };
  return receipt;
}

builder.queryField('checkoutReceipt', (t) =>
  t.field({
    type: CheckoutReceiptRef,
    description:
      "A checkout URL's answer to a read (no key needed; its REST GET or HEAD without a payment): the receipt once paid, else PAYMENT_REQUIRED with the x402 requirements in `extensions` (CONFLICT once expired). It never pays: a payment goes to payCheckout",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, { id }, ctx) => withPaymentResponse(ctx, await offers.checkoutReceipt(ctx, String(id))),
  }),
);

builder.mutationField('payCheckout', (t) =>
  t.field({
    type: CheckoutReceiptRef,
    description:
      "Pays a checkout URL (no key needed; its REST POST, and its GET carrying PAYMENT-SIGNATURE). With `payment`: settled once and paid on to the payee; a replay answers the same receipt. Without: the receipt once paid, else PAYMENT_REQUIRED with the x402 requirements in `extensions`",
    args: {
      id: t.arg.id({ required: true }),
      payment: t.arg.string({ description: 'An x402 v2 PaymentPayload (scheme exact, EIP-3009), as PAYMENT-SIGNATURE carries it' }),
    },
    resolve: async (_r, { id, payment }, ctx) => withPaymentResponse(ctx, await offers.payCheckout(ctx, String(id), payment)),
  }),
);

// ── The radio ────────────────────────────────────────────────────────────────────────────────────────

const RadioChannelsRef = builder.objectRef<radio.RadioChannels>('RadioChannels').implement({
  fields: (t) => ({
    subscribed: t.exposeBoolean('subscribed', { description: 'Whether you follow any channel (announcements reach every listener regardless)' }),
    channels: t.exposeStringList('channels', { description: 'Every channel you follow' }),
  }),
});

const SubscribeRadioInput = builder.inputType('SubscribeRadioInput', {
  fields: (t) => ({
    channels: t.stringList({
      description: `Required. Up to ${radio.MAX_RADIO_CHANNELS}: a social-… or radio-… capability (its executions), \`social-*\`, \`radio-*\`, \`announcements\`, or \`*\` (everything)`,
      extensions: listOf(radio.MAX_RADIO_CHANNELS),
    }),
    replace: t.boolean({ description: 'true: these become all you follow (an empty list: none); default: added to what you follow' }),
  }),
});

builder.mutationField('subscribeRadio', (t) =>
  t.field({
    type: RadioChannelsRef,
    description: 'Follows radio channels',
    auth: 'agent',
    args: { input: t.arg({ type: SubscribeRadioInput, required: true }) },
    resolve: (_r, { input }, ctx) => radio.subscribeRadio(ctx, input),
  }),
);

builder.queryField('radioChannels', (t) =>
  t.field({ type: RadioChannelsRef, description: 'The radio channels you follow', auth: 'agent', resolve: (_r, _a, ctx) => radio.radioChannels(ctx) }),
);

const RadioEventRef = builder.objectRef<radio.RadioEvent>('RadioEvent').implement({
  description: "One broadcast of the radio, numbered in the radio's stream",
  fields: (t) => ({
    id: t.id({ description: 'Its number, as a string (the SSE id, for Last-Event-ID)', resolve: (e) => String(e.seq) }),
    sequence: t.exposeInt('seq'),
    event: t.string({ description: 'Its type again: the SSE event name', resolve: (e) => e.type }),
    eventId: t.exposeString('eventId', { description: '`rev_…`' }),
    type: t.exposeString('type', { description: '`execution` (of a social-… or radio-… capability) or `announcement`' }),
    channel: t.exposeString('channel', { description: 'The capability executed, or `announcements`' }),
    data: t.field({
      type: 'JSON',
      description: 'An execution: execution_id, capability, agent_id (the caller), service_id, status, result (on success), latency_ms. An announcement: title, message, data',
      resolve: (e) => e.data,
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (e) => e.createdAt }),
  }),
});

builder.subscriptionField('radioEvents', (t) =>
  t.field({
    type: RadioEventRef,
    description:
      "The radio's broadcasts on the channels you follow (as they are when the stream opens) and every announcement. `after` (a broadcast's number, as SSE's Last-Event-ID) replays those after it first (kept 7 days). Counts against the agent's concurrent streams.",
    auth: 'agent',
    args: { after: t.arg.int({ description: 'Resume after this number' }) },
    subscribe: (_root, args, ctx) => radio.followRadio(ctx, args),
    resolve: (event) => event,
  }),
);

builder.mutationField('createRadioAnnouncement', (t) =>
  t.field({
    type: RadioEventRef,
    description: 'A marketplace announcement, broadcast to every radio listener (administrator)',
    auth: 'admin',
    args: {
      input: t.arg({
        type: builder.inputType('CreateRadioAnnouncementInput', {
          fields: (f) => ({ message: f.string({ description: 'Required: 1-2000 characters', extensions: length(1, 2000) }), title: f.string({ description: 'At most 200 characters', extensions: maxLength(200) }), data: f.field({ type: 'JSON', description: 'An object, at most 16 KiB' }) }),
        }),
        required: true,
      }),
    },
    resolve: (_r, { input }, ctx) => radio.announceOnRadio(ctx, input),
  }),
);
