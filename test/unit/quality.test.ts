// The published quality's arithmetic (src/domain/services/quality.ts): day rows from observations, uptime over
// sliding windows of five-minute slots, rates with the calls behind them.
import { DayDeltas, qualityOf, SLOTS_PER_DAY } from '../../src/domain/services/quality';

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);

/** Day rows as the database would hold them after `deltas`, as the quality job reads them. */
function rowsOf(deltas: DayDeltas) {
  return deltas.rows().map((d) => ({ ...d, up_slots: d.up, down_slots: d.down }));
}

describe('DayDeltas', () => {
  it('gathers calls and probes per service and UTC day, marking the five-minute slot of each', () => {
    const d = new DayDeltas();
    d.add('s1', at('2026-11-29T00:04:59Z'), { success: true, latencyBucket: 2 });
    d.add('s1', at('2026-11-29T00:05:00Z'), { success: false });
    d.add('s1', at('2026-11-29T00:05:30Z'), { excused: true });
    d.add('s1', at('2026-11-28T23:59:59Z'), { probe: true, success: true });
    d.add('s2', at('2026-11-29T12:00:00Z'), { probe: true, success: false });
    const rows = d.rows();
    const today = rows.find((r) => r.service_id === 's1' && r.day === '2026-11-29')!;
    expect(today).toMatchObject({ successes: 1, failures: 1, excused: 1, probes_passed: 0, probes_failed: 0 });
    expect(today.latency_buckets[2]).toBe(1);
    expect(today.up.length).toBe(SLOTS_PER_DAY);
    expect([today.up.indexOf('1'), today.down.indexOf('1')]).toEqual([0, 1]);
    // An excused failure marks nothing: it was not the provider's fault.
    expect([...today.down].filter((b) => b === '1')).toHaveLength(1);
    expect(rows.find((r) => r.service_id === 's1' && r.day === '2026-11-28')).toMatchObject({ probes_passed: 1 });
    expect(rows.find((r) => r.service_id === 's2')).toMatchObject({ probes_failed: 1 });
    expect(rows.find((r) => r.service_id === 's2')!.down[144]).toBe('1');
  });
});

describe('qualityOf', () => {
  it('counts uptime as the share of observed slots that were up, over each window', () => {
    const d = new DayDeltas();
    const now = at('2026-11-29T12:00:00Z');
    // The last 24 hours: 3 slots up (one of them with a failure too), 1 down.
    d.add('s', at('2026-11-29T11:00:00Z'), { success: true, latencyBucket: 3 });
    d.add('s', at('2026-11-29T11:01:00Z'), { success: false });
    d.add('s', at('2026-11-29T10:00:00Z'), { probe: true, success: true });
    d.add('s', at('2026-11-29T09:00:00Z'), { probe: true, success: false });
    d.add('s', at('2026-11-28T13:00:00Z'), { probe: true, success: true });
    // Before the last 24 hours, inside 7 days: 4 slots down.
    for (let h = 0; h < 4; h++) d.add('s', new Date(now.getTime() - 2 * DAY - h * 3_600_000), { success: false });
    const q = qualityOf(rowsOf(d), now);
    expect(q).toMatchObject({
      windowDays: 30,
      calls: 6,
      successes: 1,
      failures: 5,
      successRate: 0.1667,
      uptime24h: 0.75,
      uptime7d: 0.375,
      uptime30d: 0.375,
      probes: 3,
      lowSample: true,
    });
    expect(q.latencyP50Ms).toEqual(expect.any(Number));
  });

  it('says nothing it did not observe: null rates and uptime without calls or probes', () => {
    expect(qualityOf([], at('2026-11-29T00:00:00Z'))).toMatchObject({ calls: 0, successRate: null, uptime24h: null, latencyP50Ms: null, lowSample: true });
  });
});
