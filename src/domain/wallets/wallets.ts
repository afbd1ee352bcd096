// Wallets: one per agent, for paid capabilities (CONTRACT §8). A wallet holds a key the marketplace
// generates and keeps encrypted (so that it can sign sandbox test payments), or an address the agent
// registers and signs for itself. Its balance is kept by the ledger (payments/ledger.ts); in sandbox mode
// no chain is reached, and the ledger plays the chain for the wallet's address.
import { isUniqueViolation } from '../../db/database';
import { Conflict, NotFound } from '../../platform/errors';
import { evm } from '../../platform/evm';
import { Checks } from '../../platform/validate';
import { agentInReach } from '../agents/agents';
import { recordAudit } from '../audit/audit';
import type { Ctx } from '../context';
import type { Page } from '../../platform/page';
import { creditStartingBalance } from '../payments/ledger';
import { formatUnits } from '../payments/setup';

export interface WalletView {
  walletId: string;
  agentId: string;
  address: string;
  network: string;
  asset: string;
  decimals: number;
  /** `marketplace`: the marketplace holds the key; `agent`: the agent registered its own address. */
  keyCustody: 'marketplace' | 'agent';
  /** Base units. */
  balanceBaseUnits: bigint;
  /** Base units reserved by calls in flight. */
  heldBaseUnits: bigint;
  /** Base units of the balance still inside a dispute window (escrow): not spendable yet. */
  pendingBaseUnits: bigint;
  createdAt: Date;
}

export interface CreateWalletInput {
  /** The agent's own address (it signs its own payments); unset: the marketplace generates a key. */
  address?: unknown;
}

/** Base units in the payment asset as a decimal string with every decimal. */
export function formatAsset(ctx: Pick<Ctx, 'services'>, units: bigint): string {
  return formatUnits(units, ctx.services.payments.setup.asset.decimals);
}

function viewOf(
  ctx: Pick<Ctx, 'services'>,
  w: {
    id: string;
    agentId: string | null;
    address: string;
    network: string;
    asset: string;
    keyOrigin: string;
    balance: bigint;
    held: bigint;
    pending: bigint;
    createdAt: Date;
  },
): WalletView {
  return {
    walletId: w.id,
    agentId: w.agentId!,
    address: w.address,
    network: w.network,
    asset: w.asset,
    decimals: ctx.services.payments.setup.asset.decimals,
    keyCustody: w.keyOrigin === 'registered' ? 'agent' : 'marketplace',
    balanceBaseUnits: w.balance,
    heldBaseUnits: w.held,
    pendingBaseUnits: w.pending,
    createdAt: w.createdAt,
  };
}

/**
 * Creates the wallet of `agentId` (the caller or a sub-agent); 409 when it has one. With `address` the agent brings its
 * own (and signs its payments itself); otherwise the marketplace generates a key and keeps it encrypted. In sandbox mode
 * it is credited the starting balance, as a wallet opened on first need is.
 */
export async function createWallet(ctx: Ctx, agentId: string, input: CreateWalletInput = {}): Promise<WalletView> {
  const agent = await agentInReach(ctx, agentId);
  const checks = new Checks();
  let registered: string | undefined;
  if (input.address !== undefined && input.address !== null) {
    const { isAddress } = evm().viem;
    if (typeof input.address !== 'string' || !isAddress(input.address, { strict: false }))
      checks.fail('address', 'must be an EVM address: 0x and 40 hexadecimal digits');
    else if (/[A-F]/.test(input.address) && /[a-f]/.test(input.address) && !isAddress(input.address, { strict: true }))
      checks.fail('address', 'has a mixed-case checksum (EIP-55) that does not match');
    else if (/^0x0{40}$/i.test(input.address)) checks.fail('address', 'must not be the zero address');
    else registered = input.address.toLowerCase();
  }
  checks.done();
  const existing = await ctx.db.wallet.findUnique({ where: { agentId: agent.id }, select: { address: true } });
  if (existing) throw new Conflict(`Agent ${agent.id} already has wallet ${existing.address}`);
  const { setup, keys } = ctx.services.payments;
  const key = registered ? { address: registered, encryptedKey: null, keyOrigin: 'registered' } : { ...keys.generate(), keyOrigin: 'generated' };
  try {
    const wallet = await ctx.db.$transaction(async (tx) => {
      const created = await tx.wallet.create({ data: { agentId: agent.id, network: setup.networkName, asset: setup.asset.symbol, ...key } });
      // Opened here or on first need, an agent's one wallet starts the same: in sandbox mode, funded.
      await creditStartingBalance(tx, setup, [created.id], ctx.services.clock.now());
      await recordAudit(tx, ctx, {
        agentId: agent.id,
        action: 'wallet.created',
        targetType: 'wallet',
        targetId: created.id,
        details: {
          wallet_address: created.address,
          network: created.network,
          key_custody: registered ? 'agent' : 'marketplace',
          ...(setup.startingBalanceUnits ? { starting_balance: formatUnits(setup.startingBalanceUnits, setup.asset.decimals) } : {}),
        },
      });
      return { ...created, balance: created.balance + setup.startingBalanceUnits };
    });
    return viewOf(ctx, wallet);
  } catch (err) {
    if (isUniqueViolation(err)) {
      const taken = await ctx.db.wallet.findUnique({ where: { address: key.address }, select: { agentId: true } });
      if (registered && taken && taken.agentId !== agent.id) throw new Conflict(`Address ${registered} is another wallet's`);
      throw new Conflict(`Agent ${agent.id} already has a wallet`);
    }
    throw err;
  }
}

/** The wallet of `agentId` (the caller or one of its sub-agents) with its balance; 404 without one. */
export async function getWallet(ctx: Ctx, agentId: string): Promise<WalletView> {
  const agent = await agentInReach(ctx, agentId);
  const wallet = await ctx.db.wallet.findUnique({ where: { agentId: agent.id } });
  if (!wallet) throw new NotFound('wallet of agent', agent.id);
  return viewOf(ctx, wallet);
}

export interface LedgerEntryView {
  id: string;
  amount: bigint;
  kind: string;
  reference: string | null;
  transferId: string;
  executionId: string | null;
  paymentId: string | null;
  createdAt: Date;
}

/** A wallet's ledger, newest first (the wallet was read within the caller's reach: getWallet). */
export async function entriesOf(ctx: Ctx, walletId: string, page: Page): Promise<{ items: LedgerEntryView[]; total: number }> {
  const where = { walletId };
  const [items, total] = await Promise.all([
    ctx.db.walletEntry.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], skip: page.offset, take: page.limit }),
    ctx.db.walletEntry.count({ where }),
  ]);
  return { items, total };
}
