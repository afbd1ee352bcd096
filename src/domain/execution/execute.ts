// Execute (spec §4.3, CONTRACT §6): route a capability call to providers — the best-ranked ones with
// fallback (auto) or exactly the one named (chosen) — or serve it from the marketplace's built-ins, then
// record the execution, every attempt and the transaction, with its event, in one transaction.
import { retryTransient, type DbTx, type SqlRunner } from '../../db/database';
import type { Agent, Prisma } from '../../db/generated/prisma/client';
import { Batcher, type Settled } from '../../platform/batcher';
import { AppError, CapabilityUnavailable, Forbidden, NotFound, ValidationFailed } from '../../platform/errors';
import { schemaProblems } from '../../platform/json-schema-check';
import { inputProblem } from '../../platform/input-boundary';
import { isUuid, newTimeOrderedUuid } from '../../platform/ids';
import { OutboundError } from '../../platform/outbound';
import { webhookHeaders } from '../../platform/signing';
import { Checks } from '../../platform/validate';
import { requireAgent } from '../agents/principal';
import { CAPABILITY_SLUG } from '../capabilities/catalog';
import type { Ctx } from '../context';
import { callableMatches, loadCallable, type CallableMatch } from '../discovery/resolve';
import { eventCtes, makeEvent, transact, type Emit, type MarketplaceEvent } from '../events';
import { BudgetExceeded, holdBudget, remainingBudget, TASK_ID, taskForExecution } from '../tasks/budget';
import { releaseHold } from '../payments/ledger';
import { payForCall, type CallPrice, type PaidCall, type X402Receipt } from '../payments/payments';
import { ACCOUNTS, centsToUnits, feeOf } from '../payments/setup';
import { requestHash } from '../../platform/idempotency';
import { ModelFailed } from '../first-party/nlp-model';
import { FIRST_PARTY, firstPartyInput, MARKETPLACE_PROVIDER, servedHere } from '../first-party/first-party';
import type { GenericCapability, ModelUsage, OwnCapability } from '../first-party/types';

export const MODES = ['auto', 'chosen'] as const;
export type Mode = (typeof MODES)[number];
/** Providers tried at most per execution in auto mode (CONTRACT §6). */
export const MAX_ATTEMPTS = 3;
/** Candidates ranked per execution, so that cooling providers can be skipped and three still remain. */
const CANDIDATES = 10;
const INPUT_MAX_BYTES = 256 * 1024;
const RESULT_MAX_BYTES = 1024 * 1024;

export interface ExecuteInput {
  capability?: unknown;
  input?: unknown;
  provider?: unknown;
  mode?: unknown;
  /** The task the call is made under (the caller must be its delegate): its budget pays (tasks/budget.ts). */
  taskId?: unknown;
}

export interface ExecuteOptions {
  /**
   * The execution's id, chosen by the caller (a swarm step's, fixed when the step was made): a call whose
   * execution was already recorded under it is not made again (see swarms).
   */
  executionId?: string;
  /** An x402 payment for the call (PAYMENT-SIGNATURE): base64 of the PaymentPayload's JSON, or the JSON. */
  payment?: string | null;
}

/** A provider ready to be called: a registered service, or the marketplace itself (`local`). */
interface Candidate {
  /** Null for the marketplace. */
  serviceId: string | null;
  serviceKey: string;
  name: string;
  providerId: string;
  reputation: number;
  priceCents: number;
  score: number | null;
  endpoint: string;
  signingSecret: string;
  /** The marketplace's own handler, when the candidate is the marketplace (a generic capability's last resort). */
  local?: GenericCapability;
}

export interface AttemptReceipt {
  ordinal: number;
  serviceId: string | null;
  serviceKey: string;
  outcome: 'success' | 'failure';
  reason: string | null;
  statusCode: number | null;
  latencyMs: number;
  score: number | null;
  priceCents: number;
  /** A model backend's usage, when the marketplace answered with a model. */
  usage?: ModelUsage | null;
}

/** How a paid call was paid (null for a free one). Amounts in the asset's base units. */
export interface PaymentReceipt {
  method: 'prepaid' | 'x402';
  /** The caller's wallet, which paid. */
  walletAddress: string;
  /** Its id: what is left in it is read from it when the answer is made (Wallet balance, `balanceAfter`). */
  walletId: string | null;
  /**
   * What is left in that wallet as the statement that charged the call committed, when that statement
   * said (a call recorded with its charge); otherwise it is read when the answer is made.
   */
  balanceAfter?: bigint | null;
  /** What was held while the call ran: the most it could cost. */
  held: bigint;
  /** The price of the provider that answered; 0 when every provider failed. */
  charged: bigint;
  chargedCents: number;
  fee: bigint;
  providerShare: bigint;
  /** The x402 payment, when the call was paid with one (credited to the caller's wallet on settlement). */
  x402: X402Receipt | null;
}

export interface ExecutionReceipt {
  executionId: string;
  capability: string;
  mode: Mode;
  status: 'success' | 'error';
  result: unknown;
  error: string | null;
  provider: { serviceId: string | null; serviceKey: string; name: string; reputation: number } | null;
  transaction: { transactionId: string; costCents: number; latencyMs: number };
  attempts: AttemptReceipt[];
  payment: PaymentReceipt | null;
  createdAt: Date;
}

