// Who is calling: a bearer secret's hash looked up among live credentials, and the checks every
// agent-only (B) and admin-only operation makes.
import type { Agent } from '../../db/generated/prisma/client';
import { Forbidden, Unauthorized } from '../../platform/errors';
import type { Ctx, Principal, Services } from '../context';
import type { Bearer } from '../../platform/auth';
import type { PrincipalCache } from './principal-cache';

declare module '../context' {
  interface Services {
    /** Callers by credential hash, emptied on every change of their agent or credential (principal-cache.ts). */
    principals: PrincipalCache<Principal>;
  }
}

/**
 * One indexed query per authenticated request not already in the principal cache, straight to the driver (see SqlRunner): the credential
 * by its hash joined to its agent, every agent column under its Prisma field name so the row is an `Agent`.
 */
const PRINCIPAL_SQL = `
  SELECT c.id AS "credentialId", c.kind::text AS "credentialKind",
    a.id, a.agent_key AS "agentKey", a.name, a.description, a.owner_email AS "ownerEmail", a.reputation,
    a.status::text AS status, a.own_status::text AS "ownStatus", a.autonomy_level::text AS "autonomyLevel", a.capabilities,
    a.authority_scope AS "authorityScope", a.parent_id AS "parentId", a.created_at AS "createdAt", a.updated_at AS "updatedAt"
  FROM credentials c LEFT JOIN agents a ON a.id = c.agent_id
  WHERE c.hash = $1 AND c.revoked_at IS NULL`;

/**
 * The same lookup as one JSON value (null for no live credential), for an operation that looks up the
 * caller within its own first statement; `hash` is the placeholder of the credential's hash.
 */
export const principalJsonSql = (hash: string) => `(SELECT row_to_json(p) FROM (${PRINCIPAL_SQL.replace('$1', hash)}) AS p)`;

export type CredentialRow = Partial<Agent> & { credentialId: string; credentialKind: 'master' | 'admin' };

/** The caller from principalJsonSql's value (timestamps arrive as text there). */
export function principalFromJson(
  json: (Omit<CredentialRow, 'createdAt' | 'updatedAt'> & { createdAt?: string | null; updatedAt?: string | null }) | null,
): Principal {
  if (!json) return { kind: 'invalid' };
  return principalOf({
    ...json,
    createdAt: json.createdAt == null ? undefined : new Date(json.createdAt),
    updatedAt: json.updatedAt == null ? undefined : new Date(json.updatedAt),
  });
}

export async function lookupPrincipal(services: Services, bearer: Bearer): Promise<Principal> {
  if (bearer.kind === 'none') return { kind: 'anonymous' };
  if (bearer.kind === 'malformed') return { kind: 'invalid' };
  const cached = services.principals.get(bearer.hash);
  if (cached) return cached;
  const since = performance.now();
  const [row] = await services.sql.query<CredentialRow>(PRINCIPAL_SQL, [bearer.hash], 'principal');
  return rememberPrincipal(services, bearer.hash, principalOf(row), since);
}

/**
 * Keeps a caller found by a lookup begun at `since` in the principal cache, only when it may act (the administrator, or
 * an ACTIVE agent with a live master key): a suspended one is looked up on every request, so lifting a suspension on one
 * instance is seen at once on every other, before the change notification.
 */
export function rememberPrincipal(services: Services, hash: string, principal: Principal, since: number): Principal {
  if (principal.kind === 'agent' && principal.agent.status === 'ACTIVE') {
    Object.freeze(principal.agent);
    services.principals.set(hash, principal, principal.agent.id, since);
  } else if (principal.kind === 'admin') {
    services.principals.set(hash, principal, null, since);
  }
  return principal;
}

function principalOf(row: CredentialRow | undefined): Principal {
  if (!row) return { kind: 'invalid' };
  if (row.credentialKind === 'admin') return { kind: 'admin', credentialId: row.credentialId };
  if (!row.id) return { kind: 'invalid' };
  const { credentialId, credentialKind: _kind, ...agent } = row;
  return { kind: 'agent', agent: agent as Agent, credentialId };
}

/**
 * The caller when it is known without waiting: already looked up for this request, or a credential kept in the
 * principal cache (seeded into the request, as its lookup would have been); undefined when it must be looked up.
 */
export function principalNow(ctx: Ctx): Principal | undefined {
  if (ctx.resolvedPrincipal) return ctx.resolvedPrincipal;
  const known = ctx.bearer.kind === 'key' ? ctx.services.principals.get(ctx.bearer.hash) : undefined;
  if (known) ctx.seedPrincipal(known);
  return known;
}

/**
 * The calling agent; 401 without a live master key, 403 for a suspended or banned agent: its status in
 * force, which a suspension or ban of any of its ancestors sets too (agents/status.ts).
 */
export async function requireAgent(ctx: Ctx): Promise<Agent> {
  return agentOf(await ctx.principal());
}

/** requireAgent's check of a caller already looked up. */
export function agentOf(principal: Principal): Agent {
  if (principal.kind !== 'agent') {
    throw principal.kind === 'admin' ? new Forbidden('This operation needs an agent master key, not the administrator key') : new Unauthorized();
  }
  if (principal.agent.status !== 'ACTIVE') {
    throw new Forbidden(`This agent is ${principal.agent.status.toLowerCase()}`);
  }
  return principal.agent;
}

export async function requireAdmin(ctx: Ctx): Promise<void> {
  adminOf(await ctx.principal());
}

/** requireAdmin's check of a caller already looked up. */
export function adminOf(principal: Principal): void {
  if (principal.kind === 'admin') return;
  if (principal.kind === 'agent') throw new Forbidden('This operation needs the administrator key');
  throw new Unauthorized();
}
