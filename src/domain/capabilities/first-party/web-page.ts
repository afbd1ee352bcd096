// Reading a web page for the web capabilities: fetched through the SSRF-guarded client (HTTPS only, every
// redirect hop checked again by that client), within one time and size budget and the caller's signal;
// then read by maintained parsers — linkedom's HTML parser and Mozilla's Readability — never by patterns.
import { Readability } from '@mozilla/readability';
import { performance } from 'node:perf_hooks';
import { OutboundError, type OutboundFailure } from '../../../platform/outbound';
import type { Services } from '../../context';

type Linkedom = typeof import('linkedom', { with: { 'resolution-mode': 'import' } });
// linkedom is published as ES modules with a CommonJS build; its types resolve as ES modules only.
const { parseHTML } = require('linkedom') as Linkedom;

/** Redirects followed at most (301, 302, 303, 307, 308), each hop a new guarded call. */
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Readability gives up on a document of more elements than this; the page's visible text is read instead. */
const MAX_READABILITY_ELEMENTS = 20_000;

/** Why a page could not be read: the client's reasons, and what reading the answer found. */
export type PageFailureReason = OutboundFailure | 'redirects' | 'content_type' | 'encoding' | 'status';

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

/** The URL without its fragment (which never reaches the server), as pages are named and compared. */
export function normalisedUrl(raw: string): string {
  const url = new URL(raw);
  url.hash = '';
  return url.href;
}

/** What a signal's abort throws: its reason when that is an error. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The call was cancelled');
}

/** `promise`, or the signal's abort if that comes first (the outbound call itself ends by its own deadline). */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
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
 * GETs a page, following up to MAX_REDIRECTS redirects through the same guarded client, and reads what the
 * last hop answered as HTML or text. Throws PageFailure when it cannot (the guard refused an address, the
 * budget ran out, an answer was too large or of a type that is not text), the signal's reason when it
 * aborts. Any final status is returned: callers decide what a 404 means to them.
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
      res = await unlessAborted(services.outbound.get(current, { headers, timeoutMs: left, maxResponseBytes: opts.maxBytes }), opts.signal);
    } catch (err) {
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
      if (next.protocol !== 'https:') throw new PageFailure('invalid_url', `${new URL(current).origin} redirected to a ${next.protocol.replace(/:$/, '')} URL; only https:// is followed`);
      current = next.href;
      redirects.push(current);
      continue;
    }
    const encoding = res.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') throw new PageFailure('encoding', `${new URL(current).origin} answered in content-encoding ${encoding}, which was not asked for`);
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
  throw new PageFailure('content_type', `${new URL(url).origin} answered ${contentType}, which is not a web page or text (HTML, XHTML, text/*, JSON and XML are read)`);
}

/** A status outside 2xx as a failure, for the capabilities that read a page rather than watch it. */
export function requireSuccess(page: FetchedPage): void {
  if (page.status < 200 || page.status > 299) throw new PageFailure('status', `${new URL(page.finalUrl).origin} answered ${page.status}`);
}

// ---- Reading HTML ----------------------------------------------------------------------------------

export function parseDocument(html: string): Document {
  return parseHTML(html).document;
}

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;
const DOCUMENT = 9;
const FRAGMENT = 11;

// What a reader never sees, and the elements that start a line of their own.
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'canvas', 'iframe', 'object', 'embed', 'head', 'select', 'datalist']);
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary',
  'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'body', 'html', 'option', 'legend',
]);

/** Runs of white space as one space, trimmed. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The text a reader sees under `root`, one line per block (paragraph, heading, list item, table row —
 * its cells joined by " | "), without scripts, styles and other hidden elements. Walks with a stack of
 * its own, so a deeply nested page cannot exhaust the call stack.
 */
export function textLines(root: Node): string[] {
  const lines: string[] = [];
  let line = '';
  let pre = 0;
  const flush = () => {
    const text = collapse(line);
    if (text) lines.push(text);
    line = '';
  };
  const stack: { node: Node; leaving: boolean }[] = [{ node: root, leaving: false }];
  while (stack.length) {
    const { node, leaving } = stack.pop()!;
    const type = node.nodeType;
    if (type === TEXT || type === CDATA) {
      const text = node.nodeValue ?? '';
      if (pre > 0) {
        const parts = text.split('\n');
        line += parts[0];
        for (const part of parts.slice(1)) {
          flush();
          line = part;
        }
      } else line += text;
      continue;
    }
    if (type !== ELEMENT && type !== DOCUMENT && type !== FRAGMENT) continue;
    const name = type === ELEMENT ? (node as Element).localName : '';
    if (leaving) {
      if (name === 'pre') pre--;
      if (BLOCKS.has(name)) flush();
      continue;
    }
    if (HIDDEN.has(name)) continue;
    if (name === 'br') {
      flush();
      continue;
    }
    if (BLOCKS.has(name)) flush();
    if ((name === 'td' || name === 'th') && node !== root && (node as Element).previousElementSibling) line += ' | ';
    else if (name === 'img') {
      const alt = (node as Element).getAttribute('alt');
      if (alt) line += ` ${alt} `;
    }
    if (name === 'pre') pre++;
    stack.push({ node, leaving: true });
    const children = node.childNodes;
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], leaving: false });
  }
  flush();
  return lines;
}

