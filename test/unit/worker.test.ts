import { IDLE_AT_MOST_MS, Worker } from '../../src/platform/worker';
import { createLogger } from '../../src/platform/logger';

const log = createLogger('silent');
// Its polls are the subject: they run on jest's fake timers, and each step below moves them by hand.
const tick = (ms: number) => jest.advanceTimersByTimeAsync(ms);
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('a background worker on a database only this process writes', () => {
  it('reads nothing while idle until its next item falls due, and looks again at once when woken', async () => {
    let now = 1_000;
    let rounds = 0;
    let asked = 0;
    let due: number | null = null;
    const worker = new Worker({
      name: 'test',
      log,
      pollMs: 10,
      fullBatch: 5,
      now: () => now,
      round: async () => {
        rounds++;
        return 0;
      },
      nextDue: async () => {
        asked++;
        return due;
      },
    });
    worker.start();
    await tick(60);
    // One round found nothing and nothing waits: the polls since read nothing.
    expect([rounds, asked]).toEqual([1, 1]);

    due = 5_000;
    worker.wake();
    await tick(60);
    expect([rounds, asked]).toEqual([2, 2]);

    // The item falls due: the next poll runs a round.
    now = 5_000;
    await tick(30);
    expect(rounds).toBeGreaterThanOrEqual(3);

    // With nothing due, a poll still looks after IDLE_AT_MOST_MS (a make that forgot to wake is late, not lost).
    due = null;
    worker.wake();
    await tick(30);
    const before = rounds;
    await tick(30);
    expect(rounds).toBe(before);
    now += IDLE_AT_MOST_MS;
    await tick(30);
    expect(rounds).toBeGreaterThan(before);
    await worker.stop();
  });

  it('polls every time without nextDue (a database other instances write)', async () => {
    let rounds = 0;
    const worker = new Worker({ name: 'test', log, pollMs: 10, fullBatch: 5, round: async () => (rounds++, 0) });
    worker.start();
    // A poll every 10 ms: three rounds by 30 ms on its clock.
    await tick(30);
    expect(rounds).toBeGreaterThanOrEqual(3);
    await worker.stop();
  });
});
