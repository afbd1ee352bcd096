// GraphQL over HTTP (yoga, with GraphiQL), over SSE (graphql-sse at /graphql/stream) and over WebSocket
// (graphql-ws on /graphql), all on one enveloped schema so auth, masking and rate limits are the same.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
import type { Ctx, Services } from '../src/domain/context';
import { createContext, rateSubject } from '../src/domain/request-context';
import { AppError, InternalError, isUnavailable, problemFromError, ServiceUnavailable } from '../src/platform/errors';
import { BODY_LIMIT_BYTES, clientAddress as httpClientAddress, factsOf, refuseUpgrade, requestIdOf } from '../src/platform/http';
import { newRequestId } from '../src/platform/ids';
import { graphqlSse } from './sse';
import type { OperationGate } from './operation-gate';
import { answerHeaders } from './rate-limits';

export const GRAPHQL_PATH = '/graphql';
export const GRAPHQL_SSE_PATH = '/graphql/stream';
/** A WebSocket close code of this server: the caller holds as many connections as it may. */
const TOO_MANY_CONNECTIONS = 4429;

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

/** Errors already logged (by the mask, or once by yoga's logger): yoga hands the same error over again. */
const logged = new WeakSet<object>();

/** An error of the client's making: ours below 500, or graphql-js's own (a document or variable refused). */
function isClientError(err: unknown): boolean {
  const app = appErrorOf(err);
  if (app) return app.status < 500;
  return err instanceof GraphQLError && (!err.originalError || err.originalError instanceof GraphQLError);
}

/** Our errors pass with their code and status; anything unexpected is logged and becomes INTERNAL. */
export function maskErrorWith(services: Pick<Services, 'log'>) {
  return (error: unknown): GraphQLError => {
    const app = appErrorOf(error);
    if (app) {
      const located = error instanceof GraphQLError ? error : undefined;
      return new GraphQLError(app.message, { nodes: located?.nodes, path: located?.path, extensions: app.extensions });
    }
    // graphql-js's own errors (a variable of the wrong type, say) are the client's: a request error, with
    // the status yoga gave it if any (405 and Allow for a mutation over GET or a PUT).
    if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) {
      return new GraphQLError(error.message, {
        nodes: error.nodes,
        path: error.path,
        extensions: { code: 'BAD_REQUEST', ...error.extensions, http: error.extensions.http ?? { spec: true, status: 400 } },
      });
    }
    if (isUnavailable(error)) {
      const unavailable = new ServiceUnavailable();
      return new GraphQLError(unavailable.message, {
        path: error instanceof GraphQLError ? error.path : undefined,
        extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503, headers: { 'Retry-After': String(unavailable.retryAfterSeconds) } } },
      });
    }
    const cause = error instanceof GraphQLError ? (error.originalError ?? error) : error;
    services.log.error({ err: cause }, 'graphql resolver failed');
    for (const e of [error, cause]) if (typeof e === 'object' && e !== null) logged.add(e);
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
      // yoga logs every error its mask replaced, at error and twice over (once masking, once answering):
      // a client's error is logged once, at info; an unexpected one was logged by the mask already.
      error: (...args) => {
        const fresh = args.filter((a) => !(typeof a === 'object' && a !== null && logged.has(a)));
        for (const a of fresh) if (typeof a === 'object' && a !== null) logged.add(a);
        if (!fresh.length) return;
        if (fresh.every(isClientError)) services.log.info({ errors: fresh.map((e) => (e as Error).message) }, 'graphql client error');
        else services.log.error({ args: fresh }, 'yoga');
      },
    },
    context: ({ request, req, res, connectionParams, clientAddress, requestId }) => {
      const authorization = connectionParams?.authorization ?? connectionParams?.Authorization ?? request?.headers.get('authorization') ?? undefined;
      return createContext(services, {
        authorization,
        requestId: requestId ?? ((res && requestIdOf(res)) || newRequestId()),
        clientAddress: clientAddress ?? (req ? httpClientAddress(req as IncomingMessage, services.config.trustProxy) : 'unknown'),
        response: res ? factsOf(res) : undefined,
      }) as Ctx;
    },
    maskedErrors: { maskError: maskErrorWith(services) },
    // The gate parses and validates, from its own cache bounded in bytes (operation-gate.ts).
    parserAndValidationCache: false,
    plugins: [
      gate.plugin(answerHeaders),
      graphqlSse<ServerContext, Ctx>(GRAPHQL_SSE_PATH, maskErrorWith(services)),
      {
        onResponse({ request, response }) {
          const headers = answerHeaders.get(request);
          if (headers) for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
        },
      },
    ],
  });

  /**
   * Which connection slot each socket holds (services.connectionSlots): its address's from the upgrade,
   * its credential's once connection_init presents a live one.
   */
  const held = new WeakMap<IncomingMessage, { release: () => void }>();

  /** graphql-ws on the same HTTP server and path; the bearer travels in connection_init. */
  function attachWebSocket(_server: Server) {
    // The server's upgrade listener routes by path (app/http.ts): /graphql here, REST event streams elsewhere.
    // A frame larger than a request body may be closes the socket (1009 Message Too Big).
    const wss = new WebSocketServer({ noServer: true, maxPayload: BODY_LIMIT_BYTES });
    const disposable = useServer(
      {
        execute: (args: ExecutionArgs) => (args.rootValue as { execute: (a: ExecutionArgs) => unknown }).execute(args) as never,
        subscribe: (args: ExecutionArgs) => (args.rootValue as { subscribe: (a: ExecutionArgs) => unknown }).subscribe(args) as never,
        onConnect: async (ctx) => {
          const authorization = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
          if (authorization === undefined) return true;
          const request = ctx.extra.request;
          const probe = createContext(services, {
            authorization,
            requestId: newRequestId(),
            clientAddress: httpClientAddress(request, services.config.trustProxy),
          });
          const principal = await probe.principal();
          // A credential that is sent must be live, as on HTTP. The protocol's close for a refused
          // connection_init is 4403 Forbidden (4401 is for a subscribe before connection_init was acknowledged).
          if (principal.kind !== 'agent' && principal.kind !== 'admin') {
            ctx.extra.socket.close(CloseCode.Forbidden, 'Forbidden: the credential is unknown or revoked');
            return false;
          }
          // From now on the socket counts against its credential, not its address.
          const slot = held.get(request);
          try {
            const release = services.connectionSlots.take(await rateSubject(probe));
            slot?.release();
            if (slot) slot.release = release;
          } catch (err) {
            ctx.extra.socket.close(TOO_MANY_CONNECTIONS, (err as Error).message.slice(0, 120));
            return false;
          }
          return true;
        },
        onSubscribe: async (ctx, _id, payload) => {
          const {
            schema: enveloped,
            execute,
            subscribe,
            contextFactory,
            parse,
            validate,
          } = yoga.getEnveloped({
            ...ctx,
            req: ctx.extra.request,
            socket: ctx.extra.socket,
            params: payload,
            connectionParams: ctx.connectionParams,
            clientAddress: httpClientAddress(ctx.extra.request, services.config.trustProxy),
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
        let slot: { release: () => void };
        try {
          slot = { release: services.connectionSlots.take(`ip:${httpClientAddress(req, services.config.trustProxy)}`) };
        } catch (err) {
          refuseUpgrade(socket, problemFromError(services.config.publicBaseUrl, err, newRequestId()), { 'Retry-After': '5' });
          return;
        }
        held.set(req, slot);
        // However the socket ends (a refused upgrade too), its slot is given back.
        socket.once('close', () => slot.release());
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
