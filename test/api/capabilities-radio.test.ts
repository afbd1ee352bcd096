// The radio capabilities the marketplace serves itself (docs/capabilities/radio.md), through POST /execute:
// each answer checked against its output schema; posts, replies and new follows reaching a reader of
// /ext/radio/stream, and the reads never; listening resumable by cursor; digests, trending, profiles and
// the leaderboard counting families, not posts; follows; bad input named under `input.`.
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { api, registerAgent, startServer, uniqueName, type TestServer } from '../support/server';
import { errorPaths, eventually, expectProblem } from '../support/expect';
import { FakeClock } from '../support/clock';
import { openSse } from '../support/sse';
import { FIRST_PARTY } from '../../src/domain/first-party/first-party';

const clock = new FakeClock();
let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' }, clock });
  call = api(server);
});
afterAll(() => server?.close());

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
function outputValidator(capability: string): ValidateFunction {
  let v = validators.get(capability);
  if (!v) {
    v = ajv.compile(FIRST_PARTY.get(capability)!.outputSchema);
    validators.set(capability, v);
  }
  return v;
}

const HOUR = 3_600_000;
let channels = 0;
/** A channel no other test posts to. */
const newChannel = (prefix = 'ch') => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++channels}`;

const execute = (key: string, capability: string, input: unknown) => call('POST', '/execute', { key, body: { capability, input } });

/** Executes a radio capability, expects success and an answer valid against its output schema, and returns the result. */
async function run(key: string, capability: string, input: Record<string, unknown> = {}): Promise<any> {
  const res = await execute(key, capability, input);
  if (res.status !== 200) {
    const logged = res.status >= 500 ? `\n${server.logs.filter((l) => l.includes('"err"')).slice(-1)}` : '';
    throw new Error(`${capability} answered ${res.status}: ${res.text}${logged}`);
  }
  expect(res.body.status).toBe('success');
  const valid = outputValidator(capability);
  if (!valid(res.body.result))
    throw new Error(`${capability}'s answer fails its output schema: ${ajv.errorsText(valid.errors)}\n${JSON.stringify(res.body.result)}`);
  return res.body.result;
}

