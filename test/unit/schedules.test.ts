// Subscription schedules (CONTRACT §3) and the move tables of subscriptions and streaming sessions.
import { nextRunAfter, parseSchedule, ScheduleError } from '../../src/domain/subscriptions/cron';
import { SUBSCRIPTION_MOVES } from '../../src/domain/subscriptions/subscriptions';
import { SESSION_MOVES } from '../../src/domain/streaming/sessions';
import { canMove } from '../../src/platform/state-machine';
import { StreamSlots } from '../../src/platform/stream-slots';

describe('cron schedules', () => {
  it('reads 5 fields as minute hour day month weekday', () => {
    expect(nextRunAfter('*/15 * * * *', undefined, new Date('2026-03-01T10:07:30Z'))).toEqual(new Date('2026-03-01T10:15:00Z'));
    expect(nextRunAfter('0 9 * * 1', undefined, new Date('2026-03-01T10:00:00Z'))).toEqual(new Date('2026-03-02T09:00:00Z'));
  });

  it('reads 6 fields with seconds first, and answers the first tick strictly after', () => {
    expect(nextRunAfter('* * * * * *', undefined, new Date('2026-03-01T10:00:00.000Z'))).toEqual(new Date('2026-03-01T10:00:01Z'));
    expect(nextRunAfter('30 0 * * * *', undefined, new Date('2026-03-01T10:00:30Z'))).toEqual(new Date('2026-03-01T11:00:30Z'));
  });

  it('reads the schedule in its time zone', () => {
    expect(nextRunAfter('0 9 * * *', 'Europe/Paris', new Date('2026-07-01T00:00:00Z'))).toEqual(new Date('2026-07-01T07:00:00Z'));
  });

  it.each(['* * * *', '* * * * * * *', '', '61 * * * *', '* 25 * * *', 'every minute'])('refuses %j', (schedule) => {
    expect(() => parseSchedule(schedule)).toThrow(ScheduleError);
  });

  it('answers null for a schedule that never fires', () => {
    expect(nextRunAfter('0 0 30 2 *', undefined, new Date('2026-01-01T00:00:00Z'))).toBeNull();
  });
});

describe('move tables', () => {
  it('lets a subscription pause, resume and cancel, and nothing leave cancelled', () => {
    expect(canMove(SUBSCRIPTION_MOVES, 'active', 'paused')).toBe(true);
    expect(canMove(SUBSCRIPTION_MOVES, 'paused', 'active')).toBe(true);
    expect(canMove(SUBSCRIPTION_MOVES, 'paused', 'cancelled')).toBe(true);
    expect(canMove(SUBSCRIPTION_MOVES, 'active', 'active')).toBe(false);
    for (const to of ['active', 'paused'] as const) expect(canMove(SUBSCRIPTION_MOVES, 'cancelled', to)).toBe(false);
  });

  it('ends a streaming session once', () => {
    expect(canMove(SESSION_MOVES, 'active', 'ended')).toBe(true);
    expect(canMove(SESSION_MOVES, 'ended', 'active')).toBe(false);
    expect(canMove(SESSION_MOVES, 'ended', 'ended')).toBe(false);
  });
});

describe('stream slots', () => {
  it('caps open streams per owner and gives a slot back once however often it is released', () => {
    const slots = new StreamSlots(2);
    const first = slots.take('a');
    slots.take('a');
    expect(() => slots.take('a')).toThrow(/At most 2/);
    expect(slots.count('b')).toBe(0);
    slots.take('b');
    first();
    first();
    expect(slots.count('a')).toBe(1);
    slots.take('a');
    expect(() => slots.take('a')).toThrow();
  });
});
