// The web capabilities the marketplace serves as provider of last resort (types.ts): reading, extracting, watching and
// researching pages. Every page comes through the SSRF-guarded client (web-page.ts), bounded in bytes and time, and is
// read in the reader's thread (web-reader.ts). A page that cannot be read is a field error on the URL that named it,
// never a 5xx (docs/capabilities/web.md).
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { bm25Tokens } from '../../platform/bm25';
import { ValidationFailed, type FieldError } from '../../platform/errors';
import { inLanes } from '../../platform/lanes';
import { Checks } from '../../platform/validate';
import type { Agent } from '../../db/generated/prisma/client';
import type { Ctx } from '../context';
import { bool, dateTime, int, list, nullable, num, obj, str } from './schema';
import type { FirstPartyCapability, JsonSchema } from './types';
import { fetchPage, PageFailure, readInThread, READ_BUDGET_MS, requireSuccess, type FetchedPage } from './web-page';
import { clip, collapse, EXTRACT, normalisedUrl, PASSAGES, type SelectorAsk } from './web-reader';

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

const URL_FIELD = str('The page: an https:// URL (a fragment is ignored)', { format: 'uri', pattern: '^https://', minLength: 1, maxLength: 2048 });
const FETCH_OUTPUT: Record<string, JsonSchema> = {
  url: str('The page asked for, without its fragment'),
  final_url: str('Where it was found, after redirects'),
  redirects: list(str('A redirect’s target'), 'The redirects followed, in order (at most 5)'),
  status: int('The HTTP status of the last answer', { minimum: 100, maximum: 599 }),
  content_type: str('Its media type, without parameters (empty when the page named none)'),
};
const FETCH_REQUIRED = Object.keys(FETCH_OUTPUT);

function fetchFields(page: FetchedPage) {
  return { url: page.url, final_url: page.finalUrl, redirects: page.redirects, status: page.status, content_type: page.contentType };
}

/** The page URL of an input field, checked as the outbound guard will judge it (HTTPS, no private literal). */
function pageUrl(ctx: Ctx, checks: Checks, path: string, value: unknown): string | undefined {
  const url = checks.receiverUrl(path, value, ctx.services.config.outboundAllowPrivate);
  return url ? normalisedUrl(url) : undefined;
}

/** A page failure as the field error of the URL that named it. */
function fieldFailure(path: string, err: PageFailure): FieldError {
  return { path, message: `could not be read (${err.reason}): ${err.message}` };
}

/** `work`, with a page failure reported on the field that named the page. */
async function onField<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof PageFailure) throw new ValidationFailed([fieldFailure(path, err)]);
    throw err;
  }
}

function getPage(ctx: Ctx, url: string, signal: AbortSignal, headers?: Record<string, string>): Promise<FetchedPage> {
  return fetchPage(ctx.services, url, { timeoutMs: PAGE_TIMEOUT_MS, maxBytes: PAGE_MAX_BYTES, signal, headers });
}

/** A page the caller asked to read: fetched, and only a 2xx answer accepted. */
function readablePage(ctx: Ctx, url: string, signal: AbortSignal): Promise<FetchedPage> {
  return onField('url', async () => {
    const page = await getPage(ctx, url, signal);
    requireSuccess(page);
    return page;
  });
}

const bodyOf = (page: FetchedPage) => ({ body: page.body, kind: page.kind, finalUrl: page.finalUrl });

/** At most `max` UTF-8 bytes of a text, never splitting a character. */
function clipBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  return text.slice(0, new TextEncoder().encodeInto(text, new Uint8Array(max)).read);
}

const integerOr = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);

// ---- web-browse ---------------------------------------------------------------------------------------

async function browse(ctx: Ctx, input: Record<string, unknown>, signal: AbortSignal) {
  const checks = new Checks();
  const url = pageUrl(ctx, checks, 'url', input.url);
  checks.done();
  const maxChars = integerOr(input.max_chars, 20_000);
  const page = await readablePage(ctx, url!, signal);
  const { title, read, links, linkCount } = await onField('url', () => readInThread('browse', { ...bodyOf(page), maxLinks: integerOr(input.max_links, 100) }, signal));
  const text = read.lines.join('\n');
  return {
    ...fetchFields(page),
    title: title ?? read.title,
    byline: read.byline,
    site_name: read.siteName,
    lang: read.lang,
    excerpt: read.excerpt,
    published_time: read.publishedTime,
    text: clip(text, maxChars),
    text_chars: text.length,
    truncated: text.length > maxChars,
    readable: read.article,
    links,
    link_count: linkCount,
  };
}

