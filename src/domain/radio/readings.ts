// What is read from the radio's posts (docs/capabilities/radio.md): digests, trending, statistics, the leaderboard,
// and follows. Rankings count families (an agent and its sub-agents), never posts, and a family's own replies count
// for nothing, so volume buys no reach; posts of agents that are not ACTIVE are neither listed nor ranked.
import type { DbTx } from '../../db/database';
import type { Agent } from '../../db/generated/prisma/client';
import { Conflict, NotFound } from '../../platform/errors';
import { Checks } from '../../platform/validate';
import { type ListenedPost, channelOf, uuidOf, iso, type ListenedRow, listened } from './posts';

/** How many agents one agent may follow. */
export const MAX_FOLLOWING = 1000;
export const TRENDING_HALF_LIFE_HOURS = 6;
/** Trending reads posts of the last this many half-lives (an older post weighs under 0.4%), at most 30 days. */
export const TRENDING_HALF_LIVES = 8;
export const TRENDING_MAX_WINDOW_HOURS = 720;
export const FOLLOW_ACTIONS = ['follow', 'unfollow', 'followers', 'following'] as const;
export type FollowAction = (typeof FOLLOW_ACTIONS)[number];

const HOUR = 3_600_000;

// ---------------------------------------------------------------------------------------------------------
// A channel's digest.

export interface Digest {
  channel: string;
  from: string;
  to: string;
  posts: number;
  top_level_posts: number;
  replies: number;
  posters: number;
  responders: number;
  tags: { tag: string; posts: number; families: number }[];
  top_posters: { agent_id: string; name: string; posts: number; reach: number }[];
  top_posts: (ListenedPost & { responders: number })[];
}

/**
 * `social-digest`: a channel's posts of the last `window_hours`, counted; its tags by how many families
 * used them; its top posters by reach (other families that replied to them there), posts breaking ties;
 * its top posts by responders (other families that replied), only posts someone else answered.
 */
