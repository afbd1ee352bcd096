// `npm run bench`: starts our server and the peers as child processes on loopback, registers one agent,
// then for each scenario alternates autocannon runs against ours and the peer (for the SSE fan-out,
// rounds of readers and pushes, charged in server CPU), and reports medians against the targets (tables
// on stdout, bench/results/latest.json).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fundWallet, provisionSubKey, register, registerProviderService, type Agent } from './accounts';
import { killAllNow, REPO_ROOT, stopAll } from './lib/children';
import { assertSameFraming, describePid, fanoutRound, SseReaders, type FanoutShape, type FanoutTarget } from './lib/fanout';
import { assertOpenFiles, heldReadersRound, type HeldShape } from './lib/held-readers';
import { FOOTPRINT_TARGETS, measureFootprint, variedLoad } from './lib/footprint';
import { load, preflight, stopLoad, type Sample, type Target } from './lib/load';
import { isFiltered, resolvePool, skillsPool, skillsSearch, type ResolveBody } from './lib/query-pool';
import { CPU_TICK_S, serverPid } from './lib/proc-cpu';
import { oursEnv, ourServer, restartOurs, startOurs, UNCACHED_ENV } from './ours';
import { purgeAgents } from './purge';
import { CATALOG_CAPABILITY, CATALOG_SERVICES, SLICE_CAPABILITY, SLICE_SERVICES, seedCatalog } from './seed';
import { CONNECTIONS, DATABASE_URL, DURATION_S, MODE, ONLY, ROUNDS, selected, SKIP, STARTUP_TIMEOUT_MS, WARMUP_S } from './settings';
import { startPeer } from './start-peer';
import {
  printTable,
  summarize,
  summarizeFanout,
  summarizeFootprint,
  summarizeHeld,
  writeReport,
  type AnyResult,
  type FanoutResult,
  type FanoutSample,
  type FanoutTargets,
  type HeldResult,
  type HeldSample,
  type HeldTargets,
  type ScenarioResult,
  type Targets,
} from './lib/report';

const RESULTS_FILE = path.join(REPO_ROOT, 'bench', 'results', 'latest.json');

/** The streaming fan-out: this many SSE readers of one session, at this rate, for BENCH_DURATION per round. */
const FANOUT_SCENARIO = 'sse_fanout_1000';
const FANOUT: Omit<FanoutShape, 'durationS'> = { readers: 1000, eventsPerS: 10, drainMs: 2000 };
const FANOUT_TARGETS: FanoutTargets = { delivered: 0.95, cpuRatio: 1.5 };

/** Held readers: this many SSE readers of one session open at once on our one instance, then single broadcasts. */
const HELD_SCENARIO = 'sse_readers_10000';
const HELD: HeldShape = { readers: 10_000, broadcasts: 5 };
const HELD_TARGETS: HeldTargets = { kibPerReader: 64, broadcastMs: 2000 };
/** Readers of the held scenario's unmeasured first round: the paths warmed up without growing the heap much. */
const HELD_WARMUP_READERS = 100;

/** The server's footprint (bench/lib/footprint.ts): start to healthy, idle memory, memory a minute after a load. */
const FOOTPRINT_SCENARIO = 'footprint';
/** The footprint's load: requests of varied kinds, most unlike any before (bench/lib/footprint.ts). */
const FOOTPRINT_REQUESTS = 6_000;

/** Resolve's cost against the catalog's size; seeded (a million services) and run only when selected, last. */
const CATALOG_SCENARIO = 'resolve_flat_1m';
/** The same with a reputation, price or language limit, run after it on the same catalog. */
const CATALOG_FILTERED_SCENARIO = 'resolve_flat_1m_filtered';

/** The uncached read scenarios, run together against our server restarted with its read cache off. */
const UNCACHED_SCENARIOS = ['resolve_uncached', 'skills_uncached'];

interface Scenario {
  name: string;
  ours: Target;
  peer: Target;
  /** What ours must reach against the peer; none of rps and p50 for a reference-only scenario. */
  targets: Targets;
  /** Ours and the peer must first give the same answers to every query of their (varied) pool. */
  sameAnswers?: true;
}

