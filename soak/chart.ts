// The soak's chart: small panels of the samples over time, as a hand-written SVG (no chart library): memory,
// p99 per operation, the event loop's longest delay, the database's size and the queues. The windows the
// checks compare are shaded on every panel.
import { windows, type Sample } from './report';

interface Series {
  label: string;
  points: [number, number][];
}

interface Panel {
  title: string;
  unit: string;
  series: Series[];
  /** A horizontal line: a limit the panel's values are held to. */
  limit?: { value: number; label: string };
  log?: boolean;
}

const WIDTH = 900;
const PANEL_HEIGHT = 170;
const MARGIN = { left: 64, right: 190, top: 26, bottom: 24 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22', '#393b79', '#637939'];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (v: number) => (Number.isInteger(v) || Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : String(Number(v.toFixed(2))));

/** Round numbers for an axis from lo to hi. */
function ticks(lo: number, hi: number, count = 4): number[] {
  if (hi <= lo) return [lo];
  const raw = (hi - lo) / count;
  const step = [1, 2, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(raw))).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(v);
  return out;
}

function panel(p: Panel, top: number, durationS: number): string {
  const x0 = MARGIN.left;
  const x1 = WIDTH - MARGIN.right;
  const y0 = top + MARGIN.top;
  const y1 = top + PANEL_HEIGHT - MARGIN.bottom;
  const values = p.series.flatMap((s) => s.points.map(([, v]) => v)).filter((v) => Number.isFinite(v) && (!p.log || v > 0));
  if (p.limit) values.push(p.limit.value);
  let lo = p.log ? Math.min(...values) : 0;
  let hi = Math.max(...values, p.log ? 1 : 0);
  if (!values.length) [lo, hi] = [p.log ? 1 : 0, 1];
  if (p.log) [lo, hi] = [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi))];
  else hi = hi > 0 ? hi * 1.1 : 1;
  const y = (v: number) =>
    p.log ? y1 - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (y1 - y0) : y1 - ((v - lo) / (hi - lo)) * (y1 - y0);
  const x = (t: number) => x0 + (t / durationS) * (x1 - x0);
  const parts: string[] = [];
  const { reference, last } = windows(durationS);
  for (const w of [reference, last])
    parts.push(`<rect x="${x(w.from).toFixed(1)}" y="${y0}" width="${(x(w.to) - x(w.from)).toFixed(1)}" height="${y1 - y0}" fill="#000" fill-opacity="0.05"/>`);
  parts.push(`<text x="${x0}" y="${top + 16}" font-weight="bold">${escape(p.title)}</text>`);
  parts.push(`<line x1="${x0}" y1="${y1}" x2="${x1}" y2="${y1}" stroke="#888"/><line x1="${x0}" y1="${y0}" x2="${x0}" y2="${y1}" stroke="#888"/>`);
  const yTicks = p.log ? Array.from({ length: Math.round(Math.log10(hi / lo)) + 1 }, (_, i) => lo * 10 ** i) : ticks(lo, hi);
  for (const v of yTicks) {
    parts.push(`<line x1="${x0}" y1="${y(v).toFixed(1)}" x2="${x1}" y2="${y(v).toFixed(1)}" stroke="#eee"/>`);
    parts.push(`<text x="${x0 - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${fmt(v)}</text>`);
  }
  parts.push(`<text x="${x0 - 6}" y="${y0 - 8}" text-anchor="end" fill="#666">${escape(p.unit)}</text>`);
  for (const t of ticks(0, durationS, 6))
    parts.push(`<text x="${x(t).toFixed(1)}" y="${y1 + 14}" text-anchor="middle" fill="#666">${t >= 120 ? `${fmt(t / 60)} min` : `${t} s`}</text>`);
  if (p.limit) {
    parts.push(`<line x1="${x0}" y1="${y(p.limit.value).toFixed(1)}" x2="${x1}" y2="${y(p.limit.value).toFixed(1)}" stroke="#d62728" stroke-dasharray="4 3"/>`);
    parts.push(`<text x="${x1 - 4}" y="${(y(p.limit.value) - 4).toFixed(1)}" text-anchor="end" fill="#d62728">${escape(p.limit.label)}</text>`);
  }
  p.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const points = s.points.filter(([, v]) => Number.isFinite(v) && (!p.log || v > 0));
    if (points.length)
      parts.push(
        `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"/>`,
      );
    const ly = y0 + 4 + i * 13;
    parts.push(
      `<line x1="${x1 + 10}" y1="${ly}" x2="${x1 + 24}" y2="${ly}" stroke="${color}" stroke-width="2"/><text x="${x1 + 28}" y="${ly + 4}">${escape(s.label)}</text>`,
    );
  });
  return parts.join('\n');
}

/** The chart of a run's samples, with a title line (database, revision, date). */
export function chart(samples: Sample[], durationS: number, title: string): string {
  const MiB = 1024 * 1024;
  const ops = [...new Set(samples.flatMap((s) => Object.keys(s.ops)))].sort();
  const queues = [...new Set(samples.flatMap((s) => Object.keys(s.queues)))].sort();
  const panels: Panel[] = [
    {
      title: 'Resident memory and heap',
      unit: 'MiB',
      series: [
        { label: 'resident (RSS)', points: samples.map((s) => [s.t, s.rssBytes / MiB]) },
        { label: 'heap used', points: samples.map((s) => [s.t, s.heapUsedBytes / MiB]) },
      ],
    },
    {
      title: 'p99 per operation (each 10 s)',
      unit: 'ms',
      log: true,
      series: ops.map((op) => ({ label: op, points: samples.filter((s) => s.ops[op]?.count).map((s) => [s.t, s.ops[op].p99Ms] as [number, number]) })),
    },
    {
      title: "Event loop's longest delay (each 10 s)",
      unit: 'ms',
      limit: { value: 100, label: 'stall: 100 ms' },
      series: [
        { label: 'max', points: samples.map((s) => [s.t, s.loopDelayMaxMs]) },
        { label: 'p99', points: samples.map((s) => [s.t, s.loopDelayP99Ms]) },
      ],
    },
    { title: "Database's size", unit: 'MiB', series: [{ label: 'pg_database_size', points: samples.map((s) => [s.t, s.databaseBytes / MiB]) }] },
    {
      title: 'Queue depths and open streams',
      unit: 'rows',
      series: [
        ...queues.map((q) => ({ label: q, points: samples.map((s) => [s.t, s.queues[q] ?? 0] as [number, number]) })),
        { label: 'open streams', points: samples.map((s) => [s.t, s.openStreams]) },
      ],
    },
  ];
  const height = 30 + panels.length * PANEL_HEIGHT + 16;
  const body = panels.map((p, i) => panel(p, 30 + i * PANEL_HEIGHT, durationS)).join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="#fff"/>
<text x="${MARGIN.left}" y="18" font-size="13" font-weight="bold">${escape(title)}</text>
${body}
<text x="${MARGIN.left}" y="${height - 4}" fill="#666">Shaded: the windows the checks compare (the run's second sixth and its last).</text>
</svg>
`;
}
