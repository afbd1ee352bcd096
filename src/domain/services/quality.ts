// The quality the marketplace measures of each service and publishes for buyers (docs/execution.md, Live
// providers): calls and probes are counted per service per UTC day (service_quality_days), with the day's
// five-minute slots marked up or down; a job computes each service's published figures from the last 30 days
// (success rate, latency percentiles, uptime over 24 hours, 7 and 30 days) soon after new calls or probes,
// and again as the windows slide.
import { allEach, perRequest } from '../../platform/loaders';
import { Worker } from '../../platform/worker';
import type { Ctx, Services } from '../context';
import { LATENCY_BUCKETS_MS, percentile } from '../../platform/histogram';

declare module '../context' {
  interface Services {
    /** Computes the published quality of services with new calls or probes. */
    qualityJob?: Worker;
  }
}

export type Health = 'unknown' | 'healthy' | 'unhealthy';

/** A service's published quality (services.quality), as a buyer compares it. */
export interface Quality {
  /** The window the call figures cover: the last `windowDays` UTC days, today included. */
  windowDays: number;
  /** Calls in the window: successes and failures that were the provider's fault. */
  calls: number;
  successes: number;
  failures: number;
  /** Failed calls that were not the provider's fault (a refusal of the caller's input, the caller's deadline). */
  excused: number;
  /** successes / calls; null without calls. */
  successRate: number | null;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  /** The share of observed five-minute slots in which a call succeeded or a probe passed; null when none was observed. */
  uptime24h: number | null;
  uptime7d: number | null;
  uptime30d: number | null;
  probes: number;
  /** Fewer than LOW_SAMPLE_CALLS calls: the rates say little yet. */
  lowSample: boolean;
  computedAt: string;
}

/** One day of a service as the chart of its quality shows it. */
export interface QualityDay {
  day: string;
  successes: number;
  failures: number;
  excused: number;
  probesPassed: number;
  probesFailed: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  uptime: number | null;
}

export const WINDOW_DAYS = 30;
export const SLOT_MS = 5 * 60_000;
export const SLOTS_PER_DAY = 288;
/** Under this many calls in the window, a published rate says so (`lowSample`). */
export const LOW_SAMPLE_CALLS = 20;
/** While a service has figures in its window, they are computed again this often as the windows slide. */
const SLIDE_MS = 3_600_000;
const BATCH = 200;
const DAY_MS = 86_400_000;

/** What one batch of calls or probes adds to a service's day. */
export interface DayDelta {
  service_id: string;
  day: string;
  successes: number;
  failures: number;
  excused: number;
  probes_passed: number;
  probes_failed: number;
  latency_buckets: number[];
  up: string;
  down: string;
}

/** Gathers observations into per-(service, day) deltas. */
export class DayDeltas {
  private readonly days = new Map<string, DayDelta & { upSlots: Set<number>; downSlots: Set<number> }>();

  add(serviceId: string, at: Date | string | number, o: { success?: boolean; failure?: boolean; excused?: boolean; probe?: boolean; latencyBucket?: number }) {
    const t = new Date(at).getTime();
    const day = new Date(t - (t % DAY_MS)).toISOString().slice(0, 10);
    const slot = Math.floor((t % DAY_MS) / SLOT_MS);
    const key = `${serviceId}/${day}`;
    let d = this.days.get(key);
    if (!d) {
      d = {
        service_id: serviceId,
        day,
        successes: 0,
        failures: 0,
        excused: 0,
        probes_passed: 0,
        probes_failed: 0,
        latency_buckets: new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0),
        up: '',
        down: '',
        upSlots: new Set(),
        downSlots: new Set(),
      };
      this.days.set(key, d);
    }
    if (o.excused) d.excused++;
    else if (o.probe) {
      if (o.success) d.probes_passed++;
      else d.probes_failed++;
    } else if (o.success) d.successes++;
    else d.failures++;
    if (o.latencyBucket !== undefined) d.latency_buckets[o.latencyBucket]++;
    if (!o.excused) (o.success ? d.upSlots : d.downSlots).add(slot);
  }

  /** The deltas, as DAYS_UPSERT's recordset reads them; empty when nothing was added. */
  rows(): DayDelta[] {
    return [...this.days.values()].map(({ upSlots, downSlots, ...d }) => ({ ...d, up: bits(upSlots), down: bits(downSlots) }));
  }
}