function readInput(raw: ExecuteInput) {
  const checks = new Checks();
  const capability = checks.text('capability', raw.capability, { max: 64, required: true });
  if (capability && !CAPABILITY_SLUG.test(capability)) checks.fail('capability', 'must be a capability identifier such as "summarize"');
  if (raw.input === undefined || raw.input === null) checks.fail('input', 'is required');
  else if (typeof raw.input !== 'object' || Array.isArray(raw.input)) checks.fail('input', 'must be a JSON object');
  else if (Buffer.byteLength(JSON.stringify(raw.input)) > INPUT_MAX_BYTES) checks.fail('input', `must be at most ${INPUT_MAX_BYTES / 1024} KiB as JSON`);
  const mode = (raw.mode ?? 'auto') as Mode;
  if (!MODES.includes(mode)) checks.fail('mode', 'must be auto or chosen');
  const provider = checks.text('provider', raw.provider, { max: 64 });
  if (mode === 'chosen' && !provider) checks.fail('provider', 'is required with mode chosen: a service key (svc_…) or service id');
  const taskId = checks.text('taskId', raw.taskId, { max: 64 });
  if (taskId && !TASK_ID.test(taskId)) checks.fail('taskId', 'must be a task id (task_…)');
  checks.done();
  return { capability: capability!, input: raw.input as Record<string, unknown>, mode, provider: provider || null, taskId: taskId || null };
}

/** A sub-agent acts only on the capabilities its authority scope names (prefixes); an empty scope is unrestricted. */
function assertInScope(me: Agent, capability: string) {
  if (me.authorityScope.length && !me.authorityScope.some((prefix) => capability.startsWith(prefix))) {
    throw new Forbidden(`Capability ${capability} is outside this agent's authority scope (${me.authorityScope.join(', ')})`);
  }
}

/** Re-reads a built-in's field errors as paths under `input`. */
function underInput(err: unknown): unknown {
  if (err instanceof ValidationFailed) return new ValidationFailed(err.errors.map((e) => ({ ...e, path: e.path ? `input.${e.path}` : 'input' })));
  return err;
}

/** Why the marketplace's own schema refuses `input` (field errors under `input.`), or null when it takes it. */
function marketplaceMisfit(local: GenericCapability, input: Record<string, unknown>): ValidationFailed | null {
  try {
    firstPartyInput(local, input);
    return null;
  } catch (err) {
    const under = underInput(err);
    if (under instanceof ValidationFailed) return under;
    throw err;
  }
}

/**
 * The 400 of input the marketplace refuses when it is left alone only because the registered providers are
 * cooling down: one more error on `input` says why its schema applies.
 */
function misfitWhileCooling(misfit: ValidationFailed, capability: string, cooling: number): ValidationFailed {
  const providers = cooling === 1 ? 'its one registered provider is' : `its ${cooling} registered providers are`;
  const why = `is read by the marketplace's own schema for ${capability}: ${providers} cooling down after repeated failures, so the marketplace is the only provider to try now`;
  return new ValidationFailed([...misfit.errors, { path: 'input', message: why }]);
}

const isCooling = (m: CallableMatch, now: number) => m.cooldownUntil !== null && m.cooldownUntil.getTime() > now;

/** The ranked providers not cooling down, at most MAX_ATTEMPTS of them. */
function candidatesOf(ctx: Ctx, ranked: CallableMatch[]): Candidate[] {
  const now = ctx.services.clock.now().getTime();
  return ranked
    .filter((m) => !isCooling(m, now))
    .slice(0, MAX_ATTEMPTS)
    .map((m) => ({
      serviceId: m.serviceId,
      serviceKey: m.serviceKey,
      name: m.name,
      providerId: m.providerId,
      reputation: m.reputation,
      priceCents: m.costCents,
      score: m.score,
      endpoint: m.endpoint,
      signingSecret: m.signingSecret,
    }));
}

async function chosenCandidate(ctx: Ctx, capability: string, provider: string): Promise<Candidate> {
  const service = await ctx.db.service.findFirst({
    where: isUuid(provider) ? { id: provider } : { serviceKey: provider },
    include: { agent: { select: { id: true, reputation: true, status: true } } },
  });
  if (!service || service.status !== 'active' || service.agent.status !== 'ACTIVE') throw new NotFound('active service', provider);
  if (!service.capabilities.includes(capability)) {
    throw new ValidationFailed([{ path: 'provider', message: `service ${service.serviceKey} does not offer ${capability}` }]);
  }
  return {
    serviceId: service.id,
    serviceKey: service.serviceKey,
    name: service.name,
    providerId: service.agent.id,
    reputation: service.agent.reputation,
    // The capability's own price on the service, when one was set (payments/pricing.ts).
    priceCents: (service.capabilityPrices as Record<string, number> | null)?.[capability] ?? service.costPerCall,
    score: null,
    endpoint: service.endpoint,
    signingSecret: service.signingSecret,
  };
}

