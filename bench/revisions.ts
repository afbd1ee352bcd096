// `npm run bench:revisions`: what a change costs on the cheapest requests, measured in one run against
// the server as it was. BENCH_BASE names the revision to compare with (default: the commit before the
// working tree's HEAD); it is checked out into a worktree of its own under the system's temporary
// directory and installed from its own lockfile (once: kept for later runs). Both servers start as
// `npm start` starts them, on the embedded database each in a fresh DATA_DIR, or with DATABASE_URL each on
// a fresh database of that PostgreSQL server; then autocannon rounds alternate between this revision and
// the base for `GET /api/v1/agents/me` and `POST /graphql { me { id } }`, each with its own agent.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SERVER_ARGS } from '../src/server-command';
import { freePort, killAllNow, REPO_ROOT, spawnNode, stopAll, type Child } from './lib/children';
import { load, preflight, type Sample, type Target } from './lib/load';
import { printTable, summarize, type ScenarioResult } from './lib/report';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 2);
const DATABASE_URL = process.env.DATABASE_URL || undefined;
/** The most this revision may lose to the base on these requests (a ratio of requests a second). */
const TARGET = Number(process.env.BENCH_REVISIONS_TARGET ?? 0.95);

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The base revision checked out and installed in a worktree of its own; returns its directory. */
function baseCheckout(rev: string): string {
  const sha = git(REPO_ROOT, 'rev-parse', `${rev}^{commit}`);
  const dir = path.join(os.tmpdir(), `marketplace-bench-base-${sha.slice(0, 12)}`);
  if (!fs.existsSync(path.join(dir, 'node_modules', '.package-lock.json'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    git(REPO_ROOT, 'worktree', 'prune');
    git(REPO_ROOT, 'worktree', 'add', '--detach', dir, sha);
    console.log(`installing ${sha.slice(0, 12)} in ${dir}`);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  }
  return dir;
}

/** A fresh database on the PostgreSQL server of DATABASE_URL; returns its URL. */
async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

async function start(name: string, cwd: string): Promise<{ child: Child; url: string; key: string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_DISABLED: '1', LOG_LEVEL: 'warn' };
  if (DATABASE_URL) env.DATABASE_URL = await freshDatabase(`bench_revision_${name}`);
  else {
    delete env.DATABASE_URL;
    env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), `marketplace-bench-${name}-`));
  }
  delete env.REDIS_URL;
  // A revision from before src/start.cjs ran its TypeScript through src/register.cjs, module by module.
  const args = fs.existsSync(path.join(cwd, 'src', 'start.cjs')) ? SERVER_ARGS : ['--require', './src/register.cjs', 'src/server.ts'];
  const child = spawnNode(name, args, env, cwd);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (
    (await fetch(`${url}/api/v1/health`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (!child.running || Date.now() > deadline) throw new Error(`${name} did not start\n${child.recentOutput()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const res = await fetch(`${url}/api/v1/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench-${name}-${Date.now()}`, description: 'benchmark', ownerEmail: 'bench@example.com' }),
  });
  if (res.status !== 201) throw new Error(`${name}: registering answered ${res.status}`);
  return { child, url, key: (await res.json()).master_key };
}

const meTarget = (who: string, server: { url: string; key: string }): Target => ({
  name: who,
  url: `${server.url}/api/v1/agents/me`,
  method: 'GET',
  headers: { authorization: `Bearer ${server.key}` },
  check: (_status, body) => (JSON.parse(body).agent_id ? undefined : 'no agent_id'),
  // Each side answers its own agent.
  stableBody: true,
});

const graphqlTarget = (who: string, server: { url: string; key: string }): Target => ({
  name: who,
  url: `${server.url}/graphql`,
  method: 'POST',
  headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ me { id } }' }),
  check: (_status, body) => (JSON.parse(body).data?.me?.id ? undefined : 'no data.me.id'),
});

async function main(): Promise<void> {
  const rev = process.env.BENCH_BASE || 'HEAD~1';
  const baseDir = baseCheckout(rev);
  const baseSha = git(baseDir, 'rev-parse', '--short', 'HEAD');
  const ours = await start('ours', REPO_ROOT);
  const base = await start('base', baseDir);
  console.log(
    `this revision ${git(REPO_ROOT, 'rev-parse', '--short', 'HEAD')} against ${baseSha} (${DATABASE_URL ? 'PostgreSQL' : 'PGlite'}), ${ROUNDS} rounds of ${DURATION_S} s, ${CONNECTIONS} connections`,
  );
  const results: ScenarioResult[] = [];
  for (const [name, make] of [
    ['rest_agents_me', meTarget],
    ['graphql_me', graphqlTarget],
  ] as const) {
    const sides = { ours: make('ours', ours), peer: make(`base ${baseSha}`, base) };
    for (const t of Object.values(sides)) {
      await preflight(t);
      if (WARMUP_S) await load(t, WARMUP_S, CONNECTIONS);
    }
    const rounds: { ours: Sample; peer: Sample }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Alternating which goes first, so neither always meets the machine as the other left it.
      const first = i % 2 ? 'peer' : 'ours';
      const a = await load(sides[first], DURATION_S, CONNECTIONS);
      const b = await load(sides[first === 'ours' ? 'peer' : 'ours'], DURATION_S, CONNECTIONS);
      rounds.push(first === 'ours' ? { ours: a, peer: b } : { ours: b, peer: a });
    }
    results.push(summarize(name, `base ${baseSha}`, { rps: TARGET, p99: 1.5 }, rounds));
  }
  printTable(results);
  // The server's CPU per request beside its throughput: a neighbour on a shared machine moves requests a
  // second more than the work each request costs.
  for (const r of results)
    if (r.cpu_us !== null && r.peer_cpu_us)
      console.log(`${r.name}: CPU per request ${r.cpu_us} µs against ${r.peer_cpu_us} µs (${(r.cpu_us / r.peer_cpu_us).toFixed(2)})`);
}

main()
  .then(() => stopAll())
  .catch(async (err: Error) => {
    console.error(err.message);
    await stopAll();
    process.exitCode = 1;
  })
  .finally(() => killAllNow());
