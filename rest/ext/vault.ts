// The credential vault (spec §4.13): short-lived tokens for external agents, verified and revoked.
import { bucket, from, type Route } from '../route';

export const vaultRoutes: Route[] = [
  {
    method: 'POST',
    path: '/ext/vault/token',
    bucket: bucket('ext_vault_token', 60),
    auth: 'agent',
    status: 201,
    tag: 'Gateway',
    summary: 'Issue a scoped, short-lived token',
    description:
      '`scopes` (operations such as `execute`, `<operation>:<name>` such as `capability:summarize` or `capability:*`, or `*`) and `audience` required; `subject` (whom it acts for) and `expires_in` (seconds, 1-86400, default 900) optional. The token is a compact JWS (EdDSA, `typ: vault+jwt`) verifiable with /.well-known/jwks.json; its `jti` is `token_id`, revocable with `DELETE /ext/vault/tokens/:id`.',
    document: /* GraphQL */ `
      mutation IssueVaultToken($input: IssueVaultTokenInput!) {
        issueVaultToken(input: $input) {
          token
          token_id: tokenId
          audience
          scopes
          subject
          issued_at: issuedAt
          expires_at: expiresAt
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'POST',
    path: '/ext/vault/verify',
    bucket: bucket('ext_vault_verify', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Verify a vault token',
    description:
      '`token` required; `audience` and `scope` optional (the token must then be for that audience and grant that scope). `valid` with the claims, or `valid: false` with `reason` (malformed, unknown_key, bad_signature, wrong_type, wrong_issuer, expired, revoked, wrong_audience, scope).',
    document: /* GraphQL */ `
      mutation VerifyVaultToken($input: VerifyVaultTokenInput!) {
        verifyVaultToken(input: $input) {
          valid
          reason
          claims
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'DELETE',
    path: '/ext/vault/tokens/:id',
    bucket: bucket('ext_vault_revoke', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Revoke a vault token',
    description: 'One of yours (another’s is 404): every later verification answers `revoked`. Revoking twice answers the first revocation.',
    errors: [404],
    document: /* GraphQL */ `
      mutation RevokeVaultToken($id: ID!) {
        revokeVaultToken(id: $id) {
          revoked
          token_id: tokenId
          revoked_at: revokedAt
        }
      }
    `,
    variables: { id: from.path('id') },
  },
];
