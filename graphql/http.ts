// The common case of GraphQL over HTTP (a POST of a JSON query or mutation asking for JSON) served on node:http with
// graphql `execute`, since yoga's Fetch-API layer costs more than the whole operation. Same gate as yoga
// (graphql/operation-gate.ts), schema, context, rate limits and masking; everything else (GraphiQL, GET, SSE,
// multipart, subscriptions over HTTP) falls through to yoga, whose GraphQL-over-HTTP semantics this follows.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { execute, getOperationAST, GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Services } from '../src/domain/context';
import { createContext } from '../src/domain/request-context';
import { AppError } from '../src/platform/errors';
import { BODY_LIMIT_BYTES, clientAddress, factsOf, isJsonContentType, readJsonBody } from '../src/platform/http';
import { requestError, type OperationGate } from './operation-gate';
import { GRAPHQL_PATH } from './server';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** Which media type the client wants; undefined when it is not one this path answers. */
function negotiate(accept: string | undefined): string | undefined {
  if (!accept || accept === '*/*') return 'application/json';
  let best: string | undefined;
  for (const part of accept.split(',')) {
    const type = part.split(';', 1)[0].trim().toLowerCase();
    if (type === GRAPHQL_RESPONSE || type === 'application/json') return best ?? type;
    if (type === '*/*' || type === 'application/*') best ??= 'application/json';
    if (type === 'text/event-stream' || type === 'multipart/mixed') return undefined;
  }
  return best;
}

export class GraphQLHttp {
  constructor(
    private readonly services: Services,
    private readonly schema: GraphQLSchema,
    private readonly gate: OperationGate,
    private readonly maskError: (err: unknown) => GraphQLError,
  ) {}

  /** Answers the request when it is the common case; returns false to let yoga have it. */
  handle(req: IncomingMessage, res: ServerResponse, requestId: string): boolean {
    if (req.method !== 'POST' || !isJsonContentType(req.headers['content-type'])) return false;
    const url = req.url ?? '';
    if (url !== GRAPHQL_PATH && !url.startsWith(`${GRAPHQL_PATH}?`)) return false;
    const mediaType = negotiate(req.headers.accept);
    if (!mediaType) return false;
    void this.run(req, res, requestId, mediaType);
    return true;
  }

  private async run(req: IncomingMessage, res: ServerResponse, requestId: string, mediaType: string) {
    const headers: Record<string, string> = {};
    let result: { data?: unknown; errors?: readonly GraphQLError[] };
    try {
      result = await this.operate(req, res, requestId, headers);
    } catch (err) {
      result = { errors: [this.maskError(err)] };
    }
    this.respond(res, mediaType, result, headers);
  }

  private async operate(req: IncomingMessage, res: ServerResponse, requestId: string, headers: Record<string, string>) {
    let body: unknown;
    try {
      body = await readJsonBody(req, res);
    } catch (err) {
      // What the input boundary refused, named by its path (variables.input.name).
      if (err instanceof AppError && err.code === 'validation_failed') return { errors: [this.maskError(err)] };
      const tooLarge = (err as { status?: number }).status === 413;
      return {
        errors: [
          new GraphQLError(tooLarge ? `The request body is larger than ${BODY_LIMIT_BYTES} bytes` : 'The request body is not valid JSON', {
            extensions: { http: { status: tooLarge ? 413 : 400 } },
          }),
        ],
      };
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return { errors: [requestError('POST body must be a JSON object')] };
    const { query, variables, operationName } = body as Record<string, unknown>;
    if (typeof query !== 'string' || query === '') return { errors: [requestError('Must provide query string.')] };
    if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
      return { errors: [requestError('Invalid variables: must be an object')] };
    }
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
      return { errors: [requestError('Invalid operationName: must be a string')] };
    }
    const prepared = this.gate.prepare(query);
    if (prepared.refused) return { errors: [prepared.refused] };
    if (prepared.validationErrors.length) return { errors: prepared.validationErrors };
    const document = prepared.document!;
    const operation = getOperationAST(document, operationName ?? undefined);
    if (!operation) return { errors: [requestError('Could not determine what operation to execute.')] };
    if (operation.operation === 'subscription') {
      return {
        errors: [
          new GraphQLError('Subscriptions need WebSocket on /graphql or SSE (Accept: text/event-stream, or /graphql/stream)', {
            extensions: { http: { status: 400 } },
          }),
        ],
      };
    }

    const ctx = createContext(this.services, {
      authorization: req.headers.authorization,
      requestId,
      clientAddress: clientAddress(req, this.services.config.trustProxy),
      response: factsOf(res),
    });
    // Through the pipeline (src/pipeline): rate buckets, the input boundary, the cost; then the operation, or
    // what the gate keeps for one that only introspects.
    let result: ExecutionResult;
    try {
      result = await this.gate.operate(ctx, 'graphql', document, operation, variables as Record<string, unknown> | null | undefined, headers, () =>
        execute({
          schema: this.schema,
          document,
          variableValues: (variables as Record<string, unknown> | null) ?? undefined,
          operationName: operationName as string | undefined,
          contextValue: ctx,
        }),
      );
    } catch (err) {
      return { errors: [this.maskError(err)] };
    }
    return result.errors ? { data: result.data, errors: result.errors.map((e) => this.maskError(e)) } : { data: result.data };
  }

  private respond(res: ServerResponse, mediaType: string, result: { data?: unknown; errors?: readonly GraphQLError[] }, headers: Record<string, string>) {
    const legacy = mediaType === 'application/json';
    let status: number | undefined;
    for (const err of result.errors ?? []) {
      const http = err.extensions?.http as { status?: number; spec?: boolean; headers?: Record<string, string> } | undefined;
      if (http?.headers) Object.assign(headers, http.headers);
      if (!http?.status || (legacy && http.spec)) continue;
      if (!status || http.status > status) status = http.status;
    }
    const out: Record<string, unknown> = {};
    if (result.errors?.length) {
      out.errors = result.errors.map((e) => {
        const json = e.toJSON() as { extensions?: Record<string, unknown> };
        if (json.extensions) {
          const { http: _http, ...rest } = json.extensions;
          if (Object.keys(rest).length) json.extensions = rest;
          else delete json.extensions;
        }
        return json;
      });
    }
    if (result.data !== undefined) out.data = result.data;
    const payload = JSON.stringify(out);
    res.writeHead(status ?? 200, { ...headers, 'Content-Type': `${mediaType}; charset=utf-8`, 'Content-Length': Buffer.byteLength(payload) });
    res.end(payload);
  }
}