/** One signed call of one provider; any answer but a 2xx with a JSON body is a failure with a reason. */
async function callProvider(ctx: Ctx, c: Candidate, executionId: string, body: string, ordinal: number): Promise<AttemptReceipt & { result?: unknown }> {
  const base = { ordinal, serviceId: c.serviceId, serviceKey: c.serviceKey, score: c.score, priceCents: c.priceCents };
  const started = performance.now();
  try {
    // CONTRACT §6: the service's signing secret (HMAC, v1); the Ed25519 v1a signature is for events.
    const headers = webhookHeaders({ id: executionId, timestampSeconds: Math.floor(ctx.services.clock.now().getTime() / 1000), body, secret: c.signingSecret });
    const res = await ctx.services.outbound.post(c.endpoint, { headers, body, timeoutMs: ctx.services.config.providerTimeoutMs, maxResponseBytes: RESULT_MAX_BYTES });
    const latencyMs = Math.round(res.latencyMs);
    if (res.status < 200 || res.status > 299) return { ...base, outcome: 'failure', reason: `http_${res.status}`, statusCode: res.status, latencyMs };
    if (res.body.trim() === '') return { ...base, outcome: 'failure', reason: 'empty_body', statusCode: res.status, latencyMs };
    let result: unknown;
    try {
      result = JSON.parse(res.body);
    } catch {
      return { ...base, outcome: 'failure', reason: 'invalid_json', statusCode: res.status, latencyMs };
    }
    // JSON the marketplace cannot store or serve (a NUL character, a lone surrogate, nesting past the input
    // boundary's depth) fails as invalid JSON, and the next provider is tried: otherwise the record of the
    // call would fail after the provider was called.
    if (inputProblem(result)) return { ...base, outcome: 'failure', reason: 'invalid_json', statusCode: res.status, latencyMs };
    return { ...base, outcome: 'success', reason: null, statusCode: res.status, latencyMs, result };
  } catch (err) {
    const latencyMs = Math.round(performance.now() - started);
    if (err instanceof OutboundError) return { ...base, outcome: 'failure', reason: err.reason, statusCode: null, latencyMs };
    ctx.services.log.warn({ err, service_key: c.serviceKey }, 'provider call failed unexpectedly');
    return { ...base, outcome: 'failure', reason: 'internal', statusCode: null, latencyMs };
  }
}

interface Recorded {
  me: Agent;
  capability: string;
  mode: Mode;
  input: Record<string, unknown>;
  status: 'success' | 'error';
  result: unknown;
  error: string | null;
  provider: ExecutionReceipt['provider'];
  costCents: number;
  latencyMs: number;
  attempts: AttemptReceipt[];
  /** The task the call was made under, and the holds on its budget to release as it is charged. */
  taskId?: string | null;
  holds?: string[];
  /** How the call is paid, and the wallet of the provider that answered (paid its share; the marketplace's when it has none). */
  paid?: PaidCall;
  providerWallet?: string;
}

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

/** What a paid call is charged: the answering provider's price, split into its share and the fee. */
function chargeOf(ctx: Ctx, r: Recorded): { charged: bigint; fee: bigint; share: bigint } {
  if (!r.paid || r.costCents === 0) return { charged: 0n, fee: 0n, share: 0n };
  const { setup } = ctx.services.payments;
  const charged = centsToUnits(setup, r.costCents);
  const fee = feeOf(setup, charged);
  return { charged, fee, share: charged - fee };
}

function paymentReceiptOf(ctx: Ctx, r: Recorded, balanceAfter?: bigint): PaymentReceipt | null {
  if (!r.paid) return null;
  const { charged, fee, share } = chargeOf(ctx, r);
  return {
    ...(balanceAfter === undefined ? {} : { balanceAfter }),
    method: r.paid.method,
    walletAddress: r.paid.hold.address,
    walletId: r.paid.hold.walletId,
    held: r.paid.hold.amount,
    charged,
    chargedCents: r.costCents,
    fee,
    providerShare: share,
    x402: r.paid.x402 ?? null,
  };
}

function receiptOf(ctx: Ctx, executionId: string, transactionId: string, r: Recorded, at: Date, balanceAfter?: bigint): ExecutionReceipt {
  return {
    executionId,
    capability: r.capability,
    mode: r.mode,
    status: r.status,
    result: r.result ?? null,
    error: r.error,
    provider: r.provider,
    transaction: { transactionId, costCents: r.costCents, latencyMs: r.latencyMs },
    attempts: r.attempts,
    payment: paymentReceiptOf(ctx, r, balanceAfter),
    createdAt: at,
  };
}

/** Writes the execution, its attempts, its transaction and its event inside `tx` (a built-in's transaction). */
async function recordInTransaction(ctx: Ctx, tx: DbTx, emit: Emit, executionId: string, r: Recorded, at: Date): Promise<ExecutionReceipt> {
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
  await tx.executionAttempt.createMany({ data: r.attempts.map(({ usage, ...a }) => ({ ...a, ...(usage ? { usage: { ...usage } } : {}), executionId, createdAt: at })) });
  const transaction = await tx.transaction.create({
    data: { agentId: r.me.id, executionId, serviceId, kind: 'charge', amountCents: r.costCents, latencyMs: r.latencyMs, capability: r.capability, createdAt: at },
    select: { id: true },
  });
  const event = eventOf(executionId, r);
  await emit(r.me.id, event.type, event.data);
  return receiptOf(ctx, executionId, transaction.id, r, at);
}

