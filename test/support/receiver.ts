// A webhook receiver on loopback HTTPS that records every request (headers and raw body) and answers
// with the statuses a test scripts, one per request, then 200.
import type { IncomingHttpHeaders } from 'node:http';
import { arrivals } from './arrivals';
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
  const arrived = arrivals(received, 'requests');
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
      arrived.arrived();
      if (next === 'hang') return;
      res.writeHead(status, typeof next === 'number' ? { 'content-type': 'application/json' } : { location: next.location }).end('{"ok":true}');
    });
  });
  return {
    ...server,
    url: `${server.url}${path}`,
    received,
    respond: (...statuses) => void script.push(...statuses),
    waitFor: arrived.waitFor,
  };
}
