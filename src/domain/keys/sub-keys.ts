// Sub-keys: a consumer's credential for one provider's service (CONTRACT §3). Provisioned within the
// tier's allowance and the service's sub-key policy, checked by providers with verify, rotated with a grace
// period (the new key re-checked against the policy), revoked.
import type { Prisma, SubKey } from '../../db/generated/prisma/client';
import { Conflict, Forbidden, NotFound, Unauthorized } from '../../platform/errors';
import { isUuid, newSubKey, secretHint, sha256Hex } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { recordAudit } from '../audit/audit';
import type { Ctx } from '../context';
import { transact } from '../events';
import { tierDefinition, tierOf } from '../reputation/reputation';
import { policyName, RATE_LIMIT_MAX, readPermissions, type SubKeyPolicy } from './sub-key-policy';

export const DEFAULT_PERMISSIONS = ['read'];
export const DEFAULT_GRACE_SECONDS = 24 * 60 * 60;
export const DEFAULT_RATE_LIMITS = { requests_per_minute: 60 };

/** A sub-key's limits as stored in `rate_limits` (the names the REST layer has always shown). */
export interface StoredRateLimits {
  requests_per_minute?: number;
  requests_per_day?: number;
}

export function rateLimitsOf(stored: unknown): StoredRateLimits {
  return stored && typeof stored === 'object' && !Array.isArray(stored) ? (stored as StoredRateLimits) : DEFAULT_RATE_LIMITS;
}
const SUB_KEY_SHAPE = /^key_service_[0-9A-Za-z]{40}$/;
const DAY_MS = 86_400_000;

export type SubKeyStatus = 'active' | 'grace' | 'expired' | 'revoked';

export function subKeyStatus(key: Pick<SubKey, 'revokedAt' | 'expiresAt' | 'graceEndsAt'>, now: Date): SubKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt <= now) return 'expired';
  if (key.graceEndsAt) return key.graceEndsAt > now ? 'grace' : 'expired';
  return 'active';
}

export interface ProvisionInput {
  permissions?: unknown;
  rateLimits?: { requestsPerMinute?: number | null; requestsPerDay?: number | null } | null;
  expiresAt?: unknown;
}

function readRateLimits(checks: Checks, value: ProvisionInput['rateLimits']): StoredRateLimits | undefined {
  if (value === undefined || value === null) return undefined;
  const perMinute = checks.integer('rateLimits.requestsPerMinute', value.requestsPerMinute, 1, RATE_LIMIT_MAX) ?? DEFAULT_RATE_LIMITS.requests_per_minute;
  const perDay = checks.integer('rateLimits.requestsPerDay', value.requestsPerDay, 1, RATE_LIMIT_MAX);
  return { requests_per_minute: perMinute, ...(perDay !== undefined ? { requests_per_day: perDay } : {}) };
}

const quoted = (names: string[]) => names.map((n) => `"${n}"`).join(', ');

/**
 * Where a grant is less than was asked (a rate lowered to the policy's maximum, a daily limit the policy
 * sets, a permission a rotation drops), the answer says so: the field in the answer's spelling, what was
 * asked (on rotation: what the old key held), what was granted, and why.
 */
export interface SubKeyBound {
  field: string;
  asked: unknown;
  granted: unknown;
  reason: string;
}

export interface Grant {
  permissions: string[];
  rateLimits: StoredRateLimits;
  bounds: SubKeyBound[];
}

/** The bounds that applied, for an audit entry's details (nothing when none did). */
const boundsDetail = (bounds: SubKeyBound[]) => (bounds.length ? { bounds: bounds.map((b) => ({ ...b })) as Prisma.InputJsonArray } : {});

/**
 * Rates within a policy: one above the policy's maximum is lowered to it, and a key without a daily limit
 * gets the policy's daily maximum when it has one; each such bound is noted.
 */
