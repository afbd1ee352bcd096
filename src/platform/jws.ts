// Compact JWS (RFC 7515) with EdDSA over Ed25519 (RFC 8037): what the marketplace signs claims with so
// that any JOSE library verifies them offline against /.well-known/jwks.json (the `kid` names the key).
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { Ed25519Jwk } from './signing';

const b64url = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

/** Signs `claims` as a compact JWS `header.payload.signature` with header `{ alg: EdDSA, kid, typ }`. */
export function signCompact(claims: Record<string, unknown>, key: { kid: string; privateKey: KeyObject }, typ = 'JWT'): string {
  const header = b64url(JSON.stringify({ alg: 'EdDSA', kid: key.kid, typ }));
  const payload = b64url(JSON.stringify(claims));
  const signature = sign(null, Buffer.from(`${header}.${payload}`), key.privateKey);
  return `${header}.${payload}.${b64url(signature)}`;
}

export type JwsFailure = 'malformed' | 'unknown_key' | 'bad_signature';

export type JwsResult = { ok: true; header: Record<string, unknown>; claims: Record<string, unknown> } | { ok: false; reason: JwsFailure };

const SEGMENT = /^[A-Za-z0-9_-]+$/;

function decodeJson(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies a compact JWS against a key set: EdDSA only (an `alg` of `none` or anything else is malformed,
 * never trusted), the key named by `kid`. Answers the header and the claims, or why it failed.
 */
export function verifyCompact(token: unknown, keys: readonly Ed25519Jwk[]): JwsResult {
  if (typeof token !== 'string' || token.length > 16_384) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return { ok: false, reason: 'malformed' };
  const header = decodeJson(parts[0]);
  const claims = decodeJson(parts[1]);
  if (!header || !claims || header.alg !== 'EdDSA' || typeof header.kid !== 'string') return { ok: false, reason: 'malformed' };
  const jwk = keys.find((k) => k.kid === header.kid);
  if (!jwk) return { ok: false, reason: 'unknown_key' };
  const publicKey = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  const signature = Buffer.from(parts[2], 'base64url');
  // base64url decoding is lenient: re-encoding must give back the very segment that was signed.
  if (b64url(signature) !== parts[2]) return { ok: false, reason: 'bad_signature' };
  const good = verify(null, Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, signature);
  return good ? { ok: true, header, claims } : { ok: false, reason: 'bad_signature' };
}
