// Bearer credentials: reading the Authorization header (or a graphql-ws connection_init payload) into
// the secret and the SHA-256 under which it is stored. Who the secret belongs to is the domain's concern.
import { sha256Hex } from './ids';

export type Bearer = { kind: 'none' } | { kind: 'malformed' } | { kind: 'key'; secret: string; hash: string };

const KEY_SHAPE = /^key_[a-z]+_[0-9A-Za-z]{20,64}$/;

export function parseBearer(header: unknown): Bearer {
  if (header === undefined || header === null || header === '') return { kind: 'none' };
  if (typeof header !== 'string') return { kind: 'malformed' };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match || !KEY_SHAPE.test(match[1])) return { kind: 'malformed' };
  return { kind: 'key', secret: match[1], hash: sha256Hex(match[1]) };
}
