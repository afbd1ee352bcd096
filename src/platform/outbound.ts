// The one HTTPS client for every outbound call (provider calls, webhooks, callbacks): pooled keep-alive
// connections, no redirects, bounded time and size, and an SSRF guard applied before and at connect time.
import dns from 'node:dns';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';

export type OutboundFailure = 'invalid_url' | 'blocked_address' | 'timeout' | 'connection' | 'tls' | 'too_large' | 'aborted';

/** Messages name the origin and a system code at most: never the path, query, headers or body. */
export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
    /** The underlying system or TLS code (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT…), when there was one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Every address a name resolves to; `family` is 0 (any), 4 or 6. */
export type Resolver = (hostname: string, family: number) => Promise<ResolvedAddress[]>;

export interface OutboundOptions {
  /** Lifts the address guard (never the https requirement); only tests set it, via OUTBOUND_ALLOW_PRIVATE=1. */
  allowPrivate: boolean;
  /** Connections per origin (default 128); calls beyond them queue, inside their own timeout. */
  connectionsPerOrigin?: number;
  /** How long an idle pooled connection is kept when the server gives no Keep-Alive hint (default 10 s). */
  keepAliveTimeoutMs?: number;
  /** The most a server's Keep-Alive hint may keep an idle connection (default 60 s). */
  keepAliveMaxTimeoutMs?: number;
  /** Name resolution for the connect-time guard (default dns.lookup); tests substitute hostile answers. */
  resolve?: Resolver;
}

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  /** One budget for connecting, the response headers and the whole body. */
  timeoutMs: number;
  /** Default 1 MiB; a longer response fails with 'too_large'. */
  maxResponseBytes?: number;
  /**
   * The caller's: when it aborts, the call fails with 'aborted' at once and its connection is closed (a call
   * still waiting for one is never written), instead of living on to its own deadline.
   */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  latencyMs: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

// ---- Forbidden addresses -------------------------------------------------------------------------
// Matched on bytes rather than with node:net's BlockList: BlockList silently matches IPv4-mapped IPv6
// addresses against IPv4 rules but not NAT64 ones, and an IPv6 rule for ::ffff:0:0/96 matches every IPv4
// address. Spelling the unwrapping out keeps the policy independent of those quirks.

interface Range {
  bytes: number[];
  bits: number;
}

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** 16 bytes from any valid IPv6 text form (compressed, with a dotted IPv4 tail); assumes isIP() said 6. */
function ipv6Bytes(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const words = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

function range(cidr: string): Range {
  const [address, bits] = cidr.split('/');
  return { bytes: isIP(address) === 4 ? ipv4Bytes(address) : ipv6Bytes(address), bits: Number(bits) };
}

function inRange(bytes: number[], { bytes: prefix, bits }: Range): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[i / 8] & mask) !== (prefix[i / 8] & mask)) return false;
  }
  return true;
}

const FORBIDDEN_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
].map(range);

const FORBIDDEN_V6 = [
  // Covers :: and ::1, and the deprecated IPv4-compatible form (::127.0.0.1) that nothing legitimate uses.
  '::/96',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
  '2001:db8::/32',
  '100::/64',
].map(range);

// Forms that carry an IPv4 address and reach it, so the embedded address is what is judged: IPv4-mapped,
// NAT64 (well-known and local-use) and ISATAP in the last 32 bits; 6to4 right after its 2002::/16 prefix;
// Teredo its server in bits 32-63 and its client, inverted, in the last 32 bits.
const IN_LAST_32 = ['::ffff:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48'].map(range);
const SIX_TO_FOUR = range('2002::/16');
const TEREDO = range('2001::/32');

/** The IPv4 addresses an IPv6 address embeds and would reach, if any. */
function embeddedIpv4(bytes: number[]): number[][] {
  if (IN_LAST_32.some((r) => inRange(bytes, r))) return [bytes.slice(12)];
  if (inRange(bytes, SIX_TO_FOUR)) return [bytes.slice(2, 6)];
  if (inRange(bytes, TEREDO)) return [bytes.slice(4, 8), bytes.slice(12).map((b) => b ^ 0xff)];
  // ISATAP: an interface identifier of 0000:5efe or 0200:5efe ahead of the IPv4 address.
  if ((bytes[8] === 0 || bytes[8] === 2) && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe) return [bytes.slice(12)];
  return [];
}

