// Standard Webhooks signatures (https://www.standardwebhooks.com) for outbound deliveries: the
// symmetric v1 (HMAC-SHA256 with a per-subscriber whsec_ secret) and the asymmetric v1a (Ed25519).
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export interface SignedContent {
  id: string;
  timestampSeconds: number;
  body: string;
}

/** Both schemes sign the same bytes: `id.timestamp.body`. */
function signedContent(id: string, timestampSeconds: number, body: string): string {
  // Receivers parse webhook-timestamp as an integer, so a fractional value could never verify.
  if (!Number.isInteger(timestampSeconds)) throw new TypeError('timestampSeconds must be whole seconds');
  return `${id}.${timestampSeconds}.${body}`;
}

/**
 * The HMAC keys of the secrets in use, decoded once: a provider's secret signs every call made to it. Past
 * KEYS_KEPT secrets the memory starts over. Only what is already held in memory (the services' cached
 * rows carry their secrets) is kept, in another form.
 */
const keys = new Map<string, Buffer>();
const KEYS_KEPT = 1024;

function hmacKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (key) return key;
  // Strict about the prefix: decoding some other string as base64 would sign with a key nobody holds.
  if (!secret.startsWith(SECRET_PREFIX)) throw new TypeError('a webhook secret starts with whsec_');
  key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (keys.size >= KEYS_KEPT) keys.clear();
  keys.set(secret, key);
  return key;
}

/** `v1,<base64 HMAC-SHA256>` keyed with the base64 part of a `whsec_…` secret. */
export function hmacSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = hmacKey(secret);
  const mac = createHmac('sha256', key)
    .update(signedContent(id, timestampSeconds, body))
    .digest('base64');
  return `v1,${mac}`;
}

/** `v1a,<base64 Ed25519 signature>` of the same content. */
export function ed25519Signature(privateKey: KeyObject, id: string, timestampSeconds: number, body: string): string {
  // Ed25519 hashes internally, so the algorithm argument is null.
  const signature = sign(null, Buffer.from(signedContent(id, timestampSeconds, body)), privateKey);
  return `v1a,${signature.toString('base64')}`;
}

export interface SigningKeyPair {
  /** SPKI PEM. */
  publicKey: string;
  /** PKCS#8 PEM. */
  privateKey: string;
}

export function generateSigningKeyPair(): SigningKeyPair {
  return generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

// A type alias rather than an interface so that it is assignable to node:crypto's JsonWebKey.
export type Ed25519Jwk = {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
};

/** The RFC 8037 JWK that receivers fetch to verify v1a signatures. */
export function publicJwk(publicKey: KeyObject, kid: string): Ed25519Jwk {
  if (publicKey.type !== 'public' || publicKey.asymmetricKeyType !== 'ed25519') {
    throw new TypeError('publicJwk needs an Ed25519 public key');
  }
  const { x } = publicKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: x as string, kid, use: 'sig', alg: 'EdDSA' };
}

export interface WebhookHeaderInput extends SignedContent {
  /** The receiver's whsec_ secret; adds the v1 signature for receivers that verify symmetrically. */
  secret?: string;
  /** The marketplace's key; adds the v1a signature (every event carries one, CONTRACT §7). */
  privateKey?: KeyObject;
}

/** Standard Webhooks headers with a v1a signature, a v1 one, or both (at least one is required). */
export function webhookHeaders(input: WebhookHeaderInput): Record<string, string> {
  const { id, timestampSeconds, body } = input;
  if (!input.privateKey && input.secret === undefined) throw new TypeError('webhookHeaders needs a private key, a secret or both');
  const signatures: string[] = [];
  if (input.privateKey) signatures.push(ed25519Signature(input.privateKey, id, timestampSeconds, body));
  if (input.secret !== undefined) signatures.push(hmacSignature(input.secret, id, timestampSeconds, body));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
    'content-type': 'application/json',
  };
}
