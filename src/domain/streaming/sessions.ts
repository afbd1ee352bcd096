// Streaming sessions (spec §2, §4.8, §6.4): an agent opens a session for a capability, pushes events into
// it and ends it; its readers follow over SSE, a plain WebSocket, or GraphQL subscriptions. Events are
// numbered and kept for STREAM_RETENTION_MS, so a reader resumes after the last id it saw without a gap.
import type { StreamingSession } from '../../db/generated/prisma/client';
import { Conflict, NotFound } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import type { SequencedStreams, StreamStore } from '../../platform/sequenced-streams';
import { assertMove, type Moves } from '../../platform/state-machine';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { principalFromJson, principalJsonSql, rememberPrincipal, requireAgent } from '../agents/principal';
import { recordAudit, recordStateChange } from '../audit/audit';
import type { Ctx, Services } from '../context';

declare module '../context' {
  interface Services {
    /** Readers of streaming sessions, fed from the bus and the database. */
    sessionStreams: SessionStreams;
  }
}

export const STREAM_TYPES = ['sse', 'websocket'] as const;
export type SessionStatus = 'active' | 'ended';
export const SESSION_MOVES: Moves<SessionStatus> = { active: ['ended'], ended: [] };

/** Events one push may carry, and the bytes of one event's JSON data. */
export const PUSH_BATCH_MAX = 100;
export const EVENT_BYTES_MAX = 64 * 1024;
const EVENT_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** A pushed event as readers see it. */
export interface StreamEvent {
  seq: number;
  event: string;
  data: unknown;
  /** ISO 8601 (it crosses Redis as JSON). */
  createdAt: string;
}

export type SessionStreams = SequencedStreams<StreamEvent>;
export const SESSION_TOPIC = 'streamingSession';

/** Where readers connect: SSE for `sse` sessions, the same path upgraded to a WebSocket for `websocket` ones. */
export function eventEndpoint(services: Pick<Services, 'config'>, session: Pick<StreamingSession, 'id' | 'streamType'>): string {
  const base = services.config.publicBaseUrl;
  const url = `${base}/api/v1/streaming/sessions/${session.id}/events`;
  return session.streamType === 'websocket' ? url.replace(/^http/, 'ws') : url;
}

export interface CreateSessionInput {
  capabilityId?: unknown;
  streamType?: unknown;
}

export async function createSession(ctx: Ctx, input: CreateSessionInput): Promise<StreamingSession> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const capabilityId = checks.text('capabilityId', input.capabilityId, { max: 64, required: true });
  if (capabilityId && !/^[a-z0-9][a-z0-9.-]{0,63}$/.test(capabilityId))
    checks.fail('capabilityId', 'must be a capability identifier (lower-case letters, digits, dots and dashes)');
  const streamType = checks.oneOf('streamType', input.streamType, STREAM_TYPES, 'sse');
  checks.done();
  return ctx.db.$transaction(async (tx) => {
    const session = await tx.streamingSession.create({ data: { agentId: me.id, capabilityId: capabilityId!, streamType: streamType! } });
    await recordStateChange(tx, ctx, { subjectType: 'streaming_session', subjectId: session.id, from: null, to: 'active' });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'streaming_session.created',
      targetType: 'streaming_session',
      targetId: session.id,
      details: { capabilityId: session.capabilityId, streamType: session.streamType },
    });
    return session;
  });
}

/** The caller's session; another agent's is not found. */
export async function ownSession(ctx: Ctx, id: string): Promise<StreamingSession> {
  const me = await requireAgent(ctx);
  const session = isUuid(id) ? await ctx.db.streamingSession.findFirst({ where: { id, agentId: me.id } }) : null;
  if (!session) throw new NotFound('streaming session', id);
  return session;
}

export async function listSessions(ctx: Ctx, page: Page, status?: string | null) {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id, ...(status ? { status } : {}) };
  return pageOf(
    page,
    (q) => ctx.db.streamingSession.findMany({ where, ...q }),
    () => ctx.db.streamingSession.count({ where }),
  );
}

export interface PushInput {
  event?: unknown;
  data?: unknown;
  events?: unknown;
}