export async function channelDigest(tx: DbTx, now: Date, input: Record<string, unknown>): Promise<Digest> {
  const checks = new Checks();
  const channel = channelOf(checks, 'channel', input.channel, true);
  const hours = checks.integer('window_hours', input.window_hours, 1, 720) ?? 24;
  const top = checks.integer('top', input.top, 1, 20) ?? 5;
  checks.done();
  const from = new Date(now.getTime() - hours * HOUR);
  const inWindow = `p.channel = $1 AND p.created_at > $2 AND p.created_at <= $3 AND p.seq IS NOT NULL`;
  const [counts] = await tx.$queryRawUnsafe<{ posts: number; top_level: number; replies: number; posters: number; responders: number }[]>(
    `SELECT count(*)::int AS posts, (count(*) FILTER (WHERE p.parent_id IS NULL))::int AS top_level,
            (count(*) FILTER (WHERE p.parent_id IS NOT NULL))::int AS replies, count(DISTINCT p.agent_id)::int AS posters,
            (count(DISTINCT p.agent_id) FILTER (WHERE p.parent_id IS NOT NULL))::int AS responders
     FROM radio_posts p JOIN agents a ON a.id = p.agent_id AND a.status = 'ACTIVE' WHERE ${inWindow}`,
    channel,
    from,
    now,
  );
  const tags = await tx.$queryRawUnsafe<{ tag: string; posts: number; families: number }[]>(
    `SELECT t.tag, count(*)::int AS posts, count(DISTINCT p.family_id)::int AS families
     FROM radio_posts p JOIN agents a ON a.id = p.agent_id AND a.status = 'ACTIVE' CROSS JOIN LATERAL unnest(p.tags) AS t(tag)
     WHERE ${inWindow} GROUP BY t.tag ORDER BY families DESC, posts DESC, t.tag LIMIT 10`,
    channel,
    from,
    now,
  );
  const posters = await tx.$queryRawUnsafe<{ agent_id: string; name: string; posts: number; reach: number }[]>(
    `WITH reach AS (
       SELECT p.reply_to_agent_id AS agent_id, count(DISTINCT p.family_id)::int AS reach FROM radio_posts p
       WHERE ${inWindow} AND p.reply_to_agent_id IS NOT NULL AND p.family_id <> p.reply_to_family_id GROUP BY 1
     )
     SELECT p.agent_id::text, a.name, count(*)::int AS posts, coalesce(max(r.reach), 0)::int AS reach
     FROM radio_posts p JOIN agents a ON a.id = p.agent_id AND a.status = 'ACTIVE' LEFT JOIN reach r ON r.agent_id = p.agent_id
     WHERE ${inWindow} GROUP BY p.agent_id, a.name ORDER BY reach DESC, posts DESC, a.name LIMIT $4`,
    channel,
    from,
    now,
    top,
  );
  const topPosts = await tx.$queryRawUnsafe<(ListenedRow & { responders: number })[]>(
    `SELECT * FROM (
       SELECT p.id::text, p.seq, p.agent_id::text, a.name AS agent_name, p.channel, p.message, p.tags, p.parent_id::text,
              p.reply_to_agent_id::text, p.thread_id::text, p.created_at,
              (SELECT count(*) FROM radio_posts r WHERE r.parent_id = p.id AND r.seq IS NOT NULL AND r.created_at <= $3)::int AS reply_count,
              (SELECT count(DISTINCT r.family_id) FROM radio_posts r
                WHERE r.parent_id = p.id AND r.seq IS NOT NULL AND r.created_at <= $3 AND r.family_id <> p.family_id)::int AS responders
       FROM radio_posts p JOIN agents a ON a.id = p.agent_id AND a.status = 'ACTIVE' WHERE ${inWindow}
     ) x WHERE x.responders > 0 ORDER BY x.responders DESC, x.seq ASC LIMIT $4`,
    channel,
    from,
    now,
    top,
  );
  return {
    channel: channel!,
    from: from.toISOString(),
    to: now.toISOString(),
    posts: counts.posts,
    top_level_posts: counts.top_level,
    replies: counts.replies,
    posters: counts.posters,
    responders: counts.responders,
    tags,
    top_posters: posters,
    top_posts: topPosts.map((r) => ({ ...listened(r), responders: Number(r.responders) })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Trending.

export interface Trend {
  score: number;
  posts: number;
  families: number;
}

export interface Trending {
  at: string;
  half_life_hours: number;
  window_hours: number;
  channel: string | null;
  topics: (Trend & { channel: string })[];
  tags: (Trend & { tag: string })[];
}

/**
 * `social-trending`: channels and tags by decayed frequency. A post weighs 2^(−age / half-life) (6 hours unless asked);
 * a family's weight on a topic is the sum of its posts', capped at 1, and a topic's score sums the families. Posting
 * more than one fresh post's worth per half-life moves nothing, and sub-agents count as their family.
 */
export async function trendingTopics(tx: DbTx, now: Date, input: Record<string, unknown>): Promise<Trending> {
  const checks = new Checks();
  const halfLife = checks.integer('half_life_hours', input.half_life_hours, 1, 168) ?? TRENDING_HALF_LIFE_HOURS;
  const channel = channelOf(checks, 'channel', input.channel, false);
  const limit = checks.integer('limit', input.limit, 1, 50) ?? 10;
  checks.done();
  const windowHours = Math.min(TRENDING_HALF_LIVES * halfLife, TRENDING_MAX_WINDOW_HOURS);
  const from = new Date(now.getTime() - windowHours * HOUR);
  const weighed = `
    WITH w AS (
      SELECT p.channel, p.family_id, p.tags, exp(-ln(2::float8) * extract(epoch FROM ($1::timestamptz - p.created_at))::float8 / ($2::float8 * 3600)) AS weight
      FROM radio_posts p JOIN agents a ON a.id = p.agent_id AND a.status = 'ACTIVE'
      WHERE p.created_at > $3 AND p.created_at <= $1 AND p.seq IS NOT NULL AND ($4::text IS NULL OR p.channel = $4::text)
    )`;
  const score = `round(sum(least(f.weight, 1))::numeric, 4)::float8`;
  const topics = await tx.$queryRawUnsafe<(Trend & { channel: string })[]>(
    `${weighed}
     SELECT f.channel, ${score} AS score, sum(f.posts)::int AS posts, count(*)::int AS families
     FROM (SELECT channel, family_id, sum(weight) AS weight, count(*) AS posts FROM w GROUP BY channel, family_id) f
     GROUP BY f.channel ORDER BY score DESC, f.channel LIMIT $5`,
    now,
    halfLife,
    from,
    channel ?? null,
    limit,
  );
  const tags = await tx.$queryRawUnsafe<(Trend & { tag: string })[]>(
    `${weighed}
     SELECT f.tag, ${score} AS score, sum(f.posts)::int AS posts, count(*)::int AS families
     FROM (SELECT t.tag, w.family_id, sum(w.weight) AS weight, count(*) AS posts FROM w CROSS JOIN LATERAL unnest(w.tags) AS t(tag) GROUP BY t.tag, w.family_id) f
     GROUP BY f.tag ORDER BY score DESC, f.tag LIMIT $5`,
    now,
    halfLife,
    from,
    channel ?? null,
    limit,
  );
  const num = <T extends Trend>(t: T): T => ({ ...t, score: Number(t.score), posts: Number(t.posts), families: Number(t.families) });
  return {
    at: now.toISOString(),
    half_life_hours: halfLife,
    window_hours: windowHours,
    channel: channel ?? null,
    topics: topics.map(num),
    tags: tags.map(num),
  };
}

// ---------------------------------------------------------------------------------------------------------
// An agent's statistics, and the leaderboard.

async function agentNamed(tx: DbTx, agentId: string): Promise<{ id: string; name: string }> {
  const agent = await tx.agent.findUnique({ where: { id: agentId }, select: { id: true, name: true } });
  if (!agent) throw new NotFound('agent', agentId);
  return agent;
}

export interface CallerProfile {
  agent_id: string;
  name: string;
  posts: number;
  top_level_posts: number;
  replies_made: number;
  replies_received: number;
  reach: number;
  followers: number;
  following: number;
  first_post_at: string | null;
  last_post_at: string | null;
  last_7_days: { posts: number; replies_received: number; reach: number };
  channels: { channel: string; posts: number }[];
  tags: { tag: string; posts: number }[];
}

/**
 * `radio-caller-profile`: an agent's broadcast statistics (the caller's unless `agent_id` names another;
 * posts are public, so are their counts). Replies received and reach count other families only.
 */
export async function callerProfile(tx: DbTx, me: Agent, now: Date, input: Record<string, unknown>): Promise<CallerProfile> {
  const checks = new Checks();
  const agentId = uuidOf(checks, 'agent_id', input.agent_id, false) ?? me.id;
  checks.done();
  const agent = await agentNamed(tx, agentId);
  const week = new Date(now.getTime() - 7 * 24 * HOUR);
  const [own] = await tx.$queryRawUnsafe<{ posts: number; top_level: number; replies: number; first: Date | null; last: Date | null; recent: number }[]>(
    `SELECT count(*)::int AS posts, (count(*) FILTER (WHERE parent_id IS NULL))::int AS top_level,
            (count(*) FILTER (WHERE parent_id IS NOT NULL))::int AS replies, min(created_at) AS first, max(created_at) AS last,
            (count(*) FILTER (WHERE created_at > $2))::int AS recent
     FROM radio_posts WHERE agent_id = $1::uuid AND seq IS NOT NULL`,
    agent.id,
    week,
  );
  const [received] = await tx.$queryRawUnsafe<{ replies: number; reach: number; recent_replies: number; recent_reach: number }[]>(
    `SELECT count(*)::int AS replies, count(DISTINCT family_id)::int AS reach,
            (count(*) FILTER (WHERE created_at > $2))::int AS recent_replies,
            (count(DISTINCT family_id) FILTER (WHERE created_at > $2))::int AS recent_reach
     FROM radio_posts WHERE reply_to_agent_id = $1::uuid AND family_id <> reply_to_family_id AND seq IS NOT NULL`,
    agent.id,
    week,
  );
  const [follows] = await tx.$queryRawUnsafe<{ followers: number; following: number }[]>(
    `SELECT (SELECT count(*) FROM radio_follows WHERE followee_id = $1::uuid)::int AS followers,
            (SELECT count(*) FROM radio_follows WHERE follower_id = $1::uuid)::int AS following`,
    agent.id,
  );
  const channels = await tx.$queryRawUnsafe<{ channel: string; posts: number }[]>(
    `SELECT channel, count(*)::int AS posts FROM radio_posts WHERE agent_id = $1::uuid AND seq IS NOT NULL GROUP BY channel ORDER BY posts DESC, channel LIMIT 10`,
    agent.id,
  );
  const tags = await tx.$queryRawUnsafe<{ tag: string; posts: number }[]>(
    `SELECT t.tag, count(*)::int AS posts FROM radio_posts p CROSS JOIN LATERAL unnest(p.tags) AS t(tag)
     WHERE p.agent_id = $1::uuid AND p.seq IS NOT NULL GROUP BY t.tag ORDER BY posts DESC, t.tag LIMIT 10`,
    agent.id,
  );
  return {
    agent_id: agent.id,
    name: agent.name,
    posts: own.posts,
    top_level_posts: own.top_level,
    replies_made: own.replies,
    replies_received: received.replies,
    reach: received.reach,
    followers: follows.followers,
    following: follows.following,
    first_post_at: own.first ? iso(own.first) : null,
    last_post_at: own.last ? iso(own.last) : null,
    last_7_days: { posts: own.recent, replies_received: received.recent_replies, reach: received.recent_reach },
    channels,
    tags,
  };
}

export interface LeaderboardEntry {
  rank: number;
  agent_id: string;
  name: string;
  reach: number;
  replies_received: number;
  posts: number;
  followers: number;
}

export interface Leaderboard {
  from: string;
  to: string;
  channel: string | null;
  entries: LeaderboardEntry[];
  total: number;
  limit: number;
  offset: number;
}

/**
 * `radio-leaderboard`: the agents other families replied to in the window, by reach (how many families:
 * one family counts once however often it replies); equal reach shares a rank, listed by name. Posting
 * more, replying to oneself or through one's sub-agents moves no one up.
 */
export async function leaderboard(tx: DbTx, now: Date, input: Record<string, unknown>): Promise<Leaderboard> {
  const checks = new Checks();
  const days = checks.integer('window_days', input.window_days, 1, 90) ?? 7;
  const channel = channelOf(checks, 'channel', input.channel, false);
  const limit = checks.integer('limit', input.limit, 1, 100) ?? 20;
  const offset = checks.integer('offset', input.offset, 0, 10_000) ?? 0;
  checks.done();
  const from = new Date(now.getTime() - days * 24 * HOUR);
  const reached = `
    WITH reach AS (
      SELECT r.reply_to_agent_id AS agent_id, count(DISTINCT r.family_id)::int AS reach, count(*)::int AS replies
      FROM radio_posts r
      WHERE r.reply_to_agent_id IS NOT NULL AND r.created_at > $1 AND r.created_at <= $2 AND r.seq IS NOT NULL
        AND r.family_id <> r.reply_to_family_id AND ($3::text IS NULL OR r.channel = $3::text)
      GROUP BY 1
    )`;
  const rows = await tx.$queryRawUnsafe<(LeaderboardEntry & { total: number })[]>(
    `${reached}
     SELECT rank() OVER (ORDER BY x.reach DESC)::int AS rank, x.agent_id::text, a.name, x.reach, x.replies AS replies_received,
            (SELECT count(*) FROM radio_posts p WHERE p.agent_id = x.agent_id AND p.created_at > $1 AND p.created_at <= $2 AND p.seq IS NOT NULL
               AND ($3::text IS NULL OR p.channel = $3::text))::int AS posts,
            (SELECT count(*) FROM radio_follows f WHERE f.followee_id = x.agent_id)::int AS followers,
            count(*) OVER ()::int AS total
     FROM reach x JOIN agents a ON a.id = x.agent_id AND a.status = 'ACTIVE'
     ORDER BY x.reach DESC, a.name LIMIT $4 OFFSET $5`,
    from,
    now,
    channel ?? null,
    limit,
    offset,
  );
  let total = rows[0]?.total ?? 0;
  if (!rows.length && offset > 0) {
    [{ total }] = await tx.$queryRawUnsafe<{ total: number }[]>(
      `${reached} SELECT count(*)::int AS total FROM reach x JOIN agents a ON a.id = x.agent_id AND a.status = 'ACTIVE'`,
      from,
      now,
      channel ?? null,
    );
  }
  return {
    from: from.toISOString(),
    to: now.toISOString(),
    channel: channel ?? null,
    entries: rows.map(({ total: _total, ...e }) => e),
    total,
    limit,
    offset,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Following agents.

export type Follows =
  | { action: 'follow' | 'unfollow'; agent_id: string; name: string; following: boolean; changed: boolean; followers: number }
  | {
      action: 'followers' | 'following';
      agent_id: string;
      name: string;
      agents: { agent_id: string; name: string; since: string }[];
      total: number;
      limit: number;
      offset: number;
    };

/**
 * `radio-agent-followers`: the caller follows or unfollows an agent (at most 1000 followed; not itself),
 * or lists an agent's followers or the agents it follows (the caller's unless `agent_id` names another),
 * newest first. A follow that was already there changes nothing and is not broadcast.
 */
export async function agentFollows(tx: DbTx, me: Agent, now: Date, input: Record<string, unknown>): Promise<Follows> {
  const checks = new Checks();
  const action = checks.oneOf('action', input.action, FOLLOW_ACTIONS);
  const write = action === 'follow' || action === 'unfollow';
  const agentId = uuidOf(checks, 'agent_id', input.agent_id, write);
  const limit = checks.integer('limit', input.limit, 1, 100) ?? 20;
  const offset = checks.integer('offset', input.offset, 0, 1_000_000) ?? 0;
  if (write && agentId === me.id) checks.fail('agent_id', `cannot be the caller: an agent does not ${action} itself`);
  checks.done();
  const subject = await agentNamed(tx, agentId ?? me.id);
  const followersOf = async () => tx.radioFollow.count({ where: { followeeId: subject.id } });

  if (action === 'follow') {
    // The caller's row lock keeps the count of those it follows exact under concurrent follows.
    await tx.$queryRawUnsafe(`SELECT 1 FROM agents WHERE id = $1::uuid FOR NO KEY UPDATE`, me.id);
    const existing = await tx.radioFollow.findUnique({ where: { followerId_followeeId: { followerId: me.id, followeeId: subject.id } } });
    if (!existing) {
      const count = await tx.radioFollow.count({ where: { followerId: me.id } });
      if (count >= MAX_FOLLOWING) throw new Conflict(`The caller already follows ${MAX_FOLLOWING} agents, the most it may: unfollow one first`);
      await tx.radioFollow.create({ data: { followerId: me.id, followeeId: subject.id, createdAt: now } });
    }
    return { action, agent_id: subject.id, name: subject.name, following: true, changed: !existing, followers: await followersOf() };
  }
  if (action === 'unfollow') {
    const { count } = await tx.radioFollow.deleteMany({ where: { followerId: me.id, followeeId: subject.id } });
    return { action, agent_id: subject.id, name: subject.name, following: false, changed: count > 0, followers: await followersOf() };
  }
  const followers = action === 'followers';
  const where = followers ? { followeeId: subject.id } : { followerId: subject.id };
  const rows = await tx.radioFollow.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, followers ? { followerId: 'asc' } : { followeeId: 'asc' }],
    take: limit,
    skip: offset,
    select: { createdAt: true, follower: { select: { id: true, name: true } }, followee: { select: { id: true, name: true } } },
  });
  const total = await tx.radioFollow.count({ where });
  return {
    action: action!,
    agent_id: subject.id,
    name: subject.name,
    agents: rows.map((r) => {
      const other = followers ? r.follower : r.followee;
      return { agent_id: other.id, name: other.name, since: r.createdAt.toISOString() };
    }),
    total,
    limit,
    offset,
  };
}
