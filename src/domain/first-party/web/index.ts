// The web capabilities the marketplace serves as provider of last resort (../types.ts): reading, extracting, watching and
// researching pages. Every page comes through the SSRF-guarded client (../web-page.ts), bounded in bytes and time, and is
// read in the reader's thread (../web-reader.ts). A page that cannot be read is a field error on the URL that named it,
// never a 5xx (docs/capabilities/web.md).
import { bool, dateTime, int, list, nullable, num, obj, str } from '../schema';
import type { FirstPartyCapability } from '../types';
import { EXTRACT, PASSAGES } from '../web-reader';
import { RESEARCH, URL_FIELD, FETCH_OUTPUT, FETCH_REQUIRED } from './shared';
import { browse, LINK } from './browse';
import { extract, STRING_MAP } from './extract';
import { monitor } from './monitor';
import { research } from './research';

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
      [
        ...FETCH_REQUIRED,
        'title',
        'byline',
        'site_name',
        'lang',
        'excerpt',
        'published_time',
        'text',
        'text_chars',
        'truncated',
        'readable',
        'links',
        'link_count',
      ],
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
        json_ld_errors: list(
          obj({ index: int('Which block (0-based)'), message: str('What is wrong with it') }, ['index', 'message']),
          'JSON-LD blocks that could not be read',
        ),
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
    summary:
      'Snapshots a web page for the caller and reports what changed since the caller’s last snapshot of it (status, title, lines added and removed); schedule it with a capability subscription',
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
      [
        ...FETCH_REQUIRED,
        'title',
        'content_hash',
        'checked_at',
        'checks',
        'first_check',
        'changed',
        'not_modified',
        'previous',
        'changes',
        'text_chars',
        'summary',
      ],
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
