// `npm run bench`: starts our server and the peers as child processes on loopback, registers one agent,
// then for each scenario alternates autocannon runs against ours and the peer (for the SSE fan-out,
// rounds of readers and pushes, charged in server CPU), and reports medians against the targets (tables
// on stdout, bench/results/latest.json). This file is the run: start-up, the scenarios in their order,
// the report, and a watchdog and clean-up for however it ends.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fundWallet, provisionSubKey, register, registerProviderService, type Agent } from './accounts';
import { killAllNow, REPO_ROOT, stopAll } from './lib/children';
import { stopLoad } from './lib/load';
import { printTable, writeReport, type AnyResult } from './lib/report';
import { ourServer, restartOurs, startOurs, UNCACHED_ENV } from './ours';
import { purgeAgents } from './purge';
import {
  CATALOG_FILTERED_SCENARIO,
  CATALOG_SCENARIO,
  catalogFilteredScenario,
  catalogProviderIds,
  catalogScenario,
  seedCatalogAndRestart,
} from './scenarios/catalog';
import { EXECUTE_CAPABILITY, executeScenarios, PAID_CAPABILITY, PAID_CENTS, PAID_FUNDS_USDC } from './scenarios/execute';
import { FANOUT, FANOUT_SCENARIO, runFanoutScenario } from './scenarios/fanout';
import { FOOTPRINT_SCENARIO, runFootprintScenario } from './scenarios/footprint';
import { HELD, HELD_SCENARIO, runHeldScenario } from './scenarios/held-readers';
import { bareHttpReference, readScenarios } from './scenarios/reads';
import { runScenario, type Scenario, type ScenarioContext } from './scenarios/scenario';
import { UNCACHED_SCENARIOS, variedScenarios } from './scenarios/varied';
import { CONNECTIONS, DATABASE_URL, DURATION_S, MODE, ONLY, ROUNDS, selected, SKIP, STARTUP_TIMEOUT_MS, WARMUP_S } from './settings';
import { startPeer } from './start-peer';

const RESULTS_FILE = path.join(REPO_ROOT, 'bench', 'results', 'latest.json');

/** What the scenarios need in our server's environment. */
const SCENARIO_ENV: NodeJS.ProcessEnv = {
  // The fan-out and held-readers scenarios hold thousands of readers of one agent's session (the default cap is 20).
  STREAMS_PER_AGENT: String(2 * HELD.readers),
  // The paid scenario's caller is funded once from the sandbox faucet, for every call of the run.
  SANDBOX_FAUCET_CAP: String(PAID_FUNDS_USDC),
};

/** The load scenarios, in the order they run (and are named in an error for an unknown BENCH_ONLY name). */
function scenarios(ctx: ScenarioContext): Scenario[] {
  return [...readScenarios(ctx), ...variedScenarios(ctx), ...executeScenarios(ctx), bareHttpReference(ctx)];
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

async function main(): Promise<void> {
  // The provider peer's certificate is signed by the test CA; ours (a child) and autocannon (here) must trust it.
  if (!process.env.NODE_EXTRA_CA_CERTS) throw new Error('run the benchmark with `npm run bench` (it sets NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem)');
  console.log(
    `database: ${MODE}${DATABASE_URL ? ` (${new URL(DATABASE_URL).host}${new URL(DATABASE_URL).pathname})` : ' (server: temporary DATA_DIR; peers: in-memory PGlite each)'}`,
  );
  const rev = revision();
  console.log(
    `revision ${rev}; rounds ${ROUNDS} × ${DURATION_S} s, warm-up ${WARMUP_S} s, ${CONNECTIONS} connections, ${os.cpus().length} CPUs, node ${process.version}`,
  );
  const started = Date.now();
  const ours = await startOurs(SCENARIO_ENV);
  agent = await register(ours.url);
  const subKey = await provisionSubKey(ours.url, agent, ourServer.seeded!.verifyServiceKey);
  const [bare, expressPg, yoga, provider, sseBare, discoveryPg] = await Promise.all(
    ['bare-http', 'express-pg', 'yoga', 'provider', 'sse-bare', 'discovery-pg'].map((name) => startPeer(name, agent!, subKey)),
  );
  const executeService = await registerProviderService(ours.url, agent, `${provider}/run`, EXECUTE_CAPABILITY);
  seller = await register(ours.url);
  await registerProviderService(ours.url, seller, `${provider}/run`, PAID_CAPABILITY, PAID_CENTS);
  await fundWallet(ours.url, agent, PAID_FUNDS_USDC);
  const floor = await startPeer('proxy-floor', agent, subKey, { BENCH_PROVIDER_URL: provider });
  console.log(`started ours and 7 peers in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const results: AnyResult[] = [];
  const peers = { 'bare-http': bare, 'express-pg': expressPg, yoga, provider, 'proxy-floor': floor, 'sse-bare': sseBare, 'discovery-pg': discoveryPg };
  const all = scenarios({ me: agent, subKey, ours: ours.url, peers, executeService });
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
  if (selected(FOOTPRINT_SCENARIO)) results.push(await runFootprintScenario(ours.url));
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
  selected(CATALOG_SCENARIO) || selected(CATALOG_FILTERED_SCENARIO)
    ? 1200_000 + STARTUP_TIMEOUT_MS + 2 * (2 * WARMUP_S + 2 * ROUNDS * DURATION_S + 4 * 12) * 1000
    : 0;
// The footprint: two starts, 10 s idle, the load (a minute at most) and a minute after it.
const footprintBudgetMs = selected(FOOTPRINT_SCENARIO) ? 3 * STARTUP_TIMEOUT_MS + 150_000 : 0;
const budgetMs = 3 * STARTUP_TIMEOUT_MS + footprintBudgetMs + loadBudgetMs + fanoutBudgetMs + heldBudgetMs + catalogBudgetMs;
const watchdog = setTimeout(() => {
  console.error(`\nFAILED: the benchmark did not finish within ${Math.round(budgetMs / 1000)} s`);
  void cleanup().finally(() => process.exit(1));
}, budgetMs);

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
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
