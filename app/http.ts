// The node:http server: each request goes to the first surface that takes it (REST, GraphQL over HTTP, MCP,
// A2A), else to Express; an upgrade goes by its path; slow clients are closed; and a shutdown lets every
// request already received be answered.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type express from 'express';
import { GRAPHQL_PATH } from '../graphql/server';
import { MCP_PATH } from '../protocols/mcp';
import type { Services } from '../src/domain/context';
import { answerClientError, attachFacts, factsOf, requestIdFor, TimedResponse, timedWriteHead, type ResponseFacts } from '../src/platform/http';
import type { Surfaces } from './surfaces';

export interface HttpServing {
  server: http.Server;
  /** The GraphQL WebSocket server on it. */
  ws: ReturnType<Surfaces['graphql']['attachWebSocket']>;
  /** Starts listening; resolves with the bound port once `onListening` has run. */
  listen(onListening: () => void): Promise<number>;
  /** Starts draining: every answer closes its connection, and after a moment no connection is taken. */
  stopAccepting(): Promise<void>;
  /** Waits until every request received is answered (or `deadline`, a time in ms), then closes every connection. */
  finishAnswering(deadline: number): Promise<void>;
}

export function serveHttp(services: Services, { rest, graphqlHttp, mcp, a2a, graphql, metrics }: Surfaces, app: express.Express): HttpServing {
  const { config, log } = services;
  // Answers not yet begun, so that a shutdown can make each close its connection (Connection: close).
  const unanswered = new Set<http.ServerResponse>();
  // One listener for every response (no closure per request): 'close' follows 'finish' of a complete
  // answer, and also comes for one cut off, which is forgotten here but not counted.
  function answered(this: http.ServerResponse) {
    unanswered.delete(this);
    const facts = factsOf(this);
    if (!facts || !this.writableFinished) return;
    const seconds = (performance.now() - facts.started) / 1000;
    const route = facts.route ?? (this.req.url?.startsWith(GRAPHQL_PATH) ? GRAPHQL_PATH : 'other');
    metrics.observeRequest(this.req.method ?? 'GET', route, this.statusCode, seconds);
    if (this.statusCode >= 500 || log.isLevelEnabled('debug')) {
      // 503 is an outage the answer already explains (a component unreachable, or draining): a warning.
      log[this.statusCode === 503 ? 'warn' : this.statusCode >= 500 ? 'error' : 'debug'](
        { request_id: facts.requestId, method: this.req.method, route, status: this.statusCode, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    }
  }
  // A slow client is closed in seconds: its headers must arrive within HEADERS_TIMEOUT_MS and the whole
  // request within REQUEST_TIMEOUT_MS, checked every second (Node's default check is far rarer, and its
  // default deadline for a request far longer).
  const serverOptions: http.ServerOptions = {
    headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs),
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: 1_000,
    // Every answer says what the marketplace's own time was (Server-Timing).
    ServerResponse: TimedResponse,
  };
  const server = http.createServer(serverOptions, (req, res) => {
    const requestId = requestIdFor(req);
    const facts: ResponseFacts = { requestId, route: undefined, started: performance.now() };
    // Its X-Request-Id and Server-Timing are written with its headers (timedWriteHead).
    attachFacts(res, facts);
    if (services.draining) res.setHeader('Connection', 'close');
    else unanswered.add(res);
    res.on('close', answered);
    const handled = rest.handle(req, res, requestId);
    if (handled) {
      facts.route = handled.route;
      return;
    }
    if (graphqlHttp.handle(req, res, requestId)) return;
    if (mcp.handle(req, res, requestId)) {
      facts.route = MCP_PATH;
      return;
    }
    if (a2a.handle(req, res, requestId)) {
      facts.route = (req.url ?? '').split('?')[0];
      return;
    }
    // Express gives the response a prototype of its own, made from node:http's: the timing goes as its own property.
    res.writeHead = timedWriteHead as typeof res.writeHead;
    app(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket, config.publicBaseUrl));
  const ws = graphql.attachWebSocket(server);
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname === GRAPHQL_PATH) ws.handleUpgrade(req, socket, head);
    else if (!rest.handleUpgrade(req, socket, head, requestIdFor(req))) socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });

  let stopped: Promise<void> | undefined;
  return {
    server,
    ws,
    listen: (onListening) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          onListening();
          resolve((server.address() as AddressInfo).port);
        });
      }),
    async stopAccepting() {
      // /health answers 503 at once (the load balancer stops sending); every answer closes its connection.
      services.draining = true;
      for (const res of unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
      unanswered.clear();
      // Connections the kernel accepted before the signal, and requests already on the wire of a
      // keep-alive connection, are taken for a moment; then nothing new is.
      if (config.shutdownAcceptGraceMs > 0) await new Promise((r) => setTimeout(r, config.shutdownAcceptGraceMs));
      // The grace is measured by a timer, and a loop that was busy runs its timers before its I/O: two turns of
      // the loop first take what the kernel holds by then (queued connections in one, their requests in the next),
      // so that a request already sent is not cut off as an idle connection by a starved process.
      await loopTurn();
      await loopTurn();
      stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
    },
    async finishAnswering(deadline) {
      // Every request already received is answered; a keep-alive connection closes after its answer.
      const drain = setInterval(() => server.closeIdleConnections(), 50);
      let budget: NodeJS.Timeout | undefined;
      await Promise.race([stopped, new Promise((r) => (budget = setTimeout(r, Math.max(0, deadline - Date.now()))))]);
      clearTimeout(budget);
      clearInterval(drain);
      server.closeAllConnections();
    },
  };
}

/** Resolves after the event loop's next poll for I/O (setImmediate runs in the phase that follows it). */
function loopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
