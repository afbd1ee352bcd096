// Recording an execution: its row, every attempt, its transaction and its event, with a paid call's charge and
// a task's, in one statement batched across calls — or, for a built-in, inside that built-in's own transaction.
import { retryTransient, type DbTx, type SqlRunner } from '../../db/database';
import type { Prisma } from '../../db/generated/prisma/client';
import { Batcher, type Settled } from '../../platform/batcher';
import { newTimeOrderedUuid } from '../../platform/ids';
import type { Ctx } from '../context';
import { announceCommitted, eventCtes, makeEvent, type Emit, type MarketplaceEvent } from '../events';
import type { OutboxRecord } from '../../platform/outbox';
import { ACCOUNTS } from '../payments/setup';
import { chargeOf, EXCUSED_STATUSES, receiptOf, type AttemptReceipt, type ExecutionReceipt, type Recorded, type RoutingRecord } from './receipts';
import type { Mode } from './route';

function eventOf(executionId: string, r: Recorded) {
  return {
    type: r.status === 'success' ? ('execution.succeeded' as const) : ('execution.failed' as const),
    data: {
      execution_id: executionId,
      capability: r.capability,
      status: r.status,
      provider: r.provider?.serviceKey ?? null,
      cost_cents: r.costCents,
      latency_ms: r.latencyMs,
      attempts: r.attempts.length,
      error: r.error,
    },
  };
}

/** Writes the execution, its attempts, its transaction and its event inside `tx` (a built-in's transaction). */
export async function recordInTransaction(ctx: Ctx, tx: DbTx, emit: Emit, executionId: string, r: Recorded, at: Date): Promise<ExecutionReceipt> {
  const serviceId = r.provider?.serviceId ?? null;
  await tx.execution.create({
    data: {
      id: executionId,
      agentId: r.me.id,
      capability: r.capability,
      serviceId,
      status: r.status,
      input: r.input as Prisma.InputJsonValue,
      result: r.result === undefined || r.result === null ? undefined : (r.result as Prisma.InputJsonValue),
      error: r.error,
      costCents: r.costCents,
      latencyMs: r.latencyMs,
      mode: r.mode,
      taskId: r.taskId ?? null,
      createdAt: at,
    },
  });
  // The marketplace's own capabilities have no statistics to fold: nothing is queued for provider-stats.
  await tx.executionAttempt.createMany({
    data: r.attempts.map(({ usage, metered, ...a }) => ({
      ...a,
      ...(usage ? { usage: { ...usage } } : {}),
      ...(metered ? { metered: { ...metered } } : {}),
      executionId,
      createdAt: at,
    })),
  });
  const transaction = await tx.transaction.create({
    data: {
      agentId: r.me.id,
      executionId,
      serviceId,
      kind: 'charge',
      amountCents: r.costCents,
      latencyMs: r.latencyMs,
      capability: r.capability,
      createdAt: at,
    },
    select: { id: true },
  });
  const event = eventOf(executionId, r);
  await emit(r.me.id, event.type, event.data);
  return receiptOf(ctx, executionId, transaction.id, r, at);
}

/** An attempt (AttemptReceipt) as the recording statements read it from JSON. */
const ATTEMPT_COLUMNS = `ordinal int, "serviceId" uuid, "serviceKey" text, outcome text, reason text, "statusCode" int, "retryAfterSeconds" int, "latencyMs" int,
  score float8, "priceCents" int, usage jsonb, metered jsonb`;

/**
 * How provider-stats counts an attempt (attempts_to_fold.outcome): a failure that is not the provider's fault
 * (a 4xx refusing the caller's input, the caller's deadline) is `excused`, counted apart.
 */
const FOLD_OUTCOME = `CASE WHEN a.outcome = 'failure' AND (a.reason = 'deadline_exceeded' OR a.status_code IN (${EXCUSED_STATUSES.join(', ')})) THEN 'excused' ELSE a.outcome END`;