/** An attempt (AttemptReceipt) as the recording statements read it from JSON. */
const ATTEMPT_COLUMNS = `ordinal int, "serviceId" uuid, "serviceKey" text, outcome text, reason text, "statusCode" int, "latencyMs" int, score float8, "priceCents" int, usage jsonb`;

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
}
const CHARGE_COLUMNS = `caller_wallet uuid, provider_wallet uuid, earning_wallet uuid, caller_delta bigint, share bigint, release bigint, hold uuid,
  charge bigint, fee bigint, transfer uuid`;

/**
 * Executions, any number of them in one statement: one parameter, a JSON array of records (BatchRecord),
 * each with its attempts, its transaction and its event (with a delivery per subscribed webhook). Calls
 * outside tasks (most calls) answered while the database is busy with earlier records are recorded together
 * (see recordsTogether): one round trip, one commit and one wake-up of a database backend for the lot, which
 * in a run of 3 records costs PostgreSQL about 40% less CPU per record than 3 statements.
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
 */
const recordsSql = (paid: boolean, task: boolean) => `
  WITH r AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, agent_id uuid, capability text, service_id uuid, status "ExecutionStatus", input jsonb,
      result jsonb, error text, cost_cents int, latency_ms int, mode text, at timestamptz, transaction_id uuid, event_id text, event_type text,
      event_data jsonb, attempts jsonb${paid ? `, ${CHARGE_COLUMNS}` : ''}${task ? ', task_id text, holds uuid[]' : ''})
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
    SELECT wallet, sum(delta) AS delta, sum(released) AS released FROM (
      SELECT r.caller_wallet AS wallet, r.caller_delta AS delta, COALESCE(r.release, own.amount, 0) AS released FROM r LEFT JOIN own ON own.id = r.hold
      UNION ALL
      SELECT r.provider_wallet, r.share, 0 FROM r WHERE r.provider_wallet IS NOT NULL
    ) m GROUP BY wallet
  ), pay AS (
    UPDATE wallets w SET balance = w.balance + moves.delta, held = w.held - moves.released FROM moves WHERE w.id = moves.wallet RETURNING w.id, w.balance
  ), entries AS (
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
    INSERT INTO executions (id, agent_id, capability, service_id, status, input, result, error, cost_cents, latency_ms, mode, created_at${task ? ', task_id' : ''})
    SELECT id, agent_id, capability, service_id, status, input, result, error, cost_cents, latency_ms, mode, at${task ? ', task_id' : ''} FROM r
  ), a AS (
    INSERT INTO execution_attempts (execution_id, ordinal, service_id, service_key, outcome, reason, status_code, latency_ms, score, price_cents, usage, created_at)
    SELECT r.id, x.ordinal, x."serviceId", x."serviceKey", x.outcome, x.reason, x."statusCode", x."latencyMs", x.score, x."priceCents", x.usage, r.at
    FROM r CROSS JOIN LATERAL jsonb_to_recordset(r.attempts) AS x(${ATTEMPT_COLUMNS})
    RETURNING execution_id, service_id, outcome, latency_ms, price_cents, created_at
  ), q AS (
    -- Who called, and what the call put at stake: a success's price only where this statement charged it
    -- (the provider's reputation rises only with paid calls), a failure's as held (failures are never charged).
    INSERT INTO attempts_to_fold (service_id, outcome, latency_ms, created_at, caller_id, price_cents)
    SELECT a.service_id, a.outcome, a.latency_ms, a.created_at, r.agent_id, CASE WHEN a.outcome = 'success' THEN ${paid ? 'r.cost_cents' : '0'} ELSE a.price_cents END
    FROM a JOIN r ON r.id = a.execution_id WHERE a.service_id IS NOT NULL
  ), t AS (
    INSERT INTO transactions (id, agent_id, execution_id, service_id, kind, amount_cents, latency_ms, capability, created_at)
    SELECT transaction_id, agent_id, id, service_id, 'charge', cost_cents, latency_ms, capability, at FROM r
  ), ${eventCtes('SELECT event_id, event_type, agent_id, event_data, at FROM r')}
  SELECT (SELECT count(*) FROM hooks)::int AS deliveries${paid ? ', (SELECT jsonb_object_agg(id, balance::text) FROM pay) AS balances' : ''}`;
const RECORDS = {
  free: { name: 'record_executions', text: recordsSql(false, false) },
  paid: { name: 'record_paid_executions', text: recordsSql(true, false) },
  task: { name: 'record_task_execution', text: recordsSql(false, true) },
  paidTask: { name: 'record_paid_task_execution', text: recordsSql(true, true) },
};
type RecordKind = keyof typeof RECORDS;
/** The records written together, of calls outside tasks. */
type Together = 'free' | 'paid';

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
  task_id?: string;
  holds?: string[];
}