/** True for an address an outbound call must not reach; anything that is not an address counts as one. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, ''); // an IPv6 zone (fe80::1%eth0) is not part of the address
  switch (isIP(bare)) {
    case 4:
      return FORBIDDEN_V4.some((r) => inRange(ipv4Bytes(bare), r));
    case 6: {
      const bytes = ipv6Bytes(bare);
      if (FORBIDDEN_V6.some((r) => inRange(bytes, r))) return true;
      return embeddedIpv4(bytes).some((v4) => FORBIDDEN_V4.some((r) => inRange(v4, r)));
    }
    default:
      return true;
  }
}

// ---- URLs ----------------------------------------------------------------------------------------

const URL_PROBLEMS = {
  notHttps: 'must be an absolute https:// URL',
  credentials: 'must not contain credentials',
  private: 'must not point at a private, loopback or link-local address',
};

/** The WHATWG parser has already turned 2130706433, 0x7f000001 and 0177.0.0.1 into 127.0.0.1. */
function parseOutboundUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', `URL ${URL_PROBLEMS.notHttps}`);
  }
  if (url.protocol !== 'https:') throw new OutboundError('invalid_url', `URL ${URL_PROBLEMS.notHttps}`);
  if (url.username || url.password) throw new OutboundError('invalid_url', `URL ${URL_PROBLEMS.credentials}`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // net.connect skips the lookup hook for an IP literal, so literals are judged here, before any socket.
  if (!allowPrivate && isIP(host) && isForbiddenAddress(host)) {
    throw new OutboundError('blocked_address', `URL ${URL_PROBLEMS.private}`);
  }
  return url;
}

/**
 * Why a URL may not be registered for outbound calls, or undefined. Only IP literals can be judged now;
 * a name is judged by what it resolves to when a call connects.
 */
export function checkOutboundUrl(url: string, allowPrivate: boolean): string | undefined {
  try {
    parseOutboundUrl(url, allowPrivate);
    return undefined;
  } catch (err) {
    return (err as OutboundError).message.replace(/^URL /, '');
  }
}

// ---- The client ----------------------------------------------------------------------------------

const defaultResolve: Resolver = (hostname, family) => dns.promises.lookup(hostname, { all: true, family });

type LookupCallback = (err: Error | null, address: string | ResolvedAddress[], family?: number) => void;

/**
 * A net.connect lookup hook that resolves once, refuses the whole name if any answer is forbidden, and hands
 * net only the answers it checked, so a second, rebinding resolution never happens.
 */
function guardedLookup(resolve: Resolver) {
  return (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family) || 0;
    resolve(hostname, family).then(
      (found) => {
        // Any forbidden answer condemns the name, even one of a family this connection would not use.
        if (found.some((a) => isForbiddenAddress(a.address))) {
          callback(new OutboundError('blocked_address', `${hostname} resolves to a private, loopback or link-local address`), []);
          return;
        }
        const addresses = family ? found.filter((a) => a.family === family) : found;
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENOTFOUND' }), []);
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, addresses[0].address, addresses[0].family);
        }
      },
      (err: Error) => callback(err, []),
    );
  };
}

const TLS_CODE = /^ERR_(TLS|SSL)_|CERT|CRL|SELF_SIGNED|^UNABLE_TO_|^INVALID_(CA|PURPOSE)$|^PATH_LENGTH_EXCEEDED$|^HOSTNAME_MISMATCH$/;
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, errors } = err as { code?: unknown; errors?: unknown[] };
  if (typeof code === 'string') return code;
  // With several addresses net reports an AggregateError; the first attempt's code speaks for it.
  return Array.isArray(errors) ? codeOf(errors[0]) : undefined;
}

/** A checked URL: what a call is dispatched to. */
interface Target {
  origin: string;
  path: string;
}
/** Checked URLs kept by a client; past this many the memory starts over (endpoints are few in practice). */
const TARGETS_KEPT = 1024;

export class OutboundClient {
  /** Made by the first call: undici is loaded then, not by a start that calls out to no one (docs/operations.md, Start). */
  private pool?: Agent;
  private readonly allowPrivate: boolean;
  private readonly targets = new Map<string, Target>();

  constructor(private readonly opts: OutboundOptions) {
    this.allowPrivate = opts.allowPrivate;
  }

  private get agent(): Agent {
    if (!this.pool) {
      const { Agent } = require('undici') as typeof import('undici');
      const opts = this.opts;
      this.pool = new Agent({
        connections: opts.connectionsPerOrigin ?? 128,
        keepAliveTimeout: opts.keepAliveTimeoutMs ?? 10_000,
        keepAliveMaxTimeout: opts.keepAliveMaxTimeoutMs ?? 60_000,
        connect: opts.allowPrivate ? {} : { lookup: guardedLookup(opts.resolve ?? defaultResolve) },
      });
    }
    return this.pool;
  }

  /** Never follows a redirect: a 3xx comes back as the response and its Location is not contacted. */
  post(rawUrl: string, opts: PostOptions): Promise<OutboundResponse> {
    return this.send('POST', rawUrl, opts);
  }

  /** A GET under the same guard, bounds and timeout (fetching a manifest or an agent card); no redirects. */
  get(rawUrl: string, opts: Omit<PostOptions, 'body'>): Promise<OutboundResponse> {
    return this.send('GET', rawUrl, opts);
  }

  /**
   * One call over undici's dispatch API: a handler collects the response, with no stream, promise or abort signal per
   * call (docs/execution.md, Outbound calls). One timer bounds connecting, headers and body; on expiry or the caller's
   * abort the call fails at once and the request is aborted (before it is written, if still waiting for a connection).
   */
  private send(method: 'GET' | 'POST', rawUrl: string, opts: Omit<PostOptions, 'body'> & { body?: string }): Promise<OutboundResponse> {
    let target: Target;
    try {
      target = this.target(rawUrl);
    } catch (err) {
      return Promise.reject(err);
    }
    if (opts.signal?.aborted) return Promise.reject(abandoned(`${method} ${target.origin}`));
    return new Promise((resolve, reject) => {
      const call = new Call(`${method} ${target.origin}`, opts.timeoutMs, opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, resolve, reject, opts.signal);
      try {
        this.agent.dispatch({ origin: target.origin, path: target.path, method, headers: opts.headers, body: opts.body }, call);
      } catch (err) {
        // undici hands a request it refuses to build (a malformed header) to onError; anything it throws instead fails the call too.
        call.fail(err);
      }
    });
  }

