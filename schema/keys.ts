// Sub-keys: provisioning, verification by providers, rotation with a grace period, revocation, listing.
import * as keys from '../src/domain/keys/sub-keys';
import { builder, ownedByCaller } from './builder';
import { pagedField } from './paging';
import { range } from './json-schema';

export const SubKeyStatusEnum = builder.enumType('SubKeyStatus', {
  description: '`grace`: replaced by a rotation and valid until `gracePeriodEnds`',
  values: ['active', 'grace', 'expired', 'revoked'] as const,
});

/** A sub-key's limits as stored (`{ requests_per_minute, requests_per_day? }`), typed. */
const RateLimits = builder.objectRef<keys.StoredRateLimits>('SubKeyRateLimits').implement({
  description: 'What the provider should allow the holder; returned by verify for the provider to enforce',
  fields: (t) => ({
    requestsPerMinute: t.int({ resolve: (r) => r.requests_per_minute ?? keys.DEFAULT_RATE_LIMITS.requests_per_minute }),
    requestsPerDay: t.int({ nullable: true, description: 'No daily limit when null', resolve: (r) => r.requests_per_day ?? null }),
  }),
});

const RateLimitsInput = builder.inputType('SubKeyRateLimitsInput', {
  fields: (t) => ({
    requestsPerMinute: t.int({ description: '1-10000000, default 60' }),
    requestsPerDay: t.int({ description: '1-10000000, default none' }),
  }),
});

