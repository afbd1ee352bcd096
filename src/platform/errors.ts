// One error family for every surface: a GraphQLError whose extensions carry the problem code and the
// HTTP status, so GraphQL clients, the REST layer (problem+json) and logs all read the same thing.
import { GraphQLError } from 'graphql';

export type ProblemCode =
  | 'bad_request'
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payment_required'
  | 'rate_limited'
  | 'service_unavailable'
  | 'capability_unavailable'
  | 'internal';

export const problemStatus: Record<ProblemCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payment_required: 402,
  rate_limited: 429,
  service_unavailable: 503,
  capability_unavailable: 503,
  internal: 500,
};

export const problemTitle: Record<ProblemCode, string> = {
  bad_request: 'Bad Request',
  validation_failed: 'Validation Failed',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not Found',
  conflict: 'Conflict',
  payment_required: 'Payment Required',
  rate_limited: 'Too Many Requests',
  service_unavailable: 'Service Unavailable',
  capability_unavailable: 'Capability Unavailable',
  internal: 'Internal Server Error',
};

/** A short page served at each problem `type` URL. */
export const problemDescription: Record<ProblemCode, string> = {
  bad_request: 'The request could not be read: malformed JSON, a wrong content type, or a body that is too large.',
  validation_failed: 'The request was read but some fields are missing or invalid. `errors` lists each field (`path`) and what is wrong with it.',
  unauthorized: 'The request needs a valid credential: send `Authorization: Bearer key_master_…`.',
  forbidden: 'The credential is valid but may not do this (a suspended or banned agent, an administrator-only operation, or an allowance used up).',
  not_found: 'There is no such object, or it belongs to another agent.',
  conflict: 'The request conflicts with the current state: a duplicate name, an illegal state transition, or an idempotency key reused with another body.',
  payment_required: 'The capability is paid: retry with a payment as described by `accepts`.',
  rate_limited: 'Too many requests for this operation in the current minute. Retry after `Retry-After` seconds.',
  service_unavailable: 'A component the request needs (the database) is unreachable for the moment. Retry after `Retry-After` seconds; nothing was changed.',
  capability_unavailable:
    'No registered provider offers the capability, and the marketplace cannot serve it here: it needs configuration this instance lacks (the message names it, e.g. a model backend). Retrying will not help until a provider registers or the operator configures it.',
  internal: 'The server failed. Nothing about the failure is shown; quote `request_id` when reporting it.',
};

export interface FieldError {
  path: string;
  message: string;
  /**
   * `forbidden`: the value is well-formed but not the caller's to give (a sub-key permission its service's
   * policy does not allow). Carried on the field, not the error, so that a surface renaming the fields to the
   * client's spelling (which builds a new ValidationFailed from them) keeps the refusal's status.
   */
  refusal?: 'forbidden';
}

/** A field error as answers show it. */
const shown = ({ path, message }: FieldError): FieldError => ({ path, message });

export class AppError extends GraphQLError {
  readonly code: ProblemCode;
  readonly status: number;

  constructor(code: ProblemCode, message: string, extra: Record<string, unknown> = {}, status = problemStatus[code]) {
    super(message, { extensions: { code: code.toUpperCase(), http: { status }, ...extra } });
    this.code = code;
    this.status = status;
  }
}

export class BadRequest extends AppError {
  constructor(message: string, status = 400) {
    super('bad_request', message, {}, status);
  }
}

/**
 * Fields refused, each named: 400 `validation_failed`, or 403 `forbidden` when every field is one the caller
 * may not give (FieldError.refusal); a malformed field among them makes it a 400 that lists them all.
 */
export class ValidationFailed extends AppError {
  readonly errors: FieldError[];
  constructor(errors: FieldError[] | FieldError, message?: string) {
    const list = Array.isArray(errors) ? errors : [errors];
    const forbidden = list.length > 0 && list.every((e) => e.refusal === 'forbidden');
    super(forbidden ? 'forbidden' : 'validation_failed', message ?? list.map((e) => `${e.path}: ${e.message}`).join('; '), { errors: list.map(shown) });
    this.errors = list;
  }
}

export class Unauthorized extends AppError {
  constructor(message = 'A valid bearer credential is required') {
    super('unauthorized', message);
  }
}

export class Forbidden extends AppError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class NotFound extends AppError {
  constructor(kind: string, id?: string) {
    super('not_found', id === undefined ? `No such ${kind}` : `No ${kind} ${id} for this agent`);
  }
}

