// The server's footprint, as issue 36 states its targets: start to healthy on an existing database (spawn
// to the first 200 of GET /health), resident memory once idle after start, and resident memory a minute
// after a load the caller gives. Memory is the VmRSS of the process holding the server's port (its worker
// threads, the embedded database's among them, included). The bench driver calls measureFootprint (or its
// parts); `tsx bench/footprint.ts` runs it alone on both databases.
import fs from 'node:fs';
import { SERVER_ARGS, SERVER_ENV } from '../../src/server-command';
import { freePort, spawnNode, type Child } from './children';
import { serverPid } from './proc-cpu';

/** How long a server may take to answer /health before the measurement fails. */
const STARTUP_TIMEOUT_MS = 120_000;
/** How often /health is asked while starting: the resolution of start-to-healthy. */
const HEALTH_POLL_MS = 10;

export interface StartedServer {
  child: Child;
  url: string;
  /** The process serving the port (the node process itself). */
  pid: number;
  /** Spawn to the first 200 of GET /health. */
  startToHealthyMs: number;
}

/**
 * Starts our server as `npm start` does (src/server-command.ts) with `env` (DATA_DIR or DATABASE_URL,
 * and whatever else the caller runs it with) on `port` (a free loopback port by default), and times it to
 * healthy.
 */
export async function startServer(env: NodeJS.ProcessEnv, port?: number): Promise<StartedServer> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawnNode('footprint', SERVER_ARGS, { ...SERVER_ENV, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
  for (;;) {
    if (!child.running) throw new Error(`our server exited during start-up\n${child.recentOutput()}`);
    if (performance.now() - started > STARTUP_TIMEOUT_MS) {
      await child.stop(5_000);
      throw new Error(`our server was not healthy within ${STARTUP_TIMEOUT_MS} ms\n${child.recentOutput()}`);
    }
    const status = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) {
      const startToHealthyMs = performance.now() - started;
      return { child, url, pid: serverPid(url), startToHealthyMs };
    }
    await sleep(HEALTH_POLL_MS);
  }
}

/** The process's resident memory (VmRSS), in MiB. */
export function residentMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!kib) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib[1]) / 1024;
}

/** Resident memory once the server has sat idle for `settleMs` after start. */
export async function idleResidentMiB(pid: number, settleMs = 10_000): Promise<number> {
  await sleep(settleMs);
  return residentMiB(pid);
}

export interface AfterLoad {
  /** The most resident memory seen from the load's start to the end of the wait. */
  peakMiB: number;
  /** Resident memory `afterMs` after the load ended. */
  afterMiB: number;
  /** Sampled every `sampleMs` from the load's end: seconds after it, and MiB. */
  samples: { afterS: number; mib: number }[];
}

/** Runs `load`, then samples resident memory every `sampleMs` for `afterMs` (a minute by default). */
export async function residentAfterLoad(pid: number, load: () => Promise<void>, opts: { afterMs?: number; sampleMs?: number } = {}): Promise<AfterLoad> {
  const afterMs = opts.afterMs ?? 60_000;
  const sampleMs = opts.sampleMs ?? 5_000;
  let peakMiB = residentMiB(pid);
  const watch = setInterval(() => {
    peakMiB = Math.max(peakMiB, residentMiB(pid));
  }, 250);
  try {
    await load();
  } finally {
    clearInterval(watch);
  }
  const ended = performance.now();
  const samples: AfterLoad['samples'] = [];
  for (let at = 0; at <= afterMs; at += sampleMs) {
    await sleep(Math.max(0, ended + at - performance.now()));
    const mib = residentMiB(pid);
    peakMiB = Math.max(peakMiB, mib);
    samples.push({ afterS: at / 1000, mib });
  }
  return { peakMiB, afterMiB: samples[samples.length - 1].mib, samples };
}

export interface Footprint {
  database: 'pglite' | 'postgres';
  startToHealthyMs: number;
  idleMiB: number;
  peakMiB: number;
  afterLoadMiB: number;
  /** afterLoadMiB / idleMiB: the target is at most 1.2. */
  afterLoadRatio: number;
  samples: AfterLoad['samples'];
}