/** An element's text on one line. */
export function textOf(node: Node): string {
  return textLines(node).join(' ');
}

/** The lines of a text body, trailing space removed, blank lines dropped. */
export function plainLines(body: string): string[] {
  return body
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
}

export interface Readable {
  /** Readability's title of the article (which may come from OpenGraph or a heading), or null. */
  title: string | null;
  byline: string | null;
  siteName: string | null;
  lang: string | null;
  excerpt: string | null;
  publishedTime: string | null;
  /** The article's text, one line per block; the page's visible text when Readability found no article. */
  lines: string[];
  /** Whether the lines are Readability's article (true) or the whole page's visible text (false). */
  article: boolean;
}

const nonEmpty = (value: string | null | undefined): string | null => (value && value.trim() ? collapse(value) : null);

/**
 * The readable text of a parsed page by Mozilla's Readability. Readability changes the document it reads,
 * so read everything else (title, links, metadata) first.
 */
export function readableText(doc: Document): Readable {
  const fallback = (): Readable => ({ title: null, byline: null, siteName: null, lang: null, excerpt: null, publishedTime: null, lines: textLines(doc.body ?? doc.documentElement ?? doc), article: false });
  let parsed;
  try {
    parsed = new Readability<Node>(doc, { maxElemsToParse: MAX_READABILITY_ELEMENTS, serializer: (node) => node }).parse();
  } catch {
    // Over maxElemsToParse, or a structure Readability cannot walk: the visible text instead.
    return fallback();
  }
  const lines = parsed?.content ? textLines(parsed.content) : [];
  if (!parsed || !lines.length) return fallback();
  return {
    title: nonEmpty(parsed.title),
    byline: nonEmpty(parsed.byline),
    siteName: nonEmpty(parsed.siteName),
    lang: nonEmpty(parsed.lang),
    excerpt: nonEmpty(parsed.excerpt),
    publishedTime: nonEmpty(parsed.publishedTime),
    lines,
    article: true,
  };
}

/** The document's <title>, or null. */
export function titleOf(doc: Document): string | null {
  return nonEmpty(doc.querySelector('title')?.textContent);
}

/** What relative links of the page resolve against: its <base href> when that is an http(s) URL, else where it was found. */
export function baseOf(doc: Document, finalUrl: string): URL {
  const href = doc.querySelector('base[href]')?.getAttribute('href');
  if (href) {
    try {
      const base = new URL(href.trim(), finalUrl);
      if (base.protocol === 'https:' || base.protocol === 'http:') return base;
    } catch {
      // not a URL: ignored, as browsers do
    }
  }
  return new URL(finalUrl);
}

/** A URL of the page resolved against its base, when it is an http(s) URL of at most 2048 characters. */
export function resolvedUrl(href: string | null | undefined, base: URL): string | null {
  if (!href || href.length > 2048) return null;
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

export interface PageLink {
  url: string;
  text: string;
}

/**
 * The page's links in document order, absolute, each URL once (its first text), http(s) only, without
 * links to a place on the page itself; at most `max` of them, with how many there are.
 */
export function linksOf(doc: Document, base: URL, pageUrl: string, max: number): { links: PageLink[]; total: number } {
  const self = normalisedUrl(pageUrl);
  const seen = new Set<string>();
  const links: PageLink[] = [];
  for (const a of Array.from(doc.querySelectorAll('a[href], area[href]'))) {
    const url = resolvedUrl(a.getAttribute('href'), base);
    if (!url || seen.has(url) || normalisedUrl(url) === self) continue;
    seen.add(url);
    if (links.length < max) {
      const text = textOf(a) || nonEmpty(a.getAttribute('title')) || nonEmpty(a.getAttribute('aria-label')) || '';
      links.push({ url, text: text.slice(0, 300) });
    }
  }
  return { links, total: seen.size };
}
