// The bounds and pieces the web capabilities share: the URL field, the fetch's output fields, reading a page.
import { ValidationFailed, type FieldError } from '../../../platform/errors';
import { Checks } from '../../../platform/validate';
import type { Ctx } from '../../context';
import { int, list, str } from '../schema';
import type { JsonSchema } from '../types';
import { fetchPage, PageFailure, requireSuccess, type FetchedPage } from '../web-page';
import { normalisedUrl } from '../web-reader';

/** One page: the whole fetch, redirects included. */
export const PAGE_TIMEOUT_MS = 10_000;
/** One page's body. */
export const PAGE_MAX_BYTES = 2 * 1024 * 1024;
/** What web-monitor keeps of a page's text (UTF-8 bytes), as the snapshot table documents. */
export const SNAPSHOT_MAX_BYTES = 256 * 1024;
/** Pages one agent monitors; a new page past it replaces the one checked longest ago. */
export const SNAPSHOTS_PER_AGENT = 500;
export const RESEARCH = {
  maxUrls: 10,
  pageBytes: 1024 * 1024,
  totalBytes: 5 * 1024 * 1024,
  timeMs: 15_000,
  concurrency: 4,
  /** Without URLs: tools of the WebMCP index read, and sites whose pages are fetched. */
  indexTools: 200,
  indexPages: 3,
} as const;

// ---- Shared -----------------------------------------------------------------------------------------

export const URL_FIELD = str('The page: an https:// URL (a fragment is ignored)', { format: 'uri', pattern: '^https://', minLength: 1, maxLength: 2048 });
export const FETCH_OUTPUT: Record<string, JsonSchema> = {
  url: str('The page asked for, without its fragment'),
  final_url: str('Where it was found, after redirects'),
  redirects: list(str('A redirect’s target'), 'The redirects followed, in order (at most 5)'),
  status: int('The HTTP status of the last answer', { minimum: 100, maximum: 599 }),
  content_type: str('Its media type, without parameters (empty when the page named none)'),
};
export const FETCH_REQUIRED = Object.keys(FETCH_OUTPUT);

export function fetchFields(page: FetchedPage) {
  return { url: page.url, final_url: page.finalUrl, redirects: page.redirects, status: page.status, content_type: page.contentType };
}

/** The page URL of an input field, checked as the outbound guard will judge it (HTTPS, no private literal). */
export function pageUrl(ctx: Ctx, checks: Checks, path: string, value: unknown): string | undefined {
  const url = checks.receiverUrl(path, value, ctx.services.config.outboundAllowPrivate);
  return url ? normalisedUrl(url) : undefined;
}

/** A page failure as the field error of the URL that named it. */
function fieldFailure(path: string, err: PageFailure): FieldError {
  return { path, message: `could not be read (${err.reason}): ${err.message}` };
}

/** `work`, with a page failure reported on the field that named the page. */
export async function onField<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof PageFailure) throw new ValidationFailed([fieldFailure(path, err)]);
    throw err;
  }
}

export function getPage(ctx: Ctx, url: string, signal: AbortSignal, headers?: Record<string, string>): Promise<FetchedPage> {
  return fetchPage(ctx.services, url, { timeoutMs: PAGE_TIMEOUT_MS, maxBytes: PAGE_MAX_BYTES, signal, headers });
}

/** A page the caller asked to read: fetched, and only a 2xx answer accepted. */
export function readablePage(ctx: Ctx, url: string, signal: AbortSignal): Promise<FetchedPage> {
  return onField('url', async () => {
    const page = await getPage(ctx, url, signal);
    requireSuccess(page);
    return page;
  });
}

export const bodyOf = (page: FetchedPage) => ({ body: page.body, kind: page.kind, finalUrl: page.finalUrl });

/** At most `max` UTF-8 bytes of a text, never splitting a character. */
export function clipBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  return text.slice(0, new TextEncoder().encodeInto(text, new Uint8Array(max)).read);
}

export const integerOr = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);