/** The commit measured, with "+dirty" when tracked files differ from it. */
function revision(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '+dirty' : ''}`;
  } catch {
    return 'unknown';
  }
}

let agent: Agent | undefined;
/** The agent selling the paid capability (the execute_paid_prepaid scenario pays it). */
let seller: Agent | undefined;
/** The catalog scenario's provider of a million services, once seeded. */
let catalogProviderIds: string[] = [];
let cleaning: Promise<void> | undefined;

/** Stops children, removes the temporary DATA_DIR and, on PostgreSQL, the benchmark's agents. Idempotent. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    stopLoad();
    await stopAll();
    if (ourServer.dataDir) fs.rmSync(ourServer.dataDir, { recursive: true, force: true });
    if (ourServer.peerDataDir) fs.rmSync(ourServer.peerDataDir, { recursive: true, force: true });
    const ids = [agent?.id, seller?.id, ...(ourServer.seeded?.providerIds ?? []), ...catalogProviderIds].filter((id): id is string => !!id);
    if (DATABASE_URL && ids.length) {
      try {
        const seconds = await purgeAgents(DATABASE_URL, ids);
        console.log(`deleted the benchmark's ${ids.length} agents and what they own, and vacuumed, in ${seconds.toFixed(1)} s`);
      } catch (err) {
        console.error(`could not delete the benchmark agents ${ids.join(', ')}: ${(err as Error).message}`);
      }
    }
  })();
  return cleaning;
}

/**
 * The catalog scenarios' precondition, only when they run: the million-service catalog, seeded with our
 * server stopped, which then starts with its read cache off (UNCACHED_ENV), so that every request reads the
 * catalog rather than a kept answer.
 */
