// The console's GraphQL clients, one pair per session: urql for queries and mutations over HTTP (POST
// /graphql), and graphql-ws for subscriptions (ws(s)://…/graphql), both carrying the session's key.
import { Client, cacheExchange, fetchExchange } from 'urql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import type { Session } from './session';

export interface Clients {
  urql: Client;
  ws: WsClient;
  /** Whether the socket is open now (a subscription made on it is live at once). */
  wsOpen: () => boolean;
}

const graphqlUrl = () => new URL('/graphql', window.location.href).toString();
const wsUrl = () => graphqlUrl().replace(/^http/, 'ws');

export function createClients(session: Session | null): Clients {
  const headers: Record<string, string> = session ? { authorization: `Bearer ${session.key}` } : {};
  const urql = new Client({
    url: graphqlUrl(),
    exchanges: [cacheExchange, fetchExchange],
    fetchOptions: () => ({ headers, credentials: 'omit' }),
    // Lists and balances change under the console (other agents, the live feed): every page shows the
    // cached answer at once and asks again.
    requestPolicy: 'cache-and-network',
  });
  const ws = createWsClient({
    url: wsUrl(),
    connectionParams: () => headers,
    lazy: true,
    // Reconnecting is the live hooks' (src/live.ts): each resumes after the last event it saw.
    retryAttempts: 0,
  });
  let open = false;
  ws.on('connected', () => (open = true));
  ws.on('closed', () => (open = false));
  return { urql, ws, wsOpen: () => open };
}
