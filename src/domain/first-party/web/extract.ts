// web-extract: a page's structured data and the CSS selectors asked for.
import { ValidationFailed } from '../../../platform/errors';
import { Checks } from '../../../platform/validate';
import type { Ctx } from '../../context';
import type { JsonSchema } from '../types';
import { readInThread } from '../web-page';
import type { SelectorAsk } from '../web-reader';
import { fetchFields, pageUrl, onField, readablePage, bodyOf, integerOr } from './shared';

/** The input's selectors, checked by the reader before any fetch (a bad one is the caller's to fix). */
async function selectorsOf(input: Record<string, unknown>, signal: AbortSignal): Promise<SelectorAsk[]> {
  const raw = (input.selectors as Record<string, unknown>[] | undefined) ?? [];
  const asks = raw.map((s) => {
    const selector = String(s.selector).trim();
    return {
      name: typeof s.name === 'string' ? s.name : selector,
      selector,
      attribute: typeof s.attribute === 'string' ? s.attribute.toLowerCase() : null,
      limit: integerOr(s.limit, 20),
    };
  });
  const checks = new Checks();
  if (asks.length) {
    for (const { index, message } of await readInThread('selectors', { selectors: asks.map((a) => a.selector) }, signal))
      checks.fail(`selectors.${index}.selector`, message);
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

export async function extract(ctx: Ctx, input: Record<string, unknown>, signal: AbortSignal) {
  const checks = new Checks();
  const url = pageUrl(ctx, checks, 'url', input.url);
  checks.done();
  const asks = await selectorsOf(input, signal);
  const page = await readablePage(ctx, url!, signal);
  if (page.kind !== 'html') {
    throw new ValidationFailed([
      {
        path: 'url',
        message: `could not be read (content_type): ${new URL(page.finalUrl).origin} answered ${page.contentType || 'a body with no type'}; web-extract reads HTML pages`,
      },
    ]);
  }
  const extracted = await onField('url', () => readInThread('extract', { ...bodyOf(page), asks }, signal));
  return { ...fetchFields(page), ...extracted };
}

export const STRING_MAP = (description: string): JsonSchema => ({ type: 'object', description, additionalProperties: { type: 'string' } });