const LINK = obj({ url: str('The link’s absolute URL'), text: str('Its text (or title), at most 300 characters') }, ['url', 'text']);

// ---- web-extract --------------------------------------------------------------------------------------

/** The input's selectors, checked by the reader before any fetch (a bad one is the caller's to fix). */
async function selectorsOf(input: Record<string, unknown>, signal: AbortSignal): Promise<SelectorAsk[]> {
  const raw = (input.selectors as Record<string, unknown>[] | undefined) ?? [];
  const asks = raw.map((s) => {
    const selector = String(s.selector).trim();
    return { name: typeof s.name === 'string' ? s.name : selector, selector, attribute: typeof s.attribute === 'string' ? s.attribute.toLowerCase() : null, limit: integerOr(s.limit, 20) };
  });
  const checks = new Checks();
  if (asks.length) {
    for (const { index, message } of await readInThread('selectors', { selectors: asks.map((a) => a.selector) }, signal)) checks.fail(`selectors.${index}.selector`, message);
  }
  const names = new Set<string>();
  asks.forEach((a, i) => {
    if (!names.has(a.name)) names.add(a.name);
    else if (typeof raw[i].name === 'string') checks.fail(`selectors.${i}.name`, `names ${a.name} a second time`);
    else checks.fail(`selectors.${i}.selector`, 'is asked for a second time: give each a name of its own');
  });
  checks.done();
  return asks;
}

async function extract(ctx: Ctx, input: Record<string, unknown>, signal: AbortSignal) {
  const checks = new Checks();
  const url = pageUrl(ctx, checks, 'url', input.url);
  checks.done();
  const asks = await selectorsOf(input, signal);
  const page = await readablePage(ctx, url!, signal);
  if (page.kind !== 'html') {
    throw new ValidationFailed([{ path: 'url', message: `could not be read (content_type): ${new URL(page.finalUrl).origin} answered ${page.contentType || 'a body with no type'}; web-extract reads HTML pages` }]);
  }
  const extracted = await onField('url', () => readInThread('extract', { ...bodyOf(page), asks }, signal));
  return { ...fetchFields(page), ...extracted };
}

const STRING_MAP = (description: string): JsonSchema => ({ type: 'object', description, additionalProperties: { type: 'string' } });

// ---- web-monitor --------------------------------------------------------------------------------------

interface Snapshot {
  content_hash: string;
  title: string | null;
  content: string;
  status: number;
  taken_at: Date;
  checks: number;
}

/** Lines of `after` not matched by a line of `before` (added), and the reverse (removed), each in page order. */
export function lineChanges(before: string[], after: string[]): { added: string[]; removed: string[] } {
  const unmatched = (from: string[], against: string[]) => {
    const counts = new Map<string, number>();
    for (const line of against) counts.set(line, (counts.get(line) ?? 0) + 1);
    return from.filter((line) => {
      const left = counts.get(line) ?? 0;
      if (left > 0) counts.set(line, left - 1);
      return left === 0;
    });
  };
  return { added: unmatched(after, before), removed: unmatched(before, after) };
}

const linesOfContent = (content: string) => (content ? content.split('\n') : []);

/**
 * Writes the new snapshot and answers the one it replaced, in one statement: the old row is read locked
 * and updated together, so two checks of a page at once each compare against the one before them.
 */