/**
 * A paid call's charge, in a recording statement, as one ledger transfer: the caller's wallet is charged the
 * answering provider's price, the provider's wallet gets its share and the marketplace the fee. The fields:
 * the caller's wallet, the
 * provider's (null when it is the caller's own, or it has none: its share is then the marketplace's), the
 * wallet the share is entered to, what the caller's wallet moves (less the charge; plus its own share), the
 * provider's share, what leaves the caller's `held` (the charge, for a lease; null for a hold of the call's
 * own, released whole), the hold (also the entries' reference), the charge, the fee, the transfer id.
 *
 * On a lease (a prepaid call) the charge leaves the caller's wallet and its `held` together: the lease's
 * row keeps its total, and what is left of it is what was reserved less the charges that name it.
 */
interface ChargeFields {
  caller_wallet: string;
  provider_wallet: string | null;
  earning_wallet: string;
  caller_delta: string;
  share: string;
  release: string | null;
  hold: string;
  charge: string;
  fee: string;
  transfer: string;
  /** When the provider's share leaves escrow (the dispute window's end); null: available at once (no window, or no provider wallet). */
  release_at: string | null;
  /** Under a mandate: its hold (released here), the mandate, and the UTC day and month the call is counted in. */
  mandate_hold?: string;
  mandate_id?: string;
  mandate_day?: string;
  mandate_month?: string;
}
const CHARGE_COLUMNS = `caller_wallet uuid, provider_wallet uuid, earning_wallet uuid, caller_delta bigint, share bigint, release bigint, hold uuid,
  charge bigint, fee bigint, transfer uuid, release_at timestamptz`;
const MANDATE_COLUMNS = 'mandate_hold uuid, mandate_id uuid, mandate_day date, mandate_month date';

/** The thresholds a period's spend reached of its cap, as bits (1: 50 %, 2: 80 %, 4: 100 %; payments/mandates.ts). */
const thresholdBits = (spent: string, cap: string) =>
  `(CASE WHEN ${cap} IS NULL THEN 0 ELSE (CASE WHEN (${spent})::bigint * 100 >= ${cap}::bigint * 50 THEN 1 ELSE 0 END)
    | (CASE WHEN (${spent})::bigint * 100 >= ${cap}::bigint * 80 THEN 2 ELSE 0 END) | (CASE WHEN (${spent}) >= ${cap} THEN 4 ELSE 0 END) END)`;

/**
 * A paid statement's mandate parts: the calls' holds released, each mandate's UTC day and month charged what its
 * calls cost (one upsert of each period row for the batch), and the thresholds each charge crossed: computed from
 * the row the upsert locked, so two statements never both alert one threshold. Each is an event to the grantor and
 * to the sub-agent (MANDATE_ALERTS).
 */
const MANDATE_CTES = `mandate_released AS (
    DELETE FROM mandate_holds WHERE id IN (SELECT mandate_hold FROM r WHERE mandate_hold IS NOT NULL) RETURNING id
  ), mandate_use AS (
    SELECT r.mandate_id, v.period, v.starts_on, sum(r.cost_cents)::int AS cents, (count(*) FILTER (WHERE r.cost_cents > 0))::int AS calls,
      CASE WHEN v.period = 'day' THEN m.daily_cents ELSE m.monthly_cents END AS cap, max(r.at) AS at
    FROM r JOIN mandates m ON m.id = r.mandate_id
    CROSS JOIN LATERAL (VALUES ('day', r.mandate_day), ('month', r.mandate_month)) AS v(period, starts_on)
    GROUP BY r.mandate_id, v.period, v.starts_on, m.daily_cents, m.monthly_cents
  ), mandate_charged AS (
    INSERT INTO mandate_periods AS p (mandate_id, period, starts_on, spent_cents, calls, cap_cents, alerted, alerted_now, updated_at)
    SELECT mandate_id, period, starts_on, cents, calls, cap, ${thresholdBits('cents', 'cap')}, ${thresholdBits('cents', 'cap')}, at FROM mandate_use
    ON CONFLICT (mandate_id, period, starts_on) DO UPDATE SET
      spent_cents = p.spent_cents + EXCLUDED.spent_cents,
      calls = p.calls + EXCLUDED.calls,
      cap_cents = EXCLUDED.cap_cents,
      alerted = p.alerted | ${thresholdBits('p.spent_cents + EXCLUDED.spent_cents', 'EXCLUDED.cap_cents')},
      alerted_now = ${thresholdBits('p.spent_cents + EXCLUDED.spent_cents', 'EXCLUDED.cap_cents')} & ~p.alerted,
      updated_at = EXCLUDED.updated_at
    RETURNING p.mandate_id, p.period, p.starts_on, p.spent_cents, p.cap_cents, p.alerted_now
  )`;

