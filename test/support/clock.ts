// Clocks tests move by hand: the server's Clock (it reads the date only through it), and performance.now()
// for a unit that measures ages with it.
import type { Clock } from '../../src/platform/clock';

export class FakeClock implements Clock {
  private held: Date | undefined;
  /**
   * Held at `at`; without one, at the real time it is first read or moved: a file's clock made as its module loads
   * starts when its server does, whether the file runs alone or later in a group of files (groups.cjs).
   */
  constructor(at?: Date) {
    this.held = at;
  }
  get at(): Date {
    return (this.held ??= new Date());
  }
  set at(at: Date) {
    this.held = at;
  }
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.held = new Date(this.at.getTime() + ms);
  }
}

/**
 * performance.now() held still and moved by hand, for a unit that reads the time from it alone (a cache's
 * TTL, a reading's age): the test moves past an age at once instead of sleeping through it. Timers still run
 * on real time. jest.restoreAllMocks() (or `restore`) gives the real clock back.
 */
export function handMovedPerformanceNow(): { advance(ms: number): void; restore(): void } {
  let at = performance.now();
  const spy = jest.spyOn(performance, 'now').mockImplementation(() => at);
  return {
    advance: (ms) => void (at += ms),
    restore: () => spy.mockRestore(),
  };
}
