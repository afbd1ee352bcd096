// Live providers (docs/execution.md, Live providers): a service that got no call for PROBE_INTERVAL_MS is
// probed, through the SSRF-guarded client: a GET of its health_url (2xx passes) or of its endpoint (any answer
// under 500 passes: the server is there). Failing PROBE_FAILURES probes in a row makes it unhealthy, out of
// execute's auto routing; passing PROBE_PASSES in a row brings it back, as does a call that succeeds. A probe
// that is not the last of such a run is followed by the next after half an interval.
//
// Who probes what is claimed from the database: a service's next probe time moves when an instance claims it
// (FOR UPDATE SKIP LOCKED), so N instances probe each service as often as one would; and each host's next
// free moment (probe_hosts) is reserved in the same transaction, so that no host gets more than one probe
// per PROBE_HOST_GAP_MS from the marketplace, however many of its services are due.
import { OutboundError } from '../../platform/outbound';
import { Worker } from '../../platform/worker';
import type { Services } from '../context';
import { categoryOf } from '../execution/receipts';
import { daysUpsert, DayDeltas } from './quality';

declare module '../context' {
  interface Services {
    /** Probes services that get no calls; absent when PROBE_INTERVAL_MS is 0. */
    prober?: Worker;
  }
}

export const PROBE_FAILURES = 2;
export const PROBE_PASSES = 2;
const BATCH = 50;
/** A claimed probe not written by then (its instance died) is claimed again. */
const LEASE_MS = 30_000;
const PROBE_TIMEOUT_MS = 5_000;
const MAX_PROBE_BYTES = 64 * 1024;

interface Due {
  id: string;
  endpoint: string;
  health_url: string | null;
  /** The last call's time (null: none yet). */
  last_call: Date | null;
}

export interface ProbeResult {
  passed: boolean;
  /** The failure's category (receipts.ts), when it failed. */
  category: string | null;
  latencyMs: number;
}

/** Probes one URL: a GET; `strict` (a declared health URL) passes on 2xx only, else on any answer under 500. */
export async function probe(services: Services, url: string, strict: boolean): Promise<ProbeResult> {
  const started = performance.now();
  const timeoutMs = Math.min(PROBE_TIMEOUT_MS, services.config.providerTimeoutMs);
  const done = (passed: boolean, category: string | null) => ({ passed, category, latencyMs: Math.round(performance.now() - started) });
  try {
    const res = await services.outbound.get(url, {
      headers: { accept: 'application/json, text/plain, */*', 'user-agent': 'agent-capability-marketplace-probe/1' },
      timeoutMs,
      maxResponseBytes: MAX_PROBE_BYTES,
    });
    const passed = strict ? res.status >= 200 && res.status < 300 : res.status < 500;
    if (passed) return done(true, null);
    return done(false, categoryOf({ outcome: 'failure', reason: `http_${res.status}`, statusCode: res.status, serviceId: 'probe' }));
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    // An answer larger than a probe reads is an answer all the same.
    if (err.reason === 'too_large') return done(true, null);
    return done(false, categoryOf({ outcome: 'failure', reason: err.reason, statusCode: null, serviceId: 'probe' }));
  }
}

/**
 * Claims the services due for a probe. Those called within the interval are looked at again an interval after
 * that call; the others get their host's next free moment: now (probed by this round) or later (looked at
 * again then).
 */
