// Group commit in the process: items that arrive while the database is busy with earlier ones go together
// in the next statement, so a burst costs one round trip, one commit and one wake-up of a database backend
// instead of one each.

/** What `run` answers for each item of a batch, in order: its result, or why it failed. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs items through `run` in batches: an item goes at once, alone, while fewer than `maxInFlight` batches run, and
 * otherwise waits for the next (at most `maxBatch`). No timer, so no added wait while the database keeps up. `run`
 * settles each item itself; if it throws, every item of the batch fails with that error.
 */
export class Batcher<T, R> {
  private waiting: Waiting<T, R>[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: (items: T[]) => Promise<Settled<R>[]>,
    private readonly maxInFlight: number,
    private readonly maxBatch: number,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length) {
      const batch = this.waiting.length <= this.maxBatch ? this.waiting : this.waiting.slice(0, this.maxBatch);
      this.waiting = batch === this.waiting ? [] : this.waiting.slice(this.maxBatch);
      this.inFlight++;
      void this.start(batch);
    }
  }

  private async start(batch: Waiting<T, R>[]): Promise<void> {
    let settled: Settled<R>[];
    try {
      settled = await this.run(batch.map((w) => w.item));
    } catch (error) {
      settled = batch.map(() => ({ ok: false, error }));
    }
    this.inFlight--;
    for (let i = 0; i < batch.length; i++) {
      const s = settled[i] ?? { ok: false, error: new Error('the batch answered fewer results than it was given items') };
      if (s.ok) batch[i].resolve(s.value);
      else batch[i].reject(s.error);
    }
    this.pump();
  }
}
