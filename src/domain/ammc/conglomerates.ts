// Agent conglomerates (spec §2 AMMC conglomerate, §3, §4.11): a founder pools agents under a budget toward a
// goal. A conglomerate forms (FORMING), operates (OPERATING), and ends SETTLED or DISSOLVED — by its founder,
// or by the marketplace when an exit condition is met: its deadline (timer), its loss limit (dissolved) or
// its profit target (settled). While it operates its members record its activity — trades, and executions
// made on its behalf — in an append-only ledger that may never spend more than its balance.
import type { DbTx } from '../../db/database';
import type { Conglomerate, ConglomerateEntry, Prisma } from '../../db/generated/prisma/client';
import { Conflict, Forbidden, NotFound } from '../../platform/errors';
import { isUuid, newConglomerateId } from '../../platform/ids';
import { assertMove, type Moves } from '../../platform/state-machine';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import { assertAllowance } from '../agents/agents';
import type { Ctx, Services } from '../context';
import { transact, type Emit } from '../events';
import { BudgetExceeded } from '../tasks/budget';
import { performance, type DayPnl, type Performance } from './stats';

export const CONGLOMERATE_STATES = ['FORMING', 'OPERATING', 'SETTLED', 'DISSOLVED'] as const;
export type ConglomerateState = (typeof CONGLOMERATE_STATES)[number];
export const CONGLOMERATE_MOVES: Moves<ConglomerateState> = {
  FORMING: ['OPERATING', 'DISSOLVED'],
  OPERATING: ['SETTLED', 'DISSOLVED'],
  SETTLED: [],
  DISSOLVED: [],
};
export const CONGLOMERATE_TYPES = ['DEFI', 'COMMERCE', 'COLLABORATION'] as const;
export const ACTIVITY_KINDS = ['trade', 'execution'] as const;
export const BUDGET_MAX_USD = 1_000_000;
/**
 * What a conglomerate's ledger may bring back in all (and so its profit target): its totals are 32-bit
 * integer cents, which the budget plus this keeps clear of.
 */
export const PROCEEDS_MAX_USD = 20_000_000;
export const MEMBERS_MAX = 50;
const DEADLINE_MAX_DAYS = 366;
/** Conglomerates one agent may have forming or operating at once. */
export const OPEN_PER_AGENT = 100;
const CONGLOMERATE_ID = /^cong_[0-9A-Za-z]{24}$/;

type Trigger = 'external' | 'system' | 'timer';

export interface CreateConglomerateInput {
  goal?: unknown;
  maxBudgetUsd?: unknown;
  exitConditions?: { deadline?: unknown; maxLossUsd?: unknown; profitTargetUsd?: unknown } | null;
  conglomerateType?: unknown;
  members?: unknown;
}

