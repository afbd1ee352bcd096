// Identifiers and secrets: base62 random strings with the prefixes of CONTRACT §3, and the SHA-256
// under which every secret is stored and looked up.
import { hash, randomBytes, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn in blocks: one randomBytes call per id is measurable on the request path.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolOffset = 0;

function randomByte(): number {
  if (poolOffset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

const BASE62_CODES = Uint8Array.from(BASE62, (c) => c.charCodeAt(0));
/** Where an id's characters are put together before becoming one string (ids are far shorter). */
const scratch = Buffer.alloc(256);

/** Uniform base62 from a CSPRNG (rejection sampling: 248 = 4 × 62, so no character is favoured). */
export function base62(length: number): string {
  const out = length <= scratch.length ? scratch : Buffer.alloc(length);
  for (let n = 0; n < length;) {
    const byte = randomByte();
    if (byte < 248) out[n++] = BASE62_CODES[byte % 62];
  }
  return out.toString('latin1', 0, length);
}

export const newAgentKey = () => `ag_${base62(24)}`;
export const newMasterKey = () => `key_master_${base62(40)}`;
export const newAdminKey = () => `key_admin_${base62(40)}`;
export const newServiceKey = () => `svc_${base62(24)}`;
export const newTaskId = () => `task_${base62(24)}`;
export const newSwarmId = () => `swarm_${base62(24)}`;
export const newUtoTicketId = () => `uto_${base62(24)}`;
export const newConglomerateId = () => `cong_${base62(24)}`;
/** A UTO notification subscription. */
export const newNotificationSubscriptionId = () => `sub_${base62(24)}`;
export const newSubKey = () => `key_service_${base62(40)}`;
/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
/**
 * An event: `evt_` and 24 base62, the first 9 the time in milliseconds in base 36 (which every collation orders as
 * it counts), the other 15 random (89 bits). Ids that grow with time append at the index's right edge, where random
 * ones landed on a different page each (docs/execution.md, "Time-ordered keys").
 */
export const newEventId = () => `evt_${timePrefix()}${base62(15)}`;
export const newRequestId = () => `req_${base62(20)}`;
export const newUuid = () => randomUUID();

/** Milliseconds since the epoch, 9 base-36 digits (fixed width until the year 5138). */
function timePrefix(): string {
  return Date.now().toString(36).padStart(9, '0');
}

const uuidBytes = Buffer.alloc(16);
/**
 * A time-ordered UUID (version 7, RFC 9562): 48 bits of milliseconds since the epoch, then 74 random bits.
 * For rows keyed by their id and written on every call (executions, transactions): their index grows at its
 * right edge instead of taking each insert on a random page. Still unguessable (74 bits).
 */
export function newTimeOrderedUuid(): string {
  const b = uuidBytes;
  b.writeUIntBE(Date.now(), 0, 6);
  for (let n = 6; n < 16; n++) b[n] = randomByte();
  // The version (7) in the high nibble of byte 6; the variant (binary 10) in the high bits of byte 8.
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = 0x80 | (b[8] & 0x3f);
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Whether a path or body value can be a database id (anything else simply names no object). */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

export function sha256Hex(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** What may be shown of a secret: its prefix and four characters. */
export function secretHint(secret: string): string {
  const cut = secret.lastIndexOf('_') + 1;
  return `${secret.slice(0, cut + 4)}…`;
}
