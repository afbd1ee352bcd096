// The quality the marketplace measured of a service, for a person to read at a glance: its health, its figures
// with the calls behind them, and its last 30 days as bars (uptime, success, latency percentiles), each chart
// with the same figures as a table for assistive technology.
import { Status } from '../../ui';

export interface QualityFigures {
  calls: number;
  successRate: number | null;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  uptime24h: number | null;
  uptime7d: number | null;
  uptime30d: number | null;
  lowSample: boolean;
}

export interface QualityDayFigures {
  day: string;
  successes: number;
  failures: number;
  probesPassed: number;
  probesFailed: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  uptime: number | null;
}

export const percent = (share: number | null | undefined) => (share === null || share === undefined ? '—' : `${Math.round(share * 1000) / 10}%`);

/** A service's health as a coloured word: healthy, unhealthy (out of auto routing), or unknown. */
export function Health({ value }: { value: string }) {
  return <Status value={value} />;
}

/** A rate with the calls behind it: "98% of 1,204 calls", or "67% of 3 calls (few)". */
export function RateOf({ quality }: { quality: Pick<QualityFigures, 'successRate' | 'calls' | 'lowSample'> | null | undefined }) {
  if (!quality || quality.calls === 0) return <>no calls yet</>;
  return (
    <>
      {percent(quality.successRate)} of {quality.calls.toLocaleString()} {quality.calls === 1 ? 'call' : 'calls'}
      {quality.lowSample ? ' (few)' : ''}
    </>
  );
}

/** A share as a meter a person reads at a glance, with its figure beside it. */
export function UptimeMeter({ share }: { share: number | null }) {
  if (share === null) return <>—</>;
  return (
    <>
      <meter min={0} max={1} low={0.9} high={0.99} optimum={1} value={share} aria-label="Uptime over 24 hours">
        {percent(share)}
      </meter>{' '}
      {percent(share)}
    </>
  );
}

interface Bar {
  label: string;
  /** 0-1 of the chart's height; null: nothing observed that day. */
  value: number | null;
  /** What the bar says, in words. */
  text: string;
  /** A second, thinner mark (p95 above p50). */
  upper?: number | null;
}

/** Bars, one a day, in an SVG a person reads at a glance; the figures again in a table below it. */
function DayBars({ title, bars, unit }: { title: string; bars: Bar[]; unit: string }) {
  const w = 300;
  const h = 80;
  const slot = w / Math.max(bars.length, 1);
  const observed = bars.filter((b) => b.value !== null);
  const summary = observed.length ? `${title}: ${observed.length} of ${bars.length} days observed` : `${title}: nothing observed yet`;
  return (
    <figure className="quality-chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${w} ${h}`} className="chart" role="img" aria-label={summary} preserveAspectRatio="none">
        <line x1="0" y1={h - 0.5} x2={w} y2={h - 0.5} className="chart-grid" />
        {bars.map((b, i) =>
          b.value === null ? null : (
            <g key={b.label}>
              {b.upper !== undefined && b.upper !== null && (
                <rect x={i * slot + slot * 0.3} width={slot * 0.4} y={h - b.upper * h} height={Math.max(1, b.upper * h)} className="chart-bar-upper" />
              )}
              <rect x={i * slot + slot * 0.15} width={slot * 0.7} y={h - b.value * h} height={Math.max(1, b.value * h)} className="chart-bar">
                <title>{`${b.label}: ${b.text}`}</title>
              </rect>
            </g>
          ),
        )}
      </svg>
      <details>
        <summary>{title}, day by day</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">{unit}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((b) => (
              <tr key={b.label}>
                <td>{b.label}</td>
                <td>{b.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** The last 30 days: uptime, success and latency percentiles, a bar a day. */
export function QualityCharts({ days }: { days: QualityDayFigures[] }) {
  if (!days.length) return <p className="muted">No calls or probes counted in the last 30 days.</p>;
  const slowest = Math.max(1, ...days.map((d) => d.latencyP95Ms ?? d.latencyP50Ms ?? 0));
  return (
    <div className="quality-charts">
      <DayBars title="Uptime" unit="Uptime" bars={days.map((d) => ({ label: d.day, value: d.uptime, text: percent(d.uptime) }))} />
      <DayBars
        title="Success"
        unit="Calls that succeeded"
        bars={days.map((d) => {
          const calls = d.successes + d.failures;
          return { label: d.day, value: calls ? d.successes / calls : null, text: calls ? `${percent(d.successes / calls)} of ${calls}` : 'no calls' };
        })}
      />
      <DayBars
        title="Latency p50 and p95"
        unit="p50 / p95"
        bars={days.map((d) => ({
          label: d.day,
          value: d.latencyP50Ms === null ? null : d.latencyP50Ms / slowest,
          upper: d.latencyP95Ms === null ? null : d.latencyP95Ms / slowest,
          text: d.latencyP50Ms === null ? 'no successful calls' : `${d.latencyP50Ms} ms / ${d.latencyP95Ms ?? '—'} ms`,
        }))}
      />
    </div>
  );
}