export async function createConglomerate(ctx: Ctx, input: CreateConglomerateInput): Promise<Conglomerate> {
  const me = await requireAgent(ctx);
  const now = ctx.services.clock.now();
  const checks = new Checks();
  const goal = checks.text('goal', input.goal, { max: 2000, required: true, multiline: true });
  if (input.maxBudgetUsd === undefined || input.maxBudgetUsd === null) checks.fail('maxBudgetUsd', 'is required');
  const budget = checks.dollars('maxBudgetUsd', input.maxBudgetUsd, BUDGET_MAX_USD);
  if (budget === 0) checks.fail('maxBudgetUsd', 'must be more than 0');
  const exit = input.exitConditions ?? {};
  const deadline = checks.futureTime('exitConditions.deadline', exit.deadline, now, DEADLINE_MAX_DAYS * 86_400_000, 'a year');
  const maxLoss = checks.dollars('exitConditions.maxLossUsd', exit.maxLossUsd, BUDGET_MAX_USD);
  if (maxLoss === 0) checks.fail('exitConditions.maxLossUsd', 'must be more than 0');
  else if (maxLoss !== undefined && budget !== undefined && maxLoss > budget) checks.fail('exitConditions.maxLossUsd', 'must not be more than maxBudgetUsd');
  const profitTarget = checks.dollars('exitConditions.profitTargetUsd', exit.profitTargetUsd, PROCEEDS_MAX_USD);
  if (profitTarget === 0) checks.fail('exitConditions.profitTargetUsd', 'must be more than 0');
  const type = checks.oneOf('conglomerateType', input.conglomerateType, CONGLOMERATE_TYPES, 'COLLABORATION');
  const members: string[] = [];
  if (input.members !== undefined && input.members !== null) {
    if (!Array.isArray(input.members) || input.members.length > MEMBERS_MAX) checks.fail('members', `must be a list of at most ${MEMBERS_MAX} agent ids`);
    else
      input.members.forEach((m, i) => {
        if (!isUuid(m)) checks.fail(`members.${i}`, 'must be an agent id');
        else if (m === me.id) checks.fail(`members.${i}`, 'is the founder, who is a member already');
        else if (!members.includes(m.toLowerCase())) members.push(m.toLowerCase());
      });
  }
  checks.done();
  if (members.length) {
    const found = new Set((await ctx.db.agent.findMany({ where: { id: { in: members }, status: 'ACTIVE' }, select: { id: true } })).map((a) => a.id));
    const missing = new Checks();
    (input.members as string[]).forEach((m, i) => {
      if (!found.has(m.toLowerCase())) missing.fail(`members.${i}`, 'names no active agent');
    });
    missing.done();
  }
  const id = newConglomerateId();
  const history = [{ from: null, to: 'FORMING', triggered_by: 'external', by: me.id, at: now.toISOString() }];
  return transact(ctx, async (tx, emit) => {
    await assertAllowance(
      tx,
      me.id,
      OPEN_PER_AGENT,
      () => tx.conglomerate.count({ where: { agentId: me.id, state: { in: ['FORMING', 'OPERATING'] } } }),
      () => new Conflict(`At most ${OPEN_PER_AGENT} conglomerates may be forming or operating per founder`),
    );
    const created = await tx.conglomerate.create({
      data: {
        id,
        agentId: me.id,
        goal: goal!,
        conglomerateType: type!,
        maxBudgetCents: budget!,
        memberIds: members,
        exitDeadline: deadline ?? null,
        maxLossCents: maxLoss ?? null,
        profitTargetCents: profitTarget ?? null,
        stateHistory: history as Prisma.InputJsonArray,
        createdAt: now,
      },
    });
    await emitChange(emit, created, null, 'FORMING', 'external', me.id, null, now);
    return created;
  });
}

/** `ammc.conglomerate.state_changed` to the founder and to each member. */
async function emitChange(
  emit: Emit,
  c: Conglomerate,
  from: string | null,
  to: string,
  trigger: Trigger,
  by: string,
  reason: string | null,
  now: Date,
): Promise<void> {
  const data = {
    conglomerate_id: c.id,
    conglomerate_type: c.conglomerateType,
    goal: c.goal,
    from,
    to,
    triggered_by: trigger,
    by,
    reason,
    at: now.toISOString(),
  };
  for (const agentId of [c.agentId, ...c.memberIds]) await emit(agentId, 'ammc.conglomerate.state_changed', data);
}

/** A conglomerate the caller founded or belongs to; anyone else is answered as if it did not exist. */
async function conglomerateInReach(ctx: Ctx, id: string): Promise<{ me: string; conglomerate: Conglomerate }> {
  const me = await requireAgent(ctx);
  const c = CONGLOMERATE_ID.test(id) ? await ctx.db.conglomerate.findUnique({ where: { id } }) : null;
  if (!c || (c.agentId !== me.id && !c.memberIds.includes(me.id))) throw new NotFound('conglomerate', id);
  return { me: me.id, conglomerate: c };
}

export async function getConglomerate(ctx: Ctx, id: string): Promise<Conglomerate> {
  return (await conglomerateInReach(ctx, id)).conglomerate;
}

const mineWhere = (agentId: string) => ({ OR: [{ agentId }, { memberIds: { has: agentId } }] });

export async function listConglomerates(ctx: Ctx, page: Page, state?: string | null) {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const only = state === undefined || state === null ? undefined : checks.oneOf('state', state, CONGLOMERATE_STATES);
  checks.done();
  const where = { ...mineWhere(me.id), ...(only && { state: only }) };
  return pageOf(
    page,
    (q) => ctx.db.conglomerate.findMany({ where, ...q }),
    () => ctx.db.conglomerate.count({ where }),
  );
}

/**
 * Makes one move inside `tx` (the conglomerate row locked and read there): checked against the table,
 * appended to the history, and announced.
 */
