// The soak's mixed work against one server, on an open-loop schedule (each operation at its own steady
// rate whether or not earlier requests have answered): registrations, reads over REST and GraphQL, varied
// resolve, execute against the provider peer, memory writes and searches, pushes into a streaming session
// read by SSE readers and graphql-ws subscribers that join and leave, and the webhook deliveries the
// executions cause. Every answer is checked; a wrong one is an error with an example kept for the report.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { percentile } from './report';
import { readSseEvents } from '../test/support/sse';

/** Requests a second of each operation: about 30 in all, a steady modest load (the point is flatness, not throughput). */
export const RATES: Record<string, number> = {
  register: 0.5,
  me_rest: 4,
  me_graphql: 3,
  resolve: 5,
  execute: 4,
  memory_write: 2,
  memory_search: 3,
  stream_push: 2,
};
/** Operations that write (the database's growth is judged per write). */
const WRITES = new Set(['register', 'execute', 'memory_write', 'stream_push']);
/** Requests of one operation in flight at most: beyond it the server has fallen behind, which is an error. */
const MAX_IN_FLIGHT = 64;
const TIMEOUT_MS = 10_000;

/** Readers of each kind held at once; one joins every READER_JOIN_S and each leaves READER_LIFE_S after joining. */
const READERS = 4;
const READER_JOIN_S = 5;
const READER_LIFE_S = READERS * READER_JOIN_S;

/** The capabilities of the resolve catalog, and the execute scenario's own. */
export const CATALOG_CAPABILITIES = Array.from({ length: 10 }, (_, i) => `soak-cap-${i}`);
export const EXECUTE_CAPABILITY = 'soak-execute';
const PREFER = ['balanced', 'reputation', 'cost', 'latency'];
const LANGUAGES = ['en', 'fr', 'de'];
/** Memory keys cycle over this many, so each reaches the 50 kept versions and old ones are pruned. */
const MEMORY_KEYS = 200;

/** Per operation, the answers of the current 10-second interval. */
export class Recorder {
  private current = new Map<string, { durations: number[]; errors: number }>();
  writes = 0;
  totalWrites = 0;
  errors = 0;
  readonly examples: string[] = [];

  ok(op: string, ms: number): void {
    this.bucket(op).durations.push(ms);
    if (WRITES.has(op)) {
      this.writes++;
      this.totalWrites++;
    }
  }

  fail(op: string, what: string): void {
    this.bucket(op).errors++;
    this.error(`${op}: ${what}`);
  }

  /** An error outside a request (a gap in a stream, a delivery missing). */
  error(what: string): void {
    this.errors++;
    if (this.examples.length < 20) this.examples.push(what.replace(/key_[a-z]+_\w+/g, 'key_[REDACTED]').slice(0, 300));
  }

  private bucket(op: string) {
    let b = this.current.get(op);
    if (!b) this.current.set(op, (b = { durations: [], errors: 0 }));
    return b;
  }

  /** The interval's figures per operation, and the writes answered in it; starts the next interval. */
  take(): { ops: Record<string, { count: number; p50Ms: number; p99Ms: number; errors: number }>; writes: number } {
    const ops: Record<string, { count: number; p50Ms: number; p99Ms: number; errors: number }> = {};
    for (const [op, b] of this.current)
      ops[op] = { count: b.durations.length, p50Ms: percentile(b.durations, 50), p99Ms: percentile(b.durations, 99), errors: b.errors };
    this.current = new Map();
    const writes = this.writes;
    this.writes = 0;
    return { ops, writes };
  }
}

export interface Agent {
  id: string;
  key: string;
}

export interface Fixture {
  url: string;
  me: Agent;
  storeId: string;
  sessionId: string;
  runTag: string;
}

