// A service's sub-key policy: what its owner lets the service's sub-keys hold (the permissions a key may be
// given, the highest rates). Until the owner sets one, the default applies: the ordinary permissions of the
// spec's flow, read and write, at most 60 requests a minute. The owner sets or narrows it at registration and
// on update, alone; it applies to every provisioning, the owner's own included, and to every rotation
// (sub-keys.ts).
import type { Service } from '../../db/generated/prisma/client';
import type { Checks } from '../../platform/validate';

/** A permission name, as sub-keys and policies spell it. */
export const PERMISSION = /^[a-z][a-z0-9:_-]{0,31}$/;
export const MAX_PERMISSIONS = 20;
/** The highest rate a sub-key or a policy may name, a minute or a day. */
export const RATE_LIMIT_MAX = 10_000_000;

/** The policy as a service row holds it; `subKeyPolicySetAt` is null while the owner has set none. */
export type SubKeyPolicy = Pick<Service, 'subKeyPermissions' | 'subKeyMaxPerMinute' | 'subKeyMaxPerDay' | 'subKeyPolicySetAt'>;

/**
 * The policy of a service whose owner has set none: read and write (the permissions the spec's flow asks
 * for), at most the default 60 requests a minute (DEFAULT_RATE_LIMITS), no daily maximum. Any other
 * permission (`admin`, …) needs the owner to list it. The columns' defaults are the same.
 */
export const DEFAULT_SUB_KEY_POLICY: SubKeyPolicy = {
  subKeyPermissions: ['read', 'write'],
  subKeyMaxPerMinute: 60,
  subKeyMaxPerDay: null,
  subKeyPolicySetAt: null,
};

/** Who bounds a grant, as an answer says it: the owner's policy, or the default of a service without one. */
export function policyName(serviceKey: string, policy: Pick<SubKeyPolicy, 'subKeyPolicySetAt'>): string {
  return policy.subKeyPolicySetAt ? `the sub-key policy of ${serviceKey}` : `the default sub-key policy of ${serviceKey} (its owner has set none)`;
}

export interface SubKeyPolicyInput {
  permissions?: unknown;
  maxRequestsPerMinute?: unknown;
  maxRequestsPerDay?: unknown;
}

/** A list of 1-20 permission names at `path`, without repeats; undefined (and a failure noted) when it is not one. */
export function readPermissions(checks: Checks, path: string, value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_PERMISSIONS) {
    checks.fail(path, `must be a list of 1 to ${MAX_PERMISSIONS} permission names`);
    return undefined;
  }
  let valid = true;
  value.forEach((p, i) => {
    if (typeof p !== 'string' || !PERMISSION.test(p)) {
      checks.fail(`${path}.${i}`, 'must be a permission name such as "read" or "write"');
      valid = false;
    }
  });
  return valid ? [...new Set(value as string[])] : undefined;
}

/**
 * The columns a policy input changes: a field given replaces the service's, a field left out keeps it,
 * and null restores its default (for the daily maximum: none). A policy given is one its owner set, from
 * `now` on. Failures are noted at `path`.
 */
export function readSubKeyPolicy(checks: Checks, path: string, input: SubKeyPolicyInput, now: Date): Partial<SubKeyPolicy> {
  const change: Partial<SubKeyPolicy> = { subKeyPolicySetAt: now };
  if (input.permissions === null) change.subKeyPermissions = DEFAULT_SUB_KEY_POLICY.subKeyPermissions;
  else if (input.permissions !== undefined) {
    const permissions = readPermissions(checks, `${path}.permissions`, input.permissions);
    if (permissions) change.subKeyPermissions = permissions;
  }
  if (input.maxRequestsPerMinute === null) change.subKeyMaxPerMinute = DEFAULT_SUB_KEY_POLICY.subKeyMaxPerMinute;
  else {
    const perMinute = checks.integer(`${path}.maxRequestsPerMinute`, input.maxRequestsPerMinute, 1, RATE_LIMIT_MAX);
    if (perMinute !== undefined) change.subKeyMaxPerMinute = perMinute;
  }
  if (input.maxRequestsPerDay === null) change.subKeyMaxPerDay = null;
  else {
    const perDay = checks.integer(`${path}.maxRequestsPerDay`, input.maxRequestsPerDay, 1, RATE_LIMIT_MAX);
    if (perDay !== undefined) change.subKeyMaxPerDay = perDay;
  }
  return change;
}
