// The wallet ledger: every movement of money is a transfer of entries that sum to zero, appended in the
// transaction of the change it belongs to. An agent wallet's balance is kept beside its entries by the same
// statement and may never go below what its holds reserve (a CHECK), so it is never negative; the
// marketplace's own accounts (setup.ts) take entries only, so that no paid call waits on their rows.
import { newUuid } from '../../platform/ids';
import { Conflict } from '../../platform/errors';
import type { DbTx } from '../../db/database';
import type { Services } from '../context';
import { SYSTEM_ACCOUNT_IDS } from './setup';
import type { WalletKeyring } from './wallet-keys';

export interface Leg {
  walletId: string;
  /** Signed base units: a credit is positive. */
  amount: bigint;
  kind: string;
}

export interface TransferMeta {
  reference?: string | null;
  executionId?: string | null;
  paymentId?: string | null;
  at: Date;
}

/** A debit an agent wallet cannot cover (what it holds for calls in flight is not available). */
export class InsufficientFunds extends Conflict {
  constructor(message = 'The wallet does not hold enough for this') {
    super(message);
  }
}

/** A CHECK violation: the transfer would have taken an agent wallet below what it holds. */
function isFundsViolation(err: unknown): boolean {
  const text = String((err as { message?: unknown })?.message ?? '') + JSON.stringify((err as { meta?: unknown })?.meta ?? {});
  return text.includes('wallets_agent_funds') || (err as { code?: unknown })?.code === '23514';
}

/**
 * Appends one transfer (entries summing to zero) and moves the balances of the agent wallets in it, in one
 * statement of `tx`. Throws InsufficientFunds, writing nothing, when an agent wallet would go below what it
 * holds. Answers the transfer's id.
 */
export async function transfer(tx: DbTx, legs: Leg[], meta: TransferMeta): Promise<string> {
  const live = legs.filter((l) => l.amount !== 0n);
  if (live.reduce((sum, l) => sum + l.amount, 0n) !== 0n) throw new Error(`a transfer must sum to zero: ${live.map((l) => `${l.kind} ${l.amount}`).join(', ')}`);
  const transferId = newUuid();
  if (!live.length) return transferId;
  // One row per agent wallet, its legs netted: a wallet on both sides of a transfer is updated once.
  const net = new Map<string, bigint>();
  for (const l of live) if (!SYSTEM_ACCOUNT_IDS.has(l.walletId)) net.set(l.walletId, (net.get(l.walletId) ?? 0n) + l.amount);
  try {
    await tx.$executeRawUnsafe(
      `WITH m AS (
         UPDATE wallets w SET balance = w.balance + d.delta
         FROM (SELECT unnest($1::uuid[]) AS id, unnest($2::bigint[]) AS delta) d
         WHERE w.id = d.id AND d.delta <> 0 RETURNING w.id)
       INSERT INTO wallet_entries (id, wallet_id, amount, kind, reference, transfer_id, execution_id, payment_id, created_at)
       SELECT gen_random_uuid(), x.wallet_id, x.amount, x.kind, $6, $7::uuid, $8::uuid, $9::uuid, $10::timestamptz
       FROM unnest($3::uuid[], $4::bigint[], $5::text[]) AS x(wallet_id, amount, kind)`,
      [...net.keys()],
      [...net.values()].map(String),
      live.map((l) => l.walletId),
      live.map((l) => l.amount.toString()),
      live.map((l) => l.kind),
      meta.reference ?? null,
      transferId,
      meta.executionId ?? null,
      meta.paymentId ?? null,
      meta.at,
    );
  } catch (err) {
    if (isFundsViolation(err)) throw new InsufficientFunds();
    throw err;
  }
  return transferId;
}

/** What an agent wallet has: its balance, what calls in flight hold, and what is available. */
export interface Funds {
  walletId: string;
  address: string;
  balance: bigint;
  held: bigint;
  available: bigint;
}

export async function fundsOf(db: DbTx, agentId: string): Promise<Funds | undefined> {
  const w = await db.wallet.findUnique({ where: { agentId }, select: { id: true, address: true, balance: true, held: true } });
  return w ? { walletId: w.id, address: w.address, balance: w.balance, held: w.held, available: w.balance - w.held } : undefined;
}

/**
 * Opens a wallet, with a key the marketplace generates, for each of `agentIds` that has none (a provider
 * paid for the first time, a caller credited by an x402 payment). Runs in `tx` when given.
 */