function ratesWithinPolicy(serviceKey: string, policy: SubKeyPolicy, asked: StoredRateLimits, bounds: SubKeyBound[]): StoredRateLimits {
  const who = policyName(serviceKey, policy);
  const askedPerMinute = asked.requests_per_minute ?? DEFAULT_RATE_LIMITS.requests_per_minute;
  const perMinute = Math.min(askedPerMinute, policy.subKeyMaxPerMinute);
  if (perMinute < askedPerMinute) {
    bounds.push({
      field: 'rate_limits.requests_per_minute',
      asked: askedPerMinute,
      granted: perMinute,
      reason: `${who} allows at most ${perMinute} requests a minute`,
    });
  }
  const maxPerDay = policy.subKeyMaxPerDay;
  let perDay = asked.requests_per_day;
  if (maxPerDay !== null && (perDay === undefined || perDay > maxPerDay)) {
    bounds.push({
      field: 'rate_limits.requests_per_day',
      asked: perDay ?? null,
      granted: maxPerDay,
      reason: `${who} allows at most ${maxPerDay} requests a day${perDay === undefined ? ', so every key has a daily limit' : ''}`,
    });
    perDay = maxPerDay;
  }
  return { requests_per_minute: perMinute, ...(perDay !== undefined ? { requests_per_day: perDay } : {}) };
}

/**
 * What a provisioning is granted under a service's policy, given the permissions named (undefined: read) and the rates
 * asked. A permission the policy does not allow is a 403 naming each field (without a policy, read and write are allowed);
 * rates are bounded by ratesWithinPolicy, and the answer shows the grant and each bound that applied.
 */
export function grantWithinPolicy(serviceKey: string, policy: SubKeyPolicy, named: string[] | undefined, asked: StoredRateLimits): Grant {
  const allowed = policy.subKeyPermissions;
  const notAllowed = policy.subKeyPolicySetAt
    ? `not allowed by the sub-key policy of ${serviceKey}, which allows ${quoted(allowed)}`
    : `not allowed on ${serviceKey} without its owner's allowance: its owner has set no sub-key policy, and without one a sub-key may hold ${quoted(allowed)}`;
  const refusals = new Checks();
  if (named) {
    named.forEach((p, i) => {
      if (!allowed.includes(p)) refusals.refuse(`permissions.${i}`, `"${p}" is ${notAllowed}`);
    });
  } else {
    for (const p of DEFAULT_PERMISSIONS) if (!allowed.includes(p)) refusals.refuse('permissions', `the default "${p}" is ${notAllowed}`);
  }
  refusals.done();
  const permissions = named ? [...new Set(named)] : DEFAULT_PERMISSIONS;
  const bounds: SubKeyBound[] = [];
  const rateLimits = ratesWithinPolicy(serviceKey, policy, asked, bounds);
  return { permissions, rateLimits, bounds };
}

/**
 * What a rotation's new key is granted: the old key's grant re-checked against the policy now. A permission no longer
 * allowed is dropped and a rate above its maximum lowered, each noted in the answer; a key left with no permission is not
 * rotated (403: revoke it and provision one the policy allows).
 */
export function regrantWithinPolicy(serviceKey: string, policy: SubKeyPolicy, held: Pick<SubKey, 'permissions' | 'rateLimits'>): Grant {
  const allowed = policy.subKeyPermissions;
  const permissions = held.permissions.filter((p) => allowed.includes(p));
  const dropped = held.permissions.filter((p) => !allowed.includes(p));
  const who = policyName(serviceKey, policy);
  if (!permissions.length) {
    throw new Forbidden(
      `None of this key's permissions (${quoted(held.permissions)}) is allowed by ${who}, which allows ${quoted(allowed)}: revoke it and provision a key within the policy`,
    );
  }
  const bounds: SubKeyBound[] = [];
  if (dropped.length) {
    bounds.push({
      field: 'permissions',
      asked: held.permissions,
      granted: permissions,
      reason: `${quoted(dropped)} ${dropped.length > 1 ? 'are' : 'is'} no longer allowed by ${who}, which allows ${quoted(allowed)}`,
    });
  }
  const rateLimits = ratesWithinPolicy(serviceKey, policy, rateLimitsOf(held.rateLimits), bounds);
  return { permissions, rateLimits, bounds };
}

