// The held-readers scenario's driver: many SSE readers of one stream held open at once (by the sse-readers
// child process), the server's resident memory before they connect and once they all have, and single
// broadcasts timed from the push until the last reader has them. Like the fan-out, a reader that does not
// connect, or a push that is refused, fails the benchmark rather than being measured.
import fs from 'node:fs';
import { connectAll, pushOne, type FanoutTarget, type SseReaders } from './fanout';
import type { HeldSample } from './report';

/** After every reader is connected, before the memory is read: lets the connection work finish. */
const SETTLE_MS = 2000;
/** How long a broadcast may take to reach every reader before the round gives up on it. */
const BROADCAST_WAIT_MS = 10_000;
const POLL_MS = 20;
/** Descriptors a process needs beyond its readers' sockets (files, database, peers, listening sockets). */
const FD_MARGIN = 200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

/** VmRSS of the process, in KiB (/proc/<pid>/status). */
export function residentKiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}

/** The soft limit on open files of the process (/proc/<pid>/limits), Infinity when unlimited. */
export function openFileLimit(pid: number): number {
  const limits = fs.readFileSync(`/proc/${pid}/limits`, 'utf8');
  const m = /^Max open files\s+(\S+)/m.exec(limits);
  if (!m) throw new Error(`no open-file limit for pid ${pid}`);
  return m[1] === 'unlimited' ? Infinity : Number(m[1]);
}

/**
 * Refuses to start when a process that holds one socket per reader may not open that many: the readers
 * would fail with EMFILE (or the server would stop accepting) and the figures would be about the limit.
 * Node raises its soft limit to the hard one at start-up, so the hard limit of the shell that runs
 * `npm run bench` is what counts (`ulimit -Hn`; raising it needs CAP_SYS_RESOURCE).
 */
export function assertOpenFiles(what: string, pid: number, readers: number): number {
  const limit = openFileLimit(pid);
  if (limit < readers + FD_MARGIN) {
    throw new Error(
      `${what} (pid ${pid}) may open ${limit} files, fewer than ${readers} readers need (${readers + FD_MARGIN}): raise \`ulimit -n\` (hard limit) where the benchmark starts`,
    );
  }
  return limit;
}

export interface HeldShape {
  readers: number;
  /** Broadcasts timed once every reader is connected, one at a time. */
  broadcasts: number;
}

/**
 * One round against one server: connect `readers` readers, read the server's resident memory before and
 * after (once every reader is connected and SETTLE_MS has passed), then push `broadcasts` events one at a
 * time, each timed from the push's send stamp (taken just before the request) to the last reader's
 * receipt of it.
 */
export async function heldReadersRound(target: FanoutTarget, pid: number, readers: SseReaders, shape: HeldShape): Promise<HeldSample> {
  const rssBefore = residentKiB(pid);
  try {
    const opened = await connectAll(target, readers, shape.readers, SETTLE_MS);
    const rssConnected = residentKiB(pid);
    let counts = await readers.counts();
    if (counts.open < shape.readers) throw new Error(`${target.name}: ${shape.readers - counts.open} readers were disconnected before the first broadcast`);

    const times: (number | null)[] = [];
    for (let i = 0; i < shape.broadcasts; i++) {
      await readers.mark();
      const before = counts.received;
      await pushOne(target, i);
      const deadline = Date.now() + BROADCAST_WAIT_MS;
      counts = await readers.counts();
      while (counts.received - before < shape.readers && Date.now() < deadline) {
        await sleep(POLL_MS);
        counts = await readers.counts();
      }
      // The latest arrival since the mark, measured from the push's send stamp: the last reader's time.
      times.push(counts.received - before >= shape.readers ? counts.latency_ms.max : null);
    }
    const rssAfter = residentKiB(pid);
    const reached = times.filter((t): t is number => t !== null).sort((a, b) => a - b);
    return {
      readers: shape.readers,
      connect_s: round(opened.ms / 1000, 2),
      rss_before_kib: rssBefore,
      rss_connected_kib: rssConnected,
      rss_after_broadcasts_kib: rssAfter,
      kib_per_reader: round((rssConnected - rssBefore) / shape.readers, 2),
      broadcasts: shape.broadcasts,
      broadcasts_reaching_all: reached.length,
      broadcast_ms: times.map((t) => (t === null ? null : round(t, 1))),
      broadcast_p50_ms: reached.length ? round(reached[Math.ceil(reached.length / 2) - 1], 1) : null,
      broadcast_max_ms: reached.length ? round(reached[reached.length - 1], 1) : null,
      closed_by_server: counts.closed_by_server,
    };
  } finally {
    await readers.close();
  }
}
