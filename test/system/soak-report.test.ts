// The soak's report (soak/report.ts, soak/chart.ts): the windows a run is judged by, each check failing
// on the run it exists to catch, and the CSV and SVG it writes.
import { chart } from '../../soak/chart';
import { csv, passed, percentile, verdict, windows, type RunFacts, type Sample } from '../../soak/report';

const MiB = 1024 * 1024;

/** A run of `durationS`, sampled every `sampleS`, whose samples `shape` may change (a leak, a slowdown, a stall). */
function run(durationS: number, shape: (s: Sample) => void = () => {}, sampleS = 10): RunFacts {
  const samples: Sample[] = [];
  for (let t = sampleS; t <= durationS; t += sampleS) {
    const s: Sample = {
      t,
      rssBytes: 300 * MiB + (t % 20 === 0 ? MiB : 0),
      heapUsedBytes: 100 * MiB,
      loopDelayMaxMs: 20,
      loopDelayP99Ms: 12,
      databaseBytes: 20 * MiB + t * 10_000,
      queues: { deliveries_waiting: t % 30 === 0 ? 3 : 1 },
      openStreams: 8,
      writes: 85,
      ops: { execute: { count: 40, p50Ms: 25, p99Ms: t % 20 === 0 ? 40 : 38, errors: 0 }, sse_join: { count: 2, p50Ms: 5, p99Ms: 9, errors: 0 } },
    };
    shape(s);
    samples.push(s);
  }
  return {
    durationS,
    sampleS,
    samples,
    errors: { count: 0, examples: [] },
    databaseAtStart: 20 * MiB,
    databaseAtLoadEnd: 20 * MiB + durationS * 10_000,
    databaseAfterIdle: 20 * MiB + durationS * 10_000,
    writes: (durationS / 10) * 85,
    idleRssBytes: 290 * MiB,
    rssAfterIdleBytes: 300 * MiB,
    queuesAfterIdle: { deliveries_waiting: 0 },
    webhooks: { expected: 100, received: 100 },
  };
}

const failed = (facts: RunFacts) =>
  verdict(facts)
    .filter((c) => !c.ok && !c.informational)
    .map((c) => c.name);

describe('soak windows', () => {
  it('compares minutes 5-10 with minutes 25-30 of a 30-minute run', () => {
    expect(windows(1800)).toEqual({ reference: { from: 300, to: 600 }, last: { from: 1500, to: 1800 } });
  });

  it('keeps 40 s a window on a 2-minute run: 20-60 s against 80-120 s', () => {
    expect(windows(120)).toEqual({ reference: { from: 20, to: 60 }, last: { from: 80, to: 120 } });
  });

  it('takes percentiles by nearest rank', () => {
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        99,
      ),
    ).toBe(99);
    expect(percentile([], 99)).toBeNaN();
  });
});

