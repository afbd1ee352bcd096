// Streaming sessions (spec §4.8, §6.4): open, push, end (409 after), readers over SSE (resuming with
// Last-Event-ID without a gap), a plain WebSocket, graphql-ws and graphql-sse — one stream for all — the
// per-agent stream cap, and events the bus never announced found again in the database.
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { parseBearer } from '../../src/platform/auth';
import { expectProblem, within } from '../support/expect';
import { api, registerAgent, startServer, type TestServer } from '../support/server';
import { openSse } from '../support/sse';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', STREAMS_PER_AGENT: '4' } });
  call = api(server);
});
afterAll(() => server.close());

async function newSession(key: string, body: Record<string, unknown> = {}) {
  const res = await call('POST', '/streaming/sessions', { key, body: { capabilityId: 'summarize', ...body } });
  if (res.status !== 201) throw new Error(`session creation failed: ${res.status} ${res.text}`);
  return res.body as { id: string; status: string; eventEndpoint: string; streamType: string };
}

const push = (key: string, id: string, body: unknown) => call('POST', `/streaming/sessions/${id}/push`, { key, body });
const eventsUrl = (id: string) => `${server.url}/api/v1/streaming/sessions/${id}/events`;
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
/** The numbers of the events a reader saw. */
const ids = (events: { id?: string }[]) => events.map((e) => Number(e.id));

describe('POST /streaming/sessions', () => {
  it('opens an active session whose eventEndpoint is an absolute URL of its kind', async () => {
    const me = await registerAgent(server);
    const sse = await newSession(me.key);
    expect(sse).toMatchObject({ status: 'active', streamType: 'sse', eventEndpoint: eventsUrl(sse.id) });
    const ws = await newSession(me.key, { streamType: 'websocket' });
    expect(ws.eventEndpoint).toBe(eventsUrl(ws.id).replace(/^http/, 'ws'));
    const bad = await call('POST', '/streaming/sessions', { key: me.key, body: { capabilityId: 'Not A Capability', streamType: 'carrier-pigeon' } });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['capabilityId', 'streamType']);
  });
});

describe('push and end', () => {
  it('numbers pushed events in order, one at a time or in a batch', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key);
    expect((await push(me.key, s.id, { data: { n: 1 } })).body).toMatchObject({ pushed: true, count: 1, last_event_id: 1 });
    expect((await push(me.key, s.id, { events: [{ event: 'tick', data: 2 }, { data: 3 }] })).body).toMatchObject({ pushed: true, count: 2, last_event_id: 3 });
    const bad = await push(me.key, s.id, { events: [{ event: 'bad name!', data: 1 }, { event: 'ok' }] });
    expect(bad.body.errors.map((e: any) => e.path)).toEqual(['events.0.event', 'events.1.data']);
  });

  it('takes a known pusher from the principal cache, and refuses it once suspended or its key revoked', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key);
    expect((await push(me.key, s.id, { data: 1 })).status).toBe(200);
    // The caller is now known, and a push does not empty the caches: the next push is made as it.
    const bearer = parseBearer(`Bearer ${me.key}`);
    expect(bearer.kind === 'key' && server.app.services.principals.get(bearer.hash)).toMatchObject({ kind: 'agent' });
    expect((await push(me.key, s.id, { data: 2 })).body.last_event_id).toBe(2);
    // Suspended in the database (as another instance would): refused once the notification arrives.
    await server.app.services.db.agent.update({ where: { id: me.agentId }, data: { status: 'SUSPENDED' } });
    await within(2_000, async () => (await push(me.key, s.id, { data: 3 })).status === 403);
    await server.app.services.db.agent.update({ where: { id: me.agentId }, data: { status: 'ACTIVE' } });
    await within(2_000, async () => (await push(me.key, s.id, { data: 4 })).status === 200);
    await server.app.services.db.credential.updateMany({ where: { agentId: me.agentId }, data: { revokedAt: new Date() } });
    await within(2_000, async () => (await push(me.key, s.id, { data: 5 })).status === 401);
    // Once refused, nothing more is pushed (pushes before the notification arrived were still the caller's).
    const lastSeq = async () =>
      Number((await server.app.services.sql.query<{ last_seq: number }>('SELECT last_seq FROM streaming_sessions WHERE id = $1::uuid', [s.id]))[0].last_seq);
    const refusedAt = await lastSeq();
    expectProblem(await push(me.key, s.id, { data: 6 }), 401, 'unauthorized');
    expect(await lastSeq()).toBe(refusedAt);
  });

  it('ends a session once: pushing to it or ending it again is 409', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key);
    const ended = await call('POST', `/streaming/sessions/${s.id}/end`, { key: me.key });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ ended: true, status: 'ended' });
    expectProblem(await push(me.key, s.id, { data: 1 }), 409, 'conflict');
    expectProblem(await call('POST', `/streaming/sessions/${s.id}/end`, { key: me.key }), 409, 'conflict');
  });

  it("hides another agent's session", async () => {
    const me = await registerAgent(server);
    const other = await registerAgent(server);
    const s = await newSession(me.key);
    expectProblem(await push(other.key, s.id, { data: 1 }), 404, 'not_found');
    expectProblem(await call('POST', `/streaming/sessions/${s.id}/end`, { key: other.key }), 404, 'not_found');
    expectProblem(await call('GET', `/streaming/sessions/${s.id}`, { key: other.key }), 404, 'not_found');
    const reader = await openSse(eventsUrl(s.id), auth(other.key));
    expect(reader.status).toBe(404);
  });
});