async function seedCatalogAndRestart(url: string): Promise<void> {
  await restartOurs(url, async () => {
    const started = Date.now();
    catalogProviderIds = ourServer.seeded!.providerIds.map(() => randomUUID());
    await seedCatalog({ dataDir: ourServer.dataDir, databaseUrl: DATABASE_URL }, catalogProviderIds);
    console.log(
      `\nseeded ${CATALOG_SERVICES.toLocaleString('en')} more services (${(CATALOG_SERVICES / 100).toLocaleString('en')} offering ${CATALOG_CAPABILITY}, ` +
        `${SLICE_SERVICES / 100} of the first ${SLICE_SERVICES.toLocaleString('en')} offering ${SLICE_CAPABILITY}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, UNCACHED_ENV);
}

/** The capability the execute scenario runs, offered only by the benchmark's HTTPS provider. */
const EXECUTE_CAPABILITY = 'bench-execute';

/** The paid capability: the same provider peer, sold by another agent at one cent a call. */
const PAID_CAPABILITY = 'bench-execute-paid';
const PAID_CENTS = 1;
/** What the paid scenario's caller is funded with (USDC): far more than every call of a run costs. */
const PAID_FUNDS_USDC = 1_000_000;

/** What the scenarios need in our server's environment. */
const SCENARIO_ENV: NodeJS.ProcessEnv = {
  // The fan-out and held-readers scenarios hold thousands of readers of one agent's session (the default cap is 20).
  STREAMS_PER_AGENT: String(2 * HELD.readers),
  // The paid scenario's caller is funded once from the sandbox faucet, for every call of the run.
  SANDBOX_FAUCET_CAP: String(PAID_FUNDS_USDC),
};

function json(body: string): Record<string, any> {
  try {
    return JSON.parse(body) as Record<string, any>;
  } catch {
    return {};
  }
}

type PeerName = 'bare-http' | 'express-pg' | 'yoga' | 'provider' | 'proxy-floor' | 'sse-bare' | 'discovery-pg';

/** The same seed for every varied target: ours and the peer are sent the same draws. */
const VARIED_SEED = 3600;
const RESOLVE_POOL = resolvePool();
const SKILLS_POOL = skillsPool();

/** A resolve target drawing each request's body from `pool` (answers differ: only their status counts). */
function variedResolve(name: string, url: string, headers: Record<string, string>, pool: ResolveBody[]): Target {
  const bodies = pool.map((body) => JSON.stringify(body));
  return {
    name,
    url,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: bodies[0],
    stableBody: false,
    varied: { bodies, seed: VARIED_SEED },
    check: (status, body) => {
      const b = json(body);
      return status === 200 && typeof b.total === 'number' && Array.isArray(b.matches) ? undefined : 'not a ranking';
    },
  };
}

/** A marketplace target drawing each request's page from the skills pool. */
function variedSkills(name: string, base: string): Target {
  const paths = SKILLS_POOL.map((query) => `/api/v1/agent-skills/marketplace?${skillsSearch(query)}`);
  return {
    name,
    url: `${base}${paths[0]}`,
    method: 'GET',
    headers: {},
    stableBody: false,
    varied: { paths, seed: VARIED_SEED },
    check: (status, body) => {
      const b = json(body);
      return status === 200 && typeof b.total === 'number' && Array.isArray(b.skills) ? undefined : 'not a marketplace page';
    },
  };
}

/**
 * Before an uncached scenario counts, ours and the peer must give the same answer to every query of the
 * pool: the same entries (as sets for resolve, whose scores are exact at request time and may reorder ties
 * of the stored ones) and the same total, unless ours says it estimated it from a sample
 * (`total_is_estimate`, src/domain/discovery/resolve.ts TOTAL_SAMPLE): then within four standard errors
 * of a sample of that size, and the estimates' mean error is printed.
 */
async function assertSameAnswers(ours: Target, peer: Target): Promise<void> {
  const requests = ours.varied!.bodies ?? ours.varied!.paths!;
  const errors: number[] = [];
  const ask = async (target: Target, i: number, body = target.varied!.bodies?.[i]) => {
    const url = target.varied!.paths ? `${new URL(target.url).origin}${target.varied!.paths[i]}` : target.url;
    const res = await fetch(url, { method: target.method, headers: target.headers, body, signal: AbortSignal.timeout(10_000) });
    const answer = (await res.json()) as Record<string, any>;
    if (res.status !== 200) throw new Error(`${target.name} answered ${res.status} to ${requests[i]}: ${JSON.stringify(answer).slice(0, 300)}`);
    return answer;
  };
  for (const [i, request] of requests.entries()) {
    const [a, b] = [await ask(ours, i), await ask(peer, i)];
    const ids = (x: Record<string, any>) => ((x.matches ?? x.skills) as { service_id?: string; id?: string }[]).map((m) => m.service_id ?? m.id);
    const sameEntries = a.matches ? [...ids(a)].sort().join() === [...ids(b)].sort().join() : ids(a).join() === ids(b).join();
    let sameTotal = a.total === b.total;
    let bound = '';
    if (a.total_is_estimate) {
      // The capability's offers, from the same query without limits (its total is counted, never estimated).
      const { capability, prefer } = JSON.parse(request) as ResolveBody;
      const offers = (await ask(ours, i, JSON.stringify({ capability, prefer }))).total as number;
      const share = b.total / offers;
      const within = 4 * offers * Math.sqrt((share * (1 - share)) / 200) + 1;
      sameTotal = Math.abs(a.total - b.total) <= within;
      bound = ` (ours estimated, of ${offers} offers: at most ${within.toFixed(0)} off)`;
      errors.push(Math.abs(a.total - b.total) / Math.max(1, b.total));
    }
    if (!sameEntries || !sameTotal) {
      throw new Error(`ours and ${peer.name} differ on ${request}: totals ${a.total} / ${b.total}${bound}, entries ${ids(a).join(',')} / ${ids(b).join(',')}`);
    }
  }
  const estimated = errors.length ? ` (${errors.length} of ours' totals estimated, off by ${((100 * errors.reduce((x, y) => x + y, 0)) / errors.length).toFixed(1)}% on average, ${(100 * Math.max(...errors)).toFixed(0)}% at most)` : '';
  console.log(`  ours and ${peer.name} gave the same answers to all ${requests.length} queries of the pool${estimated}`);
}

function scenarios(me: Agent, subKey: string, ours: string, peers: Record<PeerName, string>): Scenario[] {
  const auth = { authorization: `Bearer ${me.masterKey}` };
  const graphqlHeaders = { ...auth, 'content-type': 'application/json', accept: 'application/json' };
  const meQuery = JSON.stringify({ query: '{ me { id } }' });
  const restProfile = (status: number, body: string) => {
    const b = json(body);
    return status === 200 && b.agent_id === me.id && b.name === me.name ? undefined : 'not the benchmark agent’s profile';
  };
  // The provider called directly with what our server sends it: the same shape and size.
  const directProvider: Target = {
    name: 'provider',
    url: `${peers.provider}/run`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ execution_id: '00000000-0000-4000-8000-000000000000', capability: EXECUTE_CAPABILITY, input: { text: 'hello' }, agent_id: me.id }),
    check: (status, body) => (status === 200 && json(body).echo?.text === 'hello' ? undefined : 'not the provider’s answer'),
  };
  const oursRest: Target = { name: 'ours', url: `${ours}/api/v1/agents/me`, method: 'GET', headers: auth, check: restProfile };
  /** Our POST /execute of `capability`, checked for a successful answer and by `also`. */
  const execute = (name: string, capability: string, also: (b: Record<string, any>) => string | undefined): Target => ({
    name,
    url: `${ours}/api/v1/execute`,
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ capability, input: { text: 'hello' } }),
    // Every answer carries its own execution id and latency.
    stableBody: false,
    check: (status, body) => {
      const b = json(body);
      return status === 200 && b.status === 'success' && b.result?.echo?.text === 'hello' ? also(b) : 'not a successful execution';
    },
  });
  return [
    {
      name: 'rest_agents_me',
      ours: oursRest,
      peer: { name: 'express-pg', url: `${peers['express-pg']}/api/v1/agents/me`, method: 'GET', headers: auth, check: restProfile },
      targets: { rps: 0.85 },
    },
    {
      name: 'graphql_me',
      ours: {
        name: 'ours',
        url: `${ours}/graphql`,
        method: 'POST',
        headers: graphqlHeaders,
        body: meQuery,
        // Ours answers the Relay global id, base64 of "Agent:<uuid>".
        check: (_s, body) => {
          const b = json(body);
          const id = b.data?.me?.id;
          return !b.errors && typeof id === 'string' && Buffer.from(id, 'base64').toString().endsWith(me.id) ? undefined : 'not the benchmark agent';
        },
      },
      peer: {
        name: 'yoga',
        url: `${peers.yoga}/graphql`,
        method: 'POST',
        headers: graphqlHeaders,
        body: meQuery,
        check: (_s, body) => {
          const b = json(body);
          return !b.errors && b.data?.me?.id === me.id ? undefined : 'not the benchmark agent';
        },
      },
      targets: { rps: 1.0 },
    },
    {
      name: 'keys_verify',
      ours: {
        name: 'ours',
        url: `${ours}/api/v1/keys/verify`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: subKey }),
        check: (status, body) => (status === 200 && json(body).valid === true && json(body).agent_id === me.id ? undefined : 'not a valid verification'),
      },
      peer: {
        name: 'express-pg',
        url: `${peers['express-pg']}/api/v1/keys/verify`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: subKey }),
        check: (status, body) => (status === 200 && json(body).valid === true && json(body).agent_id === me.id ? undefined : 'not a valid verification'),
      },
      targets: { rps: 0.9 },
    },
    {
      // Against our own GET /agents/me in the same run: each request one of a thousand distinct rankings
      // (101 capabilities of 100,000 services, each preference, three in five with limits), drawn at
      // random, with the read cache as it runs by default.
      name: 'resolve_varied',
      ours: variedResolve('ours', `${ours}/api/v1/resolve`, auth, RESOLVE_POOL),
      peer: { ...oursRest, name: 'ours /agents/me' },
      targets: { rps: 0.5, p99: 3 },
    },
    {
      // The same against a marketplace page each request: a thousand distinct pages of 100,000 published
      // skills (by runtime, category, both or neither, most installed or newest first, at a few offsets).
      name: 'skills_varied',
      ours: variedSkills('ours', ours),
      peer: { ...oursRest, name: 'ours /agents/me' },
      targets: { rps: 0.5, p99: 3 },
    },
    {
      // The resolve pool against our server with its read cache off, and a hand-written Express route
      // over the same table (bench/peers/discovery-pg.ts). Run apart, after a restart (UNCACHED_ENV).
      name: 'resolve_uncached',
      ours: variedResolve('ours', `${ours}/api/v1/resolve`, auth, RESOLVE_POOL),
      peer: variedResolve('discovery-pg', `${peers['discovery-pg']}/api/v1/resolve`, auth, RESOLVE_POOL),
      targets: { rps: 1.0, p99: 1.5 },
      sameAnswers: true,
    },
    {
      name: 'skills_uncached',
      ours: variedSkills('ours', ours),
      peer: variedSkills('discovery-pg', peers['discovery-pg']),
      targets: { rps: 1.0, p99: 1.5 },
      sameAnswers: true,
    },
    {
      // The marketplace in front of a provider that answers in 20 ms, against calling the provider directly:
      // ours authenticates, ranks the capability's providers, signs and sends the call over its pooled
      // HTTPS client, and records the execution, attempt, transaction and event before answering.
      name: 'execute_20ms_provider',
      ours: execute('ours', EXECUTE_CAPABILITY, () => undefined),
      peer: directProvider,
      targets: { p50: 1.15 },
    },
    {
      // Reference for the line above: the floor (forward the call, commit one row, answer) against the
      // same direct call, in the same run. Ours' p50 ratio minus this one is the marketplace's own cost.
      name: 'execute_floor_reference',
      ours: { ...directProvider, name: 'proxy-floor', url: `${peers['proxy-floor']}/` },
      peer: directProvider,
      targets: {},
    },
    {
      // A paid call settled from the caller's prepaid balance, against the same call of a free capability
      // of the same provider in the same run: the price held on the caller's wallet before the provider is
      // called, then charged, the provider paid its share and the marketplace its fee, with the record.
      name: 'execute_paid_prepaid',
      ours: execute('ours', PAID_CAPABILITY, (b) => (b.payment?.method === 'prepaid' && b.payment?.charged_cents === PAID_CENTS ? undefined : 'not paid from the balance')),
      peer: execute('ours unpaid', EXECUTE_CAPABILITY, (b) => (b.payment === null ? undefined : 'not free')),
      targets: { p50: 1.2 },
    },
    {
      name: 'bare_http_reference',
      ours: { ...oursRest },
      peer: { name: 'bare-http', url: `${peers['bare-http']}/`, method: 'GET', headers: auth, check: () => undefined },
      targets: {},
    },
  ];
}

