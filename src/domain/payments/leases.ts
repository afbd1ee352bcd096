// Prepaid calls without a database round trip before the provider: each instance leases a float on a caller's wallet
// (a wallet_holds row, counted in `held`) and takes each call's price from it in memory. The statement recording a call
// (execution/record.ts) lowers `balance` and `held` together, so available funds are exact at every commit. A quiet
// lease is given back; a stopped instance's lapses and releaseLapsedHolds (ledger.ts) returns what it still held.
import { newUuid } from '../../platform/ids';
import type { Services } from '../context';

/** A lease is topped up with this many times the price that needed it (never more than is available). */
const LEASE_CALLS = 50;
/** A lease no call has used for this long is given back. */
const LEASE_IDLE_MS = 2_000;
/** A lease closer than this to lapsing is not extended (the sweeper may be taking it): a new one is taken. */
const LAPSE_MARGIN_MS = 5_000;
/**
 * A lease is topped up ahead of need, while calls go on taking from it, once it has fewer than this many calls' worth
 * left (of the price that took the last) or would lapse within one and a half of its longest call, so a steady caller's
 * calls never wait on a top-up's round trip (docs/payments.md, Holds and leases).
 */
const TOP_UP_AHEAD_CALLS = 25n;

interface Lease {
  id: string;
  agentId: string;
  walletId: string;
  address: string;
  /** What the lease still has for new calls (base units). */
  remaining: bigint;
  /** Calls started on it and not yet recorded. */
  inflight: number;
  /** When its row lapses (epoch ms): a call starts on it only if it ends before then. */
  lapses: number;
  lastUsed: number;
  releasing: boolean;
  /** Not topped up ahead of need before this (epoch ms): the wallet had little more to give the last time. */
  aheadAfter: number;
}

/** What a prepaid call holds: its price, on this instance's lease of the caller's wallet. */
export interface LeaseTicket {
  leaseId: string;
  walletId: string;
  address: string;
  amount: bigint;
}

/**
 * Reserves `$2` more on the caller's wallet when it has at least `$3` available (the wallet's row lock
 * makes concurrent reservations exact), upserting the lease row with its new total and expiry.
 */
const TOP_UP_SQL = `
  WITH cur AS (
    SELECT id, address, LEAST($2::bigint, balance - held - pending) AS add FROM wallets
    WHERE agent_id = $1::uuid AND account = 'agent' FOR NO KEY UPDATE),
  u AS (UPDATE wallets w SET held = w.held + cur.add FROM cur WHERE w.id = cur.id AND cur.add >= $3::bigint RETURNING cur.add),
  l AS (INSERT INTO wallet_holds (id, wallet_id, amount, expires_at, created_at)
        SELECT $4::uuid, cur.id, u.add, $5::timestamptz, $6::timestamptz FROM cur, u
        ON CONFLICT (id) DO UPDATE SET amount = wallet_holds.amount + EXCLUDED.amount, expires_at = EXCLUDED.expires_at)
  SELECT (SELECT id FROM cur) AS wallet_id, (SELECT address FROM cur) AS address, (SELECT add FROM u)::text AS added`;

/** Gives a lease's remainder back and removes its row. */
const RELEASE_SQL = `
  WITH d AS (DELETE FROM wallet_holds WHERE id = $1::uuid RETURNING wallet_id)
  UPDATE wallets w SET held = w.held - $2::bigint FROM d WHERE w.id = d.wallet_id`;

export class WalletLeases {
  private readonly leases = new Map<string, Lease>();
  /** A top-up in progress per agent: calls arriving meanwhile wait for it rather than reserving twice. */
  private readonly toppingUp = new Map<string, Promise<boolean>>();
  private sweep: NodeJS.Timeout | undefined;

  constructor(private readonly services: Pick<Services, 'sql' | 'clock' | 'log'>) {}

  start(): void {
    this.sweep ??= setInterval(
      () => void this.releaseIdle(LEASE_IDLE_MS).catch((err) => this.services.log.warn({ err }, 'releasing idle wallet leases failed')),
      LEASE_IDLE_MS / 2,
    );
    this.sweep.unref();
  }

  /**
   * Takes `amount` for a call from the caller's lease, topping the lease up first when it cannot cover
   * it or would lapse before a call of `maxCallMs` ends. Answers no ticket when the wallet cannot cover
   * it (or there is none).
   */
  async reserve(agentId: string, amount: bigint, maxCallMs: number): Promise<{ ticket?: LeaseTicket }> {
    for (;;) {
      const now = this.services.clock.now().getTime();
      const lease = this.leases.get(agentId);
      if (lease && !lease.releasing && lease.remaining >= amount && lease.lapses - now >= maxCallMs) {
        lease.remaining -= amount;
        lease.inflight += 1;
        lease.lastUsed = now;
        const short = lease.remaining < amount * TOP_UP_AHEAD_CALLS && now >= lease.aheadAfter;
        if ((short || lease.lapses - now < 1.5 * maxCallMs) && !this.toppingUp.has(agentId)) this.topUpAhead(agentId, amount, maxCallMs);
        return { ticket: { leaseId: lease.id, walletId: lease.walletId, address: lease.address, amount } };
      }
      // One top-up at a time per caller; whoever waited on it, and whoever made it, looks again (calls
      // arriving meanwhile may have taken from the lease what was there).
      let pending = this.toppingUp.get(agentId);
      if (!pending) {
        pending = this.topUp(agentId, amount, maxCallMs).finally(() => this.toppingUp.delete(agentId));
        this.toppingUp.set(agentId, pending);
        if (!(await pending)) return {};
        continue;
      }
      await pending;
    }
  }

