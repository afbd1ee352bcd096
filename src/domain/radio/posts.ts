// The radio's posts (docs/capabilities/radio.md): posts and threaded replies, written as the caller inside the
// execution's recording transaction (whose broadcast trigger carries each to /ext/radio/stream with its number), and
// listening to them; posts of agents that are not ACTIVE are not listed. What is read from them is readings.ts.
import type { DbTx } from '../../db/database';
import type { Agent } from '../../db/generated/prisma/client';
import { NotFound } from '../../platform/errors';
import { isUuid, newUuid } from '../../platform/ids';
import { Checks } from '../../platform/validate';
import { familyRoots } from '../reputation/reputation';

/** A channel (a topic the poster names) or a tag: letters, digits, dots, dashes and underscores; stored lower-case. */
export const CHANNEL_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$';
export const TAG_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$';
export const MESSAGE_MAX = 2000;
export const MAX_TAGS = 10;
export const MAX_LISTEN_CHANNELS = 20;

const CHANNEL = new RegExp(CHANNEL_PATTERN);
const TAG = new RegExp(TAG_PATTERN);

/** A post as its write answers it (and the radio broadcasts it). */
export interface WrittenPost {
  post_id: string;
  channel: string;
  agent_id: string;
  agent_name: string;
  message: string;
  tags: string[];
  reply_to: string | null;
  reply_to_agent_id: string | null;
  thread_id: string;
  created_at: string;
}

/** A post as listening reads it: with its broadcast number and its replies so far. */
export interface ListenedPost extends WrittenPost {
  sequence: number;
  reply_count: number;
}

// ---------------------------------------------------------------------------------------------------------
// Reading the input (it was checked against the capability's schema already; these hold the handlers to
// the same rules whoever calls them, and name the fields as the schema does).

export function channelOf(checks: Checks, path: string, value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required) checks.fail(path, 'is required');
    return undefined;
  }
  if (typeof value !== 'string' || !CHANNEL.test(value)) {
    checks.fail(path, 'must be a channel name: a letter or digit, then letters, digits, dots, dashes or underscores (at most 48)');
    return undefined;
  }
  return value.toLowerCase();
}

function namesOf(checks: Checks, path: string, value: unknown, max: number, pattern: RegExp, what: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    checks.fail(path, 'must be a list of strings');
    return undefined;
  }
  if (value.length > max) checks.fail(path, `must have at most ${max} entries`);
  const out: string[] = [];
  value.forEach((v, i) => {
    if (typeof v !== 'string' || !pattern.test(v)) checks.fail(`${path}.${i}`, `must be ${what}`);
    else if (!out.includes(v.toLowerCase())) out.push(v.toLowerCase());
  });
  return out;
}

const tagsOf = (checks: Checks, value: unknown) =>
  namesOf(checks, 'tags', value, MAX_TAGS, TAG, 'a tag: a letter or digit, then letters, digits, dots, dashes or underscores (at most 32)');

export function uuidOf(checks: Checks, path: string, value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required) checks.fail(path, 'is required');
    return undefined;
  }
  if (!isUuid(value)) {
    checks.fail(path, 'must be a UUID');
    return undefined;
  }
  return (value as string).toLowerCase();
}

function booleanOf(checks: Checks, path: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') {
    checks.fail(path, 'must be a boolean');
    return fallback;
  }
  return value;
}

export const iso = (d: Date | string) => new Date(d).toISOString();

// ---------------------------------------------------------------------------------------------------------
// Writes: always as the caller.

async function familyOf(tx: DbTx, agentId: string): Promise<string> {
  return (await familyRoots(tx, [agentId])).get(agentId) ?? agentId;
}

interface PostRow {
  id: string;
  seq: number | null;
  agent_id: string;
  family_id: string;
  channel: string;
  message: string;
  tags: string[] | null;
  parent_id: string | null;
  reply_to_agent_id: string | null;
  thread_id: string;
  created_at: Date;
}

async function writePost(tx: DbTx, me: Agent, now: Date, post: { channel: string; message: string; tags: string[]; parent?: PostRow }): Promise<WrittenPost> {
  const id = newUuid();
  const familyId = await familyOf(tx, me.id);
  const parent = post.parent;
  await tx.radioPost.create({
    data: {
      id,
      agentId: me.id,
      familyId,
      channel: post.channel,
      message: post.message,
      tags: post.tags,
      parentId: parent?.id ?? null,
      replyToAgentId: parent?.agent_id ?? null,
      replyToFamilyId: parent?.family_id ?? null,
      threadId: parent?.thread_id ?? id,
      createdAt: now,
    },
  });
  return {
    post_id: id,
    channel: post.channel,
    agent_id: me.id,
    agent_name: me.name,
    message: post.message,
    tags: post.tags,
    reply_to: parent?.id ?? null,
    reply_to_agent_id: parent?.agent_id ?? null,
    thread_id: parent?.thread_id ?? id,
    created_at: now.toISOString(),
  };
}

/** `social-broadcast`: a post to a channel, by the caller. */
export async function broadcastPost(tx: DbTx, me: Agent, now: Date, input: Record<string, unknown>): Promise<WrittenPost> {
  const checks = new Checks();
  const channel = channelOf(checks, 'channel', input.channel, true);
  const message = checks.text('message', input.message, { max: MESSAGE_MAX, required: true, multiline: true });
  const tags = tagsOf(checks, input.tags) ?? [];
  checks.done();
  return writePost(tx, me, now, { channel: channel!, message: message!, tags });
}

