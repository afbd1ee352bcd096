// Results: medians across rounds, the verdict against each target, the printed tables and
// bench/results/latest.json. Load scenarios compare rps and latency; the fan-out scenario compares what its
// readers received and the server CPU each delivered event cost.
import fs from 'node:fs';
import path from 'node:path';
import type { Sample } from './load';

/** Ours may be at most this many times the peer's p99 unless a scenario says otherwise. */
export const P99_TARGET = 1.5;

/** What a scenario must reach; a scenario with no rps and no p50 target is informational. */
export interface Targets {
  /** Minimum throughput ratio ours/peer. */
  rps?: number;
  /** Maximum median-latency ratio ours/peer. */
  p50?: number;
  /** Maximum p99 ratio ours/peer (default P99_TARGET). */
  p99?: number;
}

export interface ScenarioResult {
  name: string;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  peer: string;
  peer_rps: number;
  peer_p50_ms: number;
  peer_p99_ms: number;
  /** Our rps over the peer's. */
  ratio: number;
  /** The minimum ratio, or null when throughput has no target. */
  target: number | null;
  /** Our p50 over the peer's (null when the peer's p50 rounds to 0). */
  p50_ratio: number | null;
  /** The maximum p50 ratio, or null when the median latency has no target. */
  p50_target: number | null;
  /** Our p99 over the peer's (null when the peer's p99 rounds to 0). */
  p99_ratio: number | null;
  p99_target: number | null;
  /** Median CPU of the process serving ours, and the peer's, per answered request (µs; null when unknown). Informational. */
  cpu_us: number | null;
  peer_cpu_us: number | null;
  /** Null for an informational scenario. */
  pass: boolean | null;
  /** Why it missed, when it did. */
  missed: string[];
  rounds: { ours: Sample; peer: Sample }[];
}

/** One fan-out run against one server: its readers, the events pushed, what arrived, and what it cost. */
export interface FanoutSample {
  /** Readers connected (status 200) for the whole window. */
  readers: number;
  /** Push requests answered 200, one event each. */
  pushed: number;
  /** Messages the readers received (counted by their `id:` lines). */
  received: number;
  /** received / (pushed × readers). */
  delivered: number;
  /** Fewest and most messages one reader received. */
  min_per_reader: number;
  max_per_reader: number;
  /** Messages whose id was not above the reader's previous one. */
  disorder: number;
  /** Readers the server disconnected during the window. */
  closed_by_server: number;
  /** The server process's utime + stime over the window (first push to the last delivery or the drain's end). */
  cpu_s: number;
  window_s: number;
  /** cpu_s / (pushed × readers), in microseconds. */
  cpu_per_event_us: number;
  /** From the push's send stamp to a reader's receipt. */
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  /** The push request's own round trip. */
  push_p50_ms: number;
  push_p99_ms: number;
}

/** What the fan-out must reach: ours' delivered fraction at least, and its CPU per event at most, times the peer's. */
export interface FanoutTargets {
  delivered: number;
  cpuRatio: number;
}

export interface FanoutResult {
  kind: 'fanout';
  name: string;
  readers: number;
  events_per_s: number;
  /** Medians across rounds. */
  delivered: number;
  cpu_per_event_us: number;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  peer: string;
  peer_delivered: number;
  peer_cpu_per_event_us: number;
  peer_latency_p50_ms: number | null;
  peer_latency_p99_ms: number | null;
  /** Ours' CPU per event over the peer's (medians); null when the peer's rounds to 0. */
  cpu_ratio: number | null;
  delivered_target: number;
  cpu_ratio_target: number;
  pass: boolean;
  missed: string[];
  /** What makes the figures doubtful without being ours' miss (the peer not delivering, say). */
  warnings: string[];
  rounds: { ours: FanoutSample; peer: FanoutSample }[];
}

/** One held-readers round against one server: memory before and with every reader connected, and broadcasts. */
export interface HeldSample {
  readers: number;
  /** How long connecting every reader took (a hundred at a time). */
  connect_s: number;
  /** The server's VmRSS before the readers connected, with all of them connected, and after the broadcasts. */
  rss_before_kib: number;
  rss_connected_kib: number;
  rss_after_broadcasts_kib: number;
  /** (rss_connected - rss_before) / readers. */
  kib_per_reader: number;
  broadcasts: number;
  /** Broadcasts that every reader received (within 10 s). */
  broadcasts_reaching_all: number;
  /** Each broadcast's time from the push's send stamp to its last reader's receipt (null: not every reader had it). */
  broadcast_ms: (number | null)[];
  /** Median and worst of those that reached every reader. */
  broadcast_p50_ms: number | null;
  broadcast_max_ms: number | null;
  closed_by_server: number;
}