describe('GET /streaming/sessions/:id/events', () => {
  it('streams events in order as SSE and closes after the end', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key);
    const reader = await openSse(eventsUrl(s.id), auth(me.key));
    expect(reader.status).toBe(200);
    // The body runs to the connection's close: no chunk framing around every event.
    expect(reader.headers.get('transfer-encoding')).toBeNull();
    expect(reader.headers.get('connection')).toBe('close');
    await push(me.key, s.id, { event: 'progress', data: { pct: 10 } });
    await push(me.key, s.id, { events: [{ data: 'a' }, { data: 'b' }] });
    await reader.waitFor(3);
    expect(reader.events.map((e) => [e.id, e.event])).toEqual([
      ['1', 'progress'],
      ['2', 'message'],
      ['3', 'message'],
    ]);
    expect(JSON.parse(reader.events[0].data)).toMatchObject({ id: '1', event: 'progress', data: { pct: 10 }, created_at: expect.any(String) });
    await call('POST', `/streaming/sessions/${s.id}/end`, { key: me.key });
    await reader.ended;
    expect(reader.events.at(-1)).toMatchObject({ event: 'end' });
  });

  it('resumes after a disconnect from Last-Event-ID with no gap and no repeat', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key);
    const first = await openSse(eventsUrl(s.id), auth(me.key));
    for (let i = 1; i <= 3; i++) await push(me.key, s.id, { data: i });
    await first.waitFor(3);
    first.close();
    for (let i = 4; i <= 8; i++) await push(me.key, s.id, { data: i });
    const second = await openSse(eventsUrl(s.id), { ...auth(me.key), 'last-event-id': first.events.at(-1)!.id! });
    await push(me.key, s.id, { data: 9 });
    await second.waitFor(6);
    expect(ids(first.events)).toEqual([1, 2, 3]);
    expect(ids(second.events)).toEqual([4, 5, 6, 7, 8, 9]);
    second.close();
  });

  it('replays an ended session after Last-Event-ID, then ends', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key);
    await push(me.key, s.id, { events: [{ data: 1 }, { data: 2 }, { data: 3 }] });
    await call('POST', `/streaming/sessions/${s.id}/end`, { key: me.key });
    const reader = await openSse(eventsUrl(s.id), { ...auth(me.key), 'last-event-id': '1' });
    await reader.ended;
    expect(reader.events.map((e) => e.id ?? e.event)).toEqual(['2', '3', 'end']);
  });

  it('finds events the bus never announced in the database', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key);
    const reader = await openSse(eventsUrl(s.id), auth(me.key));
    await push(me.key, s.id, { data: 1 });
    await reader.waitFor(1);
    // Written as a push writes, but never announced: the periodic comparison with the database finds it.
    await server.app.services.sql.query(
      `WITH s AS (UPDATE streaming_sessions SET last_seq = last_seq + 1 WHERE id = $1::uuid RETURNING last_seq)
       INSERT INTO streaming_events (session_id, seq, event, data, created_at) SELECT $1::uuid, s.last_seq, 'message', '"silent"', now() FROM s`,
      [s.id],
    );
    await reader.waitFor(2, 6_000);
    expect(ids(reader.events)).toEqual([1, 2]);
    await push(me.key, s.id, { data: 3 });
    await reader.waitFor(3);
    expect(ids(reader.events)).toEqual([1, 2, 3]);
    reader.close();
  });

  it('caps the streams one agent keeps open (429), and frees a slot when a stream closes', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key);
    const readers = [];
    for (let i = 0; i < 4; i++) readers.push(await openSse(eventsUrl(s.id), auth(me.key)));
    expect(readers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const refused = await openSse(eventsUrl(s.id), auth(me.key));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited' });
    readers[0].close();
    // Once the server has seen the close and given the slot back.
    await within(2_000, async () => server.app.services.streamSlots.count(me.agentId) < 4);
    const again = await openSse(eventsUrl(s.id), auth(me.key));
    expect(again.status).toBe(200);
    for (const r of [...readers, again]) r.close();
  });
});

