// The outbox: events written in the transaction of the change they report, relayed to live streams after commit
// (and again from the table after a crash), and delivered by a dispatcher that claims due deliveries with FOR UPDATE
// SKIP LOCKED, so instances share the work and none sends one twice. Sends are not tied to a claim's round, and each
// owner's share of them is capped, so one agent's slow receivers cannot delay another's (docs/execution.md, The outbox).
import type { KeyObject } from 'node:crypto';
import type { SqlRunner } from '../db/database';
import type { Clock } from './clock';
import type { Logger } from './logger';
import { OutboundError, type OutboundClient } from './outbound';
import { webhookHeaders } from './signing';
import { idleUntilDue, Worker } from './worker';

/** The envelope every receiver gets (CONTRACT §7). */
export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** An event as the outbox keeps it: the envelope and the agent it belongs to. */
export interface OutboxRecord extends EventEnvelope {
  agentId: string | null;
}

/** CONTRACT §7: about 5 s, 1 min, 5 min, 30 min, 2 h and 6 h between attempts; then the delivery fails. */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
/** Sends one instance has in flight at most: sockets and memory stay bounded however many are due. */
export const MAX_IN_FLIGHT = 64;
/**
 * Sends of one owner in flight at most, across every instance (counted from the unexpired claims): small enough that
 * owners whose receivers never answer leave most slots to everyone else, large enough for a busy owner with fast
 * receivers (8 concurrent 100 ms answers are 80 deliveries a second).
 */
export const OWNER_IN_FLIGHT = 8;

/**
 * Relays committed events to live streams: right after commit, and from the table for events that
 * were committed but never relayed (the process died first). `route` publishes one event wherever it
 * belongs; the published marks are written in batches, off the request path.
 */
export class OutboxRelay {
  private toRelay: OutboxRecord[] = [];
  private relayTimer?: NodeJS.Immediate;
  /** Events relayed and not yet marked: their queue keys, time and id (outbox_unpublished). */
  private pendingMarks: { at: string[]; ids: string[] } = { at: [], ids: [] };
  private markTimer?: NodeJS.Timeout;
  private marking?: Promise<void>;

  constructor(
    private readonly sql: SqlRunner,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly route: (event: OutboxRecord) => void,
    private readonly onDeliveries: () => void = () => {},
  ) {}

  /**
   * After a transaction that wrote these events, and `deliveries` deliveries of them, has committed: the
   * dispatcher is woken only when there is something to deliver (its poll finds the rest).
   */
  committed(events: OutboxRecord[], deliveries: number): void {
    if (!events.length) return;
    // Relayed on the next turn of the event loop, after the request that committed them has been answered:
    // a publish to Redis is a socket write, and the caller should not wait on it. Events committed in one
    // turn go out together, in order (and before their published marks are written: see flushMarks).
    this.toRelay.push(...events);
    this.relayTimer ??= setImmediate(() => this.relayNow());
    for (const e of events) {
      this.pendingMarks.at.push(e.created_at);
      this.pendingMarks.ids.push(e.id);
    }
    this.markTimer ??= setTimeout(() => void this.flushMarks(), 100);
    if (deliveries > 0) this.onDeliveries();
  }

  /** Publishes the events committed since the last turn. */
  private relayNow(): void {
    clearImmediate(this.relayTimer);
    this.relayTimer = undefined;
    const events = this.toRelay;
    this.toRelay = [];
    for (const event of events) this.publish(event);
  }

  private publish(event: OutboxRecord) {
    try {
      this.route(event);
    } catch (err) {
      this.log.warn({ err, event_id: event.id }, 'publishing an event failed');
    }
  }

  /** Writes the published marks collected so far. */
  async flushMarks(): Promise<void> {
    // An event is never marked published before it was.
    this.relayNow();
    clearTimeout(this.markTimer);
    this.markTimer = undefined;
    await this.marking;
    const marks = this.pendingMarks;
    this.pendingMarks = { at: [], ids: [] };
    if (!marks.ids.length) return;
    this.marking = this.sql
      // An event is marked by deleting its queue row: the event's own row is not written again. Not a named
      // statement: the queue's size swings (and without a vacuum its dead rows stay), so each batch is
      // planned for the table as it is.
      .query(MARK_PUBLISHED, [earliest(marks.at), latest(marks.at), marks.ids])
      .then(
        () => undefined,
        (err: Error) => {
          // Left unmarked, they are relayed again by recover(): a duplicate on a live stream, never a loss.
          this.log.warn({ err: err.message }, 'marking events published failed');
        },
      );
    await this.marking;
  }