async function move(
  tx: DbTx,
  emit: Emit,
  c: Conglomerate,
  to: ConglomerateState,
  trigger: Trigger,
  by: string,
  reason: string | null,
  now: Date,
): Promise<Conglomerate> {
  assertMove(CONGLOMERATE_MOVES, c.state as ConglomerateState, to, 'conglomerate');
  const entry = { from: c.state, to, triggered_by: trigger, by, at: now.toISOString(), ...(reason && { reason }) };
  const ends = to === 'SETTLED' || to === 'DISSOLVED';
  await tx.$executeRaw`
    UPDATE conglomerates SET state = ${to}, state_history = state_history || ${JSON.stringify([entry])}::jsonb, updated_at = ${now},
      operating_at = CASE WHEN ${to} = 'OPERATING' THEN ${now}::timestamptz ELSE operating_at END,
      ended_at = CASE WHEN ${ends} THEN ${now}::timestamptz ELSE ended_at END,
      end_reason = CASE WHEN ${ends} THEN ${reason ?? (trigger === 'external' ? 'ended by its founder' : null)} ELSE end_reason END
    WHERE id = ${c.id}`;
  const moved = await tx.conglomerate.findUniqueOrThrow({ where: { id: c.id } });
  await emitChange(emit, moved, c.state, to, trigger, by, reason, now);
  return moved;
}

async function locked(tx: DbTx, id: string): Promise<Conglomerate> {
  await tx.$executeRaw`SELECT 1 FROM conglomerates WHERE id = ${id} FOR NO KEY UPDATE`;
  return tx.conglomerate.findUniqueOrThrow({ where: { id } });
}

export interface AdvanceInput {
  targetState?: unknown;
  reason?: unknown;
}

/** The founder moves its conglomerate (a member: 403; anyone else: 404; a move outside the table: 409). */
export async function advanceConglomerate(ctx: Ctx, id: string, input: AdvanceInput): Promise<Conglomerate> {
  const { me, conglomerate } = await conglomerateInReach(ctx, id);
  const checks = new Checks();
  const to = checks.oneOf('targetState', input.targetState, CONGLOMERATE_STATES);
  const reason = checks.text('reason', input.reason, { max: 500 }) || null;
  checks.done();
  if (conglomerate.agentId !== me) throw new Forbidden('Only the founder of a conglomerate advances it');
  assertMove(CONGLOMERATE_MOVES, conglomerate.state as ConglomerateState, to!, 'conglomerate');
  const now = ctx.services.clock.now();
  return transact(ctx, async (tx, emit) => move(tx, emit, await locked(tx, id), to!, 'external', me, reason, now));
}

/** The exit condition a conglomerate's profit and loss meets now, if any. */
function exitByResult(c: Conglomerate): { to: ConglomerateState; reason: string } | null {
  const pnl = c.proceedsCents - c.spentCents;
  if (c.maxLossCents !== null && -pnl >= c.maxLossCents) return { to: 'DISSOLVED', reason: 'loss limit reached' };
  if (c.profitTargetCents !== null && pnl >= c.profitTargetCents) return { to: 'SETTLED', reason: 'profit target reached' };
  return null;
}

export interface ActivityInput {
  kind?: unknown;
  costUsd?: unknown;
  proceedsUsd?: unknown;
  executionId?: unknown;
  description?: unknown;
}

export interface RecordedActivity {
  entry: ConglomerateEntry;
  conglomerate: Conglomerate;
}

/**
 * A member records an activity of an operating conglomerate: a trade (its cost and return) or an execution of its own
 * on the conglomerate's behalf. The balance must cover the cost (402 otherwise); a result that meets the loss limit or
 * profit target ends the conglomerate in the same transaction.
 */
