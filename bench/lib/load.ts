// Load generation: one autocannon run against one target, reduced to the numbers the report needs, and
// refused loudly unless every response was a 2xx carrying exactly the body the preflight saw.
import autocannon from 'autocannon';
import { cpuSeconds, postgresCpuSeconds, serverPid } from './proc-cpu';
import { seededRandom } from './query-pool';

/**
 * Requests that differ: each request sends one of `bodies` (POST) or asks one of `paths` (GET, path and
 * query string), drawn uniformly at random from a generator seeded with `seed`, so that ours and a peer
 * are sent the same sequence of draws in every run.
 */
export interface Varied {
  bodies?: string[];
  paths?: string[];
  seed: number;
}

export interface Target {
  /** Who answers: "ours", "express-pg", "yoga", "bare-http". */
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Checks a preflight response; returns what is wrong with it, or undefined. */
  check(status: number, body: string): string | undefined;
  /** The body every measured response must equal (set by the preflight). */
  expectBody?: string;
  /** False for answers that differ per request (timings, time-dependent scores): only the status is checked. */
  stableBody?: boolean;
  /** Each request drawn from a pool instead of `body` and the URL's path (then only the status is checked). */
  varied?: Varied;
}

export interface Sample {
  rps: number;
  /** Latency percentiles of the 2xx answers, in milliseconds to the microsecond (Latencies). */
  p50: number;
  p99: number;
  requests: number;
  /** CPU (utime + stime) of the process serving the target, per answered request, in microseconds; null when unknown. */
  cpu_us: number | null;
  /** CPU of the PostgreSQL server the run uses, when it runs on this machine, per answered request (µs), over the same window; else null. */
  db_cpu_us: number | null;
}

let running: autocannon.Instance | undefined;

/** Stops the run in progress, if any (on SIGINT). */
export function stopLoad(): void {
  running?.stop?.();
}

/** One request, to verify that the target answers what we mean to measure before loading it. */
export async function preflight(target: Target): Promise<void> {
  const res = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body, signal: AbortSignal.timeout(10_000) });
  const body = await res.text();
  const problem = res.status < 200 || res.status > 299 ? `status ${res.status}` : target.check(res.status, body);
  if (problem) throw new Error(`preflight of ${target.name} ${target.method} ${target.url} failed: ${problem}\n    body: ${body.slice(0, 500)}`);
  if (target.stableBody !== false) target.expectBody = body;
}

/** The process listening on the target's port (the one charged for its CPU), or null when it is not one of ours. */
function servingPid(target: Target): number | null {
  try {
    return serverPid(target.url);
  } catch {
    return null;
  }
}

/**
 * Every answered request's latency, in milliseconds at the resolution autocannon measures them (process.hrtime):
 * its own histogram keeps whole milliseconds, which reads 2.4 ms against 2.6 as 2 against 3, a 1.5 ratio.
 */
class Latencies {
  private values = new Float64Array(1 << 16);
  private count = 0;

  add(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
  }

  /** The values at the given percentiles (nearest rank); a run answers at least one request (see load). */
  percentiles(...ps: number[]): number[] {
    const sorted = this.values.subarray(0, this.count).sort();
    return ps.map((p) => sorted[Math.min(this.count - 1, Math.max(0, Math.ceil((p / 100) * this.count) - 1))]);
  }
}

/** autocannon's request that draws each send's body or path from the pool (see Varied). */
function variedRequest(varied: Varied): autocannon.RequestSpec {
  const random = seededRandom(varied.seed);
  const { bodies, paths } = varied;
  if (bodies?.length) return { setupRequest: (request) => ({ ...request, body: bodies[Math.floor(random() * bodies.length)] }) };
  if (paths?.length) return { setupRequest: (request) => ({ ...request, path: paths[Math.floor(random() * paths.length)] }) };
  throw new Error('a varied target needs bodies or paths');
}

export function load(target: Target, durationS: number, connections: number): Promise<Sample> {
  const pid = servingPid(target);
  const cpuBefore = pid === null ? 0 : cpuSeconds(pid);
  // The database's processes are charged only when the run uses PostgreSQL (PGlite runs inside ours).
  const dbBefore = process.env.DATABASE_URL ? postgresCpuSeconds() : null;
  const latencies = new Latencies();
  return new Promise((resolve, reject) => {
    running = autocannon(
      {
        url: target.url,
        method: target.method,
        headers: target.headers,
        body: target.body,
        connections,
        duration: durationS,
        timeout: 10,
        // autocannon refuses expectBody beside requests (a varied target's answers differ anyway).
        ...(target.varied ? { requests: [variedRequest(target.varied)] } : { expectBody: target.expectBody }),
      },
      (err, result) => {
        running = undefined;
        if (err) return reject(err);
        const bad = result.non2xx + result.errors + result.timeouts + result.mismatches;
        if (bad > 0 || result.requests.total === 0) {
          const codes = Object.entries(result.statusCodeStats)
            .map(([code, { count }]) => `${code}×${count}`)
            .join(' ');
          return reject(
            new Error(
              `${target.name} ${target.method} ${target.url}: ${result.requests.total} responses, non2xx=${result.non2xx} errors=${result.errors} ` +
                `timeouts=${result.timeouts} mismatches=${result.mismatches} (status codes: ${codes || 'none'})`,
            ),
          );
        }
        const perRequest = (seconds: number) => Math.round((seconds * 1e6) / result.requests.total);
        const cpu_us = pid === null ? null : perRequest(cpuSeconds(pid) - cpuBefore);
        const dbAfter = dbBefore === null ? null : postgresCpuSeconds();
        const db_cpu_us = dbBefore === null || dbAfter === null ? null : perRequest(dbAfter - dbBefore);
        const [p50, p99] = latencies.percentiles(50, 99);
        resolve({ rps: result.requests.average, p50, p99, requests: result.requests.total, cpu_us, db_cpu_us });
      },
    );
    // Only 2xx answers are kept, as autocannon's own histogram does (a run with any other fails above).
    running.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) latencies.add(ms);
    });
  });
}
