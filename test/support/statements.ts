// Counts the SQL statements one HTTP request runs. Every statement of the server — Prisma's adapter, the
// driver runner, inside or outside a transaction, on PostgreSQL and on the embedded database alike (which
// the server reaches through `pg` too) — is one call of a `pg` client's query, so counting those calls
// counts the real statements. A request is told apart from background work (the dispatcher, the
// scheduler, timers) by the async context its handler runs in: requests that carry the marker header run
// inside an AsyncLocalStorage scope, and a statement is the request's when it is issued in that scope.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';
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

/** Every watch's scope: the hook on `pg` (installed once per test file) reports to each. */
const watching: AsyncLocalStorage<Log>[] = [];
let hooked = false;

function hookQueries(): void {
  if (hooked) return;
  hooked = true;
  const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') {
      for (const scope of watching) {
        const log = scope.getStore();
        if (log?.open) log.statements.push(text);
      }
    }
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
}

export function watchStatements(server: TestServer): StatementWatch {
  const scope = new AsyncLocalStorage<Log>();
  const logs = new Map<string, Log>();
  watching.push(scope);
  hookQueries();

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