export interface ProvisionedKey {
  key: SubKey & { service: { serviceKey: string; name: string } };
  secret: string;
  bounds: SubKeyBound[];
}

export async function provisionSubKey(ctx: Ctx, serviceKey: string, input: ProvisionInput): Promise<ProvisionedKey> {
  const me = await requireAgent(ctx);
  const now = ctx.services.clock.now();
  const checks = new Checks();
  // Kept as the request named them, so that the policy's refusal names each field as given.
  const named = input.permissions === undefined || input.permissions === null ? undefined : (input.permissions as string[]);
  if (named) readPermissions(checks, 'permissions', named);
  const askedRates = readRateLimits(checks, input.rateLimits) ?? DEFAULT_RATE_LIMITS;
  // Every key expires (CONTRACT §3): the configured lifetime unless an earlier, or a later one up to the
  // maximum, is asked for.
  const { subKeyLifetimeDays, subKeyMaxLifetimeDays } = ctx.services.config;
  let expiresAt = new Date(now.getTime() + subKeyLifetimeDays * DAY_MS);
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const at = input.expiresAt instanceof Date ? input.expiresAt : typeof input.expiresAt === 'string' ? new Date(input.expiresAt) : undefined;
    if (!at || Number.isNaN(at.getTime())) checks.fail('expiresAt', 'must be an ISO 8601 timestamp');
    else if (at <= now) checks.fail('expiresAt', 'must be in the future');
    else if (at.getTime() - now.getTime() > subKeyMaxLifetimeDays * DAY_MS) checks.fail('expiresAt', `must be within ${subKeyMaxLifetimeDays} days`);
    else expiresAt = at;
  }
  checks.done();

  // A suspended or banned provider's service (its status in force: an ancestor's suspension counts) is not
  // available, as an inactive one is not.
  const service = await ctx.db.service.findFirst({
    where: { serviceKey, status: 'active', agent: { status: 'ACTIVE' } },
    select: { id: true, serviceKey: true, name: true, subKeyPermissions: true, subKeyMaxPerMinute: true, subKeyMaxPerDay: true, subKeyPolicySetAt: true },
  });
  if (!service) throw new NotFound('active service', serviceKey);
  const { permissions, rateLimits, bounds } = grantWithinPolicy(service.serviceKey, service, named, askedRates);

  const secret = newSubKey();
  const key = await transact(ctx, async (tx, emit) => {
    // Serialise provisioning per agent so two requests cannot both take the last free place.
    const [locked] = await tx.$queryRaw<{ reputation: number }[]>`SELECT reputation FROM agents WHERE id = ${me.id}::uuid FOR NO KEY UPDATE`;
    const tier = tierDefinition(locked.reputation);
    if (tier.subKeyLimit !== null) {
      const live = await tx.subKey.count({
        where: { agentId: me.id, revokedAt: null, graceEndsAt: null, expiresAt: { gt: now } },
      });
      if (live >= tier.subKeyLimit) {
        throw new Forbidden(`The ${tier.name} tier allows ${tier.subKeyLimit} live sub-keys; revoke one or raise your reputation`);
      }
    }
    const created = await tx.subKey.create({
      data: { hash: sha256Hex(secret), hint: secretHint(secret), agentId: me.id, serviceId: service.id, permissions, rateLimits: { ...rateLimits }, expiresAt },
      include: { service: { select: { serviceKey: true, name: true } } },
    });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'key.provisioned',
      targetType: 'sub_key',
      targetId: created.id,
      details: { service_key: serviceKey, permissions, rate_limits: { ...rateLimits }, ...boundsDetail(bounds) },
    });
    await emit(me.id, 'key.provisioned', {
      sub_key_id: created.id,
      service_key: serviceKey,
      permissions,
      rate_limits: rateLimits,
      expires_at: created.expiresAt.toISOString(),
    });
    return created;
  });
  return { key, secret, bounds };
}