async function replaceSnapshot(ctx: Ctx, agentId: string, url: string, next: { hash: string; title: string | null; content: string; status: number; etag: string | null; lastModified: string | null; at: Date }): Promise<Snapshot | null> {
  const [old] = await ctx.db.$queryRaw<Snapshot[]>`
    UPDATE web_snapshots w SET content_hash = ${next.hash}, title = ${next.title}, content = ${next.content}, status = ${next.status},
      etag = ${next.etag}, last_modified = ${next.lastModified}, taken_at = ${next.at}, checks = w.checks + 1
    FROM (SELECT agent_id, url, content_hash, title, content, status, taken_at, checks FROM web_snapshots
          WHERE agent_id = ${agentId}::uuid AND url = ${url} FOR UPDATE) old
    WHERE w.agent_id = old.agent_id AND w.url = old.url
    RETURNING old.content_hash, old.title, old.content, old.status, old.taken_at, w.checks`;
  return old ?? null;
}

async function recordSnapshot(ctx: Ctx, agentId: string, url: string, next: Parameters<typeof replaceSnapshot>[3]): Promise<{ previous: Snapshot | null; checks: number }> {
  const replaced = await replaceSnapshot(ctx, agentId, url, next);
  if (replaced) return { previous: replaced, checks: replaced.checks };
  const inserted = await ctx.db.$executeRaw`
    INSERT INTO web_snapshots (agent_id, url, content_hash, title, content, status, etag, last_modified, taken_at, checks)
    VALUES (${agentId}::uuid, ${url}, ${next.hash}, ${next.title}, ${next.content}, ${next.status}, ${next.etag}, ${next.lastModified}, ${next.at}, 1)
    ON CONFLICT (agent_id, url) DO NOTHING`;
  if (!inserted) {
    // Another check of the page inserted it first: compare against that one.
    const again = await replaceSnapshot(ctx, agentId, url, next);
    if (again) return { previous: again, checks: again.checks };
  }
  // A new page past the agent's bound replaces the one checked longest ago.
  await ctx.db.$executeRaw`
    DELETE FROM web_snapshots WHERE agent_id = ${agentId}::uuid AND url IN (
      SELECT url FROM web_snapshots WHERE agent_id = ${agentId}::uuid ORDER BY taken_at DESC, url OFFSET ${SNAPSHOTS_PER_AGENT})`;
  return { previous: null, checks: 1 };
}

