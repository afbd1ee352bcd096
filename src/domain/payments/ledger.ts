// The wallet ledger: every movement of money is a transfer of entries that sum to zero, appended in the
// transaction of the change it belongs to. An agent wallet's balance is kept beside its entries by the same
// statement and may never go below what its holds reserve (a CHECK), so it is never negative; the
// marketplace's own accounts (setup.ts) take entries only, so that no paid call waits on their rows.
import { newUuid } from '../../platform/ids';
import { Conflict } from '../../platform/errors';
import type { DbTx } from '../../db/database';
import { oneEach, perRequest } from '../../platform/loaders';
import type { Ctx, Services } from '../context';
import { ACCOUNTS, SYSTEM_ACCOUNT_IDS, type PaymentSetup } from './setup';

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
 * Appends one transfer (entries summing to zero) and moves its agent wallets' balances in one statement of `tx`, rows
 * locked in id order first (as execute's charge does). Throws InsufficientFunds, writing nothing, when a wallet would go
 * below what it holds. Answers the transfer's id.
 */
export async function transfer(tx: DbTx, legs: Leg[], meta: TransferMeta): Promise<string> {
  const live = legs.filter((l) => l.amount !== 0n);
  if (live.reduce((sum, l) => sum + l.amount, 0n) !== 0n)
    throw new Error(`a transfer must sum to zero: ${live.map((l) => `${l.kind} ${l.amount}`).join(', ')}`);
  const transferId = newUuid();
  if (!live.length) return transferId;
  // One row per agent wallet, its legs netted: a wallet on both sides of a transfer is updated once.
  const net = new Map<string, bigint>();
  for (const l of live) if (!SYSTEM_ACCOUNT_IDS.has(l.walletId)) net.set(l.walletId, (net.get(l.walletId) ?? 0n) + l.amount);
  try {
    await tx.$executeRawUnsafe(
      `WITH lk AS (SELECT id FROM wallets WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE),
       m AS (
         UPDATE wallets w SET balance = w.balance + d.delta
         FROM (SELECT unnest($1::uuid[]) AS id, unnest($2::bigint[]) AS delta) d
         WHERE w.id = d.id AND d.delta <> 0 AND (SELECT count(*) FROM lk) >= 0 RETURNING w.id)
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
  const w = await db.wallet.findUnique({ where: { agentId }, select: { id: true, address: true, balance: true, held: true, pending: true } });
  return w ? { walletId: w.id, address: w.address, balance: w.balance, held: w.held, available: w.balance - w.held - w.pending } : undefined;
}

/**
 * Opens a wallet, with a key the marketplace generates, for each of `agentIds` that has none; in sandbox mode it is
 * credited the starting balance from the faucet in the same transaction. An agent has one wallet (unique agent_id), so
 * however many first needs arrive together, one opens it and it is credited once.
 */
export async function openWallets(services: Pick<Services, 'db' | 'payments' | 'clock'>, agentIds: string[]): Promise<void> {
  // Sorted, so that two openings of the same agents wait on each other's rows in one order.
  const ids = [...new Set(agentIds)].sort();
  if (!ids.length) return;
  const { setup, keys } = services.payments;
  const rows = ids.map((agentId) => ({ agentId, ...keys.generate(), network: setup.networkName, asset: setup.asset.symbol, keyOrigin: 'generated' }));
  if (setup.startingBalanceUnits === 0n) {
    await services.db.wallet.createMany({ data: rows, skipDuplicates: true });
    return;
  }
  await services.db.$transaction(async (tx) => {
    const opened = await tx.wallet.createManyAndReturn({ data: rows, skipDuplicates: true, select: { id: true } });
    await creditStartingBalance(
      tx,
      setup,
      opened.map((w) => w.id),
      services.clock.now(),
    );
  });
}

/**
 * Credits wallets just opened (in `tx`, the transaction that opened them) the sandbox starting balance, as
 * one faucet transfer; nothing in live mode.
 */
export async function creditStartingBalance(tx: DbTx, setup: Pick<PaymentSetup, 'startingBalanceUnits'>, walletIds: string[], at: Date): Promise<void> {
  const amount = setup.startingBalanceUnits;
  if (amount === 0n || !walletIds.length) return;
  await transfer(
    tx,
    [
      { walletId: ACCOUNTS.faucet, amount: -amount * BigInt(walletIds.length), kind: 'faucet' },
      ...walletIds.map((walletId) => ({ walletId, amount, kind: 'faucet' })),
    ],
    { reference: STARTING_BALANCE_REFERENCE, at },
  );
}

/** The reference of a starting balance's entries (a faucet credit asked for says `sandbox faucet`). */
export const STARTING_BALANCE_REFERENCE = 'sandbox starting balance';

/**
 * Read on every paid answer (its `balance_after`): through the driver with a prepared statement, not
 * Prisma (whose adapter path costs a paid call about a millisecond more).
 */
const BALANCES_SQL = 'SELECT id, balance::text AS balance FROM wallets WHERE id = ANY($1::uuid[])';
const balancesOf = perRequest(async (ctx: Pick<Ctx, 'services'>, walletIds: readonly string[]) => {
  const rows = await ctx.services.sql.query<{ id: string; balance: string }>(BALANCES_SQL, [[...new Set(walletIds)]], 'wallet_balances');
  return oneEach(walletIds, rows, (w) => w.id).map((w) => (w ? BigInt(w.balance) : null));
});

/** A wallet's balance now (null when it is gone); the wallets a request reads at once are read in one statement. */
export function balanceNow(ctx: Pick<Ctx, 'services'>, walletId: string): Promise<bigint | null> {
  return balancesOf(ctx).load(walletId);
}

/** Agents among `agentIds` without a wallet. */
export async function withoutWallet(db: DbTx, agentIds: string[]): Promise<string[]> {
  if (!agentIds.length) return [];
  const have = await db.wallet.findMany({ where: { agentId: { in: agentIds } }, select: { agentId: true } });
  const found = new Set(have.map((w) => w.agentId));
  return [...new Set(agentIds)].filter((id) => !found.has(id));
}

/** Holds `amount` inside `tx` (the wallet must cover it: InsufficientFunds otherwise). */
export async function holdIn(tx: DbTx, walletId: string, amount: bigint, expiresAt: Date, at: Date, id: string = newUuid()): Promise<string> {
  const held = await tx.$executeRaw`
    WITH w AS (UPDATE wallets SET held = held + ${amount} WHERE id = ${walletId}::uuid AND balance - held - pending >= ${amount} RETURNING id)
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
 * Gives back the holds whose instance stopped before giving them back (each outlives the calls it may
 * serve): what a hold still holds is what was reserved less what calls charged against it (their charge
 * entries name it). Answers how many were released.
 */
export async function releaseLapsedHolds(services: Pick<Services, 'sql' | 'clock'>, batch = 500): Promise<number> {
  const [row] = await services.sql.query<{ released: number }>(
    `WITH due AS (
       SELECT id, wallet_id, amount, created_at FROM wallet_holds WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED),
     spent AS (
       SELECT due.id, COALESCE((SELECT -sum(e.amount) FROM wallet_entries e
         WHERE e.wallet_id = due.wallet_id AND e.created_at >= due.created_at AND e.kind = 'charge' AND e.reference = due.id::text), 0) AS amount
       FROM due),
     d AS (DELETE FROM wallet_holds h USING due WHERE h.id = due.id),
     s AS (SELECT due.wallet_id, sum(due.amount - spent.amount) AS amount, count(*) AS n FROM due JOIN spent USING (id) GROUP BY due.wallet_id),
     u AS (UPDATE wallets w SET held = w.held - s.amount FROM s WHERE w.id = s.wallet_id)
     SELECT COALESCE(sum(n), 0)::int AS released FROM s`,
    [services.clock.now(), batch],
  );
  return row.released;
}