export interface Verification {
  valid: true;
  agentId: string;
  reputation: number;
  tier: string;
  subKeyId: string;
  serviceKey: string;
  permissions: string[];
  rateLimits: unknown;
  expiresAt: Date;
}

const VERIFY_SQL = `
  SELECT k.id, k.permissions, k.rate_limits AS "rateLimits", k.expires_at AS "expiresAt", k.grace_ends_at AS "graceEndsAt",
    a.id AS "agentId", a.reputation, a.status::text AS "agentStatus", s.service_key AS "serviceKey", s.status::text AS "serviceStatus",
    p.status::text AS "providerStatus"
  FROM sub_keys k JOIN agents a ON a.id = k.agent_id JOIN services s ON s.id = k.service_id JOIN agents p ON p.id = s.agent_id
  WHERE k.hash = $1 AND k.revoked_at IS NULL`;

/**
 * Checks a presented sub-key. Unknown, malformed, revoked, expired and past-grace keys, and keys of a
 * suspended holder, an inactive service or a service whose provider is suspended or banned, all get the
 * same 401. One indexed query on the driver.
 */
export async function verifySubKey(ctx: Ctx, key: unknown): Promise<Verification> {
  const checks = new Checks();
  if (typeof key !== 'string' || key === '') checks.fail('key', 'is required');
  checks.done();
  const invalid = () => new Unauthorized('The key is not valid');
  if (!SUB_KEY_SHAPE.test(key as string)) throw invalid();
  const [row] = await ctx.services.sql.query<{
    id: string;
    permissions: string[];
    rateLimits: unknown;
    expiresAt: Date;
    graceEndsAt: Date | null;
    agentId: string;
    reputation: number;
    agentStatus: string;
    serviceKey: string;
    serviceStatus: string;
    providerStatus: string;
  }>(VERIFY_SQL, [sha256Hex(key as string)], 'verify_sub_key');
  const now = ctx.services.clock.now();
  if (!row || row.agentStatus !== 'ACTIVE' || row.serviceStatus !== 'active' || row.providerStatus !== 'ACTIVE') throw invalid();
  if (row.expiresAt <= now || (row.graceEndsAt && row.graceEndsAt <= now)) throw invalid();
  return {
    valid: true,
    agentId: row.agentId,
    reputation: row.reputation,
    tier: tierOf(row.reputation),
    subKeyId: row.id,
    serviceKey: row.serviceKey,
    permissions: row.permissions,
    rateLimits: row.rateLimits,
    expiresAt: row.expiresAt,
  };
}

async function ownKey(ctx: Ctx, keyId: string) {
  const me = await requireAgent(ctx);
  const key = isUuid(keyId) ? await ctx.db.subKey.findFirst({ where: { id: keyId, agentId: me.id } }) : null;
  if (!key) throw new NotFound('sub-key', keyId);
  return { me, key };
}

export interface Rotation {
  key: SubKey & { service: { serviceKey: string; name: string } };
  secret: string;
  previous: SubKey;
  bounds: SubKeyBound[];
}

