// `npm run soak`: one server, started as `npm start` starts it on a fresh database (a temporary DATA_DIR on
// the embedded default, a database of its own on DATABASE_URL's PostgreSQL), under SOAK_MINUTES (30) of
// mixed work at a steady modest rate; every 10 s a sample of the server (resident memory, heap, the event
// loop's delay, the database's size, the queues) and of each operation's latencies; then an idle period
// (SOAK_SETTLE_S, 60) and the verdict. Writes soak/results/<database>-<minutes>min.{csv,svg,json}; exits
// non-zero when a check fails. docs/soak.md says what is checked and why.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { killAllNow, REPO_ROOT, spawnTs, stopAll } from '../bench/lib/children';
import { residentMiB, startServer as startFootprintServer, type StartedServer } from '../bench/lib/footprint';
import { startHttpsServer, type HttpsTestServer } from '../test/support/https';
import { chart } from './chart';
import { csv, DEFAULT_LIMITS, passed, verdict, windows, type Limits, type RunFacts, type Sample } from './report';
import { CATALOG_CAPABILITIES, EXECUTE_CAPABILITY, must, Recorder, registerAgent, Workload, type Fixture } from './workload';

function envNumber(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return n;
}

const MINUTES = envNumber('SOAK_MINUTES', 30, 2, 240);
const DURATION_S = Math.round(MINUTES * 60);
/** A sample every 10 s; CI's 2-minute runs take one every 5 s, so each window holds eight (docs/soak.md). */
const SAMPLE_S = envNumber('SOAK_SAMPLE_S', 10, 1, 60);
const SETTLE_S = envNumber('SOAK_SETTLE_S', 60, 0, 600);
/** p99 differences under this pass whatever their ratio (docs/soak.md: the 2-minute run's windows are four samples). */
const LIMITS: Limits = {
  ...DEFAULT_LIMITS,
  p99SlackMs: envNumber('SOAK_P99_SLACK_MS', DEFAULT_LIMITS.p99SlackMs, 0, 1000),
  // The longest event-loop delay allowed after the warm-up (docs/soak.md: CI's allowance on a machine it shares).
  stallMs: envNumber('SOAK_STALL_MS', DEFAULT_LIMITS.stallMs, 10, 10_000),
};
/**
 * A file the run creates when its warm-up is over (the first sample at or past the reference window's start): what
 * runs beside it (CI's second soak) can wait for it, so that no warm-up shares the machine with another.
 */
const WARMED_UP_FILE = process.env.SOAK_WARMED_UP_FILE || undefined;
/**
 * A file the load waits for once the server is started, idle-measured and set up (CI's second soak: its start, the
 * heaviest seconds of a run, falls in the first run's start and warm-up rather than in its judged time).
 */
const LOAD_AFTER_FILE = process.env.SOAK_LOAD_AFTER_FILE || undefined;
/** How long the load waits for LOAD_AFTER_FILE before it starts anyway (what made it would have failed by then). */
const LOAD_AFTER_TIMEOUT_MS = 300_000;
const BASE_URL = process.env.DATABASE_URL || undefined;
const MODE: 'pglite' | 'postgres' = BASE_URL ? 'postgres' : 'pglite';
const RESULTS_DIR = path.join(REPO_ROOT, 'soak', 'results');
const STARTUP_TIMEOUT_MS = 90_000;
/** How long the webhook deliveries of the last executions may take to arrive after the load. */
const DELIVERY_DRAIN_MS = 30_000;

let dataDir: string | undefined;
let database: { url: string; name: string } | undefined;
let receiver: HttpsTestServer | undefined;
let cleaning: Promise<void> | undefined;

