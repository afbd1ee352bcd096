// Subscription schedules: cron expressions of 5 fields (minute hour day month weekday), or 6 with seconds
// first (CONTRACT §3), read in a time zone (UTC by default); and the next tick after an instant.
import { Cron } from 'croner';

export class ScheduleError extends Error {}

/** Parses a schedule, or throws ScheduleError saying what is wrong with it. */
export function parseSchedule(schedule: string, timezone?: string): Cron {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    throw new ScheduleError(`must be a cron expression of 5 fields (minute hour day month weekday), or 6 with seconds first; got ${fields.length}`);
  }
  try {
    return new Cron(fields.join(' '), { paused: true, timezone: timezone ?? 'UTC' });
  } catch (err) {
    throw new ScheduleError(`is not a valid cron expression: ${(err as Error).message.replace(/^CronPattern: /, '')}`);
  }
}

/** The first tick strictly after `after`; null when the expression never fires again (e.g. 30 February). */
export function nextRunAfter(schedule: string, timezone: string | undefined, after: Date): Date | null {
  return parseSchedule(schedule, timezone).nextRun(after);
}
