// The one outbound client against real HTTPS servers on loopback: what a call answers, what it refuses
// and how it fails (timeout, size, connection, TLS), that it never follows a redirect, that a call given
// up while it waited for a connection is never written, and that one its caller abandons closes at once.
import { getEventListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OutboundClient, OutboundError } from '../../src/platform/outbound';
import { within } from '../support/expect';
import { assertTestCaTrusted, startCanary, startHttpsServer, type HttpsTestServer } from '../support/https';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: HttpsTestServer;
const seen: Seen[] = [];
/** What the server does with each request, by path; the default echoes what it received. */
const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: string) => void> = {};
const open = new Set<ServerResponse>();
const client = new OutboundClient({ allowPrivate: true });

beforeAll(async () => {
  assertTestCaTrusted();
  server = await startHttpsServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      open.add(res);
      res.on('close', () => open.delete(res));
      const route = routes[req.url!.split('?')[0]];
      if (route) return route(req, res, body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: body }));
    });
  });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

beforeEach(() => {
  seen.length = 0;
});

const failureOf = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (err) {
    return err as OutboundError;
  }
  throw new Error('the call did not fail');
};

describe('OutboundClient', () => {
  it('posts the body and headers given, and answers the status, lower-case headers and body', async () => {
    routes['/headers'] = (_req, res) => {
      res.setHeader('X-Single', 'one');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
    };
    const res = await client.post(`${server.url}/headers?x=1`, {
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
      body: '{"n":1}',
      timeoutMs: 5000,
    });
    expect(res).toMatchObject({ status: 201, body: '{"ok":true}' });
    expect(res.headers).toMatchObject({ 'x-single': 'one', 'set-cookie': 'a=1, b=2', 'content-type': 'application/json' });
    expect(res.latencyMs).toBeGreaterThan(0);
    expect(seen).toEqual([expect.objectContaining({ method: 'POST', url: '/headers?x=1', body: '{"n":1}' })]);
    expect(seen[0].headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': 'msg_1' });
  });

  it('gets, and answers a non-2xx as a response', async () => {
    routes['/missing'] = (_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such thing');
    const res = await client.get(`${server.url}/missing`, { headers: {}, timeoutMs: 5000 });
    expect(res).toMatchObject({ status: 404, body: 'no such thing' });
    expect(seen[0].method).toBe('GET');
  });

  it('reads a body that arrives in many chunks, multi-byte characters split across them included', async () => {
    const text = 'é'.repeat(50_000);
    routes['/chunked'] = (_req, res) => {
      const bytes = Buffer.from(text, 'utf8');
      res.writeHead(200, { 'content-type': 'text/plain' });
      // Odd-sized pieces split the two-byte characters.
      for (let i = 0; i < bytes.length; i += 4097) res.write(bytes.subarray(i, i + 4097));
      res.end();
    };
    const res = await client.get(`${server.url}/chunked`, { headers: {}, timeoutMs: 5000 });
    expect(res.body).toBe(text);
  });

  it('never follows a redirect: the 3xx is the answer and its Location is not contacted', async () => {
    const canary = await startCanary();
    try {
      routes['/moved'] = (_req, res) => res.writeHead(302, { location: `${canary.url}/elsewhere` }).end();
      const res = await client.post(`${server.url}/moved`, { headers: {}, body: '{}', timeoutMs: 5000 });
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`${canary.url}/elsewhere`);
      expect(canary.connections()).toBe(0);
    } finally {
      await canary.close();
    }
  });

  it('fails a declared length over the limit before reading the body, and a longer body as it arrives', async () => {
    routes['/big'] = (_req, res) => res.writeHead(200, { 'content-length': '2048' }).end('x'.repeat(2048));
    routes['/stream'] = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x'.repeat(1500));
      setTimeout(() => res.end('y'.repeat(1500)), 20);
    };
    const declared = await failureOf(client.get(`${server.url}/big`, { headers: {}, timeoutMs: 5000, maxResponseBytes: 1024 }));
    expect(declared).toBeInstanceOf(OutboundError);
    expect(declared).toMatchObject({ reason: 'too_large', message: `GET ${server.url}: response is larger than 1024 bytes` });
    const streamed = await failureOf(client.get(`${server.url}/stream`, { headers: {}, timeoutMs: 5000, maxResponseBytes: 2000 }));
    expect(streamed).toMatchObject({ reason: 'too_large' });
    // The client is still usable afterwards.
    expect((await client.get(`${server.url}/ok`, { headers: {}, timeoutMs: 5000 })).status).toBe(200);
  });

  it('gives up at the deadline on a server that never answers, or never finishes its body', async () => {
    routes['/hang'] = () => undefined;
    routes['/slow-body'] = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    };
    for (const path of ['/hang', '/slow-body']) {
      const started = performance.now();
      const failure = await failureOf(client.post(`${server.url}${path}`, { headers: {}, body: '{}', timeoutMs: 300 }));
      const took = performance.now() - started;
      expect(failure).toMatchObject({ reason: 'timeout', message: `POST ${server.url}: no complete response within 300 ms` });
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(2000);
    }
    for (const res of open) res.destroy();
  });

  it('never writes a call whose deadline passed while it waited for a connection', async () => {
    const one = new OutboundClient({ allowPrivate: true, connectionsPerOrigin: 1 });
    try {
      let release: (() => void) | undefined;
      routes['/hold'] = (_req, res) => {
        release = () => res.writeHead(200).end('held');
      };
      const first = one.post(`${server.url}/hold`, { headers: {}, body: 'first', timeoutMs: 5000 });
      await within(2000, async () => release !== undefined);
      // The only connection is busy: this call waits for it, and its deadline passes first.
      const waiting = await failureOf(one.post(`${server.url}/late`, { headers: {}, body: 'second', timeoutMs: 200 }));
      expect(waiting).toMatchObject({ reason: 'timeout' });
      release!();
      expect((await first).body).toBe('held');
      // A later call goes through the same connection; the abandoned one never reached the server.
      expect((await one.post(`${server.url}/after`, { headers: {}, body: 'third', timeoutMs: 5000 })).status).toBe(200);
      expect(seen.map((s) => s.url)).toEqual(['/hold', '/after']);
    } finally {
      await one.close();
    }
  });

  it("abandons a call at once when its caller's signal aborts, closing its connection then rather than at the deadline", async () => {
    let closedAt: number | undefined;
    routes['/slow'] = (_req, res) => {
      res.on('close', () => {
        closedAt = performance.now();
      });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('the start of an answer that never ends');
    };
    const controller = new AbortController();
    const pending = failureOf(client.get(`${server.url}/slow`, { headers: {}, timeoutMs: 10_000, signal: controller.signal }));
    await within(2000, async () => seen.length === 1);
    const abortedAt = performance.now();
    controller.abort();
    const failure = await pending;
    expect(failure).toMatchObject({ reason: 'aborted', message: `GET ${server.url}: the call was abandoned by its caller` });
    expect(performance.now() - abortedAt).toBeLessThan(500);
    // The slow server sees its connection closed now, not at the call's 10 s deadline.
    await within(1000, async () => closedAt !== undefined);
    expect(closedAt! - abortedAt).toBeLessThan(1000);
  });

  it('never opens a connection for a call whose signal has already aborted, and never writes one abandoned while it waited', async () => {
    const before = server.connections();
    const gone = new AbortController();
    gone.abort();
    expect(await failureOf(client.post(`${server.url}/never`, { headers: {}, body: '{}', timeoutMs: 5000, signal: gone.signal }))).toMatchObject({
      reason: 'aborted',
    });
    expect(server.connections()).toBe(before);

    const one = new OutboundClient({ allowPrivate: true, connectionsPerOrigin: 1 });
    try {
      let release: (() => void) | undefined;
      routes['/hold'] = (_req, res) => {
        release = () => res.writeHead(200).end('held');
      };
      const first = one.post(`${server.url}/hold`, { headers: {}, body: 'first', timeoutMs: 5000 });
      await within(2000, async () => release !== undefined);
      // The only connection is busy: this call waits for it, and its caller goes away first.
      const controller = new AbortController();
      const waiting = failureOf(one.post(`${server.url}/abandoned`, { headers: {}, body: 'second', timeoutMs: 5000, signal: controller.signal }));
      controller.abort();
      expect(await waiting).toMatchObject({ reason: 'aborted' });
      release!();
      expect((await first).body).toBe('held');
      expect((await one.post(`${server.url}/after`, { headers: {}, body: 'third', timeoutMs: 5000 })).status).toBe(200);
      expect(seen.map((s) => s.url)).toEqual(['/hold', '/after']);
    } finally {
      await one.close();
    }
  });

  it('stops listening to a signal once the call is settled', async () => {
    const controller = new AbortController();
    const res = await client.get(`${server.url}/done`, { headers: {}, timeoutMs: 5000, signal: controller.signal });
    expect(res.status).toBe(200);
    // A settled call is no longer a listener (a signal outliving many calls does not gather them), a failed one neither.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const other = new AbortController();
    routes['/gone'] = (_req, res) => res.destroy();
    expect(await failureOf(client.get(`${server.url}/gone`, { headers: {}, timeoutMs: 5000, signal: other.signal }))).toMatchObject({ reason: 'connection' });
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });

  it('reuses its keep-alive connection for calls in turn', async () => {
    const before = server.connections();
    const fresh = new OutboundClient({ allowPrivate: true });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await fresh.post(`${server.url}/again`, { headers: {}, body: String(i), timeoutMs: 5000 })).status).toBe(200);
        // undici hands a finished connection back to its pool on the next turn of the event loop; a call
        // made before that opens another connection.
        await new Promise((r) => setImmediate(r));
      }
      expect(server.connections() - before).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('names a refused connection and an untrusted certificate', async () => {
    const gone = await startHttpsServer((_req, res) => res.end());
    const url = gone.url;
    await gone.close();
    const refused = await failureOf(client.post(`${url}/x`, { headers: {}, body: '{}', timeoutMs: 5000 }));
    expect(refused).toMatchObject({ reason: 'connection', code: 'ECONNREFUSED', message: `POST ${url}: connection failed (ECONNREFUSED)` });

    const untrusted = await startHttpsServer((_req, res) => res.end('{}'), { certificate: 'untrusted' });
    try {
      const tls = await failureOf(client.post(`${untrusted.url}/x`, { headers: {}, body: '{}', timeoutMs: 5000 }));
      expect(tls).toMatchObject({ reason: 'tls' });
      expect(tls.message).toMatch(new RegExp(`^POST ${untrusted.url.replace(/[.[\]]/g, '\\$&')}: TLS failed \\(`));
    } finally {
      await untrusted.close();
    }
  });

  it('refuses a bad URL and, unless told otherwise, a private address, before any socket', async () => {
    const canary = await startCanary();
    const guarded = new OutboundClient({ allowPrivate: false });
    try {
      expect(await failureOf(client.post('http://example.com/', { headers: {}, body: '', timeoutMs: 1000 }))).toMatchObject({ reason: 'invalid_url' });
      expect(await failureOf(guarded.post(`${canary.url}/x`, { headers: {}, body: '', timeoutMs: 1000 }))).toMatchObject({ reason: 'blocked_address' });
      expect(await failureOf(guarded.post(`https://localhost:${canary.port}/x`, { headers: {}, body: '', timeoutMs: 1000 }))).toMatchObject({
        reason: 'blocked_address',
      });
      expect(canary.connections()).toBe(0);
    } finally {
      await guarded.close();
      await canary.close();
    }
  });

  it('reports a malformed header as the caller’s error, not a failure of the far side', async () => {
    const err = await failureOf(client.post(`${server.url}/x`, { headers: { 'x-bad': 'a\r\nb' }, body: '{}', timeoutMs: 1000 }));
    expect(err).not.toBeInstanceOf(OutboundError);
    expect((err as unknown as { code: string }).code).toBe('UND_ERR_INVALID_ARG');
    expect(seen).toHaveLength(0);
  });
});
