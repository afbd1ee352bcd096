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
}

export class Worker {
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;

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
    this.running = (async () => {
      try {
        do {
          this.again = false;
          if ((await this.opts.round()) >= this.opts.fullBatch) this.again = true;
        } while (this.again && !this.stopped);
      } catch (err) {
        this.opts.log.warn({ worker: this.opts.name, err: (err as Error).message }, 'background round failed');
      } finally {
        this.running = undefined;
      }
    })();
  }

  /** Waits until no round is in progress (tests use it to see work settle). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