/** What the held readers must reach: memory growth per reader at most, and a broadcast's time to its last reader at most. */
export interface HeldTargets {
  kibPerReader: number;
  broadcastMs: number;
}

export interface HeldResult {
  kind: 'held';
  name: string;
  readers: number;
  ours: HeldSample;
  /** The same round against the bare node:http SSE hub, for reference (no target). */
  peer: string;
  peer_sample: HeldSample | null;
  kib_per_reader_target: number;
  broadcast_ms_target: number;
  pass: boolean;
  missed: string[];
  warnings: string[];
}

/** The server's footprint (bench/lib/footprint.ts): start to healthy, idle memory, memory a minute after a load. */
export interface FootprintResult {
  kind: 'footprint';
  name: string;
  /** No peer: absolute figures against the issue's targets. */
  peer: string;
  start_to_healthy_ms: number;
  idle_mib: number;
  peak_mib: number;
  after_load_mib: number;
  after_load_ratio: number;
  start_to_healthy_ms_target: number;
  idle_mib_target: number;
  after_load_ratio_target: number;
  /** Resident memory from the load's end: seconds after it, and MiB. */
  samples: { afterS: number; mib: number }[];
  pass: boolean;
  missed: string[];
}

export type AnyResult = ScenarioResult | FanoutResult | HeldResult | FootprintResult;

export const isFanout = (r: AnyResult): r is FanoutResult => 'kind' in r && r.kind === 'fanout';
export const isHeld = (r: AnyResult): r is HeldResult => 'kind' in r && r.kind === 'held';
export const isFootprint = (r: AnyResult): r is FootprintResult => 'kind' in r && r.kind === 'footprint';
const isLoad = (r: AnyResult): r is ScenarioResult => !('kind' in r);

