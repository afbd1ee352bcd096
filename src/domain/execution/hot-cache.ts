// What `execute` looks up before calling a provider — the caller by its credential, and the capability's
// ranked, callable providers — kept for a moment per instance, so that a repeated call reaches its
// provider without a database round trip.
//
// Staleness is bounded three ways. Every change that could make an entry wrong (a credential revoked, an
// agent suspended or re-scoped, a service added, changed, cooled down or removed) fires a database
// trigger that NOTIFYs every instance, and each instance empties its cache on the notification. This
// instance also empties it after each mutation it serves (so a client's own change is seen by its next
// request even before the notification arrives). And an entry lives at most `ttlMs` (statistics and
// scores move without notifications). While the listening connection is down, nothing is cached.
import type { CallableRows } from '../discovery/resolve';
import type { principalFromJson } from '../agents/principal';

/** The database channel the change triggers notify (prisma/migrations/*_execute_hot_cache). */
export const CHANGES_CHANNEL = 'marketplace_changes';

export interface HotEntry {
  principal: Parameters<typeof principalFromJson>[0];
  candidates: CallableRows;
}

/** Entries beyond this empty the cache (a crude bound, reached only by many keys × capabilities). */
const MAX_ENTRIES = 10_000;

export class ExecuteHotCache {
  private entries = new Map<string, { value: HotEntry; expires: number }>();
  /** A capability's callable providers alone, for callers already known (swarm steps, subscription runs). */
  private byCapability = new Map<string, { value: CallableRows; expires: number }>();
  /** Lookups under way, shared by the calls that ask at the same time. */
  private loading = new Map<string, Promise<CallableRows>>();
  private listening = false;
  /** When the cache was last emptied (performance.now()). */
  private flushedAt = 0;

  constructor(private readonly ttlMs: number) {}

  /** Whether entries are kept at all: a positive TTL and a live change feed. */
  get enabled(): boolean {
    return this.ttlMs > 0 && this.listening;
  }

  get(credentialHash: string, capability: string): HotEntry | undefined {
    if (!this.enabled) return undefined;
    const key = `${credentialHash}\n${capability}`;
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires <= performance.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  /** Keeps a lookup made before `since` (performance.now()) unless the cache was emptied after it began. */
  set(credentialHash: string, capability: string, value: HotEntry, since: number): void {
    if (!this.enabled || since < this.flushedAt) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(`${credentialHash}\n${capability}`, { value, expires: since + this.ttlMs });
  }

  /**
   * A capability's callable providers: kept as the entries are, and looked up once for every call that
   * asks while a lookup is under way (the steps of a parallel swarm all start at once).
   */
  capabilityCandidates(capability: string, load: () => Promise<CallableRows>): Promise<CallableRows> {
    if (!this.enabled) return load();
    const hit = this.byCapability.get(capability);
    if (hit && hit.expires > performance.now()) return Promise.resolve(hit.value);
    let pending = this.loading.get(capability);
    if (!pending) {
      const since = performance.now();
      pending = load()
        .then((rows) => {
          if (since >= this.flushedAt) {
            if (this.byCapability.size >= MAX_ENTRIES) this.byCapability.clear();
            this.byCapability.set(capability, { value: rows, expires: since + this.ttlMs });
          }
          return rows;
        })
        .finally(() => this.loading.delete(capability));
      this.loading.set(capability, pending);
    }
    return pending;
  }

  /** Forgets everything; lookups already in flight are not kept either. */
  flush(): void {
    this.entries.clear();
    this.byCapability.clear();
    this.flushedAt = performance.now();
  }

  /** The change feed's state: while it is down, notifications may be missed, so nothing is kept. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.flush();
  }
}
