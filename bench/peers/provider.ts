// The capability provider of the execute scenario: HTTPS on loopback with the test CA's certificate
// (test/fixtures/tls), answering every POST with a small JSON result after BENCH_PROVIDER_DELAY_MS (20).
// The benchmark loads it directly (the peer) and through our POST /execute (ours), in the same run.
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { main, serve } from './common';

const TLS_DIR = path.resolve(__dirname, '..', '..', 'test', 'fixtures', 'tls');
const DELAY_MS = Number(process.env.BENCH_PROVIDER_DELAY_MS ?? 20);

main(async () => {
  const server = https.createServer(
    { cert: fs.readFileSync(path.join(TLS_DIR, 'server.pem')), key: fs.readFileSync(path.join(TLS_DIR, 'server-key.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let input: unknown = null;
        try {
          input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input?: unknown }).input ?? null;
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"not JSON"}');
          return;
        }
        const body = JSON.stringify({ summary: 'bench', echo: input });
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body), DELAY_MS);
      });
    },
  );
  serve(server);
});
