// Spend mandates (docs/payments.md, Spend mandates): an agent lets one of its sub-agents pay for calls from the
// agent's own wallet, within caps per call, per UTC day and per UTC month, for the capabilities it names, until it
// expires or is revoked. A call holds its price against the caps before any provider is called (holdMandate); the
// statement that charges the call counts it and raises the alerts (execution/record.ts); the report reads the
// same rows, so what it says and what is enforced cannot differ.
import type { Agent, Mandate } from '../../db/generated/prisma/client';
import { isUniqueViolation } from '../../db/database';
import { AppError, Conflict, NotFound, ValidationFailed } from '../../platform/errors';
import { isUuid, newUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { agentInReach } from '../agents/agents';
import { requireAgent } from '../agents/principal';
import type { Ctx, Services } from '../context';

/** Alerts are raised when a period's spend reaches these percentages of its cap, once each per period. */
export const MANDATE_THRESHOLDS = [50, 80, 100] as const;
/** The most a cap may be, in cents. */
export const MAX_CAP_CENTS = 100_000_000;
/** Capability prefixes one mandate may name. */
export const MAX_MANDATE_CAPABILITIES = 50;
/** The furthest ahead a mandate may expire, and when it does unless told (delegated spending always ends). */
const MAX_EXPIRY_MS = 366 * 24 * 3600_000;
export const DEFAULT_MANDATE_DAYS = 30;
const CAPABILITY_PREFIX = /^[a-z0-9][a-z0-9.-]{0,63}$/;

export type MandatePeriodKind = 'day' | 'month';

/** The 402 of a call a mandate's caps do not leave room for. */
export class MandateExceeded extends AppError {
  constructor(message: string, extra: Record<string, unknown>) {
    super('payment_required', message, { ...extra, reason: 'mandate_exceeded' });
  }
}

export interface MandateInput {
  agentId?: unknown;
  perCallCents?: unknown;
  dailyCents?: unknown;
  monthlyCents?: unknown;
  capabilities?: unknown;
  expiresAt?: unknown;
}

/** A period's use of a mandate, as enforcement reads it. */
export interface PeriodUse {
  period: MandatePeriodKind;
  startsOn: string;
  capCents: number | null;
  spentCents: number;
  heldCents: number;
  calls: number;
  /** What a call could still be charged in this period (null: no cap). */
  remainingCents: number | null;
  /** Thresholds reached this period (percentages). */
  alerted: number[];
}

/** The UTC day and month a moment falls in, as dates. */
export function periodsOf(at: Date): { day: string; month: string } {
  const day = at.toISOString().slice(0, 10);
  return { day, month: `${day.slice(0, 8)}01` };
}

/** The thresholds (percentages) a set of bits names. */
export function thresholdsOf(bits: number): number[] {
  return MANDATE_THRESHOLDS.filter((_, i) => bits & (1 << i));
}

function readCaps(checks: Checks, input: MandateInput, now: Date) {
  const cap = (path: string, value: unknown) => checks.integer(path, value, 1, MAX_CAP_CENTS);
  const capabilities: string[] | undefined = (() => {
    if (input.capabilities === undefined || input.capabilities === null) return undefined;
    if (!Array.isArray(input.capabilities)) {
      checks.fail('capabilities', 'must be a list of capability prefixes');
      return undefined;
    }
    if (input.capabilities.length > MAX_MANDATE_CAPABILITIES) checks.fail('capabilities', `must have at most ${MAX_MANDATE_CAPABILITIES} entries`);
    input.capabilities.forEach((c, i) => {
      if (typeof c !== 'string' || !CAPABILITY_PREFIX.test(c))
        checks.fail(`capabilities.${i}`, 'must be a capability prefix of lower-case letters, digits, dots and dashes');
    });
    return [...new Set(input.capabilities as string[])];
  })();
  return {
    perCallCents: cap('perCallCents', input.perCallCents),
    dailyCents: cap('dailyCents', input.dailyCents),
    monthlyCents: cap('monthlyCents', input.monthlyCents),
    capabilities,
    expiresAt: checks.futureTime('expiresAt', input.expiresAt, now, MAX_EXPIRY_MS, 'a year'),
  };
}

/**
 * Grants a mandate to a sub-agent of the caller (at any depth). At least one cap; a sub-agent holds one mandate in
 * force at a time (409 while another is: change that one, or revoke it first).
 */
export async function grantMandate(ctx: Ctx, input: MandateInput): Promise<Mandate> {
  const me = await requireAgent(ctx);
  const now = ctx.services.clock.now();
  const checks = new Checks();
  const agentId = checks.text('agentId', input.agentId, { max: 64, required: true });
  const caps = readCaps(checks, input, now);
  if ([input.perCallCents, input.dailyCents, input.monthlyCents].every((cap) => cap === undefined || cap === null)) {
    checks.fail('dailyCents', 'a mandate bounds what it pays: give perCallCents, dailyCents or monthlyCents');
  }
  checks.done();
  if (agentId === me.id)
    throw new ValidationFailed({ path: 'agentId', message: "a mandate lets a sub-agent pay from its grantor's wallet: name one of your sub-agents" });
  const grantee = await agentInReach(ctx, agentId!);
  const data = {
    id: newUuid(),
    grantorId: me.id,
    granteeId: grantee.id,
    perCallCents: caps.perCallCents ?? null,
    dailyCents: caps.dailyCents ?? null,
    monthlyCents: caps.monthlyCents ?? null,
    capabilities: caps.capabilities ?? [],
    expiresAt: caps.expiresAt ?? new Date(now.getTime() + DEFAULT_MANDATE_DAYS * 24 * 3600_000),
  };
  try {
    return await ctx.db.$transaction(async (tx) => {
      // A mandate that expired is over: it is closed (revoked as of its expiry) so that a new one can be granted.
      await tx.mandate.updateMany({ where: { granteeId: grantee.id, revokedAt: null, expiresAt: { lte: now } }, data: { revokedAt: now } });
      return tx.mandate.create({ data });
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const live = await ctx.db.mandate.findFirst({ where: { granteeId: grantee.id, revokedAt: null }, select: { id: true } });
    throw new Conflict(
      `Agent ${grantee.id} already holds mandate ${live?.id ?? ''} in force: change it (PATCH /mandates/${live?.id ?? ':id'}) or revoke it first`,
    );
  }
}

/** A mandate the caller granted or holds; anyone else's is not found. */
export async function visibleMandate(ctx: Ctx, id: string): Promise<Mandate> {
  const me = await requireAgent(ctx);
  const mandate = isUuid(id) ? await ctx.db.mandate.findUnique({ where: { id } }) : null;
  if (!mandate || (mandate.grantorId !== me.id && mandate.granteeId !== me.id)) throw new NotFound('mandate', id);
  return mandate;
}

/** A mandate the caller granted (only its grantor changes or revokes it); anyone else's is not found. */
async function grantedMandate(ctx: Ctx, id: string): Promise<Mandate> {
  const me = await requireAgent(ctx);
  const mandate = isUuid(id) ? await ctx.db.mandate.findUnique({ where: { id } }) : null;
  if (!mandate || mandate.grantorId !== me.id) throw new NotFound('mandate', id);
  return mandate;
}

/** Changes caps, capabilities or expiry (null lifts a cap or the expiry); from the next call's hold on. */
export async function updateMandate(ctx: Ctx, id: string, input: MandateInput): Promise<Mandate> {
  const mandate = await grantedMandate(ctx, id);
  if (mandate.revokedAt) throw new Conflict(`Mandate ${mandate.id} was revoked: grant a new one`);
  const now = ctx.services.clock.now();
  const checks = new Checks();
  if (input.agentId !== undefined && input.agentId !== mandate.granteeId) checks.fail('agentId', 'cannot change: a mandate stays with its sub-agent');
  if (input.expiresAt === null) checks.fail('expiresAt', 'cannot be lifted: a mandate always ends (at most a year ahead)');
  const caps = readCaps(checks, input, now);
  checks.done();
  const pick = <K extends 'perCallCents' | 'dailyCents' | 'monthlyCents'>(k: K) => (input[k] === null ? null : caps[k] === undefined ? mandate[k] : caps[k]!);
  const next = { perCallCents: pick('perCallCents'), dailyCents: pick('dailyCents'), monthlyCents: pick('monthlyCents') };
  if (next.perCallCents === null && next.dailyCents === null && next.monthlyCents === null) {
    throw new ValidationFailed({ path: 'dailyCents', message: 'a mandate bounds what it pays: keep perCallCents, dailyCents or monthlyCents' });
  }
  return ctx.db.mandate.update({
    where: { id: mandate.id },
    data: {
      ...next,
      ...(caps.capabilities ? { capabilities: caps.capabilities } : {}),
      ...(caps.expiresAt ? { expiresAt: caps.expiresAt } : {}),
    },
  });
}

/** Revokes a mandate: calls in flight under it are still charged to it; no new one is paid. */
export async function revokeMandate(ctx: Ctx, id: string): Promise<Mandate> {
  const mandate = await grantedMandate(ctx, id);
  if (mandate.revokedAt) throw new Conflict(`Mandate ${mandate.id} was already revoked`);
  return ctx.db.mandate.update({ where: { id: mandate.id }, data: { revokedAt: ctx.services.clock.now() } });
}

/** The mandates the caller granted (`granted`) or holds (`held`), newest first. */
export async function listMandates(ctx: Ctx, role: 'granted' | 'held', page: Page) {
  const me = await requireAgent(ctx);
  const where = role === 'granted' ? { grantorId: me.id } : { granteeId: me.id };
  return pageOf(
    page,
    (q) => ctx.db.mandate.findMany({ where, ...q }),
    () => ctx.db.mandate.count({ where }),
  );
}

/** Whether a mandate is in force at `at`. */
export function inForce(mandate: Pick<Mandate, 'revokedAt' | 'expiresAt'>, at: Date): boolean {
  return !mandate.revokedAt && mandate.expiresAt > at;
}

/** Whether a mandate pays for calls of `capability`: one of its prefixes starts it, as an authority scope's does (none: every capability). */
export function covers(mandate: Pick<Mandate, 'capabilities'>, capability: string): boolean {
  return mandate.capabilities.length === 0 || mandate.capabilities.some((p) => capability.startsWith(p));
}

/**
 * The mandate that pays for `me`'s call of `capability`: its one mandate in force, when it covers the capability. A
 * top-level agent has none (nobody above it could grant one).
 */
export async function mandateForCall(ctx: Ctx, me: Agent, capability: string): Promise<Mandate | null> {
  if (!me.parentId) return null;
  const now = ctx.services.clock.now();
  const mandate = await ctx.db.mandate.findFirst({ where: { granteeId: me.id, revokedAt: null } });
  return mandate && inForce(mandate, now) && covers(mandate, capability) ? mandate : null;
}

/** What a call under a mandate holds: its hold, and the periods it is counted in. */
export interface MandateHold {
  id: string;
  mandateId: string;
  grantorId: string;
  perCallCents: number | null;
  day: string;
  month: string;
  cents: number;
}

/**
 * Holds `cents` of the mandate's caps for one call, or throws its 402 naming the cap with no room. The mandate's row
 * is locked by a statement of its own, so the holds summed next are read after the lock (two calls never both fit
 * the last room, on one instance or several). A hold lapses at `expiresAt` if its call is never recorded.
 */
export async function holdMandate(services: Services, mandate: Mandate, cents: number, expiresAt: Date): Promise<MandateHold> {
  const id = newUuid();
  const now = services.clock.now();
  const { day, month } = periodsOf(now);
  const held = await services.db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM mandates WHERE id = ${mandate.id}::uuid AND revoked_at IS NULL AND expires_at > ${now} FOR NO KEY UPDATE`;
    if (!locked.length) return null;
    return tx.$queryRaw<{ id: string | null; day_used: number; month_used: number; per_call: number | null; daily: number | null; monthly: number | null }[]>`
      WITH m AS (SELECT per_call_cents, daily_cents, monthly_cents FROM mandates WHERE id = ${mandate.id}::uuid),
      used AS (
        SELECT
          coalesce((SELECT spent_cents FROM mandate_periods WHERE mandate_id = ${mandate.id}::uuid AND period = 'day' AND starts_on = ${day}::date), 0)
            + coalesce((SELECT sum(cents) FROM mandate_holds WHERE mandate_id = ${mandate.id}::uuid AND day = ${day}::date AND expires_at > ${now}), 0) AS day_used,
          coalesce((SELECT spent_cents FROM mandate_periods WHERE mandate_id = ${mandate.id}::uuid AND period = 'month' AND starts_on = ${month}::date), 0)
            + coalesce((SELECT sum(cents) FROM mandate_holds WHERE mandate_id = ${mandate.id}::uuid AND month = ${month}::date AND expires_at > ${now}), 0) AS month_used
      ), ins AS (
        INSERT INTO mandate_holds (id, mandate_id, day, month, cents, expires_at)
        SELECT ${id}::uuid, ${mandate.id}::uuid, ${day}::date, ${month}::date, ${cents}, ${expiresAt} FROM m, used
        WHERE (m.per_call_cents IS NULL OR ${cents} <= m.per_call_cents)
          AND (m.daily_cents IS NULL OR used.day_used + ${cents} <= m.daily_cents)
          AND (m.monthly_cents IS NULL OR used.month_used + ${cents} <= m.monthly_cents)
        RETURNING id
      )
      SELECT (SELECT id FROM ins) AS id, used.day_used::int, used.month_used::int, m.per_call_cents AS per_call, m.daily_cents AS daily, m.monthly_cents AS monthly
      FROM m, used`;
  });
  if (!held || !held.length) throw new MandateExceeded(`Mandate ${mandate.id} is no longer in force: nothing is paid under it`, { mandate_id: mandate.id });
  const row = held[0];
  if (row.id) return { id, mandateId: mandate.id, grantorId: mandate.grantorId, perCallCents: mandate.perCallCents, day, month, cents };
  const left = (cap: number | null, used: number) => (cap === null ? null : Math.max(0, cap - used));
  if (row.per_call !== null && cents > row.per_call) {
    throw new MandateExceeded(`This call may cost up to ${cents} cents; mandate ${mandate.id} pays at most ${row.per_call} cents a call`, {
      mandate_id: mandate.id,
      cap: 'per_call_cents',
      cap_cents: row.per_call,
    });
  }
  const [cap, capCents, remaining, period] =
    row.daily !== null && row.day_used + cents > row.daily
      ? (['daily_cents', row.daily, left(row.daily, row.day_used), `today (${day}, UTC)`] as const)
      : (['monthly_cents', row.monthly, left(row.monthly, row.month_used), `this month (${month.slice(0, 7)}, UTC)`] as const);
  throw new MandateExceeded(
    `This call may cost up to ${cents} cents; mandate ${mandate.id} has ${remaining} of its ${capCents} cents left ${period}, calls in flight included`,
    { mandate_id: mandate.id, cap, cap_cents: capCents, remaining_cents: remaining },
  );
}

/** Gives a hold back at once (its call was never recorded). */
export async function releaseMandateHold(services: Services, holdId: string): Promise<void> {
  await services.db.mandateHold.deleteMany({ where: { id: holdId } });
}

/** Each period's use of mandates, as enforcement reads it: what was charged, what calls in flight hold, what is left. */
export async function mandateUse(services: Services, mandates: readonly Mandate[]): Promise<Map<string, { day: PeriodUse; month: PeriodUse }>> {
  const now = services.clock.now();
  const { day, month } = periodsOf(now);
  const ids = mandates.map((m) => m.id);
  const rows = await services.sql.query<{ mandate_id: string; period: MandatePeriodKind; spent: number; calls: number; alerted: number; held: number }>(
    `SELECT k.mandate_id, k.period,
       coalesce(p.spent_cents, 0)::int AS spent, coalesce(p.calls, 0)::int AS calls, coalesce(p.alerted, 0)::int AS alerted,
       coalesce((SELECT sum(h.cents) FROM mandate_holds h WHERE h.mandate_id = k.mandate_id AND h.expires_at > $4
         AND (CASE WHEN k.period = 'day' THEN h.day = $2::date ELSE h.month = $3::date END)), 0)::int AS held
     FROM unnest($1::uuid[]) AS m(mandate_id) CROSS JOIN LATERAL (VALUES (m.mandate_id, 'day'), (m.mandate_id, 'month')) AS k(mandate_id, period)
     LEFT JOIN mandate_periods p ON p.mandate_id = k.mandate_id AND p.period = k.period AND p.starts_on = (CASE WHEN k.period = 'day' THEN $2::date ELSE $3::date END)`,
    [ids, day, month, now],
  );
  const out = new Map<string, { day: PeriodUse; month: PeriodUse }>();
  for (const mandate of mandates) {
    const use = (period: MandatePeriodKind): PeriodUse => {
      const row = rows.find((r) => r.mandate_id === mandate.id && r.period === period);
      const capCents = period === 'day' ? mandate.dailyCents : mandate.monthlyCents;
      const spentCents = row?.spent ?? 0;
      const heldCents = row?.held ?? 0;
      return {
        period,
        startsOn: period === 'day' ? day : month,
        capCents,
        spentCents,
        heldCents,
        calls: row?.calls ?? 0,
        remainingCents: capCents === null ? null : Math.max(0, capCents - spentCents - heldCents),
        alerted: thresholdsOf(row?.alerted ?? 0),
      };
    };
    out.set(mandate.id, { day: use('day'), month: use('month') });
  }
  return out;
}
