// Held readers: ten thousand SSE readers of one session open at once on our one instance, the memory they
// cost and how long a single broadcast takes to reach the last of them (the bare SSE hub for reference).
import type { Agent } from '../accounts';
import { describePid, SseReaders } from '../lib/fanout';
import { assertOpenFiles, heldReadersRound, type HeldShape } from '../lib/held-readers';
import { serverPid } from '../lib/proc-cpu';
import { summarizeHeld, type HeldResult, type HeldSample, type HeldTargets } from '../lib/report';
import { WARMUP_S } from '../settings';
import { sessionTargets } from './sessions';

/** Held readers: this many SSE readers of one session open at once on our one instance, then single broadcasts. */
export const HELD_SCENARIO = 'sse_readers_10000';
export const HELD: HeldShape = { readers: 10_000, broadcasts: 5 };
const HELD_TARGETS: HeldTargets = { kibPerReader: 64, broadcastMs: 2000 };
/** Readers of the held scenario's unmeasured first round: the paths warmed up without growing the heap much. */
const HELD_WARMUP_READERS = 100;

const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
const fmtHeld = (s: HeldSample) =>
  `connected in ${s.connect_s.toFixed(1)} s; RSS ${mib(s.rss_before_kib)} → ${mib(s.rss_connected_kib)} (${s.kib_per_reader.toFixed(1)} KiB/reader), ` +
  `${mib(s.rss_after_broadcasts_kib)} after; broadcasts to the last reader ${s.broadcast_ms.map((t) => (t === null ? 'incomplete' : t.toFixed(0))).join(', ')} ms`;

/**
 * Held readers: HELD.readers SSE readers of one session open at once on our one instance, its resident
 * memory before and with them all, then single broadcasts timed to their last reader; the same round
 * against the bare node:http SSE hub for reference. One measured round a side (each connects ten thousand
 * readers), after an unmeasured round of a hundred readers.
 */
export async function runHeldScenario(me: Agent, ours: string, peer: string): Promise<HeldResult> {
  console.log(
    `\n${HELD_SCENARIO}: ${HELD.readers} SSE readers of one session held on our one instance, ${HELD.broadcasts} broadcasts (sse-bare for reference)`,
  );
  const { auth, session, targets } = await sessionTargets(me, ours, peer);
  const pids = { ours: serverPid(ours), peer: serverPid(peer) };
  const readers = await SseReaders.start({ ...process.env });
  try {
    const limits = [
      `readers ${assertOpenFiles('the reader process', readers.pid, HELD.readers)}`,
      `ours ${assertOpenFiles('our server', pids.ours, HELD.readers)}`,
      `sse-bare ${assertOpenFiles('sse-bare', pids.peer, HELD.readers)}`,
    ];
    console.log(`  open files allowed: ${limits.join(', ')}; VmRSS of ours ${describePid(pids.ours)}`);
    if (WARMUP_S > 0) {
      await heldReadersRound(targets.ours, pids.ours, readers, { readers: HELD_WARMUP_READERS, broadcasts: 1 });
      await heldReadersRound(targets.peer, pids.peer, readers, { readers: HELD_WARMUP_READERS, broadcasts: 1 });
    }
    const o = await heldReadersRound(targets.ours, pids.ours, readers, HELD);
    console.log(`  ours      ${fmtHeld(o)}`);
    const p = await heldReadersRound(targets.peer, pids.peer, readers, HELD);
    console.log(`  sse-bare  ${fmtHeld(p)}`);
    return summarizeHeld(HELD_SCENARIO, 'sse-bare', HELD_TARGETS, o, p);
  } finally {
    await readers.stop();
    await fetch(`${session}/end`, { method: 'POST', headers: auth, signal: AbortSignal.timeout(10_000) }).catch(() => {});
  }
}
