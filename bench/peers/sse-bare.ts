// Fan-out baseline: a bare node:http Server-Sent Events hub. GET /events keeps the response open with the
// headers and preamble our event stream sends; POST /push {data} numbers the event and writes the same
// message as ours (`id`, `event: message`, `data` of {id, event, data, created_at}) to every open reader.
// Nothing is stored or authenticated: it is the floor a fan-out of one session can cost in Node.
import http from 'node:http';
import { main, serve } from './common';

/**
 * Ours' SSE headers and framing (rest/streams.ts: the body runs to the connection's close, not in chunks),
 * so that both answers cost the same to write.
 */
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'close',
  'x-accel-buffering': 'no',
};
const PREAMBLE = 'retry: 2000\n: connected\n\n';
const PUSH_BODY_MAX = 64 * 1024;

main(async () => {
  const readers = new Set<http.ServerResponse>();
  let lastId = 0;

  const push = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= PUSH_BODY_MAX) chunks.push(c);
    });
    req.on('end', () => {
      let data: unknown;
      try {
        data = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: unknown }).data;
      } catch {
        data = undefined;
      }
      if (data === undefined || size > PUSH_BODY_MAX) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"expected {\\"data\\": <JSON>}"}');
        return;
      }
      const id = String(++lastId);
      // One string for every reader, as ours shares one frame per event.
      const json = JSON.stringify({ id, event: 'message', data, created_at: new Date().toISOString() });
      const message = `id: ${id}\nevent: message\ndata: ${json}\n\n`;
      for (const reader of readers) reader.write(message);
      const body = JSON.stringify({ pushed: true, count: 1, last_event_id: lastId });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) }).end(body);
    });
  };

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/events') {
      res.useChunkedEncodingByDefault = false;
      res.writeHead(200, SSE_HEADERS);
      res.write(PREAMBLE);
      readers.add(res);
      req.once('close', () => {
        readers.delete(res);
        res.end();
      });
    } else if (req.method === 'POST' && path === '/push') {
      push(req, res);
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    }
  });
  serve(server);
});