describe('soak verdict', () => {
  it('passes a flat run', () => {
    const facts = run(1800);
    expect(failed(facts)).toEqual([]);
    expect(passed(verdict(facts))).toBe(true);
  });

  it('fails resident memory that keeps growing', () => {
    expect(failed(run(1800, (s) => (s.rssBytes = 300 * MiB + s.t * 40_000)))).toEqual(['resident memory flat']);
    expect(failed(run(120, (s) => (s.rssBytes = 150 * MiB + s.t * 600_000), 5))).toEqual(['resident memory flat']);
  });

  it("passes resident memory's sawtooth: a drop in the reference window, then back to where it was", () => {
    // CI's run at bbb716d on PostgreSQL: 173 MiB, 139 at 35 s, back to 170-173 by 65 s.
    const tooth = (s: Sample) => (s.rssBytes = (s.t < 35 ? 173 : Math.min(173, 139 + (s.t - 35))) * MiB);
    expect(failed(run(120, tooth, 5))).toEqual([]);
  });

  it('fails a p99 that grows by more than 10% and 5 ms, and only that one', () => {
    expect(failed(run(1800, (s) => (s.ops.execute.p99Ms = 38 + s.t / 60)))).toEqual(['execute p99 flat']);
    // A p99 of a few ms may move by a few ms: scheduling noise, not a trend.
    expect(failed(run(1800, (s) => (s.ops.execute.p99Ms = s.t > 1500 ? 6 : 3)))).toEqual([]);
  });

  it("judges a 2-minute run's 5-s samples: three disturbed intervals of eight move nothing, a p99 that grows fails", () => {
    const disturbed = (s: Sample) => (s.ops.execute.p99Ms = [85, 95, 110].includes(s.t) ? 120 : 60);
    expect(failed(run(120, disturbed, 5))).toEqual([]);
    // Three disturbed 10-s intervals are most of a window of four, and move its median.
    expect(failed(run(120, (s) => (s.ops.execute.p99Ms = [90, 100, 110].includes(s.t) ? 120 : 60)))).toEqual(['execute p99 flat']);
    expect(failed(run(120, (s) => (s.ops.execute.p99Ms = 40 + s.t / 2), 5))).toEqual(['execute p99 flat']);
    const check = verdict(run(120, disturbed, 5)).find((c) => c.name === 'execute p99 flat');
    expect(check?.detail).toContain('median of 5-s p99s 60.0 ms against 60.0 ms');
  });

  it('shows but does not judge the p99 of an operation with a few requests an interval', () => {
    const checks = verdict(run(1800, (s) => (s.ops.sse_join.p99Ms = s.t)));
    expect(checks.find((c) => c.name === 'sse_join p99 flat')).toMatchObject({ ok: false, informational: true });
    expect(passed(checks)).toBe(true);
  });

  it('fails on any error, a webhook missing, or an event-loop stall over 100 ms', () => {
    expect(failed({ ...run(120), errors: { count: 1, examples: ['execute: 500'] } })).toEqual(['no errors']);
    expect(failed({ ...run(120), webhooks: { expected: 100, received: 99 } })).toEqual(['every webhook delivered']);
    expect(failed(run(120, (s) => (s.loopDelayMaxMs = s.t === 70 ? 101 : 20)))).toEqual(['no event-loop stall']);
  });

  it('reports a stall in the warm-up (before the reference window) without judging it', () => {
    const checks = verdict(run(120, (s) => (s.loopDelayMaxMs = s.t === 10 ? 250 : 20)));
    expect(checks.find((c) => c.name === 'no event-loop stall')).toMatchObject({ ok: true });
    expect(checks.find((c) => c.name === 'no event-loop stall in the warm-up')).toMatchObject({ ok: false, informational: true });
    expect(passed(checks)).toBe(true);
  });

  it('fails a database that grows past what was written, or while idle', () => {
    const facts = run(120);
    expect(
      failed({
        ...facts,
        databaseAtLoadEnd: facts.databaseAtStart + facts.writes * 17 * 1024,
        databaseAfterIdle: facts.databaseAtStart + facts.writes * 17 * 1024,
      }),
    ).toEqual(['database grows by what was written']);
    expect(failed({ ...facts, databaseAfterIdle: facts.databaseAtLoadEnd + 2 * MiB })).toEqual(['database still while idle']);
  });

  it('fails a queue that grows, or is not drained after the load', () => {
    expect(failed(run(1800, (s) => (s.queues.deliveries_waiting = Math.floor(s.t / 10))))).toEqual(['deliveries_waiting queue flat and drained']);
    expect(failed({ ...run(120), queuesAfterIdle: { deliveries_waiting: 1 } })).toEqual(['deliveries_waiting queue flat and drained']);
  });

  it('reports memory after the idle period against idle, without judging it', () => {
    const checks = verdict({ ...run(120), rssAfterIdleBytes: 400 * MiB });
    expect(checks.find((c) => c.name === 'memory back near idle')).toMatchObject({ ok: false, informational: true });
    expect(passed(checks)).toBe(true);
  });
});

describe('soak CSV and chart', () => {
  it('writes a header and one row per sample, with every operation and queue', () => {
    const facts = run(60);
    const lines = csv(facts.samples).trim().split('\n');
    expect(lines).toHaveLength(7);
    const header = lines[0].split(',');
    expect(header).toEqual(
      expect.arrayContaining(['t_s', 'rss_bytes', 'loop_delay_max_ms', 'database_bytes', 'queue_deliveries_waiting', 'execute_p99_ms', 'sse_join_count']),
    );
    const first = Object.fromEntries(lines[1].split(',').map((v, i) => [header[i], v]));
    expect(first).toMatchObject({ t_s: '10', rss_bytes: String(300 * MiB), execute_count: '40', execute_p99_ms: '38.00' });
  });

  it('draws a panel a quantity, a line a series, and the windows shaded', () => {
    const svg = chart(run(120).samples, 120, 'soak <test>');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('soak &lt;test&gt;');
    for (const title of ['Resident memory and heap', 'p99 per operation', "Event loop's longest delay", "Database's size", 'Queue depths'])
      expect(svg).toContain(title);
    // RSS, heap, two p99s, loop max and p99, database, one queue and open streams.
    expect(svg.match(/<polyline /g)).toHaveLength(9);
    expect(svg.match(/fill-opacity="0.05"/g)).toHaveLength(10);
    expect(svg).not.toContain('NaN');
  });
});
