// A background worker over rows in the database: `wake()` after a commit runs a round at once, and a poll catches
// what other instances left or what fell due later. Rounds never overlap within an instance; across instances their
// claims (FOR UPDATE SKIP LOCKED) share the work. Where no other process writes (the embedded database), a worker that
// knows when its next item falls due (`nextDue`) reads nothing while idle, since whatever made an item woke it.
import type { Clock } from './clock';
import type { Logger } from './logger';

/** The longest a worker with nextDue reads nothing, whatever it answered. */
export const IDLE_AT_MOST_MS = 30_000;

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
  /**
   * Only on a database no other process writes: when the next item falls due (ms on `now`'s clock; null
   * for none until a wake). Asked after a round that found nothing; until then a poll reads nothing, and
   * wake() (after a commit of this process that made or moved an item) looks again at once.
   */
  nextDue?: () => Promise<number | null>;
  /** The clock of nextDue's answer (default Date.now). */
  now?: () => number;
}

/**
 * A worker's nextDue options over a database: given only where this process is its sole writer (the
 * embedded one), since elsewhere other instances make items that wake no worker here.
 */
export function idleUntilDue(db: { soleWriter?: boolean }, clock: Clock, nextDue: () => Promise<number | null>): Pick<WorkerOptions, 'nextDue' | 'now'> {
  return db.soleWriter ? { nextDue, now: () => clock.now().getTime() } : {};
}

export class Worker {
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  /** A round asked for by a wake, waiting for minIntervalMs to pass. */
  private delayed?: NodeJS.Timeout;
  private lastStart = -Infinity;
  /** Nothing is due before this (nextDue's answer); polls until then read nothing. */
  private idleUntil = -Infinity;
  /** Wakes so far: a nextDue answer read while one came may miss what it made, so it is not kept. */
  private wakes = 0;

  constructor(private readonly opts: WorkerOptions) {}

  start({ runNow = true } = {}): void {
    this.stopped = false;
    const poll = () => {
      if (this.stopped) return;
      if (!(this.idleUntil > (this.opts.now ?? Date.now)())) this.kick();
      this.timer = setTimeout(poll, this.opts.pollMs);
      this.timer.unref();
    };
    if (runNow) poll();
    else {
      this.timer = setTimeout(poll, this.opts.pollMs);
      this.timer.unref();
    }
  }

  /** Something was made or moved that may be due: a round at once (or after the one in progress). */
  wake(): void {
    this.wakes++;
    this.idleUntil = -Infinity;
    this.kick();
  }

  private kick(): void {
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
        let handled: number;
        do {
          this.again = false;
          this.lastStart = performance.now();
          handled = await this.opts.round();
        } while (handled >= this.opts.fullBatch && !this.stopped);
        if (handled === 0 && this.opts.nextDue && !this.stopped) {
          const wakes = this.wakes;
          const due = await this.opts.nextDue();
          // At most IDLE_AT_MOST_MS: a path that made an item and forgot to wake costs a delay, never a stall.
          if (wakes === this.wakes) this.idleUntil = Math.min(due ?? Infinity, (this.opts.now ?? Date.now)() + IDLE_AT_MOST_MS);
        }
      } catch (err) {
        this.idleUntil = -Infinity;
        this.opts.log.warn({ worker: this.opts.name, err: (err as Error).message }, 'background round failed');
      } finally {
        this.running = undefined;
        // Work that arrived during the round gets a round of its own (after minIntervalMs).
        if (this.again) this.kick();
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
