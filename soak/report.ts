// What a soak run reports, as pure functions of its samples: the rows of the CSV, the windows a run's
// checks compare, and the verdict. No I/O here, so test/system/soak-report.test.ts can hold it to its word.

/** One sample (every 10 s, or SOAK_SAMPLE_S): the server's state at its end, and each operation's requests during it. */
export interface Sample {
  /** Seconds since the load started (the end of the interval). */
  t: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** The event loop's delay over the interval (perf_hooks.monitorEventLoopDelay in the server), in ms. */
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
  databaseBytes: number;
  /** Rows waiting in each durable queue (GET /metrics queue_depth). */
  queues: Record<string, number>;
  openStreams: number;
  /** Write requests answered in the interval (registrations, executions, memory writes, pushes). */
  writes: number;
  /** Per operation: requests answered in the interval, their p50 and p99 in ms, and errors. */
  ops: Record<string, { count: number; p50Ms: number; p99Ms: number; errors: number }>;
}

/** Nearest-rank percentile of `values` (unsorted); NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const median = (values: number[]) => percentile(values, 50);

export interface Window {
  from: number;
  to: number;
}

/**
 * The two windows a run's flatness is judged by, in seconds from the start of the load: a sixth of the run
 * each, the second sixth (the reference, after the warm-up) and the last (minutes 5–10 and 25–30 of a
 * 30-minute run). A window lasts at least 40 s, so a 2-minute run compares 20–60 s with 80–120 s (four
 * 10-second samples each, or eight of 5 s as CI takes them).
 */
export function windows(durationS: number): { reference: Window; last: Window } {
  const length = Math.max(durationS / 6, 40);
  const start = Math.min(durationS / 6, durationS - 2 * length);
  return { reference: { from: start, to: start + length }, last: { from: durationS - length, to: durationS } };
}

/** The samples whose interval ends inside (from, to]. */
export const within = (samples: Sample[], w: Window) => samples.filter((s) => s.t > w.from + 1e-6 && s.t <= w.to + 1e-6);

export interface Check {
  name: string;
  ok: boolean;
  /** The figures, in words: what was measured against what. */
  detail: string;
  /** Reported but not part of the verdict (a target measured elsewhere). */
  informational?: boolean;
}

export interface Limits {
  /** The last window's median may exceed the reference's by this fraction (0.10). */
  growth: number;
  /** p99 differences under this many ms pass whatever their ratio (scheduling noise on a shared machine). */
  p99SlackMs: number;
  /** The longest event-loop stall allowed, in ms (100). */
  stallMs: number;
  /** The most the database may grow per write request, on average over the run, in bytes. */
  bytesPerWrite: number;
  /** The most the database may grow while idle after the load, in bytes. */
  idleGrowthBytes: number;
  /** Queue rows the last window's median may exceed the reference's by (a few are always in flight). */
  queueSlack: number;
}

export const DEFAULT_LIMITS: Limits = {
  growth: 0.1,
  p99SlackMs: 5,
  stallMs: 100,
  bytesPerWrite: 16 * 1024,
  idleGrowthBytes: 1024 * 1024,
  queueSlack: 20,
};

export interface RunFacts {
  durationS: number;
  /** The length of a sample's interval, in seconds (10 unless SOAK_SAMPLE_S says otherwise). */
  sampleS: number;
  samples: Sample[];
  /** Failures seen by the clients (wrong status, gap in a stream, a delivery missing), with examples. */
  errors: { count: number; examples: string[] };
  /** The database's size when the load started and after the idle period, in bytes. */
  databaseAtStart: number;
  databaseAtLoadEnd: number;
  databaseAfterIdle: number;
  /** Write requests answered over the run. */
  writes: number;
  /** Resident memory before any load, and after the idle period that followed it (0: not measured). */
  idleRssBytes: number;
  rssAfterIdleBytes: number;
  /** Queue depths after the idle period. */
  queuesAfterIdle: Record<string, number>;
  webhooks: { expected: number; received: number };
}

/** Requests of an operation in a sample's interval (the median interval) below which its p99 is not judged. */
export const MIN_PER_INTERVAL = 10;

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const ms = (v: number) => `${v.toFixed(1)} ms`;

