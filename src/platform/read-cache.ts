// Answers of hot reads kept for a moment per instance, one lookup shared by every caller asking meanwhile. Staleness
// is bounded by the owner: it flushes on each report of a change feed (a LISTEN) and after each write it serves, and
// an answer lives at most `ttlMs` for what moves unreported. While the feed is down nothing is kept, nor a lookup
// begun before the last flush. What is kept is bounded in bytes, so many distinct large answers cannot fill memory.
import { BoundedCache, stringBytes } from './bounded-cache';

/** What the kept answers may weigh together (the least recently used go first). */
export const READ_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * What an answer weighs without its key: its bytes when it is kept serialized, else as its owner weighs
 * it, else estimated from its JSON (two bytes a character, erring high).
 */
function weightOf(value: unknown, weight?: number): number {
  return weight ?? (value instanceof Uint8Array ? value.byteLength : typeof value === 'string' ? stringBytes(value) : stringBytes(JSON.stringify(value) ?? ''));
}

/** A kept answer: `weight` is the value's, so that another key for it (an alias) is weighed without weighing it again. */
interface Entry {
  value: unknown;
  expires: number;
  weight: number;
}

export class ReadCache {
  private entries = new BoundedCache<Entry>(READ_CACHE_BYTES, (key, entry) => stringBytes(key) + entry.weight + 64);
  /** Lookups under way, shared by the callers that ask at the same time. */
  private loading = new Map<string, Promise<unknown>>();
  private listening = false;
  /** When the cache was last emptied (performance.now()). */
  private flushedAt = 0;

  constructor(private readonly ttlMs: number) {}

  /** Whether answers are kept at all: a positive TTL and a live change feed. */
  get enabled(): boolean {
    return this.ttlMs > 0 && this.listening;
  }

  /**
   * The answer kept under `key`, or `load`'s, kept when the cache is enabled and nothing was flushed while it ran;
   * callers asking meanwhile share it. `key` names everything the answer depends on (statement and parameters). `weigh`
   * gives a value's bytes when its owner knows them cheaper than serializing it again.
   */
  read<T>(key: string, load: () => Promise<T>, weigh?: (value: T) => number): Promise<T> {
    if (!this.enabled) return load();
    const hit = this.peek(key);
    if (hit !== undefined) return Promise.resolve(hit as T);
    let pending = this.loading.get(key) as Promise<T> | undefined;
    if (!pending) {
      const since = performance.now();
      const loaded: Promise<T> = load()
        .then((value) => {
          this.keep(key, value, since, weigh?.(value));
          return value;
        })
        .finally(() => {
          if (this.loading.get(key) === loaded) this.loading.delete(key);
        });
      this.loading.set(key, loaded);
      pending = loaded;
    }
    return pending;
  }

  /**
   * The answer kept under `key`, if any (for a caller that makes and keeps its answers itself); with `alsoUnder`, a hit
   * is kept under that key too, until it expires there, and each key weighs the answer as if it were kept twice.
   */
  peek(key: string, alsoUnder?: string): unknown {
    if (!this.enabled) return undefined;
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires > performance.now()) {
      if (alsoUnder !== undefined) this.entries.set(alsoUnder, hit);
      return hit.value;
    }
    this.entries.delete(key);
    return undefined;
  }

  /**
   * Keeps `value` under `key`, made by work begun at `since` (performance.now()), by read's rules; `weight`
   * as read's `weigh` gives it.
   */
  keep(key: string, value: unknown, since: number, weight?: number): void {
    if (!this.enabled || since < this.flushedAt) return;
    this.entries.set(key, { value, expires: since + this.ttlMs, weight: weightOf(value, weight) });
  }

  /** What the kept answers weigh, and how many there are (for /metrics). */
  get kept(): { bytes: number; entries: number } {
    return { bytes: this.entries.bytes, entries: this.entries.size };
  }

  /**
   * Forgets everything. Lookups already in flight are not kept, and a read from now on starts its own
   * rather than sharing one that may have begun before the change.
   */
  flush(): void {
    this.entries.clear();
    this.loading.clear();
    this.flushedAt = performance.now();
  }

  /** The change feed's state: while it is down, reports may be missed, so nothing is kept. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.flush();
  }
}
