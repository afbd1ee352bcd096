// What a REST route is: data, not a handler. Method, path, rate bucket, the GraphQL document whose
// aliases give the documented JSON shape, where each variable comes from, and the success status.
import type { Bucket } from '../src/platform/rate-limit';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where a GraphQL variable's value comes from in the HTTP request. */
export type Source =
  /** The JSON body, read as the variable's input type (every field in both spellings: spelling.ts). */
  | { from: 'body' }
  | { from: 'bodyField'; name: string }
  | { from: 'path'; name: string }
  | { from: 'query'; name: string; description?: string }
  | { from: 'header'; name: string; description?: string };

export const from = {
  /** The whole JSON body (an object) becomes the variable. */
  body: { from: 'body' } as Source,
  bodyField: (name: string): Source => ({ from: 'bodyField', name }),
  path: (name: string): Source => ({ from: 'path', name }),
  query: (name: string, description?: string): Source => ({ from: 'query', name, description }),
  header: (name: string, description?: string): Source => ({ from: 'header', name, description }),
};

export type Auth = 'agent' | 'admin' | 'none';

export interface Route {
  method: Method;
  /** Express-style path relative to /api/v1 (`/agents/:id`); further paths are aliases. */
  path: string | string[];
  /** The rate bucket, shared with the GraphQL field of the document; null where the spec sets no limit. */
  bucket: Bucket | null;
  auth: Auth;
  /**
   * The operation authenticates the caller itself, within its own first statement (execute), so the REST
   * layer does not look the caller up first; 401 and 403 still come before any other answer.
   */
  authInOperation?: true;
  status: number;
  /**
   * The answer is the root field's string, sent as this media type instead of JSON (a SKILL.md as
   * `text/markdown`). Errors are problem+json as always.
   */
  produces?: string;
  /**
   * The answer is the same for every caller allowed to ask and depends only on the request's variables and
   * on what the read cache keeps (a listing or ranking of the catalog): a success is kept in the read
   * cache, serialized, under the route and its variables, and emptied with everything else there
   * (src/platform/read-cache.ts). The route's authentication and rate limit still come first on every
   * request. Only for a query (not a mutation or a stream) answering JSON.
   */
  cacheable?: true;
  /** One operation with one root field; the field's value is the response body. */
  document: string;
  /**
   * The answer is the data object, keyed by the root field's alias, instead of the root field's value:
   * `sandbox: x402Sandbox { … }` answers `{ "sandbox": { … } }` (the spec's wrapped answers).
   */
  keyed?: true;
  variables?: Record<string, Source>;
  summary: string;
  description?: string;
  tag: string;
  /** Error statuses this route can answer beyond the ones every route of its kind can. */
  errors?: number[];
  /**
   * A success carries a credential shown once (a master key). A caller with a credential of its own gets
   * it replayed for an Idempotency-Key (sealed with that credential); a caller without one does not.
   */
  issuesCredential?: true;
  /**
   * A GET that carries this request header is answered by the path's POST route, which reads the header: an
   * x402 client retries a paywalled URL with the method it was given, carrying its payment (PAYMENT-SIGNATURE).
   * A GET without it runs this route's query, and a HEAD always does: a read moves nothing.
   */
  paidWith?: string;
  /** Headers a success may carry (set by the operation through ctx.httpAnswer), for the OpenAPI document. */
  responseHeaders?: Record<string, string>;
  /**
   * Other statuses the operation answers with its own document (set through ctx.httpAnswer), and what each
   * means: a health report that is down is a 503 with the report, not a problem.
   */
  answers?: Record<number, string>;
  /**
   * What the operation requires of the body beyond its input type, as JSON Schema over the input's GraphQL
   * field names: the fields required on creation when the input type is shared with the update (`required`),
   * or required together (`anyOf`). The operation checks it; this states it, in the OpenAPI request schema
   * and in the arguments of the route's MCP tool.
   */
  bodySchema?: Record<string, unknown>;
}

export function bucket(name: string, perMinute: number): Bucket {
  return { name, perMinute };
}

/** The spec's default limits (§8). */
export const DEFAULT_PER_MINUTE = 60;
