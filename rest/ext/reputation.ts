// Reputation passports (spec §4.13): a signed passport and its verification.
import { bucket, from, type Route } from '../route';

export const reputationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/ext/reputation/passport/:agentId',
    bucket: bucket('ext_passport', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: "An agent's signed reputation passport",
    description:
      '`passport` (agent id and name, reputation, tier, status, executions, its record as a provider, disputes filed and against it, issued and expiry times — 24 hours — and issuer) and `signature`: a compact JWS (EdDSA, `typ: passport+jwt`) whose `passport` claim is exactly the passport, by the key its `kid` names in /.well-known/jwks.json. 404 for an unknown agent.',
    errors: [404],
    document: /* GraphQL */ `
      query ReputationPassport($agentId: ID!) {
        reputationPassport(agentId: $agentId) {
          passport
          signature
        }
      }
    `,
    variables: { agentId: from.path('agentId') },
  },
  {
    method: 'POST',
    path: '/ext/reputation/verify',
    bucket: bucket('ext_passport_verify', 60),
    auth: 'none',
    status: 200,
    tag: 'Gateway',
    summary: 'Verify a reputation passport',
    description:
      '`signature` (the JWS) required; `passport` optional (it must then be the one signed). `valid` with the claims, or `valid: false` with `reason` (malformed, unknown_key, bad_signature, wrong_type, wrong_issuer, expired, mismatch).',
    document: /* GraphQL */ `
      mutation VerifyPassport($input: VerifyPassportInput!) {
        verifyPassport(input: $input) {
          valid
          reason
          claims
        }
      }
    `,
    variables: { input: from.body },
  },
];
