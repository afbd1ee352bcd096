// Plain node:http plumbing shared by the REST dispatcher, the GraphQL fast path and Express: request
// ids, the client's address, bounded JSON bodies, and JSON / problem+json responses.
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { BadRequest, problem, problemFromError, UNAVAILABLE_RETRY_AFTER_SECONDS, ValidationFailed, type Problem } from './errors';
import { inputProblem } from './input-boundary';
import { newRequestId } from './ids';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Per-response facts: the request id (for Express and yoga), the route pattern and the start (for metrics). */
export interface ResponseFacts {
  requestId: string;
  route: string | undefined;
  /** performance.now() when the request arrived. */
  started: number;
  /** Server-Timing metrics the operation adds (a provider's time per attempt), listed before the marketplace's own. */
  timing?: string[];
}
// A property of the response rather than a WeakMap entry: set on every request, a WeakMap entry is the
// costlier of the two to make and for the garbage collector to clear.
const FACTS = Symbol('response facts');
export const attachFacts = (res: object, facts: ResponseFacts): void => {
  (res as { [FACTS]?: ResponseFacts })[FACTS] = facts;
};
export const factsOf = (res: object): ResponseFacts | undefined => (res as { [FACTS]?: ResponseFacts })[FACTS];
export const requestIdOf = (res: object): string => factsOf(res)?.requestId ?? '';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is sane, otherwise a new `req_…`. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newRequestId();
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * The client's address. X-Forwarded-For is believed only with TRUST_PROXY=1 and only from a proxy on
 * loopback (otherwise any client could choose the address its rate limits and audit records carry).
 */
export function clientAddress(req: IncomingMessage, trustProxy = false): string {
  const remote = req.socket.remoteAddress ?? 'unknown';
  const forwarded = req.headers['x-forwarded-for'];
  if (trustProxy && typeof forwarded === 'string' && LOOPBACK.test(remote)) {
    const hops = forwarded
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) if (!LOOPBACK.test(hops[i])) return hops[i];
  }
  return remote;
}

export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function hasBody(req: IncomingMessage): boolean {
  return (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads a JSON body of at most 1 MiB: 415 for another content type, 413 when too large (the rest is not
 * read and the connection closes), 400 for invalid JSON and for what the input boundary refuses (nesting
 * deeper than 32 levels, a NUL or a lone surrogate anywhere). An absent body reads as undefined.
 */
export function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  return readBodyText(req, res).then(parseJsonBody);
}

/**
 * The text of a JSON body of at most 1 MiB, not yet parsed (415 and 413 as readJsonBody; undefined when
 * there is none): for a caller that may answer from what it kept for the same text without parsing it.
 */
export function readBodyText(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  if (!hasBody(req)) return Promise.resolve(undefined);
  if (!isJsonContentType(req.headers['content-type'])) {
    return Promise.reject(new BadRequest('The request body must be JSON (Content-Type: application/json)', 415));
  }
  const declared = Number(req.headers['content-length']);
  if (declared > BODY_LIMIT_BYTES) {
    res.shouldKeepAlive = false;
    return Promise.reject(new BadRequest('The request body is larger than 1 MiB', 413));
  }
  return new Promise((resolve, reject) => {
    // Decoded as it arrives: a large body is never gathered into one more native buffer of its size. A
    // body of one chunk (most are: a resolve query is some 100 bytes) is decoded whole at its end, with
    // no decoder made for it; a character cut at a chunk's end needs one from the second chunk on.
    let first: Buffer | undefined;
    let decoder: StringDecoder | undefined;
    let text = '';
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        failed = true;
        res.shouldKeepAlive = false;
        req.pause();
        reject(new BadRequest('The request body is larger than 1 MiB', 413));
        return;
      }
      if (decoder === undefined && first === undefined) {
        first = chunk;
        return;
      }
      if (decoder === undefined) {
        decoder = new StringDecoder('utf8');
        text = decoder.write(first!);
        first = undefined;
      }
      text += decoder.write(chunk);
    });
    req.on('end', () => {
      if (failed) return;
      resolve(decoder !== undefined ? text + decoder.end() : first !== undefined ? first.toString('utf8') : '');
    });
    req.on('error', (err) => {
      if (!failed) reject(new BadRequest(`The request body could not be read: ${err.message}`));
    });
  });
}

