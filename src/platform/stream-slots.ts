// Caps what one owner keeps open on this instance (an agent's event streams; a caller's held connections):
// a slot is taken when a stream or connection opens and given back (by its close) however it ends.
import { RateLimited } from './errors';

export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly perOwner: number,
    private readonly what = 'event streams may be open at once per agent',
  ) {}

  /** Takes a slot for `owner`, or answers 429; returns the release (safe to call twice). */
  take(owner: string): () => void {
    const n = this.open.get(owner) ?? 0;
    if (n >= this.perOwner) {
      throw new RateLimited(5, `At most ${this.perOwner} ${this.what}; close one first`);
    }
    this.open.set(owner, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(owner) ?? 1) - 1;
      if (left > 0) this.open.set(owner, left);
      else this.open.delete(owner);
    };
  }

  count(owner: string): number {
    return this.open.get(owner) ?? 0;
  }
}
