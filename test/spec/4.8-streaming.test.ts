// Spec §4.8 streaming, with §2's Streaming session record, §3's rows (created active; active → ended, answering
// `ended: true`) and §6.4 (clients read SSE from the events path; events enter by push), as a new user meets
// them over REST, read by real HTTP clients (SSE over fetch, and a WebSocket for a websocket session).
import WebSocket from 'ws';
import { errorPaths, expectProblem } from '../support/expect';
import { api, registerAgent, startServer, type TestServer } from '../support/server';
import { openSse } from '../support/sse';

let server: TestServer;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_DISABLED: '1' } });
  call = api(server);
});
afterAll(() => server.close());

async function session(key: string, body: Record<string, unknown> = {}) {
  const res = await call('POST', '/streaming/sessions', { key, body: { capabilityId: 'summarize', ...body } });
  if (res.status !== 201) throw new Error(`session creation failed: ${res.status} ${res.text}`);
  return res.body as { id: string; status: string; eventEndpoint: string; streamType: string };
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const push = (key: string, id: string, body: unknown) => call('POST', `/streaming/sessions/${id}/push`, { key, body });

describe('§4.8 POST /streaming/sessions', () => {
  it('§4.8 creating a session with capabilityId answers 201 id, status, eventEndpoint; §3 a new session is active', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/streaming/sessions', { key: me.key, body: { capabilityId: 'summarize' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'active',
      capabilityId: 'summarize',
      eventEndpoint: `${server.url}/api/v1/streaming/sessions/${res.body.id}/events`,
    });
    expect((await call('GET', `/streaming/sessions/${res.body.id}`, { key: me.key })).body).toMatchObject({ id: res.body.id, status: 'active' });
  });

  it('§2 streamType is sse by default, or websocket', async () => {
    const me = await registerAgent(server);
    expect((await session(me.key)).streamType).toBe('sse');
    const ws = await session(me.key, { streamType: 'websocket' });
    expect(ws.streamType).toBe('websocket');
    expect(ws.eventEndpoint).toMatch(/^ws:\/\/.+\/api\/v1\/streaming\/sessions\/[0-9a-f-]{36}\/events$/);
    const bad = await call('POST', '/streaming/sessions', { key: me.key, body: { capabilityId: 'summarize', streamType: 'pigeon' } });
    expectProblem(bad, 400, 'validation_failed');
    expect(errorPaths(bad)).toEqual(['streamType']);
  });

  it('§4.8 capabilityId is required', async () => {
    const me = await registerAgent(server);
    const res = await call('POST', '/streaming/sessions', { key: me.key, body: {} });
    expectProblem(res, 400, 'validation_failed');
    expect(errorPaths(res)).toEqual(['capabilityId']);
  });
});

describe('§6.4 events', () => {
  it('§6.4 clients read SSE from /streaming/sessions/:id/events; events enter via push, which answers 200 pushed', async () => {
    const me = await registerAgent(server);
    const s = await session(me.key);
    const reader = await openSse(s.eventEndpoint, auth(me.key));
    try {
      expect(reader.status).toBe(200);
      expect(reader.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const first = await push(me.key, s.id, { event: 'progress', data: { pct: 40 } });
      expect(first.status).toBe(200);
      expect(first.body.pushed).toBe(true);
      expect((await push(me.key, s.id, { data: 'halfway there' })).body.pushed).toBe(true);
      await reader.waitFor(2);
      expect(reader.events.map((e) => [e.id, e.event])).toEqual([
        ['1', 'progress'],
        ['2', 'message'],
      ]);
      expect(JSON.parse(reader.events[0].data)).toMatchObject({ event: 'progress', data: { pct: 40 } });
      expect(JSON.parse(reader.events[1].data)).toMatchObject({ data: 'halfway there' });
    } finally {
      reader.close();
    }
  });

  it('§2 a websocket session’s events are read over a WebSocket at its eventEndpoint', async () => {
    const me = await registerAgent(server);
    const s = await session(me.key, { streamType: 'websocket' });
    const socket = new WebSocket(s.eventEndpoint, { headers: auth(me.key) });
    const messages: any[] = [];
    socket.on('message', (m) => messages.push(JSON.parse(String(m))));
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    await push(me.key, s.id, { data: { n: 1 } });
    await call('POST', `/streaming/sessions/${s.id}/end`, { key: me.key });
    expect(await closed).toBe(1000);
    expect(messages).toEqual([expect.objectContaining({ id: '1', data: { n: 1 } })]);
  });

  it('§4.8 the events stream needs the owner’s bearer key', async () => {
    const me = await registerAgent(server);
    const s = await session(me.key);
    expect((await openSse(s.eventEndpoint)).status).toBe(401);
    const other = await registerAgent(server);
    expect((await openSse(s.eventEndpoint, auth(other.key))).status).toBe(404);
  });
});

describe('§4.8 ending a session', () => {
  it('§4.8 POST /streaming/sessions/:id/end answers 200 ended; §3 an active session moves to ended, and its readers’ streams end', async () => {
    const me = await registerAgent(server);
    const s = await session(me.key);
    const reader = await openSse(s.eventEndpoint, auth(me.key));
    await push(me.key, s.id, { data: 'last words' });
    await reader.waitFor(1);
    const res = await call('POST', `/streaming/sessions/${s.id}/end`, { key: me.key });
    expect(res.status).toBe(200);
    expect(res.body.ended).toBe(true);
    await reader.ended;
    expect(reader.events.at(-1)).toMatchObject({ event: 'end' });
    expect((await call('GET', `/streaming/sessions/${s.id}`, { key: me.key })).body.status).toBe('ended');
    // Ended is the end: nothing more enters it.
    expectProblem(await push(me.key, s.id, { data: 'too late' }), 409, 'conflict');
  });
});