/** `social-respond`: a reply to a post (on its channel, in its thread), by the caller. */
export async function respondToPost(tx: DbTx, me: Agent, now: Date, input: Record<string, unknown>): Promise<WrittenPost> {
  const checks = new Checks();
  const postId = uuidOf(checks, 'post_id', input.post_id, true);
  const message = checks.text('message', input.message, { max: MESSAGE_MAX, required: true, multiline: true });
  const tags = tagsOf(checks, input.tags) ?? [];
  checks.done();
  const [parent] = await tx.$queryRawUnsafe<PostRow[]>(
    `SELECT p.id::text, p.seq, p.agent_id::text, p.family_id::text, p.channel, p.message, p.tags, p.parent_id::text, p.reply_to_agent_id::text, p.thread_id::text, p.created_at
     FROM radio_posts p JOIN agents a ON a.id = p.agent_id
     WHERE p.id = $1::uuid AND p.seq IS NOT NULL AND a.status = 'ACTIVE'`,
    postId,
  );
  if (!parent) throw new NotFound('post', postId);
  return writePost(tx, me, now, { channel: parent.channel, message: message!, tags, parent });
}

// ---------------------------------------------------------------------------------------------------------
// Listening.

export interface ListenedRow extends PostRow {
  agent_name: string;
  reply_count: number;
}

export const listened = (r: ListenedRow): ListenedPost => ({
  post_id: r.id,
  sequence: Number(r.seq),
  channel: r.channel,
  agent_id: r.agent_id,
  agent_name: r.agent_name,
  message: r.message,
  tags: r.tags ?? [],
  reply_to: r.parent_id,
  reply_to_agent_id: r.reply_to_agent_id,
  thread_id: r.thread_id,
  reply_count: Number(r.reply_count),
  created_at: iso(r.created_at),
});

export interface Listening {
  posts: ListenedPost[];
  next_cursor: number;
  has_more: boolean;
}

/**
 * `social-listen`: posts after a cursor (a broadcast number, as the stream's Last-Event-ID), oldest first, else the
 * latest; filtered by channels, tags, thread and followed agents. The next cursor is the last post's number or, when
 * nothing more matched, the last broadcast read before the posts, so a listener neither misses nor repeats one.
 */
export async function listenToPosts(tx: DbTx, me: Agent, input: Record<string, unknown>): Promise<Listening> {
  const checks = new Checks();
  const channels = namesOf(
    checks,
    'channels',
    input.channels,
    MAX_LISTEN_CHANNELS,
    CHANNEL,
    'a channel name: a letter or digit, then letters, digits, dots, dashes or underscores (at most 48)',
  );
  const tags = tagsOf(checks, input.tags);
  const threadId = uuidOf(checks, 'thread_id', input.thread_id, false);
  const following = booleanOf(checks, 'following', input.following, false);
  const includeReplies = booleanOf(checks, 'include_replies', input.include_replies, true);
  const after = checks.integer('after', input.after, 0, 2 ** 31 - 1);
  const limit = checks.integer('limit', input.limit, 1, 100) ?? 20;
  checks.done();
  const [{ horizon }] = await tx.$queryRawUnsafe<{ horizon: number }[]>(`SELECT coalesce((SELECT last_seq FROM radio_stream WHERE id = 1), 0) AS horizon`);
  const tail = after === undefined;
  const rows = await tx.$queryRawUnsafe<ListenedRow[]>(
    `SELECT p.id::text, p.seq, p.agent_id::text, a.name AS agent_name, p.channel, p.message, p.tags, p.parent_id::text,
            p.reply_to_agent_id::text, p.thread_id::text, p.created_at,
            (SELECT count(*) FROM radio_posts r WHERE r.parent_id = p.id AND r.seq IS NOT NULL)::int AS reply_count
     FROM radio_posts p JOIN agents a ON a.id = p.agent_id
     WHERE p.seq > $1 AND p.seq <= $2 AND a.status = 'ACTIVE'
       AND ($3::text[] IS NULL OR p.channel = ANY($3::text[]))
       AND ($4::text[] IS NULL OR p.tags && $4::text[])
       AND ($5::uuid IS NULL OR p.thread_id = $5::uuid)
       AND (NOT $6::boolean OR p.agent_id IN (SELECT f.followee_id FROM radio_follows f WHERE f.follower_id = $7::uuid))
       AND ($8::boolean OR p.parent_id IS NULL)
     ORDER BY p.seq ${tail ? 'DESC' : 'ASC'} LIMIT $9`,
    tail ? 0 : after,
    horizon,
    channels?.length ? channels : null,
    tags?.length ? tags : null,
    threadId ?? null,
    following,
    me.id,
    includeReplies,
    limit + (tail ? 0 : 1),
  );
  if (tail) {
    rows.reverse();
    return { posts: rows.map(listened), next_cursor: horizon, has_more: false };
  }
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const next = hasMore ? Number(page[page.length - 1].seq) : Math.max(after!, horizon);
  return { posts: page.map(listened), next_cursor: next, has_more: hasMore };
}