/**
 * The alerts of MANDATE_CTES as events (id, type, agent, data, time), each threshold crossed to both sides, and the
 * execution whose record announces them once committed (the mandate's last in the statement).
 */
const MANDATE_ALERTS = `mandate_alerts AS (
    SELECT left(last.event_id, 13) || substr(md5(gen_random_uuid()::text), 1, 15) AS event_id, 'mandate.threshold_reached' AS event_type,
      who.agent_id, jsonb_build_object('mandate_id', c.mandate_id, 'grantor_id', m.grantor_id, 'agent_id', m.grantee_id, 'period', c.period,
        'starts_on', c.starts_on, 'threshold_percent', t.percent, 'cap_cents', c.cap_cents, 'spent_cents', c.spent_cents) AS event_data,
      last.at, last.id AS cause
    FROM mandate_charged c JOIN mandates m ON m.id = c.mandate_id
    CROSS JOIN LATERAL (VALUES (1, 50), (2, 80), (4, 100)) AS t(bit, percent)
    CROSS JOIN LATERAL (VALUES (m.grantor_id), (m.grantee_id)) AS who(agent_id)
    CROSS JOIN LATERAL (SELECT id, event_id, at FROM r WHERE r.mandate_id = c.mandate_id ORDER BY at DESC, id DESC LIMIT 1) AS last
    WHERE c.alerted_now & t.bit <> 0
  )`;

/** The alerts as OutboxRecords, for the record that announces them. */
const MANDATE_ALERTS_OUT = `(SELECT jsonb_agg(jsonb_build_object('cause', cause, 'id', event_id, 'type', event_type, 'agentId', agent_id, 'data', event_data,
      'created_at', to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) FROM mandate_alerts)`;

/**
 * What each mandate charged in the statement has left in its period, for the answers: its charged total and what
 * other calls in flight hold (the statement's own holds, released by it, are not counted).
 */
const MANDATE_LEFT = `(SELECT jsonb_object_agg(x.mandate_id, x.periods) FROM (
      SELECT c.mandate_id, jsonb_object_agg(c.period, jsonb_build_object('spent', c.spent_cents, 'cap', c.cap_cents,
        'held', (SELECT coalesce(sum(h.cents), 0) FROM mandate_holds h WHERE h.mandate_id = c.mandate_id AND h.expires_at > (SELECT max(at) FROM r)
          AND h.id NOT IN (SELECT mandate_hold FROM r WHERE mandate_hold IS NOT NULL)
          AND (CASE WHEN c.period = 'day' THEN h.day ELSE h.month END) = c.starts_on))) AS periods
      FROM mandate_charged c GROUP BY c.mandate_id) x)`;

/**
 * Executions, any number of them in one statement: one parameter, a JSON array of records (BatchRecord),
 * each with its attempts, its transaction and its event (with a delivery per subscribed webhook). Calls
 * outside tasks (most calls) answered while the database is busy with earlier records are recorded together
 * (see recordsTogether): one round trip, one commit and one wake-up of a database backend for the lot
 * (docs/execution.md, The execution ledger).
 *
 * Paid records also move their money, after the statement has locked every wallet its records touch, in id
 * order: so two such statements never wait on each other in a cycle, and a wallet every call touches (a
 * provider's, a caller's) is locked once per statement — calls that would each have held it through their
 * own commit, one after another, share one. Each wallet is then updated once, by what all the statement's
 * records move in it (one new row version of a caller's wallet for a batch of its calls, where a charge
 * per record wrote one per call), the wallets' CHECK holding on the sum; each record's transfer appends its
 * entries (charge, earning, fee). The statement answers each of those wallets' balances once moved, for
 * the answers' balance_after.
 *
 * A record under a task also charges the task and releases the call's holds on its budget. Those are
 * written a statement each: they lock the task's row, which a shared statement would hold for other tasks'
 * calls.
 *
 * Paid records under a spend mandate have a statement of their own (`mandate`), which also counts them against
 * their mandates' periods (MANDATE_CTES): a paid statement without one plans and runs none of that.
 */