/**
 * Records of one database (free ones, and paid ones apart) wait here while some statements of them are
 * running, then go together, at most 100 to a statement. Answers, for each record, what its statement
 * answered (Written). Two statements of either kind (one committing while the next executes) on the
 * embedded database, whose one session runs them in turn anyway. On PostgreSQL, free records four: each
 * statement waits for its commit's flush, and behind two of them a record waited for up to two flushes
 * (the record's p99 10–16 ms against its median's 2 ms at 2; 6–9 ms at 4, for about a quarter more of the
 * database's CPU a call; at 8 nearly every record went alone: 45% more, and the median rose). Paid records stay at two
 * there too: their statements lock the wallets they charge through the commit, so a third would wait on
 * the lock rather than join the batch.
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
}

function recordsTogether(sql: SqlRunner, kind: Together): Batcher<BatchRecord, Written> {
  let of = batchers.get(sql);
  if (!of) {
    const inFlight = (k: Together) => (k === 'free' && !sql.soleWriter ? FREE_RECORDS_IN_FLIGHT_POSTGRES : RECORDS_IN_FLIGHT);
    const batcher = (k: Together) => new Batcher<BatchRecord, Written>((records) => recordTogether(sql, k, records), inFlight(k), RECORDS_PER_STATEMENT);
    of = { free: batcher('free'), paid: batcher('paid') };
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
    return Promise.all(records.map((r) => write([r]).then((value): Settled<Written> => ({ ok: true, value }), (error: unknown): Settled<Written> => ({ ok: false, error }))));
  }
}

/** Writes records in one statement. */
async function writeRecords(sql: SqlRunner, kind: RecordKind, records: BatchRecord[]): Promise<Written> {
  const { text, name } = RECORDS[kind];
  return (await sql.query<Written>(text, [JSON.stringify(records)], name))[0];
}

async function recordProviderExecution(ctx: Ctx, executionId: string, r: Recorded, at: Date): Promise<ExecutionReceipt> {
  const transactionId = newTimeOrderedUuid();
  const shape = eventOf(executionId, r);
  const event = makeEvent(shape.type, shape.data, at);
  // A prepaid call that cost nothing moves no money (what it reserved stays in the lease).
  const paid = !!r.paid && (!r.paid.hold.shared || r.costCents > 0);
  const record: BatchRecord = { ...batchRecordOf(executionId, transactionId, event, r), ...(paid ? chargeFieldsOf(ctx, r) : {}) };
  const { sql } = ctx.services;
  const write = r.taskId
    ? () => writeRecords(sql, paid ? 'paidTask' : 'task', [{ ...record, task_id: r.taskId!, holds: r.holds ?? [] }])
    : () => recordsTogether(sql, paid ? 'paid' : 'free').submit(record);
  let written: Written;
  try {
    // The provider has answered: a statement the database aborts for another's sake is run again rather
    // than losing the record (nothing of an aborted statement was written).
    written = await retryTransient(write);
  } catch (err) {
    if (r.paid && isFundsViolation(err)) {
      // The call's hold lapsed (its process stalled past the hold's life) and the wallet was spent
      // meanwhile: the call is recorded, unpaid, rather than lost.
      ctx.services.log.warn({ execution_id: executionId, wallet: r.paid.hold.walletId }, 'a paid call outlived its hold and its wallet no longer covers it: recorded unpaid');
      return recordProviderExecution(ctx, executionId, { ...r, paid: undefined, costCents: 0 }, at);
    }
    throw err;
  }
  ctx.services.outbox.committed([{ ...event, agentId: r.me.id }], written.deliveries);
  const balance = paid ? written.balances?.[r.paid!.hold.walletId] : undefined;
  return receiptOf(ctx, executionId, transactionId, r, at, balance === undefined ? undefined : BigInt(balance));
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
  };
}

/** What a paid call's record moves, and between which wallets (amounts in the token's units, as text). */
function chargeFieldsOf(ctx: Ctx, r: Recorded): ChargeFields {
  const { charged, fee, share } = chargeOf(ctx, r);
  const hold = r.paid!.hold;
  const provider = r.providerWallet ?? ACCOUNTS.revenue;
  const own = provider === hold.walletId;
  return {
    caller_wallet: hold.walletId,
    // The provider's wallet, unless it is the caller's own or there is none (its share is the marketplace's).
    provider_wallet: own || provider === ACCOUNTS.revenue ? null : provider,
    earning_wallet: provider,
    caller_delta: (-charged + (own ? share : 0n)).toString(),
    share: share.toString(),
    // What leaves `held`: the charge, from a lease; a hold of the call's own is released whole.
    release: hold.shared ? charged.toString() : null,
    hold: hold.id,
    charge: charged.toString(),
    fee: fee.toString(),
    transfer: newTimeOrderedUuid(),
  };
}

function isFundsViolation(err: unknown): boolean {
  return (err as { code?: unknown })?.code === '23514';
}

/** The marketplace as the last candidate of a generic capability it serves. */
function marketplaceCandidate(local: GenericCapability): Candidate {
  return {
    serviceId: null,
    serviceKey: MARKETPLACE_PROVIDER.serviceKey,
    name: MARKETPLACE_PROVIDER.name,
    providerId: '',
    reputation: MARKETPLACE_PROVIDER.reputation,
    priceCents: 0,
    score: null,
    endpoint: '',
    signingSecret: '',
    local,
  };
}

/** Why the marketplace does not serve a capability here: it is not one of its own, or it lacks configuration. */
function unservedByMarketplace(capability: string, firstParty: { unavailableBecause?: string } | undefined): Error {
  if (!firstParty) return new ValidationFailed([{ path: 'provider', message: `the marketplace does not serve ${capability}: name a registered service (svc_…)` }]);
  return new CapabilityUnavailable(
    `No registered provider offers ${capability}, and the marketplace cannot serve it on this instance: ${firstParty.unavailableBecause ?? 'it is not configured here'}`,
  );
}

