// Our server in the run: its database's place (a temporary DATA_DIR on PGlite, seeded before it starts),
// its environment, and starting and restarting it as `npm start` does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVER_ARGS, SERVER_ENV } from '../src/server-command';
import { freePort, spawnNode, type Child } from './lib/children';
import { OFFERING, RESOLVE_CAPABILITY, SERVICES, SKILLS, seedProviders, type Seeded } from './seed';
import { DATABASE_URL, STARTUP_TIMEOUT_MS } from './settings';

/** What start-up and restarts leave for the rest of the run (and its clean-up) to read. */
export const ourServer: {
  child?: Child;
  dataDir?: string;
  /** On PGlite, the discovery peer's copy of the seeded database (a directory of its own). */
  peerDataDir?: string;
  seeded?: Seeded;
  /** What the scenarios need in our server's environment (run.ts), over anything else. */
  scenarioEnv?: NodeJS.ProcessEnv;
} = {};

/**
 * Our server with its read cache off (READ_CACHE_MS=0): every ranking and marketplace page read from the
 * database. A restart rather than a second instance, since on PGlite two processes cannot open one data
 * directory; the same on PostgreSQL, so that both databases are measured alike.
 */
export const UNCACHED_ENV: NodeJS.ProcessEnv = { READ_CACHE_MS: '0' };

/** Creates the database's place (a temporary DATA_DIR on PGlite), seeds it and starts our server with `scenarioEnv`. */
export async function startOurs(scenarioEnv: NodeJS.ProcessEnv): Promise<{ child: Child; url: string }> {
  ourServer.scenarioEnv = scenarioEnv;
  if (!DATABASE_URL) ourServer.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marketplace-bench-'));
  const dataDir = ourServer.dataDir;
  const seedStarted = Date.now();
  ourServer.seeded = await seedProviders({ dataDir, databaseUrl: DATABASE_URL });
  console.log(
    `seeded ${SERVICES} services (${OFFERING} offering ${RESOLVE_CAPABILITY}) and ${SKILLS} published skills in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`,
  );
  if (dataDir) {
    // The discovery peer's own embedded database: the seeded one as it is now (two processes cannot share one).
    ourServer.peerDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marketplace-bench-peer-'));
    fs.cpSync(path.join(dataDir, 'pgdata'), path.join(ourServer.peerDataDir, 'pgdata'), { recursive: true });
  }
  const started = await spawnOurs(await freePort());
  ourServer.child = started.child;
  return started;
}

/** Our server's environment in this run (`extra` added): its database, and what the scenarios need. */
export function oursEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', RATE_LIMIT_DISABLED: '1', LOG_LEVEL: 'warn', ...extra };
  // The execute scenario's provider listens on loopback, which the SSRF guard refuses otherwise.
  env.OUTBOUND_ALLOW_PRIVATE = '1';
  Object.assign(env, ourServer.scenarioEnv);
  if (DATABASE_URL) env.DATABASE_URL = DATABASE_URL;
  else {
    env.DATA_DIR = ourServer.dataDir;
    delete env.DATABASE_URL;
  }
  return env;
}

/** Starts our server on `port` (with `extra` in its environment) and resolves once it answers /health. */
async function spawnOurs(port: number, extra: NodeJS.ProcessEnv = {}): Promise<{ child: Child; url: string }> {
  const env = oursEnv({ PORT: String(port), ...extra });
  // BENCH_PROFILE_DIR: our server writes a CPU profile there when it stops (node --cpu-prof; its
  // worker threads, the embedded database's among them, write their own).
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  // Started as `npm start` starts it (src/server-command.ts).
  const child = spawnNode('ours', [...profile, ...SERVER_ARGS], { ...SERVER_ENV, ...env });
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

/**
 * Stops our server, runs `between` (seeding, say: PGlite's data directory is locked while the server
 * runs), and starts it again on the same port, with `extra` in its environment.
 */
export async function restartOurs(url: string, between: () => Promise<void> = async () => {}, extra: NodeJS.ProcessEnv = {}): Promise<void> {
  await ourServer.child!.stop(12_000);
  await between();
  const restarted = await spawnOurs(Number(new URL(url).port), extra);
  ourServer.child = restarted.child;
}
