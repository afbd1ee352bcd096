// A capability provider on loopback HTTPS: records every call (headers, raw body) and answers as a test
// scripts — a JSON result (the default echoes the input), another status, garbage, nothing, or silence.
import type { IncomingHttpHeaders } from 'node:http';
import { arrivals } from './arrivals';
import { startHttpsServer, type HttpsTestServer } from './https';

export interface Call {
  /** GET for the marketplace's health probes, POST for calls. */
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  /** When the call arrived (`performance.now()`), for tests that check what overlapped. */
  at: number;
}

/** One answer: `hang` never answers; `body` is sent as is; otherwise `json` (default: an echo). */
export interface Behaviour {
  status?: number;
  json?: unknown;
  body?: string;
  delayMs?: number;
  hang?: boolean;
  /** Headers besides its content type (a 429's Retry-After). */
  headers?: Record<string, string>;
  /** Answer only once this settles (after `delayMs`, if any): calls held together are answered together. */
  until?: Promise<unknown>;
}

export interface Provider extends HttpsTestServer {
  calls: Call[];
  /** Answers for the next calls, in order; then the default. */
  behave(...next: Behaviour[]): void;
  /** The answer once the scripted ones are used up. */
  setDefault(b: Behaviour): void;
  /** Resolves once `count` calls have arrived in all (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Call[]>;
}

export async function startProvider(name = 'provider'): Promise<Provider> {
  const calls: Call[] = [];
  const script: Behaviour[] = [];
  let fallback: Behaviour = {};
  const arrived = arrivals(calls, 'calls');
  const server = await startHttpsServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      calls.push({ method: req.method ?? '', headers: req.headers, body, json, at: performance.now() });
      arrived.arrived();
      // A GET is the marketplace's health probe, not a call: it takes the default answer and leaves the script alone.
      const b = req.method === 'GET' ? fallback : (script.shift() ?? fallback);
      if (b.hang) return;
      const answer = () => {
        const payload = b.body ?? JSON.stringify(b.json ?? { served_by: name, echo: json?.input ?? null });
        res.writeHead(b.status ?? 200, { 'content-type': 'application/json', ...b.headers }).end(payload);
      };
      const release = b.until ? () => void b.until!.then(answer) : answer;
      if (b.delayMs) setTimeout(release, b.delayMs);
      else release();
    });
  });
  return {
    ...server,
    url: `${server.url}/run`,
    calls,
    behave: (...next) => void script.push(...next),
    setDefault: (b) => {
      fallback = b;
    },
    waitFor: arrived.waitFor,
  };
}
