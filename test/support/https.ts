// Real HTTPS servers on loopback for outbound-call tests, using the test CA's certificate
// (test/fixtures/tls), and a canary that only counts connections, to prove a call never reached it.
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';

export const TLS_DIR = path.resolve(__dirname, '../fixtures/tls');
const tls = (name: string) => fs.readFileSync(path.join(TLS_DIR, name));

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface HttpsTestServer {
  /** https://127.0.0.1:PORT or https://[::1]:PORT, without a trailing slash. */
  url: string;
  port: number;
  /** TCP connections accepted so far (a TLS handshake need not have completed). */
  connections: () => number;
  close(): Promise<void>;
}

export interface HttpsServerOptions {
  host?: '127.0.0.1' | '::1';
  /** Listen on this port (the canary reuses one port on both loopback addresses); default any free one. */
  port?: number;
  /** A certificate pair from test/fixtures/tls other than the CA-signed server one, e.g. 'untrusted'. */
  certificate?: 'server' | 'untrusted';
}

export async function startHttpsServer(handler: Handler, opts: HttpsServerOptions = {}): Promise<HttpsTestServer> {
  const host = opts.host ?? '127.0.0.1';
  const name = opts.certificate ?? 'server';
  const server = https.createServer({ cert: tls(`${name}.pem`), key: tls(`${name}-key.pem`) }, handler);
  let accepted = 0;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    connections: () => accepted,
    // Kept-alive and hanging sockets would otherwise hold close() open until they time out.
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A server that must never be reached, on one port of both 127.0.0.1 and ::1, so that every loopback
 * spelling of https://…:PORT would land on it. `connections()` counts both; any response is a 500.
 */
export async function startCanary(): Promise<HttpsTestServer> {
  const refuse: Handler = (_req, res) => res.writeHead(500).end('canary reached');
  const v4 = await startHttpsServer(refuse);
  const v6 = await startHttpsServer(refuse, { host: '::1', port: v4.port });
  return {
    url: v4.url,
    port: v4.port,
    connections: () => v4.connections() + v6.connections(),
    close: async () => {
      await Promise.all([v4.close(), v6.close()]);
    },
  };
}

/**
 * Fails fast, with the fix, when this process was started without trusting the test CA. Node reads
 * NODE_EXTRA_CA_CERTS once at start-up, so the check is that the file it named holds our CA.
 */
export function assertTestCaTrusted(): void {
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  const trusted = extra !== undefined && fs.existsSync(extra) && fs.readFileSync(extra, 'utf8').includes(tls('ca.pem').toString().trim());
  if (!trusted) {
    throw new Error(`NODE_EXTRA_CA_CERTS is ${extra ?? 'unset'}: run through \`npm test\`, or prefix jest with NODE_EXTRA_CA_CERTS=test/fixtures/tls/ca.pem`);
  }
}
