// The SSE fan-out: a thousand readers of one session of ours against the bare node:http SSE hub, rounds of
// readers and pushes charged in server CPU per event delivered.
import type { Agent } from '../accounts';
import { assertSameFraming, describePid, fanoutRound, SseReaders, type FanoutShape } from '../lib/fanout';
import { CPU_TICK_S, serverPid } from '../lib/proc-cpu';
import { summarizeFanout, type FanoutResult, type FanoutSample, type FanoutTargets } from '../lib/report';
import { ourServer } from '../ours';
import { DURATION_S, ROUNDS, WARMUP_S } from '../settings';
import { sessionTargets } from './sessions';

/** The streaming fan-out: this many SSE readers of one session, at this rate, for BENCH_DURATION per round. */
export const FANOUT_SCENARIO = 'sse_fanout_1000';
export const FANOUT: Omit<FanoutShape, 'durationS'> = { readers: 1000, eventsPerS: 10, drainMs: 2000 };
const FANOUT_TARGETS: FanoutTargets = { delivered: 0.95, cpuRatio: 1.5 };

const fmtFanout = (s: FanoutSample) =>
  `${(s.delivered * 100).toFixed(1).padStart(5)}%  CPU ${s.cpu_per_event_us.toFixed(2).padStart(6)} µs/event (${s.cpu_s.toFixed(2)} s / ${s.window_s.toFixed(1)} s)` +
  `  latency p50 ${s.latency_p50_ms?.toFixed(1) ?? '-'} ms p99 ${s.latency_p99_ms?.toFixed(1) ?? '-'} ms  push p50 ${s.push_p50_ms.toFixed(1)} ms`;

/**
 * The fan-out: rounds alternating between ours (one session, its SSE endpoint and push) and the bare
 * node:http SSE peer, each with FANOUT.readers readers connected before pushing at FANOUT.eventsPerS.
 */
export async function runFanoutScenario(me: Agent, ours: string, peer: string): Promise<FanoutResult> {
  console.log(`\n${FANOUT_SCENARIO}: ${FANOUT.readers} SSE readers of one session, ${FANOUT.eventsPerS} events/s, ours vs sse-bare`);
  const { auth, session, targets } = await sessionTargets(me, ours, peer);
  // The process holding the listening socket is the one charged (spawnTs runs node itself, but a launcher
  // in between would otherwise be measured instead of the server).
  const pids = { ours: serverPid(ours), peer: serverPid(peer) };
  const oursChild = ourServer.child;
  if (oursChild && pids.ours !== oursChild.proc.pid) console.log(`  note: ours listens from pid ${pids.ours}, not the spawned pid ${oursChild.proc.pid}`);
  console.log(`  CPU (utime+stime, ${CPU_TICK_S * 1000} ms ticks) of ours ${describePid(pids.ours)}; sse-bare ${describePid(pids.peer)}`);
  const readers = await SseReaders.start({ ...process.env });
  const rounds: { ours: FanoutSample; peer: FanoutSample }[] = [];
  try {
    if (WARMUP_S > 0) {
      const o = await fanoutRound(targets.ours, pids.ours, readers, { ...FANOUT, durationS: WARMUP_S });
      const p = await fanoutRound(targets.peer, pids.peer, readers, { ...FANOUT, durationS: WARMUP_S });
      assertSameFraming({ name: 'ours', message: o.message }, { name: 'sse-bare', message: p.message });
    }
    for (let r = 1; r <= ROUNDS; r++) {
      const { sample: o, message } = await fanoutRound(targets.ours, pids.ours, readers, { ...FANOUT, durationS: DURATION_S });
      const { sample: p, message: peerMessage } = await fanoutRound(targets.peer, pids.peer, readers, { ...FANOUT, durationS: DURATION_S });
      if (r === 1) assertSameFraming({ name: 'ours', message }, { name: 'sse-bare', message: peerMessage });
      console.log(`  round ${r}/${ROUNDS}  ours ${fmtFanout(o)}\n${' '.repeat(15)}sse-bare ${fmtFanout(p)}`);
      rounds.push({ ours: o, peer: p });
    }
  } finally {
    await readers.stop();
    await fetch(`${session}/end`, { method: 'POST', headers: auth, signal: AbortSignal.timeout(10_000) }).catch(() => {});
  }
  return summarizeFanout(FANOUT_SCENARIO, 'sse-bare', { readers: FANOUT.readers, eventsPerS: FANOUT.eventsPerS }, FANOUT_TARGETS, rounds);
}