export async function recordActivity(ctx: Ctx, id: string, input: ActivityInput): Promise<RecordedActivity> {
  const { me, conglomerate } = await conglomerateInReach(ctx, id);
  const checks = new Checks();
  const kind = checks.oneOf('kind', input.kind, ACTIVITY_KINDS, 'trade');
  let cost: number | undefined;
  let proceeds = 0;
  let executionId: string | null = null;
  if (kind === 'trade') {
    if (input.costUsd === undefined || input.costUsd === null) checks.fail('costUsd', 'is required for a trade');
    cost = checks.dollars('costUsd', input.costUsd, BUDGET_MAX_USD);
    proceeds = checks.dollars('proceedsUsd', input.proceedsUsd, PROCEEDS_MAX_USD) ?? 0;
    if (input.executionId !== undefined && input.executionId !== null) checks.fail('executionId', 'is only for kind execution');
  } else if (kind === 'execution') {
    if (!isUuid(input.executionId))
      checks.fail('executionId', input.executionId === undefined || input.executionId === null ? 'is required for an execution' : 'must be an execution id');
    else executionId = input.executionId.toLowerCase();
    for (const f of ['costUsd', 'proceedsUsd'] as const) if (input[f] !== undefined && input[f] !== null) checks.fail(f, 'is taken from the execution');
  }
  const description = checks.text('description', input.description, { max: 500 }) ?? '';
  checks.done();
  if (executionId) {
    const execution = await ctx.db.execution.findFirst({ where: { id: executionId, agentId: me } });
    if (!execution) throw new NotFound('execution', executionId);
    cost = execution.costCents;
  }
  if (conglomerate.state !== 'OPERATING') throw new Conflict(`The conglomerate is ${conglomerate.state}: activity is recorded only while it is OPERATING`);
  const now = ctx.services.clock.now();
  return transact(ctx, async (tx, emit) => {
    let c = await locked(tx, id);
    if (c.state !== 'OPERATING') throw new Conflict(`The conglomerate is ${c.state}: activity is recorded only while it is OPERATING`);
    const balance = c.maxBudgetCents - c.spentCents + c.proceedsCents;
    if (cost! > balance)
      throw new BudgetExceeded(`The conglomerate's balance is ${(balance / 100).toFixed(2)} USD; this costs ${(cost! / 100).toFixed(2)} USD`);
    if (c.proceedsCents + proceeds > PROCEEDS_MAX_USD * 100) throw new Conflict(`A conglomerate's ledger brings back at most ${PROCEEDS_MAX_USD} USD in all`);
    if (executionId && (await tx.conglomerateEntry.findUnique({ where: { executionId } }))) throw new Conflict('That execution is recorded already');
    const entry = await tx.conglomerateEntry.create({
      data: { conglomerateId: id, agentId: me, kind: kind!, costCents: cost!, proceedsCents: proceeds, executionId, description, createdAt: now },
    });
    c = await tx.conglomerate.update({
      where: { id },
      data: {
        spentCents: { increment: cost! },
        proceedsCents: { increment: proceeds },
        ...(kind === 'trade' ? { trades: { increment: 1 } } : { executions: { increment: 1 } }),
      },
    });
    const exit = exitByResult(c);
    if (exit) c = await move(tx, emit, c, exit.to, 'system', 'marketplace', exit.reason, now);
    return { entry, conglomerate: c };
  });
}

export async function listActivity(ctx: Ctx, id: string, page: Page) {
  const { conglomerate } = await conglomerateInReach(ctx, id);
  const where = { conglomerateId: conglomerate.id };
  return pageOf(
    page,
    (q) => ctx.db.conglomerateEntry.findMany({ where, ...q }),
    () => ctx.db.conglomerateEntry.count({ where }),
  );
}

/** Ends conglomerates whose deadline passed: an operating one settles, a forming one dissolves (trigger `timer`). */
export async function applyDeadlines(services: Services, batch = 200): Promise<number> {
  const now = services.clock.now();
  // Looked for first outside a transaction: an idle tick is one statement, not BEGIN, a claim and COMMIT.
  const [{ any }] = await services.sql.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM conglomerates WHERE state IN ('FORMING', 'OPERATING') AND exit_deadline < $1) AS any`,
    [now],
  );
  if (!any) return 0;
  return transact({ db: services.db, services }, async (tx, emit) => {
    const due = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM conglomerates WHERE state IN ('FORMING', 'OPERATING') AND exit_deadline < ${now}
      ORDER BY exit_deadline LIMIT ${batch} FOR NO KEY UPDATE SKIP LOCKED`;
    for (const { id } of due) {
      const c = await tx.conglomerate.findUniqueOrThrow({ where: { id } });
      const to = c.state === 'OPERATING' ? 'SETTLED' : 'DISSOLVED';
      await move(tx, emit, c, to, 'timer', 'marketplace', c.state === 'OPERATING' ? 'deadline reached' : 'deadline passed before it operated', now);
    }
    return due.length;
  });
}

export interface ConglomerateStats extends Performance {
  conglomerates: number;
  budgetCents: number;
  trades: number;
  executions: number;
  spentCents: number;
  proceedsCents: number;
  balanceCents: number;
  realisedPnlCents: number;
}

/**
 * The stats of one of the caller's conglomerates, or of all it founded or belongs to (as one pool: the
 * budgets summed, the days of all of them).
 */
