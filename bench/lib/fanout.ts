// The fan-out scenario's driver: many SSE readers of one stream (held by the sse-readers child process),
// events pushed at a fixed rate from here, and the server charged for its CPU over the window from /proc.
// A round that could not connect every reader, or a push that was not answered 200 with one event, fails
// the benchmark rather than being measured.
import { spawnTs, type Child } from './children';
import { commandLine, cpuSeconds } from './proc-cpu';
import type { FanoutSample } from './report';

export interface FanoutTarget {
  /** Who serves: "ours", "sse-bare". */
  name: string;
  /** The SSE endpoint readers GET. */
  eventsUrl: string;
  /** Where one event is pushed with POST {data}. */
  pushUrl: string;
  /** Sent by readers and pushes alike (the bearer key). */
  headers: Record<string, string>;
}

export interface FanoutShape {
  readers: number;
  eventsPerS: number;
  durationS: number;
  /** How long after the last push answers the readers may take to receive everything. */
  drainMs: number;
}

/** After every reader is connected, before the window opens: lets the connection work finish. */
const SETTLE_MS = 500;
const OPEN_TIMEOUT_MS = 30_000;
const PUSH_TIMEOUT_MS = 10_000;
const POLL_MS = 50;

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Monotonic milliseconds on the clock the reader process stamps arrivals with. */
const nowMs = () => Number(process.hrtime.bigint() / 1000n) / 1000;

export interface Counts {
  readers: number;
  open: number;
  closed_by_server: number;
  received: number;
  min: number;
  max: number;
  disorder: number;
  latency_ms: { n: number; p50: number | null; p99: number | null; max: number | null };
  sample: string | null;
}

/** The reader process and its request/answer protocol over stdin/stdout (bench/lib/sse-readers.ts). */
export class SseReaders {
  private next = 0;

  private constructor(private readonly child: Child) {}

  static async start(env: NodeJS.ProcessEnv): Promise<SseReaders> {
    const child = spawnTs('sse-readers', 'bench/lib/sse-readers.ts', env);
    await child.waitForLine((line) => (line.startsWith('{"ready"') ? true : undefined), 60_000);
    return new SseReaders(child);
  }

  private async ask<T>(command: Record<string, unknown>, timeoutMs: number): Promise<T> {
    const n = ++this.next;
    const prefix = `{"reply":${n},`;
    const answer = this.child.waitForLine((line) => (line.startsWith(prefix) ? (JSON.parse(line) as T & { error?: string }) : undefined), timeoutMs);
    this.child.proc.stdin!.write(`${JSON.stringify({ n, ...command })}\n`);
    const body = await answer;
    if (body.error) throw new Error(`sse-readers: ${body.error}`);
    return body;
  }

  open(url: string, headers: Record<string, string>, count: number) {
    return this.ask<{ opened: number; asked: number; statuses: Record<string, number>; errors: string[]; ms: number }>(
      { cmd: 'open', url, headers, count, timeoutMs: OPEN_TIMEOUT_MS },
      // Each connection has OPEN_TIMEOUT_MS; they open a hundred at a time.
      OPEN_TIMEOUT_MS * Math.ceil(count / 100) + 5_000,
    );
  }

  counts(): Promise<Counts> {
    return this.ask<Counts>({ cmd: 'counts' }, 10_000);
  }

  /** Forgets the latencies so far: the next counts() reports only those of messages after this. */
  mark(): Promise<unknown> {
    return this.ask({ cmd: 'mark' }, 10_000);
  }

  /** The reader process's pid (for its open-file limit). */
  get pid(): number {
    return this.child.proc.pid!;
  }

  close(): Promise<unknown> {
    return this.ask({ cmd: 'close' }, 10_000);
  }

  stop(): Promise<void> {
    return this.child.stop(5_000);
  }
}

/** JSON with every object's keys sorted (ours stores data as jsonb, which reorders keys). */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Refuses to compare servers whose messages differ in more than their numbers (ids, times, the send
 * stamp) and key order: writing a longer or differently shaped message is a different amount of work.
 */
export function assertSameFraming(a: { name: string; message: string | null }, b: { name: string; message: string | null }): void {
  const shape = (m: string | null) =>
    m
      ?.split('\n')
      .map((line) => {
        if (!line.startsWith('data: ')) return line;
        try {
          return `data: ${sortedJson(JSON.parse(line.slice(6)))}`;
        } catch {
          return line;
        }
      })
      .join('\n')
      .replace(/[\d.]+/g, '0');
  if (a.message === null || b.message === null || shape(a.message) !== shape(b.message)) {
    throw new Error(
      `the servers do not frame events alike, so their costs are not comparable:\n    ${a.name}: ${JSON.stringify(a.message)}\n    ${b.name}: ${JSON.stringify(b.message)}`,
    );
  }
}

