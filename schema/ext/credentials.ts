// Signed credentials (spec §4.13): reputation passports and vault tokens, issued, verified and revoked.
import * as credentials from '../../src/domain/ext/credentials';
import { builder } from '../builder';
import { maxLength } from '../json-schema';

const PassportRef = builder.objectRef<{ passport: Record<string, unknown>; signature: string }>('ReputationPassport').implement({
  fields: (t) => ({
    passport: t.field({
      type: 'JSON',
      description:
        'agent_id, name, reputation, tier, status, member_since, executions, provider, disputes, issued_at, expires_at, issuer: exactly the `passport` claim of the signature',
      resolve: (p) => p.passport,
    }),
    signature: t.exposeString('signature', { description: 'A compact JWS (EdDSA, typ passport+jwt) by the key named by its kid in /.well-known/jwks.json' }),
  }),
});

builder.queryField('reputationPassport', (t) =>
  t.field({
    type: PassportRef,
    description: "An agent's signed reputation passport",
    auth: 'agent',
    args: { agentId: t.arg.id({ required: true }) },
    resolve: (_r, { agentId }, ctx) => credentials.issuePassport(ctx, String(agentId)),
  }),
);

const Verdict = builder.objectRef<credentials.Verdict>('CredentialVerdict').implement({
  fields: (t) => ({
    valid: t.exposeBoolean('valid'),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why not: malformed, unknown_key, bad_signature, wrong_type, wrong_issuer, expired, not_yet_valid, mismatch, revoked, wrong_audience, scope',
    }),
    claims: t.field({ type: 'JSON', nullable: true, description: 'The signed claims (when the signature is good)', resolve: (v) => v.claims }),
  }),
});

const VerifyPassportInput = builder.inputType('VerifyPassportInput', {
  fields: (t) => ({
    signature: t.string({ required: true, description: 'The passport’s compact JWS', extensions: maxLength(16_384) }),
    passport: t.field({ type: 'JSON', description: 'The passport object: when given, it must be the one signed' }),
  }),
});

builder.mutationField('verifyPassport', (t) =>
  t.field({
    type: Verdict,
    description: 'Verifies a reputation passport (no key needed)',
    args: { input: t.arg({ type: VerifyPassportInput, required: true }) },
    resolve: (_r, { input }, ctx) => credentials.verifyPassport(ctx, input),
  }),
);

const VaultTokenRef = builder.objectRef<credentials.IssuedVaultToken>('VaultToken').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'A compact JWS (EdDSA, typ vault+jwt): iss, sub (you), aud, scope, iat, exp, jti (the token id)' }),
    tokenId: t.exposeID('tokenId', { description: '`vt_…`: revoke it with DELETE /ext/vault/tokens/:id' }),
    audience: t.exposeString('audience'),
    scopes: t.exposeStringList('scopes'),
    subject: t.exposeString('subject', { nullable: true }),
    issuedAt: t.expose('issuedAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

const VaultTokenInput = builder.inputType('IssueVaultTokenInput', {
  fields: (t) => ({
    scopes: t.stringList({
      required: true,
      description: 'What it allows: operations (`execute`), `<operation>:<name>` (`capability:summarize`, `capability:*`) or `*`',
    }),
    audience: t.string({ required: true, description: 'Who it is for (an external agent id, a URL)' }),
    subject: t.string({ description: 'Whom it acts for, when not you alone (an external agent id)' }),
    expiresIn: t.int({ description: 'Seconds, 1-86400 (default 900)' }),
  }),
});

builder.mutationField('issueVaultToken', (t) =>
  t.field({
    type: VaultTokenRef,
    description: 'A short-lived, scoped token signed for the caller',
    auth: 'agent',
    args: { input: t.arg({ type: VaultTokenInput, required: true }) },
    resolve: (_r, { input }, ctx) => credentials.issueVaultToken(ctx, input),
  }),
);

const VerifyVaultTokenInput = builder.inputType('VerifyVaultTokenInput', {
  fields: (t) => ({
    token: t.string({ required: true, extensions: maxLength(16_384) }),
    audience: t.string({ description: 'When given: the token must be for it' }),
    scope: t.string({ description: 'When given: the token must grant it' }),
  }),
});

builder.mutationField('verifyVaultToken', (t) =>
  t.field({
    type: Verdict,
    description: 'Verifies a vault token: signature, lifetime, revocation (and audience and scope when asked)',
    auth: 'agent',
    args: { input: t.arg({ type: VerifyVaultTokenInput, required: true }) },
    resolve: (_r, { input }, ctx) => credentials.verifyVaultToken(ctx, input),
  }),
);

const RevokedToken = builder.objectRef<{ tokenId: string; revokedAt: Date }>('RevokedVaultToken').implement({
  fields: (t) => ({
    revoked: t.boolean({ resolve: () => true }),
    tokenId: t.exposeID('tokenId'),
    revokedAt: t.expose('revokedAt', { type: 'DateTime' }),
  }),
});

builder.mutationField('revokeVaultToken', (t) =>
  t.field({
    type: RevokedToken,
    description: 'Revokes one of your vault tokens: every later verification refuses it',
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => credentials.revokeVaultToken(ctx, String(id)),
  }),
);
