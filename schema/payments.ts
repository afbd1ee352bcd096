// Payments: the x402 sandbox (status, faucet, test payment) and prices per capability.
import type { PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import * as pricing from '../src/domain/payments/pricing';
import * as sandbox from '../src/domain/payments/sandbox';
import { centsToUnits } from '../src/domain/payments/setup';
import type { PaymentSetup } from '../src/domain/payments/setup';
import { builder } from './builder';
import { pagedField } from './paging';
import { amountFields } from './wallets';
import { maxLength, oneOf } from './json-schema';

export const X402Requirements = builder.objectRef<PaymentRequirements>('X402PaymentRequirements').implement({
  description: 'x402 v2 payment requirements: what a payment must be to pay for a resource',
  fields: (t) => ({
    scheme: t.exposeString('scheme', { description: '`exact`' }),
    network: t.exposeString('network', { description: 'CAIP-2, `eip155:84532` in sandbox mode' }),
    asset: t.exposeString('asset', { description: 'The token contract' }),
    amount: t.exposeString('amount', { description: "Base units of the asset (an integer string); the EIP-3009 authorization's value must be exactly this" }),
    payTo: t.exposeString('payTo', { description: 'Where the payment goes: the marketplace' }),
    maxTimeoutSeconds: t.exposeInt('maxTimeoutSeconds'),
    extra: t.field({
      type: 'JSON',
      description: "The token's EIP-712 domain (`name`, `version`), which the authorization is signed under",
      resolve: (r) => r.extra,
    }),
  }),
});

const X402Verification = builder.objectRef<VerifyResponse>('X402Verification').implement({
  fields: (t) => ({
    isValid: t.exposeBoolean('isValid'),
    invalidReason: t.exposeString('invalidReason', { nullable: true }),
    payer: t.exposeString('payer', { nullable: true }),
  }),
});

export const X402Settlement = builder.objectRef<SettleResponse>('X402Settlement').implement({
  description: 'An x402 SettleResponse (what PAYMENT-RESPONSE carries)',
  fields: (t) => ({
    success: t.exposeBoolean('success'),
    transaction: t.exposeString('transaction', { description: 'The transaction hash (on the chain the ledger plays, in sandbox mode)' }),
    network: t.exposeString('network'),
    payer: t.exposeString('payer', { nullable: true }),
    amount: t.exposeString('amount', { nullable: true, description: 'Base units settled' }),
    errorReason: t.exposeString('errorReason', { nullable: true }),
  }),
});

const X402Asset = builder.objectRef<PaymentSetup['asset']>('X402Asset').implement({
  fields: (t) => ({
    address: t.exposeString('address'),
    symbol: t.exposeString('symbol'),
    decimals: t.exposeInt('decimals'),
    eip712Name: t.string({ resolve: (a) => a.eip712.name }),
    eip712Version: t.string({ resolve: (a) => a.eip712.version }),
  }),
});

const Sandbox = builder.objectRef<sandbox.SandboxStatus>('X402Sandbox').implement({
  description: 'What payments run on. In sandbox mode no chain is reached: a facilitator in the process verifies signatures for real and settles in the ledger',
  fields: (t) => ({
    sandbox: t.boolean({
      description: 'Sandbox mode (true): no chain is reached; false: payments are settled on chain by a remote facilitator',
      resolve: (s) => s.setup.sandbox,
    }),
    x402Version: t.exposeInt('x402Version'),
    scheme: t.string({ resolve: () => 'exact' }),
    network: t.string({ description: 'CAIP-2', resolve: (s) => s.setup.network }),
    networkName: t.string({ resolve: (s) => s.setup.networkName }),
    chainId: t.int({ resolve: (s) => s.setup.chainId }),
    asset: t.field({ type: X402Asset, resolve: (s) => s.setup.asset }),
    payTo: t.string({ resolve: (s) => s.setup.payTo }),
    maxTimeoutSeconds: t.int({ resolve: (s) => s.setup.maxTimeoutSeconds }),
    feeBps: t.int({ description: "The marketplace's fee on every paid call, in basis points of its price", resolve: (s) => s.setup.feeBps }),
    facilitator: t.exposeString('facilitator', { description: "`in-process` in sandbox mode, else the remote facilitator's URL" }),
    ...amountFields(t, 'faucetCap', (s: sandbox.SandboxStatus) => s.setup.faucetCapUnits, 'The faucet tops a wallet up to this balance'),
    ...amountFields(
      t,
      'startingBalance',
      (s: sandbox.SandboxStatus) => s.setup.startingBalanceUnits,
      "What an agent's wallet is credited when it opens (its first paid call, test payment or faucet credit, or its creation): 0 outside sandbox mode",
    ),
    ...amountFields(t, 'centUnits', (s: sandbox.SandboxStatus) => centsToUnits(s.setup, 1), 'One cent'),
  }),
});

builder.queryField('x402Sandbox', (t) =>
  t.field({
    type: Sandbox,
    description: 'The x402 sandbox: network, asset, fee and facilitator (no key needed)',
    resolve: (_r, _a, ctx) => sandbox.sandboxStatus(ctx),
  }),
);

const FaucetCredit = builder.objectRef<sandbox.FaucetCredit>('FaucetCredit').implement({
  fields: (t) => ({
    credited: t.boolean({ description: 'Whether anything was credited (a wallet at the cap gets nothing)', resolve: (f) => f.credited > 0n }),
    agentId: t.exposeID('agentId'),
    walletAddress: t.exposeString('walletAddress'),
    ...amountFields(t, 'amount', (f: sandbox.FaucetCredit) => f.credited, 'What was credited'),
    ...amountFields(t, 'balance', (f: sandbox.FaucetCredit) => f.balance, 'The balance after it'),
    ...amountFields(t, 'cap', (f: sandbox.FaucetCredit) => f.cap, 'The faucet tops wallets up to this'),
  }),
});

const FaucetInput = builder.inputType('SandboxFaucetInput', {
  fields: (t) => ({
    agentId: t.id({ description: 'A sub-agent of the caller (default: the caller)' }),
    amount: t.string({ description: 'How much, a decimal string of the asset ("2.5"); default: what tops the wallet up to the cap. Never past the cap' }),
  }),
});

builder.mutationField('sandboxFaucet', (t) =>
  t.field({
    type: FaucetCredit,
    description:
      "Credit sandbox funds to the caller's (or a sub-agent's) wallet, opening it (with the starting balance) when needed, up to the faucet's cap (sandbox mode only: 409 otherwise)",
    auth: 'agent',
    args: { input: t.arg({ type: FaucetInput }) },
    resolve: (_r, { input }, ctx) => sandbox.faucet(ctx, input ?? {}),
  }),
);

const TestPayment = builder.objectRef<sandbox.TestPaymentReceipt>('SandboxTestPayment').implement({
  description: "A whole x402 round trip on the caller's wallet: what a paid call does, paying the marketplace and credited straight back",
  fields: (t) => ({
    simulated: t.exposeBoolean('simulated'),
    walletAddress: t.exposeString('walletAddress'),
    requirements: t.field({ type: X402Requirements, resolve: (r) => r.requirements }),
    payload: t.field({ type: 'JSON', description: 'The signed PaymentPayload (EIP-3009 authorization and its EIP-712 signature)', resolve: (r) => r.payload }),
    paymentSignature: t.exposeString('paymentSignature', { description: 'The PAYMENT-SIGNATURE header value a client sends' }),
    verification: t.field({ type: X402Verification, resolve: (r) => r.verification }),
    settlement: t.field({ type: X402Settlement, resolve: (r) => r.settlement }),
    paymentResponse: t.exposeString('paymentResponse', { description: 'The PAYMENT-RESPONSE header value a paid call answers with' }),
    paymentId: t.exposeID('paymentId'),
    ...amountFields(t, 'amount', (r: sandbox.TestPaymentReceipt) => r.amount, 'What was paid'),
    ...amountFields(t, 'balanceBefore', (r: sandbox.TestPaymentReceipt) => r.balanceBefore, 'The balance before'),
    ...amountFields(t, 'balanceAfter', (r: sandbox.TestPaymentReceipt) => r.balanceAfter, 'The balance after (the same: the payment came back)'),
  }),
});

const TestPaymentInput = builder.inputType('SandboxTestPaymentInput', {
  fields: (t) => ({
    amount: t.string({ description: 'How much, a decimal string of the asset ("0.05"); default one cent' }),
  }),
});

builder.mutationField('sandboxTestPayment', (t) =>
  t.field({
    type: TestPayment,
    description:
      "Make an x402 payment from the caller's wallet with the key the marketplace holds for it, verify and settle it, and credit it back (sandbox mode only). 402 when the wallet cannot pay it; 409 for a wallet whose address the agent registered",
    auth: 'agent',
    args: { input: t.arg({ type: TestPaymentInput }) },
    resolve: (_r, { input }, ctx) => sandbox.testPayment(ctx, input ?? {}),
  }),
);

const PricingService = builder.objectRef<pricing.PricingSet['services'][number]>('PricedService').implement({
  fields: (t) => ({ serviceId: t.exposeID('serviceId'), serviceKey: t.exposeString('serviceKey'), name: t.exposeString('name') }),
});

const PricingSet = builder.objectRef<pricing.PricingSet>('CapabilityPricingSet').implement({
  fields: (t) => ({
    pricingSet: t.exposeBoolean('pricingSet'),
    capability: t.exposeString('capability'),
    costPerCall: t.exposeInt('costPerCall', { description: 'The price per call, integer cents' }),
    ...amountFields(t, 'price', (p: pricing.PricingSet) => p.priceUnits, 'The same price in the payment asset'),
    pricingModel: t.exposeString('pricingModel', { nullable: true, description: "The services' pricing model, when they share one" }),
    services: t.field({ type: [PricingService], description: 'The services the price was set on', resolve: (p) => p.services }),
    servicesUpdated: t.int({ resolve: (p) => p.services.length }),
  }),
});

const PricingInput = builder.inputType('SetCapabilityPricingInput', {
  fields: (t) => ({
    costPerCall: t.int({
      description: 'The price per call in integer cents (0 makes the capability free); or give costPerCallBaseUnits',
      extensions: { jsonSchema: { minimum: 0, maximum: 1_000_000 } },
    }),
    costPerCallBaseUnits: t.string({
      description: "The same price in the payment asset's base units (an integer string, a whole number of cents); both may be given when they agree",
    }),
    pricingModel: t.string({
      description:
        "The services' pricing model (free, per_call, monthly, freemium); default: each keeps its own, and a free one that now charges becomes per_call",
      extensions: oneOf(['free', 'per_call', 'monthly', 'freemium']),
    }),
    service: t.string({
      description: 'One of your services (its key or id); default: every service of yours offering the capability',
      extensions: maxLength(64),
    }),
  }),
});

builder.mutationField('setCapabilityPricing', (t) =>
  t.field({
    type: PricingSet,
    description: "Set the caller's price for one capability on its services that offer it (404 when none does); their other capabilities keep costPerCall",
    auth: 'agent',
    args: { capabilityId: t.arg.string({ required: true }), input: t.arg({ type: PricingInput, required: true }) },
    resolve: (_r, { capabilityId, input }, ctx) => pricing.setCapabilityPricing(ctx, capabilityId, input),
  }),
);

const PriceRange = builder.objectRef<pricing.CapabilityPriceRange>('CapabilityPriceRange').implement({
  fields: (t) => ({
    slug: t.exposeString('capability'),
    name: t.exposeString('name'),
    services: t.exposeInt('paidProviders', { description: 'Active offers of it with a price' }),
    minCostCents: t.exposeInt('minCents'),
    maxCostCents: t.exposeInt('maxCents'),
    avgCostCents: t.exposeInt('avgCents', { description: 'The mean price, rounded to a cent' }),
    ...amountFields(t, 'minPrice', (r: pricing.CapabilityPriceRange) => r.minUnits, 'The lowest price'),
    ...amountFields(t, 'maxPrice', (r: pricing.CapabilityPriceRange) => r.maxUnits, 'The highest price'),
  }),
});

builder.queryField('capabilityPricing', (t) =>
  pagedField<pricing.CapabilityPriceRange>(t, PriceRange, {
    description: 'The capabilities that cost something, with their price ranges over active offers (no key needed)',
    defaultSize: 50,
    resolve: (ctx, _args, page) => pricing.listCapabilityPricing(ctx, page),
  }),
);
