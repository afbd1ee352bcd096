// What the peers share: the credential lookup (PostgreSQL through pg.Pool, or an in-memory PGlite
// migrated and seeded with the benchmark's agent), and their lifecycle (announce the port, exit with the parent).
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface AgentRow {
  id: string;
  agent_key: string;
  name: string;
  description: string;
  reputation: number;
  status: string;
  autonomy_level: string;
  capabilities: string[];
  created_at: Date;
  updated_at: Date;
}

export interface SubKeyRow {
  id: string;
  agent_id: string;
  reputation: number;
  agent_status: string;
  service_key: string;
  service_status: string;
  permissions: string[];
  expires_at: Date | null;
  grace_ends_at: Date | null;
}

export interface PeerDb {
  kind: 'pglite' | 'postgres';
  /** The agent owning a live credential with this hash (what the server's principal lookup does). */
  agentByKeyHash(hash: string): Promise<AgentRow | undefined>;
  /** A sub-key by its hash with its holder and service (what the server's verify does). */
  subKeyByHash(hash: string): Promise<SubKeyRow | undefined>;
  close(): Promise<void>;
}

/** The same lookup as the server's verify: the sub-key by hash, its holder and its service. */
const SUB_KEY_LOOKUP = `
  SELECT k.id, k.permissions, k.expires_at, k.grace_ends_at, a.id AS agent_id, a.reputation, a.status AS agent_status,
    s.service_key, s.status AS service_status
  FROM sub_keys k JOIN agents a ON a.id = k.agent_id JOIN services s ON s.id = k.service_id
  WHERE k.hash = $1 AND k.revoked_at IS NULL`;

/** The same lookup as the server's: the credential by its hash, joined to its agent, not revoked. */
const LOOKUP = `
  SELECT a.id, a.agent_key, a.name, a.description, a.reputation, a.status, a.autonomy_level, a.capabilities, a.created_at, a.updated_at
  FROM credentials c JOIN agents a ON a.id = c.agent_id
  WHERE c.hash = $1 AND c.revoked_at IS NULL`;

const MIGRATIONS = path.resolve(__dirname, '..', '..', 'prisma', 'migrations');

export const sha256Hex = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** The secret of `Authorization: Bearer <secret>`, if the header has that shape. */
export function bearerSecret(header: string | null | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

async function openPglite(): Promise<PeerDb> {
  const db = new PGlite();
  const dirs = fs
    .readdirSync(MIGRATIONS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  for (const dir of dirs) await db.exec(fs.readFileSync(path.join(MIGRATIONS, dir, 'migration.sql'), 'utf8'));
  // The benchmark's agent as the server registered it, with the same master key's hash.
  await db.query(`INSERT INTO agents (id, agent_key, name, description, owner_email, updated_at) VALUES ($1, $2, $3, $4, $5, now())`, [
    required('BENCH_AGENT_ID'),
    required('BENCH_AGENT_KEY'),
    required('BENCH_AGENT_NAME'),
    required('BENCH_AGENT_DESCRIPTION'),
    required('BENCH_OWNER_EMAIL'),
  ]);
  await db.query(`INSERT INTO credentials (id, kind, hash, hint, agent_id) VALUES ($1, 'master', $2, 'key_master_…', $3)`, [
    randomUUID(),
    sha256Hex(required('BENCH_MASTER_KEY')),
    required('BENCH_AGENT_ID'),
  ]);
  // The benchmark's sub-key, for a service of the benchmark's agent (the holder is what verify reports).
  const serviceId = randomUUID();
  await db.query(
    `INSERT INTO services (id, service_key, agent_id, name, description, endpoint, capabilities, pricing_model, signing_secret, updated_at)
     VALUES ($1, $2, $3, 'Bench verify service', 'The benchmark service', 'https://bench.example.com/verify', ARRAY['summarize'], 'free', 'whsec_bench', now())`,
    [serviceId, required('BENCH_SERVICE_KEY'), required('BENCH_AGENT_ID')],
  );
  await db.query(
    `INSERT INTO sub_keys (id, hash, hint, agent_id, service_id, permissions, expires_at) VALUES ($1, $2, 'key_service_…', $3, $4, ARRAY['read'], now() + interval '365 days')`,
    [randomUUID(), sha256Hex(required('BENCH_SUB_KEY')), required('BENCH_AGENT_ID'), serviceId],
  );
  return {
    kind: 'pglite',
    agentByKeyHash: async (hash) => (await db.query<AgentRow>(LOOKUP, [hash])).rows[0],
    subKeyByHash: async (hash) => (await db.query<SubKeyRow>(SUB_KEY_LOOKUP, [hash])).rows[0],
    close: () => db.close(),
  };
}

function openPostgres(url: string): PeerDb {
  // The server's pool size (src/db/database.ts) for a like-for-like comparison.
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    agentByKeyHash: async (hash) => (await pool.query<AgentRow>(LOOKUP, [hash])).rows[0],
    subKeyByHash: async (hash) => (await pool.query<SubKeyRow>(SUB_KEY_LOOKUP, [hash])).rows[0],
    close: () => pool.end(),
  };
}

/** Opens the peer's database and checks that the benchmark's master key finds the benchmark's agent. */
export async function openPeerDb(): Promise<PeerDb> {
  const db = process.env.DATABASE_URL ? openPostgres(process.env.DATABASE_URL) : await openPglite();
  const agent = await db.agentByKeyHash(sha256Hex(required('BENCH_MASTER_KEY')));
  if (agent?.id !== required('BENCH_AGENT_ID')) {
    await db.close();
    throw new Error(`the master key does not find agent ${process.env.BENCH_AGENT_ID} in the ${db.kind} database`);
  }
  return db;
}

/**
 * Listens on an ephemeral loopback port and prints `{"ready":true,"port":N}` for the parent; exits on
 * SIGTERM/SIGINT or when the parent goes away (stdin closes).
 */
export function serve(server: http.Server | https.Server, cleanup: () => Promise<void> = async () => {}): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections();
    server.close();
    void cleanup().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port })}\n`);
  });
}

/** Runs a peer's start-up, reporting a failure on stderr with a non-zero exit. */
export function main(start: () => Promise<void>): void {
  start().catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  });
}
