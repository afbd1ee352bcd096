// Wallets: an agent's wallet for paid capabilities, created once and read with its ledger balance.
import * as wallets from '../src/domain/wallets/wallets';
import { builder } from './builder';

const Wallet = builder.objectRef<wallets.WalletView>('Wallet').implement({
  description: 'An agent wallet (sandbox: no chain is reached); its balance is the sum of its ledger',
  fields: (t) => ({
    walletId: t.exposeID('walletId'),
    agentId: t.exposeID('agentId'),
    walletAddress: t.exposeString('address', { description: '`0x` + 40 hexadecimal digits' }),
    network: t.exposeString('network', { description: 'The payment network, `base-sepolia` in sandbox mode' }),
    asset: t.exposeString('asset', { description: '`USDC`' }),
    balance: t.string({ description: 'Decimal string in the asset, all 6 decimals (`"0.000000"`)', resolve: (w) => wallets.formatUnits(w.balanceBaseUnits) }),
    balanceBaseUnits: t.string({ description: 'The balance in base units (millionths), as an integer string', resolve: (w) => w.balanceBaseUnits.toString() }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.mutationField('createWallet', (t) =>
  t.field({
    type: Wallet,
    description: 'Create the wallet of an agent (the caller or one of its sub-agents); one per agent',
    authScopes: { agent: true },
    args: { agentId: t.arg.id({ required: true }) },
    resolve: (_root, { agentId }, ctx) => wallets.createWallet(ctx, String(agentId)),
  }),
);

builder.queryField('wallet', (t) =>
  t.field({
    type: Wallet,
    description: 'The wallet of an agent (the caller or one of its sub-agents), with its balance',
    authScopes: { agent: true },
    args: { agentId: t.arg.id({ required: true }) },
    resolve: (_root, { agentId }, ctx) => wallets.getWallet(ctx, String(agentId)),
  }),
);