export const SubKey = builder.prismaNode('SubKey', {
  authScopes: ownedByCaller,
  description: "A consumer's credential for one provider's service; its secret is shown only when made",
  id: { field: 'id' },
  fields: (t) => ({
    subKeyId: t.exposeID('id'),
    hint: t.exposeString('hint', { description: 'The prefix and first characters of the secret' }),
    serviceKey: t.string({ select: { service: { select: { serviceKey: true } } }, resolve: (k) => k.service.serviceKey }),
    serviceName: t.string({ select: { service: { select: { name: true } } }, resolve: (k) => k.service.name }),
    permissions: t.exposeStringList('permissions'),
    rateLimits: t.field({ type: RateLimits, resolve: (k) => keys.rateLimitsOf(k.rateLimits) }),
    status: t.field({ type: SubKeyStatusEnum, resolve: (k, _a, ctx) => keys.subKeyStatus(k, ctx.services.clock.now()) }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    gracePeriodEnds: t.expose('graceEndsAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const SubKeyBound = builder.objectRef<keys.SubKeyBound>('SubKeyBound').implement({
  description:
    "A bound that applied to a grant: a rate lowered to the service's sub-key policy maximum, a daily limit the policy sets, or (on rotation) a permission the policy no longer allows",
  fields: (t) => ({
    field: t.exposeString('field', {
      description: 'The answer field it bounded, as REST spells it: `rate_limits.requests_per_minute`, `rate_limits.requests_per_day` or `permissions`',
    }),
    asked: t.field({
      type: 'JSON',
      nullable: true,
      description: 'What was asked (on rotation: what the old key held); null for a daily limit not asked for',
      resolve: (b) => b.asked,
    }),
    granted: t.field({ type: 'JSON', description: 'What the key holds', resolve: (b) => b.granted }),
    reason: t.exposeString('reason'),
  }),
});

const ProvisionedSubKey = builder.objectRef<keys.ProvisionedKey>('ProvisionedSubKey').implement({
  fields: (t) => ({
    subKey: t.string({ description: 'The secret, `key_service_…`: shown only here', resolve: (p) => p.secret }),
    subKeyId: t.id({ resolve: (p) => p.key.id }),
    service: t.string({ description: 'The service key', resolve: (p) => p.key.service.serviceKey }),
    permissions: t.stringList({ resolve: (p) => p.key.permissions }),
    rateLimits: t.field({ type: RateLimits, resolve: (p) => keys.rateLimitsOf(p.key.rateLimits) }),
    expiresAt: t.field({ type: 'DateTime', resolve: (p) => p.key.expiresAt }),
    createdAt: t.field({ type: 'DateTime', resolve: (p) => p.key.createdAt }),
    bounds: t.field({
      type: [SubKeyBound],
      description: 'Where the grant is less than was asked, and why (empty when it is all that was asked)',
      resolve: (p) => p.bounds,
    }),
    key: t.field({ type: SubKey, resolve: (p) => p.key }),
  }),
});

const ProvisionSubKeyInput = builder.inputType('ProvisionSubKeyInput', {
  fields: (t) => ({
    permissions: t.stringList({
      description:
        'Default ["read"]. Each must be allowed by the service\'s sub-key policy (403 naming those that are not); a service whose owner has set none allows read and write',
    }),
    rateLimits: t.field({
      type: RateLimitsInput,
      description:
        "Default 60 a minute, no daily limit. A rate above the service's sub-key policy maximum is lowered to it; without a daily limit the key gets the policy's daily maximum, if any",
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When the key stops being valid: default 365 days from now (SUB_KEY_LIFETIME_DAYS), at most 730 (SUB_KEY_MAX_LIFETIME_DAYS)',
    }),
  }),
});

builder.mutationField('provisionSubKey', (t) =>
  t.field({
    type: ProvisionedSubKey,
    description:
      "Provision a sub-key for an active service, within the tier's allowance (403 beyond it) and the service's sub-key policy (403 for a permission it does not allow; without a policy of its owner's, read and write are allowed and any other permission needs one; rates capped to its maxima). The answer's permissions and rate limits are what was granted, and `bounds` says where that is less than was asked, and why.",
    auth: 'agent',
    args: { serviceKey: t.arg.string({ required: true }), input: t.arg({ type: ProvisionSubKeyInput }) },
    resolve: (_r, { serviceKey, input }, ctx) => keys.provisionSubKey(ctx, serviceKey, input ?? {}),
  }),
);

const Verification = builder.objectRef<keys.Verification>('SubKeyVerification').implement({
  fields: (t) => ({
    valid: t.exposeBoolean('valid'),
    agentId: t.exposeID('agentId', { description: 'The holder' }),
    reputation: t.exposeInt('reputation'),
    tier: t.exposeString('tier'),
    subKeyId: t.exposeID('subKeyId'),
    service: t.exposeString('serviceKey', { description: 'The service key the sub-key is for' }),
    permissions: t.exposeStringList('permissions'),
    rateLimits: t.field({ type: RateLimits, resolve: (v) => keys.rateLimitsOf(v.rateLimits) }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

builder.queryField('verifySubKey', (t) =>
  t.field({
    type: Verification,
    description:
      "Check a presented sub-key (no credential needed): the holder, and the permissions and rate limits the key was granted. Unknown, revoked and expired keys, and keys of a suspended or banned holder (by its own status or an ancestor's), all answer the same 401.",
    args: { key: t.arg.string({ required: true }) },
    resolve: (_r, { key }, ctx) => keys.verifySubKey(ctx, key),
  }),
);

const Rotation = builder.objectRef<keys.Rotation>('SubKeyRotation').implement({
  fields: (t) => ({
    newSubKey: t.string({ description: 'The new secret: shown only here', resolve: (r) => r.secret }),
    subKeyId: t.id({ resolve: (r) => r.key.id }),
    previousSubKeyId: t.id({ resolve: (r) => r.previous.id }),
    gracePeriodEnds: t.field({ type: 'DateTime', description: 'Until then the old key stays valid', resolve: (r) => r.previous.graceEndsAt! }),
    expiresAt: t.field({ type: 'DateTime', resolve: (r) => r.key.expiresAt }),
    permissions: t.stringList({ description: "The old key's, less those the service's sub-key policy no longer allows", resolve: (r) => r.key.permissions }),
    rateLimits: t.field({
      type: RateLimits,
      description: "The old key's, lowered to the policy's maxima",
      resolve: (r) => keys.rateLimitsOf(r.key.rateLimits),
    }),
    bounds: t.field({
      type: [SubKeyBound],
      description: 'What the new key holds less than the old one did, and why (empty when nothing)',
      resolve: (r) => r.bounds,
    }),
    key: t.field({ type: SubKey, resolve: (r) => r.key }),
  }),
});

const RotateSubKeyInput = builder.inputType('RotateSubKeyInput', {
  fields: (t) => ({
    gracePeriodSeconds: t.int({ description: 'How long the old key stays valid, 0-86400 (default 86400); 0 for a leaked key', extensions: range(0, 86_400) }),
  }),
});

builder.mutationField('rotateSubKey', (t) =>
  t.field({
    type: Rotation,
    description:
      "Replace a key; the old one stays valid for the grace period. Rotating again ends the earlier grace. The new key holds the old one's grant re-checked against the service's sub-key policy now: a permission it no longer allows is dropped and a rate above its maxima lowered, each said in `bounds` (403 when none of the key's permissions is allowed any more).",
    auth: 'agent',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: RotateSubKeyInput }) },
    resolve: (_r, { id, input }, ctx) => keys.rotateSubKey(ctx, String(id), input ?? {}),
  }),
);

const Revocation = builder.objectRef<{ id: string; revokedAt: Date | null }>('SubKeyRevocation').implement({
  fields: (t) => ({
    revoked: t.boolean({ resolve: () => true }),
    subKeyId: t.exposeID('id'),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

builder.mutationField('revokeSubKey', (t) =>
  t.field({
    type: Revocation,
    description: 'Revoke a key at once (and the key it replaced, if still in its grace period)',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => keys.revokeSubKey(ctx, String(id)),
  }),
);

builder.queryField('myKeys', (t) =>
  pagedField(t, SubKey, {
    description: "The caller's sub-keys with status and expiry, newest first (never their secrets)",
    auth: 'agent',
    resolve: (ctx, _args, page) => keys.listSubKeys(ctx, page),
  }),
);
