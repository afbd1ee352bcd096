// Idempotency-Key (CONTRACT §8): the first answer to a creating request is stored for 24 hours and replayed for
// the same key and request; another request under the key is a conflict, and a copy arriving meanwhile waits.
// A stored answer may carry a secret shown once, so it is sealed with the requester's own credential and replayed
// only to it; without a credential, an answer that issues one is not replayed (docs/security.md, Secrets in
// idempotent answers).
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { SqlRunner } from '../db/database';
import { BadRequest, Conflict } from './errors';
import { InFlight, waitForClaim } from './in-flight';

export const IDEMPOTENCY_TTL_HOURS = 24;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export type Claim = { kind: 'first' } | { kind: 'replay'; status: number; body: unknown; headers: Record<string, string> };

/** How an answer is kept: sealed with the requester's credential, or withheld (an issued credential, asked for without one). */
export interface Keeping {
  sealWith?: string;
  withhold?: boolean;
}

/** What a withheld answer is stored as. */
const WITHHELD = { withheld: true };

function sealingKey(secret: string, subject: string, key: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, `${subject}\u0000${key}`, 'idempotent answer', 32));
}

function seal(body: unknown, secret: string, subject: string, key: string): { sealed: string } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret, subject, key), iv);
  const text = Buffer.concat([cipher.update(JSON.stringify(body), 'utf8'), cipher.final()]);
  return { sealed: Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64') };
}

function open(sealed: string, secret: string, subject: string, key: string): unknown {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret, subject, key), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'));
}

/**
 * Answers that are not kept: a 5xx (the client may retry it) and a 402 (the client retries it with a
 * payment, under the same key).
 */
export function isKept(status: number): boolean {
  return status < 500 && status !== 402;
}

export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header) || !KEY_SHAPE.test(header)) {
    throw new BadRequest('Idempotency-Key must be 1 to 255 visible ASCII characters, given once');
  }
  return header;
}

/** A request's fingerprint: its route and what it asked, with object keys in any order counting as one. */
export function requestHash(route: string, parts: unknown[]): string {
  return createHash('sha256')
    .update(
      JSON.stringify([route, ...parts], (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? sortedKeys(v as Record<string, unknown>) : v)),
    )
    .digest('hex');
}

function sortedKeys(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = value[k];
  return out;
}

export class IdempotencyStore {
  /** Claims held by requests of this instance, so that a waiting copy here is woken when they finish. */
  private readonly claims = new InFlight();
  private readonly finished = new Map<string, () => void>();

  /** `waitMs`: how long a copy waits for the first request's answer before answering 409 in progress. */
  constructor(
    private readonly sql: SqlRunner,
    private readonly waitMs = 30_000,
  ) {}

  /**
   * Claims the key for this request, or returns the stored answer, waiting for it while the first request
   * is still being answered; throws 409 for a conflicting reuse, or when the first takes longer than
   * `waitMs`.
   */
  async claim(subject: string, key: string, route: string, hash: string, keeping: Keeping = {}): Promise<Claim> {
    const id = `${subject}\u0000${key}`;
    const found = await waitForClaim(this.claims, id, () => this.attempt(subject, key, route, hash, id), Date.now() + this.waitMs);
    if (!found) throw new Conflict('A request with this Idempotency-Key is still in progress');
    if (found.kind === 'first') return found;
    const body = found.body as { sealed?: unknown; withheld?: unknown } | null;
    if (body && body.withheld === true) {
      throw new Conflict('A request with this Idempotency-Key was answered with a credential, shown once to that request: it is not shown again');
    }
    if (body && typeof body.sealed === 'string') {
      // The subject is the credential's hash, so the same subject holds the same credential.
      if (!keeping.sealWith) throw new Conflict('This Idempotency-Key was used with a different request');
      return { ...found, body: open(body.sealed, keeping.sealWith, subject, key) };
    }
    return found;
  }

  private async attempt(subject: string, key: string, route: string, hash: string, id: string): Promise<Claim | undefined> {
    const inserted = await this.sql.query<{ key: string }>(
      `INSERT INTO idempotency_records (subject, key, route, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (subject, key) DO NOTHING RETURNING key`,
      [subject, key, route, hash],
      'idempotency_claim',
    );
    if (inserted.length) {
      void this.claims.run(id, () => new Promise<void>((resolve) => this.finished.set(id, resolve)));
      return { kind: 'first' };
    }
    const [row] = await this.sql.query<{ route: string; request_hash: string; status: number | null; body: unknown; headers: Record<string, string> | null }>(
      `SELECT route, request_hash, status, body, headers FROM idempotency_records WHERE subject = $1 AND key = $2`,
      [subject, key],
      'idempotency_read',
    );
    // Released meanwhile: claim it again.
    if (!row) return this.attempt(subject, key, route, hash, id);
    if (row.route !== route || row.request_hash !== hash) throw new Conflict('This Idempotency-Key was used with a different request');
    if (row.status === null) return undefined;
    return { kind: 'replay', status: row.status, body: row.body, headers: row.headers ?? {} };
  }

  private wake(subject: string, key: string): void {
    const id = `${subject}\u0000${key}`;
    this.finished.get(id)?.();
    this.finished.delete(id);
  }

  /**
   * Stores the answer to replay, with the headers the operation gave it (see isKept for what is not
   * stored), sealed with the requester's credential or withheld as `keeping` says.
   */
  async complete(subject: string, key: string, status: number, body: unknown, headers: Record<string, string> = {}, keeping: Keeping = {}): Promise<void> {
    if (!isKept(status)) return this.release(subject, key);
    const kept = keeping.sealWith ? seal(body, keeping.sealWith, subject, key) : keeping.withhold && status < 400 ? WITHHELD : body;
    try {
      await this.sql.query(
        `UPDATE idempotency_records SET status = $3, body = $4, headers = $5 WHERE subject = $1 AND key = $2`,
        [subject, key, status, JSON.stringify(kept), JSON.stringify(headers)],
        'idempotency_complete',
      );
    } finally {
      this.wake(subject, key);
    }
  }

  async release(subject: string, key: string): Promise<void> {
    try {
      await this.sql.query(`DELETE FROM idempotency_records WHERE subject = $1 AND key = $2 AND status IS NULL`, [subject, key]);
    } finally {
      this.wake(subject, key);
    }
  }

  async purgeExpired(now: Date): Promise<void> {
    await this.sql.query(`DELETE FROM idempotency_records WHERE created_at < $1::timestamptz - make_interval(hours => $2)`, [now, IDEMPOTENCY_TTL_HOURS]);
  }
}
