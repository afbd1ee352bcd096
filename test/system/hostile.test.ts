// An anonymous attacker against the server as operators run it (its own process, the embedded database):
// a corpus of hostile GraphQL documents, generated here, sent to every entry that takes a document (POST
// and GET /graphql, graphql-sse, graphql-ws), huge and many documents, a huge WebSocket frame, floods of
// anonymous connections and clients that send a request slowly. Each document is refused for under 50 ms of
// the server's CPU and in under a second, the server's resident memory grows less than 50 MB over the whole
// corpus, and /health answers throughout.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { threadCpuSeconds } from '../../bench/lib/proc-cpu';
import { eventually, within } from '../support/expect';
import { launchServer, type Running } from '../support/process';

jest.setTimeout(180_000);

let server: Running;
let base: string;
let dataDir: string;
const CONNECTIONS_PER_CALLER = 8;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marketplace-hostile-'));
  server = await launchServer(dataDir, {
    HEADERS_TIMEOUT_MS: '2000',
    REQUEST_TIMEOUT_MS: '3000',
    CONNECTIONS_PER_CALLER: String(CONNECTIONS_PER_CALLER),
    // The corpus is many requests from one address: the limits measured here are the document's, not the rate.
    RATE_LIMIT_DISABLED: '1',
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The server's resident memory, in bytes. */
function rss(): number {
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

const MB = 1024 * 1024;

/**
 * How much more the server holds than `before`, once it has settled: what the garbage collector and the
 * allocator have not yet given back after a burst is not held. Waits up to 40 s for it to fall under `bound`,
 * asking /health before each reading.
 */
async function heldGrowth(before: number, bound: number): Promise<number> {
  const now = rss() - before;
  if (now < bound) return now;
  const growth = async () => {
    await fetch(`${base}/health`).then((r) => r.text());
    return rss() - before;
  };
  return eventually(growth, (g) => g < bound, 40_000, { everyMs: 250 });
}

const FULL_INTROSPECTION = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
});

let variant = 0;
/** The same document, new to the server's cache (a comment makes it another text). */
const fresh = (doc: string) => `${doc}\n# ${++variant}`;

const corpus: Record<string, () => string> = {
  // Thirty fragments, each spreading the next twice: 2^30 selections in 1.2 KB.
  'fragment fan-out': () =>
    `{ me { ...F0 } } ${Array.from({ length: 30 }, (_, i) => `fragment F${i} on Agent { ${i < 29 ? `...F${i + 1} ...F${i + 1}` : 'id'} }`).join(' ')}`,
  // The same at the root, where rate limits count the root fields.
  'root fragment fan-out': () =>
    `query { ...F0 } ${Array.from({ length: 24 }, (_, i) => `fragment F${i} on Query { ${i < 23 ? `...F${i + 1} ...F${i + 1}` : 'health { status }'} }`).join(' ')}`,
  'alias flood under a list': () =>
    `{ services(first: 100) { edges { node { ${Array.from({ length: 5000 }, (_, i) => `a${i}: provider { id }`).join(' ')} } } } }`,
  'aliases within the limit, complexity over it': () =>
    `{ tasks(first: 100) { edges { node { ${Array.from({ length: 25 }, (_, i) => `a${i}: delegations { delegationId taskId subAgentId status createdAt endedAt }`).join(' ')} } } } }`,
  'introspection under 100 aliases': () => `{ ${Array.from({ length: 100 }, (_, i) => `s${i}: __schema { types { name fields { name } } }`).join(' ')} }`,
  // The standard full introspection with its type list asked for three times.
  'three full introspections': () =>
    FULL_INTROSPECTION.replace('__schema {', 'a: __schema { types { ...FullType } } b: __schema { types { ...FullType } } __schema {'),
  'one name selected hundreds of times': () => `{ ${Array.from({ length: 450 }, () => 'me { id }').join(' ')} }`,
  'nested two hundred deep': () => `{ ${'me { '.repeat(200)}id${' }'.repeat(200)} }`,
  'a megabyte of tokens': () => `{ me { ${'__typename '.repeat(90_000)} } }`,
};

interface Entry {
  /** Sends the document; resolves with the GraphQL errors' codes (or close codes), and how long it took. */
  send(doc: string): Promise<{ ms: number; codes: string[]; status?: number }>;
  /** Whether this entry can carry the document (a GET's URL has a size limit). */
  fits(doc: string): boolean;
}

const entries: Record<string, Entry> = {
  'POST /graphql': {
    fits: () => true,
    async send(doc) {
      const t = performance.now();
      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: doc }),
      });
      const body = await res.json();
      return {
        ms: performance.now() - t,
        status: res.status,
        codes: (body.errors ?? []).map((e: { extensions?: { code?: string } }) => String(e.extensions?.code)),
      };
    },
  },
  'GET /graphql': {
    fits: (doc) => encodeURIComponent(doc).length < 12_000,
    async send(doc) {
      const t = performance.now();
      const res = await fetch(`${base}/graphql?query=${encodeURIComponent(doc)}`, { headers: { accept: 'application/graphql-response+json' } });
      const body = await res.json();
      return {
        ms: performance.now() - t,
        status: res.status,
        codes: (body.errors ?? []).map((e: { extensions?: { code?: string } }) => String(e.extensions?.code)),
      };
    },
  },
  'graphql-sse': {
    fits: () => true,
    async send(doc) {
      const t = performance.now();
      const res = await fetch(`${base}/graphql/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: doc }),
      });
      const text = await res.text();
      const codes = [...text.matchAll(/"code":"([A-Z_]+)"/g)].map((m) => m[1]);
      return { ms: performance.now() - t, status: res.status, codes };
    },
  },
  'graphql-ws': {
    fits: () => true,
    async send(doc) {
      const t = performance.now();
      const codes = await new Promise<string[]>((resolve) => {
        ws.subscribe(
          { query: doc },
          {
            next: (r) => resolve((r.errors ?? []).map((e) => String(e.extensions?.code))),
            error: (e) =>
              resolve(
                Array.isArray(e) ? e.map((x: { extensions?: { code?: string } }) => String(x.extensions?.code)) : [String((e as { code?: number }).code ?? e)],
              ),
            complete: () => resolve([]),
          },
        );
      });
      return { ms: performance.now() - t, codes };
    },
  },
};

let ws: Client;

/** /health polled every 20 ms while `work` runs: every answer's status and time. */
async function whileHealthy<T>(work: () => Promise<T>): Promise<{ result: T; worstMs: number; failures: number; polls: number }> {
  let stop = false;
  let worstMs = 0;
  let failures = 0;
  let polls = 0;
  const poller = (async () => {
    while (!stop) {
      const t = performance.now();
      try {
        const res = await fetch(`${base}/health`);
        await res.text();
        if (res.status !== 200) failures++;
      } catch {
        failures++;
      }
      polls++;
      worstMs = Math.max(worstMs, performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    const result = await work();
    return { result, worstMs, failures, polls };
  } finally {
    stop = true;
    await poller;
  }
}

/** Sends every document of the corpus to every entry that can carry it, in fresh variants. */
async function sendCorpus(): Promise<void> {
  for (const [name, make] of Object.entries(corpus)) {
    for (const [entryName, entry] of Object.entries(entries)) {
      if (!entry.fits(make())) continue;
      // What a refusal costs is the server's event loop for it: its main thread's CPU. On a shared machine
      // the wall-clock time also holds whatever else runs meanwhile (the browser suite, another server), and
      // the whole process's CPU holds its helper threads' work of that window (V8's collector and compiler,
      // the embedded database's worker), which a slow machine stretches. Each of five fresh variants may
      // try; one must cost under 50 ms, and none may take a second.
      let best = Infinity;
      for (let attempt = 0; attempt < 5 && best >= 50; attempt++) {
        const cpuBefore = threadCpuSeconds(server.child.pid!);
        const { ms, codes, status } = await entry.send(fresh(make()));
        const cpuMs = (threadCpuSeconds(server.child.pid!) - cpuBefore) * 1000;
        expect({ document: name, entry: entryName, underASecond: ms < 1000 }).toEqual({ document: name, entry: entryName, underASecond: true });
        expect({ document: name, entry: entryName, codes, status: status === undefined || status === 400 ? 'ok' : status }).toEqual({
          document: name,
          entry: entryName,
          codes: [expect.stringMatching(/^(BAD_REQUEST|VALIDATION_FAILED)$/)],
          status: 'ok',
        });
        best = Math.min(best, cpuMs);
      }
      expect({ document: name, entry: entryName, cheap: best < 50 }).toEqual({ document: name, entry: entryName, cheap: true });
    }
  }
}

it('refuses every hostile document on every entry for under 50 ms of CPU, with a code, holding memory and /health', async () => {
  ws = createClient({ url: `ws://127.0.0.1:${server.port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
  try {
    // Warm every entry up (the first requests of each kind compile their code paths).
    for (const entry of Object.values(entries)) {
      for (const doc of ['{ __typename }', corpus['a megabyte of tokens'](), corpus['fragment fan-out']()]) if (entry.fits(doc)) await entry.send(fresh(doc));
    }
    const before = rss();
    const { worstMs, failures, polls } = await whileHealthy(sendCorpus);
    expect(failures).toBe(0);
    expect(polls).toBeGreaterThanOrEqual(3);
    expect(worstMs).toBeLessThan(1000);
    expect(await heldGrowth(before, 50 * MB)).toBeLessThan(50 * MB);
  } finally {
    await ws.dispose();
  }
});

it('keeps parsed documents within a byte budget: sixty distinct megabyte documents leave memory bounded', async () => {
  const before = rss();
  const { failures } = await whileHealthy(async () => {
    for (let i = 0; i < 60; i++) {
      // Half are refused for their tokens; half are valid documents carrying a 900 KB string.
      const doc = i % 2 ? fresh(corpus['a megabyte of tokens']()) : `{ resolve(input: { capability: "${'x'.repeat(900_000)}${i}" }) { total } }`;
      const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: doc }) });
      expect(res.status).toBeLessThan(500);
      await res.text();
    }
  });
  expect(failures).toBe(0);
  // Each weighs about 3.6 MB in the cache's estimate (its text twice, two bytes a character): a few are kept.
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const cacheBytes = Number(/^graphql_document_cache_bytes (\d+)/m.exec(metrics)![1]);
  expect(cacheBytes).toBeLessThanOrEqual(32 * MB);
  expect(Number(/^graphql_document_cache_entries (\d+)/m.exec(metrics)![1])).toBeLessThan(15);
  // 54 MB of documents went through, and each was copied a few times on its way (body, text, parse): what
  // the garbage collector and the allocator keep of such a burst for a while is allowed for. A cache
  // bounded by count kept all sixty: over 500 MB of parsed documents.
  expect(await heldGrowth(before, 100 * MB)).toBeLessThan(100 * MB);
});

