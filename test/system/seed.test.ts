// A new embedded data directory: made from the install's migrated seed (src/db/seed.ts), or, with EMBEDDED_SEED=0, by
// initdb and every migration; either way the same database, every migration recorded once.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { readMigrations } from '../../src/db/migrate';
import { buildSeed, plantSeed, seedPath } from '../../src/db/seed';
import { launchServer, type Running } from '../support/process';

jest.setTimeout(180_000);

const dirs: string[] = [];
const newDir = (name: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `marketplace-seed-${name}-`));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

beforeAll(() => buildSeed());

/** Registers an agent, stops the server, and reads its data directory: the migrations recorded and the agent. */
async function registerAndStop(server: Running, dataDir: string) {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'seeded', description: 'a first start', ownerEmail: 's@example.com' }),
  });
  expect(res.status).toBe(201);
  server.child.kill('SIGTERM');
  expect((await server.exited).code).toBe(0);
  const db = await PGlite.create({ dataDir: path.join(dataDir, 'pgdata'), extensions: { vector } });
  try {
    const migrations = await db.query<{ migration_name: string; finished: boolean; applied: number }>(
      'SELECT migration_name, finished_at IS NOT NULL AS finished, applied_steps_count AS applied FROM _prisma_migrations ORDER BY migration_name',
    );
    const agents = await db.query<{ name: string }>('SELECT name FROM agents');
    return { migrations: migrations.rows, agents: agents.rows.map((r) => r.name) };
  } finally {
    await db.close();
  }
}

const everyMigration = () =>
  readMigrations()
    .migrationDirectories.map((d) => path.basename(d.path))
    .sort()
    .map((name) => ({ migration_name: name, finished: true, applied: 1 }));

it('makes a new data directory from the seed: no migration runs at the start, and every one is recorded', async () => {
  const dataDir = newDir('planted');
  const server = await launchServer(dataDir);
  expect(server.output()).toContain(`made from the migrated seed ${seedPath()}`);
  expect(server.output()).not.toContain('applied migrations');
  const { migrations, agents } = await registerAndStop(server, dataDir);
  expect(migrations).toEqual(everyMigration());
  expect(agents).toEqual(['seeded']);
});

it('makes it with initdb and every migration when EMBEDDED_SEED=0, to the same record', async () => {
  const dataDir = newDir('initdb');
  const server = await launchServer(dataDir, { EMBEDDED_SEED: '0' });
  expect(server.output()).not.toContain('migrated seed');
  expect(server.output()).toContain('applied migrations');
  const { migrations, agents } = await registerAndStop(server, dataDir);
  expect(migrations).toEqual(everyMigration());
  expect(agents).toEqual(['seeded']);
});

it("writes the seed's files as tar does, and plants only where there is no database", () => {
  const planted = path.join(newDir('files'), 'pgdata');
  expect(plantSeed(planted)).toBe(seedPath());
  const extracted = newDir('tar');
  execFileSync('tar', ['-xf', seedPath(), '-C', extracted], { stdio: 'ignore' });
  const listing = (root: string) =>
    (fs.readdirSync(root, { recursive: true }) as string[]).sort().map((name) => {
      const stat = fs.statSync(path.join(root, name));
      return { name, mode: stat.mode, body: stat.isFile() ? fs.readFileSync(path.join(root, name)).toString('base64') : null };
    });
  const files = listing(planted);
  expect(files.length).toBeGreaterThan(100);
  expect(files).toEqual(listing(extracted));
  expect(fs.readdirSync(path.dirname(planted))).toEqual(['pgdata']);

  // A directory that holds anything is left as it is; an empty one is planted.
  expect(plantSeed(planted)).toBeUndefined();
  const holding = path.join(newDir('holding'), 'pgdata');
  fs.mkdirSync(holding);
  fs.writeFileSync(path.join(holding, 'something'), 'x');
  expect(plantSeed(holding)).toBeUndefined();
  expect(fs.readdirSync(holding)).toEqual(['something']);
  const empty = path.join(newDir('empty'), 'pgdata');
  fs.mkdirSync(empty);
  expect(plantSeed(empty)).toBe(seedPath());
  expect(fs.existsSync(path.join(empty, 'PG_VERSION'))).toBe(true);
});