  /**
   * Where a URL sends a call, checked by parseOutboundUrl. The check is a function of the text alone (names
   * are judged at connect time, on every connection), so a URL seen before is not parsed again: providers'
   * and receivers' endpoints repeat on every call. Refusals are not kept.
   */
  private target(rawUrl: string): Target {
    let target = this.targets.get(rawUrl);
    if (target) return target;
    const url = parseOutboundUrl(rawUrl, this.allowPrivate);
    target = { origin: url.origin, path: `${url.pathname}${url.search}` };
    if (this.targets.size >= TARGETS_KEPT) this.targets.clear();
    this.targets.set(rawUrl, target);
    return target;
  }

  close(): Promise<void> {
    return this.pool?.close() ?? Promise.resolve();
  }
}

/**
 * What a call failed with, as its caller sees it. `origin` is the method and origin
 * (`POST https://p.example`), as messages name the call.
 */
function failureOf(err: unknown, timedOut: boolean, origin: string, timeoutMs: number): unknown {
  if (err instanceof OutboundError) return err;
  const code = codeOf(err);
  // A malformed header is the caller's bug, not the far side's failure; undici's message names no value.
  if (code === 'UND_ERR_INVALID_ARG') return err;
  if (timedOut || (code && TIMEOUT_CODES.has(code))) {
    return new OutboundError('timeout', `${origin}: no complete response within ${timeoutMs} ms`, code);
  }
  if (code && TLS_CODE.test(code)) return new OutboundError('tls', `${origin}: TLS failed (${code})`, code);
  return new OutboundError('connection', `${origin}: connection failed (${code ?? 'unknown'})`, code);
}

const abandoned = (origin: string) => new OutboundError('aborted', `${origin}: the call was abandoned by its caller`);

/**
 * One call in flight: undici's handler (its legacy callbacks, which undici calls on the object), collecting
 * the response under the size bound, and settling the call's promise once, on completion, failure or the
 * deadline. A class rather than closures: nothing is created per call but the object and its timer.
 */
class Call {
  private settled = false;
  private abort: ((reason: Error) => void) | undefined;
  private status = 0;
  private headers: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly started = performance.now();

  constructor(
    /** The method and origin, as messages name the call. */
    private readonly origin: string,
    private readonly timeoutMs: number,
    private readonly maxBytes: number,
    private readonly resolve: (response: OutboundResponse) => void,
    private readonly reject: (err: unknown) => void,
    private readonly signal?: AbortSignal,
  ) {
    // failureOf() names the timeout.
    this.timer = setTimeout(expire, timeoutMs, this);
    // A listener only for a call given a signal: the calls without one stay as cheap as before.
    signal?.addEventListener('abort', this, { once: true });
  }

  /** The signal's abort (the call is its own listener: no closure per call). */
  handleEvent(): void {
    this.fail(abandoned(this.origin));
  }

  /** Stops the deadline and stops listening, once the call is settled. */
  private finish(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this);
  }

  fail(err: unknown, timedOut = false): void {
    if (this.settled) return;
    this.finish();
    const failure = failureOf(err, timedOut, this.origin, this.timeoutMs);
    // The request stops here (undici answers the abort with an onError, which finds the call settled).
    this.abort?.(failure instanceof Error ? failure : new Error(String(failure)));
    this.reject(failure);
  }

  private tooLarge(): void {
    this.fail(new OutboundError('too_large', `${this.origin}: response is larger than ${this.maxBytes} bytes`));
  }

  onConnect(abortCall: (reason: Error) => void): void {
    // A call that has already failed (its deadline passed while it waited) is never written.
    if (this.settled) abortCall(new Error('the call has already failed'));
    else this.abort = abortCall;
  }

  onHeaders(statusCode: number, raw: Array<Buffer | string>): boolean {
    this.status = statusCode;
    this.headers = headersOf(raw);
    // A declared length over the limit fails before a byte of the body is read.
    if (Number(this.headers['content-length']) > this.maxBytes) {
      this.tooLarge();
      return false;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return false;
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.tooLarge();
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.finish();
    const body = (this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size)).toString('utf8');
    this.resolve({ status: this.status, headers: this.headers, body, latencyMs: performance.now() - this.started });
  }

  onError(err: Error): void {
    this.fail(err);
  }
}

function expire(call: Call): void {
  call.fail(undefined, true);
}

/** A response's raw header list as one lower-case name per header, repeated headers joined with ", ". */
function headersOf(raw: Array<Buffer | string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toString('latin1').toLowerCase();
    const value = raw[i + 1].toString('latin1');
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}
