// A background worker over rows in the database: `wake()` after a commit runs a round at once (another
// follows one in progress), and a poll catches what other instances left or what fell due later. Rounds
// never overlap within an instance; across instances the rounds' own claims (FOR UPDATE SKIP LOCKED) share
// the work.
import type { Logger } from './logger';

export interface WorkerOptions {
  name: string;
  /** One round; resolves with how many items it handled. */
  round: () => Promise<number>;
  log: Logger;
  pollMs: number;
  /** A round that handled this many (a full batch) is followed by another at once. */
  fullBatch: number;
  /**
   * The least time between the starts of two rounds that a wake asks for (default 0): wakes in between
   * are gathered into one round, so work that arrives continuously is handled in batches, not one round
   * per item.
   */
  minIntervalMs?: number;
}

export class Worker {
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  /** A round asked for by a wake, waiting for minIntervalMs to pass. */
  private delayed?: NodeJS.Timeout;
  private lastStart = -Infinity;

  constructor(private readonly opts: WorkerOptions) {}

  start({ runNow = true } = {}): void {
    this.stopped = false;
    const poll = () => {
      if (this.stopped) return;
      this.wake();
      this.timer = setTimeout(poll, this.opts.pollMs);
      this.timer.unref();
    };
    if (runNow) poll();
    else {
      this.timer = setTimeout(poll, this.opts.pollMs);
      this.timer.unref();
    }
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.delayed) return;
    const wait = this.lastStart + (this.opts.minIntervalMs ?? 0) - performance.now();
    if (wait > 0) {
      this.delayed = setTimeout(() => {
        this.delayed = undefined;
        this.runRounds();
      }, wait);
      this.delayed.unref();
      return;
    }
    this.runRounds();
  }

  private runRounds(): void {
    if (this.stopped || this.running) return;
    this.running = (async () => {
      try {
        let full: boolean;
        do {
          this.again = false;
          this.lastStart = performance.now();
          full = (await this.opts.round()) >= this.opts.fullBatch;
        } while (full && !this.stopped);
      } catch (err) {
        this.opts.log.warn({ worker: this.opts.name, err: (err as Error).message }, 'background round failed');
      } finally {
        this.running = undefined;
        // Work that arrived during the round gets a round of its own (after minIntervalMs).
        if (this.again) this.wake();
      }
    })();
  }

  /** Runs any round a wake asked for at once and waits until none is in progress (tests use it to see work settle). */
  async settled(): Promise<void> {
    for (;;) {
      if (this.delayed) {
        clearTimeout(this.delayed);
        this.delayed = undefined;
        this.runRounds();
      }
      if (!this.running) return;
      await this.running;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.delayed);
    this.delayed = undefined;
    await this.running;
  }
}