/** A body's text as JSON, held to the input boundary (400 as readJsonBody); blank or absent reads as undefined. */
export function parseJsonBody(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequest('The request body is not valid JSON');
  }
  // The input boundary: nothing deeper than MAX_JSON_DEPTH, no text the database cannot store.
  const problem = inputProblem(parsed);
  if (problem) throw new ValidationFailed(problem);
  return parsed;
}

export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json; charset=utf-8',
): void {
  writeText(res, status, JSON.stringify(body), headers, contentType);
}

/**
 * A body already serialized, as `contentType` (JSON unless told); nothing of it for HEAD. Bytes (an answer
 * kept to be sent again: jsonBytes) go out as they are, the header beside them in the same write; a string
 * is encoded on the way.
 */
export function writeText(
  res: ServerResponse,
  status: number,
  text: string | Buffer,
  headers: Record<string, string> = {},
  contentType = 'application/json; charset=utf-8',
): void {
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': typeof text === 'string' ? Buffer.byteLength(text) : text.length });
  res.end(res.req?.method === 'HEAD' ? undefined : text);
}

/**
 * A value's JSON as UTF-8 bytes of their own, for an answer kept to be sent many times: encoded once,
 * not per answer, and outside the JavaScript heap. Not a slice of Node's shared pool of small buffers,
 * which a kept answer would hold whole (`Buffer.poolSize` for an answer of a hundred bytes).
 */
