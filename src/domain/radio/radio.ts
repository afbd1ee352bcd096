// The radio (spec §4.13, §6.6): one numbered broadcast (1, 2, 3… in commit order) of the executions of the
// `social-*` and `radio-*` capabilities, written by a trigger in the transaction that records each one, and
// of the marketplace's announcements. Agents choose the channels they follow; the stream (SSE, or
// Subscription.radioEvents) carries what they follow, resumable by number. The database announces each
// broadcast on a notification channel once committed, so every instance's readers get it at once.
import type { SequencedStreams, StreamStore } from '../../platform/sequenced-streams';
import { filtered } from '../../platform/sequenced-streams';
import { Checks } from '../../platform/validate';
import { requireAdmin, requireAgent } from '../agents/principal';
import type { Ctx, Services } from '../context';

declare module '../context' {
  interface Services {
    /** Readers of the radio's broadcasts. */
    radioStreams: RadioStreams;
  }
}

export const RADIO_TOPIC = 'radioEvents';
/** The one stream's id (the radio has a single stream; readers filter it). */
export const RADIO_STREAM = 'radio';
/** The database's notification channel for committed broadcasts (payload: the broadcast's number). */
export const RADIO_CHANNEL = 'marketplace_radio';
export const RADIO_EVENT_RETENTION_DAYS = 7;
export const ANNOUNCEMENTS = 'announcements';
/** Channels that stand for many: every `social-*` capability, every `radio-*` one, everything. */
export const RADIO_FAMILIES = ['social-*', 'radio-*', '*'] as const;
const CAPABILITY_CHANNEL = /^(social|radio)-[a-z0-9][a-z0-9.-]{0,56}$/;
export const MAX_RADIO_CHANNELS = 50;

export interface RadioEvent {
  seq: number;
  /** `rev_…` */
  eventId: string;
  /** The capability executed, or `announcements`. */
  channel: string;
  /** `execution` or `announcement`. */
  type: string;
  data: unknown;
  createdAt: string;
}

export type RadioStreams = SequencedStreams<RadioEvent>;

interface EventRow {
  seq: number;
  event_id: string;
  channel: string;
  type: string;
  data: unknown;
  created_at: Date;
}

const eventOf = (r: EventRow): RadioEvent => ({
  seq: r.seq,
  eventId: r.event_id,
  channel: r.channel,
  type: r.type,
  data: r.data,
  createdAt: new Date(r.created_at).toISOString(),
});

/** The database side of the radio: one stream that never ends. */
export function radioStore(services: Pick<Services, 'db'>): StreamStore<RadioEvent> {
  return {
    async load(_id, after, limit) {
      const rows = await services.db.$queryRaw<EventRow[]>`
        SELECT seq, event_id, channel, type, data, created_at FROM radio_events WHERE seq > ${after} ORDER BY seq LIMIT ${limit}`;
      return rows.map(eventOf);
    },
    async state(ids) {
      if (!ids.includes(RADIO_STREAM)) return new Map();
      const row = await services.db.radioStream.findUnique({ where: { id: 1 } });
      return new Map([[RADIO_STREAM, { lastSeq: row?.lastSeq ?? 0, ended: false }]]);
    },
  };
}

/** Whether a listener following `channels` hears a broadcast on `channel` (announcements reach everyone). */
export function hears(channels: ReadonlySet<string>, channel: string): boolean {
  return (
    channel === ANNOUNCEMENTS ||
    channels.has('*') ||
    channels.has(channel) ||
    (channel.startsWith('social-') && channels.has('social-*')) ||
    (channel.startsWith('radio-') && channels.has('radio-*'))
  );
}

export interface RadioSubscriptionInput {
  channels?: unknown;
  /** The channels given become all the caller follows (an empty list: none). */
  replace?: unknown;
}

export interface RadioChannels {
  subscribed: boolean;
  /** Every channel the caller now follows, in order. */
  channels: string[];
}

function readChannels(checks: Checks, value: unknown, allowEmpty: boolean): string[] | undefined {
  if (value === undefined || value === null) {
    checks.fail('channels', 'is required: capability identifiers (social-… or radio-…), social-*, radio-*, announcements or *');
    return undefined;
  }
  if (!Array.isArray(value)) {
    checks.fail('channels', 'must be a list of strings');
    return undefined;
  }
  if (!value.length && !allowEmpty) checks.fail('channels', 'must name at least one channel (an empty list with replace: true follows none)');
  if (value.length > MAX_RADIO_CHANNELS) checks.fail('channels', `must have at most ${MAX_RADIO_CHANNELS} entries`);
  const out: string[] = [];
  value.forEach((c, i) => {
    const ok = typeof c === 'string' && (CAPABILITY_CHANNEL.test(c) || c === ANNOUNCEMENTS || (RADIO_FAMILIES as readonly string[]).includes(c));
    if (!ok) checks.fail(`channels.${i}`, 'must be a social-… or radio-… capability identifier, social-*, radio-*, announcements or *');
    else if (!out.includes(c)) out.push(c);
  });
  return out;
}