it('holds at most CONNECTIONS_PER_CALLER anonymous WebSockets per address, refusing the rest with 429', async () => {
  const sockets: WebSocket[] = [];
  const outcomes = await Promise.all(
    Array.from({ length: 60 }, () => {
      const s = new WebSocket(`ws://127.0.0.1:${server.port}/graphql`, 'graphql-transport-ws');
      sockets.push(s);
      return new Promise<string>((resolve) => {
        s.once('open', () => resolve('open'));
        s.once('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
        s.once('error', () => resolve('error'));
      });
    }),
  );
  expect(outcomes.filter((o) => o === 'open')).toHaveLength(CONNECTIONS_PER_CALLER);
  expect(outcomes.filter((o) => o === '429')).toHaveLength(60 - CONNECTIONS_PER_CALLER);
  await Promise.all(sockets.map((s) => new Promise((r) => (s.readyState === WebSocket.CLOSED ? r(null) : (s.once('close', r), s.close())))));
  // Closed sockets give their slots back, once the server has seen their closes (which the client cannot
  // observe): a new socket is refused until then, and opens after.
  let again!: WebSocket;
  const opens = () =>
    new Promise<boolean>((resolve) => {
      again = new WebSocket(`ws://127.0.0.1:${server.port}/graphql`, 'graphql-transport-ws');
      again.once('open', () => resolve(true));
      again.once('unexpected-response', (req) => (req.destroy(), resolve(false)));
      again.on('error', () => resolve(false));
    });
  await within(5_000, opens, { everyMs: 20, what: 'a slot given back' });
  again.close();
});

it('closes a WebSocket that sends a frame larger than a request body (1009), accepting nothing of it', async () => {
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/graphql`, 'graphql-transport-ws');
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const before = rss();
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  socket.send(Buffer.alloc(16 * 1024 * 1024, 0x20));
  expect(await closed).toBe(1009);
  expect(await heldGrowth(before, 20 * MB)).toBeLessThan(20 * MB);
});

/** Opens a raw connection, sends `first`, then a byte every 400 ms; resolves with when the server closed it. */
function trickle(first: string, drip: string): Promise<{ closedAfterMs: number; answer: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(server.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.write(first);
    let i = 0;
    const timer = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(drip[i++ % drip.length]);
    }, 400);
    const done = () => {
      clearInterval(timer);
      resolve({ closedAfterMs: Date.now() - started, answer });
    };
    socket.on('close', done);
    socket.on('error', () => {});
    // A server that never closes it fails the test after 30 s.
    setTimeout(() => socket.destroy(), 30_000).unref();
  });
}

it('closes a client that trickles its body or its headers within seconds (408), not Node’s five minutes', async () => {
  const [body, headers] = await Promise.all([
    trickle('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"query":"', 'x'),
    trickle('GET /health HTTP/1.1\r\nHost: x\r\n', 'X-Slow: y\r\n'),
  ]);
  // REQUEST_TIMEOUT_MS is 3 s and HEADERS_TIMEOUT_MS 2 s here, checked every second.
  expect(body.closedAfterMs).toBeLessThan(6_000);
  expect(body.answer).toMatch(/^HTTP\/1.1 408/);
  expect(headers.closedAfterMs).toBeLessThan(5_000);
  expect(headers.answer).toMatch(/^HTTP\/1.1 408/);
});
