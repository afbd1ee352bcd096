import { IDLE_AT_MOST_MS, Worker } from '../../src/platform/worker';
import { createLogger } from '../../src/platform/logger';

const log = createLogger('silent');
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    // Three rounds take some 30 ms; a busy machine may not schedule the timers that soon.
    for (const until = Date.now() + 5_000; rounds < 3 && Date.now() < until; ) await tick(10);
    expect(rounds).toBeGreaterThanOrEqual(3);
    await worker.stop();
  });
});
