// A real marketplace server on an ephemeral port with its own fresh database, plus small clients
// (fetch for REST and GraphQL) that tests share. No module of ours is mocked.
import { appendFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { createApp, type App } from '../../app/app';
import { loadConfig, type Config } from '../../src/config';
import type { Clock } from '../../src/platform/clock';
import { createLogger } from '../../src/platform/logger';
import type { InMemory } from '../../src/db/pglite-worker';
import { seedPath } from '../../src/db/seed';
import { clonePostgres } from './databases';

export interface TestServer {
  app: App;
  url: string;
  port: number;
  config: Config;
  /** Everything the server logged, one JSON line each. */
  logs: string[];
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Share an existing PostgreSQL database (cluster tests); otherwise each server gets a fresh one. */
  databaseUrl?: string;
  redisUrl?: string;
  clock?: Clock;
}

export const onPostgres = () => process.env.TEST_DATABASE === 'postgres';

/** The migrated template in memory, with PGlite's WebAssembly as the worker compiled it (environment.ts). */
export async function inMemory(): Promise<InMemory> {
  const compiled = (globalThis as { pgliteModule?: () => Promise<WebAssembly.Module> }).pgliteModule;
  return { dumpPath: seedPath(), ...(compiled ? { pgliteModule: await compiled() } : {}) };
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  let databaseUrl = opts.databaseUrl;
  let drop: (() => Promise<void>) | undefined;
  if (!databaseUrl && onPostgres()) {
    const clone = await clonePostgres(process.env.DATABASE_URL!);
    databaseUrl = clone.url;
    drop = clone.drop;
  }
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATA_DIR: '/nonexistent-test-data-dir',
    // A query beside an open transaction of its own request fails at once instead of stalling PGlite.
    DB_TX_GUARD: '1',
    // No load balancer needs telling that a test's server is going: it stops accepting at once.
    SHUTDOWN_ACCEPT_GRACE_MS: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl } : {}),
    ...opts.env,
  });
  const app = await createApp(config, {
    memory: databaseUrl ? undefined : await inMemory(),
    skipMigrations: !databaseUrl,
    clock: opts.clock,
    log: createLogger(config.logLevel, sink),
  });
  const port = await app.listen();
  const url = `http://127.0.0.1:${port}`;
  config.publicBaseUrl = url;
  return {
    app,
    url,
    port,
    config,
    logs,
    async close() {
      await app.close();
      await drop?.();
      // TEST_SERVER_ERROR_LOG=<file>: what servers logged at error level, kept for a failure that only a
      // loaded machine shows (a test sees a 500's request id; its cause is logged here).
      const file = process.env.TEST_SERVER_ERROR_LOG;
      const errors = file ? logs.filter((line) => /"level":(5|6)\d/.test(line)) : [];
      if (errors.length) appendFileSync(file!, `${errors.join('\n')}\n`);
    },
  };
}

/**
 * The server's database for writes made beside it, as a test sets up what no route can: each operation
 * empties the server's kept answers once it has run, as a write the server served does. (The database's
 * change notification empties them too, but on PostgreSQL a moment after the commit, when the test's
 * next request may already have been answered from them.)
 */
export function besideServer(server: TestServer) {
  const { db, readCache } = server.app.services;
  return db.$extends({
    query: {
      async $allOperations({ args, query }) {
        const result = await query(args);
        readCache.flush();
        return result;
      },
    },
  });
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function http<T = any>(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string; key?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export function api(server: { url: string }) {
  return <T = any>(method: string, path: string, opts?: Parameters<typeof http>[3]) => http<T>(server.url, method, `/api/v1${path}`, opts);
}

export async function gql<T = any>(server: { url: string }, query: string, variables?: Record<string, unknown>, key?: string) {
  return http<{ data?: T; errors?: { message: string; extensions?: Record<string, any> }[] }>(server.url, 'POST', '/graphql', {
    body: { query, variables },
    key,
  });
}

let counter = 0;
/** A unique, valid agent name for this test file. */
export function uniqueName(prefix = 'agent'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`.slice(0, 50);
}

export async function registerAgent(server: { url: string }, overrides: Record<string, unknown> = {}) {
  const res = await api(server)('POST', '/agents/register', {
    body: { name: uniqueName(), description: 'An agent made by a test', ownerEmail: 'owner@example.com', ...overrides },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return { key: res.body.master_key as string, agentId: res.body.agent_id as string, name: res.body.name as string, body: res.body };
}

/** A capability slug no other test (or property run) uses. */
export const uniqueSlug = (prefix = 'cap') => uniqueName(prefix).toLowerCase();

/** A valid POST /services/register body in the documented names. */
export function serviceBody(overrides: Record<string, unknown> = {}) {
  return {
    name: uniqueName('svc'),
    endpoint: 'https://provider.example.com/run',
    capabilities: ['summarize'],
    description: 'at least ten characters',
    pricing_model: 'per_call',
    cost_per_call: 5,
    ...overrides,
  };
}

export async function registerService(server: { url: string }, key: string, overrides: Record<string, unknown> = {}) {
  const res = await api(server)('POST', '/services/register', { key, body: serviceBody(overrides) });
  if (res.status !== 201) throw new Error(`service registration failed: ${res.status} ${res.text}`);
  return res.body as { service_id: string; service_key: string; name: string; [field: string]: unknown };
}