/** A capability of the marketplace's own systems, served inside the transaction that records its execution. */
async function runOwn(
  ctx: Ctx,
  me: Agent,
  own: OwnCapability,
  call: { capability: string; input: Record<string, unknown>; mode: Mode; taskId: string | null; executionId: string; started: number },
): Promise<ExecutionReceipt> {
  const { capability, input, mode, taskId, executionId, started } = call;
  try {
    const fields = firstPartyInput(own, input);
    return await transact(ctx, async (tx, emit) => {
      const result = await own.run(tx, emit, ctx, me, fields);
      const latencyMs = Math.round(performance.now() - started);
      const attempt: AttemptReceipt = {
        ordinal: 1,
        serviceId: null,
        serviceKey: MARKETPLACE_PROVIDER.serviceKey,
        outcome: 'success',
        reason: null,
        statusCode: null,
        latencyMs,
        score: null,
        priceCents: 0,
      };
      const provided = { serviceId: null, serviceKey: MARKETPLACE_PROVIDER.serviceKey, name: MARKETPLACE_PROVIDER.name, reputation: MARKETPLACE_PROVIDER.reputation };
      return recordInTransaction(ctx, tx, emit, executionId, { me, capability, mode, input, status: 'success', result, error: null, provider: provided, costCents: 0, latencyMs, attempts: [attempt], taskId }, ctx.services.clock.now());
    });
  } catch (err) {
    throw underInput(err);
  }
}

/**
 * The marketplace answering a generic capability: its handler, bounded by the larger of a provider's and a
 * model's budget, its output checked against its schema. A failure is an attempt like a provider's, with
 * a reason (`invalid_input`, `invalid_output`, `timeout`, or the problem's code) and a detail for the
 * execution's error; when the marketplace is the only candidate, bad input is the caller's 400 instead.
 */
async function callMarketplace(
  ctx: Ctx,
  me: Agent,
  c: Candidate,
  input: Record<string, unknown>,
  ordinal: number,
): Promise<AttemptReceipt & { result?: unknown; detail?: string }> {
  const local = c.local!;
  const base = { ordinal, serviceId: null, serviceKey: c.serviceKey, score: null, priceCents: 0, statusCode: null };
  const started = performance.now();
  const { config } = ctx.services;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timeout')), Math.max(config.providerTimeoutMs, config.llm.timeoutMs));
  const latency = () => Math.round(performance.now() - started);
  try {
    const served = await local.run(ctx, me, firstPartyInput(local, input), controller.signal);
    const usage = served.usage ?? null;
    const problems = schemaProblems(local.outputSchema, served.output);
    if (problems.length) {
      ctx.services.log.warn({ capability: local.slug, problems }, 'a first-party capability answered outside its output schema');
      return { ...base, outcome: 'failure', reason: 'invalid_output', latencyMs: latency(), detail: 'its answer did not match the output schema', usage };
    }
    return { ...base, outcome: 'success', reason: null, latencyMs: latency(), result: served.output, usage };
  } catch (err) {
    // What a model spent on an attempt that failed is recorded on it too.
    const usage = err instanceof ModelFailed ? (err.usage ?? null) : null;
    if (controller.signal.aborted) return { ...base, outcome: 'failure', reason: 'timeout', latencyMs: latency(), detail: 'it ran out of time', usage };
    if (err instanceof ValidationFailed) {
      const detail = err.errors.map((e) => `${e.path ? `input.${e.path}` : 'input'} ${e.message}`).join('; ');
      return { ...base, outcome: 'failure', reason: 'invalid_input', latencyMs: latency(), detail };
    }
    if (err instanceof AppError) return { ...base, outcome: 'failure', reason: err.code, latencyMs: latency(), detail: err.message, usage };
    ctx.services.log.warn({ err, capability: local.slug }, 'a first-party capability failed unexpectedly');
    return { ...base, outcome: 'failure', reason: 'internal', latencyMs: latency() };
  } finally {
    clearTimeout(timer);
  }
}