function checkEvents(input: PushInput): { event: string; data: string }[] {
  const checks = new Checks();
  const single = input.events === undefined || input.events === null;
  if (!single && (input.event !== undefined || input.data !== undefined)) checks.fail('events', 'give either `events` or one `event`/`data`, not both');
  const raw: unknown[] = single ? [{ event: input.event, data: input.data }] : Array.isArray(input.events) ? input.events : [];
  if (!single && (!Array.isArray(input.events) || input.events.length === 0 || input.events.length > PUSH_BATCH_MAX)) {
    checks.fail('events', `must be a list of 1 to ${PUSH_BATCH_MAX} { event?, data }`);
  }
  const out: { event: string; data: string }[] = [];
  raw.forEach((item, i) => {
    const at = single ? '' : `events.${i}.`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      checks.fail(`events.${i}`, 'must be an object { event?, data }');
      return;
    }
    const e = item as { event?: unknown; data?: unknown };
    const event = e.event === undefined || e.event === null ? 'message' : e.event;
    if (typeof event !== 'string' || !EVENT_NAME.test(event)) checks.fail(`${at}event`, 'must be 1-64 letters, digits, or _ . : -');
    if (e.data === undefined) checks.fail(`${at}data`, 'is required (any JSON)');
    const data = JSON.stringify(e.data ?? null);
    if (Buffer.byteLength(data) > EVENT_BYTES_MAX) checks.fail(`${at}data`, `must be at most ${EVENT_BYTES_MAX} bytes as JSON`);
    out.push({ event: String(event), data });
  });
  checks.done();
  return out;
}

/**
 * Numbers and stores the events in one statement (the session row's counter, under its lock), then
 * announces them to readers on every instance. An ended session answers 409.
 */
/**
 * Numbers and stores the events (the session's counter, under its lock), then announces them on every instance; an
 * ended session is 409. A push is a stream's hot path, so one statement also looks the caller up by its key: an invalid
 * or inactive caller matches no session, writes nothing, and is refused as usual.
 */
export async function pushEvents(
  ctx: Ctx,
  id: string,
  input: PushInput,
): Promise<{ count: number; sessionId: string; lastEventId: number; events: StreamEvent[] }> {
  let events: ReturnType<typeof checkEvents>;
  try {
    events = checkEvents(input);
  } catch (err) {
    // A caller that would be refused hears that first.
    await requireAgent(ctx);
    throw err;
  }
  if (!isUuid(id)) {
    await requireAgent(ctx);
    throw new NotFound('streaming session', id);
  }
  const now = ctx.services.clock.now();
  // A caller the principal cache knows pushes as itself (refused first if suspended); an unknown one is
  // looked up by the push's own statement.
  if (!ctx.resolvedPrincipal && ctx.bearer.kind === 'key') {
    const known = ctx.services.principals.get(ctx.bearer.hash);
    if (known) ctx.seedPrincipal(known);
  }
  const byKey = !ctx.resolvedPrincipal && ctx.bearer.kind === 'key';
  const since = performance.now();
  const [row] = await ctx.services.sql.query<{ principal: Parameters<typeof principalFromJson>[0]; events: { seq: number; event: string; data: unknown }[] }>(
    byKey ? PUSH_AS_CALLER_SQL : PUSH_SQL,
    [
      id,
      byKey ? (ctx.bearer as { hash: string }).hash : (await requireAgent(ctx)).id,
      events.length,
      events.map((e) => e.event),
      events.map((e) => e.data),
      now,
    ],
    byKey ? 'stream_push_as_caller' : 'stream_push',
  );
  // The caller it found is kept for the next request, as a lookup of its own would be.
  if (byKey) ctx.seedPrincipal(rememberPrincipal(ctx.services, (ctx.bearer as { hash: string }).hash, principalFromJson(row.principal), since));
  const me = await requireAgent(ctx);
  if (!row.events.length) {
    const [found] = await ctx.services.sql.query<{ status: string }>(`SELECT status FROM streaming_sessions WHERE id = $1::uuid AND agent_id = $2::uuid`, [
      id,
      me.id,
    ]);
    if (!found) throw new NotFound('streaming session', id);
    throw new Conflict(`The streaming session has ${found.status}: nothing more can be pushed to it`);
  }
  const pushed: StreamEvent[] = row.events.map((r) => ({ seq: Number(r.seq), event: r.event, data: r.data, createdAt: now.toISOString() }));
  for (const e of pushed) ctx.services.sessionStreams.announce(id, e);
  return { count: pushed.length, sessionId: id, lastEventId: pushed[pushed.length - 1].seq, events: pushed };
}

