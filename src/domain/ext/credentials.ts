// What the gateway signs for agents to carry elsewhere: reputation passports (an agent's record, signed,
// verifiable offline) and vault tokens (short-lived, scoped, revocable). Both are compact JWS (EdDSA) by
// the marketplace's signing key, whose `kid` is in /.well-known/jwks.json.
import { isDeepStrictEqual } from 'node:util';
import { NotFound } from '../../platform/errors';
import { base62, isUuid } from '../../platform/ids';
import { signCompact, verifyCompact } from '../../platform/jws';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import type { Ctx } from '../context';
import { tierOf } from '../reputation/reputation';

export const PASSPORT_TYP = 'passport+jwt';
export const VAULT_TYP = 'vault+jwt';
/** How long a passport is good for: long enough to carry, short enough that a record does not go stale. */
export const PASSPORT_TTL_SECONDS = 24 * 3600;
export const VAULT_DEFAULT_TTL_SECONDS = 900;
export const VAULT_MAX_TTL_SECONDS = 24 * 3600;

interface PassportRow {
  name: string;
  reputation: number;
  status: string;
  created_at: Date;
  exec_total: number;
  exec_ok: number;
  services: number;
  served_ok: number;
  served_failed: number;
  filed: number;
  against: number;
  open_against: number;
  refunded_against: number;
}

const PASSPORT_SQL = `
  SELECT a.name, a.reputation, a.status::text AS status, a.created_at,
    (SELECT count(*) FROM executions e WHERE e.agent_id = a.id)::int AS exec_total,
    (SELECT count(*) FROM executions e WHERE e.agent_id = a.id AND e.status = 'success')::int AS exec_ok,
    (SELECT count(*) FROM services s WHERE s.agent_id = a.id)::int AS services,
    (SELECT coalesce(sum(s.success_count), 0) FROM services s WHERE s.agent_id = a.id)::int AS served_ok,
    (SELECT coalesce(sum(s.failure_count), 0) FROM services s WHERE s.agent_id = a.id)::int AS served_failed,
    (SELECT count(*) FROM disputes d WHERE d.agent_id = a.id)::int AS filed,
    (SELECT count(*) FROM disputes d WHERE d.provider_agent_id = a.id)::int AS against,
    (SELECT count(*) FROM disputes d WHERE d.provider_agent_id = a.id AND d.status <> 'resolved')::int AS open_against,
    (SELECT count(*) FROM disputes d WHERE d.provider_agent_id = a.id AND d.refund_cents > 0)::int AS refunded_against
  FROM agents a WHERE a.id = $1::uuid`;

/** An agent's passport, signed: anyone with a key may ask for any agent's (a reputation is public). */
export async function issuePassport(ctx: Ctx, agentId: string): Promise<{ passport: Record<string, unknown>; signature: string }> {
  await requireAgent(ctx);
  if (!isUuid(agentId)) throw new NotFound('agent', agentId);
  const [row] = await ctx.services.sql.query<PassportRow>(PASSPORT_SQL, [agentId]);
  if (!row) throw new NotFound('agent', agentId);
  const now = ctx.services.clock.now();
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + PASSPORT_TTL_SECONDS;
  const served = row.served_ok + row.served_failed;
  // The passport is answered exactly as it is signed (the spec's snake_case keys on every surface), so a
  // verifier can compare the two.
  const passport = {
    agent_id: agentId,
    name: row.name,
    reputation: row.reputation,
    tier: tierOf(row.reputation),
    status: row.status,
    member_since: row.created_at.toISOString(),
    executions: { total: row.exec_total, succeeded: row.exec_ok, failed: row.exec_total - row.exec_ok },
    provider: {
      services: row.services,
      calls: served,
      succeeded: row.served_ok,
      failed: row.served_failed,
      success_rate: served ? Math.round((row.served_ok / served) * 10_000) / 10_000 : null,
    },
    disputes: { filed: row.filed, against: row.against, open: row.open_against, refunded_against: row.refunded_against },
    issued_at: new Date(iat * 1000).toISOString(),
    expires_at: new Date(exp * 1000).toISOString(),
    issuer: ctx.services.config.publicBaseUrl,
  };
  const signature = signCompact(
    { iss: passport.issuer, sub: agentId, iat, exp, jti: `pp_${base62(24)}`, passport },
    ctx.services.signingKeys.current,
    PASSPORT_TYP,
  );
  return { passport, signature };
}

export interface Verdict {
  valid: boolean;
  /** Why not: `malformed`, `unknown_key`, `bad_signature`, `wrong_type`, `wrong_issuer`, `expired`, `not_yet_valid`, `mismatch`, `revoked`, `wrong_audience`, `scope`. */
  reason: string | null;
  claims: Record<string, unknown> | null;
}

const refused = (reason: string, claims: Record<string, unknown> | null = null): Verdict => ({ valid: false, reason, claims });

/** Checks what every signed credential must be: ours, of its type, issued by us, within its lifetime. */
function checkSigned(ctx: Ctx, token: string, typ: string): Verdict {
  const result = verifyCompact(token, ctx.services.signingKeys.jwks.keys);
  if (!result.ok) return refused(result.reason);
  const { header, claims } = result;
  if (header.typ !== typ) return refused('wrong_type');
  if (claims.iss !== ctx.services.config.publicBaseUrl) return refused('wrong_issuer');
  const now = Math.floor(ctx.services.clock.now().getTime() / 1000);
  if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return refused('malformed');
  if (claims.exp <= now) return refused('expired', claims);
  // A minute of skew between clocks is forgiven.
  if (claims.iat > now + 60) return refused('not_yet_valid', claims);
  return { valid: true, reason: null, claims };
}