const fmt = (s: Sample) =>
  `${s.rps.toFixed(0).padStart(6)} rps  p50 ${s.p50.toFixed(1).padStart(6)} ms  p99 ${s.p99.toFixed(1).padStart(6)} ms  cpu ${s.cpu_us === null ? '-' : `${s.cpu_us} µs`}${s.db_cpu_us === null ? '' : ` + db ${s.db_cpu_us} µs`}`;

async function runScenario(s: Scenario): Promise<ScenarioResult> {
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

const fmtFanout = (s: FanoutSample) =>
  `${(s.delivered * 100).toFixed(1).padStart(5)}%  CPU ${s.cpu_per_event_us.toFixed(2).padStart(6)} µs/event (${s.cpu_s.toFixed(2)} s / ${s.window_s.toFixed(1)} s)` +
  `  latency p50 ${s.latency_p50_ms?.toFixed(1) ?? '-'} ms p99 ${s.latency_p99_ms?.toFixed(1) ?? '-'} ms  push p50 ${s.push_p50_ms.toFixed(1)} ms`;

/** A new session of ours and the bare SSE hub, as fan-out targets: their streams and pushes, with the agent's key. */
async function sessionTargets(me: Agent, ours: string, peer: string): Promise<{ auth: Record<string, string>; session: string; targets: Record<'ours' | 'peer', FanoutTarget> }> {
  const auth = { authorization: `Bearer ${me.masterKey}` };
  const session = `${ours}/api/v1/streaming/sessions/${await openSession(ours, me)}`;
  return {
    auth,
    session,
    targets: {
      ours: { name: 'ours', eventsUrl: `${session}/events`, pushUrl: `${session}/push`, headers: auth },
      peer: { name: 'sse-bare', eventsUrl: `${peer}/events`, pushUrl: `${peer}/push`, headers: auth },
    },
  };
}

/** Opens ours' session for the fan-out; readers and pushes use the benchmark agent's master key. */
async function openSession(url: string, me: Agent): Promise<string> {
  const res = await fetch(`${url}/api/v1/streaming/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${me.masterKey}` },
    body: JSON.stringify({ capabilityId: 'summarize' }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { id?: string; status?: string };
  if (res.status !== 201 || !body.id || body.status !== 'active') throw new Error(`opening a streaming session answered ${res.status}: ${JSON.stringify(body)}`);
  return body.id;
}

/**
 * The fan-out: rounds alternating between ours (one session, its SSE endpoint and push) and the bare
 * node:http SSE peer, each with FANOUT.readers readers connected before pushing at FANOUT.eventsPerS.
 */
async function runFanoutScenario(me: Agent, ours: string, peer: string): Promise<FanoutResult> {
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

/**
 * Resolve against the catalog's size, in the same run on the same server: a capability offered by 1% of a
 * million services (10,000 offers) against one offered by 1% of a 10,000-service slice of them (100
 * offers), both asked for the same first 10 with the same preference, their offers priced and scored by
 * the same formulas. Work proportional to `limit` (the first entries of an index, a total kept per
 * capability) costs the same for both; ranking or counting the matches would cost a hundred times more
 * for the first. What grows with the whole table (index depth, cache) is shared by both sides here.
 */
function catalogScenario(me: Agent, ours: string): Scenario {
  const resolveOf = (name: string, capability: string, offers: number): Target => ({
    name,
    url: `${ours}/api/v1/resolve`,
    method: 'POST',
    headers: { authorization: `Bearer ${me.masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ capability, prefer: 'balanced' }),
    stableBody: false,
    check: (status, body) => {
      const b = json(body);
      return status === 200 && b.total === offers && b.matches?.length === 10 ? undefined : `expected 10 of ${offers} matches`;
    },
  });
  return {
    name: CATALOG_SCENARIO,
    ours: resolveOf('ours, 1M', CATALOG_CAPABILITY, CATALOG_SERVICES / 100),
    peer: resolveOf('ours, 10k', SLICE_CAPABILITY, SLICE_SERVICES / 100),
    targets: { p50: 1.3 },
  };
}

/**
 * The catalog scenario with limits: the resolve pool's filtered queries (a reputation, price or language
 * limit, or several, each preference), asked of the million's capability on one side and of the slice's
 * on the other, in the same order. Each side's matches are priced, owned and described by the same
 * formulas, so a limit keeps the same share of either; what must not grow is the work per request.
 */
function catalogFilteredScenario(me: Agent, ours: string): Scenario {
  const auth = { authorization: `Bearer ${me.masterKey}` };
  const limits = RESOLVE_POOL.filter(isFiltered).map(({ capability: _capability, ...limits }) => limits);
  const pool = (capability: string) => [...new Map(limits.map((l) => [JSON.stringify(l), { capability, ...l }])).values()];
  return {
    name: CATALOG_FILTERED_SCENARIO,
    ours: variedResolve('ours, 1M', `${ours}/api/v1/resolve`, auth, pool(CATALOG_CAPABILITY)),
    peer: variedResolve('ours, 10k', `${ours}/api/v1/resolve`, auth, pool(SLICE_CAPABILITY)),
    targets: { p50: 1.3 },
  };
}

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
async function runHeldScenario(me: Agent, ours: string, peer: string): Promise<HeldResult> {
  console.log(`\n${HELD_SCENARIO}: ${HELD.readers} SSE readers of one session held on our one instance, ${HELD.broadcasts} broadcasts (sse-bare for reference)`);
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

async function main(): Promise<void> {
  // The provider peer's certificate is signed by the test CA; ours (a child) and autocannon (here) must trust it.
  if (!process.env.NODE_EXTRA_CA_CERTS) throw new Error('run the benchmark with `npm run bench` (it sets NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem)');
  console.log(
    `database: ${MODE}${DATABASE_URL ? ` (${new URL(DATABASE_URL).host}${new URL(DATABASE_URL).pathname})` : ' (server: temporary DATA_DIR; peers: in-memory PGlite each)'}`,
  );
  const rev = revision();
  console.log(`revision ${rev}; rounds ${ROUNDS} × ${DURATION_S} s, warm-up ${WARMUP_S} s, ${CONNECTIONS} connections, ${os.cpus().length} CPUs, node ${process.version}`);
  const started = Date.now();
  const ours = await startOurs(SCENARIO_ENV);
  agent = await register(ours.url);
  const subKey = await provisionSubKey(ours.url, agent, ourServer.seeded!.verifyServiceKey);
  const [bare, expressPg, yoga, provider, sseBare, discoveryPg] = await Promise.all(
    ['bare-http', 'express-pg', 'yoga', 'provider', 'sse-bare', 'discovery-pg'].map((name) => startPeer(name, agent!, subKey)),
  );
  await registerProviderService(ours.url, agent, `${provider}/run`, EXECUTE_CAPABILITY);
  seller = await register(ours.url);
  await registerProviderService(ours.url, seller, `${provider}/run`, PAID_CAPABILITY, PAID_CENTS);
  await fundWallet(ours.url, agent, PAID_FUNDS_USDC);
  const floor = await startPeer('proxy-floor', agent, subKey, { BENCH_PROVIDER_URL: provider });
  console.log(`started ours and 7 peers in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const results: AnyResult[] = [];
  const all = scenarios(agent, subKey, ours.url, { 'bare-http': bare, 'express-pg': expressPg, yoga, provider, 'proxy-floor': floor, 'sse-bare': sseBare, 'discovery-pg': discoveryPg });
  const known = [...all.map((s) => s.name), FANOUT_SCENARIO, HELD_SCENARIO, FOOTPRINT_SCENARIO, CATALOG_SCENARIO, CATALOG_FILTERED_SCENARIO];
  const unknown = [...(ONLY ?? []), ...SKIP].filter((name) => !known.includes(name));
  if (unknown.length) throw new Error(`BENCH_ONLY or BENCH_SKIP names no scenario ${unknown.join(', ')} (known: ${known.join(', ')})`);
  for (const s of all) {
    if (selected(s.name) && !UNCACHED_SCENARIOS.includes(s.name)) results.push(await runScenario(s));
  }
  const uncached = all.filter((s) => selected(s.name) && UNCACHED_SCENARIOS.includes(s.name));
  if (uncached.length) {
    await restartOurs(ours.url, undefined, UNCACHED_ENV);
    console.log('\nour server restarted with READ_CACHE_MS=0 for the uncached scenarios');
    for (const s of uncached) results.push(await runScenario(s));
    await restartOurs(ours.url);
  }
  if (selected(FANOUT_SCENARIO)) results.push(await runFanoutScenario(agent, ours.url, sseBare));
  if (selected(HELD_SCENARIO)) {
    // On a freshly started server: garbage the scenarios before it left behind would otherwise be collected
    // while the readers connect, and the growth per reader would read low (even negative).
    await restartOurs(ours.url);
    results.push(await runHeldScenario(agent, ours.url, sseBare));
  }
  if (selected(FOOTPRINT_SCENARIO)) {
    // Our server stopped (an embedded data directory has one process), then started twice by
    // measureFootprint on the run's database as it now is: the second start is timed, its idle memory read,
    // then its memory a minute after a varied load; then ours again for what follows.
    await restartOurs(ours.url, async () => {
      const f = await measureFootprint({ env: oursEnv(), load: (url) => variedLoad(url, FOOTPRINT_REQUESTS) });
      results.push(summarizeFootprint(FOOTPRINT_SCENARIO, { ...FOOTPRINT_TARGETS, idleMiB: FOOTPRINT_TARGETS.idleMiB[MODE] }, f));
    });
  }
  // Last: it adds a million services to the database, which every scenario after it would also see.
  if (selected(CATALOG_SCENARIO) || selected(CATALOG_FILTERED_SCENARIO)) {
    await seedCatalogAndRestart(ours.url);
    if (selected(CATALOG_SCENARIO)) results.push(await runScenario(catalogScenario(agent, ours.url)));
    if (selected(CATALOG_FILTERED_SCENARIO)) results.push(await runScenario(catalogFilteredScenario(agent, ours.url)));
  }

  console.log('');
  printTable(results);
  writeReport(RESULTS_FILE, {
    scenarios: results,
    database: MODE,
    rounds: ROUNDS,
    duration_s: DURATION_S,
    connections: CONNECTIONS,
    warmup_s: WARMUP_S,
    node: process.version,
    revision: rev,
    at: new Date().toISOString(),
  });
  console.log(`\nwrote ${path.relative(process.cwd(), RESULTS_FILE)} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

// Everything is bounded: start-up, then per load scenario two warm-ups and 2 × ROUNDS runs, plus slack;
// the fan-out has as many rounds (warm-up included) on each side, each connecting its readers (45 s
// allowed), pushing, draining and closing, plus the reader process's start.
// The uncached block adds two restarts and the comparison of every pool query on both sides.
const loadBudgetMs = 11 * (2 * WARMUP_S + 2 * ROUNDS * DURATION_S + 4 * 12) * 1000 + 2 * STARTUP_TIMEOUT_MS + 2 * 60_000;
const fanoutBudgetMs = (2 * (ROUNDS + (WARMUP_S > 0 ? 1 : 0)) * (DURATION_S + 45 + FANOUT.drainMs / 1000) + 60) * 1000;
// Held readers: two rounds of connecting (at most 3 minutes each), settling and broadcasting, plus warm-ups.
const heldBudgetMs = selected(HELD_SCENARIO) ? (2 * (180 + 2 + HELD.broadcasts * 10) + 60) * 1000 + STARTUP_TIMEOUT_MS : 0;
// The catalog: seeding a million services (allowed 20 minutes), a restart, and one load scenario.
const catalogBudgetMs =
  selected(CATALOG_SCENARIO) || selected(CATALOG_FILTERED_SCENARIO) ? 1200_000 + STARTUP_TIMEOUT_MS + 2 * (2 * WARMUP_S + 2 * ROUNDS * DURATION_S + 4 * 12) * 1000 : 0;
// The footprint: two starts, 10 s idle, the load (a minute at most) and a minute after it.
const footprintBudgetMs = selected(FOOTPRINT_SCENARIO) ? 3 * STARTUP_TIMEOUT_MS + 150_000 : 0;
const budgetMs = 3 * STARTUP_TIMEOUT_MS + footprintBudgetMs + loadBudgetMs + fanoutBudgetMs + heldBudgetMs + catalogBudgetMs;
const watchdog = setTimeout(() => {
  console.error(`\nFAILED: the benchmark did not finish within ${Math.round(budgetMs / 1000)} s`);
  void cleanup().finally(() => process.exit(1));
}, budgetMs);

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping`);
    void cleanup().finally(() => process.exit(code));
  });
}
process.on('exit', killAllNow);

main().then(
  async () => {
    clearTimeout(watchdog);
    await cleanup();
    process.exit(0);
  },
  async (err: unknown) => {
    clearTimeout(watchdog);
    console.error(`\nFAILED: ${err instanceof Error ? err.message : String(err)}`);
    const output = ourServer.child?.recentOutput();
    if (output) console.error(`\nour server's last output:\n${output}`);
    await cleanup();
    process.exit(1);
  },
);