  /** Relays events committed more than `graceMs` ago and never relayed; returns how many. */
  async recover(graceMs = 5_000, batch = 500): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - graceMs);
    const rows = await this.sql.query<{ id: string; type: string; agent_id: string | null; data: Record<string, unknown>; created_at: Date }>(RECOVER, [
      cutoff,
      batch,
    ]);
    rows.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime());
    for (const r of rows) {
      this.publish({ id: r.id, type: r.type, agentId: r.agent_id, data: r.data, created_at: new Date(r.created_at).toISOString() });
    }
    return rows.length;
  }
}

/**
 * Deletes the queue rows of relayed events: one range of the queue's key (a batch's first and last event time), its ids
 * picked out of it. Its commit does not wait for the WAL's flush: a mark lost in a crash only relays its events again
 * (recover), and the records' commits need not queue behind a flush of its own; theirs flush it.
 */
const MARK_PUBLISHED = `WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
  DELETE FROM outbox_unpublished WHERE created_at BETWEEN $1::timestamptz AND $2::timestamptz AND event_id = ANY($3::text[]) AND EXISTS (SELECT FROM async)`;

// ISO-8601 times of one format compare as strings.
const earliest = (times: string[]) => times.reduce((a, b) => (b < a ? b : a));
const latest = (times: string[]) => times.reduce((a, b) => (b > a ? b : a));

/**
 * Takes the oldest events never relayed (their queue rows, claimed so that two instances recovering at once
 * take different ones) and answers them. A queue row whose event is gone (nothing here deletes events, but
 * a hand might) leaves the queue too.
 */
const RECOVER = `WITH due AS (
    SELECT created_at, event_id FROM outbox_unpublished WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
  ), taken AS (
    DELETE FROM outbox_unpublished u USING due WHERE u.created_at = due.created_at AND u.event_id = due.event_id
  )
  SELECT o.id, o.type, o.agent_id, o.data, o.created_at FROM due JOIN outbox_events o ON o.id = due.event_id`;

/**
 * Whose a delivery is, for the share of sends in flight: the agent of its event, else the external agent a
 * delegation goes to, else the ticket endpoint a forward goes to.
 */
const OWNER = 'COALESCE(e.agent_id, d.external_agent_id, d.ticket_endpoint_id)';

/**
 * Claims due deliveries: at most $3 (the room in flight), of each owner at most $4 in flight on every instance, round
 * robin across owners, by priority then age. The locking level repeats the due conditions for PostgreSQL to re-check
 * against rows claimed meanwhile; `left_behind` says whether due deliveries were left (docs/execution.md, The outbox).
 */
