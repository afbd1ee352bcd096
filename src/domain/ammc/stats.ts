// Conglomerate performance from its ledger: trades, balance, realised profit and loss, daily returns and
// their Sharpe ratio. Pure: the ledger comes in as profit and loss per UTC day (integer cents).

/** √365: conglomerates trade every day of the year, as crypto markets do. */
const ANNUALISE = Math.sqrt(365);

export interface DayPnl {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  pnlCents: number;
}

export interface DailyReturn {
  day: string;
  return: number;
}

export interface Performance {
  dailyReturns: DailyReturn[];
  sharpeRatio: number | null;
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Daily returns and their annualised Sharpe ratio (risk-free rate 0), over every UTC day from `startDay` to the last
 * with an entry (0 without one): r_d = pnl_d / (budget + the P&L of every day before d), none for a day begun without
 * equity; Sharpe = mean(r) / s(r) × √365, s the sample deviation (n − 1), null with fewer than two returns or s = 0.
 */
export function performance(budgetCents: number, startDay: string | null, days: DayPnl[]): Performance {
  const byDay = new Map<string, number>();
  for (const d of days) byDay.set(d.day, (byDay.get(d.day) ?? 0) + d.pnlCents);
  const sorted = [...byDay.keys()].sort();
  if (!sorted.length) return { dailyReturns: [], sharpeRatio: null };
  const first = startDay && startDay < sorted[0] ? startDay : sorted[0];
  const last = sorted[sorted.length - 1];
  const returns: DailyReturn[] = [];
  let equity = budgetCents;
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += DAY_MS) {
    const day = dayOf(t);
    const pnl = byDay.get(day) ?? 0;
    if (equity > 0) returns.push({ day, return: pnl / equity });
    equity += pnl;
  }
  return { dailyReturns: returns, sharpeRatio: sharpe(returns.map((r) => r.return)) };
}

export function sharpe(returns: number[]): number | null {
  const n = returns.length;
  if (n < 2) return null;
  // Equal returns have no deviation, though the float mean may differ from them in the last bit
  // (0.1, 0.1, 0.1 would give s ≈ 1e-17 and a ratio of 1e17).
  if (returns.every((r) => r === returns[0])) return null;
  const mean = returns.reduce((a, b) => a + b, 0) / n;
  const variance = returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1);
  const sd = Math.sqrt(variance);
  if (sd === 0) return null;
  return (mean / sd) * ANNUALISE;
}