/** Issue 36's targets, for the table. */
export const FOOTPRINT_TARGETS = { idleMiB: { pglite: 300, postgres: 200 }, afterLoadRatio: 1.2, startToHealthyMs: 2_000 } as const;

/**
 * All three measurements on one database. `env` names it (DATA_DIR, or DATABASE_URL); a first start
 * creates and migrates it if it is new (and writes V8's code cache of the server's bundle), and is not
 * timed: start to healthy is measured on the second start, on an existing database, as the target states.
 * `load` gets the second server's URL; its memory is read a minute after the load ends.
 */
export async function measureFootprint(opts: {
  env: NodeJS.ProcessEnv;
  load: (url: string) => Promise<void>;
  settleMs?: number;
  afterMs?: number;
}): Promise<Footprint> {
  const database = opts.env.DATABASE_URL ? 'postgres' : 'pglite';
  // A restart: the same database, and the same port (so the same public URL, which the start indexes its
  // own tools under).
  const first = await startServer(opts.env);
  await first.child.stop(15_000);
  const server = await startServer(opts.env, Number(new URL(first.url).port));
  try {
    const idleMiB = await idleResidentMiB(server.pid, opts.settleMs);
    const after = await residentAfterLoad(server.pid, () => opts.load(server.url), { afterMs: opts.afterMs });
    return {
      database,
      startToHealthyMs: server.startToHealthyMs,
      idleMiB,
      peakMiB: after.peakMiB,
      afterLoadMiB: after.afterMiB,
      afterLoadRatio: after.afterMiB / idleMiB,
      samples: after.samples,
    };
  } finally {
    await server.child.stop(15_000);
  }
}

/** How many requests of the varied load are in flight at once. */
const CONCURRENCY = 16;

/**
 * `requests` requests, CONCURRENCY at a time, each of a kind drawn at random, most of them unlike any before
 * (so every cache that keys on a query or a document fills as far as its bound lets it).
 */
export async function variedLoad(url: string, requests = 6_000): Promise<void> {
  const keys: string[] = [];
  for (let i = 0; i < 20; i++) keys.push(await register(url, i));
  let sent = 0;
  let failed = 0;
  const kinds: (() => Promise<Response>)[] = [
    () => fetch(`${url}/api/v1/agents/me`, { headers: auth(pick(keys)) }),
    () =>
      fetch(`${url}/api/v1/resolve`, {
        method: 'POST',
        headers: { ...auth(pick(keys)), 'content-type': 'application/json' },
        body: JSON.stringify({ capability: `capability-${sent % 500}`, prefer: pick(['balanced', 'cheapest', 'fastest', 'reliable']), max_cost: sent % 97 }),
      }),
    () =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...auth(pick(keys)), 'content-type': 'application/json' },
        // A document unlike any before: an alias of its own.
        body: JSON.stringify({ query: `query Varied${sent} { me_${sent}: me { id name } }` }),
      }),
    () =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // Hostile: a large document of many aliases, refused by the operation's cost bounds.
        body: JSON.stringify({ query: `{ ${Array.from({ length: 4_000 }, (_, i) => `a${sent}_${i}: __typename`).join(' ')} }` }),
      }),
    () => fetch(`${url}/api/v1/no-such-path/${sent}`),
  ];
  const worker = async () => {
    while (sent < requests) {
      sent++;
      const res = await pick(kinds)().catch(() => undefined);
      if (!res) failed++;
      else await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (failed) console.log(`  ${failed} of ${requests} load requests got no answer`);
}

async function register(url: string, i: number): Promise<string> {
  const res = await fetch(`${url}/api/v1/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `footprint-${Date.now().toString(36)}-${i}`,
      description: 'Footprint load (bench/footprint.ts)',
      ownerEmail: 'bench@example.com',
    }),
  });
  const body = (await res.json()) as { master_key?: string };
  if (res.status !== 201 || !body.master_key) throw new Error(`registration answered ${res.status}`);
  return body.master_key;
}

function auth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

function pick<T>(items: T[]): T {
  return items[Math.floor(Math.random() * items.length)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