/** The push itself, as the agent whose id `agent` is (`$2`). */
const pushCtes = (agent: string) => `s AS (
       UPDATE streaming_sessions SET last_seq = last_seq + $3, updated_at = $6
       WHERE id = $1::uuid AND agent_id = ${agent} AND status = 'active'
       RETURNING last_seq - $3 AS base
     ), ins AS (
       INSERT INTO streaming_events (session_id, seq, event, data, created_at)
       SELECT $1::uuid, s.base + i.n, i.event, i.data, $6 FROM s, unnest($4::text[], $5::jsonb[]) WITH ORDINALITY AS i(event, data, n)
       RETURNING seq, event, data
     )`;
const PUSHED = `(SELECT coalesce(json_agg(json_build_object('seq', seq, 'event', event, 'data', data) ORDER BY seq), '[]') FROM ins) AS events`;
const PUSH_SQL = `WITH ${pushCtes('$2::uuid')} SELECT NULL::json AS principal, ${PUSHED}`;
/** `$2` is the hash of the caller's key: only a live master key of an active agent pushes. */
const PUSH_AS_CALLER_SQL = `WITH caller AS (SELECT ${principalJsonSql('$2')} AS p), ${pushCtes(
  `(SELECT (p->>'id')::uuid FROM caller WHERE p->>'credentialKind' = 'master' AND p->>'status' = 'ACTIVE')`,
)} SELECT (SELECT p FROM caller) AS principal, ${PUSHED}`;

/** Ends the session: nothing more may be pushed, and open streams close after the last event. */
export async function endSession(ctx: Ctx, id: string): Promise<StreamingSession> {
  const session = await ownSession(ctx, id);
  assertMove(SESSION_MOVES, session.status as SessionStatus, 'ended', 'streaming session');
  const now = ctx.services.clock.now();
  const ended = await ctx.db.$transaction(async (tx) => {
    // The status is checked again under the row lock: a concurrent end or push decides once.
    const [row] = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM streaming_sessions WHERE id = ${session.id}::uuid FOR NO KEY UPDATE`;
    assertMove(SESSION_MOVES, row.status as SessionStatus, 'ended', 'streaming session');
    const updated = await tx.streamingSession.update({ where: { id: session.id }, data: { status: 'ended', endedAt: now } });
    await recordStateChange(tx, ctx, { subjectType: 'streaming_session', subjectId: session.id, from: 'active', to: 'ended' });
    return updated;
  });
  ctx.services.sessionStreams.announce(id, { end: true, seq: ended.lastSeq });
  return ended;
}

/**
 * A reader of the session's events: those after `after` (a Last-Event-ID), then live ones until the
 * session ends. Counts against the agent's concurrent streams.
 */
export async function followSession(ctx: Ctx, id: string, after: number | null): Promise<AsyncIterableIterator<StreamEvent>> {
  const session = await ownSession(ctx, id);
  const release = ctx.services.streamSlots.take(session.agentId);
  try {
    return await ctx.services.sessionStreams.open(session.id, after, release);
  } catch (err) {
    release();
    throw err;
  }
}

/** The database side of session streams: stored events and each session's counter and status. */
export function sessionStore(services: Pick<Services, 'sql'>): StreamStore<StreamEvent> {
  return {
    async load(id, after, limit) {
      const rows = await services.sql.query<{ seq: number; event: string; data: unknown; createdAt: Date }>(
        `SELECT seq, event, data, created_at AS "createdAt" FROM streaming_events WHERE session_id = $1::uuid AND seq > $2 ORDER BY seq LIMIT $3`,
        [id, after, limit],
        'stream_events_after',
      );
      return rows.map((r) => ({ seq: Number(r.seq), event: r.event, data: r.data, createdAt: new Date(r.createdAt).toISOString() }));
    },
    async state(ids) {
      const rows = await services.sql.query<{ id: string; lastSeq: number; status: string }>(
        `SELECT id, last_seq AS "lastSeq", status FROM streaming_sessions WHERE id = ANY($1::uuid[])`,
        [ids.filter(isUuid)],
      );
      return new Map(rows.map((r) => [r.id, { lastSeq: Number(r.lastSeq), ended: r.status !== 'active' }]));
    },
  };
}

/** Drops events older than the retention (readers resuming from before then continue from the oldest kept). */
export async function purgeOldEvents(services: Pick<Services, 'db' | 'clock' | 'config'>): Promise<number> {
  const before = new Date(services.clock.now().getTime() - services.config.streamRetentionMs);
  return services.db.$executeRaw`DELETE FROM streaming_events WHERE created_at < ${before}`;
}
