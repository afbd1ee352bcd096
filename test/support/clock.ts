// A clock tests move by hand (the server reads time only through its Clock).
import type { Clock } from '../../src/platform/clock';

export class FakeClock implements Clock {
  constructor(public at: Date) {}
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}
