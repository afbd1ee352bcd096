// Reading a fetched page, in the web reader's thread (web-reader-worker.ts): HTML parsed by linkedom, the
// readable text by Mozilla's Readability, metadata, JSON-LD, tables and CSS selectors read from the DOM,
// passages cut and ranked by BM25 — maintained parsers, never patterns over the markup. Everything here is
// synchronous CPU work on up to a page's 2 MiB, so none of it runs on the event loop.
import { bm25Tokens, rankBm25, type Ranked } from '../../platform/bm25';

type Linkedom = typeof import('linkedom', { with: { 'resolution-mode': 'import' } });
type ReadabilityModule = typeof import('@mozilla/readability');
// Loaded on first use, so that the main thread, which reads only this module's constants and URL helpers,
// never loads the parsers. linkedom is published as ES modules with a CommonJS build; its types resolve as
// ES modules only.
let parsers: { linkedom: Linkedom; readability: ReadabilityModule } | undefined;
export function loadParsers() {
  parsers ??= { linkedom: require('linkedom') as Linkedom, readability: require('@mozilla/readability') as ReadabilityModule };
  return parsers;
}

/** Readability gives up on a document of more elements than this; the page's visible text is read instead. */
const MAX_READABILITY_ELEMENTS = 20_000;
export const EXTRACT = {
  selectors: 20,
  selectorLength: 300,
  perSelector: 100,
  tables: 20,
  rows: 100,
  cells: 50,
  cellChars: 1000,
  jsonLd: 20,
  meta: 100,
  valueChars: 2000,
} as const;
export const PASSAGES = { perSource: 300, min: 200, max: 700 } as const;

/** The URL without its fragment (which never reaches the server), as pages are named and compared. */
export function normalisedUrl(raw: string): string {
  const url = new URL(raw);
  url.hash = '';
  return url.href;
}

/** At most `max` characters, never splitting a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

export function parseDocument(html: string): Document {
  return loadParsers().linkedom.parseHTML(html).document;
}

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;
const DOCUMENT = 9;
const FRAGMENT = 11;

// What a reader never sees, and the elements that start a line of their own.
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'canvas', 'iframe', 'object', 'embed', 'head', 'select', 'datalist']);
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'caption',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'ul',
  'body',
  'html',
  'option',
  'legend',
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
  const fallback = (): Readable => ({
    title: null,
    byline: null,
    siteName: null,
    lang: null,
    excerpt: null,
    publishedTime: null,
    lines: textLines(doc.body ?? doc.documentElement ?? doc),
    article: false,
  });
  const { Readability } = loadParsers().readability;
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

// ---- web-extract ------------------------------------------------------------------------------------

export interface SelectorAsk {
  name: string;
  selector: string;
  /** An attribute to read instead of the element's text. */
  attribute: string | null;
  limit: number;
}

/** The selectors the parser cannot read, each with why (compiled against an empty document). */
export function selectorProblems(selectors: string[]): { index: number; message: string }[] {
  const probe = parseDocument('<!doctype html><html><body></body></html>');
  const problems: { index: number; message: string }[] = [];
  selectors.forEach((selector, index) => {
    try {
      probe.querySelectorAll(selector);
    } catch (err) {
      problems.push({ index, message: `is not a CSS selector this reader supports (${collapse((err as Error).message).slice(0, 200) || 'syntax error'})` });
    }
  });
  return problems;
}

