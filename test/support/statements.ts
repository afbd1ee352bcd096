// Counts the SQL statements the embedded database runs for one HTTP request. Every statement reaches PGlite
// as a wire-protocol message — Parse for a parameterised query, Query for a simple one — whichever path
// issued it (Prisma's adapter, the driver runner, inside or outside a transaction), so counting those
// messages counts the real statements. A request is told apart from background work (the dispatcher, the
// scheduler, timers) by the async context its handler runs in: requests that carry the marker header run
// inside an AsyncLocalStorage scope, and a statement is the request's when it is issued in that scope.
// Embedded database only: PostgreSQL offers no per-session statement count without pg_stat_statements
// preloaded, and the statements a resolver issues are the same on both.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { http, type HttpResult, type TestServer } from './server';

const MARKER = 'x-test-statement-log';

interface Log {
  statements: string[];
  /** Statements issued after the answer arrived (a timer started by the request) are not its own. */
  open: boolean;
}

export interface Counted<T = any> {
  res: HttpResult<{ data?: T; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[] }>;
  /** The text of every statement the request ran, in order. */
  statements: string[];
}

export interface StatementWatch {
  /** POST /graphql, counting the statements its operation ran. */
  gql<T = any>(query: string, variables?: Record<string, unknown>, key?: string): Promise<Counted<T>>;
}

/** The statements in one chunk of frontend messages: the text of each Parse and Query message. */
export function statementsIn(bytes: Uint8Array): string[] {
  const found: string[] = [];
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  // A startup message has no type byte (it begins with its length, whose first byte is 0).
  while (at + 5 <= view.length && view[at] !== 0) {
    const type = String.fromCharCode(view[at]);
    const length = view.readInt32BE(at + 1);
    const body = view.subarray(at + 5, at + 1 + length);
    if (type === 'Q') found.push(cString(body, 0));
    else if (type === 'P') found.push(cString(body, body.indexOf(0) + 1)); // after the statement's name
    at += 1 + length;
  }
  return found;
}

function cString(buf: Buffer, from: number): string {
  const end = buf.indexOf(0, from);
  return buf.toString('utf8', from, end < 0 ? buf.length : end);
}

export function watchStatements(server: TestServer): StatementWatch {
  const pglite = server.pglite;
  if (!pglite) throw new Error('statements are counted on the embedded database only');
  const scope = new AsyncLocalStorage<Log>();
  const logs = new Map<string, Log>();

  // Every message goes through execProtocolRaw (query, exec, transactions and the protocol API alike).
  const send = pglite.execProtocolRaw.bind(pglite);
  pglite.execProtocolRaw = (message: Uint8Array, opts?: { syncToFs?: boolean }) => {
    const log = scope.getStore();
    if (log?.open) log.statements.push(...statementsIn(message));
    return send(message, opts);
  };

  const httpServer = server.app.server;
  for (const listener of httpServer.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[]) {
    httpServer.removeListener('request', listener);
    httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const log = logs.get(String(req.headers[MARKER]));
      return log ? scope.run(log, () => listener(req, res)) : listener(req, res);
    });
  }

  return {
    async gql(query, variables, key) {
      const id = randomUUID();
      const log: Log = { statements: [], open: true };
      logs.set(id, log);
      try {
        const res = await http(server.url, 'POST', '/graphql', { body: { query, variables }, key, headers: { [MARKER]: id } });
        return { res, statements: [...log.statements] };
      } finally {
        log.open = false;
        logs.delete(id);
      }
    },
  };
}