export function describePid(pid: number): string {
  return `pid ${pid} (${commandLine(pid).slice(0, 80)})`;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : 0;
}

/** One push: 200 with `pushed: true` and a numeric `last_event_id`, or the benchmark fails. */
export async function pushOne(target: FanoutTarget, i: number): Promise<number> {
  const started = nowMs();
  const res = await fetch(target.pushUrl, {
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    // `sent` is read by the readers for the delivery latency.
    body: JSON.stringify({ data: { sent: nowMs(), n: i } }),
    signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
  });
  const text = await res.text();
  let body: { pushed?: unknown; last_event_id?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // reported below
  }
  if (res.status !== 200 || body.pushed !== true || typeof body.last_event_id !== 'number') {
    throw new Error(`${target.name} push ${i} answered ${res.status}: ${text.slice(0, 300)}`);
  }
  return nowMs() - started;
}

/**
 * Connects `n` readers of the target's stream and lets them settle for `settleMs`; fails naming the
 * statuses and errors when any did not connect. The caller closes them whatever happens. Answers how long
 * connecting took.
 */
export async function connectAll(target: FanoutTarget, readers: SseReaders, n: number, settleMs: number): Promise<{ ms: number }> {
  const opened = await readers.open(target.eventsUrl, target.headers, n);
  if (opened.opened < n) {
    const statuses = Object.entries(opened.statuses)
      .map(([code, count]) => `${code === '0' ? 'no answer' : code}×${count}`)
      .join(' ');
    throw new Error(
      `${target.name}: only ${opened.opened} of ${n} SSE readers connected to ${target.eventsUrl} (statuses: ${statuses}; first errors: ${opened.errors.join(' | ') || 'none'})`,
    );
  }
  await sleep(settleMs);
  return opened;
}

/**
 * One round against one target: connect every reader, push `eventsPerS` events a second for `durationS`,
 * wait until every reader has every event (at most `drainMs` after the last push answered), and charge
 * the server's CPU from the first push to then.
 */
export async function fanoutRound(
  target: FanoutTarget,
  pid: number,
  readers: SseReaders,
  shape: FanoutShape,
): Promise<{ sample: FanoutSample; message: string | null }> {
  try {
    await connectAll(target, readers, shape.readers, SETTLE_MS);
    const before = await readers.counts();
    if (before.open < shape.readers) throw new Error(`${target.name}: ${shape.readers - before.open} readers were disconnected before the first push`);

    const events = shape.eventsPerS * shape.durationS;
    const interval = 1000 / shape.eventsPerS;
    const cpu0 = cpuSeconds(pid);
    const t0 = nowMs();
    // On a fixed schedule, not one after the other: a slow answer does not slow the rate down.
    const pushes: Promise<number>[] = [];
    for (let i = 0; i < events; i++) {
      const wait = t0 + i * interval - nowMs();
      if (wait > 0) await sleep(wait);
      const p = pushOne(target, i);
      p.catch(() => {}); // awaited below; a rejection before then is not unhandled
      pushes.push(p);
    }
    const pushMs = await Promise.all(pushes);
    const expected = events * shape.readers;
    const drainEnd = nowMs() + shape.drainMs;
    let counts = await readers.counts();
    while (counts.received - before.received < expected && nowMs() < drainEnd) {
      await sleep(POLL_MS);
      counts = await readers.counts();
    }
    const cpu = cpuSeconds(pid) - cpu0;
    const windowS = (nowMs() - t0) / 1000;
    const received = counts.received - before.received;
    const sample: FanoutSample = {
      readers: shape.readers,
      pushed: events,
      received,
      delivered: received / expected,
      min_per_reader: counts.min,
      max_per_reader: counts.max,
      disorder: counts.disorder,
      closed_by_server: counts.closed_by_server,
      cpu_s: round(cpu, 3),
      window_s: round(windowS, 3),
      cpu_per_event_us: round((cpu * 1e6) / expected, 3),
      latency_p50_ms: counts.latency_ms.p50 === null ? null : round(counts.latency_ms.p50, 2),
      latency_p99_ms: counts.latency_ms.p99 === null ? null : round(counts.latency_ms.p99, 2),
      push_p50_ms: round(percentile(pushMs, 50), 2),
      push_p99_ms: round(percentile(pushMs, 99), 2),
    };
    return { sample, message: counts.sample };
  } finally {
    await readers.close();
  }
}