function revision(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '+dirty' : ''}`;
  } catch {
    return 'unknown';
  }
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The run's own database: on PostgreSQL a new database beside DATABASE_URL's (so pg_database_size is this
 * run's data alone, and nothing of another run's is read or vacuumed), dropped at the end; on PGlite a
 * temporary DATA_DIR.
 */
async function createDatabase(): Promise<void> {
  if (!BASE_URL) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marketplace-soak-'));
    return;
  }
  const name = `soak_${randomBytes(5).toString('hex')}`;
  await adminQuery(BASE_URL, `CREATE DATABASE ${name}`);
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  database = { url: url.toString(), name };
}

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll();
    await receiver?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    if (database && BASE_URL)
      await adminQuery(BASE_URL, `DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`).catch((err: Error) =>
        console.error(`could not drop ${database!.name}: ${err.message}`),
      );
  })();
  return cleaning;
}

/** Our server as `npm start` runs it (bench/lib/footprint.ts), on this run's database, one instance. */
async function startServer(): Promise<StartedServer> {
  const env: NodeJS.ProcessEnv = { ...process.env, RATE_LIMIT_DISABLED: '1', OUTBOUND_ALLOW_PRIVATE: '1' };
  // One instance: pub/sub in memory, whatever the shell exports.
  delete env.REDIS_URL;
  if (database) env.DATABASE_URL = database.url;
  else {
    env.DATA_DIR = dataDir;
    delete env.DATABASE_URL;
  }
  return startFootprintServer(env);
}

async function startProvider(): Promise<string> {
  const child = spawnTs('provider', 'bench/peers/provider.ts', { ...process.env });
  const port = await child.waitForLine((line) => (line.startsWith('{"ready"') ? (JSON.parse(line) as { port: number }).port : undefined), STARTUP_TIMEOUT_MS);
  return `https://127.0.0.1:${port}`;
}

/** Resident memory of the server process (VmRSS), in bytes. */
const residentBytes = (pid: number) => residentMiB(pid) * 1024 * 1024;

/** What a sample reads from GET /metrics. */
type Scrape = Pick<Sample, 'heapUsedBytes' | 'loopDelayMaxMs' | 'loopDelayP99Ms' | 'databaseBytes' | 'queues' | 'openStreams'>;

/**
 * GET /metrics, the figures a sample needs. The server's event-loop histogram restarts at each scrape, so
 * each sample's delays are those of its own interval (the soak is the only scraper).
 */
async function scrape(url: string): Promise<Scrape> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const value = (name: string) => {
    const v = Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    if (!Number.isFinite(v)) throw new Error(`GET /metrics has no ${name}`);
    return v;
  };
  const queues: Record<string, number> = {};
  for (const m of text.matchAll(/^queue_depth\{queue="([a-z_]+)"\} (\S+)$/gm)) queues[m[1]] = Number(m[2]);
  return {
    heapUsedBytes: value('nodejs_heap_size_used_bytes'),
    loopDelayMaxMs: value('nodejs_eventloop_lag_max_seconds') * 1000,
    loopDelayP99Ms: value('nodejs_eventloop_lag_p99_seconds') * 1000,
    databaseBytes: value('database_size_bytes'),
    queues,
    openStreams: value('open_streams'),
  };
}

/**
 * The fixture: the soak's caller, a catalog of 60 services over ten capabilities (varied prices, languages,
 * four providers) for resolve, the execute capability's service (the provider peer), a kv memory store, a
 * streaming session, and a webhook of the caller's execution.succeeded events to the receiver.
 */
