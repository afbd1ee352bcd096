// Execute: a capability call routed to providers with fallback, or served by the marketplace's built-ins.
import * as execution from '../src/domain/execution/execute';
import { builder } from './builder';

const ExecuteModeEnum = builder.enumType('ExecuteMode', {
  description: '`auto`: the best-ranked providers, up to 3, skipping cooling ones; `chosen`: exactly `provider`',
  values: execution.MODES,
});

const ExecutionProvider = builder.objectRef<NonNullable<execution.ExecutionReceipt['provider']>>('ExecutionProvider').implement({
  fields: (t) => ({
    serviceId: t.exposeID('serviceId', { nullable: true, description: 'Null for the marketplace itself' }),
    serviceKey: t.exposeString('serviceKey', { description: '`marketplace` for a built-in capability' }),
    name: t.exposeString('name'),
    reputation: t.exposeInt('reputation'),
  }),
});

const ExecutionCharge = builder.objectRef<execution.ExecutionReceipt['transaction']>('ExecutionCharge').implement({
  fields: (t) => ({
    transactionId: t.exposeID('transactionId'),
    costCents: t.exposeInt('costCents', { description: "The provider's price per call; 0 when every attempt failed" }),
    latencyMs: t.exposeInt('latencyMs', { description: 'The whole execution, every attempt included' }),
  }),
});

export const AttemptReceipt = builder.objectRef<execution.AttemptReceipt>('AttemptReceipt').implement({
  description: 'One provider tried, in order',
  fields: (t) => ({
    ordinal: t.exposeInt('ordinal'),
    serviceId: t.exposeID('serviceId', { nullable: true }),
    serviceKey: t.exposeString('serviceKey'),
    outcome: t.exposeString('outcome', { description: '`success` or `failure`' }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why it failed: http_<status>, timeout, connection, tls, blocked_address, invalid_json, empty_body, too_large',
    }),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs'),
    score: t.exposeFloat('score', { nullable: true, description: "The provider's ranking score (auto mode)" }),
    priceCents: t.exposeInt('priceCents'),
  }),
});

const ExecutionReceipt = builder.objectRef<execution.ExecutionReceipt>('ExecutionReceipt').implement({
  fields: (t) => ({
    executionId: t.exposeID('executionId'),
    capability: t.exposeString('capability'),
    mode: t.expose('mode', { type: ExecuteModeEnum }),
    status: t.exposeString('status', { description: '`success` or `error`' }),
    result: t.field({ type: 'JSON', nullable: true, description: "The provider's JSON answer", resolve: (r) => r.result }),
    error: t.exposeString('error', { nullable: true }),
    provider: t.field({ type: ExecutionProvider, nullable: true, description: 'The provider that answered (or was tried last)', resolve: (r) => r.provider }),
    transaction: t.field({ type: ExecutionCharge, resolve: (r) => r.transaction }),
    attempts: t.field({ type: [AttemptReceipt], resolve: (r) => r.attempts }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ExecuteInput = builder.inputType('ExecuteInput', {
  fields: (t) => ({
    capability: t.string({ required: true, description: 'The capability identifier, such as "summarize"' }),
    input: t.field({ type: 'JSON', required: true, description: 'Free-form, capability-specific object', extensions: { jsonSchema: { type: 'object' } } }),
    provider: t.string({ description: 'A service key (svc_…) or service id; required with mode chosen' }),
    mode: t.field({ type: ExecuteModeEnum, description: 'Default auto' }),
    taskId: t.string({ description: "A task delegated to the caller: the call is made under it and its budget pays (402 when what is left does not cover the provider's price)" }),
  }),
});

builder.mutationField('execute', (t) =>
  t.field({
    type: ExecutionReceipt,
    description: 'Call a capability: signed POST to the provider (CONTRACT §6), fallback in auto mode, everything recorded',
    // No scope check before the resolver: execute authenticates the caller itself, in the same statement
    // that ranks the providers (401/403 still come before any other answer).
    args: { input: t.arg({ type: ExecuteInput, required: true }) },
    resolve: (_r, { input }, ctx) => execution.execute(ctx, input),
  }),
);
