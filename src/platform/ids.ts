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
  for (let n = 0; n < length; ) {
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
export const newEventId = () => `evt_${base62(24)}`;
export const newRequestId = () => `req_${base62(20)}`;
export const newUuid = () => randomUUID();

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