export async function execute(ctx: Ctx, raw: ExecuteInput, opts: ExecuteOptions = {}): Promise<ExecutionReceipt> {
  const me = await requireAgent(ctx);
  const { capability, input, mode, provider, taskId } = readInput(raw);
  assertInScope(me, capability);
  const task = taskId ? await taskForExecution(ctx, me, taskId) : undefined;
  let executionId = opts.executionId ?? newTimeOrderedUuid();
  const started = performance.now();

  const firstParty = FIRST_PARTY.get(capability);
  if (firstParty?.kind === 'own') {
    // The marketplace's own systems: it always answers them, and nobody else can.
    if (mode === 'chosen' && provider !== MARKETPLACE_PROVIDER.serviceKey) {
      throw new ValidationFailed([{ path: 'provider', message: `${capability} is one of the marketplace's own capabilities: only the provider "${MARKETPLACE_PROVIDER.serviceKey}" serves it` }]);
    }
    return runOwn(ctx, me, firstParty, { capability, input, mode, taskId, executionId, started });
  }

  // A generic capability the marketplace serves is tried last, after the registered providers.
  const local = firstParty?.kind === 'generic' && servedHere(firstParty, ctx.services) ? firstParty : undefined;
  let candidates: Candidate[];
  /** Registered providers ranked but skipped, cooling down after repeated failures. */
  let cooling = 0;
  if (mode === 'chosen' && provider === MARKETPLACE_PROVIDER.serviceKey) {
    if (!local) throw unservedByMarketplace(capability, firstParty);
    candidates = [marketplaceCandidate(local)];
  } else if (mode === 'chosen') {
    candidates = [await chosenCandidate(ctx, capability, provider!)];
  } else {
    const ranked = callableMatches(ctx, await loadCallable(ctx, capability, CANDIDATES));
    const now = ctx.services.clock.now().getTime();
    cooling = ranked.filter((m) => isCooling(m, now)).length;
    candidates = candidatesOf(ctx, ranked);
    if (local) candidates.push(marketplaceCandidate(local));
  }
  if (!candidates.length) {
    if (firstParty) throw unservedByMarketplace(capability, firstParty);
    throw new NotFound('active provider of capability', capability);
  }
  // The marketplace's input schema is its own attempt's, never a registered provider's: the marketplace
  // alone (chosen by name, or nobody else to try) checks it before anything else happens, a 400 rather
  // than a failed call.
  if (candidates.length === 1 && candidates[0].local) {
    const misfit = marketplaceMisfit(candidates[0].local, input);
    if (misfit) throw cooling ? misfitWhileCooling(misfit, capability, cooling) : misfit;
  }

  // A paid call is paid before any provider is called: its price is held on the caller's wallet.
  const price = priceOf(ctx, me, { capability, input, mode, provider, taskId }, candidates);
  let paid: PaidCall | undefined;
  if (price.quote > 0n) {
    const outcome = await payForCall(ctx, me, price, opts.payment);
    // The payment already paid for this very request: its answer is the one recorded then.
    if (outcome.kind === 'replay') return recordedReceipt(ctx, outcome.executionId);
    paid = outcome.paid;
    if (paid.executionId) executionId = paid.executionId;
  }
  let receipt: ExecutionReceipt | undefined;
  try {
    receipt = await callProviders(ctx, me, { capability, input, mode, task, taskId, executionId, started, candidates, paid });
    return receipt;
  } finally {
    // What the call held and did not spend goes back: to the lease for the caller's next calls, or (its
    // own hold, when nothing was recorded) to the wallet at once.
    if (paid?.hold.shared) ctx.services.payments.leases.finish(me.id, { leaseId: paid.hold.id, walletId: paid.hold.walletId, address: paid.hold.address, amount: paid.hold.amount }, receipt?.payment?.charged ?? 0n);
    else if (paid && !receipt) await releaseHold(ctx.services, paid.hold.id).catch(() => undefined);
  }
}

/**
 * An execution as recorded, with its payment: what a replayed payment answers. The provider's name and
 * reputation are as they are now.
 */
export async function recordedReceipt(ctx: Ctx, executionId: string): Promise<ExecutionReceipt> {
  const db = ctx.services.db;
  const e = await db.execution.findUniqueOrThrow({ where: { id: executionId } });
  const [attempts, charge, entries, payment] = await Promise.all([
    db.executionAttempt.findMany({ where: { executionId }, orderBy: { ordinal: 'asc' } }),
    db.transaction.findFirst({ where: { executionId, kind: 'charge' }, select: { id: true } }),
    db.walletEntry.findMany({ where: { executionId, kind: { in: ['charge', 'earning', 'fee'] } } }),
    db.x402Payment.findFirst({ where: { executionId } }),
  ]);
  const last = attempts.find((a) => a.outcome === 'success') ?? attempts[attempts.length - 1];
  const service = last?.serviceId ? await db.service.findUnique({ where: { id: last.serviceId }, select: { name: true, agent: { select: { reputation: true } } } }) : null;
  const sum = (kind: string) => entries.filter((x) => x.kind === kind).reduce((t, x) => t + x.amount, 0n);
  const payer = entries.find((x) => x.kind === 'charge');
  const payerWallet = payment || payer ? await db.wallet.findUnique({ where: { agentId: e.agentId }, select: { id: true, address: true } }) : null;
  return {
    executionId: e.id,
    capability: e.capability,
    mode: e.mode as Mode,
    status: e.status as 'success' | 'error',
    result: e.result ?? null,
    error: e.error,
    provider: last ? { serviceId: last.serviceId, serviceKey: last.serviceKey, name: service?.name ?? last.serviceKey, reputation: service?.agent.reputation ?? 0 } : null,
    transaction: { transactionId: charge?.id ?? '', costCents: e.costCents, latencyMs: e.latencyMs },
    attempts: attempts.map((a) => ({ ordinal: a.ordinal, serviceId: a.serviceId, serviceKey: a.serviceKey, outcome: a.outcome as 'success' | 'failure', reason: a.reason, statusCode: a.statusCode, latencyMs: a.latencyMs, score: a.score, priceCents: a.priceCents, usage: (a.usage as ModelUsage | null) ?? null })),
    payment:
      payment || payer
        ? {
            method: payment ? 'x402' : 'prepaid',
            walletAddress: payerWallet?.address ?? '',
            walletId: payerWallet?.id ?? null,
            held: payment?.amount ?? -sum('charge'),
            charged: -sum('charge'),
            chargedCents: e.costCents,
            fee: sum('fee'),
            providerShare: sum('earning'),
            x402: payment ? { paymentId: payment.id, payer: payment.payer, amount: payment.amount, transaction: payment.transaction ?? '', network: payment.network } : null,
          }
        : null,
    createdAt: e.createdAt,
  };
}

