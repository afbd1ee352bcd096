// A service's lifecycle in its owner's hands: pause it (until resumed, or until a time: a beta feature),
// resume it, remove it for good. A table of allowed moves; each move is recorded with who made it and when.
// Only an active service of an active provider is offered: its offers follow its status (the services
// trigger), and the database's change notification empties every instance's rankings and execute's
// providers, so the next `resolve` and `execute` anywhere see the move (docs/discovery.md).
import type { Prisma, Service } from '../../db/generated/prisma/client';
import { NotFound } from '../../platform/errors';
import { assertMove, type Moves } from '../../platform/state-machine';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { recordAudit, recordStateChange, type AuditAction } from '../audit/audit';
import type { Ctx, Services } from '../context';
import { refuseBetaField } from '../reputation/privileges';
import type { SERVICE_STATUSES } from './services';

export type ServiceStatus = (typeof SERVICE_STATUSES)[number];

/**
 * The owner's moves. `inactive` (a service taken out of service in the database itself) may be resumed,
 * paused or removed; `suspended` is an administrator's, and its owner may only remove it. A removed service
 * stays removed: its row is kept for the records that name it (executions, transactions, disputes,
 * tickets), and for nothing else.
 */
export const SERVICE_MOVES: Moves<ServiceStatus> = {
  active: ['paused', 'removed'],
  paused: ['active', 'removed'],
  inactive: ['active', 'paused', 'removed'],
  suspended: ['removed'],
  removed: [],
};

/** The furthest ahead a scheduled resume may be set. */
export const RESUME_AT_MAX_DAYS = 90;
/** Services resumed by one statement at most (the job repeats it while it fills). */
export const RESUME_BATCH = 100;
/** How often each instance looks for scheduled resumes that have come: a service resumes within this of its time. */
export const RESUME_POLL_MS = 5_000;

export interface PauseServiceInput {
  resumeAt?: unknown;
  reason?: unknown;
}

type ServiceQuery = { include?: Prisma.ServiceInclude; select?: Prisma.ServiceSelect };

/** The states an owner moves a service to, and the audit action of each move. */
type OwnerMove = 'active' | 'paused' | 'removed';
const ACTIONS: Record<OwnerMove, AuditAction> = { active: 'service.resumed', paused: 'service.paused', removed: 'service.removed' };

/**
 * Moves one of the caller's services (another agent's, and a removed one, is not found) by SERVICE_MOVES
 * (409 otherwise), inside one transaction that locks the service, records the move and its audit entry.
 * `prepare` runs once the service is found, for checks that must come after the 404 (a refusal).
 */
async function moveService(
  ctx: Ctx,
  serviceKey: string,
  to: OwnerMove,
  opts: { note?: string | null; resumeAt?: Date | null; prepare?: () => void; query?: ServiceQuery },
): Promise<Service> {
  const me = await requireAgent(ctx);
  return ctx.db.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ id: string; status: ServiceStatus }[]>`
      SELECT id, status::text AS status FROM services
      WHERE service_key = ${serviceKey} AND agent_id = ${me.id}::uuid AND status <> 'removed' FOR NO KEY UPDATE`;
    if (!row) throw new NotFound('service', serviceKey);
    opts.prepare?.();
    assertMove(SERVICE_MOVES, row.status, to, 'service');
    const now = ctx.services.clock.now();
    const updated = await tx.service.update({ ...opts.query, where: { id: row.id }, data: { status: to, resumeAt: opts.resumeAt ?? null } });
    let revoked = 0;
    if (to === 'removed') {
      // Its keys can no longer be verified, and no longer count against their holders' allowances; its
      // ticket endpoint receives nothing more.
      revoked = (await tx.subKey.updateMany({ where: { serviceId: row.id, revokedAt: null }, data: { revokedAt: now } })).count;
      await tx.ticketEndpoint.deleteMany({ where: { serviceId: row.id } });
    }
    await recordStateChange(tx, ctx, { subjectType: 'service', subjectId: serviceKey, from: row.status, to, note: opts.note ?? null });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: ACTIONS[to],
      targetType: 'service',
      targetId: row.id,
      details: {
        service_key: serviceKey,
        from: row.status,
        to,
        ...(opts.resumeAt ? { resume_at: opts.resumeAt.toISOString() } : {}),
        ...(opts.note ? { reason: opts.note } : {}),
        ...(to === 'removed' ? { sub_keys_revoked: revoked } : {}),
      },
    });
    return updated;
  });
}

/**
 * Pauses a service: out of the listings, `resolve`, `execute` (auto and chosen), sub-key provisioning and
 * verification until resumed; changes to it may still be made. `resumeAt` (Trusted and above: a beta
 * feature) resumes it then, by the scheduled job; without it, only `resumeService` does.
 */
export async function pauseService(ctx: Ctx, serviceKey: string, input: PauseServiceInput = {}, query: ServiceQuery = {}): Promise<Service> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const resumeAt = checks.futureTime('resumeAt', input.resumeAt, ctx.services.clock.now(), RESUME_AT_MAX_DAYS * 86_400_000, `${RESUME_AT_MAX_DAYS} days`);
  const reason = checks.text('reason', input.reason, { max: 500 });
  checks.done();
  return moveService(ctx, serviceKey, 'paused', {
    note: reason,
    resumeAt: resumeAt ?? null,
    query,
    // Refused only for the caller's own service: another agent's answers 404 first.
    prepare: () => {
      if (resumeAt) {
        const refusals = new Checks();
        refuseBetaField(refusals, 'resumeAt', me, 'scheduled_resume');
        refusals.done();
      }
    },
  });
}

/** Resumes a paused service: offered again from the next request on, on every instance. */
export function resumeService(ctx: Ctx, serviceKey: string, query: ServiceQuery = {}): Promise<Service> {
  return moveService(ctx, serviceKey, 'active', { query });
}

/**
 * Removes a service for good: never offered, listed or found by its key again; its sub-keys are revoked and
 * its ticket endpoint deleted. Its executions, transactions, disputes and tickets keep naming it, and its
 * owner still reads its tickets.
 */
export function removeService(ctx: Ctx, serviceKey: string, query: ServiceQuery = {}): Promise<Service> {
  return moveService(ctx, serviceKey, 'removed', { query });
}

/**
 * Resumes the paused services whose `resume_at` has come (a scheduled job on every instance: the update
 * of each row happens once, whichever instance gets it). Answers how many it resumed.
 */
export async function resumeDueServices(services: Pick<Services, 'db' | 'clock'>): Promise<number> {
  const now = services.clock.now();
  return services.db.$transaction(async (tx) => {
    const resumed = await tx.$queryRaw<{ service_key: string; resume_at: Date }[]>`
      UPDATE services s SET status = 'active', resume_at = NULL, updated_at = ${now}
      FROM (SELECT id, resume_at FROM services WHERE status = 'paused' AND resume_at <= ${now} ORDER BY resume_at LIMIT ${RESUME_BATCH} FOR UPDATE SKIP LOCKED) due
      WHERE s.id = due.id
      RETURNING s.service_key, due.resume_at`;
    if (resumed.length) {
      await tx.stateChange.createMany({
        data: resumed.map((r) => ({
          subjectType: 'service',
          subjectId: r.service_key,
          fromState: 'paused',
          toState: 'active',
          note: `resumed at ${new Date(r.resume_at).toISOString()}, as its owner scheduled`,
          actorKind: 'system',
          actorId: null,
        })),
      });
    }
    return resumed.length;
  });
}