export async function rotateSubKey(ctx: Ctx, keyId: string, input: { gracePeriodSeconds?: unknown }): Promise<Rotation> {
  const { me, key } = await ownKey(ctx, keyId);
  const checks = new Checks();
  let grace = DEFAULT_GRACE_SECONDS;
  grace = checks.integer('gracePeriodSeconds', input.gracePeriodSeconds, 0, DEFAULT_GRACE_SECONDS) ?? grace;
  checks.done();
  const now = ctx.services.clock.now();
  const status = subKeyStatus(key, now);
  if (status !== 'active') throw new Conflict(`Only an active key can be rotated; this one is ${status === 'grace' ? 'already rotated' : status}`);

  // The new key holds what the service's policy allows now, which its owner may have narrowed since.
  const service = await ctx.db.service.findUniqueOrThrow({
    where: { id: key.serviceId },
    select: { serviceKey: true, subKeyPermissions: true, subKeyMaxPerMinute: true, subKeyMaxPerDay: true, subKeyPolicySetAt: true },
  });
  const { permissions, rateLimits, bounds } = regrantWithinPolicy(service.serviceKey, service, key);

  const secret = newSubKey();
  const graceEnds = new Date(now.getTime() + grace * 1000);
  return transact(ctx, async (tx, emit) => {
    // Rotating again ends the grace of the key this one replaced.
    if (key.rotatedFromId) {
      await tx.subKey.updateMany({ where: { id: key.rotatedFromId, revokedAt: null }, data: { revokedAt: now, graceEndsAt: now } });
    }
    // The compare-and-set on grace_ends_at makes two concurrent rotations of one key a conflict.
    const moved = await tx.subKey.updateMany({
      where: { id: key.id, graceEndsAt: null, revokedAt: null },
      data: { graceEndsAt: graceEnds, ...(grace === 0 ? { revokedAt: now } : {}) },
    });
    if (moved.count !== 1) throw new Conflict('This key was rotated or revoked meanwhile');
    const created = await tx.subKey.create({
      data: {
        hash: sha256Hex(secret),
        hint: secretHint(secret),
        agentId: me.id,
        serviceId: key.serviceId,
        permissions,
        rateLimits: { ...rateLimits },
        expiresAt: key.expiresAt,
        rotatedFromId: key.id,
      },
      include: { service: { select: { serviceKey: true, name: true } } },
    });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'key.rotated',
      targetType: 'sub_key',
      targetId: created.id,
      details: {
        previous_sub_key_id: key.id,
        grace_period_ends: graceEnds.toISOString(),
        permissions,
        rate_limits: { ...rateLimits },
        ...boundsDetail(bounds),
      },
    });
    const previous = await tx.subKey.findUniqueOrThrow({ where: { id: key.id } });
    await emit(me.id, 'key.rotated', {
      sub_key_id: created.id,
      previous_sub_key_id: key.id,
      service_key: created.service.serviceKey,
      grace_period_ends: graceEnds.toISOString(),
    });
    return { key: created, secret, previous, bounds };
  });
}

export async function revokeSubKey(ctx: Ctx, keyId: string): Promise<SubKey> {
  const { me, key } = await ownKey(ctx, keyId);
  if (key.revokedAt) throw new Conflict('This key is already revoked');
  const now = ctx.services.clock.now();
  return ctx.db.$transaction(async (tx) => {
    // A revoked key's predecessor, still in its grace period, goes with it.
    if (key.rotatedFromId)
      await tx.subKey.updateMany({ where: { id: key.rotatedFromId, revokedAt: null, graceEndsAt: { gt: now } }, data: { revokedAt: now } });
    const moved = await tx.subKey.updateMany({ where: { id: key.id, revokedAt: null }, data: { revokedAt: now } });
    if (moved.count !== 1) throw new Conflict('This key is already revoked');
    await recordAudit(tx, ctx, { agentId: me.id, action: 'key.revoked', targetType: 'sub_key', targetId: key.id });
    return tx.subKey.findUniqueOrThrow({ where: { id: key.id } });
  });
}

export type KeyWithService = SubKey & { service: { serviceKey: string; name: string } };

export async function listSubKeys(ctx: Ctx, page: { offset: number; limit: number }): Promise<{ items: KeyWithService[]; total: number }> {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  const [items, total] = await Promise.all([
    ctx.db.subKey.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.limit,
      include: { service: { select: { serviceKey: true, name: true } } },
    }),
    ctx.db.subKey.count({ where }),
  ]);
  return { items, total };
}