const CLAIM = `
  WITH inflight AS (
    SELECT ${OWNER} AS owner, count(*) AS n
    FROM deliveries d JOIN outbox_events e ON e.id = d.event_id
    WHERE d.status = 'sending' AND d.next_attempt_at > $1
    GROUP BY 1
  ), due AS (
    SELECT d.id, d.priority, d.next_attempt_at, COALESCE(i.n, 0) + row_number() OVER (PARTITION BY ${OWNER} ORDER BY d.priority DESC, d.next_attempt_at, d.id) AS place
    FROM deliveries d JOIN outbox_events e ON e.id = d.event_id LEFT JOIN inflight i ON i.owner IS NOT DISTINCT FROM ${OWNER}
    WHERE d.status IN ('pending', 'sending') AND d.next_attempt_at <= $1
  ), picked AS (
    SELECT d.id FROM deliveries d JOIN due ON due.id = d.id
    WHERE due.place <= $4 AND d.status IN ('pending', 'sending') AND d.next_attempt_at <= $1
    ORDER BY due.place, due.priority DESC, due.next_attempt_at, d.id LIMIT $3
    FOR UPDATE OF d SKIP LOCKED
  ), claimed AS (
    UPDATE deliveries d SET status = 'sending', attempts = d.attempts + 1, next_attempt_at = $2, last_attempt_at = $1
    FROM picked WHERE d.id = picked.id
    RETURNING d.id, d.event_id, d.kind, d.attempts, d.url, d.webhook_id, d.ticket_endpoint_id, d.subscription_id, d.uto_subscription_id, d.external_agent_id
  )
  SELECT (SELECT count(*) FROM due) > (SELECT count(*) FROM claimed) AS left_behind,
    c.id, c.event_id, c.kind, c.attempts, c.url, c.webhook_id, w.url AS webhook_url, w.secret AS webhook_secret, w.active AS webhook_active,
    c.ticket_endpoint_id AS endpoint_id, t.url AS endpoint_url, t.secret AS endpoint_secret,
    c.subscription_id, s.secret AS subscription_secret, c.uto_subscription_id, u.secret AS uto_subscription_secret,
    c.external_agent_id, x.secret AS external_agent_secret, e.type, e.data, e.created_at
  FROM (SELECT 1) AS one LEFT JOIN (
    claimed c JOIN outbox_events e ON e.id = c.event_id
    LEFT JOIN webhooks w ON w.id = c.webhook_id LEFT JOIN ticket_endpoints t ON t.id = c.ticket_endpoint_id
    LEFT JOIN capability_subscriptions s ON s.id = c.subscription_id LEFT JOIN uto_subscriptions u ON u.id = c.uto_subscription_id
    LEFT JOIN external_agents x ON x.id = c.external_agent_id
  ) ON true`;

/** Where a claimed delivery goes; null cancels it (the receiver was deleted or turned off). */
export interface DeliveryTarget {
  url: string;
  /** The receiver's `whsec_…` secret: adds the HMAC `v1` signature. */
  secret?: string;
}

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  kind: string;
  attempts: number;
  target: DeliveryTarget | null;
  /** The receiver row (webhook or ticket endpoint), for onGone. */
  receiverId: string | null;
  envelope: EventEnvelope;
}

export interface DispatcherOptions {
  sql: SqlRunner;
  clock: Clock;
  log: Logger;
  outbound: OutboundClient;
  /** The marketplace's Ed25519 key: every delivery carries its `v1a` signature. */
  signingKey: () => KeyObject;
  retryScheduleMs?: number[];
  timeoutMs?: number;
  /** Sends this instance has in flight at most (MAX_IN_FLIGHT). */
  maxInFlight?: number;
  /** Sends of one owner in flight at most, across instances (OWNER_IN_FLIGHT). */
  ownerInFlight?: number;
  /** How often to look for due deliveries when nothing wakes the dispatcher. */
  pollMs?: number;
  /** A claim lapses after this, should the instance die mid-send. */
  leaseMs?: number;
  /** A receiver answered 410 Gone: turn it off. */
  onGone?: (delivery: ClaimedDelivery) => Promise<void>;
  /**
   * Deliveries of these kinds hand the receiver's 2xx answer to `onAnswer` (a delegation's answer comes
   * back as the body of its delivery); a failing handler is logged, and the delivery stays delivered.
   */
  answerKinds?: ReadonlySet<string>;
  onAnswer?: (delivery: ClaimedDelivery, answer: { status: number; body: string }) => Promise<void>;
}

/**
 * Sends due deliveries. `wake()` after a commit starts a claim at once; otherwise it polls. A claim takes as many as
 * there is room for in flight, fairly across owners, and starts each send at once; a send that ends frees its slot and
 * wakes another claim when deliveries were left waiting. Claims never wait for sends.
 */
export class Dispatcher {
  private readonly schedule: number[];
  private readonly worker: Worker;
  private readonly maxInFlight: number;
  private readonly ownerInFlight: number;
  /** Sends under way on this instance. */
  private readonly sending = new Set<Promise<unknown>>();
  /** The last claim left due deliveries behind (no room, or their owners' share was taken): an ending send claims again. */
  private leftBehind = false;

