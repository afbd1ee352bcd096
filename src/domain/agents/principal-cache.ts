// Callers already looked up, by their credential's hash, so an authenticated request needs no database round trip to
// know who is calling. No time limit, since every change that could make an entry wrong is announced: a trigger
// (prisma/migrations/*_principal_notify) NOTIFYs every instance of an agent's or credential's change, and this instance
// also forgets everything after each mutation it serves. A hash that matched nothing is never kept (a new key works at
// once, guesses cannot fill it), and nothing is kept while the listening connection is down (docs/identity.md).

/** The database channel the principal triggers notify. */
export const PRINCIPALS_CHANNEL = 'marketplace_principals';

/** Entries beyond this empty the cache: a bound on memory, reached only by that many distinct live keys. */
const MAX_ENTRIES = 50_000;

export class PrincipalCache<Row extends object> {
  private entries = new Map<string, { row: Row; agentId: string | null }>();
  private hashesByAgent = new Map<string, Set<string>>();
  private listening = false;
  /**
   * When anything was last forgotten (performance.now()): a lookup that began before it may have read
   * what the change replaced, so it is not kept.
   */
  private changedAt = 0;

  constructor(private readonly enabledByConfig = true) {}

  get enabled(): boolean {
    return this.enabledByConfig && this.listening;
  }

  get size(): number {
    return this.entries.size;
  }

  get(hash: string): Row | undefined {
    return this.enabled ? this.entries.get(hash)?.row : undefined;
  }

  /**
   * Keeps what a lookup begun at `since` (performance.now()) found for `hash`, unless something changed
   * after it began. The row is frozen: every request that gets it shares it.
   */
  set(hash: string, row: Row, agentId: string | null, since: number): void {
    if (!this.enabled || since <= this.changedAt) return;
    if (this.entries.size >= MAX_ENTRIES) this.flush();
    this.forgetHash(hash);
    this.entries.set(hash, { row: Object.freeze(row), agentId });
    if (agentId) {
      let hashes = this.hashesByAgent.get(agentId);
      if (!hashes) this.hashesByAgent.set(agentId, (hashes = new Set()));
      hashes.add(hash);
    }
  }

  /** The notification's payload: an agent's id, or '*' for everything. */
  changed(payload: string): void {
    if (payload === '*' || payload === '') return this.flush();
    this.changedAt = performance.now();
    for (const hash of this.hashesByAgent.get(payload) ?? []) this.entries.delete(hash);
    this.hashesByAgent.delete(payload);
  }

  flush(): void {
    this.changedAt = performance.now();
    this.entries.clear();
    this.hashesByAgent.clear();
  }

  /** The change feed's state: while it is down, notifications may be missed, so nothing is kept. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.flush();
  }

  private forgetHash(hash: string): void {
    const old = this.entries.get(hash);
    if (!old) return;
    this.entries.delete(hash);
    if (old.agentId) this.hashesByAgent.get(old.agentId)?.delete(hash);
  }
}