/** The most a call can cost (the dearest provider it may try) and whom it may pay. */
function priceOf(ctx: Ctx, me: Agent, call: { capability: string; input: unknown; mode: Mode; provider: string | null; taskId: string | null }, candidates: Candidate[]): CallPrice {
  const quoteCents = Math.max(0, ...candidates.map((c) => c.priceCents));
  return {
    quote: quoteCents > 0 ? centsToUnits(ctx.services.payments.setup, quoteCents) : 0n,
    quoteCents,
    providers: [...new Set(candidates.filter((c) => c.priceCents > 0).map((c) => c.providerId))],
    capability: call.capability,
    // Read only to bind an x402 payment to the request: computed when asked for.
    get fingerprint() {
      return requestHash('execute', [me.id, call.capability, call.input, call.mode, call.provider, call.taskId]);
    },
    // The hold outlives the longest run of the call: every attempt's full budget, and a margin.
    holdMs: MAX_ATTEMPTS * ctx.services.config.providerTimeoutMs + 60_000,
  };
}

interface ProviderCall {
  capability: string;
  input: Record<string, unknown>;
  mode: Mode;
  task: Awaited<ReturnType<typeof taskForExecution>> | undefined;
  taskId: string | null;
  executionId: string;
  started: number;
  candidates: Candidate[];
  paid: PaidCall | undefined;
}

/** Calls the providers in turn until one answers, and records the execution (and its payment). */
async function callProviders(ctx: Ctx, me: Agent, call: ProviderCall): Promise<ExecutionReceipt> {
  const { capability, input, mode, task, taskId, executionId, started, candidates, paid } = call;
  const body = JSON.stringify({ execution_id: executionId, capability, input, agent_id: me.id });
  const attempts: AttemptReceipt[] = [];
  const called: Candidate[] = [];
  const holds: string[] = [];
  /** What the marketplace's failed attempt said, for the execution's error. */
  const details = new Map<number, string>();
  let success: { candidate: Candidate; result: unknown } | undefined;
  /** Under a task, what the marketplace's own schema refuses of the input, when every provider before it was over budget. */
  let refusedAlone: ValidationFailed | null = null;
  for (const candidate of candidates) {
    // Every registered provider was over the task's budget, and the marketplace does not take this input:
    // nothing is called, and the answer is the budget's 402 (saying so), as when nothing else is left.
    if (task && candidate.local && !attempts.length && (refusedAlone = marketplaceMisfit(candidate.local, input))) break;
    // Under a task, a provider is called only once its price is held from the task's budget.
    if (task && task.budgetCents !== null) {
      const hold = await holdBudget(ctx.services, task.id, candidate.priceCents, new Date(ctx.services.clock.now().getTime() + 2 * ctx.services.config.providerTimeoutMs + 30_000));
      if (!hold) continue;
      holds.push(hold);
    }
    called.push(candidate);
    const { result, detail, ...attempt } = candidate.local
      ? await callMarketplace(ctx, me, candidate, input, attempts.length + 1)
      : { detail: undefined, ...(await callProvider(ctx, candidate, executionId, body, attempts.length + 1)) };
    attempts.push(attempt);
    if (detail) details.set(attempt.ordinal, detail);
    if (attempt.outcome === 'success') {
      success = { candidate, result };
      break;
    }
  }
  if (!attempts.length) {
    const left = await remainingBudget(ctx.services, task!.id);
    const priced = candidates.filter((c) => !c.local);
    throw new BudgetExceeded(
      `Task ${task!.id} has ${left ?? 0} cents of its budget left; the ${priced.length === 1 ? "provider's price" : "providers' prices"} (${priced.map((c) => `${c.serviceKey} ${c.priceCents}`).join(', ')}) ${priced.length === 1 ? 'is' : 'are'} more` +
        (refusedAlone ? `, and the marketplace, which charges nothing, does not take this input by its own schema (${refusedAlone.message})` : ''),
    );
  }
  const latencyMs = Math.round(performance.now() - started);
  const last = called[attempts.length - 1];
  const chosen = success?.candidate ?? last;
  const receipt = await recordProviderExecution(
    ctx,
    executionId,
    {
      me,
      capability,
      mode,
      input,
      status: success ? 'success' : 'error',
      result: success?.result,
      error: success
        ? null
        : `${attempts.length === 1 ? 'The provider' : `All ${attempts.length} providers`} failed: ${attempts.map((a) => `${a.serviceKey} ${a.reason}${details.has(a.ordinal) ? ` (${details.get(a.ordinal)})` : ''}`).join('; ')}`,
      provider: { serviceId: chosen.serviceId, serviceKey: chosen.serviceKey, name: chosen.name, reputation: chosen.reputation },
      costCents: success ? success.candidate.priceCents : 0,
      latencyMs,
      attempts,
      taskId,
      holds,
      paid,
      providerWallet: paid?.providerWallets[chosen.providerId],
    },
    ctx.services.clock.now(),
  );
  // Successes only are folded within seconds; a failure soon, since it may start a cooldown (provider-stats.ts).
  ctx.services.providerStats.wake(success === undefined || attempts.length > 1);
  return receipt;
}
