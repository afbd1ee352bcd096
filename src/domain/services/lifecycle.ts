// A service's lifecycle as a table of allowed moves, each recorded with who made it and when: its owner pauses (until
// resumed, or a time), resumes or removes it; the marketplace takes a long-failing one out of service and resumes the
// scheduled ones, and `suspended` follows the provider (agents/status.ts). Only an active service of an active provider is
// offered, and the change notification empties every instance's rankings and providers (docs/discovery.md).
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
 * The owner's moves. An `inactive` service (taken out after long failure) is resumed, paused or removed by its owner.
 * `suspended` is the marketplace's alone, following the provider's status and restored to what it was when the provider
 * is. A removed service stays removed: its row is kept only for the records that name it.
 */
export const SERVICE_MOVES: Moves<ServiceStatus> = {
  active: ['paused', 'removed'],
  paused: ['active', 'removed'],
  inactive: ['active', 'paused', 'removed'],
  suspended: [],
  removed: [],
};

/**
 * A service is taken out of service (`inactive`) when its last INACTIVE_AFTER_FAILURES calls or more all
 * failed and none has succeeded for INACTIVE_AFTER_DAYS (since its last success, its registration, or its
 * owner reactivating it, whichever is latest; the failures since a reactivation are what count then).
 */
export const INACTIVE_AFTER_FAILURES = 25;
export const INACTIVE_AFTER_DAYS = 3;
/** How often each instance looks at the next span of services to take out of service. */
export const INACTIVE_POLL_MS = 60_000;
/** Services looked at a tick: a million are swept in under four hours, well within INACTIVE_AFTER_DAYS. */
export const INACTIVE_SWEEP_ROWS = 5_000;

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
    const [row] = await tx.$queryRaw<{ id: string; status: ServiceStatus; failureCount: number }[]>`
      SELECT id, status::text AS status, failure_count AS "failureCount" FROM services
      WHERE service_key = ${serviceKey} AND agent_id = ${me.id}::uuid AND status <> 'removed' FOR NO KEY UPDATE`;
    if (!row) throw new NotFound('service', serviceKey);
    opts.prepare?.();
    assertMove(SERVICE_MOVES, row.status, to, 'service');
    const now = ctx.services.clock.now();
    // Reactivated: the run of failures that took it out of service counts no more (deactivateFailingServices).
    const reactivated = row.status === 'inactive' ? { reactivatedAt: now, failuresAtReactivation: row.failureCount } : {};
    const updated = await tx.service.update({ ...opts.query, where: { id: row.id }, data: { status: to, resumeAt: opts.resumeAt ?? null, ...reactivated } });
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

/**
 * Resumes a paused service, or reactivates an inactive one: offered again from the next request on, on every
 * instance.
 */
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

/**
 * Takes out of service (`inactive`) active services failing long with no success, until their owner resumes them. It
 * sweeps `rows` services after `after` in id order (the statistics it reads have no index: execute rewrites them every
 * call), so a tick costs the same at any size; each moves once. Answers how many moved and the last id (null: start over).
 * Its lock (NO KEY UPDATE) lets executions that reference a service be recorded meanwhile; a row another writer holds
 * is skipped and met again on the next pass.
 */
export async function deactivateFailingServices(
  services: Pick<Services, 'db' | 'clock'>,
  after = '00000000-0000-0000-0000-000000000000',
  rows = INACTIVE_SWEEP_ROWS,
): Promise<{ moved: number; last: string | null }> {
  const now = services.clock.now();
  const since = new Date(now.getTime() - INACTIVE_AFTER_DAYS * 86_400_000);
  return services.db.$transaction(async (tx) => {
    const [swept] = await tx.$queryRaw<{ last: string | null; moved: { service_key: string; failures: number; since: string }[] | null }[]>`
      WITH span AS (SELECT id FROM services WHERE id > ${after}::uuid ORDER BY id LIMIT ${rows}),
      moved AS (
        UPDATE services s SET status = 'inactive', updated_at = ${now}
        FROM (
          SELECT f.id, LEAST(f.consecutive_failures, f.failure_count - f.failures_at_reactivation) AS failures,
            COALESCE(GREATEST(f.last_success_at, f.reactivated_at), f.created_at) AS since
          FROM services f JOIN span USING (id)
          WHERE f.status = 'active' AND f.consecutive_failures >= ${INACTIVE_AFTER_FAILURES}
            AND f.failure_count - f.failures_at_reactivation >= ${INACTIVE_AFTER_FAILURES}
            AND COALESCE(GREATEST(f.last_success_at, f.reactivated_at), f.created_at) <= ${since}
          FOR NO KEY UPDATE OF f SKIP LOCKED
        ) due
        WHERE s.id = due.id AND s.status = 'active'
        RETURNING s.service_key, due.failures, due.since
      )
      SELECT (SELECT id::text FROM span ORDER BY id DESC LIMIT 1) AS last, (SELECT json_agg(moved) FROM moved) AS moved`;
    const moved = swept.moved ?? [];
    if (moved.length) {
      await tx.stateChange.createMany({
        data: moved.map((m) => ({
          subjectType: 'service',
          subjectId: m.service_key,
          fromState: 'active',
          toState: 'inactive',
          note: inactiveNote(m.failures, new Date(m.since)),
          actorKind: 'system',
          actorId: null,
        })),
      });
    }
    return { moved: moved.length, last: swept.last };
  });
}

/** The scheduled sweep: one span a tick, from where the last tick stopped, starting over at the end. */
export function inactiveSweep(services: Pick<Services, 'db' | 'clock'>) {
  let after: string | undefined;
  return async () => {
    const { last } = await deactivateFailingServices(services, after);
    after = last ?? undefined;
  };
}

const inactiveNote = (failures: number, since: Date) =>
  `taken out of service by the marketplace: ${failures} failed calls in a row and no success since ${since.toISOString()}; its owner reactivates it with resume`;

/**
 * Why a service is not offered, for its owner's view: the marketplace's states say what set them and what
 * lifts them; the owner's own (paused, removed) and `active` need no reason.
 */
export function statusReason(s: Pick<Service, 'status' | 'suspendedFrom' | 'consecutiveFailures' | 'lastSuccessAt'>): string | null {
  if (s.status === 'suspended') {
    return `its provider is suspended or banned (by its own status or an ancestor's); it returns to ${s.suspendedFrom ?? 'active'} when the provider is restored`;
  }
  if (s.status === 'inactive') {
    const since = s.lastSuccessAt ? `its last success at ${s.lastSuccessAt.toISOString()}` : 'registration with no success';
    return `taken out of service by the marketplace after a long run of failed calls (${s.consecutiveFailures} in a row since ${since}); resume it to offer it again`;
  }
  return null;
}
