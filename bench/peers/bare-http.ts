// Reference peer: a bare node:http server answering a fixed small JSON body to any request.
import http from 'node:http';
import { main, serve } from './common';

const BODY = JSON.stringify({ ok: true, peer: 'bare-http' });
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(BODY)) };

main(async () => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, HEADERS);
    res.end(BODY);
  });
  serve(server);
});