  /**
   * Tops the caller's lease up without a call waiting on it (calls arriving meanwhile take from what the
   * lease still has, and wait only if that runs out). A failure is logged: the next call that finds the
   * lease short tops it up itself.
   */
  private topUpAhead(agentId: string, amount: bigint, maxCallMs: number): void {
    const pending = this.topUp(agentId, amount, maxCallMs)
      .catch((err) => {
        this.services.log.warn({ err, agent_id: agentId }, 'topping a wallet lease up ahead of need failed');
        return false;
      })
      .finally(() => this.toppingUp.delete(agentId));
    this.toppingUp.set(agentId, pending);
  }

  private async topUp(agentId: string, amount: bigint, maxCallMs: number): Promise<boolean> {
    const now = this.services.clock.now().getTime();
    const current = this.leases.get(agentId);
    // A lease being given back, or about to lapse, is not topped up: a new one is taken.
    const usable = current && !current.releasing && current.lapses - now >= LAPSE_MARGIN_MS;
    const lease = usable ? current : undefined;
    // Ahead of need the lease may still cover the call: nothing more is then needed for the top-up to go
    // ahead (it still extends the lease's life).
    const need = amount - (lease?.remaining ?? 0n);
    const want = amount * BigInt(LEASE_CALLS) - (lease?.remaining ?? 0n);
    const id = lease?.id ?? newUuid();
    // Calls may start on it for one longest run, and the row outlives the last of them by another.
    const lapses = now + 2 * maxCallMs;
    const [row] = await this.services.sql.query<{ wallet_id: string | null; address: string | null; added: string | null }>(
      TOP_UP_SQL,
      [agentId, want.toString(), need.toString(), id, new Date(lapses), new Date(now)],
      'wallet_lease',
    );
    if (!row.added) return false;
    // A wallet that gave less than half of what was asked is not asked again ahead of need for a second
    // (otherwise every call of a caller near the end of its funds would make a statement of its own).
    const aheadAfter = BigInt(row.added) * 2n < want ? now + 1_000 : 0;
    if (lease) {
      lease.remaining += BigInt(row.added);
      lease.lapses = lapses;
      lease.aheadAfter = aheadAfter;
    } else {
      if (current && !current.releasing) this.retire(current);
      this.leases.set(agentId, {
        id,
        agentId,
        walletId: row.wallet_id!,
        address: row.address!,
        remaining: BigInt(row.added),
        inflight: 0,
        lapses,
        lastUsed: now,
        releasing: false,
        aheadAfter,
      });
    }
    return true;
  }

  /** A call on `ticket` has ended: `charged` of it was spent (recorded), the rest goes back to the lease. */
  finish(agentId: string, ticket: LeaseTicket, charged: bigint): void {
    const lease = this.leases.get(agentId);
    if (lease?.id === ticket.leaseId) {
      lease.remaining += ticket.amount - charged;
      lease.inflight -= 1;
      return;
    }
    // The lease was retired while the call ran: it is given back once its last call ends.
    const retired = this.retired.get(ticket.leaseId);
    if (!retired) return;
    retired.remaining += ticket.amount - charged;
    retired.inflight -= 1;
    if (retired.inflight === 0) void this.giveBack(retired);
  }

  private readonly retired = new Map<string, Lease>();

  private retire(lease: Lease): void {
    lease.releasing = true;
    if (this.leases.get(lease.agentId) === lease) this.leases.delete(lease.agentId);
    if (lease.inflight === 0) void this.giveBack(lease);
    else this.retired.set(lease.id, lease);
  }

  private async giveBack(lease: Lease): Promise<void> {
    this.retired.delete(lease.id);
    try {
      await this.services.sql.query(RELEASE_SQL, [lease.id, lease.remaining.toString()], 'wallet_lease_release');
    } catch (err) {
      // Left to lapse: releaseLapsedHolds gives back what it still holds.
      this.services.log.warn({ err, lease: lease.id }, 'giving a wallet lease back failed; it lapses instead');
    }
  }

  /** Gives back the leases no call has used for `idleMs` (all of them with 0) and that have no call in flight. */
  async releaseIdle(idleMs: number): Promise<void> {
    const now = this.services.clock.now().getTime();
    // Not a lease being topped up: its release could run before the top-up, which would then hold again
    // what nobody has.
    const idle = [...this.leases.values()].filter((l) => l.inflight === 0 && now - l.lastUsed >= idleMs && !this.toppingUp.has(l.agentId));
    for (const lease of idle) {
      lease.releasing = true;
      this.leases.delete(lease.agentId);
    }
    await Promise.all(idle.map((lease) => this.giveBack(lease)));
  }

  /** At shutdown: what this instance holds is given back (calls in flight have been answered). */
  async stop(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    this.sweep = undefined;
    await Promise.all(this.toppingUp.values());
    for (const lease of this.leases.values()) lease.inflight = 0;
    await this.releaseIdle(0);
    await Promise.all([...this.retired.values()].map((lease) => this.giveBack(lease)));
  }
}