/** A 304: the page is as the snapshot has it; only when and how often it was checked move. */
async function confirmSnapshot(ctx: Ctx, agentId: string, url: string, at: Date): Promise<Snapshot | null> {
  const [row] = await ctx.db.$queryRaw<(Snapshot & { previous_taken_at: Date })[]>`
    UPDATE web_snapshots w SET taken_at = ${at}, checks = w.checks + 1
    FROM (SELECT agent_id, url, taken_at FROM web_snapshots WHERE agent_id = ${agentId}::uuid AND url = ${url} FOR UPDATE) old
    WHERE w.agent_id = old.agent_id AND w.url = old.url
    RETURNING w.content_hash, w.title, w.content, w.status, old.taken_at AS previous_taken_at, w.checks`;
  return row ? { ...row, taken_at: row.previous_taken_at } : null;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

async function monitor(ctx: Ctx, me: Agent, input: Record<string, unknown>, signal: AbortSignal) {
  const checks = new Checks();
  const url = pageUrl(ctx, checks, 'url', input.url);
  checks.done();
  const maxLines = integerOr(input.max_lines, 50);
  // Only validators are read before the fetch; the comparison reads the snapshot as it is replaced.
  const known = await ctx.db.webSnapshot.findUnique({ where: { agentId_url: { agentId: me.id, url: url! } }, select: { etag: true, lastModified: true } });
  const conditional: Record<string, string> = {};
  if (known?.etag) conditional['if-none-match'] = known.etag;
  if (known?.lastModified) conditional['if-modified-since'] = known.lastModified;
  const page = await onField('url', () => getPage(ctx, url!, signal, conditional));
  const at = ctx.services.clock.now();

  if (page.status === 304 && known) {
    const kept = await confirmSnapshot(ctx, me.id, url!, at);
    if (kept) {
      return {
        ...fetchFields(page),
        title: kept.title,
        content_hash: kept.content_hash,
        checked_at: at.toISOString(),
        checks: kept.checks,
        first_check: false,
        changed: false,
        not_modified: true,
        previous: { taken_at: kept.taken_at.toISOString(), status: kept.status, title: kept.title, content_hash: kept.content_hash },
        changes: { status: null, title: null, lines_before: linesOfContent(kept.content).length, lines_after: linesOfContent(kept.content).length, lines_added: 0, lines_removed: 0, added: [], removed: [], truncated: false },
        text_chars: kept.content.length,
        summary: `Not modified since ${kept.taken_at.toISOString()} (the page answered 304); ${plural(kept.checks, 'check')} so far.`,
      };
    }
  }

  const { title, lines } = page.status === 304 ? { title: null, lines: [] as string[] } : await onField('url', () => readInThread('lines', bodyOf(page), signal));
  const content = clipBytes(lines.join('\n'), SNAPSHOT_MAX_BYTES);
  const hash = createHash('sha256').update(content).digest('hex');
  const { previous, checks: count } = await recordSnapshot(ctx, me.id, url!, { hash, title, content, status: page.status, etag: page.etag, lastModified: page.lastModified, at });
  const after = linesOfContent(content);
  const base = {
    ...fetchFields(page),
    title,
    content_hash: hash,
    checked_at: at.toISOString(),
    checks: count,
    not_modified: false,
    text_chars: content.length,
  };
  if (!previous) {
    return { ...base, first_check: true, changed: false, previous: null, changes: null, summary: `First snapshot of the page: ${plural(after.length, 'line')}, status ${page.status}.` };
  }
  const before = linesOfContent(previous.content);
  const { added, removed } = previous.content_hash === hash ? { added: [], removed: [] } : lineChanges(before, after);
  const statusChange = previous.status !== page.status ? { from: previous.status, to: page.status } : null;
  const titleChange = previous.title !== title ? { from: previous.title, to: title } : null;
  const changed = previous.content_hash !== hash || statusChange !== null || titleChange !== null;
  const said: string[] = [];
  if (statusChange) said.push(`status ${statusChange.from} → ${statusChange.to}`);
  if (titleChange) said.push(`title ${JSON.stringify(titleChange.from)} → ${JSON.stringify(titleChange.to)}`);
  if (added.length || removed.length) said.push(`${plural(added.length, 'line')} added, ${removed.length} removed`);
  else if (previous.content_hash !== hash) said.push('the same lines in another order');
  const since = previous.taken_at.toISOString();
  return {
    ...base,
    first_check: false,
    changed,
    previous: { taken_at: since, status: previous.status, title: previous.title, content_hash: previous.content_hash },
    changes: {
      status: statusChange,
      title: titleChange,
      lines_before: before.length,
      lines_after: after.length,
      lines_added: added.length,
      lines_removed: removed.length,
      added: added.slice(0, maxLines),
      removed: removed.slice(0, maxLines),
      truncated: added.length > maxLines || removed.length > maxLines,
    },
    summary: changed ? `Changed since ${since}: ${said.join('; ')}.` : `No change since ${since}; ${plural(count, 'check')} so far.`,
  };
}

// ---- web-research -------------------------------------------------------------------------------------

interface Passage {
  url: string;
  title: string | null;
  text: string;
  kind: 'page' | 'webmcp_tool';
  /** The words BM25 reads (for a tool, its name split into words as well). */
  words: string;
}

interface Source {
  url: string;
  final_url: string | null;
  title: string | null;
  outcome: 'read' | 'failed' | 'skipped';
  error: string | null;
  passages: number;
}

/** Reads pages a few at a time within the research's byte and time budgets; a page that fails is reported, not fatal. */
async function readSources(ctx: Ctx, urls: string[], signal: AbortSignal, deadline: number) {
  let bytesLeft = RESEARCH.totalBytes;
  let fetched = 0;
  const sources: Source[] = new Array(urls.length);
  const passages: Passage[][] = urls.map(() => []);
  const timeLeft = () => Math.floor(deadline - performance.now());
  const readOne = async (i: number): Promise<Source> => {
    const url = urls[i];
    const skipped = (why: string): Source => ({ url, final_url: null, title: null, outcome: 'skipped', error: why, passages: 0 });
    const failed = (err: PageFailure): Source => ({ url, final_url: null, title: null, outcome: 'failed', error: `could not be read (${err.reason}): ${err.message}`, passages: 0 });
    if (timeLeft() <= 0) return skipped(`the research’s ${RESEARCH.timeMs} ms were spent`);
    const reserved = Math.min(RESEARCH.pageBytes, bytesLeft);
    if (reserved < 1024) return skipped(`the research’s ${RESEARCH.totalBytes} bytes were spent`);
    bytesLeft -= reserved;
    let page: FetchedPage;
    try {
      page = await fetchPage(ctx.services, url, { timeoutMs: Math.min(PAGE_TIMEOUT_MS, timeLeft()), maxBytes: reserved, signal });
      requireSuccess(page);
    } catch (err) {
      if (!(err instanceof PageFailure)) throw err;
      // An answer cut off at its bound spent it; other failures give their reservation back.
      if (err.reason !== 'too_large') bytesLeft += reserved;
      return failed(err);
    }
    bytesLeft += reserved - page.bytes;
    fetched += page.bytes;
    if (timeLeft() <= 0) return skipped(`the research’s ${RESEARCH.timeMs} ms were spent before it was read`);
    let read;
    try {
      read = await readInThread('passages', bodyOf(page), signal, Math.min(READ_BUDGET_MS, timeLeft()));
    } catch (err) {
      if (!(err instanceof PageFailure)) throw err;
      return failed(err);
    }
    passages[i] = read.passages.map((text) => ({ url: page.finalUrl, title: read.title, text, kind: 'page' as const, words: text }));
    return { url, final_url: page.finalUrl, title: read.title, outcome: 'read', error: null, passages: passages[i].length };
  };
  await inLanes(urls, RESEARCH.concurrency, async (_, i) => {
    sources[i] = await readOne(i);
  });
  return { sources, passages: passages.flat(), fetched };
}

/** A tool's name as words, so `searchCapabilities` matches "search" and "capabilities". */
function nameWords(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_.-]+/g, ' ');
}