export interface Report {
  scenarios: AnyResult[];
  database: 'pglite' | 'postgres';
  rounds: number;
  duration_s: number;
  connections: number;
  warmup_s: number;
  node: string;
  /** The git commit measured ("+dirty" with local changes). */
  revision: string;
  at: string;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;
const cpuMedian = (values: (number | null)[]) => (values.some((v) => v === null) ? null : Math.round(median(values as number[])));

export function summarize(name: string, peer: string, targets: Targets, rounds: { ours: Sample; peer: Sample }[]): ScenarioResult {
  const informational = targets.rps === undefined && targets.p50 === undefined;
  const p99Target = targets.p99 ?? P99_TARGET;
  const ours = { rps: median(rounds.map((r) => r.ours.rps)), p50: median(rounds.map((r) => r.ours.p50)), p99: median(rounds.map((r) => r.ours.p99)) };
  const theirs = { rps: median(rounds.map((r) => r.peer.rps)), p50: median(rounds.map((r) => r.peer.p50)), p99: median(rounds.map((r) => r.peer.p99)) };
  const ratio = round(theirs.rps > 0 ? ours.rps / theirs.rps : 0, 3);
  const p50Ratio = theirs.p50 > 0 ? round(ours.p50 / theirs.p50, 3) : null;
  const p99Ratio = theirs.p99 > 0 ? round(ours.p99 / theirs.p99, 3) : null;
  const missed: string[] = [];
  if (!informational) {
    if (targets.rps !== undefined && ratio < targets.rps) missed.push(`throughput ratio ${ratio.toFixed(2)} < ${targets.rps.toFixed(2)}`);
    if (targets.p50 !== undefined && p50Ratio !== null && p50Ratio > targets.p50) missed.push(`p50 ratio ${p50Ratio.toFixed(2)} > ${targets.p50.toFixed(2)}`);
    if (p99Ratio !== null && p99Ratio > p99Target) missed.push(`p99 ratio ${p99Ratio.toFixed(2)} > ${p99Target.toFixed(2)}`);
  }
  return {
    name,
    rps: round(ours.rps, 1),
    p50_ms: round(ours.p50, 2),
    p99_ms: round(ours.p99, 2),
    peer,
    peer_rps: round(theirs.rps, 1),
    peer_p50_ms: round(theirs.p50, 2),
    peer_p99_ms: round(theirs.p99, 2),
    ratio,
    target: targets.rps ?? null,
    p50_ratio: p50Ratio,
    p50_target: targets.p50 ?? null,
    p99_ratio: p99Ratio,
    p99_target: informational ? null : p99Target,
    cpu_us: cpuMedian(rounds.map((r) => r.ours.cpu_us)),
    peer_cpu_us: cpuMedian(rounds.map((r) => r.peer.cpu_us)),
    pass: informational ? null : missed.length === 0,
    missed,
    rounds,
  };
}

/** Medians of each side's rounds and the verdict: delivered ≥ the target, CPU per event ≤ the ratio × the peer's. */
export function summarizeFanout(
  name: string,
  peer: string,
  shape: { readers: number; eventsPerS: number },
  targets: FanoutTargets,
  rounds: { ours: FanoutSample; peer: FanoutSample }[],
): FanoutResult {
  const med = (side: 'ours' | 'peer', pick: (s: FanoutSample) => number | null) => {
    const values = rounds.map((r) => pick(r[side])).filter((v): v is number => v !== null);
    return values.length ? median(values) : null;
  };
  const delivered = med('ours', (s) => s.delivered)!;
  const peerDelivered = med('peer', (s) => s.delivered)!;
  const cpu = med('ours', (s) => s.cpu_per_event_us)!;
  const peerCpu = med('peer', (s) => s.cpu_per_event_us)!;
  const cpuRatio = peerCpu > 0 ? round(cpu / peerCpu, 3) : null;
  const missed: string[] = [];
  if (delivered < targets.delivered) missed.push(`delivered ${(delivered * 100).toFixed(1)}% < ${(targets.delivered * 100).toFixed(0)}%`);
  if (cpuRatio === null || cpuRatio > targets.cpuRatio)
    missed.push(`CPU per event ratio ${cpuRatio === null ? 'unknown (peer used no measurable CPU)' : cpuRatio.toFixed(2)} > ${targets.cpuRatio.toFixed(2)}`);
  const warnings: string[] = [];
  if (peerDelivered < targets.delivered)
    warnings.push(
      `the peer delivered only ${(peerDelivered * 100).toFixed(1)}%: the readers or the machine could not keep up, so ours' figures are doubtful too`,
    );
  const problems = rounds.flatMap((r, i) =>
    (['ours', 'peer'] as const).flatMap((side) => {
      const s = r[side];
      const out: string[] = [];
      if (s.disorder) out.push(`round ${i + 1} ${side === 'ours' ? 'ours' : peer}: ${s.disorder} messages out of order or repeated`);
      if (s.closed_by_server) out.push(`round ${i + 1} ${side === 'ours' ? 'ours' : peer}: the server closed ${s.closed_by_server} readers`);
      return out;
    }),
  );
  warnings.push(...problems);
  const ms = (v: number | null) => (v === null ? null : round(v, 2));
  return {
    kind: 'fanout',
    name,
    readers: shape.readers,
    events_per_s: shape.eventsPerS,
    delivered: round(delivered, 4),
    cpu_per_event_us: round(cpu, 2),
    latency_p50_ms: ms(med('ours', (s) => s.latency_p50_ms)),
    latency_p99_ms: ms(med('ours', (s) => s.latency_p99_ms)),
    peer,
    peer_delivered: round(peerDelivered, 4),
    peer_cpu_per_event_us: round(peerCpu, 2),
    peer_latency_p50_ms: ms(med('peer', (s) => s.latency_p50_ms)),
    peer_latency_p99_ms: ms(med('peer', (s) => s.latency_p99_ms)),
    cpu_ratio: cpuRatio,
    delivered_target: targets.delivered,
    cpu_ratio_target: targets.cpuRatio,
    pass: missed.length === 0,
    missed,
    warnings,
    rounds,
  };
}

/**
 * The verdict of the held readers: ours' memory growth per reader at most the target, and every broadcast
 * reaching every reader, the median within the target (the worst is shown beside it).
 */
export function summarizeHeld(name: string, peer: string, targets: HeldTargets, ours: HeldSample, peerSample: HeldSample | null): HeldResult {
  const missed: string[] = [];
  if (ours.kib_per_reader > targets.kibPerReader) missed.push(`${ours.kib_per_reader.toFixed(1)} KiB resident per reader > ${targets.kibPerReader}`);
  if (ours.broadcasts_reaching_all < ours.broadcasts)
    missed.push(`${ours.broadcasts - ours.broadcasts_reaching_all} of ${ours.broadcasts} broadcasts did not reach every reader within 10 s`);
  if (ours.broadcast_p50_ms !== null && ours.broadcast_p50_ms > targets.broadcastMs)
    missed.push(`broadcast to the last reader p50 ${ours.broadcast_p50_ms.toFixed(0)} ms > ${targets.broadcastMs}`);
  const warnings: string[] = [];
  if (ours.closed_by_server) warnings.push(`the server closed ${ours.closed_by_server} readers`);
  if (peerSample && peerSample.broadcasts_reaching_all < peerSample.broadcasts)
    warnings.push(`the peer's broadcasts did not all reach every reader: the readers or the machine could not keep up`);
  return {
    kind: 'held',
    name,
    readers: ours.readers,
    ours,
    peer,
    peer_sample: peerSample,
    kib_per_reader_target: targets.kibPerReader,
    broadcast_ms_target: targets.broadcastMs,
    pass: missed.length === 0,
    missed,
    warnings,
  };
}

/** The footprint against its targets: start to healthy, idle resident memory, and a minute after the load over idle. */
export function summarizeFootprint(
  name: string,
  targets: { startToHealthyMs: number; idleMiB: number; afterLoadRatio: number },
  f: { startToHealthyMs: number; idleMiB: number; peakMiB: number; afterLoadMiB: number; afterLoadRatio: number; samples: { afterS: number; mib: number }[] },
): FootprintResult {
  const missed: string[] = [];
  if (f.startToHealthyMs > targets.startToHealthyMs)
    missed.push(`start to healthy ${(f.startToHealthyMs / 1000).toFixed(1)} s > ${(targets.startToHealthyMs / 1000).toFixed(1)}`);
  if (f.idleMiB > targets.idleMiB) missed.push(`idle ${f.idleMiB.toFixed(0)} MiB > ${targets.idleMiB}`);
  if (f.afterLoadRatio > targets.afterLoadRatio) missed.push(`a minute after the load ${f.afterLoadRatio.toFixed(2)} × idle > ${targets.afterLoadRatio}`);
  return {
    kind: 'footprint',
    name,
    peer: 'none',
    start_to_healthy_ms: f.startToHealthyMs,
    idle_mib: f.idleMiB,
    peak_mib: f.peakMiB,
    after_load_mib: f.afterLoadMiB,
    after_load_ratio: f.afterLoadRatio,
    start_to_healthy_ms_target: targets.startToHealthyMs,
    idle_mib_target: targets.idleMiB,
    after_load_ratio_target: targets.afterLoadRatio,
    samples: f.samples,
    pass: missed.length === 0,
    missed,
  };
}

/** Prints one aligned table; the columns listed in `left` are left-aligned, the others right-aligned. */
function printAligned(header: string[], rows: string[][], left: number[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (left.includes(i) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

function printFanoutTable(results: FanoutResult[]): void {
  const header = [
    'scenario',
    'readers',
    'events/s',
    'delivered',
    'CPU µs/event',
    'latency p50/p99 ms',
    'peer',
    'peer delivered',
    'peer CPU µs/event',
    'peer latency p50/p99 ms',
    'CPU ratio',
    'result',
  ];
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  const lat = (p50: number | null, p99: number | null) => `${p50 === null ? '-' : p50.toFixed(1)} / ${p99 === null ? '-' : p99.toFixed(1)}`;
  const rows = results.map((r) => [
    r.name,
    String(r.readers),
    String(r.events_per_s),
    `${pct(r.delivered)} (>= ${pct(r.delivered_target)})`,
    r.cpu_per_event_us.toFixed(2),
    lat(r.latency_p50_ms, r.latency_p99_ms),
    r.peer,
    pct(r.peer_delivered),
    r.peer_cpu_per_event_us.toFixed(2),
    lat(r.peer_latency_p50_ms, r.peer_latency_p99_ms),
    `${r.cpu_ratio === null ? '-' : r.cpu_ratio.toFixed(2)} (<= ${r.cpu_ratio_target.toFixed(2)})`,
    r.pass ? 'PASS' : 'MISSED',
  ]);
  printAligned(header, rows, [0, 6]);
}

function printHeldTable(results: HeldResult[]): void {
  const header = [
    'scenario',
    'readers',
    'connect s',
    'RSS before / connected MiB',
    'KiB/reader',
    'broadcast p50 / max ms',
    'peer',
    'peer KiB/reader',
    'peer broadcast p50 / max ms',
    'result',
  ];
  const mib = (kib: number) => (kib / 1024).toFixed(0);
  const ms = (v: number | null) => (v === null ? '-' : v.toFixed(0));
  const rows = results.map((r) => [
    r.name,
    String(r.readers),
    r.ours.connect_s.toFixed(1),
    `${mib(r.ours.rss_before_kib)} / ${mib(r.ours.rss_connected_kib)}`,
    `${r.ours.kib_per_reader.toFixed(1)} (<= ${r.kib_per_reader_target})`,
    `${ms(r.ours.broadcast_p50_ms)} / ${ms(r.ours.broadcast_max_ms)} (<= ${r.broadcast_ms_target})`,
    r.peer,
    r.peer_sample ? r.peer_sample.kib_per_reader.toFixed(1) : '-',
    r.peer_sample ? `${ms(r.peer_sample.broadcast_p50_ms)} / ${ms(r.peer_sample.broadcast_max_ms)}` : '-',
    r.pass ? 'PASS' : 'MISSED',
  ]);
  printAligned(header, rows, [0, 6]);
}

function printFootprintTable(results: FootprintResult[]): void {
  const header = ['scenario', 'start to healthy s', 'idle MiB', 'peak MiB', 'a minute after MiB', 'after / idle', 'result'];
  const rows = results.map((r) => [
    r.name,
    `${(r.start_to_healthy_ms / 1000).toFixed(2)} (<= ${(r.start_to_healthy_ms_target / 1000).toFixed(1)})`,
    `${r.idle_mib.toFixed(0)} (<= ${r.idle_mib_target})`,
    r.peak_mib.toFixed(0),
    r.after_load_mib.toFixed(0),
    `${r.after_load_ratio.toFixed(2)} (<= ${r.after_load_ratio_target.toFixed(2)})`,
    r.pass ? 'PASS' : 'MISSED',
  ]);
  printAligned(header, rows, [0]);
}

export function printTable(all: AnyResult[]): void {
  const tables: (() => void)[] = [];
  const results = all.filter(isLoad);
  const fanouts = all.filter(isFanout);
  const held = all.filter(isHeld);
  const footprints = all.filter(isFootprint);
  if (results.length) tables.push(() => printLoadTable(results));
  if (fanouts.length) tables.push(() => printFanoutTable(fanouts));
  if (held.length) tables.push(() => printHeldTable(held));
  if (footprints.length) tables.push(() => printFootprintTable(footprints));
  tables.forEach((print, i) => {
    if (i) console.log('');
    print();
  });
  const misses = all.filter((r) => r.pass === false);
  console.log('');
  if (misses.length === 0) console.log('All targets met.');
  for (const r of misses) console.log(`MISSED ${r.name} (vs ${r.peer}): ${r.missed.join('; ')}`);
  for (const r of [...fanouts, ...held]) for (const w of r.warnings) console.log(`WARNING ${r.name}: ${w}`);
}

function printLoadTable(results: ScenarioResult[]): void {
  const header = ['scenario', 'rps', 'p50 ms', 'p99 ms', 'peer', 'peer rps', 'peer p50 ms', 'peer p99 ms', 'rps ratio', 'p50 ratio', 'p99 ratio', 'result'];
  const bound = (value: number | null, limit: number | null, sign: string) =>
    value === null ? '-' : `${value.toFixed(2)}${limit === null ? '' : ` (${sign} ${limit.toFixed(2)})`}`;
  const rows = results.map((r) => [
    r.name,
    r.rps.toFixed(0),
    r.p50_ms.toFixed(1),
    r.p99_ms.toFixed(1),
    r.peer,
    r.peer_rps.toFixed(0),
    r.peer_p50_ms.toFixed(1),
    r.peer_p99_ms.toFixed(1),
    bound(r.ratio, r.target, '>='),
    bound(r.p50_ratio, r.p50_target, '<='),
    bound(r.p99_ratio, r.p99_target, '<='),
    r.pass === null ? 'info' : r.pass ? 'PASS' : 'MISSED',
  ]);
  printAligned(header, rows, [0, 4]);
}

export function writeReport(file: string, report: Report): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