  constructor(private readonly opts: DispatcherOptions) {
    this.schedule = opts.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.maxInFlight = opts.maxInFlight ?? MAX_IN_FLIGHT;
    this.ownerInFlight = opts.ownerInFlight ?? OWNER_IN_FLIGHT;
    this.worker = new Worker({
      name: 'dispatcher',
      round: () => this.runOnce(),
      log: opts.log,
      pollMs: opts.pollMs ?? 1_000,
      // A claim that filled every slot is followed by another, which finds no room and reads nothing.
      fullBatch: this.maxInFlight,
      // Every delivery is made by a commit that wakes the dispatcher (or by its own sends, which wake it when they put one back).
      ...idleUntilDue(opts.sql, opts.clock, () => this.nextDue()),
    });
  }

  /** The most attempts a delivery gets: the first, then one per step of the schedule. */
  get maxAttempts(): number {
    return this.schedule.length + 1;
  }

  start(): void {
    this.worker.start();
  }

  /** Starts a claim now, or another right after the one in progress. */
  wake(): void {
    this.worker.wake();
  }

  /** One claim: takes what is due, as far as there is room, and starts sending it; resolves with the number claimed. */
  async runOnce(): Promise<number> {
    const room = this.maxInFlight - this.sending.size;
    if (room <= 0) {
      this.leftBehind = true;
      return 0;
    }
    const { claimed, leftBehind } = await this.claim(room);
    this.leftBehind = leftBehind;
    for (const d of claimed) this.track(d);
    return claimed.length;
  }

  /**
   * Sends one claimed delivery on its own. When it ends, a claim follows if the last one left deliveries
   * behind, or if this one was put back for a retry (the worker may be idle until a time it read before).
   */
  private track(d: ClaimedDelivery): void {
    const send = this.send(d)
      .catch((err: Error) => {
        // Recording the outcome failed (the database): the claim's lease lapses and the delivery is sent again.
        this.opts.log.warn({ err: err.message, delivery_id: d.id }, 'delivery failed unexpectedly');
        return false;
      })
      .then((retried) => {
        this.sending.delete(send);
        if (this.leftBehind || retried) this.worker.wake();
      });
    this.sending.add(send);
  }

  /**
   * Waits until no claim is in progress, a round a wake asked for included: what was due and had room is
   * claimed and its send begun (tests use it to see what the dispatcher decided, sends still held).
   */
  claimsSettled(): Promise<void> {
    return this.worker.settled();
  }

  /** Waits until no claim is in progress and no send is under way (tests use it to see deliveries settle). */
  async settled(): Promise<void> {
    for (;;) {
      await this.worker.settled();
      if (!this.sending.size) return;
      await Promise.all(this.sending);
    }
  }

  /** Stops claiming, and waits for the sends under way (each bounded by the send timeout). */
  async stop(): Promise<void> {
    await this.worker.stop();
    await Promise.all(this.sending);
  }

  /** When the earliest delivery waiting (or a lapsed claim) falls due; null when none waits. */
  private async nextDue(): Promise<number | null> {
    const [row] = await this.opts.sql.query<{ due: Date | null }>(
      `SELECT min(next_attempt_at) AS due FROM deliveries WHERE status IN ('pending', 'sending')`,
      [],
    );
    return row?.due ? new Date(row.due).getTime() : null;
  }

  private async claim(room: number): Promise<{ claimed: ClaimedDelivery[]; leftBehind: boolean }> {
    const { sql, clock } = this.opts;
    const now = clock.now();
    const leaseEnds = new Date(now.getTime() + (this.opts.leaseMs ?? 60_000));
    const rows = await sql.query<{
      left_behind: boolean;
      id: string;
      event_id: string;
      kind: string;
      attempts: number;
      url: string | null;
      webhook_id: string | null;
      webhook_url: string | null;
      webhook_secret: string | null;
      webhook_active: boolean | null;
      endpoint_id: string | null;
      endpoint_url: string | null;
      endpoint_secret: string | null;
      subscription_id: string | null;
      subscription_secret: string | null;
      uto_subscription_id: string | null;
      uto_subscription_secret: string | null;
      external_agent_id: string | null;
      external_agent_secret: string | null;
      type: string;
      data: Record<string, unknown>;
      created_at: Date;
    }>(CLAIM, [now, leaseEnds, room, this.ownerInFlight]);
    const claimed = rows
      .filter((r) => r.id !== null)
      .map((r) => {
        let target: DeliveryTarget | null;
        if (r.webhook_id) target = r.webhook_active && r.webhook_url ? { url: r.webhook_url, secret: r.webhook_secret ?? undefined } : null;
        else if (r.endpoint_id) target = r.endpoint_url ? { url: r.endpoint_url, secret: r.endpoint_secret ?? undefined } : null;
        else if (r.subscription_id) target = r.url ? { url: r.url, secret: r.subscription_secret ?? undefined } : null;
        else if (r.uto_subscription_id) target = r.url ? { url: r.url, secret: r.uto_subscription_secret ?? undefined } : null;
        else if (r.external_agent_id) target = r.url && r.external_agent_secret ? { url: r.url, secret: r.external_agent_secret } : null;
        else target = r.url ? { url: r.url } : null;
        return {
          id: r.id,
          eventId: r.event_id,
          kind: r.kind,
          attempts: r.attempts,
          target,
          receiverId: r.webhook_id ?? r.endpoint_id,
          envelope: { id: r.event_id, type: r.type, created_at: new Date(r.created_at).toISOString(), data: r.data },
        };
      });
    return { claimed, leftBehind: rows[0]?.left_behind ?? false };
  }