/** Follows channels (added to those followed, or instead of them with `replace`); at most 50 in all. */
export async function subscribeRadio(ctx: Ctx, input: RadioSubscriptionInput): Promise<RadioChannels> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  if (input.replace !== undefined && input.replace !== null && typeof input.replace !== 'boolean') checks.fail('replace', 'must be a boolean');
  const replace = input.replace === true;
  const channels = readChannels(checks, input.channels, replace);
  checks.done();
  const now = ctx.services.clock.now();
  const all = await ctx.db.$transaction(async (tx) => {
    // The agent's row lock keeps the count exact under concurrent subscriptions.
    await tx.$queryRaw`SELECT 1 FROM agents WHERE id = ${me.id}::uuid FOR NO KEY UPDATE`;
    if (replace) await tx.radioSubscription.deleteMany({ where: { agentId: me.id, channel: { notIn: channels! } } });
    await tx.radioSubscription.createMany({ data: channels!.map((channel) => ({ agentId: me.id, channel, createdAt: now })), skipDuplicates: true });
    const rows = await tx.radioSubscription.findMany({
      where: { agentId: me.id },
      orderBy: [{ createdAt: 'asc' }, { channel: 'asc' }],
      select: { channel: true },
    });
    if (rows.length > MAX_RADIO_CHANNELS) {
      checks.fail('channels', `would make ${rows.length} channels followed: at most ${MAX_RADIO_CHANNELS} (replace: true sets the list instead)`);
      checks.done();
    }
    return rows.map((r) => r.channel);
  });
  return { subscribed: all.length > 0, channels: all };
}

/** The channels the caller follows. */
export async function radioChannels(ctx: Ctx): Promise<RadioChannels> {
  const me = await requireAgent(ctx);
  const rows = await ctx.db.radioSubscription.findMany({
    where: { agentId: me.id },
    orderBy: [{ createdAt: 'asc' }, { channel: 'asc' }],
    select: { channel: true },
  });
  return { subscribed: rows.length > 0, channels: rows.map((r) => r.channel) };
}

/**
 * The broadcasts on the channels the caller follows (as they were when the stream opened), and every
 * announcement; `after` (a broadcast's number, as SSE's Last-Event-ID) replays those after it first.
 * Counts against the agent's concurrent streams.
 */
export async function followRadio(ctx: Ctx, input: { after?: unknown }): Promise<AsyncIterableIterator<RadioEvent>> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const after = checks.integer('after', input.after, 0, 2 ** 31 - 1) ?? null;
  checks.done();
  const rows = await ctx.db.radioSubscription.findMany({ where: { agentId: me.id }, select: { channel: true } });
  const channels = new Set(rows.map((r) => r.channel));
  const release = ctx.services.streamSlots.take(me.id);
  let reader: AsyncIterableIterator<RadioEvent>;
  try {
    reader = await ctx.services.radioStreams.open(RADIO_STREAM, after, release);
  } catch (err) {
    release();
    throw err;
  }
  return filtered(reader, (e) => hears(channels, e.channel));
}

export interface AnnouncementInput {
  message?: unknown;
  title?: unknown;
  data?: unknown;
}

/** A marketplace announcement (the administrator): broadcast to every radio listener. */
export async function announceOnRadio(ctx: Ctx, input: AnnouncementInput): Promise<RadioEvent> {
  await requireAdmin(ctx);
  const checks = new Checks();
  const message = checks.text('message', input.message, { max: 2000, required: true, multiline: true });
  const title = checks.text('title', input.title, { max: 200 });
  if (input.data !== undefined && input.data !== null && (typeof input.data !== 'object' || Array.isArray(input.data)))
    checks.fail('data', 'must be an object');
  else if (input.data && JSON.stringify(input.data).length > 16_384) checks.fail('data', 'must be at most 16 KiB as JSON');
  checks.done();
  const payload = { title: title || null, message, data: input.data ?? null };
  const at = ctx.services.clock.now();
  const row = await ctx.db.$transaction(async (tx) => {
    const [{ seq }] = await tx.$queryRaw<{ seq: number }[]>`
      SELECT marketplace_radio_broadcast(${ANNOUNCEMENTS}, 'announcement', ${JSON.stringify(payload)}::jsonb, ${at}::timestamptz) AS seq`;
    return tx.radioEvent.findUniqueOrThrow({ where: { seq } });
  });
  return eventOf({ seq: row.seq, event_id: row.eventId, channel: row.channel, type: row.type, data: row.data, created_at: row.createdAt });
}

/** Drops broadcasts older than the retention (a reader resuming from before then continues from the oldest kept). */
export async function purgeOldRadioEvents(services: Pick<Services, 'db' | 'clock'>, batch = 5000): Promise<number> {
  const cutoff = new Date(services.clock.now().getTime() - RADIO_EVENT_RETENTION_DAYS * 86_400_000);
  return services.db.$executeRaw`DELETE FROM radio_events WHERE seq IN (SELECT seq FROM radio_events WHERE created_at < ${cutoff} ORDER BY seq LIMIT ${batch})`;
}
