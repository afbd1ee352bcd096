// GraphQL over HTTP (yoga, with GraphiQL), over SSE (graphql-sse at /graphql/stream) and over WebSocket
// (graphql-ws on /graphql), all on one enveloped schema so auth, masking and rate limits are the same.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { useGraphQLSSE } from '@graphql-yoga/plugin-graphql-sse';
import { GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
import type { Ctx, Services } from '../src/domain/context';
import { createContext } from '../src/domain/request-context';
import { AppError, InternalError, isUnavailable, ServiceUnavailable } from '../src/platform/errors';
import { clientAddress as httpClientAddress, requestIdOf } from '../src/platform/http';
import { newRequestId } from '../src/platform/ids';
import type { OperationGate } from './operation-gate';
import { rateDecisions } from './rate-limits';

export const GRAPHQL_PATH = '/graphql';
export const GRAPHQL_SSE_PATH = '/graphql/stream';

interface ServerContext {
  res?: object;
  req?: { ip?: string; socket?: { remoteAddress?: string }; headers?: Record<string, unknown> };
  /** graphql-ws passes the connection_init payload and the socket's address. */
  connectionParams?: Record<string, unknown>;
  clientAddress?: string;
  requestId?: string;
}

function appErrorOf(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (err instanceof GraphQLError && err.originalError instanceof AppError) return err.originalError;
  return undefined;
}

/** Our errors pass with their code and status; anything unexpected is logged and becomes INTERNAL. */
export function maskErrorWith(services: Pick<Services, 'log'>) {
  return (error: unknown): GraphQLError => {
    const app = appErrorOf(error);
    if (app) {
      const located = error instanceof GraphQLError ? error : undefined;
      return new GraphQLError(app.message, { nodes: located?.nodes, path: located?.path, extensions: app.extensions });
    }
    // graphql-js's own errors (a variable of the wrong type, say) are the client's: a request error.
    if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) {
      return new GraphQLError(error.message, {
        nodes: error.nodes,
        path: error.path,
        extensions: { code: 'BAD_REQUEST', ...error.extensions, http: { spec: true, status: 400 } },
      });
    }
    if (isUnavailable(error)) {
      const unavailable = new ServiceUnavailable();
      return new GraphQLError(unavailable.message, {
        path: error instanceof GraphQLError ? error.path : undefined,
        extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503, headers: { 'Retry-After': String(unavailable.retryAfterSeconds) } } },
      });
    }
    services.log.error({ err: error instanceof GraphQLError ? (error.originalError ?? error) : error }, 'graphql resolver failed');
    const internal = new InternalError();
    return new GraphQLError(internal.message, {
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: internal.extensions,
    });
  };
}

export function createGraphQLServer(services: Services, schema: GraphQLSchema, gate: OperationGate) {
  const yoga: YogaServerInstance<ServerContext, Ctx> = createYoga<ServerContext, Ctx>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    healthCheckEndpoint: `${GRAPHQL_PATH}/health`,
    graphiql: { title: 'Agent Capability Marketplace', subscriptionsProtocol: 'WS' },
    logging: {
      debug: (...args) => services.log.debug({ args }, 'yoga'),
      info: (...args) => services.log.info({ args }, 'yoga'),
      warn: (...args) => services.log.warn({ args }, 'yoga'),
      error: (...args) => services.log.error({ args }, 'yoga'),
    },
    context: ({ request, req, res, connectionParams, clientAddress, requestId }) => {
      const authorization = connectionParams?.authorization ?? connectionParams?.Authorization ?? request?.headers.get('authorization') ?? undefined;
      return createContext(services, {
        authorization,
        requestId: requestId ?? ((res && requestIdOf(res)) || newRequestId()),
        clientAddress: clientAddress ?? (req ? httpClientAddress(req as IncomingMessage, services.config.trustProxy) : 'unknown'),
      }) as Ctx;
    },
    maskedErrors: { maskError: maskErrorWith(services) },
    // The gate parses and validates, from its own cache bounded in bytes (operation-gate.ts).
    parserAndValidationCache: false,
    plugins: [
      gate.plugin(rateDecisions),
      useGraphQLSSE({ endpoint: GRAPHQL_SSE_PATH }),
      {
        onResponse({ request, response }) {
          const decision = rateDecisions.get(request);
          if (!decision) return;
          response.headers.set('X-RateLimit-Limit', String(decision.limit));
          response.headers.set('X-RateLimit-Remaining', String(decision.remaining));
          response.headers.set('X-RateLimit-Reset', String(decision.reset));
          if (!decision.allowed) response.headers.set('Retry-After', String(decision.retryAfterSeconds));
        },
      },
    ],
  });

  /** graphql-ws on the same HTTP server and path; the bearer travels in connection_init. */
  function attachWebSocket(_server: Server) {
    // The server's upgrade listener routes by path (app.ts): /graphql here, REST event streams elsewhere.
    const wss = new WebSocketServer({ noServer: true });
    const disposable = useServer(
      {
        execute: (args: ExecutionArgs) => (args.rootValue as { execute: (a: ExecutionArgs) => unknown }).execute(args) as never,
        subscribe: (args: ExecutionArgs) => (args.rootValue as { subscribe: (a: ExecutionArgs) => unknown }).subscribe(args) as never,
        onConnect: async (ctx) => {
          const authorization = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
          if (authorization === undefined) return true;
          const probe = createContext(services, { authorization, requestId: newRequestId(), clientAddress: '' });
          const principal = await probe.principal();
          // A credential that is sent must be live: the socket closes with 4403 otherwise.
          return principal.kind === 'agent' || principal.kind === 'admin';
        },
        onSubscribe: async (ctx, _id, payload) => {
          const { schema: enveloped, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
            ...ctx,
            req: ctx.extra.request,
            socket: ctx.extra.socket,
            params: payload,
            connectionParams: ctx.connectionParams,
            clientAddress: ctx.extra.request.socket.remoteAddress,
          } as never);
          let document;
          try {
            document = parse(payload.query);
          } catch (err) {
            return [err as GraphQLError];
          }
          const errors = validate(enveloped, document);
          if (errors.length) return errors;
          return {
            schema: enveloped,
            operationName: payload.operationName,
            document,
            variableValues: payload.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe },
          };
        },
      },
      wss,
    );
    return {
      handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
        wss.handleUpgrade(req, socket, head, (client) => wss.emit('connection', client, req));
      },
      async close() {
        // 1012 Service Restart: graphql-ws clients reconnect (to another instance).
        for (const client of wss.clients) client.close(1012, 'server restarting: reconnect');
        await disposable.dispose();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      },
    };
  }

  return { yoga, attachWebSocket };
}
