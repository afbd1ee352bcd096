// `npm run bench`: starts our server and three peers as child processes on loopback, registers one
// agent, then for each scenario alternates autocannon runs against ours and the peer, and reports medians
// against the targets (table on stdout, bench/results/latest.json).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, killAllNow, REPO_ROOT, spawnTs, stopAll, type Child } from './lib/children';
import { load, preflight, stopLoad, type Sample, type Target } from './lib/load';
import { OFFERING, RESOLVE_CAPABILITY, SERVICES, seedProviders, type Seeded } from './seed';
import { printTable, summarize, writeReport, type ScenarioResult, type Targets } from './lib/report';

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

const DURATION_S = envInt('BENCH_DURATION', 5, 1, 120);
const ROUNDS = envInt('BENCH_ROUNDS', 3, 1, 20);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10, 1, 1000);
const WARMUP_S = envInt('BENCH_WARMUP', 2, 0, 60);
const DATABASE_URL = process.env.DATABASE_URL || undefined;
const MODE: 'pglite' | 'postgres' = DATABASE_URL ? 'postgres' : 'pglite';
const RESULTS_FILE = path.join(REPO_ROOT, 'bench', 'results', 'latest.json');
const STARTUP_TIMEOUT_MS = 90_000;

interface Agent {
  id: string;
  agentKey: string;
  name: string;
  description: string;
  ownerEmail: string;
  masterKey: string;
}

interface Scenario {
  name: string;
  ours: Target;
  peer: Target;
  /** What ours must reach against the peer; none of rps and p50 for a reference-only scenario. */
  targets: Targets;
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

let dataDir: string | undefined;
let agent: Agent | undefined;
let oursChild: Child | undefined;
let seeded: Seeded | undefined;
let cleaning: Promise<void> | undefined;

/** Stops children, removes the temporary DATA_DIR and, on PostgreSQL, the benchmark's agent. Idempotent. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    stopLoad();
    await stopAll();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    const ids = [agent?.id, seeded?.providerId].filter((id): id is string => !!id);
    if (DATABASE_URL && ids.length) {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      try {
        await client.connect();
        await client.query('DELETE FROM agents WHERE id = ANY($1::uuid[])', [ids]);
      } catch (err) {
        console.error(`could not delete the benchmark agents ${ids.join(', ')}: ${(err as Error).message}`);
      } finally {
        await client.end().catch(() => {});
      }
    }
  })();
  return cleaning;
}

async function startOurs(): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_DISABLED: '1', LOG_LEVEL: 'warn' };
  // The execute scenario's provider listens on loopback, which the SSRF guard refuses otherwise.
  env.OUTBOUND_ALLOW_PRIVATE = '1';
  if (DATABASE_URL) env.DATABASE_URL = DATABASE_URL;
  else {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marketplace-bench-'));
    env.DATA_DIR = dataDir;
    delete env.DATABASE_URL;
  }
  const seedStarted = Date.now();
  seeded = await seedProviders({ dataDir, databaseUrl: DATABASE_URL });
  console.log(`seeded ${SERVICES} services (${OFFERING} offering ${RESOLVE_CAPABILITY}) in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
  const child = spawnTs('ours', 'src/server.ts', env);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (!child.running) throw new Error(`our server exited during start-up\n${child.recentOutput()}`);
    if (Date.now() > deadline) throw new Error(`our server was not healthy within ${STARTUP_TIMEOUT_MS} ms\n${child.recentOutput()}`);
    const status = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { child, url };
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function register(url: string): Promise<Agent> {
  const input = {
    name: `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    description: 'Benchmark agent (npm run bench)',
    ownerEmail: 'bench@example.com',
  };
  const res = await fetch(`${url}/api/v1/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { agent_id?: string; agent_key?: string; master_key?: string };
  if (res.status !== 201 || !body.master_key || !body.agent_id || !body.agent_key) {
    throw new Error(`registration answered ${res.status}: ${JSON.stringify(body).replace(/key_master_\w+/g, 'key_master_[REDACTED]')}`);
  }
  return { id: body.agent_id, agentKey: body.agent_key, name: input.name, description: input.description, ownerEmail: input.ownerEmail, masterKey: body.master_key };
}

/** Provisions the benchmark's hot sub-key on the seeded verify service. */
async function provisionSubKey(url: string, me: Agent, serviceKey: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/keys/provision/${serviceKey}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${me.masterKey}` },
    body: '{}',
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { sub_key?: string };
  if (res.status !== 201 || !body.sub_key) throw new Error(`provisioning a sub-key answered ${res.status}`);
  return body.sub_key;
}

/** The capability the execute scenario runs, offered only by the benchmark's HTTPS provider. */
const EXECUTE_CAPABILITY = 'bench-execute';

/** Registers the benchmark agent's service for EXECUTE_CAPABILITY, answered by the provider peer. */
async function registerProviderService(url: string, me: Agent, endpoint: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/services/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${me.masterKey}` },
    body: JSON.stringify({
      name: 'Bench provider',
      description: 'The execute scenario’s provider: HTTPS on loopback, answering after 20 ms',
      endpoint,
      capabilities: [EXECUTE_CAPABILITY],
      pricing_model: 'free',
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { service_key?: string };
  if (res.status !== 201 || !body.service_key) throw new Error(`registering the provider's service answered ${res.status}: ${JSON.stringify(body)}`);
  return body.service_key;
}

/** Starts a peer and resolves with its base URL once it has announced its port. */
async function startPeer(name: string, me: Agent, subKey: string, extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...extra,
    BENCH_SUB_KEY: subKey,
    BENCH_SERVICE_KEY: seeded!.verifyServiceKey,
    BENCH_AGENT_ID: me.id,
    BENCH_AGENT_KEY: me.agentKey,
    BENCH_AGENT_NAME: me.name,
    BENCH_AGENT_DESCRIPTION: me.description,
    BENCH_OWNER_EMAIL: me.ownerEmail,
    BENCH_MASTER_KEY: me.masterKey,
  };
  if (DATABASE_URL) env.DATABASE_URL = DATABASE_URL;
  else delete env.DATABASE_URL;
  const child = spawnTs(name, `bench/peers/${name}.ts`, env);
  const port = await child.waitForLine((line) => {
    if (!line.startsWith('{"ready"')) return undefined;
    return (JSON.parse(line) as { port: number }).port;
  }, STARTUP_TIMEOUT_MS);
  return `${name === 'provider' ? 'https' : 'http'}://127.0.0.1:${port}`;
}

function json(body: string): Record<string, any> {
  try {
    return JSON.parse(body) as Record<string, any>;
  } catch {
    return {};
  }
}

type PeerName = 'bare-http' | 'express-pg' | 'yoga' | 'provider' | 'proxy-floor';

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
      // Against our own GET /agents/me in the same run: ranking 1,000 of 100,000 services per request.
      name: 'resolve_100k',
      ours: {
        name: 'ours',
        url: `${ours}/api/v1/resolve`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ capability: RESOLVE_CAPABILITY, prefer: 'balanced' }),
        // resolution_time_ms and the freshness factor change from one answer to the next.
        stableBody: false,
        check: (status, body) => {
          const b = json(body);
          return status === 200 && b.total === OFFERING && b.matches?.length === 10 ? undefined : `expected 10 of ${OFFERING} matches`;
        },
      },
      peer: { ...oursRest, name: 'ours /agents/me' },
      targets: { rps: 0.5, p99: 3 },
    },
    {
      // The marketplace in front of a provider that answers in 20 ms, against calling the provider directly:
      // ours authenticates, ranks the capability's providers, signs and sends the call over its pooled
      // HTTPS client, and records the execution, attempt, transaction and event before answering.
      name: 'execute_20ms_provider',
      ours: {
        name: 'ours',
        url: `${ours}/api/v1/execute`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ capability: EXECUTE_CAPABILITY, input: { text: 'hello' } }),
        // Every answer carries its own execution id and latency.
        stableBody: false,
        check: (status, body) => {
          const b = json(body);
          return status === 200 && b.status === 'success' && b.result?.echo?.text === 'hello' ? undefined : 'not a successful execution';
        },
      },
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
      name: 'bare_http_reference',
      ours: { ...oursRest },
      peer: { name: 'bare-http', url: `${peers['bare-http']}/`, method: 'GET', headers: auth, check: () => undefined },
      targets: {},
    },
  ];
}