  /** Sends and records the outcome; resolves true when the delivery was put back for a later attempt. */
  private async send(d: ClaimedDelivery): Promise<boolean> {
    const { sql, clock, outbound, log } = this.opts;
    if (!d.target) {
      await sql.query(`UPDATE deliveries SET status = 'cancelled', last_error = 'the receiver is gone or turned off' WHERE id = $1`, [d.id]);
      return false;
    }
    const body = JSON.stringify(d.envelope);
    const started = clock.now();
    let status: number | null = null;
    let error: string | null = null;
    let latencyMs = 0;
    let answer: { status: number; body: string } | undefined;
    try {
      const headers = webhookHeaders({
        id: d.envelope.id,
        timestampSeconds: Math.floor(started.getTime() / 1000),
        body,
        secret: d.target.secret,
        privateKey: this.opts.signingKey(),
      });
      const res = await outbound.post(d.target.url, { headers, body, timeoutMs: this.opts.timeoutMs ?? 15_000, maxResponseBytes: 64 * 1024 });
      status = res.status;
      latencyMs = Math.round(res.latencyMs);
      if (status < 200 || status > 299) error = `HTTP ${status}`;
      else if (this.opts.answerKinds?.has(d.kind)) answer = { status, body: res.body };
    } catch (err) {
      error = err instanceof OutboundError ? `${err.reason}: ${err.message}` : 'unexpected error';
      if (!(err instanceof OutboundError)) log.warn({ err, delivery_id: d.id }, 'delivery failed unexpectedly');
    }
    const now = clock.now();
    let next: { status: string; nextAttemptAt: Date | null };
    if (!error) next = { status: 'delivered', nextAttemptAt: null };
    else if (status === 410) next = { status: 'failed', nextAttemptAt: null };
    else if (d.attempts >= this.maxAttempts) next = { status: 'failed', nextAttemptAt: null };
    else {
      // ±20% jitter, so receivers that failed together are not retried together.
      const wait = this.schedule[d.attempts - 1] * (0.8 + Math.random() * 0.4);
      next = { status: 'pending', nextAttemptAt: new Date(now.getTime() + wait) };
    }
    await sql.query(
      `WITH attempt AS (
         INSERT INTO delivery_attempts (id, delivery_id, attempt, status_code, error, latency_ms, created_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6)
       )
       UPDATE deliveries SET status = $7, next_attempt_at = COALESCE($8, next_attempt_at), last_status = $3, last_error = $4,
         delivered_at = CASE WHEN $7 = 'delivered' THEN $6 ELSE delivered_at END
       WHERE id = $1`,
      [d.id, d.attempts, status, error, latencyMs, now, next.status, next.nextAttemptAt],
    );
    if (answer && this.opts.onAnswer)
      await this.opts.onAnswer(d, answer).catch((err: Error) => log.warn({ err: err.message, delivery_id: d.id }, 'handling a receiver answer failed'));
    if (status === 410 && this.opts.onGone)
      await this.opts.onGone(d).catch((err: Error) => log.warn({ err: err.message }, 'turning off a gone receiver failed'));
    return next.status === 'pending';
  }
}