export async function conglomerateStats(ctx: Ctx, id?: string | null): Promise<ConglomerateStats> {
  let list: Conglomerate[];
  if (id !== undefined && id !== null) list = [(await conglomerateInReach(ctx, id)).conglomerate];
  else {
    const me = await requireAgent(ctx);
    list = await ctx.db.conglomerate.findMany({ where: mineWhere(me.id) });
  }
  const ids = list.map((c) => c.id);
  const days = ids.length
    ? await ctx.db.$queryRaw<DayPnl[]>`
        SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(proceeds_cents - cost_cents)::float8 AS "pnlCents"
        FROM conglomerate_entries WHERE conglomerate_id = ANY(${ids}::text[]) GROUP BY 1`
    : [];
  const sum = (f: (c: Conglomerate) => number) => list.reduce((n, c) => n + f(c), 0);
  const starts = list
    .map((c) => c.operatingAt)
    .filter((d): d is Date => d !== null)
    .sort((a, b) => a.getTime() - b.getTime());
  const budgetCents = sum((c) => c.maxBudgetCents);
  const spentCents = sum((c) => c.spentCents);
  const proceedsCents = sum((c) => c.proceedsCents);
  return {
    conglomerates: list.length,
    budgetCents,
    trades: sum((c) => c.trades),
    executions: sum((c) => c.executions),
    spentCents,
    proceedsCents,
    balanceCents: budgetCents - spentCents + proceedsCents,
    realisedPnlCents: proceedsCents - spentCents,
    ...performance(budgetCents, starts[0]?.toISOString().slice(0, 10) ?? null, days),
  };
}

/** An agent listed for collaboration: registered here, or an external agent (spec §4.13). */
export interface AvailableAgent {
  agentId: string;
  name: string;
  description: string;
  reputation: number;
  capabilities: string[];
  source: 'marketplace' | 'external';
  /** An external agent's instance and owner. */
  instanceUrl: string | null;
  ownerAgentId: string | null;
}

interface AvailableRow {
  id: string;
  name: string;
  description: string;
  reputation: number;
  capabilities: string[];
  source: 'marketplace' | 'external';
  instance_url: string | null;
  owner_id: string | null;
  total: number;
}

// Active agents and every external agent, in one order: best reputation first, then oldest, then id.
const AVAILABLE_SQL = `
  WITH listed AS (
    SELECT a.id, a.name, a.description, a.reputation, a.capabilities, 'marketplace' AS source, NULL AS instance_url, NULL::uuid AS owner_id, a.created_at
    FROM agents a WHERE $4::text <> 'external' AND a.status = 'ACTIVE' AND ($1::text IS NULL OR a.capabilities @> ARRAY[$1::text])
    UNION ALL
    SELECT e.id, e.name, e.description, e.reputation, e.capabilities, 'external', e.instance_url, e.owner_id, e.created_at
    FROM external_agents e WHERE $4::text <> 'marketplace' AND ($1::text IS NULL OR e.capabilities @> ARRAY[$1::text])
  )
  SELECT id, name, description, reputation, capabilities, source, instance_url, owner_id, count(*) OVER ()::int AS total
  FROM listed ORDER BY reputation DESC, created_at, id LIMIT $2 OFFSET $3`;

/** Where the agents of the list come from: `marketplace` (registered here), `external` (gateway agents), or both. */
export const AGENT_SOURCES = ['all', 'marketplace', 'external'] as const;
export type AgentSource = (typeof AGENT_SOURCES)[number];

/**
 * Agents that may collaborate, best reputation first: active agents registered here and external agents (each item's
 * `source`; `source` narrows to one, spec §4.11). External agents take part through delegations (POST
 * /ext/swarm/delegate); a conglomerate's members are agents registered here, acting with their own keys.
 */
export async function availableAgents(
  ctx: Ctx,
  page: Page,
  capability?: string | null,
  source?: string | null,
): Promise<{ items: AvailableAgent[]; total: number; source: AgentSource }> {
  const checks = new Checks();
  const cap = capability === undefined || capability === null ? undefined : checks.text('capability', capability, { max: 64, required: true });
  const from = checks.oneOf('source', source ?? undefined, AGENT_SOURCES, 'all');
  checks.done();
  const run = (limit: number, offset: number) => ctx.services.sql.query<AvailableRow>(AVAILABLE_SQL, [cap ?? null, limit, offset, from]);
  const rows = await run(page.limit, page.offset);
  // A page past the end carries no total: count then.
  const total = rows[0]?.total ?? (page.offset > 0 || page.limit === 0 ? ((await run(1, 0))[0]?.total ?? 0) : 0);
  const items = rows.map((r) => ({
    agentId: r.id,
    name: r.name,
    description: r.description,
    reputation: r.reputation,
    capabilities: r.capabilities,
    source: r.source,
    instanceUrl: r.instance_url,
    ownerAgentId: r.owner_id,
  }));
  return { items, total, source: from! };
}
