// A load scenario (ours against a peer, each an autocannon target) and how it runs: both checked, warmed up,
// then rounds alternating between them, summarized as medians against the scenario's targets.
import type { Agent } from '../accounts';
import { load, preflight, type Sample, type Target } from '../lib/load';
import { summarize, type ScenarioResult, type Targets } from '../lib/report';
import { CONNECTIONS, DURATION_S, ROUNDS, WARMUP_S } from '../settings';
import { assertSameAnswers } from './same-answers';

export type PeerName = 'bare-http' | 'express-pg' | 'yoga' | 'provider' | 'proxy-floor' | 'sse-bare' | 'discovery-pg';

/** What the load scenarios are built from: the benchmark agent, its hot sub-key, our server's and the peers' base URLs. */
export interface ScenarioContext {
  me: Agent;
  subKey: string;
  ours: string;
  peers: Record<PeerName, string>;
  /** The key of the service the execute scenarios call. */
  executeService: string;
}

export interface Scenario {
  name: string;
  ours: Target;
  peer: Target;
  /** What ours must reach against the peer; none of rps and p50 for a reference-only scenario. */
  targets: Targets;
  /** Ours and the peer must first give the same answers to every query of their (varied) pool. */
  sameAnswers?: true;
}

/** An answer's JSON body, or an empty object when it is not JSON (a target's check then fails). */
export function json(body: string): Record<string, any> {
  try {
    return JSON.parse(body) as Record<string, any>;
  } catch {
    return {};
  }
}

const fmt = (s: Sample) =>
  `${s.rps.toFixed(0).padStart(6)} rps  p50 ${s.p50.toFixed(1).padStart(6)} ms  p99 ${s.p99.toFixed(1).padStart(6)} ms  cpu ${s.cpu_us === null ? '-' : `${s.cpu_us} µs`}${s.db_cpu_us === null ? '' : ` + db ${s.db_cpu_us} µs`}`;

export async function runScenario(s: Scenario): Promise<ScenarioResult> {
  console.log(`\n${s.name}: ours ${s.ours.method} ${new URL(s.ours.url).pathname}${s.ours.varied ? ' (a pool of queries)' : ''} vs ${s.peer.name}`);
  await preflight(s.ours);
  await preflight(s.peer);
  if (s.sameAnswers) await assertSameAnswers(s.ours, s.peer);
  if (WARMUP_S > 0) {
    await load(s.ours, WARMUP_S, CONNECTIONS);
    await load(s.peer, WARMUP_S, CONNECTIONS);
  }
  const rounds: { ours: Sample; peer: Sample }[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const ours = await load(s.ours, DURATION_S, CONNECTIONS);
    const peer = await load(s.peer, DURATION_S, CONNECTIONS);
    console.log(`  round ${r}/${ROUNDS}  ours ${fmt(ours)}  |  ${s.peer.name.padEnd(10)} ${fmt(peer)}`);
    rounds.push({ ours, peer });
  }
  return summarize(s.name, s.peer.name, s.targets, rounds);
}