function metaOf(doc: Document, base: URL) {
  const meta: Record<string, string> = {};
  const opengraph: Record<string, string> = {};
  const twitter: Record<string, string> = {};
  let count = 0;
  for (const m of Array.from(doc.querySelectorAll('meta[content]'))) {
    const content = clip(collapse(m.getAttribute('content') ?? ''), EXTRACT.valueChars);
    const property = (m.getAttribute('property') ?? '').trim().toLowerCase();
    const name = (m.getAttribute('name') ?? m.getAttribute('http-equiv') ?? m.getAttribute('itemprop') ?? '').trim().toLowerCase();
    // OpenGraph's namespaces (og:, article:, book:, profile:, music:, video:) are properties; Twitter's cards are names or properties.
    const key = property || name;
    if (!key || count >= EXTRACT.meta * 3) continue;
    count++;
    if (key.startsWith('twitter:')) twitter[key] ??= content;
    else if (property && /^(og|article|book|profile|music|video):/.test(property)) opengraph[property] ??= content;
    else if (name && Object.keys(meta).length < EXTRACT.meta) meta[name] ??= content;
  }
  const canonical = resolvedUrl(doc.querySelector('link[rel~="canonical"][href]')?.getAttribute('href'), base);
  const keywords = (meta.keywords ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .slice(0, 50);
  const feeds = Array.from(doc.querySelectorAll('link[rel~="alternate"][href]'))
    .filter((l) => ['application/rss+xml', 'application/atom+xml'].includes((l.getAttribute('type') ?? '').trim().toLowerCase()))
    .map((l) => resolvedUrl(l.getAttribute('href'), base))
    .filter((u): u is string => u !== null)
    .slice(0, 20);
  return {
    metadata: {
      title: titleOf(doc),
      description: meta.description ?? null,
      canonical,
      lang: doc.documentElement?.getAttribute('lang')?.trim() || null,
      author: meta.author ?? null,
      keywords,
      feeds,
      meta,
    },
    opengraph,
    twitter,
  };
}

function jsonLdOf(doc: Document) {
  const blocks: unknown[] = [];
  const errors: { index: number; message: string }[] = [];
  Array.from(doc.querySelectorAll('script[type]'))
    .filter((s) => (s.getAttribute('type') ?? '').split(';')[0].trim().toLowerCase() === 'application/ld+json')
    .slice(0, EXTRACT.jsonLd)
    .forEach((script, index) => {
      try {
        const value: unknown = JSON.parse(script.textContent ?? '');
        if (typeof value === 'object' && value !== null) blocks.push(value);
        else errors.push({ index, message: 'is JSON but not an object or a list' });
      } catch (err) {
        errors.push({ index, message: `is not JSON: ${(err as Error).message.slice(0, 200)}` });
      }
    });
  return { blocks, errors };
}

/** A table's rows: its own <tr>s (direct, or under thead/tbody/tfoot), never a nested table's. */
function rowsOf(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of Array.from(table.children)) {
    if (child.localName === 'tr') rows.push(child);
    else if (child.localName === 'thead' || child.localName === 'tbody' || child.localName === 'tfoot') {
      for (const row of Array.from(child.children)) if (row.localName === 'tr') rows.push(row);
    }
  }
  return rows;
}

function tablesOf(doc: Document) {
  const all = Array.from(doc.querySelectorAll('table'));
  return {
    count: all.length,
    tables: all.slice(0, EXTRACT.tables).map((table, index) => {
      const rows = rowsOf(table).map((tr) => {
        const cells = Array.from(tr.children).filter((c) => c.localName === 'td' || c.localName === 'th');
        return { cells, onlyTh: cells.length > 0 && cells.every((c) => c.localName === 'th'), inHead: tr.parentElement?.localName === 'thead' };
      });
      // The header row: the head's first row, else a first row of <th> only. The head's rows are never body rows.
      const headAt = rows.findIndex((r) => r.inHead);
      const headerIndex = headAt >= 0 ? headAt : rows[0]?.onlyTh ? 0 : -1;
      const cellsOf = (cells: Element[]) => cells.slice(0, EXTRACT.cells).map((c) => clip(textOf(c), EXTRACT.cellChars));
      const body = rows.filter((r, i) => i !== headerIndex && !r.inHead);
      const caption = Array.from(table.children).find((c) => c.localName === 'caption');
      return {
        index,
        caption: caption ? textOf(caption) || null : null,
        headers: headerIndex >= 0 ? cellsOf(rows[headerIndex].cells) : [],
        rows: body.slice(0, EXTRACT.rows).map((r) => cellsOf(r.cells)),
        row_count: body.length,
        truncated: body.length > EXTRACT.rows || rows.some((r) => r.cells.length > EXTRACT.cells),
      };
    }),
  };
}

function selectedOf(doc: Document, asks: SelectorAsk[]) {
  return asks.map((ask) => {
    const found = Array.from(doc.querySelectorAll(ask.selector));
    return {
      name: ask.name,
      selector: ask.selector,
      attribute: ask.attribute,
      count: found.length,
      values: found.slice(0, ask.limit).map((el) => {
        if (ask.attribute === null) return clip(textOf(el), EXTRACT.valueChars);
        const value = el.getAttribute(ask.attribute);
        return value === null ? null : clip(value, EXTRACT.valueChars);
      }),
    };
  });
}