const recordsSql = (paid: boolean, task: boolean, mandate = false) => `
  WITH r AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, agent_id uuid, capability text, service_id uuid, status "ExecutionStatus", input jsonb,
      result jsonb, error text, cost_cents int, latency_ms int, mode text, at timestamptz, transaction_id uuid, event_id text, event_type text,
      event_data jsonb, attempts jsonb, routing jsonb${paid ? `, ${CHARGE_COLUMNS}` : ''}${mandate ? `, ${MANDATE_COLUMNS}` : ''}${task ? ', task_id text, holds uuid[]' : ''})
  ), ${
    task
      ? `th AS (
    DELETE FROM task_holds WHERE id IN (SELECT unnest(holds) FROM r)
  ), tk AS (
    UPDATE tasks SET spent_cents = spent_cents + s.cents FROM (SELECT task_id, sum(cost_cents) AS cents FROM r GROUP BY task_id) s WHERE tasks.id = s.task_id
  ), `
      : ''
  }${
    paid
      ? `lk AS (
    SELECT id FROM wallets WHERE id IN (SELECT caller_wallet FROM r UNION SELECT provider_wallet FROM r) ORDER BY id FOR NO KEY UPDATE
  ), own AS (
    -- The holds of calls paid with their own (x402), released whole; a lease's charge says what leaves held.
    DELETE FROM wallet_holds WHERE id IN (SELECT hold FROM r WHERE release IS NULL) AND (SELECT count(*) FROM lk) >= 0 RETURNING id, amount
  ), moves AS (
    SELECT wallet, sum(delta) AS delta, sum(released) AS released, sum(pending) AS pending FROM (
      SELECT r.caller_wallet AS wallet, r.caller_delta AS delta, COALESCE(r.release, own.amount, 0) AS released, 0 AS pending FROM r LEFT JOIN own ON own.id = r.hold
      UNION ALL
      SELECT r.provider_wallet, r.share, 0, CASE WHEN r.release_at IS NULL THEN 0 ELSE r.share END FROM r WHERE r.provider_wallet IS NOT NULL
    ) m GROUP BY wallet
  ), pay AS (
    UPDATE wallets w SET balance = w.balance + moves.delta, held = w.held - moves.released, pending = w.pending + moves.pending
    FROM moves WHERE w.id = moves.wallet RETURNING w.id, w.balance
  ), esc AS (
    -- The provider's share stays pending through the dispute window (payments/escrow.ts).
    INSERT INTO escrows (execution_id, wallet_id, amount, status, release_at, created_at)
    SELECT r.id, r.provider_wallet, r.share, 'pending', r.release_at, r.at FROM r WHERE r.provider_wallet IS NOT NULL AND r.release_at IS NOT NULL AND r.share > 0
  ), ${mandate ? `${MANDATE_CTES}, ${MANDATE_ALERTS}, ` : ''}entries AS (
    -- Each entry's id is time-ordered like the transfer's (its first 48 bits, version 7), the rest random:
    -- the entries' key index grows at its right edge (platform/ids.ts newTimeOrderedUuid).
    INSERT INTO wallet_entries (id, wallet_id, amount, kind, reference, transfer_id, execution_id, created_at)
    SELECT overlay(gen_random_uuid()::text PLACING left(r.transfer::text, 14) || '7' FROM 1 FOR 15)::uuid, x.wallet_id, x.amount, x.kind, x.reference, r.transfer, r.id, r.at
    FROM r CROSS JOIN LATERAL (VALUES
      (r.caller_wallet, -r.charge, 'charge', r.hold::text),
      (r.earning_wallet, r.charge - r.fee, 'earning', NULL),
      ('${ACCOUNTS.revenue}'::uuid, r.fee, 'fee', NULL)) AS x(wallet_id, amount, kind, reference)
    WHERE x.amount <> 0
  ), `
      : ''
  }e AS (
    INSERT INTO executions (id, agent_id, capability, service_id, status, input, result, error, cost_cents, latency_ms, mode, routing, created_at${task ? ', task_id' : ''}${mandate ? ', mandate_id' : ''})
    SELECT id, agent_id, capability, service_id, status, input, result, error, cost_cents, latency_ms, mode, routing, at${task ? ', task_id' : ''}${mandate ? ', mandate_id' : ''} FROM r
  ), a AS (
    INSERT INTO execution_attempts (execution_id, ordinal, service_id, service_key, outcome, reason, status_code, retry_after_seconds, latency_ms, score,
      price_cents, usage, metered, created_at)
    SELECT r.id, x.ordinal, x."serviceId", x."serviceKey", x.outcome, x.reason, x."statusCode", x."retryAfterSeconds", x."latencyMs", x.score, x."priceCents",
      x.usage, x.metered, r.at
    FROM r CROSS JOIN LATERAL jsonb_to_recordset(r.attempts) AS x(${ATTEMPT_COLUMNS})
    RETURNING execution_id, service_id, outcome, reason, status_code, retry_after_seconds, latency_ms, price_cents, created_at
  ), q AS (
    -- Who called, and what the call put at stake: a success's price only where this statement charged it
    -- (the provider's reputation rises only with paid calls), a failure's as held (failures are never charged).
    INSERT INTO attempts_to_fold (service_id, outcome, latency_ms, retry_after_seconds, created_at, caller_id, price_cents, reason, status_code)
    SELECT a.service_id, ${FOLD_OUTCOME}, a.latency_ms, a.retry_after_seconds, a.created_at, r.agent_id,
      CASE WHEN a.outcome = 'success' THEN ${paid ? 'r.cost_cents' : '0'} ELSE a.price_cents END, a.reason, a.status_code
    FROM a JOIN r ON r.id = a.execution_id WHERE a.service_id IS NOT NULL
  ), t AS (
    INSERT INTO transactions (id, agent_id, execution_id, service_id, kind, amount_cents, latency_ms, capability, created_at)
    SELECT transaction_id, agent_id, id, service_id, 'charge', cost_cents, latency_ms, capability, at FROM r
  ), ${eventCtes(`SELECT event_id, event_type, agent_id, event_data, at FROM r${mandate ? ' UNION ALL SELECT event_id, event_type, agent_id, event_data, at FROM mandate_alerts' : ''}`)}
  SELECT (SELECT count(*) FROM hooks)::int AS deliveries${
    paid ? `, (SELECT jsonb_object_agg(id, balance::text) FROM pay) AS balances` : ''
  }${mandate ? `, ${MANDATE_LEFT} AS mandates, ${MANDATE_ALERTS_OUT} AS alerts` : ''}`;
