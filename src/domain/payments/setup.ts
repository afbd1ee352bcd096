// What payments run on, fixed at start-up: the network, the asset (a USD stablecoin with EIP-3009), where
// payments go, the marketplace's fee, the sandbox's faucet cap and starting balance, and the ledger's own
// accounts. Prices are integer cents (CONTRACT §3); on the wire and in the ledger they are base units.
import { ExactEvmScheme } from '@x402/evm/exact/server';
import type { Config } from '../../config';
import type { SqlRunner } from '../../db/database';

/** The marketplace's ledger accounts, created with fixed ids by the payments migration. */
export const ACCOUNTS = {
  revenue: '00000000-0000-4000-8000-000000000001',
  faucet: '00000000-0000-4000-8000-000000000002',
  settlement: '00000000-0000-4000-8000-000000000003',
  inflow: '00000000-0000-4000-8000-000000000004',
} as const;
export type SystemAccount = keyof typeof ACCOUNTS;
export const SYSTEM_ACCOUNT_IDS: ReadonlySet<string> = new Set(Object.values(ACCOUNTS));

/** Readable names of the CAIP-2 networks x402 uses (the wallet `network` field says these). */
const NETWORK_NAMES: Record<string, string> = {
  'eip155:84532': 'base-sepolia',
  'eip155:8453': 'base',
  'eip155:1': 'ethereum',
  'eip155:11155111': 'sepolia',
  'eip155:137': 'polygon',
  'eip155:80002': 'polygon-amoy',
  'eip155:43114': 'avalanche',
  'eip155:43113': 'avalanche-fuji',
};

export interface PaymentAsset {
  /** The token contract, checksummed as x402 requirements carry it. */
  address: string;
  symbol: string;
  decimals: number;
  /** The token's EIP-712 domain (name and version), which EIP-3009 signatures are made under. */
  eip712: { name: string; version: string };
}

export interface PaymentSetup {
  /** No chain is reached: the ledger plays it and a facilitator in the process settles there. */
  sandbox: boolean;
  /** CAIP-2 (`eip155:84532`). */
  network: `${string}:${string}`;
  /** `base-sepolia`. */
  networkName: string;
  chainId: number;
  asset: PaymentAsset;
  /** Where every payment goes (lower-case): the settlement account in sandbox, X402_PAY_TO otherwise. */
  payTo: string;
  maxTimeoutSeconds: number;
  feeBps: number;
  /** The sandbox faucet tops a wallet up to this balance. */
  faucetCapUnits: bigint;
  /** What an agent wallet is credited from the faucet account when it opens: SANDBOX_STARTING_BALANCE in sandbox, 0 otherwise. */
  startingBalanceUnits: bigint;
  facilitatorUrl?: string;
}

/** A decimal string of the asset (`"1.25"`) in base units; throws past the asset's decimals. */
export function parseUnits(value: string, decimals: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m || (m[2] ?? '').length > decimals) throw new Error(`"${value}" is not an amount with at most ${decimals} decimals`);
  return BigInt(m[1]) * 10n ** BigInt(decimals) + BigInt((m[2] ?? '').padEnd(decimals, '0') || '0');
}

/** Base units as a decimal string with every decimal: 1500000n → "1.500000". */
export function formatUnits(units: bigint, decimals: number): string {
  if (decimals === 0) return units.toString();
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** Cents in the asset's base units (a USD stablecoin: one cent is 10^(decimals-2) units). */
export function centsToUnits(setup: Pick<PaymentSetup, 'asset'>, cents: number): bigint {
  return BigInt(cents) * 10n ** BigInt(setup.asset.decimals - 2);
}

/** Base units in whole cents, rounded down; undefined when they are not a whole number of cents. */
export function unitsToCents(setup: Pick<PaymentSetup, 'asset'>, units: bigint): number | undefined {
  const unit = 10n ** BigInt(setup.asset.decimals - 2);
  return units % unit === 0n ? Number(units / unit) : undefined;
}

/** The marketplace's share of a price: the fee, rounded down (the provider keeps the remainder). */
export function feeOf(setup: Pick<PaymentSetup, 'feeBps'>, units: bigint): bigint {
  return (units * BigInt(setup.feeBps)) / 10_000n;
}

/**
 * The network's default asset in @x402/evm's table (the first listed), or undefined. Read through the exact scheme's
 * server side, which gives the token, its EIP-712 domain and decimals without loading viem at start as the main entry
 * would; the symbol comes from the main entry when first read, by paths that load viem anyway.
 */
async function defaultAsset(network: `${string}:${string}`): Promise<PaymentAsset | undefined> {
  const scheme = new ExactEvmScheme();
  let unit: Awaited<ReturnType<ExactEvmScheme['parsePrice']>>;
  try {
    unit = await scheme.parsePrice('1', network);
  } catch {
    return undefined;
  }
  const extra = unit.extra as { name?: string; version?: string } | undefined;
  const decimals = scheme.getAssetDecimals(unit.asset, network);
  if (decimals === undefined || !extra?.name || !extra.version) return undefined;
  let symbol: string | undefined;
  return {
    address: unit.asset,
    get symbol() {
      symbol ??= (require('@x402/evm') as typeof import('@x402/evm')).getDefaultAsset(network).symbol;
      return symbol;
    },
    decimals,
    eip712: { name: extra.name, version: extra.version },
  };
}

/** A configured amount in base units; a start-up error naming the variable past the asset's decimals. */
function units(name: string, value: string, decimals: number): bigint {
  try {
    return parseUnits(value, decimals);
  } catch {
    throw new Error(`${name} has more than the asset's ${decimals} decimals: "${value}"`);
  }
}

export async function loadPaymentSetup(config: Config, sql: SqlRunner): Promise<PaymentSetup> {
  const p = config.payments;
  const chainId = Number(p.network.split(':')[1]);
  let asset: PaymentAsset;
  if (p.asset) {
    // A configured token is described by the network's default table when it is listed there; otherwise
    // it is taken to be a 6-decimal USD coin with the usual EIP-712 domain.
    const known = await defaultAsset(p.network as `${string}:${string}`);
    asset =
      known && known.address.toLowerCase() === p.asset ? known : { address: p.asset, symbol: 'USDC', decimals: 6, eip712: { name: 'USD Coin', version: '2' } };
  } else {
    const known = await defaultAsset(p.network as `${string}:${string}`);
    if (!known) throw new Error(`X402_NETWORK ${p.network} has no default asset: set X402_ASSET`);
    asset = known;
  }
  if (asset.decimals < 2) throw new Error(`the payment asset must have at least 2 decimals (cents), not ${asset.decimals}`);
  const [settlement] = await sql.query<{ address: string }>('SELECT address FROM wallets WHERE id = $1::uuid', [ACCOUNTS.settlement]);
  if (!settlement) throw new Error('the settlement account has no wallet: the database was not migrated');
  return {
    sandbox: !p.facilitatorUrl,
    network: p.network as `${string}:${string}`,
    networkName: NETWORK_NAMES[p.network] ?? p.network,
    chainId,
    asset,
    payTo: p.payTo ?? settlement.address,
    maxTimeoutSeconds: p.maxTimeoutSeconds,
    feeBps: p.feeBps,
    faucetCapUnits: parseUnits(p.faucetCap, asset.decimals),
    // Live mode opens wallets empty: the money in them is what x402 payments brought.
    startingBalanceUnits: p.facilitatorUrl ? 0n : units('SANDBOX_STARTING_BALANCE', p.sandboxStartingBalance, asset.decimals),
    facilitatorUrl: p.facilitatorUrl,
  };
}
