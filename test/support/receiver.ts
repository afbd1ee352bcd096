// A webhook receiver on loopback HTTPS that records every request (headers and raw body) and answers
// with the statuses a test scripts, one per request, then 200.
import type { IncomingHttpHeaders } from 'node:http';
import { startHttpsServer, type HttpsTestServer } from './https';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  status: number;
}

type Scripted = number | { status: number; location: string } | 'hang';

export interface Receiver extends HttpsTestServer {
  received: Received[];
  /**
   * Answers for the next requests, in order (then 200): a status, a `{ status, location }` that adds a
   * Location header, or 'hang' (recorded, never answered).
   */
  respond(...statuses: Scripted[]): void;
  /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  const script: Scripted[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = await startHttpsServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const next = script.shift() ?? 200;
      const status = next === 'hang' ? 0 : typeof next === 'number' ? next : next.status;
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      received.push({ headers: req.headers, body, json, status });
      for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
      if (next === 'hang') return;
      res.writeHead(status, typeof next === 'number' ? { 'content-type': 'application/json' } : { location: next.location }).end('{"ok":true}');
    });
  });
  return {
    ...server,
    url: `${server.url}${path}`,
    received,
    respond: (...statuses) => void script.push(...statuses),
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (received.length >= count) return resolve(received);
        const timer = setTimeout(() => reject(new Error(`expected ${count} requests, got ${received.length}`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(received)) });
      }),
  };
}
