// Conglomerate performance (spec §4.11): daily returns over the equity each day began with, every UTC day
// from the start counted, and their annualised Sharpe ratio (sample standard deviation, √365).
import { performance, sharpe } from '../../src/domain/ammc/stats';

describe('performance', () => {
  it('answers the daily returns and Sharpe ratio of a hand-computed ledger', () => {
    // Budget 1000 USD (100,000 cents), operating from 03-01; the days' profit and loss in cents:
    //   03-01: +1000 → r = 1000 / 100000 = 0.01          (equity after: 101000)
    //   03-02: none  → r = 0 / 101000    = 0             (101000)
    //   03-03: −1000 → r = −1000 / 101000 = −0.00990099…  (100000)
    //   03-04: +1500 → r = 1500 / 100000 = 0.015         (101500)
    //   mean = 0.01509901 / 4 = 0.00377475
    //   squared deviations: 0.0000387537 + 0.0000142488 + 0.0001870259 + 0.0001260062 = 0.0003660346
    //   s = √(0.0003660346 / 3) = √0.0001220115 = 0.0110459
    //   Sharpe = 0.00377475 / 0.0110459 × √365 = 0.3417339 × 19.1049732 = 6.52882
    const p = performance(100_000, '2026-03-01', [
      { day: '2026-03-04', pnlCents: 1500 },
      { day: '2026-03-01', pnlCents: 1000 },
      { day: '2026-03-03', pnlCents: -500 },
      { day: '2026-03-03', pnlCents: -500 }, // two rows of one day are one day
    ]);
    expect(p.dailyReturns.map((d) => d.day)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04']);
    [0.01, 0, -0.00990099, 0.015].forEach((r, i) => expect(p.dailyReturns[i].return).toBeCloseTo(r, 8));
    expect(p.sharpeRatio).toBeCloseTo(6.52882, 4);
  });

  it('counts the days from the start day before the first entry, each without entries as a return of 0', () => {
    // Budget 100 USD; start 03-01; +100 cents on 03-02, −202 on 03-03:
    //   r = [0, 100 / 10000, −202 / 10100] = [0, 0.01, −0.02]; mean = −0.00333333
    //   squared deviations: 0.0000111111 + 0.0001777778 + 0.0002777778 = 0.0004666667; s = √(0.0004666667 / 2) = 0.0152753
    //   Sharpe = −0.00333333 / 0.0152753 × √365 = −0.2182179 × 19.1049732 = −4.16905
    const p = performance(10_000, '2026-03-01', [
      { day: '2026-03-02', pnlCents: 100 },
      { day: '2026-03-03', pnlCents: -202 },
    ]);
    expect(p.dailyReturns).toEqual([
      { day: '2026-03-01', return: 0 },
      { day: '2026-03-02', return: 0.01 },
      { day: '2026-03-03', return: expect.closeTo(-0.02, 12) },
    ]);
    expect(p.sharpeRatio).toBeCloseTo(-4.16905, 4);
  });

  it('runs across a month end and stops at the last day with an entry', () => {
    const p = performance(10_000, '2026-02-27', [{ day: '2026-03-02', pnlCents: 100 }]);
    expect(p.dailyReturns.map((d) => [d.day, d.return])).toEqual([
      ['2026-02-27', 0],
      ['2026-02-28', 0],
      ['2026-03-01', 0],
      ['2026-03-02', 0.01],
    ]);
  });

  it('starts at the first entry when it has no start day', () => {
    const p = performance(10_000, null, [
      { day: '2026-03-05', pnlCents: 100 },
      { day: '2026-03-06', pnlCents: 0 },
    ]);
    expect(p.dailyReturns).toEqual([
      { day: '2026-03-05', return: 0.01 },
      { day: '2026-03-06', return: 0 },
    ]);
  });

  it('answers no Sharpe ratio with fewer than two returns', () => {
    expect(performance(10_000, '2026-03-01', [])).toEqual({ dailyReturns: [], sharpeRatio: null });
    expect(performance(10_000, '2026-03-01', [{ day: '2026-03-01', pnlCents: 500 }])).toEqual({
      dailyReturns: [{ day: '2026-03-01', return: 0.05 }],
      sharpeRatio: null,
    });
  });

  it('answers no Sharpe ratio when every return is the same', () => {
    // 100 cents on 10,000 and 101 on 10,100: 1% each day, no variance.
    const p = performance(10_000, '2026-03-01', [
      { day: '2026-03-01', pnlCents: 100 },
      { day: '2026-03-02', pnlCents: 101 },
    ]);
    expect(p.dailyReturns.map((d) => d.return)).toEqual([0.01, 0.01]);
    expect(p.sharpeRatio).toBeNull();
    // 10% a day for three days: 1000 on 10,000, 1100 on 11,000, 1210 on 12,100. The float mean of three
    // 0.1s is not quite 0.1, which must not read as a tiny deviation (a ratio of about 1e17).
    const steady = performance(10_000, '2026-03-01', [
      { day: '2026-03-01', pnlCents: 1000 },
      { day: '2026-03-02', pnlCents: 1100 },
      { day: '2026-03-03', pnlCents: 1210 },
    ]);
    expect(steady.dailyReturns.map((d) => d.return)).toEqual([0.1, 0.1, 0.1]);
    expect(steady.sharpeRatio).toBeNull();
  });

  it('gives no return to a day that began with no equity', () => {
    // Budget 100 USD, all lost on 03-01 (r = −1); 03-02 begins with 0 equity: no return; it brings back
    // 500 cents, so 03-03 begins with 500 and +500 is a return of 1.
    const p = performance(10_000, '2026-03-01', [
      { day: '2026-03-01', pnlCents: -10_000 },
      { day: '2026-03-02', pnlCents: 500 },
      { day: '2026-03-03', pnlCents: 500 },
    ]);
    expect(p.dailyReturns).toEqual([
      { day: '2026-03-01', return: -1 },
      { day: '2026-03-03', return: 1 },
    ]);
    // mean 0, s = √2: Sharpe 0.
    expect(p.sharpeRatio).toBe(0);
  });
});

describe('sharpe', () => {
  it('is the mean over the sample standard deviation (n − 1), times √365', () => {
    // [0.01, 0.03]: mean 0.02, s = √((0.0001 + 0.0001) / 1) = 0.0141421; 0.02 / 0.0141421 = √2; × √365 = √730 = 27.0185
    expect(sharpe([0.01, 0.03])).toBeCloseTo(Math.sqrt(730), 10);
    expect(sharpe([0.01, 0.03])).toBeCloseTo(27.0185, 4);
    // With the population deviation (n) it would be 2 × √365 = 38.2099: the sample one is used.
    expect(sharpe([-0.01, -0.03])).toBeCloseTo(-27.0185, 4);
  });

  it('is null with fewer than two returns, or with no variance', () => {
    expect(sharpe([])).toBeNull();
    expect(sharpe([0.5])).toBeNull();
    expect(sharpe([0.02, 0.02, 0.02])).toBeNull();
    expect(sharpe([0.1, 0.1, 0.1])).toBeNull();
    expect(sharpe([0, 0])).toBeNull();
  });
});