async function call(url: string, method: string, path: string, key: string | undefined, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

/** A request that must answer `status` (and pass `check`), or be set up again: for the set-up, which must not fail. */
export async function must(url: string, method: string, path: string, key: string | undefined, body: unknown, status: number): Promise<any> {
  const res = await call(url, method, path, key, body);
  if (res.status !== status) throw new Error(`${method} ${path} answered ${res.status}, not ${status}: ${JSON.stringify(res.json).slice(0, 400)}`);
  return res.json;
}

export async function registerAgent(url: string, name: string): Promise<Agent> {
  const body = await must(
    url,
    'POST',
    '/api/v1/agents/register',
    undefined,
    { name, description: 'An agent of the soak run (npm run soak)', ownerEmail: 'soak@example.com' },
    201,
  );
  return { id: body.agent_id, key: body.master_key };
}

/** The resolve queries: capabilities × preferences × constraints, a thousand or so distinct ones, drawn at random. */
function resolveQuery(): Record<string, unknown> {
  const q: Record<string, unknown> = { capability: pick(CATALOG_CAPABILITIES), prefer: pick(PREFER), limit: pick([5, 10, 20]) };
  const r = Math.random();
  if (r < 0.25) q.min_reputation = pick([10, 20, 40]);
  else if (r < 0.5) q.max_cost = pick([5, 20, 50]);
  else if (r < 0.65) q.language = pick(LANGUAGES);
  return q;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];

/** What a reader checks: ids one after another from where it joined, and every push confirmed before it left. */
interface PushLog {
  /** Confirmed pushes: last event id and when its push answered (ms). */
  confirmed: { id: number; at: number }[];
}

export class Workload {
  private timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Map<string, number>();
  private readonly pending = new Set<Promise<unknown>>();
  private stopped = false;
  private counter = 0;
  /** Keys of agents registered during the run (the reads' callers), the latest few hundred. */
  private readonly callers: Agent[] = [];
  private readonly pushes: PushLog = { confirmed: [] };
  private readonly readers = new Set<{ close: () => Promise<void> }>();
  /** Executions that succeeded: each is an execution.succeeded event for the webhook receiver. */
  executed = 0;

  constructor(
    private readonly fx: Fixture,
    readonly recorder: Recorder,
  ) {
    this.callers.push(fx.me);
  }

  start(): void {
    for (const [op, rate] of Object.entries(RATES)) this.every(op, rate, () => this.run(op));
    this.timers.push(setInterval(() => void this.joinReaders(), READER_JOIN_S * 1000));
    void this.joinReaders();
  }

  /** Stops the schedule, waits for the requests in flight, and closes every reader (each checked as it leaves). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    await Promise.allSettled([...this.pending]);
    await Promise.allSettled([...this.readers].map((r) => r.close()));
  }

  /** Fires `fn` at `rate` a second on a fixed schedule (a random phase), never waiting for earlier calls. */
  private every(op: string, rate: number, fn: () => Promise<void>): void {
    const intervalMs = 1000 / rate;
    const started = performance.now() + Math.random() * intervalMs;
    let n = 0;
    const tick = () => {
      if (this.stopped) return;
      const inFlight = this.inFlight.get(op) ?? 0;
      if (inFlight >= MAX_IN_FLIGHT) this.recorder.fail(op, `${inFlight} requests in flight: the server fell behind`);
      else {
        this.inFlight.set(op, inFlight + 1);
        const p = fn().finally(() => {
          this.inFlight.set(op, (this.inFlight.get(op) ?? 1) - 1);
          this.pending.delete(p);
        });
        this.pending.add(p);
      }
      n++;
      const t = setTimeout(tick, Math.max(0, started + n * intervalMs - performance.now()));
      this.timers[this.timers.indexOf(timer)] = t;
      timer = t;
    };
    let timer = setTimeout(tick, Math.max(0, started - performance.now()));
    this.timers.push(timer);
  }

  /** One request of `op`, timed and checked. */
  private async run(op: string): Promise<void> {
    const { url, me, storeId, sessionId, runTag } = this.fx;
    const n = ++this.counter;
    const started = performance.now();
    let res: { status: number; json: any };
    let expect: (r: { status: number; json: any }) => boolean;
    try {
      switch (op) {
        case 'register':
          res = await call(url, 'POST', '/api/v1/agents/register', undefined, {
            name: `soak-${runTag}-${n}`,
            description: 'An agent of the soak run (npm run soak)',
            ownerEmail: 'soak@example.com',
          });
          expect = (r) => r.status === 201 && typeof r.json?.master_key === 'string';
          if (expect(res)) {
            this.callers.push({ id: res.json.agent_id, key: res.json.master_key });
            if (this.callers.length > 300) this.callers.splice(1, 1);
          }
          break;
        case 'me_rest': {
          const caller = pick(this.callers);
          res = await call(url, 'GET', '/api/v1/agents/me', caller.key);
          expect = (r) => r.status === 200 && r.json?.agent_id === caller.id;
          break;
        }
        case 'me_graphql': {
          const caller = pick(this.callers);
          res = await call(url, 'POST', '/graphql', caller.key, { query: 'query Me { me { agentId name reputation tier } }' });
          expect = (r) => r.status === 200 && !r.json?.errors && r.json?.data?.me?.agentId === caller.id;
          break;
        }
        case 'resolve':
          res = await call(url, 'POST', '/api/v1/resolve', me.key, resolveQuery());
          expect = (r) => r.status === 200 && Array.isArray(r.json?.matches);
          break;
        case 'execute':
          res = await call(url, 'POST', '/api/v1/execute', me.key, { capability: EXECUTE_CAPABILITY, input: { text: `soak ${n}` } });
          expect = (r) => r.status === 200 && r.json?.status === 'success';
          if (expect(res)) this.executed++;
          break;
        case 'memory_write': {
          const expiring = n % 4 === 0;
          const entries = Array.from({ length: 5 }, (_, j) => ({
            key: expiring ? `ttl-${n}-${j}` : `k-${(n * 5 + j) % MEMORY_KEYS}`,
            value: { n, j, text: `soak entry ${n} ${j} ${'x'.repeat(64)}` },
            ...(expiring ? { ttlSeconds: 30 } : {}),
          }));
          res = await call(url, 'PUT', `/api/v1/memory/stores/${storeId}/entries`, me.key, { entries });
          expect = (r) => r.status === 200 && r.json?.written === 5;
          break;
        }
        case 'memory_search':
          res = await call(
            url,
            'POST',
            `/api/v1/memory/stores/${storeId}/search`,
            me.key,
            Math.random() < 0.5
              ? { prefix: `k-${Math.floor(Math.random() * 20)}`, limit: 10 }
              : { query: `entry ${Math.floor(Math.random() * 1000)}`, limit: 10 },
          );
          expect = (r) => r.status === 200 && Array.isArray(r.json?.results);
          break;
        case 'stream_push':
          res = await call(url, 'POST', `/api/v1/streaming/sessions/${sessionId}/push`, me.key, { event: 'tick', data: { n } });
          expect = (r) => r.status === 200 && r.json?.pushed === true && Number.isInteger(Number(r.json?.last_event_id));
          if (expect(res)) this.pushes.confirmed.push({ id: Number(res.json.last_event_id), at: performance.now() });
          if (this.pushes.confirmed.length > 1000) this.pushes.confirmed.splice(0, 500);
          break;
        default:
          throw new Error(`unknown operation ${op}`);
      }
    } catch (err) {
      this.recorder.fail(op, (err as Error).message);
      return;
    }
    const ms = performance.now() - started;
    if (expect(res)) this.recorder.ok(op, ms);
    else this.recorder.fail(op, `${res.status} ${JSON.stringify(res.json).slice(0, 200)}`);
  }

  /** The id of the last push confirmed at least `graceMs` ago (a reader must have it by now), 0 if none. */
  private confirmedBefore(graceMs: number): number {
    const cutoff = performance.now() - graceMs;
    let id = 0;
    for (const p of this.pushes.confirmed) if (p.at <= cutoff && p.id > id) id = p.id;
    return id;
  }

  private lastConfirmed(): number {
    return this.pushes.confirmed.reduce((m, p) => Math.max(m, p.id), 0);
  }

  /** One SSE reader and one graphql-ws subscriber join; each leaves READER_LIFE_S later. */
  private async joinReaders(): Promise<void> {
    if (this.stopped) return;
    await Promise.all([this.track(this.openSse()), this.track(this.openWs())]);
  }

  private async track(opening: Promise<{ close: () => Promise<void> } | undefined>): Promise<void> {
    const reader = await opening;
    if (!reader) return;
    this.readers.add(reader);
    const timer = setTimeout(() => void reader.close().finally(() => this.readers.delete(reader)), READER_LIFE_S * 1000);
    this.timers.push(timer);
  }

  /**
   * A reader's checks: each event is the one after the last (no gap, no repeat) from where it joined, and by
   * the time it leaves it has every push confirmed a second before.
   */
  private follower(kind: string, after: number) {
    let expected = after + 1;
    let broken = false;
    return {
      event: (id: number) => {
        if (broken) return;
        if (id !== expected) {
          broken = true;
          this.recorder.error(`${kind} reader: event ${id} where ${expected} was due (joined after ${after})`);
        }
        expected = id + 1;
      },
      leaving: () => {
        const due = this.confirmedBefore(1000);
        if (!broken && due > after && expected <= due)
          this.recorder.error(`${kind} reader: left with events up to ${expected - 1}, ${due} pushed a second before (joined after ${after})`);
      },
    };
  }

  private async openSse(): Promise<{ close: () => Promise<void> } | undefined> {
    const { url, me, sessionId } = this.fx;
    const after = this.lastConfirmed();
    const abort = new AbortController();
    const started = performance.now();
    let res: Response;
    try {
      res = await fetch(`${url}/api/v1/streaming/sessions/${sessionId}/events`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${me.key}`, 'last-event-id': String(after) },
        signal: abort.signal,
      });
    } catch (err) {
      this.recorder.fail('sse_join', (err as Error).message);
      return undefined;
    }
    if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      this.recorder.fail('sse_join', `${res.status} ${(await res.text()).slice(0, 200)}`);
      return undefined;
    }
    this.recorder.ok('sse_join', performance.now() - started);
    const follow = this.follower('SSE', after);
    const reading = readSseEvents(res.body as unknown as AsyncIterable<Uint8Array>, (event) => {
      if (event.id !== undefined) follow.event(Number(event.id));
    }).catch(() => {
      // closed by us
    });
    return {
      close: async () => {
        follow.leaving();
        abort.abort();
        await reading;
      },
    };
  }

  private async openWs(): Promise<{ close: () => Promise<void> } | undefined> {
    const { url, me, sessionId } = this.fx;
    const after = this.lastConfirmed();
    const started = performance.now();
    let client: Client;
    const connected = new Promise<void>((resolve, reject) => {
      client = createClient({
        url: `${url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${me.key}` },
        retryAttempts: 0,
        lazy: true,
        on: {
          connected: () => resolve(),
          closed: () => reject(new Error('closed before it connected')),
          error: (e) => reject(e instanceof Error ? e : new Error(String(e))),
        },
      });
    });
    const follow = this.follower('graphql-ws', after);
    let failed: string | undefined;
    const unsubscribe = client!.subscribe<{ streamingSessionEvents: { id: string } }>(
      {
        query: 'subscription Events($id: ID!, $after: Int) { streamingSessionEvents(sessionId: $id, after: $after) { id } }',
        variables: { id: sessionId, after },
      },
      {
        next: (result) => {
          if (result.errors?.length) failed = JSON.stringify(result.errors).slice(0, 200);
          else if (result.data) follow.event(Number(result.data.streamingSessionEvents.id));
        },
        error: (err) => {
          failed = err instanceof Error ? err.message : JSON.stringify(err).slice(0, 200);
        },
        complete: () => {},
      },
    );
    try {
      await Promise.race([connected, new Promise((_, reject) => setTimeout(() => reject(new Error('not connected within 10 s')), TIMEOUT_MS))]);
    } catch (err) {
      this.recorder.fail('ws_join', (err as Error).message);
      unsubscribe();
      await client!.dispose();
      return undefined;
    }
    this.recorder.ok('ws_join', performance.now() - started);
    return {
      close: async () => {
        if (failed) this.recorder.error(`graphql-ws subscriber: ${failed}`);
        else follow.leaving();
        unsubscribe();
        await client.dispose();
      },
    };
  }
}