/** Every check of a run, in the order of the issue's targets. */
export function verdict(facts: RunFacts, limits: Limits = DEFAULT_LIMITS): Check[] {
  const { reference, last } = windows(facts.durationS);
  const ref = within(facts.samples, reference);
  const fin = within(facts.samples, last);
  const checks: Check[] = [];
  const span = `${reference.from}–${reference.to} s vs ${last.from}–${last.to} s`;
  const each = `${facts.sampleS}-s`;

  // A process's resident memory is a sawtooth: V8 grows its heap, then a compacting collection and glibc's
  // trim give back 30-40 MiB at a moment that varies from run to run. A window's median can land on either
  // side of a tooth (a 2-minute run's reference window held one drop, 173 -> 139 MiB, and read 154 against
  // the last window's 170), so the last window's median is held to the highest the reference window held:
  // memory that keeps growing passes every earlier peak; a tooth does not.
  const rssRef = Math.max(...ref.map((s) => s.rssBytes));
  const rssLast = median(fin.map((s) => s.rssBytes));
  checks.push({
    name: 'resident memory flat',
    ok: rssLast <= rssRef * (1 + limits.growth),
    detail: `median ${mib(rssLast)} over ${last.from}–${last.to} s against the highest ${mib(rssRef)} over ${reference.from}–${reference.to} s (${ratio(rssLast, rssRef)}; ≤ ${(1 + limits.growth).toFixed(2)})`,
  });

  const operations = [...new Set(facts.samples.flatMap((s) => Object.keys(s.ops)))].sort();
  for (const op of operations) {
    const p99s = (w: Sample[]) =>
      w
        .map((s) => s.ops[op])
        .filter((o) => o && o.count > 0)
        .map((o) => o.p99Ms);
    const a = median(p99s(ref));
    const b = median(p99s(fin));
    // An interval's p99 of a handful of requests is its slowest one: such operations are shown, not judged.
    const perInterval = median(facts.samples.map((s) => s.ops[op]?.count ?? 0));
    if (Number.isNaN(a) || Number.isNaN(b) || perInterval < MIN_PER_INTERVAL) {
      checks.push({
        name: `${op} p99 flat`,
        ok: Number.isNaN(a) || Number.isNaN(b) || b <= a * (1 + limits.growth) || b - a <= limits.p99SlackMs,
        detail: `median of ${each} p99s ${ms(b)} against ${ms(a)}, ${span}; ${perInterval} requests an interval, too few for a p99 (not judged)`,
        informational: true,
      });
      continue;
    }
    checks.push({
      name: `${op} p99 flat`,
      ok: b <= a * (1 + limits.growth) || b - a <= limits.p99SlackMs,
      detail: `median of ${each} p99s ${ms(b)} against ${ms(a)} (${ratio(b, a)}; ≤ ${(1 + limits.growth).toFixed(2)} or within ${limits.p99SlackMs} ms), ${span}`,
    });
  }

  const serverErrors = facts.samples.reduce((n, s) => n + Object.values(s.ops).reduce((m, o) => m + o.errors, 0), 0);
  checks.push({
    name: 'no errors',
    ok: facts.errors.count === 0,
    detail:
      facts.errors.count === 0
        ? `none in ${facts.samples.reduce((n, s) => n + Object.values(s.ops).reduce((m, o) => m + o.count, 0), 0)} requests`
        : `${facts.errors.count} (${serverErrors} failed requests): ${facts.errors.examples.slice(0, 5).join('; ')}`,
  });

  const delivered = facts.webhooks.received >= facts.webhooks.expected;
  checks.push({
    name: 'every webhook delivered',
    ok: delivered,
    detail: `${facts.webhooks.received} received of ${facts.webhooks.expected} events`,
  });

  // The warm-up (before the reference window) is reported apart: a first request of each kind compiles and
  // plans what every later one reuses, once per process.
  const judged = facts.samples.filter((s) => s.t > reference.from + 1e-6);
  const stall = Math.max(0, ...judged.map((s) => s.loopDelayMaxMs));
  const worst = judged.find((s) => s.loopDelayMaxMs === stall);
  checks.push({
    name: 'no event-loop stall',
    ok: stall <= limits.stallMs,
    detail: `longest delay after the warm-up ${ms(stall)}${worst ? ` (the interval ending at ${worst.t} s)` : ''}; ≤ ${limits.stallMs} ms`,
  });
  const warmUp = facts.samples.filter((s) => s.t <= reference.from + 1e-6);
  if (warmUp.length) {
    const first = Math.max(0, ...warmUp.map((s) => s.loopDelayMaxMs));
    checks.push({
      name: 'no event-loop stall in the warm-up',
      ok: first <= limits.stallMs,
      detail: `longest delay in the first ${reference.from} s ${ms(first)}; ≤ ${limits.stallMs} ms`,
      informational: true,
    });
  }

  const grown = facts.databaseAtLoadEnd - facts.databaseAtStart;
  const perWrite = facts.writes ? grown / facts.writes : 0;
  checks.push({
    name: 'database grows by what was written',
    ok: perWrite <= limits.bytesPerWrite,
    detail: `${mib(grown)} over ${facts.writes} write requests: ${(perWrite / 1024).toFixed(1)} KiB each; ≤ ${limits.bytesPerWrite / 1024} KiB`,
  });
  const idleGrowth = facts.databaseAfterIdle - facts.databaseAtLoadEnd;
  checks.push({
    name: 'database still while idle',
    ok: idleGrowth <= limits.idleGrowthBytes,
    detail: `${idleGrowth >= 0 ? '+' : ''}${(idleGrowth / 1024).toFixed(0)} KiB after the load; ≤ ${limits.idleGrowthBytes / 1024} KiB`,
  });

  const queues = [...new Set(facts.samples.flatMap((s) => Object.keys(s.queues)))].sort();
  for (const q of queues) {
    const a = median(ref.map((s) => s.queues[q] ?? 0));
    const b = median(fin.map((s) => s.queues[q] ?? 0));
    const left = facts.queuesAfterIdle[q] ?? 0;
    checks.push({
      name: `${q} queue flat and drained`,
      ok: b <= a * (1 + limits.growth) + limits.queueSlack && left === 0,
      detail: `median ${b} rows against ${a} (≤ +${Math.round(limits.growth * 100)}% + ${limits.queueSlack}), ${span}; ${left} left after the idle period`,
    });
  }

  if (facts.idleRssBytes > 0 && facts.rssAfterIdleBytes > 0) {
    checks.push({
      name: 'memory back near idle',
      ok: facts.rssAfterIdleBytes <= facts.idleRssBytes * 1.2,
      detail: `${mib(facts.rssAfterIdleBytes)} after the idle period against ${mib(facts.idleRssBytes)} before the load (${ratio(facts.rssAfterIdleBytes, facts.idleRssBytes)}; ≤ 1.20; issue 36's footprint target, measured by the bench)`,
      informational: true,
    });
  }
  return checks;
}

