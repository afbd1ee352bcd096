// What a REST route is: data, not a handler. Method, path, rate bucket, the GraphQL document whose
// aliases give the documented JSON shape, where each variable comes from, and the success status.
import { encodePaymentResponseHeader } from '@x402/core/http';
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

export type { Auth } from '../src/pipeline/pipeline';
import type { Auth } from '../src/pipeline/pipeline';

export interface Route {
  method: Method;
  /** Express-style path relative to /api/v1 (`/agents/:id`); further paths are aliases. */
  path: string | string[];
  /** The rate bucket, shared with the GraphQL field of the document; null where the spec sets no limit. */
  bucket: Bucket | null;
  auth: Auth;
  status: number;
  /**
   * The answer is the root field's string, sent as this media type instead of JSON (a SKILL.md as
   * `text/markdown`). Errors are problem+json as always.
   */
  produces?: string;
  /**
   * The answer is the same for every caller allowed to ask and depends only on the variables and what the read cache
   * keeps: a success is kept there, serialized, under the route and variables, and emptied with the rest. Authentication
   * and the rate limit still come first on every request. Only for a query answering JSON.
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
  /**
   * What a success says beyond its body, read from its body: another status, headers (a health report that
   * is down answers 503; a paid call carries PAYMENT-RESPONSE). The operation's answer is the data; this is
   * how HTTP says it.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the payload's shape is the route's document's
  answer?: (payload: any) => AnswerMeta | undefined;
  /** Headers a success may carry (given by `answer`), for the OpenAPI document. */
  responseHeaders?: Record<string, string>;
  /**
   * Other statuses the operation answers with its own document (given by `answer`), and what each means:
   * a health report that is down is a 503 with the report, not a problem.
   */
  answers?: Record<number, string>;
  /**
   * What the operation requires of the body beyond its input type, as JSON Schema over the input's field names (fields
   * required on creation of a shared input type, or required together). The operation checks it; this states it, in the
   * OpenAPI request schema and the route's MCP tool.
   */
  bodySchema?: Record<string, unknown>;
}

/** A success's status and headers beyond the route's own. */
export interface AnswerMeta {
  status?: number;
  headers?: Record<string, string>;
}

/**
 * A paid answer's PAYMENT-RESPONSE (x402's HTTP transport): the settlement the answer holds, as an x402
 * SettleResponse, base64-encoded.
 */
export function paymentResponse(settlement: { payer?: string | null; transaction: string; network: string; amount?: string | null }): AnswerMeta {
  const { payer, transaction, network, amount } = settlement;
  return {
    headers: {
      'PAYMENT-RESPONSE': encodePaymentResponseHeader({
        success: true,
        payer: payer ?? undefined,
        transaction,
        network: network as `${string}:${string}`,
        amount: amount ?? undefined,
      }),
    },
  };
}

export function bucket(name: string, perMinute: number): Bucket {
  return { name, perMinute };
}

/** The spec's default limits (§8). */
export const DEFAULT_PER_MINUTE = 60;