export class Conflict extends AppError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class RateLimited extends AppError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, message = 'Rate limit exceeded') {
    super('rate_limited', message, { retryAfter: retryAfterSeconds });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Seconds a client is asked to wait while a required component is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export class ServiceUnavailable extends AppError {
  readonly retryAfterSeconds = UNAVAILABLE_RETRY_AFTER_SECONDS;
  constructor(message = 'The database is unreachable for the moment; retry shortly') {
    super('service_unavailable', message, { retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS });
  }
}

/** A capability nobody offers and the marketplace cannot serve without configuration it lacks. */
export class CapabilityUnavailable extends AppError {
  constructor(message: string) {
    super('capability_unavailable', message);
  }
}

// What a lost or refused connection to a required component looks like from the drivers: socket errors,
// PostgreSQL's connection-exception class (08…) and shutdown codes, Prisma's connection errors, and a
// transaction that could not start in time or outlived its time (the database too busy to take it).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
]);
const UNAVAILABLE_MESSAGES =
  /Unable to start a transaction in the given time|on an expired transaction|Connection terminated|connection timeout|timeout exceeded when trying to connect|Can't reach database server|Server has closed the connection|Client has encountered a connection error|Connection is closed/i;
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/** Whether an error (or one it wraps) says a required component could not be reached, not that the request was wrong. */
export function isUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (current instanceof ServiceUnavailable) return true;
    if (current instanceof AppError) return false;
    const e = current as {
      code?: unknown;
      kind?: unknown;
      message?: unknown;
      name?: unknown;
      cause?: unknown;
      originalError?: unknown;
      thrownValue?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof e.kind === 'string' && UNAVAILABLE_KINDS.has(e.kind)) return true;
    if (e.name === 'PrismaClientInitializationError') return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
    // graphql-js wraps what is not an Error of its realm as NonErrorThrown, keeping it as thrownValue.
    current = e.originalError ?? e.thrownValue ?? e.meta?.driverAdapterError ?? e.cause;
  }
  return false;
}

export class InternalError extends AppError {
  constructor(requestId?: string) {
    super('internal', 'Internal server error', requestId ? { request_id: requestId } : {});
  }
}

/** Reads the problem code of any GraphQL error (ours, or graphql-js's own validation errors). */
export function codeOf(err: GraphQLError): ProblemCode {
  if (err instanceof AppError) return err.code;
  const original = err.originalError;
  if (original instanceof AppError) return original.code;
  const code = typeof err.extensions?.code === 'string' ? err.extensions.code.toLowerCase() : undefined;
  if (code && code in problemStatus) return code as ProblemCode;
  if (code === 'graphql_validation_failed' || code === 'bad_user_input' || code === 'graphql_parse_failed') return 'bad_request';
  // An error raised by graphql-js itself (no original error, or one of its own) is the client's fault.
  if (original && !(original instanceof GraphQLError)) return isUnavailable(original) ? 'service_unavailable' : 'internal';
  return 'bad_request';
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  request_id: string;
  [extra: string]: unknown;
}

/** Titles for the statuses a code shares with others (405, 413 and 415 are all `bad_request`). */
const statusTitle: Record<number, string> = { 405: 'Method Not Allowed', 413: 'Payload Too Large', 415: 'Unsupported Media Type' };

export function problem(
  baseUrl: string,
  code: ProblemCode,
  detail: string,
  requestId: string,
  extra: Record<string, unknown> = {},
  status = problemStatus[code],
): Problem {
  return {
    type: `${baseUrl}/problems/${code.replace(/_/g, '-')}`,
    title: statusTitle[status] ?? problemTitle[code],
    status,
    detail,
    code,
    request_id: requestId,
    ...extra,
  };
}

/** The problem+json body for an error thrown anywhere; unexpected errors never show their message. */
export function problemFromError(baseUrl: string, err: unknown, requestId: string): Problem {
  const appError = err instanceof AppError ? err : err instanceof GraphQLError && err.originalError instanceof AppError ? err.originalError : undefined;
  if (appError) {
    const extra: Record<string, unknown> = {};
    if (appError instanceof ValidationFailed) extra.errors = appError.errors.map(shown);
    for (const [key, value] of Object.entries(appError.extensions)) {
      if (!['code', 'http', 'errors', 'retryAfter', 'request_id'].includes(key)) extra[key] = value;
    }
    return problem(baseUrl, appError.code, appError.message, requestId, extra, appError.status);
  }
  if (err instanceof GraphQLError && (!err.originalError || err.originalError instanceof GraphQLError)) {
    return problem(baseUrl, 'bad_request', err.message, requestId);
  }
  if (isUnavailable(err)) return problemFromError(baseUrl, new ServiceUnavailable(), requestId);
  return problem(baseUrl, 'internal', 'Internal server error', requestId);
}