function bits(slots: Set<number>): string {
  let s = '';
  for (let i = 0; i < SLOTS_PER_DAY; i++) s += slots.has(i) ? '1' : '0';
  return s;
}

/**
 * A CTE body adding `$param`'s deltas (DayDeltas.rows as JSON) to the day rows: counts add up, latency
 * buckets add up element by element, slot marks are ORed, so writers in any order (a fold and a probe, two
 * instances) add up to the same row. Services deleted meanwhile are left out.
 */
export const daysUpsert = (param: string) => `
    INSERT INTO service_quality_days AS d (service_id, day, successes, failures, excused, probes_passed, probes_failed, latency_buckets, up_slots, down_slots)
    SELECT v.service_id, v.day, v.successes, v.failures, v.excused, v.probes_passed, v.probes_failed, v.latency_buckets, v.up::bit(288), v.down::bit(288)
    FROM jsonb_to_recordset(${param}::jsonb) AS v(service_id uuid, day date, successes int, failures int, excused int, probes_passed int, probes_failed int,
      latency_buckets int[], up text, down text)
    WHERE EXISTS (SELECT 1 FROM services s WHERE s.id = v.service_id)
    ORDER BY v.service_id, v.day
    ON CONFLICT (service_id, day) DO UPDATE SET successes = d.successes + EXCLUDED.successes, failures = d.failures + EXCLUDED.failures,
      excused = d.excused + EXCLUDED.excused, probes_passed = d.probes_passed + EXCLUDED.probes_passed, probes_failed = d.probes_failed + EXCLUDED.probes_failed,
      latency_buckets = ARRAY(SELECT COALESCE(x.a, 0) + COALESCE(x.b, 0) FROM unnest(d.latency_buckets, EXCLUDED.latency_buckets) WITH ORDINALITY AS x(a, b, i) ORDER BY x.i),
      up_slots = d.up_slots | EXCLUDED.up_slots, down_slots = d.down_slots | EXCLUDED.down_slots`;

interface DayRow {
  service_id: string;
  day: string;
  successes: number;
  failures: number;
  excused: number;
  probes_passed: number;
  probes_failed: number;
  latency_buckets: number[];
  up_slots: string;
  down_slots: string;
}

const DAY_COLUMNS = `service_id::text, to_char(day, 'YYYY-MM-DD') AS day, successes, failures, excused, probes_passed, probes_failed, latency_buckets,
  up_slots::text, down_slots::text`;

/** Up and observed slots of `rows` whose slot starts within (from, to]. */
function slotsIn(rows: DayRow[], from: number, to: number): { up: number; observed: number } {
  let up = 0;
  let observed = 0;
  for (const r of rows) {
    const start = Date.parse(`${r.day}T00:00:00Z`);
    if (start + DAY_MS <= from || start > to) continue;
    for (let i = 0; i < SLOTS_PER_DAY; i++) {
      const at = start + i * SLOT_MS;
      if (at + SLOT_MS <= from || at > to) continue;
      if (r.up_slots[i] === '1') {
        up++;
        observed++;
      } else if (r.down_slots[i] === '1') observed++;
    }
  }
  return { up, observed };
}

const ratio = (n: number, d: number) => (d ? Math.round((n / d) * 10_000) / 10_000 : null);

function sumBuckets(rows: DayRow[]): number[] {
  const out = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
  for (const r of rows) r.latency_buckets.forEach((n, i) => (out[i] += n ?? 0));
  return out;
}

/** A service's published quality from its day rows of the window, as of `now`. */
export function qualityOf(rows: DayRow[], now: Date): Quality {
  const t = now.getTime();
  const sum = (k: 'successes' | 'failures' | 'excused' | 'probes_passed' | 'probes_failed') => rows.reduce((n, r) => n + r[k], 0);
  const [successes, failures] = [sum('successes'), sum('failures')];
  const calls = successes + failures;
  const buckets = sumBuckets(rows);
  const uptime = (ms: number) => {
    const s = slotsIn(rows, t - ms, t);
    return ratio(s.up, s.observed);
  };
  return {
    windowDays: WINDOW_DAYS,
    calls,
    successes,
    failures,
    excused: sum('excused'),
    successRate: ratio(successes, calls),
    latencyP50Ms: percentile(buckets, 0.5),
    latencyP95Ms: percentile(buckets, 0.95),
    uptime24h: uptime(DAY_MS),
    uptime7d: uptime(7 * DAY_MS),
    uptime30d: uptime(WINDOW_DAYS * DAY_MS),
    probes: sum('probes_passed') + sum('probes_failed'),
    lowSample: calls < LOW_SAMPLE_CALLS,
    computedAt: now.toISOString(),
  };
}