function ratio(a: number, b: number): string {
  return b > 0 ? `×${(a / b).toFixed(2)}` : 'n/a';
}

/** The run passes when every check that is not informational does. */
export const passed = (checks: Check[]) => checks.every((c) => c.ok || c.informational);

/** The CSV's columns: the sample's own, each queue, then count/p50/p99/errors per operation. */
export function csv(samples: Sample[]): string {
  const ops = [...new Set(samples.flatMap((s) => Object.keys(s.ops)))].sort();
  const queues = [...new Set(samples.flatMap((s) => Object.keys(s.queues)))].sort();
  const header = [
    't_s',
    'rss_bytes',
    'heap_used_bytes',
    'loop_delay_max_ms',
    'loop_delay_p99_ms',
    'database_bytes',
    'open_streams',
    'writes',
    ...queues.map((q) => `queue_${q}`),
    ...ops.flatMap((op) => [`${op}_count`, `${op}_p50_ms`, `${op}_p99_ms`, `${op}_errors`]),
  ];
  const num = (v: number | undefined, digits = 0) => (v === undefined || Number.isNaN(v) ? '' : digits ? v.toFixed(digits) : String(Math.round(v)));
  const rows = samples.map((s) =>
    [
      num(s.t),
      num(s.rssBytes),
      num(s.heapUsedBytes),
      num(s.loopDelayMaxMs, 2),
      num(s.loopDelayP99Ms, 2),
      num(s.databaseBytes),
      num(s.openStreams),
      num(s.writes),
      ...queues.map((q) => num(s.queues[q])),
      ...ops.flatMap((op) => {
        const o = s.ops[op];
        return o ? [num(o.count), o.count ? num(o.p50Ms, 2) : '', o.count ? num(o.p99Ms, 2) : '', num(o.errors)] : ['0', '', '', '0'];
      }),
    ].join(','),
  );
  return `${[header.join(','), ...rows].join('\n')}\n`;
}
