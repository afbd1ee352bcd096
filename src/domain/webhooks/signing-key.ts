// The marketplace's Ed25519 event-signing key: generated once (the first instance to start wins, under an
// advisory lock) and shared by every instance through the database; its public half is the JWKS.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { Db, SqlRunner } from '../../db/database';
import { base62 } from '../../platform/ids';
import { generateSigningKeyPair, publicJwk, type Ed25519Jwk } from '../../platform/signing';

declare module '../context' {
  interface Services {
    /** The marketplace's Ed25519 keys: they sign outbound events, passports and vault tokens. */
    signingKeys: SigningKeys;
  }
}

export interface SigningKeys {
  /** The key every outbound event is signed with now. */
  current: { kid: string; privateKey: KeyObject };
  /** Public keys a receiver may meet (current first), as an RFC 7517 key set. */
  jwks: { keys: Ed25519Jwk[] };
}

/** An arbitrary constant naming the advisory lock that serialises key generation across instances. */
const SIGNING_KEY_LOCK = 7_135_201;

/** The keys in use; generated when there are none (the read is SQL: see createApp). */
export async function loadSigningKeys(db: Db, sql: SqlRunner): Promise<SigningKeys> {
  let rows = await sql.query<{ id: string; privateKey: string; publicKey: string }>(
    'SELECT id, private_key AS "privateKey", public_key AS "publicKey" FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC',
    [],
  );
  if (!rows.length) {
    rows = await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SIGNING_KEY_LOCK})`;
      const existing = await tx.signingKey.findMany({ where: { retiredAt: null }, orderBy: { createdAt: 'desc' } });
      if (existing.length) return existing;
      const pair = generateSigningKeyPair();
      return [await tx.signingKey.create({ data: { id: `mk_${base62(16)}`, privateKey: pair.privateKey, publicKey: pair.publicKey } })];
    });
  }
  const [newest] = rows;
  return {
    current: { kid: newest.id, privateKey: createPrivateKey(newest.privateKey) },
    jwks: { keys: rows.map((r) => publicJwk(createPublicKey(r.publicKey), r.id)) },
  };
}
