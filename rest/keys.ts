// REST routes of sub-keys (spec §4.1).
import { bucket, from, type Route } from './route';

export const rateLimitFields = /* GraphQL */ `
  fragment RateLimitFields on SubKeyRateLimits {
    requests_per_minute: requestsPerMinute
    requests_per_day: requestsPerDay
  }
`;

export const keyRoutes: Route[] = [
  {
    method: 'POST',
    path: '/keys/provision/:serviceKey',
    bucket: bucket('keys_provision', 60),
    auth: 'agent',
    status: 201,
    tag: 'Keys',
    summary: 'Provision a sub-key for a service',
    description:
      "Any agent may provision sub-keys for any active service, within its tier's allowance of live keys (5, 20, 50, unlimited); beyond it, 403. `permissions` defaults to read only, and a service whose owner has set no `sub_key_policy` grants read and write as asked; any other permission (`admin`, …) needs the owner's policy to list it. An owner's `sub_key_policy` bounds what a key holds, the owner's own keys too: a permission it does not list answers 403 naming it, and a rate above its maximum is lowered to it (a key asked without a daily limit gets the policy's daily maximum, if any); `permissions` and `rate_limits` answer what was granted, and `bounds` each bound that applied (`field`, `asked`, `granted`, `reason`). The secret is shown only here. Every key expires: `expires_at` is 365 days from now unless an earlier one is asked for, or a later one up to 730 days (both configurable: SUB_KEY_LIFETIME_DAYS, SUB_KEY_MAX_LIFETIME_DAYS); rotation keeps it. `rate_limits` are what verify tells the provider to allow the holder (default 60 a minute, no daily limit, within the policy).",
    errors: [403, 404],
    document: /* GraphQL */ `
      mutation ProvisionSubKey($serviceKey: String!, $input: ProvisionSubKeyInput) {
        provisionSubKey(serviceKey: $serviceKey, input: $input) {
          sub_key: subKey
          sub_key_id: subKeyId
          service
          permissions
          rate_limits: rateLimits {
            ...RateLimitFields
          }
          expires_at: expiresAt
          created_at: createdAt
          bounds {
            field
            asked
            granted
            reason
          }
        }
      }
      ${rateLimitFields}
    `,
    variables: { serviceKey: from.path('serviceKey'), input: from.body },
  },
  {
    method: 'POST',
    path: '/keys/verify',
    bucket: bucket('keys_verify', 60),
    auth: 'none',
    status: 200,
    tag: 'Keys',
    summary: 'Verify a presented sub-key',
    description:
      "For providers: no credential needed, 60 a minute per address. Answers the holder and what the key was granted (`permissions`, `rate_limits`) for the provider to enforce. Unknown, revoked and expired keys, and keys whose holder is suspended or banned (its own status or an ancestor's), all answer the same 401.",
    errors: [401],
    document: /* GraphQL */ `
      query VerifySubKey($key: String!) {
        verifySubKey(key: $key) {
          valid
          agent_id: agentId
          reputation
          tier
          sub_key_id: subKeyId
          service
          permissions
          rate_limits: rateLimits {
            ...RateLimitFields
          }
          expires_at: expiresAt
        }
      }
      ${rateLimitFields}
    `,
    variables: { key: from.bodyField('key') },
  },
  {
    method: 'POST',
    path: '/keys/:keyId/rotate',
    bucket: bucket('keys_rotate', 60),
    auth: 'agent',
    status: 201,
    tag: 'Keys',
    summary: 'Rotate a sub-key',
    description:
      "Issues a new key with the same service and expiry, and the old key's permissions and limits re-checked against the service's sub-key policy now: a permission the policy no longer allows is dropped and a rate above its maximum lowered, each said in `bounds` (`field`, `asked`: what the old key held, `granted`, `reason`); 403 when none of the key's permissions is allowed any more. The old key stays valid until `grace_period_ends` (24 hours, or `grace_period_seconds` from 0 to 86400); rotating again ends the earlier grace. Only an active key can be rotated (409 otherwise).",
    errors: [403, 404, 409],
    document: /* GraphQL */ `
      mutation RotateSubKey($id: ID!, $input: RotateSubKeyInput) {
        rotateSubKey(id: $id, input: $input) {
          new_sub_key: newSubKey
          sub_key_id: subKeyId
          previous_sub_key_id: previousSubKeyId
          grace_period_ends: gracePeriodEnds
          expires_at: expiresAt
          permissions
          rate_limits: rateLimits {
            ...RateLimitFields
          }
          bounds {
            field
            asked
            granted
            reason
          }
        }
      }
      ${rateLimitFields}
    `,
    variables: { id: from.path('keyId'), input: from.body },
  },
  {
    method: 'DELETE',
    path: '/keys/:keyId',
    bucket: bucket('keys_revoke', 60),
    auth: 'agent',
    status: 200,
    tag: 'Keys',
    summary: 'Revoke a sub-key',
    description: 'At once, and with it the key it replaced if that one is still in its grace period. Revoking twice answers 409.',
    errors: [404, 409],
    document: /* GraphQL */ `
      mutation RevokeSubKey($id: ID!) {
        revokeSubKey(id: $id) {
          revoked
          sub_key_id: subKeyId
          revoked_at: revokedAt
        }
      }
    `,
    variables: { id: from.path('keyId') },
  },
];
