// ACP: the priced offerings as Agent Commerce Protocol offerings, and their payment terms.
import * as acp from '../src/domain/acp/acp';
import { builder } from './builder';
import { pagedField } from './paging';
import { X402Requirements } from './payments';

const AcpPrice = builder.objectRef<acp.AcpPrice>('AcpPrice').implement({
  fields: (t) => ({
    amount: t.exposeString('amount', { description: 'A decimal string in the currency' }),
    baseUnits: t.exposeString('baseUnits', { description: "The same in the currency's base units" }),
    currency: t.exposeString('currency', { description: 'The network token (`VIRTUAL`) or `USDC`' }),
    decimals: t.exposeInt('decimals'),
  }),
});

const AcpProvider = builder.objectRef<acp.AcpOffering['provider']>('AcpProvider').implement({
  fields: (t) => ({ agentId: t.exposeID('agentId'), name: t.exposeString('name'), reputation: t.exposeInt('reputation') }),
});

const AcpOffering = builder.objectRef<acp.AcpOffering>('AcpOffering').implement({
  description: 'A paid, active offer of a capability by one service',
  fields: (t) => ({
    offeringId: t.exposeID('offeringId', { description: '`<service key>:<capability>`' }),
    capability: t.exposeString('capability'),
    serviceId: t.exposeID('serviceId'),
    serviceKey: t.exposeString('serviceKey'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    provider: t.field({ type: AcpProvider, resolve: (o) => o.provider }),
    priceCents: t.exposeInt('priceCents', { description: 'The price per call in US cents' }),
    price: t.field({ type: AcpPrice, resolve: (o) => o.price }),
  }),
});

const AcpToken = builder.objectRef<acp.AcpStatus['token']>('AcpToken').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    decimals: t.exposeInt('decimals'),
    usdRate: t.exposeString('usdRate', { description: 'US dollars per token, as configured' }),
  }),
});

const AcpStatus = builder.objectRef<acp.AcpStatus>('AcpStatus').implement({
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    network: t.exposeString('network', { description: '`base-sepolia` in sandbox mode' }),
    chainId: t.exposeInt('chainId'),
    token: t.field({ type: AcpToken, resolve: (s) => s.token }),
    settlement: t.exposeString('settlement', { description: '`sandbox` (the ledger) or `x402` (a remote facilitator)' }),
    offerings: t.exposeInt('offerings', { description: 'Priced offerings listed' }),
  }),
});

builder.queryField('acpStatus', (t) =>
  t.field({ type: AcpStatus, description: 'Whether ACP offerings are served, and on which network', resolve: (_r, _a, ctx) => acp.acpStatus(ctx) }),
);

const AcpCurrency = builder.enumType('AcpCurrency', {
  description: '`token`: the network token at the configured rate; `usdc`: the payment asset',
  values: ['token', 'usdc'] as const,
});

builder.queryField('acpOfferings', (t) =>
  pagedField<acp.AcpOffering>(t, AcpOffering, {
    description: 'The priced offerings, by capability and cheapest first (no key needed)',
    args: { currency: t.arg({ type: AcpCurrency, description: 'Default token' }) },
    defaultSize: 50,
    resolve: (ctx, args, page) => acp.acpOfferings(ctx, args.currency ?? 'token', page),
  }),
);

const AcpPhase = builder.objectRef<acp.AcpPhase>('AcpPhase').implement({
  fields: (t) => ({ phase: t.exposeString('phase'), description: t.exposeString('description') }),
});

const AcpEscrow = builder.objectRef<acp.AcpTerms['escrow']>('AcpEscrow').implement({
  fields: (t) => ({ holder: t.exposeString('holder'), funded: t.exposeString('funded'), released: t.exposeString('released') }),
});

const AcpEvaluation = builder.objectRef<acp.AcpTerms['evaluation']>('AcpEvaluation').implement({
  fields: (t) => ({ evaluator: t.exposeString('evaluator'), windowSeconds: t.exposeInt('windowSeconds'), criteria: t.exposeString('criteria') }),
});

const AcpPurchase = builder.objectRef<acp.AcpTerms['purchase']>('AcpPurchase').implement({
  fields: (t) => ({ method: t.exposeString('method'), path: t.exposeString('path'), body: t.field({ type: 'JSON', resolve: (p) => p.body }) }),
});

const AcpTerms = builder.objectRef<acp.AcpTerms>('AcpPaymentTerms').implement({
  fields: (t) => ({
    offering: t.field({ type: AcpOffering, resolve: (r) => r.offering }),
    priceUsdc: t.field({ type: AcpPrice, resolve: (r) => r.priceUsdc }),
    priceToken: t.field({ type: AcpPrice, resolve: (r) => r.priceToken }),
    token: t.exposeString('token'),
    phases: t.field({ type: [AcpPhase], resolve: (r) => r.phases }),
    escrow: t.field({ type: AcpEscrow, resolve: (r) => r.escrow }),
    evaluation: t.field({ type: AcpEvaluation, resolve: (r) => r.evaluation }),
    refundPolicy: t.exposeString('refundPolicy'),
    deliverySeconds: t.exposeInt('deliverySeconds'),
    deadline: t.expose('deadline', { type: 'DateTime', description: 'When a job funded now must be delivered by' }),
    payment: t.field({ type: X402Requirements, description: 'The x402 requirements that pay for it', resolve: (r) => r.payment }),
    purchase: t.field({ type: AcpPurchase, description: 'How to buy it here', resolve: (r) => r.purchase }),
  }),
});

builder.queryField('acpPaymentTerms', (t) =>
  t.field({
    type: AcpTerms,
    description: 'The payment terms of one priced offering (404 for an unknown one)',
    args: { id: t.arg.id({ required: true, description: '`<service key>:<capability>`' }) },
    resolve: (_r, { id }, ctx) => acp.acpPaymentTerms(ctx, String(id)),
  }),
);
