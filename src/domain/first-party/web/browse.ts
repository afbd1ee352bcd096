// web-browse: a page's readable text and links.
import { Checks } from '../../../platform/validate';
import type { Ctx } from '../../context';
import { obj, str } from '../schema';
import { readInThread } from '../web-page';
import { clip } from '../web-reader';
import { fetchFields, pageUrl, onField, readablePage, bodyOf, integerOr } from './shared';

export async function browse(ctx: Ctx, input: Record<string, unknown>, signal: AbortSignal) {
  const checks = new Checks();
  const url = pageUrl(ctx, checks, 'url', input.url);
  checks.done();
  const maxChars = integerOr(input.max_chars, 20_000);
  const page = await readablePage(ctx, url!, signal);
  const { title, read, links, linkCount } = await onField('url', () =>
    readInThread('browse', { ...bodyOf(page), maxLinks: integerOr(input.max_links, 100) }, signal),
  );
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

export const LINK = obj({ url: str('The link’s absolute URL'), text: str('Its text (or title), at most 300 characters') }, ['url', 'text']);
