// Getting a web page for the web capabilities: fetched through the SSRF-guarded client (HTTPS only, every
// redirect hop checked again by that client), within one time and size budget and the caller's signal;
// then read in the web reader's thread (web-reader.ts: linkedom and Readability), each read bounded in
// time, so parsing a large page never holds the event loop.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AppError } from '../../platform/errors';
import { OutboundError, type OutboundFailure } from '../../platform/outbound';
import { TaskThread, TaskThreadError } from '../../platform/task-thread';
import type { Services } from '../context';
import { normalisedUrl, type ReaderTasks } from './web-reader';

/** Redirects followed at most (301, 302, 303, 307, 308), each hop a new guarded call. */
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Why a page could not be read: the client's reasons, what the answer was, and a read past its budget. */
export type PageFailureReason = OutboundFailure | 'redirects' | 'content_type' | 'encoding' | 'status' | 'read_timeout';

/** A page that could not be read, with a message the caller can act on (origin and reason, never the path). */
export class PageFailure extends Error {
  constructor(
    readonly reason: PageFailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'PageFailure';
  }
}

export interface FetchOptions {
  /** One budget for every hop: connecting, headers and bodies. */
  timeoutMs: number;
  /** The most one answer's body may hold. */
  maxBytes: number;
  signal: AbortSignal;
  /** Extra request headers (a monitor's If-None-Match). */
  headers?: Record<string, string>;
}

export interface FetchedPage {
  /** The URL asked for, as normalised (no fragment). */
  url: string;
  /** Where the last hop answered. */
  finalUrl: string;
  /** Each redirect's target, in order. */
  redirects: string[];
  status: number;
  /** The media type, lower case, without parameters; '' when the page named none. */
  contentType: string;
  /** How the body is read: HTML (parsed), or text as it is. */
  kind: 'html' | 'text';
  body: string;
  /** Bytes of the last hop's body (as received; redirects' bodies are not counted). */
  bytes: number;
  etag: string | null;
  lastModified: string | null;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['application/json', 'application/ld+json', 'application/xml', 'application/rss+xml', 'application/atom+xml']);

function requestHeaders(services: Services, extra: Record<string, string> | undefined): Record<string, string> {
  return {
    accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1',
    // No Accept-Encoding: servers answer identity, which is what the client reads.
    'user-agent': `AgentCapabilityMarketplace/1.1 (+${services.config.publicBaseUrl})`,
    ...extra,
  };
}

/** What a signal's abort throws: its reason when that is an error. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The call was cancelled');
}

function failureOf(err: OutboundError, url: string, hop: number): PageFailure {
  const where = hop > 0 ? `its redirect to ${new URL(url).origin}` : new URL(url).origin;
  const what = err.message.replace(/^(GET|POST) \S+: /, '').replace(/^URL /, '');
  switch (err.reason) {
    case 'blocked_address':
      return new PageFailure('blocked_address', `${where} was refused by the outbound guard: ${what}`);
    case 'invalid_url':
      return new PageFailure('invalid_url', `${where} ${what}`);
    default:
      return new PageFailure(err.reason, `${where}: ${what}`);
  }
}

/**
 * GETs a page through the guarded client, following up to MAX_REDIRECTS redirects, and reads the last answer as HTML or
 * text. Throws PageFailure when it cannot (refused address, budget spent, too large, not text), the signal's reason when
 * it aborts. Any final status is returned: callers decide what a 404 means to them.
 */
