// The one source of "now", so tests can move time without touching timers.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
