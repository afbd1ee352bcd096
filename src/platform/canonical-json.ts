// The JSON Canonicalization Scheme (RFC 8785): one text for one JSON value, whatever the order of its keys,
// so that anyone holding the value computes the same digest of it.
import { createHash } from 'node:crypto';

/**
 * A JSON value's canonical text: object keys sorted by their UTF-16 code units (a plain `sort()`), no
 * whitespace, numbers and strings as ECMAScript's JSON.stringify writes them (what RFC 8785 prescribes).
 * Members whose value is undefined are left out, as JSON.stringify leaves them; a value with `toJSON` (a Date)
 * is written as what that gives.
 */
export function canonicalJson(value: unknown): string {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return canonicalJson((value as { toJSON(): unknown }).toJSON());
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const object = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(object).sort()) {
    if (object[key] !== undefined) members.push(`${JSON.stringify(key)}:${canonicalJson(object[key])}`);
  }
  return `{${members.join(',')}}`;
}

/** SHA-256 of a JSON value's canonical text (UTF-8), in lower-case hexadecimal. */
export function canonicalSha256(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