const RECORDS = {
  free: { name: 'record_executions', text: recordsSql(false, false) },
  paid: { name: 'record_paid_executions', text: recordsSql(true, false) },
  task: { name: 'record_task_execution', text: recordsSql(false, true) },
  paidTask: { name: 'record_paid_task_execution', text: recordsSql(true, true) },
  mandate: { name: 'record_mandate_executions', text: recordsSql(true, false, true) },
  mandateTask: { name: 'record_mandate_task_execution', text: recordsSql(true, true, true) },
};
type RecordKind = keyof typeof RECORDS;
/** The records written together, of calls outside tasks. */
type Together = 'free' | 'paid' | 'mandate';

/** One call's record, as RECORDS read it: a paid one's with its charge, one under a task with its task and holds. */
export interface BatchRecord extends Partial<ChargeFields> {
  id: string;
  agent_id: string;
  capability: string;
  service_id: string | null;
  status: Recorded['status'];
  input: Record<string, unknown>;
  result: unknown;
  error: string | null;
  cost_cents: number;
  latency_ms: number;
  mode: Mode;
  at: string;
  transaction_id: string;
  event_id: string;
  event_type: string;
  event_data: Record<string, unknown>;
  attempts: AttemptReceipt[];
  routing?: RoutingRecord | null;
  task_id?: string;
  holds?: string[];
}

