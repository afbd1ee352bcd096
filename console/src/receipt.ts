// A signed execution receipt checked in the page, as any verifier would check it (docs/execution.md, Signed
// receipts): its EdDSA signature against the key its `kid` names in /.well-known/jwks.json, with the browser's
// own WebCrypto, and a result against the receipt's digest of it (SHA-256 of RFC 8785's canonical JSON).

export type ReceiptCheck = { verified: true; keyId: string } | { verified: false; why: string };

const bytesOf = (segment: string): Uint8Array<ArrayBuffer> => {
  const base64 = segment.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
};

/** Verifies a compact JWS's signature against the marketplace's published keys. */
export async function verifySignedReceipt(token: string): Promise<ReceiptCheck> {
  const parts = token.split('.');
  if (parts.length !== 3) return { verified: false, why: 'it is not a compact JWS' };
  let header: { alg?: string; kid?: string; typ?: string };
  try {
    header = JSON.parse(new TextDecoder().decode(bytesOf(parts[0])));
  } catch {
    return { verified: false, why: 'its header is not JSON' };
  }
  if (header.alg !== 'EdDSA' || header.typ !== 'receipt+jwt')
    return { verified: false, why: `it is a ${header.typ ?? 'token'} signed with ${header.alg ?? 'nothing'}` };
  const res = await fetch('/.well-known/jwks.json');
  if (!res.ok) return { verified: false, why: `the key set answered ${res.status}` };
  const { keys } = (await res.json()) as { keys: { kid: string; kty: string; crv: string; x: string }[] };
  const jwk = keys.find((k) => k.kid === header.kid);
  if (!jwk) return { verified: false, why: `no published key is ${header.kid}` };
  try {
    const key = await crypto.subtle.importKey('jwk', { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, { name: 'Ed25519' }, false, ['verify']);
    const good = await crypto.subtle.verify({ name: 'Ed25519' }, key, bytesOf(parts[2]), new TextEncoder().encode(`${parts[0]}.${parts[1]}`));
    return good ? { verified: true, keyId: jwk.kid } : { verified: false, why: 'the signature does not match' };
  } catch (err) {
    return { verified: false, why: `this browser cannot check Ed25519 signatures (${String(err)})` };
  }
}

/** RFC 8785: keys sorted by UTF-16 code units, no whitespace, numbers and strings as JSON.stringify writes them. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const object = value as Record<string, unknown>;
  const members = Object.keys(object)
    .sort()
    .filter((k) => object[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`);
  return `{${members.join(',')}}`;
}

/** SHA-256 of a JSON value's canonical text, in hexadecimal. */
export async function canonicalSha256(value: unknown): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalJson(value)));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