export async function ensureWallets(db: DbTx, keys: WalletKeyring, labels: { network: string; asset: string }, agentIds: string[]): Promise<void> {
  if (!agentIds.length) return;
  const rows = agentIds.map((agentId) => ({ agentId, ...keys.generate(), network: labels.network, asset: labels.asset, keyOrigin: 'generated' }));
  await db.wallet.createMany({ data: rows, skipDuplicates: true });
}

/** Agents among `agentIds` without a wallet. */
export async function withoutWallet(db: DbTx, agentIds: string[]): Promise<string[]> {
  if (!agentIds.length) return [];
  const have = await db.wallet.findMany({ where: { agentId: { in: agentIds } }, select: { agentId: true } });
  const found = new Set(have.map((w) => w.agentId));
  return [...new Set(agentIds)].filter((id) => !found.has(id));
}

/**
 * Reserves `amount` of an agent's wallet for a call in flight, in one statement: the reservation is taken
 * only while the balance less what is already held covers it (the row's lock makes concurrent holds exact).
 * Also answers which of `providers` have no wallet yet, so the call can open theirs before paying them.
 */
export const HOLD_SQL = `
  WITH w AS (
    UPDATE wallets SET held = held + $2 WHERE agent_id = $1::uuid AND account = 'agent' AND balance - held >= $2 RETURNING id, address),
  h AS (INSERT INTO wallet_holds (id, wallet_id, amount, expires_at, created_at) SELECT $3::uuid, w.id, $2, $4::timestamptz, $5::timestamptz FROM w)
  SELECT (SELECT id FROM w) AS wallet_id, (SELECT address FROM w) AS address,
    ARRAY(SELECT p FROM unnest($6::uuid[]) AS p WHERE NOT EXISTS (SELECT 1 FROM wallets x WHERE x.agent_id = p)) AS missing`;

export interface Hold {
  id: string;
  walletId: string;
  address: string;
  amount: bigint;
}

/** Holds `amount` on `agentId`'s wallet; undefined (and nothing held) when it does not cover it. */
export async function hold(services: Services, agentId: string, amount: bigint, expiresAt: Date, providers: string[]): Promise<{ hold?: Hold; missing: string[] }> {
  const id = newUuid();
  const [row] = await services.sql.query<{ wallet_id: string | null; address: string | null; missing: string[] }>(
    HOLD_SQL,
    [agentId, amount.toString(), id, expiresAt, services.clock.now(), providers],
    'wallet_hold',
  );
  return { hold: row.wallet_id ? { id, walletId: row.wallet_id, address: row.address!, amount } : undefined, missing: row.missing ?? [] };
}

/** Holds `amount` inside `tx` (the wallet must cover it: InsufficientFunds otherwise). */
export async function holdIn(tx: DbTx, walletId: string, amount: bigint, expiresAt: Date, at: Date, id: string = newUuid()): Promise<string> {
  const held = await tx.$executeRaw`
    WITH w AS (UPDATE wallets SET held = held + ${amount} WHERE id = ${walletId}::uuid AND balance - held >= ${amount} RETURNING id)
    INSERT INTO wallet_holds (id, wallet_id, amount, expires_at, created_at) SELECT ${id}::uuid, w.id, ${amount}, ${expiresAt}, ${at} FROM w`;
  if (!held) throw new InsufficientFunds();
  return id;
}

/** Gives a hold back (its call was not made, or not recorded). Holding it twice is harmless. */
export async function releaseHold(services: Pick<Services, 'sql'>, holdId: string): Promise<void> {
  await services.sql.query(
    `WITH d AS (DELETE FROM wallet_holds WHERE id = $1::uuid RETURNING wallet_id, amount)
     UPDATE wallets w SET held = w.held - d.amount FROM d WHERE w.id = d.wallet_id`,
    [holdId],
    'wallet_release_hold',
  );
}

/**
 * Gives back the holds of calls that were never recorded (their process stopped): each hold outlives its
 * call's longest run, so a lapsed one belongs to nobody. Answers how many were released.
 */
export async function releaseLapsedHolds(services: Pick<Services, 'sql' | 'clock'>, batch = 500): Promise<number> {
  const [row] = await services.sql.query<{ released: number }>(
    `WITH d AS (
       DELETE FROM wallet_holds WHERE id IN (SELECT id FROM wallet_holds WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING wallet_id, amount),
     s AS (SELECT wallet_id, sum(amount) AS amount, count(*) AS n FROM d GROUP BY wallet_id),
     u AS (UPDATE wallets w SET held = w.held - s.amount FROM s WHERE w.id = s.wallet_id)
     SELECT COALESCE(sum(n), 0)::int AS released FROM s`,
    [services.clock.now(), batch],
  );
  return row.released;
}