/** The WebMCP index's tools that share a word with the question (full text, best first), with their sites. */
async function indexedTools(ctx: Ctx, words: string[]) {
  return ctx.services.sql.query<{ name: string; description: string; origin: string; site_name: string | null; manifest_url: string; own: boolean }>(
    `WITH q AS (SELECT websearch_to_tsquery('simple', $1::text) AS tsq)
     SELECT t.name, t.description, s.origin, s.name AS site_name, s.manifest_url, s.own
     FROM webmcp_tools t JOIN webmcp_sites s ON s.id = t.site_id, q
     WHERE t.search @@ q.tsq
     ORDER BY ts_rank(t.search, q.tsq) DESC, s.origin, t.name
     LIMIT ${RESEARCH.indexTools}`,
    // websearch syntax never fails to parse; "or" joins the words (it is a function word, so never one of them).
    [[...new Set(words)].join(' or ')],
  );
}

async function research(ctx: Ctx, input: Record<string, unknown>, signal: AbortSignal) {
  const started = performance.now();
  const checks = new Checks();
  const question = collapse(String(input.question ?? ''));
  const words = bm25Tokens(question);
  if (!words.length) checks.fail('question', 'holds no words to rank passages by (only function words or punctuation)');
  // Each page once (URLs that differ only in their fragment are one page), named by where it was first given.
  const pathOf = new Map<string, string>();
  ((input.urls as unknown[] | undefined) ?? []).forEach((u, i) => {
    const url = pageUrl(ctx, checks, `urls.${i}`, u);
    if (url && !pathOf.has(url)) pathOf.set(url, `urls.${i}`);
  });
  const urls = [...pathOf.keys()];
  checks.done();
  const maxResults = integerOr(input.max_results, 5);
  const deadline = started + RESEARCH.timeMs;

  let corpus: 'urls' | 'webmcp_index' = 'urls';
  let toolPassages: Passage[] = [];
  let pageUrls = urls;
  if (!urls.length) {
    corpus = 'webmcp_index';
    const tools = await indexedTools(ctx, words);
    toolPassages = tools.map((t) => ({
      url: t.manifest_url,
      title: `${t.site_name ?? t.origin}: ${t.name}`,
      text: `${t.name}: ${t.description}`,
      kind: 'webmcp_tool' as const,
      words: `${t.name} ${nameWords(t.name)} ${t.description}`,
    }));
    // The sites' own pages too, best first; the marketplace's own site is this server, already in its tools.
    pageUrls = [...new Set(tools.filter((t) => !t.own).map((t) => `${t.origin}/`))].slice(0, RESEARCH.indexPages);
  }
  const read = pageUrls.length ? await readSources(ctx, pageUrls, signal, deadline) : { sources: [] as Source[], passages: [] as Passage[], fetched: 0 };
  if (corpus === 'urls' && read.sources.every((s) => s.outcome !== 'read')) {
    throw new ValidationFailed(read.sources.map((s) => ({ path: pathOf.get(s.url)!, message: s.error ?? 'could not be read' })));
  }
  const all = [...toolPassages, ...read.passages];
  const ranked = all.length ? await readInThread('rank', { question, documents: all.map((p) => p.words), limit: maxResults }, signal) : [];
  return {
    question,
    corpus,
    results: ranked.map(({ index, score }) => ({
      url: all[index].url,
      title: all[index].title,
      passage: all[index].text,
      score: Math.round(score * 10_000) / 10_000,
      kind: all[index].kind,
    })),
    passages_ranked: all.length,
    tools_searched: toolPassages.length,
    sources: read.sources,
    fetched_bytes: read.fetched,
    elapsed_ms: Math.round(performance.now() - started),
  };
}

