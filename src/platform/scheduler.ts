// Periodic in-process jobs (the uptime sampler now; durable due-job claiming arrives with cron
// subscriptions). Reports each job's last run for /health and stops cleanly on shutdown.
import type { Logger } from './logger';

interface Job {
  name: string;
  everyMs: number;
  run: () => Promise<void>;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  lastRunAt?: Date;
  lastError?: string;
}

export class Scheduler {
  private readonly jobs: Job[] = [];
  private stopped = false;

  constructor(private readonly log: Logger) {}

  every(name: string, everyMs: number, run: () => Promise<void>, { runNow = true } = {}): void {
    const job: Job = { name, everyMs, run };
    this.jobs.push(job);
    const tick = () => {
      if (this.stopped || job.running) return;
      job.running = job
        .run()
        .then(() => {
          job.lastError = undefined;
        })
        .catch((err: unknown) => {
          job.lastError = err instanceof Error ? err.message : String(err);
          this.log.warn({ job: name, err: job.lastError }, 'scheduled job failed');
        })
        .finally(() => {
          job.lastRunAt = new Date();
          job.running = undefined;
        });
    };
    job.timer = setInterval(tick, everyMs);
    job.timer.unref();
    if (runNow) tick();
  }

  status() {
    const failing = this.jobs.filter((j) => j.lastError);
    return {
      status: this.stopped ? 'stopped' : failing.length ? 'degraded' : 'ok',
      jobs: this.jobs.map((j) => ({ name: j.name, every_ms: j.everyMs, last_run_at: j.lastRunAt?.toISOString() ?? null, last_error: j.lastError ?? null })),
    };
  }

  /** Stops the timers and waits for runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.jobs) clearInterval(job.timer);
    await Promise.all(this.jobs.map((j) => j.running));
  }
}
