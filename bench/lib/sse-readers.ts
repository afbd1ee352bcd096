// Readers of the fan-out scenario, run as their own process (`spawnTs`) so that the cost of a thousand
// clients is not charged to, or competing in, the process that drives and measures. Commands arrive as JSON
// lines on stdin, each answered by one `{"reply":<n>,...}` line on stdout:
//   {"n":1,"cmd":"open","url":"…","headers":{…},"count":1000,"timeoutMs":60000}
//       opens `count` SSE connections; answers once each has its first body bytes or has failed, with how
//       many opened (status 200) and why the others did not
//   {"n":2,"cmd":"counts"}   messages received so far (those with an `id:` line), per-connection spread,
//       ids out of order, connections the server closed, delivery latency from the `sent` stamp in data,
//       and the first message received (to compare the servers' framing)
//   {"n":3,"cmd":"mark"}     forgets the latencies so far: the next counts report only later messages'
//       (the held-readers scenario reads each broadcast's time to its last reader this way)
//   {"n":4,"cmd":"close"}    closes every connection
// Exits when stdin closes (the benchmark went away) or on SIGTERM.
import http from 'node:http';

/** Opening a thousand at once would overflow the server's accept backlog (511) and retry after 1 s. */
const OPEN_CONCURRENCY = 100;
/** Distinct reasons kept for the report of readers that did not connect. */
const ERRORS_KEPT = 5;

interface Conn {
  req: http.ClientRequest;
  /** Has answered 200 and written its first bytes (ours' preamble). */
  ready: boolean;
  status: number;
  pending: string;
  received: number;
  lastId: number;
  /** Ids that were not above the previous one (repeats or out of order). */
  disorder: number;
  closedByServer: boolean;
  closedByUs: boolean;
}

let conns: Conn[] = [];
let latencies: number[] = [];
/** The first event message any reader received, so the driver can check both servers frame alike. */
let sample: string | null = null;
// A keep-alive agent without a socket cap: every reader holds its own socket for the whole round.
let agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/** Monotonic milliseconds, the same clock in every process on the machine (CLOCK_MONOTONIC). */
const nowMs = () => Number(process.hrtime.bigint() / 1000n) / 1000;

