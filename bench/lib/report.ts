// Results: medians across rounds, the verdict against each target, the printed table and
// bench/results/latest.json.
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
  /** Null for an informational scenario. */
  pass: boolean | null;
  /** Why it missed, when it did. */
  missed: string[];
  rounds: { ours: Sample; peer: Sample }[];
}

export interface Report {
  scenarios: ScenarioResult[];
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
    pass: informational ? null : missed.length === 0,
    missed,
    rounds,
  };
}

export function printTable(results: ScenarioResult[]): void {
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
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  const misses = results.filter((r) => r.pass === false);
  console.log('');
  if (misses.length === 0) console.log('All targets met.');
  for (const r of misses) console.log(`MISSED ${r.name} (vs ${r.peer}): ${r.missed.join('; ')}`);
}

export function writeReport(file: string, report: Report): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