export async function fetchPage(services: Services, rawUrl: string, opts: FetchOptions): Promise<FetchedPage> {
  const deadline = performance.now() + opts.timeoutMs;
  const headers = requestHeaders(services, opts.headers);
  const url = normalisedUrl(rawUrl);
  const redirects: string[] = [];
  let current = url;
  for (let hop = 0; ; hop++) {
    const left = Math.floor(deadline - performance.now());
    if (left <= 0) throw new PageFailure('timeout', `${new URL(current).origin}: no complete answer within ${opts.timeoutMs} ms`);
    let res;
    try {
      // The signal goes to the client: an abandoned call's connection is closed at once.
      res = await services.outbound.get(current, { headers, timeoutMs: left, maxResponseBytes: opts.maxBytes, signal: opts.signal });
    } catch (err) {
      if (opts.signal.aborted) throw abortReason(opts.signal);
      if (err instanceof OutboundError) throw failureOf(err, current, hop);
      throw err;
    }
    const location = res.headers.location;
    if (REDIRECTS.has(res.status) && location) {
      if (hop >= MAX_REDIRECTS) throw new PageFailure('redirects', `${new URL(url).origin}: more than ${MAX_REDIRECTS} redirects`);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new PageFailure('redirects', `${new URL(current).origin} redirected to a Location that is not a URL`);
      }
      next.hash = '';
      if (next.protocol !== 'https:')
        throw new PageFailure('invalid_url', `${new URL(current).origin} redirected to a ${next.protocol.replace(/:$/, '')} URL; only https:// is followed`);
      current = next.href;
      redirects.push(current);
      continue;
    }
    const encoding = res.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity')
      throw new PageFailure('encoding', `${new URL(current).origin} answered in content-encoding ${encoding}, which was not asked for`);
    const contentType = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    return {
      url,
      finalUrl: current,
      redirects,
      status: res.status,
      contentType,
      kind: kindOf(contentType, res.body, current, res.status),
      body: res.body,
      bytes: Buffer.byteLength(res.body),
      etag: res.headers.etag ?? null,
      lastModified: res.headers['last-modified'] ?? null,
    };
  }
}

/**
 * HTML types are parsed; other text (text/*, JSON, XML) is read as it is. A page naming no type is HTML
 * when it opens like HTML. Anything else (images, PDF, archives) is refused — unless the answer is an
 * error or a 304, whose body does not matter.
 */
function kindOf(contentType: string, body: string, url: string, status: number): 'html' | 'text' {
  if (HTML_TYPES.has(contentType)) return 'html';
  if (contentType.startsWith('text/') || TEXT_TYPES.has(contentType) || contentType.endsWith('+json') || contentType.endsWith('+xml')) return 'text';
  if (!contentType) return /^\s*<(!doctype html|html)[\s>]/i.test(body.slice(0, 1024)) ? 'html' : 'text';
  if (status < 200 || status > 299) return 'text';
  throw new PageFailure(
    'content_type',
    `${new URL(url).origin} answered ${contentType}, which is not a web page or text (HTML, XHTML, text/*, JSON and XML are read)`,
  );
}

/** A status outside 2xx as a failure, for the capabilities that read a page rather than watch it. */
export function requireSuccess(page: FetchedPage): void {
  if (page.status < 200 || page.status > 299) throw new PageFailure('status', `${new URL(page.finalUrl).origin} answered ${page.status}`);
}

// ---- The reader's thread ------------------------------------------------------------------------------

/** The most of the reader's time one task may take (a page is at most 2 MiB). */
export const READ_BUDGET_MS = 5_000;

/** The reader cannot take the work now: too many pages are waiting, or its thread failed. */
export class ReaderUnavailable extends AppError {
  constructor(message: string) {
    super('service_unavailable', message);
  }
}

// One thread per process, started on first use and ended after ten idle minutes.
let thread: TaskThread | undefined;

function readerThread(): TaskThread {
  thread ??= new TaskThread({
    bootPath: path.join(__dirname, 'web-reader-worker.boot.cjs'),
    name: 'web reader',
    maxWaiting: 32,
    idleMs: 10 * 60_000,
    startBudgetMs: 60_000,
  });
  return thread;
}

type Task<K extends keyof ReaderTasks> = Parameters<ReaderTasks[K]>[0];

/**
 * Runs a reader task within `budgetMs` (READ_BUDGET_MS by default). A task past its budget is a
 * PageFailure (`read_timeout`: the page is too much to read); a full queue or a failed thread is
 * ReaderUnavailable; the signal's abort is its reason.
 */
export async function readInThread<K extends keyof ReaderTasks>(
  task: K,
  payload: Task<K>,
  signal: AbortSignal,
  budgetMs: number = READ_BUDGET_MS,
): Promise<ReturnType<ReaderTasks[K]>> {
  try {
    return await readerThread().run<ReturnType<ReaderTasks[K]>>(task, payload, { budgetMs, signal });
  } catch (err) {
    if (!(err instanceof TaskThreadError)) throw err;
    if (err.reason === 'aborted') throw abortReason(signal);
    if (err.reason === 'timeout') throw new PageFailure('read_timeout', `reading the page took longer than ${budgetMs} ms`);
    throw new ReaderUnavailable(err.reason === 'busy' ? 'the web reader has too many pages waiting; retry shortly' : err.message);
  }
}