const fmt = (s: Sample) => `${s.rps.toFixed(0).padStart(6)} rps  p50 ${s.p50.toFixed(1).padStart(6)} ms  p99 ${s.p99.toFixed(1).padStart(6)} ms`;

async function runScenario(s: Scenario): Promise<ScenarioResult> {
  console.log(`\n${s.name}: ours ${s.ours.method} ${new URL(s.ours.url).pathname} vs ${s.peer.name}`);
  await preflight(s.ours);
  await preflight(s.peer);
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

async function main(): Promise<void> {
  // The provider peer's certificate is signed by the test CA; ours (a child) and autocannon (here) must trust it.
  if (!process.env.NODE_EXTRA_CA_CERTS) throw new Error('run the benchmark with `npm run bench` (it sets NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem)');
  console.log(
    `database: ${MODE}${DATABASE_URL ? ` (${new URL(DATABASE_URL).host}${new URL(DATABASE_URL).pathname})` : ' (server: temporary DATA_DIR; peers: in-memory PGlite each)'}`,
  );
  const rev = revision();
  console.log(`revision ${rev}; rounds ${ROUNDS} × ${DURATION_S} s, warm-up ${WARMUP_S} s, ${CONNECTIONS} connections, ${os.cpus().length} CPUs, node ${process.version}`);
  const started = Date.now();
  const ours = await startOurs();
  oursChild = ours.child;
  agent = await register(ours.url);
  const subKey = await provisionSubKey(ours.url, agent, seeded!.verifyServiceKey);
  const [bare, expressPg, yoga, provider] = await Promise.all(['bare-http', 'express-pg', 'yoga', 'provider'].map((name) => startPeer(name, agent!, subKey)));
  await registerProviderService(ours.url, agent, `${provider}/run`);
  const floor = await startPeer('proxy-floor', agent, subKey, { BENCH_PROVIDER_URL: provider });
  console.log(`started ours and 5 peers in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const results: ScenarioResult[] = [];
  // BENCH_ONLY=name,name runs a subset (for working on one scenario).
  const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
  for (const s of scenarios(agent, subKey, ours.url, { 'bare-http': bare, 'express-pg': expressPg, yoga, provider, 'proxy-floor': floor })) {
    if (!only || only.includes(s.name)) results.push(await runScenario(s));
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

// Everything is bounded: start-up, then per scenario two warm-ups and 2 × ROUNDS runs, plus slack.
const budgetMs = 3 * STARTUP_TIMEOUT_MS + 7 * (2 * WARMUP_S + 2 * ROUNDS * DURATION_S + 4 * 12) * 1000;
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
    const output = oursChild?.recentOutput();
    if (output) console.error(`\nour server's last output:\n${output}`);
    await cleanup();
    process.exit(1);
  },
);