/**
 * Verifies a passport (no key needed): its signature, type, issuer and lifetime, and, when the passport
 * object is given too, that it is the one signed.
 */
export function verifyPassport(ctx: Ctx, input: { signature?: unknown; passport?: unknown }): Verdict {
  const checks = new Checks();
  const token = checks.text('signature', input.signature, { max: 16_384, required: true });
  checks.done();
  const verdict = checkSigned(ctx, token!, PASSPORT_TYP);
  if (!verdict.valid || input.passport === undefined || input.passport === null) return verdict;
  return isDeepStrictEqual(verdict.claims!.passport, input.passport) ? verdict : refused('mismatch', verdict.claims);
}

export interface VaultTokenInput {
  scopes?: unknown;
  audience?: unknown;
  subject?: unknown;
  expiresIn?: unknown;
}

export interface IssuedVaultToken {
  token: string;
  tokenId: string;
  audience: string;
  scopes: string[];
  subject: string | null;
  issuedAt: Date;
  expiresAt: Date;
}

/** A scope: an operation (`execute`, `memory:read`) or a capability (`capability:summarize`), or `*` for all. */
const SCOPE = /^(\*|[a-z][a-z0-9_.-]{0,63}(:[a-z0-9*][a-z0-9_.*-]{0,63})?)$/;

/** A token for the caller, limited to `scopes` and `audience`, living `expires_in` seconds (default 900, at most a day). */
export async function issueVaultToken(ctx: Ctx, input: VaultTokenInput): Promise<IssuedVaultToken> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const scopes: string[] = [];
  if (!Array.isArray(input.scopes) || input.scopes.length === 0) checks.fail('scopes', 'must be a non-empty list of scopes');
  else if (input.scopes.length > 50) checks.fail('scopes', 'must have at most 50 entries');
  else
    input.scopes.forEach((s, i) => {
      if (typeof s !== 'string' || !SCOPE.test(s))
        checks.fail(`scopes.${i}`, 'must be an operation (`execute`), `<operation>:<name>` (`capability:summarize`) or `*`');
      else if (!scopes.includes(s)) scopes.push(s);
    });
  const audience = checks.text('audience', input.audience, { max: 512, required: true });
  const subject = checks.text('subject', input.subject, { max: 256 }) || null;
  const ttl = checks.integer('expires_in', input.expiresIn, 1, VAULT_MAX_TTL_SECONDS) ?? VAULT_DEFAULT_TTL_SECONDS;
  checks.done();
  const now = ctx.services.clock.now();
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ttl;
  const tokenId = `vt_${base62(24)}`;
  const issuedAt = new Date(iat * 1000);
  const expiresAt = new Date(exp * 1000);
  await ctx.db.vaultToken.create({ data: { id: tokenId, agentId: me.id, audience: audience!, scopes, subject, expiresAt, createdAt: issuedAt } });
  const token = signCompact(
    {
      iss: ctx.services.config.publicBaseUrl,
      sub: me.id,
      aud: audience,
      iat,
      exp,
      jti: tokenId,
      scope: scopes.join(' '),
      ...(subject && { act: { sub: subject } }),
    },
    ctx.services.signingKeys.current,
    VAULT_TYP,
  );
  return { token, tokenId, audience: audience!, scopes, subject, issuedAt, expiresAt };
}

/**
 * Verifies a vault token: signature, type, issuer, lifetime and that it was not revoked; with `audience`
 * or `scope` given, that the token is for that audience and grants that scope.
 */
export async function verifyVaultToken(ctx: Ctx, input: { token?: unknown; audience?: unknown; scope?: unknown }): Promise<Verdict> {
  await requireAgent(ctx);
  const checks = new Checks();
  const token = checks.text('token', input.token, { max: 16_384, required: true });
  const audience = checks.text('audience', input.audience, { max: 512 });
  const scope = checks.text('scope', input.scope, { max: 130 });
  checks.done();
  const verdict = checkSigned(ctx, token!, VAULT_TYP);
  if (!verdict.valid) return verdict;
  const claims = verdict.claims!;
  const row = typeof claims.jti === 'string' ? await ctx.db.vaultToken.findUnique({ where: { id: claims.jti }, select: { revokedAt: true } }) : null;
  if (!row) return refused('malformed');
  if (row.revokedAt) return refused('revoked', claims);
  if (audience && claims.aud !== audience) return refused('wrong_audience', claims);
  if (scope && !grants(String(claims.scope ?? '').split(' '), scope)) return refused('scope', claims);
  return verdict;
}

/** Whether granted scopes cover `wanted`: `*`, the scope itself, or `<operation>:*`. */
export function grants(granted: string[], wanted: string): boolean {
  return granted.some((g) => g === '*' || g === wanted || (g.endsWith(':*') && wanted.startsWith(g.slice(0, -1))));
}

/** Revokes one of the caller's tokens: every later verification refuses it. */
export async function revokeVaultToken(ctx: Ctx, tokenId: string): Promise<{ tokenId: string; revokedAt: Date }> {
  const me = await requireAgent(ctx);
  const now = ctx.services.clock.now();
  const row = await ctx.db.vaultToken.findFirst({ where: { id: tokenId, agentId: me.id } });
  if (!row) throw new NotFound('vault token', tokenId);
  if (row.revokedAt) return { tokenId, revokedAt: row.revokedAt };
  const updated = await ctx.db.vaultToken.update({ where: { id: tokenId }, data: { revokedAt: now } });
  return { tokenId, revokedAt: updated.revokedAt! };
}
