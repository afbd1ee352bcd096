// web-research: passages of the given pages, or of the WebMCP index, ranked against a question.
import { performance } from 'node:perf_hooks';
import { bm25Tokens } from '../../../platform/bm25';
import { ValidationFailed } from '../../../platform/errors';
import { inLanes } from '../../../platform/lanes';
import { Checks } from '../../../platform/validate';
import type { Ctx } from '../../context';
import { fetchPage, PageFailure, readInThread, READ_BUDGET_MS, requireSuccess, type FetchedPage } from '../web-page';
import { collapse } from '../web-reader';
import { PAGE_TIMEOUT_MS, RESEARCH, pageUrl, bodyOf, integerOr } from './shared';

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
    const failed = (err: PageFailure): Source => ({
      url,
      final_url: null,
      title: null,
      outcome: 'failed',
      error: `could not be read (${err.reason}): ${err.message}`,
      passages: 0,
    });
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

export async function research(ctx: Ctx, input: Record<string, unknown>, signal: AbortSignal) {
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