describe('one stream on every surface', () => {
  it('delivers the same events over SSE, a plain WebSocket, graphql-ws and graphql-sse', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key, { streamType: 'websocket' });
    const query = `subscription($id: ID!) { streamingSessionEvents(sessionId: $id) { id event data } }`;

    const sse = await openSse(eventsUrl(s.id), auth(me.key));
    const socket = new WebSocket(s.eventEndpoint, { headers: auth(me.key) });
    const wsMessages: any[] = [];
    const wsClosed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    socket.on('message', (m) => wsMessages.push(JSON.parse(String(m))));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });

    const gqlWs = createWsClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: auth(me.key),
      retryAttempts: 0,
    });
    const gqlSse = createSseClient({ url: `${server.url}/graphql/stream`, headers: auth(me.key), retryAttempts: 0 });
    const viaWs: any[] = [];
    const viaSse: any[] = [];
    const wsDone = new Promise<void>((resolve, reject) =>
      gqlWs.subscribe({ query, variables: { id: s.id } }, { next: (v) => viaWs.push(v.data?.streamingSessionEvents), error: reject, complete: resolve }),
    );
    const sseDone = new Promise<void>((resolve, reject) =>
      gqlSse.subscribe({ query, variables: { id: s.id } }, { next: (v) => viaSse.push(v.data?.streamingSessionEvents), error: reject, complete: resolve }),
    );
    // Every reader is attached once the server counts them all.
    await within(2_000, async () => server.app.services.sessionStreams.readerCount >= 4);
    expect(server.app.services.sessionStreams.readerCount).toBe(4);

    await push(me.key, s.id, {
      events: [
        { event: 'a', data: 1 },
        { event: 'b', data: { two: 2 } },
      ],
    });
    await call('POST', `/streaming/sessions/${s.id}/end`, { key: me.key });
    await Promise.all([sse.ended, wsDone, sseDone]);
    expect(await wsClosed).toBe(1000);

    const expected = [
      { id: '1', event: 'a', data: 1 },
      { id: '2', event: 'b', data: { two: 2 } },
    ];
    expect(sse.events.filter((e) => e.event !== 'end').map((e) => JSON.parse(e.data))).toMatchObject(expected);
    expect(wsMessages).toMatchObject(expected);
    expect(viaWs).toEqual(expected);
    expect(viaSse).toEqual(expected);
    await gqlWs.dispose();
    gqlSse.dispose();
  });

  it('refuses a WebSocket upgrade without a key with a 401 problem', async () => {
    const me = await registerAgent(server);
    const s = await newSession(me.key, { streamType: 'websocket' });
    const socket = new WebSocket(s.eventEndpoint);
    const status = await new Promise<number>((resolve) => socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
  });
});