function reply(n: unknown, body: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ reply: n, ...body })}\n`);
}

/** Counts one SSE message: its `id:` line, and its latency if the pushed data carries `"sent":<ms>`. */
function onMessage(conn: Conn, message: string, receivedAt: number): void {
  let id: number | undefined;
  for (const line of message.split('\n')) {
    if (line.startsWith('id:')) id = Number(line.slice(3).trim());
    else if (line.startsWith('data:')) {
      const at = line.indexOf('"sent":');
      if (at !== -1) {
        const sent = parseFloat(line.slice(at + 7));
        if (Number.isFinite(sent)) latencies.push(receivedAt - sent);
      }
    }
  }
  if (id === undefined || !Number.isFinite(id)) return;
  sample ??= message;
  conn.received++;
  if (id <= conn.lastId) conn.disorder++;
  else conn.lastId = id;
}

function openOne(url: URL, headers: Record<string, string>, errors: string[], timeoutMs: number): Promise<Conn> {
  return new Promise((resolve) => {
    const conn: Conn = {
      req: undefined as never,
      ready: false,
      status: 0,
      pending: '',
      received: 0,
      lastId: 0,
      disorder: 0,
      closedByServer: false,
      closedByUs: false,
    };
    let settled = false;
    const settle = (problem?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (problem && errors.length < ERRORS_KEPT && !errors.includes(problem)) errors.push(problem);
      resolve(conn);
    };
    const timer = setTimeout(() => {
      settle(`no first bytes within ${timeoutMs} ms`);
      conn.closedByUs = true;
      conn.req.destroy();
    }, timeoutMs);
    conn.req = http.get(url, { agent, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      conn.status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      if (conn.status !== 200) {
        let body = '';
        res.on('data', (c: string) => (body += c));
        res.on('end', () => settle(`status ${conn.status}: ${body.slice(0, 200)}`));
        res.on('error', () => settle(`status ${conn.status}`));
        return;
      }
      res.on('data', (chunk: string) => {
        if (!conn.ready) {
          conn.ready = true;
          settle();
        }
        const receivedAt = nowMs();
        let text = conn.pending + chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) !== -1) {
          onMessage(conn, text.slice(0, end), receivedAt);
          text = text.slice(end + 2);
        }
        conn.pending = text;
      });
      res.on('close', () => {
        if (!conn.closedByUs) conn.closedByServer = true;
        settle('closed before its first bytes');
      });
    });
    conn.req.on('error', (err) => settle(`${(err as NodeJS.ErrnoException).code ?? err.message}`));
  });
}

async function open(n: unknown, url: string, headers: Record<string, string>, count: number, timeoutMs: number): Promise<void> {
  close();
  const started = Date.now();
  const errors: string[] = [];
  const target = new URL(url);
  let next = 0;
  const opened: Conn[] = [];
  const worker = async () => {
    while (next < count) {
      next++;
      opened.push(await openOne(target, headers, errors, timeoutMs));
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, count) }, worker));
  conns = opened;
  const statuses: Record<string, number> = {};
  for (const c of opened) statuses[String(c.status)] = (statuses[String(c.status)] ?? 0) + 1;
  reply(n, { opened: opened.filter((c) => c.ready).length, asked: count, statuses, errors, ms: Date.now() - started });
}

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function counts(n: unknown): void {
  const ready = conns.filter((c) => c.ready);
  const per = ready.map((c) => c.received);
  const sorted = Float64Array.from(latencies).sort();
  const lat = Array.from(sorted);
  reply(n, {
    readers: ready.length,
    open: ready.filter((c) => !c.closedByServer).length,
    closed_by_server: ready.filter((c) => c.closedByServer).length,
    received: per.reduce((a, b) => a + b, 0),
    min: per.length ? Math.min(...per) : 0,
    max: per.length ? Math.max(...per) : 0,
    disorder: ready.reduce((a, c) => a + c.disorder, 0),
    latency_ms: { n: lat.length, p50: percentile(lat, 50), p99: percentile(lat, 99), max: lat.length ? lat[lat.length - 1] : null },
    sample,
  });
}

function close(): void {
  for (const c of conns) {
    c.closedByUs = true;
    c.req.destroy();
  }
  conns = [];
  latencies = [];
  sample = null;
  // A fresh agent per round: nothing pooled from the previous target lingers.
  agent.destroy();
  agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
}

function handle(line: string): void {
  let cmd: { n?: unknown; cmd?: string; url?: string; headers?: Record<string, string>; count?: number; timeoutMs?: number };
  try {
    cmd = JSON.parse(line) as typeof cmd;
  } catch {
    reply(null, { error: `not JSON: ${line.slice(0, 100)}` });
    return;
  }
  switch (cmd.cmd) {
    case 'open':
      if (typeof cmd.url !== 'string' || !Number.isInteger(cmd.count)) return reply(cmd.n, { error: 'open needs url and count' });
      void open(cmd.n, cmd.url, cmd.headers ?? {}, cmd.count!, cmd.timeoutMs ?? 60_000).catch((err: unknown) =>
        reply(cmd.n, { error: (err as Error).message }),
      );
      return;
    case 'counts':
      return counts(cmd.n);
    case 'mark':
      latencies = [];
      return reply(cmd.n, { marked: true });
    case 'close':
      close();
      return reply(cmd.n, { closed: true });
    default:
      return reply(cmd.n, { error: `unknown command ${String(cmd.cmd)}` });
  }
}

const exit = () => {
  close();
  process.exit(0);
};
process.on('SIGTERM', exit);
process.on('SIGINT', exit);
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) if (line.trim()) handle(line);
});
process.stdin.on('end', exit);
process.stdin.on('error', exit);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