async function subAgentOf(parent: { key: string; agentId: string }) {
  const res = await call('POST', `/agents/${parent.agentId}/sub-agents`, {
    key: parent.key,
    body: { name: uniqueName('sub'), description: 'A sub-agent made by a test', autonomyLevel: 'EXECUTE_ONLY', authorityScope: ['social-', 'radio-'] },
  });
  expect(res.status).toBe(201);
  return { agentId: res.body.agent_id as string, key: res.body.master_key as string };
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

describe('social-broadcast and the stream', () => {
  it('broadcasts posts, replies and new follows on /ext/radio/stream, and none of the reads', async () => {
    const listener = await registerAgent(server);
    expect((await call('POST', '/ext/radio/subscribe', { key: listener.key, body: { channels: ['*'] } })).status).toBe(200);
    const stream = await openSse(`${server.url}/api/v1/ext/radio/stream`, auth(listener.key));
    expect(stream.status).toBe(200);
    await eventually(
      async () => server.app.services.radioStreams.readerCount,
      (n) => n >= 1,
    );

    const poster = await registerAgent(server);
    const fan = await registerAgent(server);
    const channel = newChannel('AI-News');
    const post = await run(poster.key, 'social-broadcast', { channel, message: 'Hello, radio', tags: ['Intro', 'intro', 'hello'] });
    expect(post).toEqual({
      post_id: expect.any(String),
      channel: channel.toLowerCase(),
      agent_id: poster.agentId,
      agent_name: poster.name,
      message: 'Hello, radio',
      tags: ['intro', 'hello'],
      reply_to: null,
      reply_to_agent_id: null,
      thread_id: post.post_id,
      created_at: clock.now().toISOString(),
    });
    // Reads, an unfollow and a follow already there: none of them broadcast.
    const listened = await run(fan.key, 'social-listen', { channels: [channel] });
    await run(fan.key, 'social-digest', { channel });
    await run(fan.key, 'social-trending', { channel });
    await run(fan.key, 'radio-caller-profile', { agent_id: poster.agentId });
    await run(fan.key, 'radio-leaderboard', {});
    await run(fan.key, 'radio-agent-followers', { action: 'followers', agent_id: poster.agentId });
    const reply = await run(fan.key, 'social-respond', { post_id: post.post_id, message: 'Welcome!' });
    expect((await run(fan.key, 'radio-agent-followers', { action: 'follow', agent_id: poster.agentId })).changed).toBe(true);
    expect((await run(fan.key, 'radio-agent-followers', { action: 'follow', agent_id: poster.agentId })).changed).toBe(false);
    await run(fan.key, 'radio-agent-followers', { action: 'unfollow', agent_id: poster.agentId });
    const last = await run(poster.key, 'social-broadcast', { channel, message: 'Goodbye' });

    // Broadcasts are numbered in commit order: the last post's arrival proves nothing between was broadcast.
    const heard = await stream.waitFor(4, 10_000);
    const events = heard.map((e) => ({ id: e.id, event: e.event, ...JSON.parse(e.data) }));
    expect(events.map((e) => e.channel)).toEqual(['social-broadcast', 'social-respond', 'radio-agent-followers', 'social-broadcast']);
    expect(events.every((e) => e.event === 'execution' && e.type === 'execution')).toBe(true);
    expect(events[0].data).toMatchObject({ capability: 'social-broadcast', agent_id: poster.agentId, service_id: null, status: 'success', result: post });
    expect(events[1].data.result).toEqual(reply);
    expect(events[2].data).toMatchObject({ agent_id: fan.agentId, result: { action: 'follow', agent_id: poster.agentId, changed: true } });
    expect(events[3].data.result).toEqual(last);
    stream.close();

    // A post's sequence is its broadcast's number: the stream's ids and listening's cursor are one.
    expect(listened.posts.map((p: any) => p.post_id)).toEqual([post.post_id]);
    expect(listened.posts[0].sequence).toBe(Number(events[0].id));
    const after = await run(fan.key, 'social-listen', { channels: [channel], after: Number(events[0].id) });
    expect(after.posts.map((p: any) => [p.post_id, p.sequence])).toEqual([
      [reply.post_id, Number(events[1].id)],
      [last.post_id, Number(events[3].id)],
    ]);
  });

  it('answers the radio writes only as the caller, and reads its input in either spelling', async () => {
    const me = await registerAgent(server);
    const channel = newChannel();
    // No field names an author: one would be an unknown field.
    const forged = await execute(me.key, 'social-broadcast', { channel, message: 'hi', agent_id: '00000000-0000-4000-8000-000000000000' });
    expectProblem(forged, 400, 'validation_failed');
    expect(errorPaths(forged)).toEqual(['input.agent_id']);
    const camel = await run(me.key, 'social-listen', { includeReplies: false, channels: [channel] });
    expect(camel.posts).toEqual([]);
  });
});

describe('social-listen and social-respond', () => {
  it('pages forward from a cursor without missing or repeating, filtered by channel, tag, thread and followed agents', async () => {
    const a = await registerAgent(server);
    const b = await registerAgent(server);
    const reader = await registerAgent(server);
    const news = newChannel('news');
    const other = newChannel('other');
    const start = (await run(reader.key, 'social-listen', { channels: [news, other] })).next_cursor;
    expect(typeof start).toBe('number');
    const posted: any[] = [];
    for (let i = 0; i < 5; i++)
      posted.push(await run(i % 2 ? b.key : a.key, 'social-broadcast', { channel: news, message: `news ${i}`, tags: i === 3 ? ['Rust'] : [] }));
    await run(a.key, 'social-broadcast', { channel: other, message: 'elsewhere' });

    const page1 = await run(reader.key, 'social-listen', { channels: [news], after: start, limit: 2 });
    expect(page1.posts.map((p: any) => p.message)).toEqual(['news 0', 'news 1']);
    expect(page1.has_more).toBe(true);
    expect(page1.next_cursor).toBe(page1.posts[1].sequence);
    const page2 = await run(reader.key, 'social-listen', { channels: [news], after: page1.next_cursor, limit: 2 });
    expect(page2.posts.map((p: any) => p.message)).toEqual(['news 2', 'news 3']);
    const page3 = await run(reader.key, 'social-listen', { channels: [news], after: page2.next_cursor, limit: 2 });
    expect(page3.posts.map((p: any) => p.message)).toEqual(['news 4']);
    expect(page3.has_more).toBe(false);
    // Nothing new: the same cursor (or a later one) comes back, and then only what is new.
    const idle = await run(reader.key, 'social-listen', { channels: [news], after: page3.next_cursor });
    expect(idle).toMatchObject({ posts: [], has_more: false });
    expect(idle.next_cursor).toBeGreaterThanOrEqual(page3.next_cursor);
    await run(b.key, 'social-broadcast', { channel: news, message: 'news 5' });
    expect((await run(reader.key, 'social-listen', { channels: [news], after: idle.next_cursor })).posts.map((p: any) => p.message)).toEqual(['news 5']);

    // Without a cursor: the latest, oldest first.
    const tail = await run(reader.key, 'social-listen', { channels: [news, other], limit: 3 });
    expect(tail.posts.map((p: any) => p.message)).toEqual(['news 4', 'elsewhere', 'news 5']);
    expect(tail.has_more).toBe(false);
    // Tags (case-insensitive), and the agents followed.
    expect((await run(reader.key, 'social-listen', { channels: [news], tags: ['RUST'] })).posts.map((p: any) => p.message)).toEqual(['news 3']);
    await run(reader.key, 'radio-agent-followers', { action: 'follow', agent_id: b.agentId });
    const followed = await run(reader.key, 'social-listen', { channels: [news], following: true, after: start });
    expect(followed.posts.map((p: any) => p.message)).toEqual(['news 1', 'news 3', 'news 5']);

    // A thread: replies to replies stay in it, on the post's channel; include_replies: false leaves them out.
    const r1 = await run(b.key, 'social-respond', { post_id: posted[0].post_id, message: 'reply one', tags: ['answer'] });
    const r2 = await run(a.key, 'social-respond', { postId: r1.post_id, message: 'reply two' });
    expect(r1).toMatchObject({ channel: news, reply_to: posted[0].post_id, reply_to_agent_id: a.agentId, thread_id: posted[0].post_id, agent_id: b.agentId });
    expect(r2).toMatchObject({ channel: news, reply_to: r1.post_id, reply_to_agent_id: b.agentId, thread_id: posted[0].post_id });
    const thread = await run(reader.key, 'social-listen', { thread_id: posted[0].post_id, after: 0 });
    expect(thread.posts.map((p: any) => [p.message, p.reply_count])).toEqual([
      ['news 0', 1],
      ['reply one', 1],
      ['reply two', 0],
    ]);
    const topLevel = await run(reader.key, 'social-listen', { channels: [news], include_replies: false, limit: 2 });
    expect(topLevel.posts.map((p: any) => p.message)).toEqual(['news 4', 'news 5']);

    const missing = await execute(reader.key, 'social-respond', { post_id: '00000000-0000-4000-8000-000000000000', message: 'hello?' });
    expectProblem(missing, 404, 'not_found');
  });
});

describe('social-digest', () => {
  it('counts a channel’s window and ranks posters by reach and posts by responders, other families only', async () => {
    const channel = newChannel('digest');
    const star = await registerAgent(server);
    const spammer = await registerAgent(server);
    const sub = await subAgentOf(spammer);
    const fans = [await registerAgent(server), await registerAgent(server), await registerAgent(server)];
    const old = await run(star.key, 'social-broadcast', { channel, message: 'before the window', tags: ['old'] });
    clock.advance(25 * HOUR);

    const hit = await run(star.key, 'social-broadcast', { channel, message: 'a good one', tags: ['ml'] });
    const quiet = await run(star.key, 'social-broadcast', { channel, message: 'nobody answers', tags: ['ml'] });
    const spam: any[] = [];
    for (let i = 0; i < 4; i++) spam.push(await run(spammer.key, 'social-broadcast', { channel, message: `buy now ${i}`, tags: ['deals'] }));
    for (const fan of fans) await run(fan.key, 'social-respond', { post_id: hit.post_id, message: 'agreed' });
    await run(fans[0].key, 'social-respond', { post_id: hit.post_id, message: 'agreed again' });
    // The spammer's own replies and its sub-agent's count for nothing; one outside family for one.
    for (const s of spam) {
      await run(spammer.key, 'social-respond', { post_id: s.post_id, message: 'so true' });
      await run(sub.key, 'social-respond', { post_id: s.post_id, message: 'so true' });
    }
    await run(fans[1].key, 'social-respond', { post_id: spam[0].post_id, message: 'no thanks' });
    await run(star.key, 'social-respond', { post_id: old.post_id, message: 'late reply to my own' });

    const digest = await run(fans[2].key, 'social-digest', { channel, top: 3 });
    expect(digest).toMatchObject({
      channel,
      to: clock.now().toISOString(),
      from: new Date(clock.now().getTime() - 24 * HOUR).toISOString(),
      posts: 2 + 4 + 4 + 8 + 1 + 1,
      top_level_posts: 6,
      replies: 14,
      posters: 6,
      responders: 6,
    });
    expect(digest.top_posters).toEqual([
      { agent_id: star.agentId, name: star.name, posts: 3, reach: 3 },
      { agent_id: spammer.agentId, name: spammer.name, posts: 8, reach: 1 },
      { agent_id: sub.agentId, name: expect.any(String), posts: 4, reach: 0 },
    ]);
    expect(digest.top_posts.map((p: any) => [p.post_id, p.responders, p.reply_count])).toEqual([
      [hit.post_id, 3, 4],
      [spam[0].post_id, 1, 3],
    ]);
    expect(digest.top_posts.map((p: any) => p.post_id)).not.toContain(quiet.post_id);
    // Tags by families, then posts.
    expect(digest.tags).toEqual([
      { tag: 'deals', posts: 4, families: 1 },
      { tag: 'ml', posts: 2, families: 1 },
    ]);
    // A wider window takes in the older post.
    expect((await run(fans[2].key, 'social-digest', { channel, window_hours: 48 })).top_level_posts).toBe(7);
  });
});

describe('social-trending', () => {
  it('scores topics and tags by decayed frequency with a half-life, one family’s weight capped at one fresh post', async () => {
    const loud = newChannel('loud');
    const broad = newChannel('broad');
    const spammer = await registerAgent(server);
    const sub = await subAgentOf(spammer);
    for (let i = 0; i < 10; i++) await run(i % 2 ? sub.key : spammer.key, 'social-broadcast', { channel: loud, message: `again ${i}`, tags: ['hype'] });
    const voices = [await registerAgent(server), await registerAgent(server), await registerAgent(server)];
    for (const v of voices) await run(v.key, 'social-broadcast', { channel: broad, message: 'worth a look', tags: ['Hype', 'science'] });

    const loudNow = await run(voices[0].key, 'social-trending', { channel: loud });
    expect(loudNow).toMatchObject({ half_life_hours: 6, window_hours: 48, channel: loud, topics: [{ channel: loud, score: 1, posts: 10, families: 1 }] });
    expect(loudNow.tags).toEqual([{ tag: 'hype', score: 1, posts: 10, families: 1 }]);
    expect((await run(voices[0].key, 'social-trending', { channel: broad })).topics).toEqual([{ channel: broad, score: 3, posts: 3, families: 3 }]);

    // One half-life later each post weighs a half; the spammer's ten still cap at its one.
    clock.advance(6 * HOUR);
    expect((await run(voices[0].key, 'social-trending', { channel: broad })).topics).toEqual([{ channel: broad, score: 1.5, posts: 3, families: 3 }]);
    expect((await run(voices[0].key, 'social-trending', { channel: loud })).topics[0].score).toBe(1);
    const slow = await run(voices[0].key, 'social-trending', { channel: broad, half_life_hours: 12, limit: 1 });
    expect(slow.topics[0].score).toBeCloseTo(3 / Math.SQRT2, 3);
    expect(slow.tags).toHaveLength(1);
    // Across channels, the broad one ranks above the loud one; tags too.
    const all = await run(voices[0].key, 'social-trending', { limit: 50 });
    const at = (list: any[], key: string, value: string) => list.findIndex((t) => t[key] === value);
    expect(at(all.topics, 'channel', broad)).toBeGreaterThanOrEqual(0);
    expect(at(all.topics, 'channel', broad)).toBeLessThan(at(all.topics, 'channel', loud));
    // Past the window (8 half-lives), nothing is read.
    clock.advance(48 * HOUR);
    expect((await run(voices[0].key, 'social-trending', { channel: broad })).topics).toEqual([]);
  });
});

describe('radio-caller-profile and radio-leaderboard', () => {
  it('profiles an agent’s broadcasts, and ranks agents by how many other families answered them', async () => {
    const channel = newChannel('board');
    const tag = `${process.pid}-${channels}`;
    const alice = await registerAgent(server, { name: `lb-alice-${tag}` });
    const bob = await registerAgent(server, { name: `lb-bob-${tag}` });
    const carol = await registerAgent(server, { name: `lb-carol-${tag}` });
    const farmer = await registerAgent(server);
    const subs = [await subAgentOf(farmer), await subAgentOf(farmer), await subAgentOf(farmer)];
    const others = [await registerAgent(server), await registerAgent(server), await registerAgent(server)];

    const a1 = await run(alice.key, 'social-broadcast', { channel, message: 'alice one', tags: ['x'] });
    const a2 = await run(alice.key, 'social-broadcast', { channel, message: 'alice two', tags: ['x', 'y'] });
    const b1 = await run(bob.key, 'social-broadcast', { channel, message: 'bob one' });
    const c1 = await run(carol.key, 'social-broadcast', { channel, message: 'carol one' });
    const f1 = await run(farmer.key, 'social-broadcast', { channel, message: 'farm' });
    for (const o of others) await run(o.key, 'social-respond', { post_id: a1.post_id, message: 'yes' });
    await run(others[0].key, 'social-respond', { post_id: a2.post_id, message: 'and yes' });
    await run(others[0].key, 'social-respond', { post_id: b1.post_id, message: 'hm' });
    await run(alice.key, 'social-respond', { post_id: b1.post_id, message: 'hi bob' });
    await run(others[1].key, 'social-respond', { post_id: c1.post_id, message: 'hm' });
    await run(others[2].key, 'social-respond', { post_id: c1.post_id, message: 'hm' });
    await run(carol.key, 'social-respond', { post_id: c1.post_id, message: 'answering myself' });
    // Three sub-agents replying three times each: one family, the farmer's own, so nothing.
    for (const s of subs) for (let i = 0; i < 3; i++) await run(s.key, 'social-respond', { post_id: f1.post_id, message: 'great' });
    await run(bob.key, 'radio-agent-followers', { action: 'follow', agent_id: alice.agentId });
    await run(others[2].key, 'radio-agent-followers', { action: 'follow', agent_id: alice.agentId });

    const profile = await run(bob.key, 'radio-caller-profile', { agent_id: alice.agentId });
    expect(profile).toEqual({
      agent_id: alice.agentId,
      name: alice.name,
      posts: 3,
      top_level_posts: 2,
      replies_made: 1,
      replies_received: 4,
      reach: 3,
      followers: 2,
      following: 0,
      first_post_at: clock.now().toISOString(),
      last_post_at: clock.now().toISOString(),
      last_7_days: { posts: 3, replies_received: 4, reach: 3 },
      channels: [{ channel, posts: 3 }],
      tags: [
        { tag: 'x', posts: 2 },
        { tag: 'y', posts: 1 },
      ],
    });
    const mine = await run(farmer.key, 'radio-caller-profile');
    expect(mine).toMatchObject({ agent_id: farmer.agentId, posts: 1, replies_received: 0, reach: 0, following: 0 });

    const board = await run(bob.key, 'radio-leaderboard', { channel });
    expect(board).toMatchObject({ channel, total: 3, limit: 20, offset: 0, to: clock.now().toISOString() });
    expect(board.entries).toEqual([
      { rank: 1, agent_id: alice.agentId, name: alice.name, reach: 3, replies_received: 4, posts: 3, followers: 2 },
      { rank: 2, agent_id: bob.agentId, name: bob.name, reach: 2, replies_received: 2, posts: 1, followers: 0 },
      { rank: 2, agent_id: carol.agentId, name: carol.name, reach: 2, replies_received: 2, posts: 2, followers: 0 },
    ]);
    const paged = await run(bob.key, 'radio-leaderboard', { channel, limit: 1, offset: 1 });
    expect(paged).toMatchObject({ total: 3, limit: 1, offset: 1, entries: [board.entries[1]] });
    expect(await run(bob.key, 'radio-leaderboard', { channel, offset: 5 })).toMatchObject({ entries: [], total: 3 });
    // A window that ended before the replies ranks no one.
    clock.advance(8 * 24 * HOUR);
    expect((await run(bob.key, 'radio-leaderboard', { channel })).entries).toEqual([]);
    expect((await run(bob.key, 'radio-caller-profile', { agent_id: alice.agentId })).last_7_days).toEqual({ posts: 0, replies_received: 0, reach: 0 });
    expectProblem(await execute(bob.key, 'radio-caller-profile', { agent_id: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
  });
});

describe('radio-agent-followers', () => {
  it('follows, unfollows and lists, newest first, as the caller only', async () => {
    const star = await registerAgent(server);
    const fans = [await registerAgent(server), await registerAgent(server), await registerAgent(server)];
    for (const fan of fans) {
      expect(await run(fan.key, 'radio-agent-followers', { action: 'follow', agent_id: star.agentId })).toEqual(
        expect.objectContaining({ action: 'follow', agent_id: star.agentId, name: star.name, following: true, changed: true }),
      );
      clock.advance(1000);
    }
    const list = await run(star.key, 'radio-agent-followers', { action: 'followers' });
    expect(list).toMatchObject({ action: 'followers', agent_id: star.agentId, total: 3, limit: 20, offset: 0 });
    expect(list.agents.map((a: any) => a.agent_id)).toEqual(fans.map((f) => f.agentId).reverse());
    const page = await run(star.key, 'radio-agent-followers', { action: 'followers', limit: 1, offset: 1 });
    expect(page.agents.map((a: any) => a.agent_id)).toEqual([fans[1].agentId]);
    expect((await run(fans[0].key, 'radio-agent-followers', { action: 'following' })).agents).toEqual([
      { agent_id: star.agentId, name: star.name, since: expect.any(String) },
    ]);
    const gone = await run(fans[0].key, 'radio-agent-followers', { action: 'unfollow', agent_id: star.agentId });
    expect(gone).toEqual({ action: 'unfollow', agent_id: star.agentId, name: star.name, following: false, changed: true, followers: 2 });
    expect((await run(fans[0].key, 'radio-agent-followers', { action: 'unfollow', agent_id: star.agentId })).changed).toBe(false);
    expect((await run(fans[0].key, 'radio-agent-followers', { action: 'following', agent_id: fans[0].agentId })).total).toBe(0);

    const self = await execute(star.key, 'radio-agent-followers', { action: 'follow', agent_id: star.agentId });
    expectProblem(self, 400, 'validation_failed');
    expect(errorPaths(self)).toEqual(['input.agent_id']);
    expect(errorPaths(await execute(star.key, 'radio-agent-followers', { action: 'follow' }))).toEqual(['input.agent_id']);
    expectProblem(await execute(star.key, 'radio-agent-followers', { action: 'follow', agent_id: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
  });
});

describe('bad input', () => {
  it('is a 400 naming each field under input., as the client spelled it', async () => {
    const me = await registerAgent(server);
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['social-broadcast', { channel: 'no spaces here', message: '' }, ['input.channel', 'input.message']],
      ['social-broadcast', { channel: 'ok', message: 'x'.repeat(2001), tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, ['input.message', 'input.tags']],
      ['social-broadcast', { message: 'hi', tags: ['fine', 'not fine'] }, ['input.channel', 'input.tags.1']],
      ['social-listen', { after: -1, limit: 101, channels: ['ok', '#bad'] }, ['input.after', 'input.limit', 'input.channels.1']],
      ['social-listen', { following: 'yes', threadId: 'nope' }, ['input.following', 'input.threadId']],
      ['social-respond', { post_id: 'nope', message: 'hi' }, ['input.post_id']],
      ['social-respond', { message: 'hi' }, ['input.post_id']],
      ['social-digest', { window_hours: 0 }, ['input.channel', 'input.window_hours']],
      ['social-digest', { channel: 'ok', top: 21 }, ['input.top']],
      ['social-trending', { halfLifeHours: 0, limit: 51 }, ['input.halfLifeHours', 'input.limit']],
      ['radio-caller-profile', { agent_id: 'nope' }, ['input.agent_id']],
      ['radio-leaderboard', { window_days: 91, offset: 10_001 }, ['input.window_days', 'input.offset']],
      ['radio-agent-followers', { action: 'poke' }, ['input.action']],
      ['radio-agent-followers', {}, ['input.action']],
    ];
    for (const [capability, input, paths] of cases) {
      const res = await execute(me.key, capability, input);
      expectProblem(res, 400, 'validation_failed');
      expect([capability, errorPaths(res).sort()]).toEqual([capability, [...paths].sort()]);
    }
  });
});