async function setUp(url: string, providerUrl: string, receiverUrl: string, runTag: string): Promise<Fixture> {
  const me = await registerAgent(url, `soak-${runTag}-caller`);
  for (let p = 0; p < 4; p++) {
    const provider = await registerAgent(url, `soak-${runTag}-provider-${p}`);
    for (let i = 0; i < 15; i++) {
      const n = p * 15 + i;
      await must(
        url,
        'POST',
        '/api/v1/services/register',
        provider.key,
        {
          name: `Soak service ${n}`,
          description: 'A service of the soak catalog (never called)',
          endpoint: `${providerUrl}/catalog/${n}`,
          capabilities: [CATALOG_CAPABILITIES[n % CATALOG_CAPABILITIES.length], CATALOG_CAPABILITIES[(n * 7) % CATALOG_CAPABILITIES.length]],
          languages: n % 3 === 0 ? ['en'] : n % 3 === 1 ? ['fr', 'de'] : [],
          pricing_model: n % 4 === 0 ? 'free' : 'per_call',
          cost_per_call: n % 4 === 0 ? 0 : (n * 7) % 60,
        },
        201,
      );
    }
    if (p === 0) {
      await must(
        url,
        'POST',
        '/api/v1/services/register',
        provider.key,
        {
          name: 'Soak execute provider',
          description: 'The execute operation’s provider: HTTPS on loopback, answering after 20 ms',
          endpoint: `${providerUrl}/run`,
          capabilities: [EXECUTE_CAPABILITY],
          pricing_model: 'free',
        },
        201,
      );
    }
  }
  const store = await must(url, 'POST', '/api/v1/memory/stores', me.key, { name: `soak-${runTag}`, storeType: 'kv' }, 201);
  const session = await must(url, 'POST', '/api/v1/streaming/sessions', me.key, { capabilityId: 'soak-stream' }, 201);
  await must(url, 'POST', '/api/v1/webhooks', me.key, { url: receiverUrl, events: ['execution.succeeded'] }, 201);
  return { url, me, storeId: store.id, sessionId: session.id, runTag };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const rev = revision();
  const runTag = randomBytes(3).toString('hex');
  console.log(`soak: ${MINUTES} min on ${MODE}, revision ${rev}, then ${SETTLE_S} s idle`);
  await createDatabase();
  const recorder = new Recorder();
  // The webhook receiver: every delivery counted, timed from its event's creation to its arrival.
  const deliveries = new Set<string>();
  receiver = await startHttpsServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; type: string; created_at: string };
        if (envelope.type !== 'execution.succeeded') recorder.error(`webhook: an event of type ${envelope.type}`);
        else if (deliveries.has(envelope.id)) recorder.error(`webhook: event ${envelope.id} delivered twice`);
        else {
          deliveries.add(envelope.id);
          recorder.ok('webhook_delivery', Math.max(0, Date.now() - Date.parse(envelope.created_at)));
        }
      } catch {
        recorder.error('webhook: a body that is not an event envelope');
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  const providerUrl = await startProvider();
  const server = await startServer();
  const pid = server.pid;
  // Idle memory: the server started and healthy, nothing asked of it yet but /health.
  await sleep(5000);
  const idleRssBytes = residentBytes(pid);
  console.log(`server pid ${pid} at ${server.url}; ${(idleRssBytes / 1024 / 1024).toFixed(0)} MiB resident at idle`);

  const setUpStarted = Date.now();
  const fixture = await setUp(server.url, providerUrl, `${receiver.url}/hook`, runTag);
  console.log(`set up the catalog, store, session and webhook in ${((Date.now() - setUpStarted) / 1000).toFixed(1)} s`);
  if (LOAD_AFTER_FILE) {
    const waitStarted = Date.now();
    while (!fs.existsSync(LOAD_AFTER_FILE) && Date.now() - waitStarted < LOAD_AFTER_TIMEOUT_MS) await sleep(250);
    console.log(
      `waited ${((Date.now() - waitStarted) / 1000).toFixed(1)} s for ${LOAD_AFTER_FILE}${fs.existsSync(LOAD_AFTER_FILE) ? '' : ' (not there: starting anyway)'}`,
    );
  }
  recorder.take();
  // The start: the event-loop histogram restarts here (start-up's own delays are not the load's).
  const start = await scrape(server.url);
  const workload = new Workload(fixture, recorder);
  const samples: Sample[] = [];
  const began = performance.now();
  workload.start();
  for (let i = 1; i * SAMPLE_S <= DURATION_S; i++) {
    await sleep(Math.max(0, began + i * SAMPLE_S * 1000 - performance.now()));
    if (!server.child.running) throw new Error(`the server exited during the run\n${server.child.recentOutput()}`);
    const [state, rssBytes] = [await scrape(server.url), residentBytes(pid)];
    const { ops, writes } = recorder.take();
    const sample: Sample = { t: i * SAMPLE_S, rssBytes, writes, ops, ...state };
    samples.push(sample);
    if (WARMED_UP_FILE && sample.t >= windows(DURATION_S).reference.from && !fs.existsSync(WARMED_UP_FILE)) fs.writeFileSync(WARMED_UP_FILE, `${sample.t}\n`);
    const p99 = Object.entries(ops)
      .map(([op, o]) => `${op} ${o.count ? o.p99Ms.toFixed(0) : '-'}`)
      .join(' ');
    console.log(
      `${String(sample.t).padStart(5)} s  rss ${(rssBytes / 1048576).toFixed(0)} MiB  heap ${(state.heapUsedBytes / 1048576).toFixed(0)} MiB  loop max ${state.loopDelayMaxMs.toFixed(0)} ms  db ${(state.databaseBytes / 1048576).toFixed(1)} MiB  queues ${Object.values(state.queues).join('/')}  errors ${recorder.errors}  p99 ${p99}`,
    );
  }
  await workload.stop();
  const loadEnded = performance.now();
  const atLoadEnd = await scrape(server.url);
  // Every succeeded execution's event must reach the receiver.
  for (const until = Date.now() + DELIVERY_DRAIN_MS; deliveries.size < workload.executed && Date.now() < until;) await sleep(250);
  if (deliveries.size < workload.executed)
    recorder.error(`webhook: ${workload.executed - deliveries.size} of ${workload.executed} deliveries missing ${DELIVERY_DRAIN_MS / 1000} s after the load`);
  await sleep(Math.max(0, loadEnded + SETTLE_S * 1000 - performance.now()));
  const afterIdle = await scrape(server.url);
  const rssAfterIdleBytes = residentBytes(pid);

  const facts: RunFacts = {
    durationS: DURATION_S,
    sampleS: SAMPLE_S,
    samples,
    errors: { count: recorder.errors, examples: recorder.examples },
    databaseAtStart: start.databaseBytes,
    databaseAtLoadEnd: atLoadEnd.databaseBytes,
    databaseAfterIdle: afterIdle.databaseBytes,
    writes: recorder.totalWrites,
    idleRssBytes,
    rssAfterIdleBytes: SETTLE_S > 0 ? rssAfterIdleBytes : 0,
    queuesAfterIdle: afterIdle.queues,
    webhooks: { expected: workload.executed, received: deliveries.size },
  };
  const checks = verdict(facts, LIMITS);
  const ok = passed(checks);

  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const base = path.join(RESULTS_DIR, `${MODE}-${MINUTES}min`);
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  fs.writeFileSync(`${base}.csv`, csv(samples));
  fs.writeFileSync(
    `${base}.svg`,
    chart(samples, DURATION_S, `npm run soak: ${MINUTES} min on ${MODE === 'pglite' ? 'PGlite' : 'PostgreSQL'}, revision ${rev}, ${date} UTC`),
  );
  fs.writeFileSync(
    `${base}.json`,
    `${JSON.stringify({ database: MODE, minutes: MINUTES, revision: rev, date, passed: ok, checks, facts: { ...facts, samples: undefined } }, null, 2)}\n`,
  );

  console.log(`\n${ok ? 'PASSED' : 'FAILED'}: ${MINUTES} min on ${MODE} (revision ${rev})`);
  for (const c of checks) console.log(`  ${c.ok ? 'ok    ' : c.informational ? 'note  ' : 'MISSED'} ${c.name}: ${c.detail}`);
  console.log(`\nwrote ${path.relative(REPO_ROOT, base)}.{csv,svg,json}`);
  if (!ok) process.exitCode = 1;
}

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

const watchdog = setTimeout(
  () => {
    console.error('\nFAILED: the soak did not finish in time');
    void cleanup().finally(() => process.exit(1));
  },
  (DURATION_S + SETTLE_S + DELIVERY_DRAIN_MS / 1000 + 300 + (LOAD_AFTER_FILE ? LOAD_AFTER_TIMEOUT_MS / 1000 : 0)) * 1000,
);

main().then(
  async () => {
    clearTimeout(watchdog);
    await cleanup();
    process.exit(process.exitCode ?? 0);
  },
  async (err: unknown) => {
    clearTimeout(watchdog);
    console.error(`\nFAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await cleanup();
    process.exit(1);
  },
);