/**
 * The days of services' windows, oldest first, as their quality charts show them: every service a request
 * asks about read in one statement (a list of services asking each for its days costs one read, not one each).
 */
const daysOf = perRequest(async (ctx: Pick<Ctx, 'services'>, ids: readonly string[]) => {
  const from = new Date(ctx.services.clock.now().getTime() - (WINDOW_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const rows = await ctx.services.sql.query<DayRow>(
    `SELECT ${DAY_COLUMNS} FROM service_quality_days WHERE service_id = ANY($1::uuid[]) AND day >= $2::date ORDER BY day`,
    [ids, from],
    'quality_days',
  );
  return allEach(ids, rows, (r) => r.service_id).map((days) => days.map(dayShown));
});

/** A service's days of its window, oldest first (at most WINDOW_DAYS). */
export function qualityDays(ctx: Pick<Ctx, 'services'>, serviceId: string): Promise<QualityDay[]> {
  return daysOf(ctx).load(serviceId);
}

function dayShown(r: DayRow): QualityDay {
  const start = Date.parse(`${r.day}T00:00:00Z`);
  const s = slotsIn([r], start - 1, start + DAY_MS - 1);
  const buckets = sumBuckets([r]);
  return {
    day: r.day,
    successes: r.successes,
    failures: r.failures,
    excused: r.excused,
    probesPassed: r.probes_passed,
    probesFailed: r.probes_failed,
    latencyP50Ms: percentile(buckets, 0.5),
    latencyP95Ms: percentile(buckets, 0.95),
    uptime: ratio(s.up, s.observed),
  };
}

/**
 * Computes the quality of services that are due (new calls or probes, or a window that slid), a batch at a
 * time; resolves with how many it computed. The claim moves their due time first, so instances share them.
 */
export async function computeDueQuality(services: Services): Promise<number> {
  const now = services.clock.now();
  const claimed = await services.sql.query<{ id: string }>(
    `UPDATE services SET quality_due_at = $2 WHERE id IN (
       SELECT id FROM services WHERE quality_due_at <= $1 ORDER BY quality_due_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED) RETURNING id::text`,
    [now, new Date(now.getTime() + 60_000)],
    'quality_claim',
  );
  if (!claimed.length) return 0;
  const from = new Date(now.getTime() - WINDOW_DAYS * DAY_MS).toISOString().slice(0, 10);
  const rows = await services.sql.query<DayRow>(
    `SELECT ${DAY_COLUMNS} FROM service_quality_days WHERE service_id = ANY($1::uuid[]) AND day >= $2::date`,
    [claimed.map((c) => c.id), from],
    'quality_read_days',
  );
  const byService = new Map<string, DayRow[]>();
  for (const r of rows) byService.set(r.service_id, [...(byService.get(r.service_id) ?? []), r]);
  const computed = claimed.map(({ id }) => {
    const days = byService.get(id) ?? [];
    // Without figures in the window there is nothing to slide: computed again when calls or probes come.
    return { id, quality: days.length ? qualityOf(days, now) : null, due: days.length ? new Date(now.getTime() + SLIDE_MS) : null };
  });
  // A service's due time moved by new calls or probes since the claim stays as they set it.
  await services.sql.query(
    `UPDATE services s SET quality = v.quality, quality_due_at = CASE WHEN s.quality_due_at = $2 THEN v.due ELSE s.quality_due_at END
     FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, quality jsonb, due timestamptz) WHERE s.id = v.id`,
    [JSON.stringify(computed), new Date(now.getTime() + 60_000)],
    'quality_write',
  );
  return claimed.length;
}

/** The quality job of one instance: a round every QUALITY_DELAY_MS (at most 5 s, at least 50 ms), and at once when woken. */
export function qualityJob(services: Services): Worker {
  return new Worker({
    name: 'service-quality',
    round: () => computeDueQuality(services),
    log: services.log,
    pollMs: Math.max(50, Math.min(services.config.qualityDelayMs, 5_000)),
    fullBatch: BATCH,
  });
}
