// A cache with a bound on the bytes it holds, not only on its number of entries: each entry is weighed
// when kept, and the least recently used go first once the total passes the budget. A cache bounded by
// count alone holds whatever its entries happen to weigh (a thousand parsed megabyte documents).

export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private total = 0;

  constructor(
    /** The most the entries may weigh together. */
    private readonly budgetBytes: number,
    /** What an entry weighs, in bytes: an estimate that errs high. */
    private readonly weigh: (key: string, value: V) => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** What the entries weigh together. */
  get bytes(): number {
    return this.total;
  }

  /** The value kept under `key`, which becomes the most recently used. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Map keeps insertion order: moving the entry to the end makes the first one the least recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` (unless it alone weighs more than the budget), making room by dropping the least recently used. */
  set(key: string, value: V): void {
    this.delete(key);
    const weight = this.weigh(key, value);
    if (weight > this.budgetBytes) return;
    this.entries.set(key, { value, weight });
    this.total += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.budgetBytes) break;
      this.entries.delete(oldest);
      this.total -= entry.weight;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.weight;
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}

/** Bytes a string may take in memory (two a character at most). */
export function stringBytes(text: string): number {
  return 2 * text.length;
}
