// Escrow through the dispute window (docs/payments.md, Escrow): a paid call's provider share is credited to the
// provider's balance as `pending` when the call is recorded (execution/record.ts) and becomes available when the
// window ends (DISPUTE_WINDOW_SECONDS), settled by a worker that claims due escrows FOR UPDATE SKIP LOCKED, so that
// any number of instances settle each exactly once. A dispute of the call opened inside the window freezes it until
// the dispute is decided: a refund is taken from it (never from money the provider could already spend), and what is
// left then settles.
import type { DbTx } from '../../db/database';
import type { Moves } from '../../platform/state-machine';
import { idleUntilDue, Worker } from '../../platform/worker';
import type { Services } from '../context';

declare module '../context' {
  interface Services {
    /** Settles the escrows whose dispute window has ended (escrowSettler). */
    escrow: Worker;
  }
}

export const ESCROW_STATUSES = ['pending', 'frozen', 'settled', 'refunded'] as const;
export type EscrowStatus = (typeof ESCROW_STATUSES)[number];

/** Every move an escrow may make (the SQL below moves only along these, each guarded by the status it leaves). */
export const ESCROW_MOVES: Moves<EscrowStatus> = {
  pending: ['frozen', 'settled'],
  frozen: ['settled', 'refunded'],
  settled: [],
  refunded: [],
};

/**
 * One round: settles the pending escrows whose window has ended, at most `batch`, oldest first. Escrow rows are
 * claimed first, then their wallets locked in id order (as every statement moving money locks them), so a
 * dispute freezing one of them meanwhile either wins its row or waits for this round. Answers how many settled.
 */
export async function settleDueEscrows(services: Pick<Services, 'sql' | 'clock'>, batch = 200): Promise<number> {
  const now = services.clock.now();
  const rows = await services.sql.query<{ settled: number }>(
    `WITH due AS (
       SELECT execution_id, wallet_id, amount FROM escrows WHERE status = 'pending' AND release_at <= $1 ORDER BY release_at LIMIT $2 FOR UPDATE SKIP LOCKED
     ), lk AS (
       SELECT id FROM wallets WHERE id IN (SELECT wallet_id FROM due) ORDER BY id FOR NO KEY UPDATE
     ), done AS (
       UPDATE escrows e SET status = 'settled', settled_at = $1 FROM due WHERE e.execution_id = due.execution_id AND (SELECT count(*) FROM lk) >= 0
       RETURNING e.wallet_id, due.amount
     ), w AS (
       UPDATE wallets SET pending = pending - s.amount FROM (SELECT wallet_id, sum(amount) AS amount FROM done GROUP BY wallet_id) s WHERE wallets.id = s.wallet_id
     )
     SELECT count(*)::int AS settled FROM done`,
    [now, batch],
  );
  return rows[0]?.settled ?? 0;
}

/** When the next pending escrow falls due (ms), for a worker on a database only this process writes. */
async function nextRelease(services: Pick<Services, 'sql'>): Promise<number | null> {
  const [next] = await services.sql.query<{ at: Date | string }>(`SELECT min(release_at) AS at FROM escrows WHERE status = 'pending'`, []);
  return next?.at ? new Date(next.at).getTime() : null;
}

/** The worker that settles escrows whose window has ended (a round: settleDueEscrows). */
export function escrowSettler(services: Services, batch = 200): Worker {
  return new Worker({
    name: 'escrow',
    round: () => settleDueEscrows(services, batch),
    log: services.log,
    pollMs: 15_000,
    fullBatch: batch,
    ...idleUntilDue(services.sql, services.clock, () => nextRelease(services)),
  });
}

/** A call's escrow, locked, when it is still pending or frozen. */
export async function lockedEscrow(tx: DbTx, executionId: string): Promise<{ walletId: string; amount: bigint; status: EscrowStatus; releaseAt: Date } | null> {
  const [row] = await tx.$queryRaw<{ wallet_id: string; amount: bigint; status: EscrowStatus; release_at: Date }[]>`
    SELECT wallet_id, amount, status, release_at FROM escrows WHERE execution_id = ${executionId}::uuid AND status IN ('pending', 'frozen') FOR NO KEY UPDATE`;
  return row ? { walletId: row.wallet_id, amount: BigInt(row.amount), status: row.status, releaseAt: row.release_at } : null;
}

/**
 * A dispute of the call opened inside its window freezes the call's escrow (pending → frozen): it no longer
 * settles by itself, until the dispute is decided. Answers whether it froze one.
 */
export async function freezeEscrow(tx: DbTx, executionId: string, disputeId: string, at: Date): Promise<boolean> {
  const frozen = await tx.$executeRaw`
    UPDATE escrows SET status = 'frozen', dispute_id = ${disputeId}::uuid
    WHERE execution_id = ${executionId}::uuid AND status = 'pending' AND release_at > ${at}`;
  return frozen > 0;
}

/**
 * Takes up to `wanted` of a frozen escrow (locked by lockedEscrow, its wallet since) back from the provider's
 * pending balance: the caller's transfer then lowers the balance by as much, so the provider's available funds
 * are untouched. Answers what it took.
 */
export async function takeFromEscrow(
  tx: DbTx,
  executionId: string,
  escrow: { walletId: string; amount: bigint; status: EscrowStatus } | null,
  wanted: bigint,
): Promise<bigint> {
  if (!escrow || escrow.status !== 'frozen' || wanted <= 0n) return 0n;
  const taken = wanted < escrow.amount ? wanted : escrow.amount;
  await tx.$executeRaw`UPDATE wallets SET pending = pending - ${taken} WHERE id = ${escrow.walletId}::uuid`;
  await tx.$executeRaw`
    UPDATE escrows SET amount = amount - ${taken}, status = CASE WHEN amount - ${taken} = 0 THEN 'refunded' ELSE status END
    WHERE execution_id = ${executionId}::uuid`;
  return taken;
}

/**
 * Settles a locked escrow whose window has ended that the worker has not reached yet, so that a refund after
 * the window finds the share where every settled share is: the provider's available funds.
 */
export async function settleIfDue(
  tx: DbTx,
  executionId: string,
  escrow: { walletId: string; amount: bigint; status: EscrowStatus; releaseAt: Date } | null,
  at: Date,
): Promise<void> {
  if (!escrow || escrow.status !== 'pending' || escrow.releaseAt > at) return;
  await tx.$executeRaw`UPDATE wallets SET pending = pending - ${escrow.amount} WHERE id = ${escrow.walletId}::uuid`;
  await tx.$executeRaw`UPDATE escrows SET status = 'settled', settled_at = ${at} WHERE execution_id = ${executionId}::uuid AND status = 'pending'`;
}

/** A decided dispute lets its frozen escrow go: what a refund left of it settles now (frozen → settled). */
export async function releaseFrozen(tx: DbTx, executionId: string, at: Date): Promise<void> {
  const escrow = await lockedEscrow(tx, executionId);
  if (!escrow || escrow.status !== 'frozen') return;
  await tx.$executeRaw`UPDATE wallets SET pending = pending - ${escrow.amount} WHERE id = ${escrow.walletId}::uuid`;
  await tx.$executeRaw`UPDATE escrows SET status = 'settled', settled_at = ${at} WHERE execution_id = ${executionId}::uuid`;
}
