// The audit log: every security-relevant act on an agent's account, with who did it, when and from where.
import type { DbTx } from '../../db/database';
import type { Prisma, StateChange } from '../../db/generated/prisma/client';
import { allEach, perRequest } from '../../platform/loaders';
import type { Ctx, Principal } from '../context';

export type AuditAction =
  | 'agent.registered'
  | 'profile.updated'
  | 'subagent.created'
  | 'status.changed'
  | 'key.provisioned'
  | 'key.rotated'
  | 'key.revoked'
  | 'service.registered'
  | 'service.updated'
  | 'service.paused'
  | 'service.resumed'
  | 'service.removed'
  | 'wallet.created'
  | 'wallet.faucet'
  | 'pricing.set'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.deleted'
  | 'ticket_endpoint.registered'
  | 'memory_store.created'
  | 'memory_store.updated'
  | 'memory_store.deleted'
  | 'subscription.created'
  | 'subscription.updated'
  | 'streaming_session.created'
  | 'skill.created'
  | 'skill.updated'
  | 'skill.published'
  | 'skill.unpublished'
  | 'skill.deleted'
  | 'skill.forked'
  | 'skill.installed';

export interface AuditEntry {
  agentId: string;
  action: AuditAction;
  targetType?: string;
  targetId?: string;
  details?: Prisma.InputJsonValue;
}

function actorOf(principal: Principal | undefined): { actorKind: string; actorId: string | null } {
  if (principal?.kind === 'agent') return { actorKind: 'agent', actorId: principal.agent.id };
  if (principal?.kind === 'admin') return { actorKind: 'admin', actorId: principal.credentialId };
  return { actorKind: 'system', actorId: null };
}

/** Records an entry inside the caller's transaction. */
export async function recordAudit(db: DbTx, ctx: Ctx, entry: AuditEntry): Promise<void> {
  const principal = await ctx.principal();
  await db.auditEvent.create({
    data: { ...entry, details: entry.details ?? {}, ...actorOf(principal), ipAddress: ctx.clientAddress },
  });
}

export interface StateChangeEntry {
  subjectType: string;
  subjectId: string;
  from: string | null;
  to: string;
  note?: string | null;
}

/** Records one move of a state machine, with who made it, inside the caller's transaction. */
export async function recordStateChange(db: DbTx, ctx: Ctx | null, change: StateChangeEntry): Promise<void> {
  const actor = ctx ? actorOf(await ctx.principal()) : { actorKind: 'system', actorId: null };
  await db.stateChange.create({
    data: { subjectType: change.subjectType, subjectId: change.subjectId, fromState: change.from, toState: change.to, note: change.note ?? null, ...actor },
  });
}

interface Subject {
  subjectType: string;
  subjectId: string;
}

const subjectKey = (s: Subject) => `${s.subjectType}\u0000${s.subjectId}`;

const stateChanges = perRequest(async (ctx: Ctx, subjects: readonly Subject[]) => {
  const idsByType = new Map<string, Set<string>>();
  for (const s of subjects) idsByType.set(s.subjectType, (idsByType.get(s.subjectType) ?? new Set()).add(s.subjectId));
  const rows = await ctx.db.stateChange.findMany({
    where: { OR: [...idsByType].map(([subjectType, ids]) => ({ subjectType, subjectId: { in: [...ids] } })) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return allEach(subjects.map(subjectKey), rows, subjectKey);
});

/**
 * Every recorded move of one subject, oldest first. The subjects of every object a request reads at once
 * (the tickets of a list) are read in one statement.
 */
export function stateChangesOf(ctx: Ctx, subjectType: string, subjectId: string): Promise<StateChange[]> {
  return stateChanges(ctx).load({ subjectType, subjectId });
}