/**
 * Records of one database (free ones, paid ones, and paid ones under a mandate, each apart) wait here while some statements of them run,
 * then go together, at most 100 to a statement. Two statements in flight (one commits while the next
 * executes); free records four deep on PostgreSQL, where each waits for its commit's flush; paid ones stay
 * at two, their wallets' locks held through the commit (docs/execution.md, The execution ledger).
 */
const RECORDS_IN_FLIGHT = 2;
const FREE_RECORDS_IN_FLIGHT_POSTGRES = 4;
const RECORDS_PER_STATEMENT = 100;
const batchers = new WeakMap<SqlRunner, Record<Together, Batcher<BatchRecord, Written>>>();

/**
 * What a records statement answers: how many webhook deliveries it wrote (of all its records: enough to
 * know whether to wake the dispatcher), and for paid records the balance of each wallet it charged once it
 * had (wallet id to base units as text).
 */
export interface Written {
  deliveries: number;
  balances?: Record<string, string> | null;
  /** For each mandate a paid statement charged, its day and month: charged, cap, and what other calls hold. */
  mandates?: Record<string, Partial<Record<'day' | 'month', { spent: number; cap: number | null; held: number }>>> | null;
  /** The mandate alerts a paid statement wrote, each with the execution whose record announces it. */
  alerts?: (OutboxRecord & { cause: string })[] | null;
}

function recordsTogether(sql: SqlRunner, kind: Together): Batcher<BatchRecord, Written> {
  let of = batchers.get(sql);
  if (!of) {
    const inFlight = (k: Together) => (k === 'free' && !sql.soleWriter ? FREE_RECORDS_IN_FLIGHT_POSTGRES : RECORDS_IN_FLIGHT);
    const batcher = (k: Together) => new Batcher<BatchRecord, Written>((records) => recordTogether(sql, k, records), inFlight(k), RECORDS_PER_STATEMENT);
    of = { free: batcher('free'), paid: batcher('paid'), mandate: batcher('mandate') };
    batchers.set(sql, of);
  }
  return of[kind];
}

/**
 * Writes a batch of records. A statement fails whole, so when one of several fails, each is written again
 * alone: one record the database refuses (a paid one whose wallet no longer covers it, say) does not lose the
 * others. (Exported for its test.)
 */
export async function recordTogether(sql: SqlRunner, kind: Together, records: BatchRecord[]): Promise<Settled<Written>[]> {
  const write = (batch: BatchRecord[]) => writeRecords(sql, kind, batch);
  if (records.length === 1) return [{ ok: true, value: await write(records) }];
  try {
    const written = await write(records);
    return records.map(() => ({ ok: true, value: written }));
  } catch {
    return Promise.all(
      records.map((r) =>
        write([r]).then(
          (value): Settled<Written> => ({ ok: true, value }),
          (error: unknown): Settled<Written> => ({ ok: false, error }),
        ),
      ),
    );
  }
}

/** Writes records in one statement. */
async function writeRecords(sql: SqlRunner, kind: RecordKind, records: BatchRecord[]): Promise<Written> {
  const { text, name } = RECORDS[kind];
  return (await sql.query<Written>(text, [JSON.stringify(records)], name))[0];
}

