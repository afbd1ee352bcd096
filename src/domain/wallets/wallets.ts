// Wallets: one per agent, for paid capabilities (CONTRACT §8). Sandbox mode reaches no chain: the address
// names the wallet inside the marketplace, and the balance is the sum of its append-only ledger.
import { randomBytes } from 'node:crypto';
import { isUniqueViolation } from '../../db/database';
import { Conflict, NotFound } from '../../platform/errors';
import { agentInReach } from '../agents/agents';
import { recordAudit } from '../audit/audit';
import type { Ctx } from '../context';

/** The sandbox network and asset (x402's names); USDC has 6 decimals. */
export const WALLET_NETWORK = 'base-sepolia';
export const WALLET_ASSET = 'USDC';
export const ASSET_DECIMALS = 6;

export interface WalletView {
  walletId: string;
  agentId: string;
  address: string;
  network: string;
  asset: string;
  /** Base units (millionths of a USDC). */
  balanceBaseUnits: bigint;
  createdAt: Date;
}

/** Base units as a decimal string with every decimal: 1500000n → "1.500000". */
export function formatUnits(units: bigint, decimals = ASSET_DECIMALS): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** Creates the wallet of `agentId` (the caller or one of its sub-agents); 409 when it has one. */
export async function createWallet(ctx: Ctx, agentId: string): Promise<WalletView> {
  const agent = await agentInReach(ctx, agentId);
  const existing = await ctx.db.wallet.findUnique({ where: { agentId: agent.id }, select: { address: true } });
  if (existing) throw new Conflict(`Agent ${agent.id} already has wallet ${existing.address}`);
  try {
    const wallet = await ctx.db.$transaction(async (tx) => {
      const created = await tx.wallet.create({
        data: { agentId: agent.id, address: `0x${randomBytes(20).toString('hex')}`, network: WALLET_NETWORK, asset: WALLET_ASSET },
      });
      await recordAudit(tx, ctx, {
        agentId: agent.id,
        action: 'wallet.created',
        targetType: 'wallet',
        targetId: created.id,
        details: { wallet_address: created.address, network: created.network },
      });
      return created;
    });
    return { walletId: wallet.id, agentId: wallet.agentId, address: wallet.address, network: wallet.network, asset: wallet.asset, balanceBaseUnits: 0n, createdAt: wallet.createdAt };
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict(`Agent ${agent.id} already has a wallet`);
    throw err;
  }
}

/** The wallet of `agentId` (the caller or one of its sub-agents) with its balance; 404 without one. */
export async function getWallet(ctx: Ctx, agentId: string): Promise<WalletView> {
  const agent = await agentInReach(ctx, agentId);
  const wallet = await ctx.db.wallet.findUnique({ where: { agentId: agent.id } });
  if (!wallet) throw new NotFound('wallet of agent', agent.id);
  const sum = await ctx.db.walletEntry.aggregate({ where: { walletId: wallet.id }, _sum: { amount: true } });
  return {
    walletId: wallet.id,
    agentId: wallet.agentId,
    address: wallet.address,
    network: wallet.network,
    asset: wallet.asset,
    balanceBaseUnits: sum._sum.amount ?? 0n,
    createdAt: wallet.createdAt,
  };
}
