// Wallets: an agent's wallet for paid capabilities, created once (with a key the marketplace generates,
// or the agent's own address) and read with its balance and its ledger.
import * as wallets from '../src/domain/wallets/wallets';
import { builder } from './builder';
import { pagedField } from './paging';

/** Base units as a decimal string of the asset, and as an integer string. */
export function amountFields(t: any, name: string, units: (parent: any) => bigint, description: string) {
  return {
    [name]: t.string({
      description: `${description}: a decimal string in the asset, every decimal given`,
      resolve: (p: any, _a: unknown, ctx: any) => wallets.formatAsset(ctx, units(p)),
    }),
    [`${name}BaseUnits`]: t.string({ description: `${description}, in the asset's base units (an integer string)`, resolve: (p: any) => units(p).toString() }),
  };
}

export const LedgerEntry = builder.objectRef<wallets.LedgerEntryView>('LedgerEntry').implement({
  description: "One entry of a wallet's append-only ledger; the entries of one transfer sum to zero",
  fields: (t) => ({
    id: t.exposeID('id'),
    ...amountFields(t, 'amount', (e: wallets.LedgerEntryView) => e.amount, 'Signed: a credit is positive'),
    kind: t.exposeString('kind', {
      description:
        "charge (a paid call), earning (a provider's share), fee, refund and clawback (a dispute), faucet (sandbox credit), x402_payment (an x402 payment made from this wallet), x402_deposit (an x402 payment credited to its caller), purchase and sale (a gateway checkout: the buyer pays, the payee is paid less the fee), opening_balance",
    }),
    reference: t.exposeString('reference', { nullable: true, description: 'A settlement transaction hash, or a dispute' }),
    transferId: t.exposeID('transferId'),
    executionId: t.exposeID('executionId', { nullable: true }),
    paymentId: t.exposeID('paymentId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const Wallet = builder.objectRef<wallets.WalletView>('Wallet').implement({
  description: 'An agent wallet (sandbox: no chain is reached, the ledger plays it); its balance is kept by its ledger',
  fields: (t) => ({
    walletId: t.exposeID('walletId'),
    agentId: t.exposeID('agentId'),
    walletAddress: t.exposeString('address', { description: '`0x` + 40 hexadecimal digits, lower-case' }),
    network: t.exposeString('network', { description: 'The payment network, `base-sepolia` in sandbox mode' }),
    asset: t.exposeString('asset', { description: "The asset's symbol, `USDC`" }),
    keyCustody: t.exposeString('keyCustody', {
      description:
        '`marketplace`: the marketplace generated the key and keeps it encrypted (it signs sandbox test payments); `agent`: the agent registered its own address and signs for itself',
    }),
    ...amountFields(t, 'balance', (w: wallets.WalletView) => w.balanceBaseUnits, 'The balance'),
    ...amountFields(t, 'held', (w: wallets.WalletView) => w.heldBaseUnits, 'Reserved by calls in flight'),
    ...amountFields(
      t,
      'pending',
      (w: wallets.WalletView) => w.pendingBaseUnits,
      'Part of the balance earned by paid calls still inside their dispute window (escrow): available once it ends, unless a dispute opened inside it refunds it',
    ),
    ...amountFields(
      t,
      'available',
      (w: wallets.WalletView) => w.balanceBaseUnits - w.heldBaseUnits - w.pendingBaseUnits,
      'What calls may spend now: the balance less what is held and what is pending',
    ),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const CreateWalletInput = builder.inputType('CreateWalletInput', {
  fields: (t) => ({
    address: t.string({
      description:
        "The agent's own address (0x and 40 hexadecimal digits; a mixed-case one must carry a valid EIP-55 checksum): it signs its own payments. Unset: the marketplace generates a key and keeps it encrypted",
    }),
  }),
});

builder.mutationField('createWallet', (t) =>
  t.field({
    type: Wallet,
    description: 'Create the wallet of an agent (the caller or one of its sub-agents); one per agent',
    auth: 'agent',
    args: { agentId: t.arg.id({ required: true }), input: t.arg({ type: CreateWalletInput }) },
    resolve: (_root, { agentId, input }, ctx) => wallets.createWallet(ctx, String(agentId), input ?? {}),
  }),
);

builder.queryField('walletEntries', (t) =>
  pagedField<wallets.LedgerEntryView>(t, LedgerEntry, {
    description: "The ledger of an agent's wallet (the caller's or one of its sub-agents'), newest first",
    auth: 'agent',
    args: { agentId: t.arg.id({ required: true }) },
    resolve: async (ctx, args, page) => wallets.entriesOf(ctx, (await wallets.getWallet(ctx, String(args.agentId))).walletId, page),
  }),
);

builder.queryField('wallet', (t) =>
  t.field({
    type: Wallet,
    description: 'The wallet of an agent (the caller or one of its sub-agents), with its balance',
    auth: 'agent',
    args: { agentId: t.arg.id({ required: true }) },
    resolve: (_root, { agentId }, ctx) => wallets.getWallet(ctx, String(agentId)),
  }),
);
