// Idempotency-Key (CONTRACT §8): the first answer to a creating request is stored and replayed for the
// same key and request; the same key with another request is a conflict. Records live 24 hours.
import { createHash } from 'node:crypto';
import type { SqlRunner } from '../db/database';
import { BadRequest, Conflict } from './errors';

export const IDEMPOTENCY_TTL_HOURS = 24;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export type Claim =
  | { kind: 'first' }
  | { kind: 'replay'; status: number; body: unknown };

export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header) || !KEY_SHAPE.test(header)) {
    throw new BadRequest('Idempotency-Key must be 1 to 255 visible ASCII characters, given once');
  }
  return header;
}

/** A request's fingerprint: its route and what it asked, with object keys in any order counting as one. */
export function requestHash(route: string, parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify([route, ...parts], (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? sortedKeys(v as Record<string, unknown>) : v))).digest('hex');
}

function sortedKeys(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = value[k];
  return out;
}

export class IdempotencyStore {
  constructor(private readonly sql: SqlRunner) {}

  /** Claims the key for this request, or returns the stored answer; throws 409 for a conflicting reuse. */
  async claim(subject: string, key: string, route: string, hash: string): Promise<Claim> {
    const inserted = await this.sql.query<{ key: string }>(
      `INSERT INTO idempotency_records (subject, key, route, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (subject, key) DO NOTHING RETURNING key`,
      [subject, key, route, hash],
      'idempotency_claim',
    );
    if (inserted.length) return { kind: 'first' };
    const [row] = await this.sql.query<{ route: string; request_hash: string; status: number | null; body: unknown }>(
      `SELECT route, request_hash, status, body FROM idempotency_records WHERE subject = $1 AND key = $2`,
      [subject, key],
      'idempotency_read',
    );
    if (!row) return this.claim(subject, key, route, hash);
    if (row.route !== route || row.request_hash !== hash) throw new Conflict('This Idempotency-Key was used with a different request');
    if (row.status === null) throw new Conflict('A request with this Idempotency-Key is still in progress');
    return { kind: 'replay', status: row.status, body: row.body };
  }

  /** Stores the answer to replay (a 5xx is not stored: the client may retry it). */
  async complete(subject: string, key: string, status: number, body: unknown): Promise<void> {
    if (status >= 500) return this.release(subject, key);
    await this.sql.query(`UPDATE idempotency_records SET status = $3, body = $4 WHERE subject = $1 AND key = $2`, [subject, key, status, JSON.stringify(body)], 'idempotency_complete');
  }

  async release(subject: string, key: string): Promise<void> {
    await this.sql.query(`DELETE FROM idempotency_records WHERE subject = $1 AND key = $2 AND status IS NULL`, [subject, key]);
  }

  async purgeExpired(now: Date): Promise<void> {
    await this.sql.query(`DELETE FROM idempotency_records WHERE created_at < $1::timestamptz - make_interval(hours => $2)`, [now, IDEMPOTENCY_TTL_HOURS]);
  }
}
