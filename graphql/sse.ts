// GraphQL over Server-Sent Events (graphql-sse, distinct connections) as a yoga plugin, with the same gate, context,
// masking and rate limits as every entry. Unlike yoga's own plugin, a request that fails before producing anything is
// answered as POST /graphql would (JSON, 401 or 400) instead of a stream, which yoga's plugin handed graphql-sse in a
// shape it misread ("Unable to detect operation AST"); and nothing thrown escapes unmasked as a 500.
import { getOperationAST, type ExecutionResult, type GraphQLError } from 'graphql';
import type { OperationResult, Response as SseResponse } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';

/** The errors of a request that produced nothing, as POST /graphql answers them: JSON with the highest status. */
function refusal(errors: readonly GraphQLError[]): SseResponse {
  let status = 400;
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  const json = errors.map((e) => {
    const { http, ...extensions } = (e.extensions ?? {}) as { http?: { status?: number; headers?: Record<string, string> } };
    if (http?.status && http.status > status) status = http.status;
    if (http?.headers) Object.assign(headers, http.headers);
    const out = e.toJSON() as { extensions?: unknown };
    if (Object.keys(extensions).length) out.extensions = extensions;
    else delete out.extensions;
    return out;
  });
  return [JSON.stringify({ errors: json }), { status, statusText: status === 401 ? 'Unauthorized' : 'Bad Request', headers }];
}

function isIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof Object(value)[Symbol.asyncIterator] === 'function';
}

export function graphqlSse<ServerContext extends object, Ctx extends object>(
  endpoint: string,
  maskError: (err: unknown) => GraphQLError,
): Plugin<ServerContext & Ctx> {
  const contextOf = new WeakMap<Request, unknown>();
  let handler: (req: Request) => Promise<Response>;
  return {
    onYogaInit({ yoga }) {
      const server = yoga as unknown as YogaServerInstance<ServerContext, Ctx>;
      handler = createHandler(
        {
          async onSubscribe(req, params): Promise<SseResponse | OperationResult> {
            const enveloped = server.getEnveloped({ ...(contextOf.get(req.raw) as object), request: req.raw, params } as never);
            const document = enveloped.parse(params.query);
            const errors = enveloped.validate(enveloped.schema, document);
            if (errors.length) return refusal(errors);
            const contextValue = await enveloped.contextFactory();
            const args = { schema: enveloped.schema, document, contextValue, variableValues: params.variables, operationName: params.operationName };
            const subscription = getOperationAST(document, params.operationName)?.operation === 'subscription';
            const result = (await (subscription ? enveloped.subscribe(args) : enveloped.execute(args))) as ExecutionResult | AsyncIterable<ExecutionResult>;
            if (!isIterable(result) && result.errors?.length && (result.data === undefined || result.data === null)) return refusal(result.errors);
            return (isIterable(result) ? result : { data: null, ...result }) as OperationResult;
          },
        },
        yoga.fetchAPI,
      );
    },
    onRequest({ request, endResponse, serverContext, fetchAPI }) {
      const path = request.url.split('?')[0];
      if (!path.endsWith(endpoint)) return;
      contextOf.set(request, serverContext);
      return handler(request).then(endResponse, (err: unknown) => {
        const [body, init] = refusal([maskError(err)]);
        endResponse(new fetchAPI.Response(body as string, init as ResponseInit));
      });
    },
  };
}
