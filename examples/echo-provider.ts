// A capability provider a reader can start in one command, for the README's paid call: HTTPS on loopback with
// the test certificate (test/fixtures/tls), answering the marketplace's signed POST with the input it was sent.
// With PROVIDER_SIGNING_SECRET (the `signing_secret` POST /services/register returned) it refuses calls whose
// Standard Webhooks signature does not verify.
//
//   npx tsx examples/echo-provider.ts        # https://localhost:8443/run (PROVIDER_PORT to change it)
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import path from 'node:path';

const tls = path.resolve(__dirname, '../test/fixtures/tls');

/** The v1 (HMAC-SHA256) signature of `id.timestamp.body`, as the marketplace signs each call. */
function verified(secret: string | undefined, headers: IncomingHttpHeaders, body: string): boolean {
  if (!secret) return true;
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64'));
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .some((s) => {
      const given = Buffer.from(s.slice(3));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

export interface EchoProviderOptions {
  port?: number;
  /** The service's signing secret, read per call (it is known only once the service is registered). */
  signingSecret?: () => string | undefined;
}

export function startEchoProvider({ port = 8443, signingSecret = () => process.env.PROVIDER_SIGNING_SECRET }: EchoProviderOptions = {}) {
  const server = https.createServer(
    { cert: fs.readFileSync(path.join(tls, 'server.pem')), key: fs.readFileSync(path.join(tls, 'server-key.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (req.method !== 'POST' || !verified(signingSecret(), req.headers, body)) return void res.writeHead(req.method === 'POST' ? 401 : 405).end();
        let call: { capability?: string; input?: unknown };
        try {
          call = JSON.parse(body);
        } catch {
          return void res.writeHead(400).end();
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capability: call.capability, echo: call.input }));
      });
    },
  );
  return new Promise<https.Server>((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (require.main === module) {
  void startEchoProvider({ port: Number(process.env.PROVIDER_PORT ?? 8443) }).then((server) => {
    const { port } = server.address() as { port: number };
    console.log(`echo provider on https://localhost:${port}/run${process.env.PROVIDER_SIGNING_SECRET ? ' (verifying signatures)' : ''}`);
  });
}