export async function recordProviderExecution(ctx: Ctx, executionId: string, r: Recorded, at: Date): Promise<ExecutionReceipt> {
  const transactionId = newTimeOrderedUuid();
  const shape = eventOf(executionId, r);
  const event = makeEvent(shape.type, shape.data, at);
  // A prepaid call that cost nothing moves no money (what it reserved stays in the lease); under a mandate it is still
  // written by the paid statement, which releases its hold on the mandate's caps.
  const paid = !!r.paid && (!r.paid.hold.shared || r.costCents > 0 || !!r.paid.mandate);
  const record: BatchRecord = { ...batchRecordOf(executionId, transactionId, event, r), ...(paid ? chargeFieldsOf(ctx, r, at) : {}) };
  const { sql } = ctx.services;
  const kind = !paid ? 'free' : r.paid!.mandate ? 'mandate' : 'paid';
  const write = r.taskId
    ? () =>
        writeRecords(sql, kind === 'free' ? 'task' : kind === 'paid' ? 'paidTask' : 'mandateTask', [{ ...record, task_id: r.taskId!, holds: r.holds ?? [] }])
    : () => recordsTogether(sql, kind).submit(record);
  let written: Written;
  try {
    // The provider has answered: a statement the database aborts for another's sake is run again rather
    // than losing the record (nothing of an aborted statement was written).
    written = await retryTransient(write);
  } catch (err) {
    if (r.paid && isFundsViolation(err)) {
      // The call's hold lapsed (its process stalled past the hold's life) and the wallet was spent
      // meanwhile: the call is recorded, unpaid, rather than lost.
      ctx.services.log.warn(
        { execution_id: executionId, wallet: r.paid.hold.walletId },
        'a paid call outlived its hold and its wallet no longer covers it: recorded unpaid',
      );
      return recordProviderExecution(ctx, executionId, { ...r, paid: undefined, costCents: 0 }, at);
    }
    throw err;
  }
  const alerts = (written.alerts ?? []).filter((a) => a.cause === executionId).map(({ cause: _cause, ...alert }) => alert);
  announceCommitted(ctx.services, [{ ...event, agentId: r.me.id }, ...alerts], written.deliveries);
  const balance = paid ? written.balances?.[r.paid!.hold.walletId] : undefined;
  const mandate = r.paid?.mandate;
  const left = mandate ? written.mandates?.[mandate.mandateId] : undefined;
  const remaining = (period: 'day' | 'month') => {
    const use = left?.[period];
    return use && use.cap !== null ? Math.max(0, use.cap - use.spent - use.held) : null;
  };
  return receiptOf(
    ctx,
    executionId,
    transactionId,
    r,
    at,
    balance === undefined ? undefined : BigInt(balance),
    mandate && { today: remaining('day'), thisMonth: remaining('month') },
  );
}

function batchRecordOf(executionId: string, transactionId: string, event: MarketplaceEvent, r: Recorded): BatchRecord {
  return {
    id: executionId,
    agent_id: r.me.id,
    capability: r.capability,
    service_id: r.provider?.serviceId ?? null,
    status: r.status,
    input: r.input,
    result: r.result === undefined ? null : r.result,
    error: r.error,
    cost_cents: r.costCents,
    latency_ms: r.latencyMs,
    mode: r.mode,
    at: event.created_at,
    transaction_id: transactionId,
    event_id: event.id,
    event_type: event.type,
    event_data: event.data,
    attempts: r.attempts,
    routing: r.routing ?? null,
  };
}

/** What a paid call's record moves, and between which wallets (amounts in the token's units, as text). */
function chargeFieldsOf(ctx: Ctx, r: Recorded, at: Date): ChargeFields {
  const { charged, fee, share } = chargeOf(ctx, r);
  const hold = r.paid!.hold;
  const provider = r.providerWallet ?? ACCOUNTS.revenue;
  const own = provider === hold.walletId;
  // The provider's wallet, unless it is the caller's own or there is none (its share is the marketplace's).
  const providerWallet = own || provider === ACCOUNTS.revenue ? null : provider;
  const windowMs = ctx.services.config.payments.disputeWindowSeconds * 1000;
  return {
    caller_wallet: hold.walletId,
    provider_wallet: providerWallet,
    release_at: providerWallet && windowMs > 0 && share > 0n ? new Date(at.getTime() + windowMs).toISOString() : null,
    earning_wallet: provider,
    caller_delta: (-charged + (own ? share : 0n)).toString(),
    share: share.toString(),
    // What leaves `held`: the charge, from a lease; a hold of the call's own is released whole.
    release: hold.shared ? charged.toString() : null,
    hold: hold.id,
    charge: charged.toString(),
    fee: fee.toString(),
    transfer: newTimeOrderedUuid(),
    ...(r.paid!.mandate
      ? { mandate_hold: r.paid!.mandate.id, mandate_id: r.paid!.mandate.mandateId, mandate_day: r.paid!.mandate.day, mandate_month: r.paid!.mandate.month }
      : {}),
  };
}

function isFundsViolation(err: unknown): boolean {
  return (err as { code?: unknown })?.code === '23514';
}