export function jsonBytes(value: unknown): Buffer {
  const text = JSON.stringify(value);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

export function writeProblem(res: ServerResponse, problem: Problem, headers: Record<string, string> = {}): void {
  // Unavailable for the moment: say when to come back.
  const retry: Record<string, string> =
    problem.code === 'service_unavailable' && !headers['Retry-After'] ? { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } : {};
  writeJson(res, problem.status, problem, { ...headers, ...retry, ...paymentRequiredHeader(problem) }, 'application/problem+json; charset=utf-8');
}

/** x402's HTTP transport: a 402 that carries payment requirements also sends them base64-encoded in PAYMENT-REQUIRED. */
export function paymentRequiredHeader(problem: Problem): Record<string, string> {
  if (problem.status !== 402 || typeof problem.x402Version !== 'number' || !Array.isArray(problem.accepts)) return {};
  const required: PaymentRequired = {
    x402Version: problem.x402Version,
    ...(typeof problem.error === 'string' ? { error: problem.error } : {}),
    resource: problem.resource as PaymentRequired['resource'],
    accepts: problem.accepts as PaymentRequired['accepts'],
  };
  return { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(required) };
}

/**
 * What node:http cannot parse (headers over its limit, a malformed request line) or did not receive in
 * time gets a problem+json answer and a closed connection, instead of Node's bare status line and a reset.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, baseUrl: string): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, title, detail] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'The request line and headers are larger than 16 KiB']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? // Node's deadlines for headers and for the whole request (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS).
          [408, 'Request Timeout', 'The request did not arrive in time: send its headers and body without pausing']
        : [400, 'Bad Request', 'The request could not be parsed as HTTP'];
  const body = JSON.stringify({ ...problem(baseUrl, 'bad_request', detail, newRequestId(), {}, status), title });
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Refuses a WebSocket upgrade with the problem as a plain HTTP answer, and closes the connection. */
export function refuseUpgrade(socket: Duplex, problem: Problem, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(problem);
  const lines = [
    `HTTP/1.1 ${problem.status} ${problem.title}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** A problem+json for any thrown value (unexpected errors show nothing of themselves). */
export function writeError(res: ServerResponse, baseUrl: string, err: unknown, requestId: string, headers: Record<string, string> = {}): Problem {
  const problem = problemFromError(baseUrl, err, requestId);
  if (!res.headersSent) writeProblem(res, problem, headers);
  else res.end();
  return problem;
}

/**
 * A Retry-After header's wait in whole seconds (RFC 9110: delay-seconds or an HTTP-date, read against
 * `now`), at most `maxSeconds`; null when absent or unreadable.
 */
export function retryAfterSeconds(header: string | undefined, now: Date, maxSeconds: number): number | null {
  if (header === undefined) return null;
  const text = header.trim();
  let seconds: number;
  if (/^\d+$/.test(text)) seconds = Number(text);
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    seconds = Math.ceil((at - now.getTime()) / 1000);
  }
  return Math.min(maxSeconds, Math.max(0, seconds));
}

/** One W3C Server-Timing metric: `name;desc="…";dur=ms` (desc omitted when not given). */
export function timingMetric(name: string, ms: number, desc?: string): string {
  return `${name}${desc === undefined ? '' : `;desc="${desc.replace(/["\\]/g, '')}"`};dur=${Math.max(0, ms).toFixed(1)}`;
}

/** The `dur` of every `provider` metric in a Server-Timing value, summed. */
function providerTime(value: string): number {
  let sum = 0;
  for (const m of value.matchAll(/(?:^|,)\s*provider;[^,]*?dur=([\d.]+)/g)) sum += Number(m[1]);
  return sum;
}

/** Milliseconds to one decimal, from integers (a double's shortest form costs more to print). */
function tenths(ms: number): string {
  const t = Math.round(ms * 10);
  return `${(t - (t % 10)) / 10}.${t % 10}`;
}

/**
 * Every answer's Server-Timing (W3C): what it already names (a provider's time per attempt, on execute),
 * then `marketplace` (the time the marketplace took itself: the whole less the providers') and `total`,
 * from the request's arrival (ResponseFacts.started) to its headers. A class of its own for node:http's
 * `ServerResponse` option, so that no request pays for a closure.
 */
export class TimedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  override writeHead(statusCode: number, reason?: unknown, headers?: unknown): this {
    return timedWriteHead.call(this, statusCode, reason, headers) as this;
  }
}

const writeHeadOfNode = ServerResponse.prototype.writeHead as (this: ServerResponse, statusCode: number, reason?: unknown, headers?: unknown) => ServerResponse;

/**
 * TimedResponse's writeHead, for a response whose prototype its framework replaces (Express sets its own,
 * made from node:http's): given to it as its own property, which survives that. It also writes the answer's
 * X-Request-Id: joined to the headers given, when nothing was set on the response before, node:http takes
 * them as they are instead of setting them one by one (its fast path, which every REST and GraphQL answer
 * takes).
 */
export function timedWriteHead(this: ServerResponse, statusCode: number, reason?: unknown, headers?: unknown): ServerResponse {
  const facts = factsOf(this);
  if (facts !== undefined && !this.headersSent) {
    const total = performance.now() - facts.started;
    // The headers given to writeHead (an object: the form every surface here uses) win over the ones set before.
    const last = headers ?? reason;
    const given = last !== null && typeof last === 'object' && !Array.isArray(last) ? (last as Record<string, unknown>) : undefined;
    const set = (given === undefined ? this.getHeader('server-timing') : (given['Server-Timing'] ?? this.getHeader('server-timing'))) as string | undefined;
    const before = facts.timing ? [...facts.timing, ...(set === undefined ? [] : [set])].join(', ') : set;
    let value: string;
    if (before === undefined) {
      const shown = tenths(total);
      value = `marketplace;dur=${shown}, total;dur=${shown}`;
    } else value = `${before}, marketplace;dur=${tenths(Math.max(0, total - providerTime(before)))}, total;dur=${tenths(total)}`;
    // A copy of the headers given: an answer may pass an object it shares with others (A2A's SSE headers).
    if (given !== undefined) {
      const timed = { ...given, 'X-Request-Id': facts.requestId, 'Server-Timing': value };
      return headers === undefined ? writeHeadOfNode.call(this, statusCode, timed) : writeHeadOfNode.call(this, statusCode, reason, timed);
    }
    this.setHeader('X-Request-Id', facts.requestId);
    this.setHeader('Server-Timing', value);
  }
  return headers === undefined
    ? reason === undefined
      ? writeHeadOfNode.call(this, statusCode)
      : writeHeadOfNode.call(this, statusCode, reason)
    : writeHeadOfNode.call(this, statusCode, reason, headers);
}