// ---- The table ----------------------------------------------------------------------------------------

export const WEB_CAPABILITIES: FirstPartyCapability[] = [
  {
    slug: 'web-browse',
    kind: 'generic',
    summary: 'Reads a web page: its title, its readable text (Mozilla Readability) and its links',
    inputSchema: obj(
      {
        url: URL_FIELD,
        max_chars: int('The most characters of text returned (default 20000)', { minimum: 100, maximum: 200_000 }),
        max_links: int('The most links returned (default 100)', { minimum: 0, maximum: 1000 }),
      },
      ['url'],
    ),
    outputSchema: obj(
      {
        ...FETCH_OUTPUT,
        title: nullable(str('The page’s <title> (else the article’s title)')),
        byline: nullable(str('The author, as the page names one')),
        site_name: nullable(str('The site’s name, as the page names it')),
        lang: nullable(str('The page’s language')),
        excerpt: nullable(str('A short excerpt or the page’s description')),
        published_time: nullable(str('When it was published, as the page says')),
        text: str('The readable text, one line per block (paragraph, heading, list item, table row), at most max_chars'),
        text_chars: int('Characters of the whole readable text', { minimum: 0 }),
        truncated: bool('Whether text was cut at max_chars'),
        readable: bool('Whether the text is Readability’s article (true) or, finding none, the page’s visible text (false)'),
        links: list(LINK, 'The page’s links in document order, absolute, each URL once, http(s) only, at most max_links'),
        link_count: int('How many distinct links the page has', { minimum: 0 }),
      },
      [...FETCH_REQUIRED, 'title', 'byline', 'site_name', 'lang', 'excerpt', 'published_time', 'text', 'text_chars', 'truncated', 'readable', 'links', 'link_count'],
    ),
    run: async (ctx, _me, input, signal) => ({ output: await browse(ctx, input, signal) }),
  },
  {
    slug: 'web-extract',
    kind: 'generic',
    summary: 'Extracts structured data from a web page: metadata, OpenGraph and Twitter cards, JSON-LD, tables, and the CSS selectors asked for',
    inputSchema: obj(
      {
        url: URL_FIELD,
        selectors: list(
          obj(
            {
              selector: str('A CSS selector', { minLength: 1, maxLength: EXTRACT.selectorLength }),
              name: str('What to call the result (default: the selector)', { minLength: 1, maxLength: 64 }),
              attribute: str('Read this attribute of each match (default: its text)', { minLength: 1, maxLength: 100 }),
              limit: int('The most matches returned (default 20)', { minimum: 1, maximum: EXTRACT.perSelector }),
            },
            ['selector'],
          ),
          `CSS selectors to read (at most ${EXTRACT.selectors})`,
          { maxItems: EXTRACT.selectors },
        ),
      },
      ['url'],
    ),
    outputSchema: obj(
      {
        ...FETCH_OUTPUT,
        metadata: obj(
          {
            title: nullable(str('The <title>')),
            description: nullable(str('meta description')),
            canonical: nullable(str('The canonical URL, absolute')),
            lang: nullable(str('<html lang>')),
            author: nullable(str('meta author')),
            keywords: list(str('A keyword'), 'meta keywords, split at commas (at most 50)'),
            feeds: list(str('A feed URL'), 'RSS and Atom feeds the page links to (at most 20)'),
            meta: STRING_MAP(`Every other <meta> by name (or http-equiv, itemprop), lower case, first value kept (at most ${EXTRACT.meta})`),
          },
          ['title', 'description', 'canonical', 'lang', 'author', 'keywords', 'feeds', 'meta'],
        ),
        opengraph: STRING_MAP('OpenGraph properties (og:, article:, book:, profile:, music:, video:) by property, first value kept'),
        twitter: STRING_MAP('Twitter card fields (twitter:…), first value kept'),
        json_ld: list({ type: ['object', 'array'], description: 'A JSON-LD block as parsed' }, `The page’s JSON-LD blocks (at most ${EXTRACT.jsonLd})`),
        json_ld_errors: list(obj({ index: int('Which block (0-based)'), message: str('What is wrong with it') }, ['index', 'message']), 'JSON-LD blocks that could not be read'),
        tables: list(
          obj(
            {
              index: int('Its place among the page’s tables (0-based)'),
              caption: nullable(str('Its caption')),
              headers: list(str('A header cell'), 'The header row’s cells (the <thead>’s first row, or a first row of <th> only)'),
              rows: list(list(str('A cell’s text'), 'A row’s cells'), `The body rows (at most ${EXTRACT.rows}, ${EXTRACT.cells} cells each)`),
              row_count: int('Body rows in all', { minimum: 0 }),
              truncated: bool('Whether rows or cells were left out'),
            },
            ['index', 'caption', 'headers', 'rows', 'row_count', 'truncated'],
          ),
          `The page’s tables (at most ${EXTRACT.tables})`,
        ),
        table_count: int('Tables on the page', { minimum: 0 }),
        selected: list(
          obj(
            {
              name: str('The result’s name'),
              selector: str('The selector'),
              attribute: nullable(str('The attribute read, or null for text')),
              count: int('Elements matched', { minimum: 0 }),
              values: list(nullable(str('A match’s text or attribute (null: it has no such attribute)')), 'The first matches’ values, up to limit'),
            },
            ['name', 'selector', 'attribute', 'count', 'values'],
          ),
          'One result per selector asked for, in order',
        ),
      },
      [...FETCH_REQUIRED, 'metadata', 'opengraph', 'twitter', 'json_ld', 'json_ld_errors', 'tables', 'table_count', 'selected'],
    ),
    run: async (ctx, _me, input, signal) => ({ output: await extract(ctx, input, signal) }),
  },
  {
    slug: 'web-monitor',
    kind: 'generic',
    summary: 'Snapshots a web page for the caller and reports what changed since the caller’s last snapshot of it (status, title, lines added and removed); schedule it with a capability subscription',
    inputSchema: obj(
      {
        url: URL_FIELD,
        max_lines: int('The most added and removed lines listed each (default 50)', { minimum: 1, maximum: 500 }),
      },
      ['url'],
    ),
    outputSchema: obj(
      {
        ...FETCH_OUTPUT,
        title: nullable(str('The page’s <title>')),
        content_hash: str('SHA-256 (hex) of the text compared'),
        checked_at: dateTime('When this snapshot was taken'),
        checks: int('Snapshots of this page the caller has taken, this one included', { minimum: 1 }),
        first_check: bool('Whether there was no earlier snapshot to compare with'),
        changed: bool('Whether the text, title or status differ from the last snapshot'),
        not_modified: bool('Whether the page answered 304 to the last snapshot’s ETag or Last-Modified'),
        previous: nullable(
          obj(
            { taken_at: dateTime('When it was taken'), status: int('Its status'), title: nullable(str('Its title')), content_hash: str('Its text’s SHA-256') },
            ['taken_at', 'status', 'title', 'content_hash'],
          ),
        ),
        changes: nullable(
          obj(
            {
              status: nullable(obj({ from: int('Before'), to: int('Now') }, ['from', 'to'])),
              title: nullable(obj({ from: nullable(str('Before')), to: nullable(str('Now')) }, ['from', 'to'])),
              lines_before: int('Lines of the last snapshot', { minimum: 0 }),
              lines_after: int('Lines now', { minimum: 0 }),
              lines_added: int('Lines now that the last snapshot did not have', { minimum: 0 }),
              lines_removed: int('Lines of the last snapshot that are gone', { minimum: 0 }),
              added: list(str('A line'), 'The added lines, in page order, at most max_lines'),
              removed: list(str('A line'), 'The removed lines, in their old order, at most max_lines'),
              truncated: bool('Whether added or removed lines were left out'),
            },
            ['status', 'title', 'lines_before', 'lines_after', 'lines_added', 'lines_removed', 'added', 'removed', 'truncated'],
          ),
        ),
        text_chars: int('Characters of the text kept (at most 256 KiB of it)', { minimum: 0 }),
        summary: str('The change in one sentence'),
      },
      [...FETCH_REQUIRED, 'title', 'content_hash', 'checked_at', 'checks', 'first_check', 'changed', 'not_modified', 'previous', 'changes', 'text_chars', 'summary'],
    ),
    run: async (ctx, me, input, signal) => ({ output: await monitor(ctx, me, input, signal) }),
  },
  {
    slug: 'web-research',
    kind: 'generic',
    summary: 'Answers a question with cited excerpts: passages of the given pages (or, given none, of the WebMCP index’s tools and sites) ranked by BM25',
    inputSchema: obj(
      {
        question: str('What to find out', { minLength: 1, maxLength: 500 }),
        urls: list(URL_FIELD, `Pages to read (at most ${RESEARCH.maxUrls}); none: the WebMCP index`, { maxItems: RESEARCH.maxUrls, uniqueItems: true }),
        max_results: int('The most excerpts returned (default 5)', { minimum: 1, maximum: 20 }),
      },
      ['question'],
    ),
    outputSchema: obj(
      {
        question: str('The question, as read'),
        corpus: str('What was searched: the given pages, or the WebMCP index', { enum: ['urls', 'webmcp_index'] }),
        results: list(
          obj(
            {
              url: str('Where the passage is: the page (after redirects) or the tool’s manifest'),
              title: nullable(str('The page’s title, or the site and tool')),
              passage: str(`The excerpt (at most ${PASSAGES.max} characters)`),
              score: num('Its BM25 score against the question (higher is closer)', { minimum: 0 }),
              kind: str('A page’s passage, or a WebMCP tool’s description', { enum: ['page', 'webmcp_tool'] }),
            },
            ['url', 'title', 'passage', 'score', 'kind'],
          ),
          'The best passages, best first',
        ),
        passages_ranked: int('Passages ranked in all', { minimum: 0 }),
        tools_searched: int('WebMCP tools among them', { minimum: 0 }),
        sources: list(
          obj(
            {
              url: str('The page'),
              final_url: nullable(str('Where it was found, after redirects')),
              title: nullable(str('Its title')),
              outcome: str('Read, failed, or skipped when the budget was spent', { enum: ['read', 'failed', 'skipped'] }),
              error: nullable(str('Why it was not read')),
              passages: int('Passages taken from it', { minimum: 0 }),
            },
            ['url', 'final_url', 'title', 'outcome', 'error', 'passages'],
          ),
          'Each page fetched, in the order given',
        ),
        fetched_bytes: int('Bytes of the pages read', { minimum: 0 }),
        elapsed_ms: int('How long it took', { minimum: 0 }),
      },
      ['question', 'corpus', 'results', 'passages_ranked', 'tools_searched', 'sources', 'fetched_bytes', 'elapsed_ms'],
    ),
    run: async (ctx, _me, input, signal) => ({ output: await research(ctx, input, signal) }),
  },
];
