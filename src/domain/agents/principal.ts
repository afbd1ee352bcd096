// Who is calling: a bearer secret's hash looked up among live credentials, and the checks every
// agent-only (B) and admin-only operation makes.
import type { Agent } from '../../db/generated/prisma/client';
import { Forbidden, Unauthorized } from '../../platform/errors';
import type { Ctx, Principal, Services } from '../context';
import type { Bearer } from '../../platform/auth';

export async function lookupPrincipal(services: Services, bearer: Bearer): Promise<Principal> {
  if (bearer.kind === 'none') return { kind: 'anonymous' };
  if (bearer.kind === 'malformed') return { kind: 'invalid' };
  const credential = await services.db.credential.findUnique({ where: { hash: bearer.hash }, include: { agent: true } });
  if (!credential || credential.revokedAt) return { kind: 'invalid' };
  if (credential.kind === 'admin') return { kind: 'admin', credentialId: credential.id };
  if (!credential.agent) return { kind: 'invalid' };
  return { kind: 'agent', agent: credential.agent, credentialId: credential.id };
}

/** The calling agent; 401 without a live master key, 403 for a suspended or banned agent. */
export async function requireAgent(ctx: Ctx): Promise<Agent> {
  const principal = await ctx.principal();
  if (principal.kind !== 'agent') {
    throw principal.kind === 'admin' ? new Forbidden('This operation needs an agent master key, not the administrator key') : new Unauthorized();
  }
  if (principal.agent.status !== 'ACTIVE') {
    throw new Forbidden(`This agent is ${principal.agent.status.toLowerCase()}`);
  }
  return principal.agent;
}

export async function requireAdmin(ctx: Ctx): Promise<void> {
  const principal = await ctx.principal();
  if (principal.kind === 'admin') return;
  if (principal.kind === 'agent') throw new Forbidden('This operation needs the administrator key');
  throw new Unauthorized();
}