async function claim(services: Services): Promise<{ id: string; url: string; strict: boolean }[]> {
  const { probeIntervalMs: interval, probeHostGapMs: gap } = services.config;
  return services.db.$transaction(async (tx) => {
    const now = services.clock.now().getTime();
    const due = await tx.$queryRawUnsafe<Due[]>(
      `SELECT id::text, endpoint, health_url, greatest(last_success_at, last_failure_at) AS last_call FROM services
       WHERE status = 'active' AND probe_due_at <= $1 ORDER BY probe_due_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      new Date(now),
    );
    if (!due.length) return [];
    const moves: { id: string; due: Date }[] = [];
    const idle: (Due & { host: string })[] = [];
    for (const d of due) {
      const lastCall = d.last_call ? new Date(d.last_call).getTime() : null;
      if (lastCall !== null && lastCall > now - interval) moves.push({ id: d.id, due: new Date(lastCall + interval) });
      else idle.push({ ...d, host: hostOf(d.health_url ?? d.endpoint) });
    }
    const probes: { id: string; url: string; strict: boolean }[] = [];
    if (idle.length) {
      const hosts = [...new Set(idle.map((d) => d.host))].sort();
      await tx.$executeRawUnsafe(
        `INSERT INTO probe_hosts (host, next_at) SELECT h, '1970-01-01T00:00:00Z' FROM unnest($1::text[]) AS h ON CONFLICT (host) DO NOTHING`,
        hosts,
      );
      const rows = await tx.$queryRawUnsafe<{ host: string; next_at: Date }[]>(
        `SELECT host, next_at FROM probe_hosts WHERE host = ANY($1::text[]) ORDER BY host FOR UPDATE`,
        hosts,
      );
      const nextAt = new Map(rows.map((r) => [r.host, Math.max(now, new Date(r.next_at).getTime())]));
      for (const d of idle) {
        const at = nextAt.get(d.host) ?? now;
        nextAt.set(d.host, at + gap);
        if (at <= now) {
          probes.push({ id: d.id, url: d.health_url ?? d.endpoint, strict: d.health_url !== null });
          moves.push({ id: d.id, due: new Date(now + LEASE_MS) });
        } else moves.push({ id: d.id, due: new Date(at) });
      }
      await tx.$executeRawUnsafe(
        `UPDATE probe_hosts h SET next_at = v.next_at FROM jsonb_to_recordset($1::jsonb) AS v(host text, next_at timestamptz) WHERE h.host = v.host`,
        JSON.stringify([...nextAt].map(([host, at]) => ({ host, next_at: new Date(at) }))),
      );
    }
    await tx.$executeRawUnsafe(
      `UPDATE services s SET probe_due_at = v.due FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, due timestamptz) WHERE s.id = v.id`,
      JSON.stringify(moves),
    );
    return probes;
  });
}

/** The host a URL's probes are counted against (lower-case, with its port). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url.toLowerCase();
  }
}

/**
 * Writes a probe's result: the health it moves (in SQL, from the row as it is, so that a call's success folded
 * meanwhile is not undone), the next probe time, the day's counts and slot, and a quality computation soon.
 */
const WRITE = `
  WITH s AS (
    UPDATE services SET last_probe_at = $2::timestamptz, health = n.health, probe_streak = n.streak,
      probe_due_at = $2::timestamptz + CASE WHEN n.streak > 0 THEN $5::int / 2 ELSE $5::int END * interval '1 millisecond',
      last_failure_reason = COALESCE($4::text, last_failure_reason),
      quality_due_at = LEAST(COALESCE(quality_due_at, 'infinity'), $7::timestamptz)
    FROM (SELECT id,
      CASE WHEN $3::boolean THEN CASE WHEN health = 'unhealthy' AND probe_streak + 1 < ${PROBE_PASSES} THEN 'unhealthy' ELSE 'healthy' END
           ELSE CASE WHEN health <> 'unhealthy' AND probe_streak + 1 < ${PROBE_FAILURES} THEN health ELSE 'unhealthy' END END AS health,
      CASE WHEN $3::boolean THEN CASE WHEN health = 'unhealthy' AND probe_streak + 1 < ${PROBE_PASSES} THEN probe_streak + 1 ELSE 0 END
           ELSE CASE WHEN health <> 'unhealthy' AND probe_streak + 1 < ${PROBE_FAILURES} THEN probe_streak + 1 ELSE 0 END END AS streak
      FROM services WHERE id = $1::uuid FOR NO KEY UPDATE) AS n
    WHERE services.id = n.id AND services.status <> 'removed'
    RETURNING services.health
  ), d AS (${daysUpsert('$6')})
  SELECT health FROM s`;

async function record(services: Services, id: string, result: ProbeResult): Promise<void> {
  const at = services.clock.now();
  const days = new DayDeltas();
  days.add(id, at, { probe: true, success: result.passed });
  await services.sql.query(
    WRITE,
    [
      id,
      at,
      result.passed,
      result.category,
      services.config.probeIntervalMs,
      JSON.stringify(days.rows()),
      new Date(at.getTime() + services.config.qualityDelayMs),
    ],
    'probe_write',
  );
}

/** One round: claims the services due and probes them at once; resolves with how many it claimed. */
export async function probeDue(services: Services): Promise<number> {
  const probes = await claim(services);
  await Promise.all(
    probes.map(async (p) => {
      const result = await probe(services, p.url, p.strict);
      await record(services, p.id, result);
    }),
  );
  services.qualityJob?.wake();
  return probes.length;
}

/** The prober of one instance (none when probing is off): a round every quarter interval, at most 5 s apart. */
export function prober(services: Services): Worker | undefined {
  const interval = services.config.probeIntervalMs;
  if (!interval) return undefined;
  return new Worker({
    name: 'prober',
    round: () => probeDue(services),
    log: services.log,
    pollMs: Math.max(50, Math.min(5_000, Math.floor(interval / 4))),
    fullBatch: BATCH,
  });
}