// ---- web-research's passages ------------------------------------------------------------------------

const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });

/** Pieces of a line of at most `max` characters, cut between sentences, or between words within a long one. */
function pieces(line: string, max: number): string[] {
  if (line.length <= max) return [line];
  const out: string[] = [];
  let current = '';
  for (const { segment } of sentences.segment(line)) {
    if (current && current.length + segment.length > max) {
      out.push(current.trim());
      current = '';
    }
    let rest = segment;
    while (rest.length > max) {
      const space = rest.lastIndexOf(' ', max);
      const head = clip(rest, space > max / 2 ? space : max);
      out.push(head.trim());
      rest = rest.slice(head.length);
    }
    current += rest;
  }
  if (current.trim()) out.push(current.trim());
  return out.filter(Boolean);
}

/** A page's lines as passages of about PASSAGES.min–max characters: short lines (headings) join what follows. */
export function passagesOf(lines: string[], limit: number = PASSAGES.perSource): string[] {
  const out: string[] = [];
  let buffer = '';
  for (const line of lines) {
    for (const piece of pieces(line, PASSAGES.max)) {
      if (buffer && buffer.length + 1 + piece.length > PASSAGES.max) {
        out.push(buffer);
        buffer = '';
      }
      buffer = buffer ? `${buffer}\n${piece}` : piece;
      if (buffer.length >= PASSAGES.min) {
        out.push(buffer);
        buffer = '';
      }
      if (out.length >= limit) return out;
    }
  }
  if (buffer) out.push(buffer);
  return out.slice(0, limit);
}

// ---- The thread's tasks -----------------------------------------------------------------------------

export interface PageBody {
  body: string;
  kind: 'html' | 'text';
  /** Where the page was found: what its relative links resolve against. */
  finalUrl: string;
}

/** The page's title and lines: HTML read by Readability (else its visible text), text by its lines. */
function pageLines(page: PageBody): { title: string | null; lines: string[] } {
  if (page.kind === 'text') return { title: null, lines: plainLines(page.body) };
  const doc = parseDocument(page.body);
  return { title: titleOf(doc), lines: readableText(doc).lines };
}

export const READER_TASKS = {
  selectors: ({ selectors }: { selectors: string[] }) => selectorProblems(selectors),

  browse: (page: PageBody & { maxLinks: number }) => {
    if (page.kind === 'text') {
      const read: Readable = {
        title: null,
        byline: null,
        siteName: null,
        lang: null,
        excerpt: null,
        publishedTime: null,
        lines: plainLines(page.body),
        article: false,
      };
      return { title: null, read, links: [] as PageLink[], linkCount: 0 };
    }
    const doc = parseDocument(page.body);
    const title = titleOf(doc);
    const lang = doc.documentElement?.getAttribute('lang')?.trim() || null;
    const { links, total } = linksOf(doc, baseOf(doc, page.finalUrl), page.finalUrl, page.maxLinks);
    // Readability changes the document: everything else is read before it.
    const read = readableText(doc);
    read.lang ??= lang;
    return { title, read, links, linkCount: total };
  },

  extract: (page: PageBody & { asks: SelectorAsk[] }) => {
    const doc = parseDocument(page.body);
    const { metadata, opengraph, twitter } = metaOf(doc, baseOf(doc, page.finalUrl));
    const jsonLd = jsonLdOf(doc);
    const tables = tablesOf(doc);
    return {
      metadata,
      opengraph,
      twitter,
      json_ld: jsonLd.blocks,
      json_ld_errors: jsonLd.errors,
      tables: tables.tables,
      table_count: tables.count,
      selected: selectedOf(doc, page.asks),
    };
  },

  lines: (page: PageBody) => pageLines(page),

  passages: (page: PageBody) => {
    const { title, lines } = pageLines(page);
    return { title, passages: passagesOf(lines) };
  },

  rank: ({ question, documents, limit }: { question: string; documents: string[]; limit: number }): Ranked[] =>
    rankBm25(documents.map(bm25Tokens), bm25Tokens(question)).slice(0, limit),
};

export type ReaderTasks = typeof READER_TASKS;
